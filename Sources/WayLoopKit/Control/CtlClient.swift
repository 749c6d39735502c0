// `wayloop ctl ...` and the hand-over of a second `wayloop ARGS`: a client of the control
// socket. Blocking I/O with poll timeouts; one request, then its reply (or, for `subscribe`,
// the event stream until the instance goes away).
import Glibc
import WayLoopCore

enum CtlClient {
    /// Exit statuses of `wayloop ctl` (wayloop-ctl(1), docs/guide.md "Control").
    static let ok: Int32 = 0, requestFailed: Int32 = 1, usage: Int32 = 2, notRunning: Int32 = 3

    enum Failure: Error, CustomStringConvertible {
        /// No instance answers on the socket.
        case notRunning(String)
        /// The connection broke or timed out.
        case io(String)
        var description: String {
            switch self {
            case .notRunning(let m), .io(let m): return m
            }
        }
    }

    static func run(_ command: CtlCommand) -> Int32 {
        guard let request = resolved(command.request) else { return requestFailed }
        let path = ControlServer.defaultPath
        let conn: Connection
        switch Connection.open(path) {
        case .success(let c): conn = c
        case .failure(let f):
            Sys.writeStderr("wayloop: error: ctl: \(f)")
            return notRunning
        }
        defer { conn.close() }
        let timeout: Int32 = request == .subscribe ? -1 : 60_000
        // A refused peer gets its reason and a closed connection: read it even if sending failed.
        let sent = conn.send(request.json)
        var answer = conn.readLine(timeoutMs: timeout)
        if case .failure(let f) = sent, case .failure = answer { answer = .failure(f) }
        switch answer {
        case .failure(let f):
            Sys.writeStderr("wayloop: error: ctl: \(f)")
            return requestFailed
        case .success(let reply):
            guard reply["ok"]?.bool == true else {
                Sys.writeStderr("wayloop: error: ctl: \(reply["error"]?.string ?? reply.serialized)")
                return requestFailed
            }
            return show(reply, of: request, command: command, conn: conn, path: path)
        }
    }

    /// The request with the caller's paths made absolute (here, where the working directory is
    /// known); nil after one error line for a bare name found nowhere.
    private static func resolved(_ request: ControlRequest) -> ControlRequest? {
        let cwd = Sys.currentDirectory, home = Sys.env("HOME")
        switch request {
        case .set(let e):
            let named = e.resolvingNames { Sys.findVideo($0, here: cwd) }
            // A bare name found nowhere: said here, with the places looked in.
            for v in [named.video, named.fallback?.video].compactMap({ $0 }) where VideoLookup.isBareName(v) {
                if let problem = Preflight.check(v) {
                    Sys.writeStderr("wayloop: error: ctl: \(problem)")
                    return nil
                }
            }
            return .set(named.resolvingPaths(in: cwd, home: home))
        case .snapshot(let o, let file):
            return .snapshot(output: o, file: Paths.absolute(file, in: cwd, home: home))
        default:
            return request
        }
    }

    /// Prints a good reply as the command asks (status as text or JSON, the event stream, the
    /// message); the exit status.
    private static func show(_ reply: JSON, of request: ControlRequest, command: CtlCommand, conn: Connection, path: String) -> Int32 {
        switch request {
        case .status:
            if command.json {
                Sys.writeStdout(reply.serialized + "\n")
            } else {
                let lines = (reply["outputs"]?.array ?? []).compactMap(OutputStatus.init(json:)).map { LineText.escaped($0.line) }
                Sys.writeStdout(lines.isEmpty ? "no outputs\n" : lines.joined(separator: "\n") + "\n")
            }
        case .subscribe where command.waybar:
            return waybar(conn, path: path)
        case .subscribe:
            // Every event on its own line, flushed at once (for waybar and scripts).
            while case .success(let event) = conn.readLine(timeoutMs: -1) {
                Sys.writeStdout(event.serialized + "\n")
            }
        default:
            if let m = reply["message"]?.string { Sys.writeStdout(LineText.escaped(m) + "\n") }
        }
        return ok
    }

    /// `subscribe --waybar`: one waybar line now and after each event, from a fresh status
    /// (outputs come and go); a line equal to the last one is not repeated.
    private static func waybar(_ conn: Connection, path: String) -> Int32 {
        var last = ""
        func show() -> Bool {
            guard case .success(let c) = Connection.open(path) else { return false }
            defer { c.close() }
            guard case .success = c.send(ControlRequest.status.json), case .success(let r) = c.readLine(timeoutMs: 10_000) else { return false }
            let line = Waybar.line((r["outputs"]?.array ?? []).compactMap(OutputStatus.init(json:))).serialized
            if line != last { Sys.writeStdout(line + "\n") }
            last = line
            return true
        }
        guard show() else { return requestFailed }
        while case .success = conn.readLine(timeoutMs: -1) {
            guard show() else { break }
        }
        return ok
    }

    /// Hands a second start's arguments to the running instance. Returns its reply's error.
    static func handOver(args: [String]) -> Result<JSON, Failure> {
        exchange(.handOver(args: args, cwd: Sys.currentDirectory), timeoutMs: 60_000)
    }

    /// Asks the running instance to quit (for --replace).
    static func quit() -> Result<JSON, Failure> { exchange(.quit, timeoutMs: 10_000) }

    /// One request and its reply on a connection of its own.
    private static func exchange(_ request: ControlRequest, timeoutMs: Int32) -> Result<JSON, Failure> {
        Connection.open(ControlServer.defaultPath).flatMap { conn in
            defer { conn.close() }
            return conn.send(request.json).flatMap { conn.readLine(timeoutMs: timeoutMs) }
        }
    }

    final class Connection {
        let fd: Int32
        private var splitter = LineSplitter(limit: 16 << 20)
        private var lines: [String] = []

        private init(fd: Int32) { self.fd = fd }

        static func open(_ path: String) -> Result<Connection, Failure> {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { return .failure(.io("cannot create a socket: \(Sys.errnoText())")) }
            var addr = ControlServer.address(path)
            let rc = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard rc == 0 else {
                let e = errno
                Glibc.close(fd)
                return .failure(.notRunning(e == ENOENT || e == ECONNREFUSED
                    ? "no wayloop is running on this display (no control socket at \(path))"
                    : "cannot connect to \(path): \(Sys.errnoText(e))"))
            }
            return .success(Connection(fd: fd))
        }

        func close() { _ = Glibc.close(fd) }

        func send(_ value: JSON) -> Result<Void, Failure> {
            let bytes = Array((value.serialized + "\n").utf8)
            var off = 0
            while off < bytes.count {
                let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + off, $0.count - off, Int32(MSG_NOSIGNAL)) }
                if n < 0 {
                    if errno == EINTR { continue }
                    return .failure(.io("cannot send the request: \(Sys.errnoText())"))
                }
                off += n
            }
            return .success(())
        }

        /// The next line as JSON; EOF, a timeout or garbage is a failure.
        func readLine(timeoutMs: Int32) -> Result<JSON, Failure> {
            var buf = [UInt8](repeating: 0, count: 4096)
            while lines.isEmpty {
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let r = poll(&p, 1, timeoutMs)
                if r < 0 && errno == EINTR { continue }
                if r == 0 { return .failure(.io("no reply from wayloop within \(timeoutMs / 1000) s")) }
                let n = recv(fd, &buf, buf.count, 0)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return .failure(.io("wayloop closed the connection")) }
                for item in splitter.feed(Array(buf[0..<n])) {
                    if case .line(let l) = item, !l.isEmpty { lines.append(l) }
                }
            }
            let line = lines.removeFirst()
            do { return .success(try JSON.parse(line)) } catch {
                return .failure(.io("unreadable reply from wayloop: \(error)"))
            }
        }
    }
}
