// A playlist named where a video goes: a directory (its video files, in name order) or a
// playlist file (.m3u/.m3u8/.txt, parsed by the pure PlaylistFile). The file-system side:
// what a path is, the videos it names, and the check before it is used. Main thread only.
import Glibc
import WayLoopCore

enum PlaylistSource {
    /// The most videos a playlist takes (a directory of 100 000 files must not stall the loop).
    static let maxItems = 10_000

    /// A directory, or a regular file named .m3u/.m3u8/.txt: a playlist, not a video.
    static func isPlaylist(_ path: String) -> Bool {
        var st = stat()
        guard stat(Sys.cPath(path), &st) == 0 else { return false }
        if (st.st_mode & S_IFMT) == S_IFDIR { return true }
        return (st.st_mode & S_IFMT) == S_IFREG && PlaylistFile.isPlaylist(path)
    }

    /// The one name of a playlist: absolute (against the working directory, `~/` expanded), no
    /// trailing slash. It keys the run, the watch and the replies that wait for it.
    static func canonical(_ path: String) -> String {
        Paths.absolute(path, in: Sys.currentDirectory, home: Sys.env("HOME"))
    }

    static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(Sys.cPath(path), &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// The videos a playlist names: a directory's video files (by extension, in name order), or
    /// a playlist file's lines, as absolute paths (they are watched). An error when it names
    /// none. `log` (nil: quiet) hears about lines that are not local files.
    static func items(_ source: String, log: Logger?) -> Result<[String], VideoError> {
        let home = Sys.env("HOME")
        var paths: [String]
        let source = canonical(source)
        if isDirectory(source) && Workshop.hasProject(source) {
            // A Wallpaper Engine item's folder (resolvePath made a video item's its file): one
            // that plays nothing says why.
            let file = Workshop.resolveFolder(source)
            if file != source { return .success([file]) }
            return .failure(.notAVideo(source, reason: "a Wallpaper Engine item: \(Workshop.whyNot(source))"))
        } else if isDirectory(source) {
            let names = Sys.fileNames(in: source).filter { name in
                guard let dot = name.lastIndex(of: "."), !name.hasPrefix(".") else { return false }
                return VideoLookup.extensions.contains(name[name.index(after: dot)...].lowercased())
            }
            paths = names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { source == "/" ? "/" + $0 : source + "/" + $0 }
            if paths.isEmpty {
                return .failure(.noVideos(source, directory: true,
                                          reason: "no files named ." + VideoLookup.extensions.joined(separator: ", .") + " in it"))
            }
        } else {
            switch Sys.readFile(source, limit: 1 << 20) {
            case .failure(let e):
                return .failure(.unreadable(source, reason: e.code == EFBIG ? "too large for a playlist (over 1 MiB)" : Sys.errnoText(e.code)))
            case .success(let text):
                let parsed = PlaylistFile.parse(text, directory: FileWatcher.directory(source), home: home)
                for s in parsed.skipped { log?.notice("'\(source)' line \(s.line): '\(s.text)' is not a local file; skipped") }
                paths = parsed.paths
                if paths.isEmpty { return .failure(.noVideos(source, directory: false, reason: "no file named in it")) }
            }
        }
        if paths.count > maxItems {
            log?.notice("'\(source)': \(paths.count) videos; playing the first \(maxItems)")
            paths = Array(paths.prefix(maxItems))
        }
        return .success(paths)
    }

    /// Checks what an entry names before it is used: a video file (Preflight), or a playlist
    /// that names at least one video that passes; the playlist's failing videos are recorded
    /// in `table` (and said, one line each, when some other video of it can play).
    static func preflight(_ path: String, table: inout VideoTable<Clip>, log: Logger) -> VideoError? {
        guard isPlaylist(path) else { return Preflight.check(path) }
        switch items(path, log: nil) {
        case .failure(let e): return e
        case .success(let items):
            // Up to the first that can be opened (the rest are checked as they come up: a
            // directory of thousands must not be opened file by file on the main thread).
            var errors: [(String, VideoError)] = []
            var seen: Set<String> = []
            for item in items where seen.insert(item).inserted {
                if table.clip(item) != nil { return report(errors) }
                guard let e = Preflight.check(item) else {
                    table.setFailure(item, nil)
                    return report(errors)
                }
                errors.append((item, e))
            }
            // Nothing playable: one line for the playlist (the first reason says what it holds).
            let first = errors.first.map { ": \($0.1)" } ?? ""
            return .noVideos(path, directory: isDirectory(path),
                             reason: "none of its \(items.count) video(s) can be opened\(first)")
        }
        // Some can: each one before it that cannot is skipped, with its line.
        func report(_ errors: [(String, VideoError)]) -> VideoError? {
            for (item, e) in errors {
                if !table.failed(item) { log.scoped("video").error("\(e) (in '\(path)'; skipped)") }
                table.setFailure(item, e)
            }
            return nil
        }
    }
}
