// Checks a video path before anything else starts, so the commonest mistakes get one clear
// line and exit status 5 without connecting to the compositor or opening a decoder.
import Glibc
import WayLoopCore

enum Preflight {
    static func check(_ path: String) -> VideoError? {
        var st = stat()
        if stat(Sys.cPath(path), &st) != 0 {
            // A bare name that resolved to nothing (VideoLookup): say where it was looked for.
            if errno == ENOENT && VideoLookup.isBareName(path) {
                return .nameNotFound(path, places: VideoLookup.places(Sys.videoDirectories, home: Sys.env("HOME")))
            }
            return errno == ENOENT || errno == ENOTDIR ? .notFound(path) : .unreadable(path, reason: Sys.errnoText())
        }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            // A Wallpaper Engine item whose folder did not resolve to a video: why.
            if Workshop.hasProject(path) { return .notAVideo(path, reason: "a Wallpaper Engine item: \(Workshop.whyNot(path))") }
            return .isDirectory(path)
        }
        // A FIFO or socket would block the open (and the main thread, for `ctl set`).
        if (st.st_mode & S_IFMT) == S_IFIFO || (st.st_mode & S_IFMT) == S_IFSOCK {
            return .unreadable(path, reason: "not a regular file")
        }
        // A device reads for ever (/dev/zero, /dev/urandom) or blocks (a tty): never a video.
        if (st.st_mode & S_IFMT) == S_IFCHR || (st.st_mode & S_IFMT) == S_IFBLK {
            return .notAVideo(path, reason: "a device, not a file")
        }
        let fd = open(Sys.cPath(path), O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 { return .unreadable(path, reason: Sys.errnoText()) }
        defer { close(fd) }
        // Size 0 is empty only if nothing reads either: /proc and /sys files say 0 but have text.
        if (st.st_mode & S_IFMT) == S_IFREG && st.st_size == 0 {
            var byte: UInt8 = 0
            if read(fd, &byte, 1) <= 0 { return .empty(path) }
            return .notAVideo(path, reason: "a kernel or generated file, not a video")
        }
        return nil
    }
}
