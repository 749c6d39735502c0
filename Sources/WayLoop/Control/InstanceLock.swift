// One instance per Wayland display: an flock(2) on $XDG_RUNTIME_DIR/wayloop-$WAYLAND_DISPLAY.lock,
// held for the life of the process (the kernel drops it on any exit, crash included, so a stale
// file never blocks a new start).
import Glibc
import WayLoopCore

struct InstanceLockError: Error, CustomStringConvertible {
    let description: String
}

final class InstanceLock {
    private let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    static var path: String { Sys.displayFile("lock") }

    enum Outcome {
        case acquired(InstanceLock)
        /// Another process holds it; its pid as it wrote it ("?" if unreadable).
        case held(pid: String)
        case failed(InstanceLockError)
    }

    /// Takes the lock; with `waitSeconds`, keeps trying that long while another process holds it.
    static func acquire(waitSeconds: Double = 0) -> Outcome {
        guard Sys.runtimeDirectory != nil else {
            return .failed(InstanceLockError(description:
                "XDG_RUNTIME_DIR is not set and /tmp/wayloop-\(getuid()) is not a directory of this user alone"))
        }
        let p = path
        let fd = open(Sys.cPath(p), O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return .failed(InstanceLockError(description: "cannot open the lock file \(p): \(Sys.errnoText())")) }
        let deadline = Sys.now() + Nanos(waitSeconds * 1e9)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if Sys.now() < deadline {
                usleep(20_000)
                continue
            }
            var buf = [UInt8](repeating: 0, count: 32)
            let n = pread(fd, &buf, buf.count, 0)
            close(fd)
            return .held(pid: n > 0 ? String(decoding: buf[0..<n], as: UTF8.self).trimmingSpaces : "?")
        }
        _ = ftruncate(fd, 0)
        let pid = "\(getpid())\n"
        _ = pid.withCString { write(fd, $0, strlen($0)) }
        return .acquired(InstanceLock(fd: fd))
    }

    func release() {
        _ = ftruncate(fd, 0)
        close(fd)
    }
}

private extension String {
    var trimmingSpaces: String {
        String(self.drop { $0 == " " || $0 == "\n" }.reversed().drop { $0 == " " || $0 == "\n" }.reversed())
    }
}
