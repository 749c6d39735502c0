// The compositors' IPC sockets as the App's loop polls them: one connected unix socket each
// (SocketSource: its fd, its slot in the poll, closing it), and the few calls they make on it
// (UnixSocket). SwayScreen, HyprlandScreen and NiriScreen read their protocols over these.
// Main thread only.
import Glibc
import WayLoopCore

/// One connected socket polled for input: what the three IPC sources share.
class SocketSource: PollSource {
    /// The connected socket; -1 once closed (then nothing is polled).
    var fd: Int32

    init(fd: Int32) { self.fd = fd }

    deinit { close() }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    var isOpen: Bool { fd >= 0 }

    func fill(_ fds: UnsafeMutablePointer<pollfd>, capacity: Int) -> Int {
        guard fd >= 0, capacity > 0 else { return 0 }
        fds[0] = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return 1
    }

    /// The socket is readable (or hung up): the source reads it.
    func readable() {}

    func handle(_ fds: UnsafeMutablePointer<pollfd>, count: Int) {
        guard count > 0, fd >= 0, fds[0].revents != 0 else { return }
        readable()
    }
}

/// A unix stream socket's few calls, as the IPC sources use them: every socket is
/// non-blocking and close-on-exec. A write never raises SIGPIPE (a library's host may not ignore
/// it), and every wait has a deadline.
enum UnixSocket {
    /// Why a socket call did not do what it was asked.
    enum Failure: Error, Equatable, CustomStringConvertible {
        /// The peer closed the connection.
        case closed
        /// The deadline passed.
        case timedOut
        /// More than `limit` bytes came.
        case tooLong(limit: Int)
        /// The path does not fit a sockaddr_un.
        case pathTooLong
        /// A call failed with this errno.
        case failed(Int32)
        /// One of the above while asking `request`.
        indirect case named(String, Failure)

        var description: String {
            switch self {
            case .closed: return "closed the connection"
            case .timedOut: return "did not answer in time"
            case .tooLong(let limit): return "sent more than \(limit >> 20) MiB"
            case .pathTooLong: return "its path is too long for a unix socket"
            case .failed(let code): return Sys.errnoText(code)
            case .named(let request, let why): return "\(request): \(why)"
            }
        }
    }

    /// A socket connected to `path`. A unix socket connects at once or not at all; EAGAIN
    /// means the listener's backlog is full.
    static func connect(_ path: String) -> Result<Int32, Failure> {
        // ControlServer.address cuts a long path short: refuse it instead of reaching another one.
        guard PathBytes.encode(path).count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else { return .failure(.pathTooLong) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return .failure(.failed(errno)) }
        var addr = ControlServer.address(path)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else {
            let code = errno
            Glibc.close(fd)
            return .failure(.failed(code))
        }
        return .success(fd)
    }

    /// Writes all of `bytes`, waiting for room until `deadline` (CLOCK_MONOTONIC). Returns nil
    /// when it is all written, else why not.
    static func send(_ fd: Int32, _ bytes: [UInt8], until deadline: Nanos) -> Failure? {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                Glibc.send(fd, raw.baseAddress.map { $0 + done }, raw.count - done, Int32(MSG_NOSIGNAL))
            }
            if n > 0 {
                done += n
                continue
            }
            if n < 0 && errno == EINTR { continue }
            guard n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) else { return n == 0 ? .closed : .failed(errno) }
            if let why = wait(fd, Int16(POLLOUT), until: deadline) { return why }
        }
        return nil
    }

    /// Reads until the peer closes the connection, waiting until `deadline`. Fails when more
    /// than `limit` bytes come.
    static func readToEnd(_ fd: Int32, limit: Int, until deadline: Nanos) -> Result<[UInt8], Failure> {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                guard out.count + n <= limit else { return .failure(.tooLong(limit: limit)) }
                out += chunk[0..<n]
                continue
            }
            if n == 0 { return .success(out) }
            if errno == EINTR { continue }
            guard errno == EAGAIN || errno == EWOULDBLOCK else { return .failure(.failed(errno)) }
            if let why = wait(fd, Int16(POLLIN), until: deadline) { return .failure(why) }
        }
    }

    /// Reads what `fd` holds now, without waiting, and hands each piece to `take`. Stops after
    /// `maxReads` reads, so one wake-up's work is bounded; poll wakes again for the rest. Returns
    /// nil while the peer is still there, else why it is not: EOF or an error.
    static func drain(_ fd: Int32, _ buffer: inout [UInt8], maxReads: Int = 16, _ take: (ArraySlice<UInt8>) -> Void) -> Failure? {
        var reads = 0
        while reads < maxReads {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                take(buffer[0..<n])
                reads += 1
                continue
            }
            if n == 0 { return .closed }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
            return .failed(errno)
        }
        return nil
    }

    /// Waits for `events` on `fd` until `deadline`. Returns nil when it came, else why not.
    /// POLLHUP and POLLERR count as having come: the next call says what they mean.
    private static func wait(_ fd: Int32, _ events: Int16, until deadline: Nanos) -> Failure? {
        while true {
            let left = deadline - Sys.now()
            guard left > 0 else { return .timedOut }
            var p = pollfd(fd: fd, events: events, revents: 0)
            // Rounded up, so that the wait never spins at 0 ms before the deadline.
            let ms = Int32(clamping: (left + 999_999) / 1_000_000)
            let rc = poll(&p, 1, ms)
            if rc > 0 { return nil }
            if rc < 0 && errno != EINTR { return .failed(errno) }
        }
    }
}
