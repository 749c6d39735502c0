// A client of a running wallpaper's control socket: `wayloop ctl` is one (its command lives in
// the executable), the hand-over of a second `wayloop ARGS` and `--replace` are others, and a
// host may be another. Blocking I/O with poll timeouts; one request, then its reply (or, for
// `subscribe`, the event lines until the wallpaper goes away).
import Glibc
import WayLoopCore

/// A connection to a running wallpaper on this display: `wayloop`, or a program that runs a
/// ``Wallpaper``. `wayloop ctl` is one; a panel, a lock screen or a script may be another (pause
/// the wallpaper while the lock shows, read what plays, follow its states).
///
/// ```swift
/// let control = try WallpaperControl()
/// for output in try control.send(.status).outputs { print(output.line) }
/// ```
public final class WallpaperControl {
    /// Why a request got no good reply.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// No wallpaper answers on this display's control socket.
        case notRunning(String)
        /// The connection broke, timed out or carried something unreadable.
        case io(String)
        /// The wallpaper refused the request; its line says why.
        case refused(String)

        /// One line saying why.
        public var description: String {
            switch self {
            case .notRunning(let m), .io(let m), .refused(let m): return m
            }
        }
    }

    /// A good reply.
    public struct Reply: Sendable {
        /// What it says it did (`set`, `pause`, `snapshot` …), if anything.
        public let message: String?
        /// Each connected output's status (a `status` reply).
        public let outputs: [OutputStatus]
        /// The reply as it came: one line of JSON.
        public let line: String
    }

    private let connection: Connection

    /// Connects to the wallpaper called `name` (`--name NAME`; nil: the unnamed one) on this
    /// display (`WAYLAND_DISPLAY`).
    public init(name: String? = nil) throws(Failure) {
        switch Connection.open(Sys.displayFile("sock", instance: name)) {
        case .success(let c): connection = c
        case .failure(let f): throw f
        }
    }

    deinit { connection.close() }

    /// `request` as `wayloop ctl` sends it: a bare video name looked up as ``Wallpaper/find(_:)``
    /// does and relative paths made absolute, here, where the caller's working directory is
    /// known. Throws for a name found nowhere, with the places looked in.
    public static func resolved(_ request: ControlRequest) throws(VideoError) -> ControlRequest {
        let cwd = Sys.currentDirectory, home = Sys.env("HOME")
        switch request {
        case .set(let e):
            let named = e.resolvingNames { Sys.findVideo($0, here: cwd) }.resolvingFolders { Workshop.resolvePath($0, here: cwd) }
            for v in [named.video, named.fallback?.video].compactMap({ $0 }) where VideoLookup.isBareName(v) {
                if let problem = Preflight.check(v) { throw problem }
            }
            return .set(named.resolvingPaths(in: cwd, home: home))
        case .snapshot(let o, let file):
            return .snapshot(output: o, file: Paths.absolute(file, in: cwd, home: home))
        default:
            return request
        }
    }

    /// Sends `request` and waits up to `timeout` seconds (nil: for ever) for its reply.
    /// After `.subscribe`, ``nextEvent()`` reads the events.
    @discardableResult
    public func send(_ request: ControlRequest, timeout: Double? = 60) throws(Failure) -> Reply {
        // A refused peer gets its reason and a closed connection: read it even if sending failed.
        let sent = connection.send(request.json)
        var answer = connection.readLine(timeoutMs: timeout.map { Int32($0 * 1000) } ?? -1)
        if case .failure(let f) = sent, case .failure = answer { answer = .failure(f) }
        let reply: JSON
        switch answer {
        case .failure(let f): throw f
        case .success(let r): reply = r
        }
        return try Self.reply(reply)
    }

    /// A reply as the wallpaper sent it: good, or refused with its line (a ``Wallpaper``'s own
    /// requests are answered the same way).
    static func reply(_ reply: JSON) throws(Failure) -> Reply {
        guard reply["ok"]?.bool == true else { throw .refused(reply["error"]?.string ?? reply.serialized) }
        return Reply(message: reply["message"]?.string, outputs: (reply["outputs"]?.array ?? []).compactMap(OutputStatus.init(json:)),
                     line: reply.serialized)
    }

    /// The next event of a subscription, as one line of JSON (a ``StateEvent``'s `json`); waits
    /// for it. Throws once the wallpaper goes away.
    public func nextEvent() throws(Failure) -> String {
        switch connection.readLine(timeoutMs: -1) {
        case .success(let event): return event.serialized
        case .failure(let f): throw f
        }
    }

    // MARK: The command's own requests

    /// Hands a second start's arguments to the running instance; its reply.
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
