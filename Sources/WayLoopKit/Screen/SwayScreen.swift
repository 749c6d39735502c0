// sway's IPC as a source of what is on screen: one connection to $SWAYSOCK, subscribed to the
// workspace, window and output events, asking get_workspaces and get_tree at the start and after
// every event that can change what is seen (a window's new title cannot). The framing and the
// reading of the replies are SwayIPC's (pure). Polled by the App's loop. Main thread only.
import Glibc
import WayLoopCore

final class SwayScreen: PollSource {
    private var fd: Int32
    private var buffer: [UInt8] = []
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
        fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var addr = ControlServer.address(socket)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0, send(SwayIPC.subscribeMessage) else {
            log.debug("sway's IPC at '\(socket)' did not answer: \(Sys.errnoText())")
            Glibc.close(fd)
            return nil
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        ask()
    }

    deinit { close() }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    var isOpen: Bool { fd >= 0 }

    // MARK: PollSource

    func fill(_ fds: UnsafeMutablePointer<pollfd>, capacity: Int) -> Int {
        guard fd >= 0, capacity > 0 else { return 0 }
        fds[0] = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return 1
    }

    func handle(_ fds: UnsafeMutablePointer<pollfd>, count: Int) {
        guard count > 0, fd >= 0, fds[0].revents != 0 else { return }
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 { buffer += chunk[0..<n]; continue }
            if n < 0 && (errno == EAGAIN || errno == EINTR) { break }
            ended("sway's IPC closed the connection")
            return
        }
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
        guard send(SwayIPC.message(SwayIPC.Request.getWorkspaces.rawValue) + SwayIPC.message(SwayIPC.Request.getTree.rawValue)) else {
            return ended("cannot write to sway's IPC: \(Sys.errnoText())")
        }
        inFlight += 1
    }

    private func send(_ bytes: [UInt8]) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && errno == EAGAIN {
                var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                if poll(&p, 1, 1000) <= 0 { return false }
                continue
            }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }

    private func ended(_ why: String) {
        log.debug("\(why): window facts from wlr-foreign-toplevel-management from now on")
        close()
        facts = nil
        changed()
    }
}
