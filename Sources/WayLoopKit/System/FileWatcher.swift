// inotify on the directories of the files WayLoop uses (the videos any entry names, the config
// file), so that an edit, a rename over the file, a truncate-and-rewrite and a delete-then-
// recreate are all seen (users re-encode or replace their wallpaper in place).
// Directories, not files: a rename over a file replaces the inode a file watch would follow.
// Main thread only; its fd is a slot of the poll loop.
import Glibc
import WayLoopCore

final class FileWatcher {
    let fd: Int32
    private var wdByDirectory: [String: Int32] = [:]
    private var directoryByWD: [Int32: String] = [:]
    private var paths: Set<String> = []
    /// Directories whose every change counts (a playlist's directory): reported as the directory.
    private var directories: Set<String> = []
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 8)

    init?() {
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        if fd < 0 { return nil }
    }

    deinit {
        close(fd)
        buffer.deallocate()
    }

    /// Watches exactly the directories `wanted` (absolute paths) live in, and `directories`.
    func watch(_ wanted: Set<String>, directories whole: Set<String> = []) {
        guard wanted != paths || whole != directories else { return }
        paths = wanted
        directories = whole
        let dirs = Set(wanted.map(Self.directory)).union(whole)
        for (dir, wd) in wdByDirectory where !dirs.contains(dir) {
            inotify_rm_watch(fd, wd)
            wdByDirectory[dir] = nil
            directoryByWD[wd] = nil
        }
        for dir in dirs where wdByDirectory[dir] == nil {
            let wd = inotify_add_watch(fd, Sys.cPath(dir), UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE))
            guard wd >= 0 else { continue }  // a missing directory: nothing to see yet
            wdByDirectory[dir] = wd
            directoryByWD[wd] = dir
        }
    }

    /// The watched paths written, renamed over or deleted since the last read.
    func changes() -> Set<String> {
        var out: Set<String> = []
        while true {
            let n = read(fd, buffer.baseAddress, buffer.count)
            guard n > 0 else { break }
            var off = 0
            while off + MemoryLayout<inotify_event>.size <= n {
                let e = buffer.load(fromByteOffset: off, as: inotify_event.self)
                let nameStart = off + MemoryLayout<inotify_event>.size
                if e.len > 0, let dir = directoryByWD[e.wd] {
                    let raw = UnsafeRawBufferPointer(rebasing: buffer[nameStart..<min(n, nameStart + Int(e.len))])
                    let name = PathBytes.decode(raw.prefix { $0 != 0 })
                    let path = dir == "/" ? "/" + name : dir + "/" + name
                    if paths.contains(path) { out.insert(path) }
                    if directories.contains(dir) { out.insert(dir) }
                }
                off = nameStart + Int(e.len)
            }
        }
        return out
    }

    static func directory(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
