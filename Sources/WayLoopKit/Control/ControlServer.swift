// The control socket: $XDG_RUNTIME_DIR/wayloop-$WAYLAND_DISPLAY.sock, mode 0600, one JSON object
// per line each way. Peers of another uid are refused (SO_PEERCRED); a line has a size limit;
// a malformed request gets an error reply and the connection stays. Main thread only, driven
// by the event loop's poll (non-blocking sockets, per-client output buffers).
import CSystem
import Glibc
import WayLoopCore

protocol ControlServerDelegate: AnyObject {
    /// A well-formed request from client `id`. Answer with `reply(to:_:)`, now or later.
    func control(_ server: ControlServer, request: ControlRequest, from id: Int)
}

final class ControlServer {
    static let lineLimit = 64 * 1024
    static let maxClients = 32
    /// A subscriber that falls this far behind is dropped rather than buffered without end.
    static let outputLimit = 1 << 20
    /// A connection that sends nothing for this long (not a subscriber, no reply owed) is closed.
    static let idleTimeout: Nanos = 10 * 1_000_000_000

    let path: String
    weak var delegate: ControlServerDelegate?
    private let listenFD: Int32
    private let log: Logger
    private var clients: [Int: Client] = [:]
    private var nextID = 1
    /// Client ids in the order `fill` placed them after the listening socket.
    private var polled: [Int] = []
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 8)
    private var acceptPausedUntil: Nanos = 0

    private final class Client {
        let id: Int
        let fd: Int32
        var closed = false
        var splitter = LineSplitter(limit: ControlServer.lineLimit)
        var output: [UInt8] = []
        var subscribed = false
        /// Requests handed to the delegate and not answered yet (a `set` waits for its first
        /// frame, a hand-over for the new settings): such a connection is never idle.
        var awaiting = 0
        /// When it last sent something, was answered, or connected.
        var lastActive: Nanos
        init(id: Int, fd: Int32) {
            self.id = id
            self.fd = fd
            lastActive = Sys.now()
        }
    }

    static var defaultPath: String { Sys.displayFile("sock") }

    /// Binds and listens. The caller holds the instance lock, so a socket file already there is
    /// left by a run that crashed: it is replaced.
    init(path: String, log: Logger) throws(ControlError) {
        self.path = path
        self.log = log
        guard PathBytes.encode(path).count < 108 else { throw .busy("the control socket path is too long: \(path)") }
        var st = stat()
        if lstat(Sys.cPath(path), &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFSOCK else {
                throw .busy("\(path) exists and is not a socket; remove it")
            }
            unlink(Sys.cPath(path))
            log.notice("replaced a stale control socket left by an earlier run: \(path)")
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .busy("cannot create the control socket: \(Sys.errnoText())") }
        var addr = Self.address(path)
        // Created 0600 from the start (umask), not chmod'ed after a window of wider access.
        let oldMask = umask(0o177)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(oldMask)
        guard rc == 0, listen(fd, 16) == 0 else {
            let e = Sys.errnoText()
            close(fd)
            throw .busy("cannot listen on \(path): \(e)")
        }
        listenFD = fd
        readBuffer.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit { readBuffer.deallocate() }

    static func address(_ path: String) -> sockaddr_un {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            let bytes = Array(PathBytes.encode(path).prefix(raw.count - 1))
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return addr
    }

    /// Closes every connection and removes the socket file.
    func shutdown() {
        for c in clients.values {
            flush(c)
            drop(c)
        }
        clients.removeAll()
        close(listenFD)
        unlink(Sys.cPath(path))
    }

    // MARK: Polling

    /// Writes the listening socket and each client into `fds`; returns how many.
    func fill(_ fds: UnsafeMutablePointer<pollfd>, capacity: Int) -> Int {
        polled.removeAll(keepingCapacity: true)
        // A negative fd is skipped by poll: how accepting pauses after EMFILE.
        fds[0] = pollfd(fd: Sys.now() < acceptPausedUntil ? -1 : listenFD, events: Int16(POLLIN), revents: 0)
        var n = 1
        for c in clients.values where n < capacity {
            fds[n] = pollfd(fd: c.fd, events: Int16(POLLIN) | (c.output.isEmpty ? 0 : Int16(POLLOUT)), revents: 0)
            polled.append(c.id)
            n += 1
        }
        return n
    }

    /// Handles what poll reported for the descriptors `fill` wrote.
    func handle(_ fds: UnsafeMutablePointer<pollfd>, count: Int) {
        guard count > 0 else { return }
        for i in 1..<count where i - 1 < polled.count {
            let re = fds[i].revents
            guard re != 0, let c = clients[polled[i - 1]] else { continue }
            if re & Int16(POLLOUT) != 0 { flush(c) }
            if re & Int16(POLLIN | POLLHUP | POLLERR) != 0 && !c.closed { read(c) }
        }
        if fds[0].revents & Int16(POLLIN) != 0 { acceptAll() }
    }

    private func acceptAll() {
        while true {
            // accept4 is not in the Glibc module: the flags are set right after (WayLoop never
            // execs, so the moment without CLOEXEC does not matter).
            let fd = accept(listenFD, nil, nil)
            if fd < 0 {
                // Out of descriptors: stop polling the listening socket for a second, not spin.
                if errno == EMFILE || errno == ENFILE {
                    log.notice("cannot accept a connection: \(Sys.errnoText()); retrying in 1 s")
                    acceptPausedUntil = Sys.now() + 1_000_000_000
                }
                return
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            var peerUID: uid_t = 0, peerPID: pid_t = 0
            let ok = csys_peer_credentials(fd, &peerUID, &peerPID) == 0
            let refusal: ControlError?
            if !ok {
                refusal = .refused("cannot check the peer's credentials: \(Sys.errnoText())")
            } else if peerUID != getuid() {
                refusal = .refused("refused: the connecting process (pid \(peerPID)) runs as uid \(peerUID), not as uid \(getuid()), which owns this wayloop")
            } else if clients.count >= Self.maxClients && !evictIdle() {
                refusal = .busy("too many control connections (\(Self.maxClients) subscribers); try again")
            } else {
                refusal = nil
            }
            if let refusal {
                log.notice("\(refusal)")
                let line = Array((refusal.reply.serialized + "\n").utf8)
                _ = line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
                close(fd)
                continue
            }
            let c = Client(id: nextID, fd: fd)
            nextID += 1
            clients[c.id] = c
        }
    }

    /// Full: closes the connection that has been silent longest and is no subscriber, so that a
    /// hand-over or a `wayloop ctl` always gets through (otherwise 32 idle connections would
    /// lock them out). False when every connection is a subscriber.
    private func evictIdle() -> Bool {
        guard let c = clients.values.filter({ !$0.subscribed }).min(by: { $0.lastActive < $1.lastActive }) else { return false }
        log.notice("\(Self.maxClients) connections open: closing the one idle longest (\((Sys.now() - c.lastActive) / 1_000_000) ms)")
        enqueue(c, ControlError.busy("closed: too many control connections, and this one was idle the longest").reply)
        drop(c)
        return true
    }

    private func read(_ c: Client) {
        while !c.closed {
            let n = recv(c.fd, readBuffer.baseAddress, readBuffer.count, Int32(MSG_DONTWAIT))
            if n > 0 {
                c.lastActive = Sys.now()
                for item in c.splitter.feed(UnsafeRawBufferPointer(rebasing: readBuffer[0..<n])) {
                    guard !c.closed else { return }
                    switch item {
                    case .tooLong:
                        reply(to: c.id, ControlError.tooLong(limit: Self.lineLimit).reply)
                    case .line(let text):
                        if text.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
                        switch ControlRequest.parse(text) {
                        case .failure(let e): reply(to: c.id, e.reply)
                        case .success(let r):
                            c.awaiting += 1
                            delegate?.control(self, request: r, from: c.id)
                        }
                    }
                }
                continue
            }
            if n < 0 && (errno == EAGAIN || errno == EINTR) { return }
            drop(c)  // EOF or error
            return
        }
    }

    private func drop(_ c: Client) {
        guard !c.closed else { return }
        c.closed = true
        close(c.fd)
        clients[c.id] = nil
    }

    // MARK: Writing

    func reply(to id: Int, _ value: JSON) {
        guard let c = clients[id] else { return }
        c.awaiting = max(0, c.awaiting - 1)
        c.lastActive = Sys.now()
        enqueue(c, value)
    }

    // MARK: Idle connections

    private func mayExpire(_ c: Client) -> Bool { !c.subscribed && c.awaiting == 0 }

    /// When the next silent connection is due to be closed (nil: none can be).
    var nextExpiry: Nanos? {
        clients.values.filter(mayExpire).map { $0.lastActive + Self.idleTimeout }.min()
    }

    /// Closes the connections that sent nothing for `idleTimeout` (with an error line saying so):
    /// a client that connects and never writes, or stops half-way through a line, cannot hold a
    /// connection slot for ever.
    func expireIdle(now: Nanos) {
        for c in clients.values where mayExpire(c) && now - c.lastActive >= Self.idleTimeout {
            log.debug("closing a connection silent for \(Self.idleTimeout / 1_000_000_000) s")
            enqueue(c, ControlError.busy("closed: nothing received for \(Self.idleTimeout / 1_000_000_000) s").reply)
            drop(c)
        }
    }

    /// Marks a client as a subscriber: it gets every `publish` from now on.
    func subscribe(_ id: Int) { clients[id]?.subscribed = true }

    func publish(_ value: JSON) {
        for c in clients.values where c.subscribed { enqueue(c, value) }
    }

    private func enqueue(_ c: Client, _ value: JSON) {
        c.output.append(contentsOf: value.serialized.utf8)
        c.output.append(UInt8(ascii: "\n"))
        if c.output.count > Self.outputLimit {
            log.notice("dropping a client that stopped reading (\(c.output.count) bytes queued)")
            drop(c)
            return
        }
        flush(c)
    }

    private func flush(_ c: Client) {
        while !c.output.isEmpty && !c.closed {
            let n = c.output.withUnsafeBytes { send(c.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
            if n > 0 {
                c.output.removeFirst(n)
            } else {
                if n < 0 && (errno == EAGAIN || errno == EINTR) { return }
                drop(c)
                return
            }
        }
    }
}

extension ControlServer: PollSource {}
