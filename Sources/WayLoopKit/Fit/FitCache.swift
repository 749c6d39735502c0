// The fitted copies on disk: `$XDG_CACHE_HOME/wayloop/fitted/` (else ~/.cache/wayloop/fitted),
// one MP4 each, named by its source's identity (path, size, mtime, inode and a hash of the
// first and last MiB), its size, the frames it keeps and its quality, and tagged inside with
// the same (its `comment`), so that a file is only ever used for what made it. Written beside
// its name and renamed into place (FittedCopy); bounded, least recently used out. A file that
// does not open, or whose tag is not what its name says, is deleted, never trusted.
import CFFmpeg
import Glibc
import WayLoopCore

struct FitCache {
    let directory: String

    /// The cache where the environment puts it (nil: neither XDG_CACHE_HOME nor HOME).
    static func standard() -> FitCache? {
        if let x = Sys.env("XDG_CACHE_HOME"), x.hasPrefix("/") { return FitCache(directory: x + "/wayloop/fitted") }
        guard let home = Sys.env("HOME"), !home.isEmpty else { return nil }
        return FitCache(directory: home + "/.cache/wayloop/fitted")
    }

    /// `--fit-cache-max`'s default: 2 GiB.
    static let defaultMaxBytes = 2 << 30

    /// What a copy is of and how it was made: its name and its tag.
    struct Key: Equatable {
        let identity: String
        let size: Size
        let keepEvery: Int
        let quality: Int
        let source: String

        var fileName: String { "\(identity)-\(size.width)x\(size.height)-r\(keepEvery)-q\(quality).mp4" }
        /// The comment inside the file: what it must say for the file to be used.
        var tag: String { "wayloop-fit 1 \(fileName) \(source)" }
    }

    /// The key of a copy of `source` (an absolute path); throws when the source cannot be read.
    static func key(source: String, size: Size, keepEvery: Int, quality: Int) throws(FitError) -> Key {
        Key(identity: try identity(of: source), size: size, keepEvery: keepEvery, quality: quality, source: source)
    }

    /// 16 hex digits: FNV-1a over the path, size, mtime, inode, and the first and last MiB.
    static func identity(of path: String) throws(FitError) -> String {
        let fd = open(Sys.cPath(path), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FitError("'\(path)': cannot read it: \(Sys.errnoText())") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw FitError("'\(path)': cannot read it: \(Sys.errnoText())") }
        var h = FNV1a()
        h.add(Array(path.utf8))
        h.add("\(st.st_size) \(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec) \(st.st_ino)")
        let mib = 1 << 20
        var buf = [UInt8](repeating: 0, count: mib)
        for offset in Set([0, max(0, Int(st.st_size) - mib)]).sorted() {
            let n = buf.withUnsafeMutableBytes { pread(fd, $0.baseAddress, mib, off_t(offset)) }
            guard n >= 0 else { throw FitError("'\(path)': cannot read it: \(Sys.errnoText())") }
            h.add(Array(buf[0..<n]))
        }
        return h.hex
    }

    func path(_ key: Key) -> String { directory + "/" + key.fileName }

    /// The copy for `key` if one is there and sound (it is then marked used now); a file there
    /// that does not open or says it is something else is deleted (`notice` says so once).
    func lookup(_ key: Key, notice: (String) -> Void) -> String? {
        let p = path(key)
        guard access(Sys.cPath(p), F_OK) == 0 else { return nil }
        if let problem = Self.problem(p, tag: key.tag) {
            Self.remove(p)
            notice("discarded '\(p)' from the fitted-copy cache: \(problem)")
            return nil
        }
        _ = utimensat(AT_FDCWD, Sys.cPath(p), nil, 0)
        return p
    }

    /// Why the file at `path` is not a copy tagged `tag` (nil: it is).
    static func problem(_ path: String, tag: String) -> String? {
        let input: VideoInput
        do { input = try VideoInput.open(path) } catch { return "\(error)" }
        var f: UnsafeMutablePointer<AVFormatContext>? = input.format
        defer { avformat_close_input(&f) }
        guard let e = av_dict_get(input.format.pointee.metadata, "comment", nil, 0), let v = e.pointee.value else {
            return "it carries no wayloop tag"
        }
        guard String(cString: v) == tag else { return "its tag says it is the copy of something else" }
        return nil
    }

    /// Deletes a copy and what was measured of it; whether the copy was there.
    @discardableResult
    static func remove(_ copy: String) -> Bool {
        unlink(Sys.cPath(copy + costSuffix))
        return unlink(Sys.cPath(copy)) == 0
    }

    /// Beside each copy, `NAME.mp4.cost`: its decode cost as a share of the original's, as
    /// measured while it was made (one line, `decode-share 0.127`), for status when a later run
    /// finds the copy. Not counted as a copy; deleted with it.
    static let costSuffix = ".cost"

    static func writeShare(_ share: Double, of copy: String) {
        _ = Sys.writeWhole(Array("decode-share \(share)\n".utf8), to: copy + costSuffix, mode: 0o644, sync: false)
    }

    static func share(of copy: String) -> Double? {
        guard case .success(let text) = Sys.readFile(copy + costSuffix, limit: 256),
              let v = text.split(separator: "\n").first?.split(separator: " ").last.flatMap({ Double($0) }),
              v.isFinite, v >= 0 else { return nil }
        return v
    }

    /// Makes the directory (and its parents); the error line if it cannot.
    func ensureDirectory() throws(FitError) {
        if let why = Sys.makeDirectories(directory) { throw FitError("cannot make the fitted-copy cache (\(why))") }
        guard access(Sys.cPath(directory), W_OK) == 0 else {
            throw FitError("cannot write to the fitted-copy cache '\(directory)': \(Sys.errnoText())")
        }
    }

    /// One copy in the cache.
    struct Entry {
        let name: String
        let bytes: Int
        /// When it was last used (or made), seconds since the epoch.
        let used: Int
    }

    /// The copies and the files left half-written, oldest use first.
    func entries() -> [Entry] {
        var out: [Entry] = []
        for name in Sys.fileNames(in: directory) where name.hasSuffix(".mp4") || name.contains(".mp4.part-") {
            var st = stat()
            guard stat(Sys.cPath(directory + "/" + name), &st) == 0 else { continue }
            out.append(Entry(name: name, bytes: Int(st.st_size), used: Int(st.st_mtim.tv_sec)))
        }
        return out.sorted { ($0.used, $0.name) < ($1.used, $1.name) }
    }

    /// Deletes the least recently used copies until the rest fit `maxBytes` (`keeping` stays
    /// whatever its age); what was deleted.
    func evict(toFit maxBytes: Int, keeping: String? = nil) -> [Entry] {
        var all = entries()
        var total = all.reduce(0) { $0 + $1.bytes }
        var gone: [Entry] = []
        while total > maxBytes, let i = all.firstIndex(where: { directory + "/" + $0.name != keeping }) {
            let e = all.remove(at: i)
            if Self.remove(directory + "/" + e.name) { gone.append(e) }
            total -= e.bytes
        }
        return gone
    }

    /// Deletes what a `wayloop prepare` that was killed left half-written (`NAME.mp4.part-PID`
    /// of a process that is gone); how many.
    @discardableResult
    func removeStaleParts() -> Int {
        var n = 0
        for e in entries() {
            let parts = e.name.split(separator: "-")
            guard e.name.contains(".mp4.part-"), let last = parts.last, let pid = Int32(last),
                  kill(pid, 0) != 0 && errno == ESRCH else { continue }
            if unlink(Sys.cPath(directory + "/" + e.name)) == 0 { n += 1 }
        }
        return n
    }

    /// Deletes every copy; what was deleted.
    func clean() -> [Entry] { evict(toFit: -1) }
}
