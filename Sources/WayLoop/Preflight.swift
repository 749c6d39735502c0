// Checks a video path before anything else starts, so the commonest mistakes get one clear
// line and exit status 5 without connecting to the compositor or opening a decoder.
import Glibc

enum Preflight {
    static func check(_ path: String) -> VideoError? {
        var st = stat()
        if stat(path, &st) != 0 {
            return errno == ENOENT || errno == ENOTDIR ? .notFound(path) : .unreadable(path, reason: Sys.errnoText())
        }
        if (st.st_mode & S_IFMT) == S_IFDIR { return .isDirectory(path) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { return .unreadable(path, reason: Sys.errnoText()) }
        close(fd)
        if (st.st_mode & S_IFMT) == S_IFREG && st.st_size == 0 { return .empty(path) }
        return nil
    }
}
