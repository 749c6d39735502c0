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
    /// A lock file of another user that nothing holds (left by a wayloop run as root with this
    /// user's runtime directory, as `sudo -E` does) is removed, with one notice on `log`.
    static func acquire(waitSeconds: Double = 0, log: Logger? = nil) -> Outcome {
        guard Sys.runtimeDirectory != nil else {
            return .failed(InstanceLockError(description:
                "XDG_RUNTIME_DIR is not set and /tmp/wayloop-\(getuid()) is not a directory of this user alone"))
        }
        let p = path
        var fd = open(Sys.cPath(p), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if fd < 0 && errno == EACCES {
            switch foreign(p) {
            case .held(let why): return .failed(InstanceLockError(description: why))
            case .removed(let uid):
                log?.notice("removed the lock file \(p) of uid \(uid), which no process held "
                    + "(left by a wayloop run as another user, as with sudo -E)")
                fd = open(Sys.cPath(p), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            case .notForeign: errno = EACCES
            }
        }
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

    private enum Foreign {
        /// Another user's file that a process holds, or that cannot be removed: the error line.
        case held(String)
        /// Another user's file that nothing held, now gone.
        case removed(uid: UInt32)
        /// This user's own file (or none): the open's own error stands.
        case notForeign
    }

    /// A lock file this user cannot open: another user's (a wayloop once run as root with this
    /// user's XDG_RUNTIME_DIR). One that a process holds is never touched: that process may be
    /// a wayloop that runs on this display now. One that nothing holds is stale, and this
    /// user's runtime directory lets it go.
    private static func foreign(_ p: String) -> Foreign {
        var st = stat()
        guard lstat(Sys.cPath(p), &st) == 0, st.st_uid != getuid() else { return .notForeign }
        let uid = st.st_uid
        let dev = ProcLocks.majorMinor(UInt64(st.st_dev))
        if case .success(let locks) = Sys.readFile("/proc/locks", limit: 1 << 24),
           let pid = ProcLocks.holder(major: dev.major, minor: dev.minor, inode: UInt64(st.st_ino), in: locks) {
            let who = pid > 0 ? "pid \(pid)" : "a process"
            return .held("the lock file \(p) belongs to uid \(uid), and \(who) holds it: a wayloop started as another user "
                + "(with sudo?) runs on this display; stop it\(pid > 0 ? " (sudo kill \(pid))" : "") and start again")
        }
        guard unlink(Sys.cPath(p)) == 0 else {
            return .held("cannot open the lock file \(p): it belongs to uid \(uid) (left by a wayloop run as another user, "
                + "as with sudo -E) and cannot be removed (\(Sys.errnoText())); remove it: sudo rm \(p)")
        }
        return .removed(uid: uid)
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
