// Hyprland's IPC as a source of what is on screen. WayLoop follows the event socket
// (.socket2.sock) in the App's poll loop. It asks the request socket (.socket.sock) for
// j/monitors, j/workspaces, j/clients and j/activewindow at the start, and again after each batch
// of event lines that holds one that can change what is seen. HyprlandIPC (pure, with its
// sources) says where the sockets are, what to ask, how to read the replies and which events
// count. This file connects, writes and reads. Main thread only.
//
// How Hyprland serves the two sockets (github:hyprwm/Hyprland v0.56.2):
//   requests  one per connection. Hyprland accepts, waits up to 5 s for the request, reads it
//             in one read of up to 1023 bytes, writes the reply and closes
//             (src/debug/HyprCtl.cpp:2232-2319). So the request is written whole, at once, with
//             no newline (HyprCtl.cpp:2004-2009), and the reply runs to EOF. Hyprland gives up
//             writing a reply when the socket stays full for about 2 ms (successWrite,
//             HyprCtl.cpp:2170-2202), so the reply is read as soon as the request is written.
//             The wiki's IPC page (https://wiki.hypr.land/IPC/) says to "open the socket
//             immediately before writing requests and close it afterward".
//   events    "NAME>>DATA\n" lines, DATA cut to 1024 bytes (src/managers/EventManager.cpp:126-130),
//             written to each client without blocking. A client that lets 64 events queue up is
//             dropped (EventManager.cpp:169-178), which reads here as EOF.
// The requests are asked synchronously, at most `requestTimeout` each: they are local and
// small, and a Hyprland that does not answer in time keeps the old facts.
import Glibc
import WayLoopCore

final class HyprlandScreen: SocketSource {
    /// The longest event line and the longest reply kept: 4 MiB. An event line is about 1 KiB
    /// (EventManager.cpp:128), and a j/clients reply is about 1 KiB per window.
    static let limit = 4 << 20
    /// How long one request may take, from connecting to the end of its reply.
    static let requestTimeout: Nanos = 500 * 1_000_000

    private let requestSocket: String
    private var lines = EventLines(limit: HyprlandScreen.limit)
    private var chunk = [UInt8](repeating: 0, count: 65536)
    private(set) var facts: ScreenFacts?
    /// Called when `facts` changed, or when the connection ended (facts is then nil). Not called
    /// for the first facts, which are there when init returns.
    var changed: () -> Void = {}
    private let log: Logger
    /// A request went unanswered (said once).
    private var toldUnanswered = false
    /// The replies could not be read (said once).
    private var toldUnreadable = false

    /// Connected to the event socket of the instance `signature` names, at the first candidate
    /// place whose request socket exists (HyprlandIPC.socketCandidates), with the first facts
    /// asked for. Nil, with one debug line, when there is no such socket or it cannot be
    /// connected to. `runtimeDirectory` is $XDG_RUNTIME_DIR as set, not WayLoop's fallback.
    init?(signature: String, runtimeDirectory: String?, log: Logger) {
        self.log = log
        let candidates = HyprlandIPC.socketCandidates(signature: signature, runtimeDirectory: runtimeDirectory)
        guard let sockets = candidates.first(where: { access(Sys.cPath($0.requests), F_OK) == 0 }) else {
            log.debug("no Hyprland request socket at \(candidates.map(\.requests).joined(separator: " or "))")
            return nil
        }
        requestSocket = sockets.requests
        switch UnixSocket.connect(sockets.events) {
        case .success(let fd): super.init(fd: fd)
        case .failure(let why):
            log.debug("Hyprland's event socket at '\(sockets.events)' did not answer: \(why)")
            return nil
        }
        refresh()
    }

    /// Reads the event lines there now. The facts are asked again once if one of them can
    /// change what is seen.
    override func readable() {
        var relevant = false
        let end = UnixSocket.drain(fd, &chunk) { bytes in
            for line in lines.append(bytes) where HyprlandIPC.isRelevant(eventLine: line) { relevant = true }
        }
        if let end { return ended("Hyprland's event socket \(end)") }
        if lines.dropped > 0 { return ended("Hyprland's event socket sent a line over \(Self.limit >> 20) MiB") }
        if relevant { refresh() }
    }

    // MARK: Requests

    /// Asks the four requests and takes the facts they give. Calls `changed` when those differ.
    /// Keeps the old facts when a request goes unanswered or the replies cannot be read (one
    /// debug line for each, the first time).
    private func refresh() {
        let answers: Result<(String, String, String, String), UnixSocket.Failure>
        answers = ask(HyprlandIPC.monitorsRequest).flatMap { m in
            ask(HyprlandIPC.workspacesRequest).flatMap { w in
                ask(HyprlandIPC.clientsRequest).flatMap { c in
                    ask(HyprlandIPC.activeWindowRequest).map { a in (m, w, c, a) }
                }
            }
        }
        switch answers {
        case .failure(let why):
            tell(&toldUnanswered, "Hyprland did not answer a request: \(why); keeping what it said before")
        case .success(let (m, w, c, a)):
            switch HyprlandIPC.facts(monitors: m, workspaces: w, clients: c, activeWindow: a) {
            case .failure(let why):
                tell(&toldUnreadable, "\(why); keeping what it said before")
            case .success(let next):
                guard next != facts else { return }
                facts = next
                changed()
            }
        }
    }

    /// One request on a connection of its own: connect, write it, read the reply to EOF, all
    /// within `requestTimeout` (HyprCtl.cpp:2232-2319).
    private func ask(_ request: String) -> Result<String, UnixSocket.Failure> {
        let deadline = Sys.now() + Self.requestTimeout
        let fd: Int32
        switch UnixSocket.connect(requestSocket) {
        case .success(let c): fd = c
        case .failure(let why): return .failure(.named(request, why))
        }
        defer { Glibc.close(fd) }
        if let why = UnixSocket.send(fd, Array(request.utf8), until: deadline) { return .failure(.named(request, why)) }
        return UnixSocket.readToEnd(fd, limit: Self.limit, until: deadline)
            .map { String(decoding: $0, as: UTF8.self) }
            .mapError { .named(request, $0) }
    }

    /// Logs `message` at debug level once: `told` remembers it was said.
    private func tell(_ told: inout Bool, _ message: String) {
        guard !told else { return }
        told = true
        log.debug(message)
    }

    private func ended(_ why: String) {
        log.debug("\(why): window facts from wlr-foreign-toplevel-management from now on")
        close()
        facts = nil
        changed()
    }
}
