// Small wrappers over libc: the monotonic clock, stdout and stderr, errno text, files, the
// runtime and data directories (the threads' helpers: Threads.swift). Safe from any thread.
import CSystem
import CWayland
import Glibc
import WayLoopCore

enum Sys {
    /// CLOCK_MONOTONIC in nanoseconds (the clock wp_presentation and frame callbacks use).
    static func now() -> Nanos {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Nanos(ts.tv_sec) * .nanosPerSecond + Nanos(ts.tv_nsec)
    }

    /// Processors online (the most frame threads a decoder may take).
    static let cores: Int = {
        let allowed = Int(csys_cpus_allowed())
        return max(1, allowed > 0 ? allowed : Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }()

    /// Nanoseconds this process's threads have waited on a run queue, in all (the second field
    /// of each /proc/self/task/TID/schedstat); 0 where the kernel does not keep them.
    static func runQueueWait() -> Nanos {
        guard let dir = opendir("/proc/self/task") else { return 0 }
        defer { closedir(dir) }
        var total: Nanos = 0
        var buf = [UInt8](repeating: 0, count: 128)
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let first = name.first, first.isNumber else { continue }
            let fd = open("/proc/self/task/\(name)/schedstat", O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            let n = read(fd, &buf, buf.count)
            close(fd)
            guard n > 0 else { continue }
            let fields = buf[0..<n].split(separator: UInt8(ascii: " "))
            if fields.count >= 2, let v = Nanos(String(decoding: fields[1], as: UTF8.self)) { total &+= v }
        }
        return total
    }

    /// CPU time the calling thread has used (the frame path's cost counters).
    static func threadCPU() -> Nanos {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Nanos(ts.tv_sec) * .nanosPerSecond + Nanos(ts.tv_nsec)
    }

    /// When this process was executed, on CLOCK_MONOTONIC: its start time in /proc/self/stat
    /// (clock ticks since boot, 10 ms here) against CLOCK_BOOTTIME now. nil if unreadable.
    static func execTime() -> Nanos? {
        // starttime is field 22 (ProcCPU.statFields).
        guard case .success(let text) = readFile("/proc/self/stat", limit: 4096), let fields = ProcCPU.statFields(text),
              fields.count > 19, let ticks = Int64(fields[19]) else { return nil }
        let hz = Int64(sysconf(Int32(_SC_CLK_TCK)))
        guard hz > 0 else { return nil }
        var boot = timespec()
        clock_gettime(CLOCK_BOOTTIME, &boot)
        let sinceExec = Nanos(boot.tv_sec) * .nanosPerSecond + Nanos(boot.tv_nsec) - ticks * (.nanosPerSecond / hz)
        return now() - max(0, sinceExec)
    }

    /// stderr is systemd's journal stream (JOURNAL_STREAM names fd 2): lines carry priorities.
    static let stderrIsJournal: Bool = {
        var st = stat()
        guard let v = env("JOURNAL_STREAM"), fstat(2, &st) == 0 else { return false }
        return Journal.names(v, device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    }()

    /// Writes a whole line to stderr with write(2): unbuffered, so nothing is lost if a C
    /// library aborts the process right after (Swift 6 refuses the `stderr` global).
    static func writeStderr(_ line: String) {
        // One message, one line, whatever a path or a compositor's string holds.
        let text = LineText.escaped(line)
        var bytes = Array(((stderrIsJournal ? Journal.prefixed(text) : text) + "\n").utf8)
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress! + off, $0.count - off) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            off += n
        }
    }

    static func env(_ name: String) -> String? {
        guard let p = getenv(name) else { return nil }
        return string(p)
    }

    /// A C string from the system (argv, the environment, a path buffer), every byte kept (PathBytes).
    static func string(_ p: UnsafePointer<CChar>) -> String { PathBytes.decode(UnsafeRawBufferPointer(start: p, count: strlen(p))) }

    /// The command line, each argument's bytes kept (PathBytes): a Latin-1 file name reaches open(2) as it was typed.
    static var arguments: [String] {
        (0..<Int(CommandLine.argc)).map { i in
            let a: UnsafeMutablePointer<CChar>? = CommandLine.unsafeArgv[i]
            return a.map { string($0) } ?? ""
        }
    }

    /// The wayloop data directories (VideoLookup): XDG_DATA_HOME, XDG_DATA_DIRS, then the
    /// install prefix's share/wayloop beside this binary's bin/.
    static var videoDirectories: [String] {
        VideoLookup.directories(xdgDataHome: env("XDG_DATA_HOME"), home: env("HOME"), xdgDataDirs: env("XDG_DATA_DIRS"),
                                prefixShare: executablePath.map { FileWatcher.directory(FileWatcher.directory($0)) + "/share/wayloop" })
    }

    /// This process's resident memory less what it shares with the compositor (wl_shm
    /// buffers): VmRSS − RssShmem of /proc/self/status, in kB (0 if unreadable).
    /// VmRSS in kB (0 if unknown).
    static func rssKB() -> Int {
        guard case .success(let text) = readFile("/proc/self/status", limit: 1 << 16) else { return 0 }
        return ProcStatus.rssKB(text) ?? 0
    }

    static func privateRSSKB() -> Int {
        guard case .success(let text) = readFile("/proc/self/status", limit: 1 << 16) else { return 0 }
        return ProcStatus.privateKB(text) ?? 0
    }

    /// This binary (/proc/self/exe), nil if it cannot be read.
    static var executablePath: String? {
        var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buf, buf.count - 1)
        guard n > 0 else { return nil }
        return string(buf)  // zero-filled: NUL-terminated after the n bytes
    }

    /// `mkdir -p` (new directories 0700, as the XDG spec asks); nil, or why not.
    static func makeDirectories(_ dir: String) -> String? {
        var st = stat()
        if stat(cPath(dir), &st) == 0 { return (st.st_mode & S_IFMT) == S_IFDIR ? nil : "'\(dir)' is not a directory" }
        if let slash = dir.lastIndex(of: "/"), slash > dir.startIndex, let why = makeDirectories(String(dir[..<slash])) { return why }
        if mkdir(cPath(dir), 0o700) != 0 && errno != EEXIST { return "cannot make '\(dir)': \(errnoText())" }
        return nil
    }

    /// The names in a directory that are not directories (none if it cannot be read).
    static func fileNames(in directory: String) -> [String] {
        guard let d = opendir(cPath(directory)) else { return [] }
        defer { closedir(d) }
        var out: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in PathBytes.decode(raw.prefix { $0 != 0 }) }
            if name != "." && name != ".." && Int32(e.pointee.d_type) != Int32(DT_DIR) { out.append(name) }
        }
        return out
    }

    /// What a bare video name stands for: the file of that name in `here` (the working
    /// directory, or the config file's), else a match in the wayloop data directories; nil when
    /// neither has one (the name stays bare and Preflight says where it looked).
    static func findVideo(_ name: String, here: String) -> String? {
        let local = Paths.absolute(name, in: here, home: nil)
        var st = stat()
        // A directory of that name here is no video: look further.
        if stat(cPath(local), &st) == 0 && (st.st_mode & S_IFMT) != S_IFDIR { return local }
        return VideoLookup.resolve(name, in: videoDirectories, entries: fileNames(in:)) ?? Workshop.find(name)
    }

    /// A path as a C string of its original bytes (PathBytes), for open(2), stat(2), FFmpeg, inotify.
    static func cPath(_ path: String) -> [CChar] { PathBytes.cString(path) }

    /// Opens /dev/null on whichever of fds 0, 1, 2 is closed (open(2) returns the lowest free fd).
    static func ensureStandardDescriptors() {
        for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            let n = open("/dev/null", O_RDWR)
            if n < 0 { return }
            if n != fd { _ = dup2(n, fd); close(n) }
        }
    }

    /// `RUNTIME/wayloop-DISPLAY.suffix`: this display's lock ("lock") and control socket ("sock").
    /// An absolute WAYLAND_DISPLAY names a socket path: only its last component is used.
    /// `instance`: `--name`'s (by default the one this process runs as).
    static func displayFile(_ suffix: String, instance named: String? = instanceName) -> String {
        let display = env("WAYLAND_DISPLAY") ?? "wayland-0"
        let name = display.split(separator: "/").last.map(String.init) ?? "wayland-0"
        let instance = named.map { "wayloop-\($0)-" } ?? "wayloop-"
        return "\(runtimeDirectory ?? "/nonexistent")/\(instance)\(name).\(suffix)"
    }

    /// `--name NAME` (or `ctl --name NAME`): set once in main, before any path is made.
    nonisolated(unsafe) static var instanceName: String?

    /// Where the lock and the control socket live: $XDG_RUNTIME_DIR, else a private
    /// /tmp/wayloop-UID (created 0700; nil if it exists but is not ours alone).
    static var runtimeDirectory: String? {
        if let d = env("XDG_RUNTIME_DIR"), !d.isEmpty { return d }
        let d = "/tmp/wayloop-\(getuid())"
        _ = mkdir(d, 0o700)
        var st = stat()
        guard lstat(d, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR, st.st_uid == getuid(), st.st_mode & 0o077 == 0 else {
            return nil
        }
        return d
    }

    /// Why no compositor can be reached through XDG_RUNTIME_DIR (nil: it is fine, or
    /// WAYLAND_DISPLAY is an absolute socket path that does not need it).
    static var runtimeDirectoryProblem: String? {
        if env("WAYLAND_DISPLAY")?.hasPrefix("/") == true { return nil }
        guard let d = env("XDG_RUNTIME_DIR"), !d.isEmpty else {
            return "XDG_RUNTIME_DIR is not set, and the Wayland socket lives there: run wayloop inside a Wayland session "
                + "(or set WAYLAND_DISPLAY to the socket's full path)"
        }
        var st = stat()
        let reason: String
        if stat(d, &st) != 0 { reason = errnoText() } else if (st.st_mode & S_IFMT) != S_IFDIR { reason = "not a directory" } else {
            return nil
        }
        return "XDG_RUNTIME_DIR='\(d)' cannot hold the Wayland socket (\(reason)): run wayloop inside a Wayland session"
    }

    /// The working directory ("/" if it cannot be read).
    static var currentDirectory: String {
        var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buf, buf.count) != nil else { return "/" }
        return string(buf)
    }

    /// A whole (small) file as UTF-8 text, or the errno that stopped the read (EFBIG over `limit`).
    struct Errno: Error, Equatable { let code: Int32 }

    static func readFile(_ path: String, limit: Int) -> Result<String, Errno> {
        let fd = open(cPath(path), O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return .failure(Errno(code: errno)) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failure(Errno(code: errno)) }
        if (st.st_mode & S_IFMT) == S_IFDIR { return .failure(Errno(code: EISDIR)) }
        if (st.st_mode & S_IFMT) != S_IFREG { return .failure(Errno(code: EINVAL)) }
        var data: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = read(fd, &buf, buf.count)
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return .failure(Errno(code: errno)) }
            if n == 0 { break }
            data += buf[0..<n]
            if data.count > limit { return .failure(Errno(code: EFBIG)) }
        }
        return .success(PathBytes.decode(data))
    }

    /// Writes `bytes` to `path` whole or not at all: into `path.tmp-PID` beside it (fsynced
    /// when `sync`), then renamed over it; the temporary file is removed on failure. 0, or the
    /// errno of what failed.
    static func writeWhole(_ bytes: [UInt8], to path: String, mode: mode_t, sync: Bool) -> Int32 {
        let tmp = path + ".tmp-\(getpid())"
        let fd = open(cPath(tmp), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else { return errno }
        var done = 0, failure: Int32 = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                failure = n < 0 ? errno : ENOSPC
                break
            }
            done += n
        }
        if failure == 0 && sync && fsync(fd) != 0 { failure = errno }
        if close(fd) != 0 && failure == 0 { failure = errno }
        if failure == 0 && rename(cPath(tmp), cPath(path)) != 0 { failure = errno }
        if failure != 0 { unlink(cPath(tmp)) }
        return failure
    }

    /// A DRM render node exists (/dev/dri/renderD*): without one, GL can only be software.
    static var hasRenderNode: Bool {
        guard let dir = opendir("/dev/dri") else { return false }
        defer { closedir(dir) }
        while let e = readdir(dir) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("renderD") { return true }
        }
        return false
    }

    static func errnoText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }
}

extension Sys {
    /// `text` to stderr as it is (a progress bar's carriage returns).
    static func writeStderrRaw(_ text: String) {
        _ = text.withCString { write(2, $0, strlen($0)) }
    }

    static func writeStdout(_ text: String) {
        let line = text.hasSuffix("\n") ? text : text + "\n"
        _ = line.withCString { write(1, $0, strlen($0)) }
    }
}
