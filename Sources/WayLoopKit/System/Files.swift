// The small file-system questions `wayloop list` asks: a directory's entries with their kinds,
// a file's stamp (stat), whether a path is there, a whole small text file. Any thread.
import Glibc
import WayLoopCore

extension Sys {
    /// A directory's entries (not `.` and `..`), each with whether it is a directory (a
    /// symbolic link counts as what it points to), or the errno that stopped the read.
    static func directoryEntries(_ directory: String) -> Result<[LibraryEntries.Entry], Errno> {
        guard let d = opendir(cPath(directory)) else { return .failure(Errno(code: errno)) }
        defer { closedir(d) }
        var out: [LibraryEntries.Entry] = []
        let base = directory == "/" ? "" : directory
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in PathBytes.decode(raw.prefix { $0 != 0 }) }
            guard name != "." && name != ".." else { continue }
            var isDir = Int32(e.pointee.d_type) == Int32(DT_DIR)
            if Int32(e.pointee.d_type) == Int32(DT_LNK) || Int32(e.pointee.d_type) == Int32(DT_UNKNOWN) {
                var st = stat()
                isDir = stat(cPath(base + "/" + name), &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
            }
            out.append(LibraryEntries.Entry(name, isDirectory: isDir))
        }
        return .success(out)
    }

    /// What stat(2) says identifies this version of the file (nil: it is not there).
    static func stamp(_ path: String) -> FileStamp? {
        var st = stat()
        guard stat(cPath(path), &st) == 0 else { return nil }
        return FileStamp(path: path, bytes: Int(st.st_size), modified: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
                         inode: UInt64(st.st_ino))
    }

    static func exists(_ path: String) -> Bool { access(cPath(path), F_OK) == 0 }

    /// Marks a cached file used now (its modification time: least recently used out).
    static func touch(_ path: String) { _ = utimensat(AT_FDCWD, cPath(path), nil, 0) }

    /// A whole small text file, nil when it cannot be read.
    static func readText(_ path: String, limit: Int) -> String? {
        if case .success(let t) = readFile(path, limit: limit) { return t }
        return nil
    }

    /// The path with every link and `..` resolved (nil: it is not there).
    static func realPath(_ path: String) -> String? {
        guard let r = realpath(cPath(path), nil) else { return nil }
        defer { free(r) }
        return PathBytes.decode(Array(UnsafeBufferPointer(start: UnsafeRawPointer(r).assumingMemoryBound(to: UInt8.self), count: strlen(r))))
    }
}
