// sway's IPC as a source of what is on screen: one connection to $SWAYSOCK, subscribed to the
// workspace, window and output events, asking get_workspaces and get_tree at the start and after
// every event that can change what is seen (a window's new title cannot). The framing and the
// reading of the replies are SwayIPC's (pure). Polled by the App's loop. Main thread only.
import Glibc
import WayLoopCore

final class SwayScreen: SocketSource {
    private var buffer: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 65536)
    private var workspaces: String?
    /// Replies asked for and not yet read (a get_workspaces and a get_tree per ask).
    private var inFlight = 0
    /// An event came while an ask was in flight: ask again when it is answered.
    private var again = false
    private(set) var facts: ScreenFacts?
    /// Called when `facts` changed, or when the connection ended (facts is then nil).
    var changed: () -> Void = {}
    private let log: Logger

    /// Connected to `socket`, subscribed, and the first ask sent; nil (with one debug line) when
    /// it cannot be.
    init?(socket: String, log: Logger) {
        self.log = log
        let fd: Int32
        switch UnixSocket.connect(socket) {
        case .success(let c): fd = c
        case .failure(let why):
            log.debug("sway's IPC at '\(socket)' did not answer: \(why)")
            return nil
        }
        if let why = UnixSocket.send(fd, SwayIPC.subscribeMessage, until: Sys.now() + Self.writeTimeout) {
            log.debug("sway's IPC at '\(socket)' did not answer: \(why)")
            Glibc.close(fd)
            return nil
        }
        super.init(fd: fd)
        ask()
    }

    /// How long a request may wait for room in the socket.
    static let writeTimeout: Nanos = 1_000 * 1_000_000

    override func readable() {
        if let end = UnixSocket.drain(fd, &chunk, { buffer += $0 }) { return ended("sway's IPC \(end)") }
        guard let split = SwayIPC.split(buffer) else { return ended("sway's IPC sent something that is not its protocol") }
        buffer.removeFirst(split.used)
        for m in split.messages { take(m.type, m.payload) }
        // A tree larger than this is not a desktop: stop listening rather than grow for ever.
        if buffer.count > 64 << 20 { ended("sway's IPC sent a message over 64 MiB") }
    }

    // MARK: Messages

    private func take(_ type: UInt32, _ payload: String) {
        if type == SwayIPC.shutdownEvent { return ended("sway is shutting down") }
        if type & SwayIPC.eventBit != 0 {
            // A title changes often and changes nothing of what is seen.
            if (try? JSON.parse(payload))?["change"]?.string == "title" { return }
            if inFlight > 0 { again = true } else { ask() }
            return
        }
        switch type {
        case SwayIPC.Request.getWorkspaces.rawValue:
            workspaces = payload
        case SwayIPC.Request.getTree.rawValue:
            inFlight = max(0, inFlight - 1)
            if let ws = workspaces, let f = SwayIPC.facts(workspaces: ws, tree: payload), f != facts {
                facts = f
                changed()
            }
            if again && inFlight == 0 {
                again = false
                ask()
            }
        default:
            break  // the subscribe reply
        }
    }

    private func ask() {
        let bytes = SwayIPC.message(SwayIPC.Request.getWorkspaces.rawValue) + SwayIPC.message(SwayIPC.Request.getTree.rawValue)
        if let why = UnixSocket.send(fd, bytes, until: Sys.now() + Self.writeTimeout) {
            return ended("cannot write to sway's IPC: \(why)")
        }
        inFlight += 1
    }

    private func ended(_ why: String) {
        log.debug("\(why): window facts from wlr-foreign-toplevel-management from now on")
        close()
        facts = nil
        changed()
    }
}
