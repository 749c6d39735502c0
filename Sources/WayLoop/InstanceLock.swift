// One instance per Wayland display: an flock(2) on $XDG_RUNTIME_DIR/wayloop-$WAYLAND_DISPLAY.lock,
// held for the life of the process (the kernel drops it on any exit, crash included, so a stale
// file never blocks a new start).
import Glibc

struct InstanceLockError: Error, CustomStringConvertible {
    let description: String
}

final class InstanceLock {
    private let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    static var path: String {
        let dir = getenv("XDG_RUNTIME_DIR").map { String(cString: $0) } ?? "/tmp"
        let display = getenv("WAYLAND_DISPLAY").map { String(cString: $0) } ?? "wayland-0"
        // An absolute WAYLAND_DISPLAY names a socket path: keep only its last component.
        let name = display.split(separator: "/").last.map(String.init) ?? "wayland-0"
        return "\(dir)/wayloop-\(name).lock"
    }

    static func acquire() -> Result<InstanceLock, InstanceLockError> {
        let p = path
        let fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return .failure(InstanceLockError(description: "cannot open the lock file \(p): \(Sys.errnoText())")) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            var buf = [UInt8](repeating: 0, count: 32)
            let n = read(fd, &buf, buf.count)
            close(fd)
            let pid = n > 0 ? String(decoding: buf[0..<n], as: UTF8.self).trimmingSpaces : "?"
            return .failure(InstanceLockError(description:
                "another wayloop (pid \(pid)) already shows wallpapers on this display; stop it first (lock: \(p))"))
        }
        _ = ftruncate(fd, 0)
        let pid = "\(getpid())\n"
        _ = pid.withCString { write(fd, $0, strlen($0)) }
        return .success(InstanceLock(fd: fd))
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
