// niri's IPC as a source of what is on screen: one connection to $NIRI_SOCKET, turned into an
// event stream by one request, and followed in the App's poll loop. NiriIPC (pure, with its
// sources) gives the request and checks its reply. NiriState applies each event line as
// niri-ipc's own EventStreamState does. This file connects, writes and reads. Main thread only.
//
// How niri serves the stream (github:niri-wm/niri v26.04):
//   request   one JSON line (niri-ipc/src/lib.rs:27-28), here `"EventStream"`.
//   reply     one line, `{"Ok":"Handled"}` or `{"Err":"…"}`, written compactly by serde_json
//             (src/ipc/server.rs:222-225), and then the events on the same connection.
//   events    one JSON line each (server.rs:496-497). The state comes first, from
//             EventStreamState::replicate (server.rs:246-252; niri-ipc/src/state.rs): a
//             WorkspacesChanged, then a WindowsChanged, then the rest. Until both have come,
//             `facts` stays nil, so that there is never a moment that claims no windows are open.
// A line niri would not write is logged once at debug level and skipped, and the stream goes
// on: niri-ipc's docs say its parts are not always consistent (state.rs:27-32), and NiriState
// skips an event it cannot apply.
import Glibc
import WayLoopCore

final class NiriScreen: SocketSource {
    /// The longest line kept: 4 MiB. A WindowsChanged line is about 500 bytes per window.
    static let limit = 4 << 20
    /// How long connecting and writing the request may take.
    static let requestTimeout: Nanos = 1_000 * 1_000_000

    private var lines = EventLines(limit: NiriScreen.limit)
    private var chunk = [UInt8](repeating: 0, count: 65536)
    /// niri's reply to the request has been read and is `{"Ok":"Handled"}`.
    private var replied = false
    private var state = NiriState()
    /// The full lists niri sends first have come: a WorkspacesChanged and a WindowsChanged.
    private var hasWorkspaces = false, hasWindows = false
    private(set) var facts: ScreenFacts?
    /// Called when `facts` changed, or when the stream ended (facts is then nil).
    var changed: () -> Void = {}
    private let log: Logger
    /// A line could not be read (said once).
    private var toldMalformed = false

    /// Connected to `socket` ($NIRI_SOCKET) with the event stream asked for. Nil, with one debug
    /// line, when it cannot be. The reply and the events are read in the poll loop.
    init?(socket: String, log: Logger) {
        self.log = log
        let deadline = Sys.now() + Self.requestTimeout
        let fd: Int32
        switch UnixSocket.connect(socket) {
        case .success(let c): fd = c
        case .failure(let why):
            log.debug("niri's IPC at '\(socket)' did not answer: \(why)")
            return nil
        }
        if let why = UnixSocket.send(fd, Array(NiriIPC.eventStreamRequest.utf8), until: deadline) {
            log.debug("cannot ask niri's IPC at '\(socket)' for its event stream: \(why)")
            Glibc.close(fd)
            return nil
        }
        super.init(fd: fd)
    }

    /// Reads the lines there now: the reply first, then events. Calls `changed` once if the
    /// facts they leave differ.
    override func readable() {
        var got: [String] = []
        let end = UnixSocket.drain(fd, &chunk) { got += lines.append($0) }
        var dirty = false
        for line in got {
            guard replied else {
                if case .failure(let why) = NiriIPC.checkEventStreamReply(line) { return ended("\(why)") }
                replied = true
                continue
            }
            if apply(line) { dirty = true }
        }
        if let end { return ended("niri's IPC \(end)") }
        if lines.dropped > 0 { return ended("niri's IPC sent a line over \(Self.limit >> 20) MiB") }
        if dirty { publish() }
    }

    // MARK: Events

    /// Applies one event line. Returns whether the facts may have changed. A malformed line is
    /// skipped, with one debug line the first time.
    private func apply(_ line: String) -> Bool {
        do {
            let may = try state.apply(line)
            if may && !(hasWorkspaces && hasWindows) { noteFullList(line) }
            return may
        } catch {
            if !toldMalformed {
                toldMalformed = true
                log.debug("\(error); skipping such lines")
            }
            return false
        }
    }

    /// Notes a WorkspacesChanged or WindowsChanged line (read again only until both have come).
    private func noteFullList(_ line: String) {
        guard let json = try? JSON.parse(line) else { return }
        if json["WorkspacesChanged"] != nil { hasWorkspaces = true }
        if json["WindowsChanged"] != nil { hasWindows = true }
    }

    /// Takes the state's facts once niri has sent both full lists. Calls `changed` when they differ.
    private func publish() {
        guard hasWorkspaces && hasWindows else { return }
        let next = state.facts
        guard next != facts else { return }
        facts = next
        changed()
    }

    private func ended(_ why: String) {
        log.debug("\(why): window facts from wlr-foreign-toplevel-management from now on")
        close()
        facts = nil
        changed()
    }
}
