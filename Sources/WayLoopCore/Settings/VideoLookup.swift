// Videos by name, like an app bundle's resource lookup: `wayloop ocean` plays
// ~/.local/share/wayloop/ocean.mp4, and `wayloop` with no video at all plays the installed
// default loop. Pure: the shell gives the environment and what each directory holds.

public enum VideoLookup {
    /// The file `wayloop` plays when nothing names a video.
    public static let defaultLoop = "default-loop.mp4"
    /// Extensions tried for a name, in this order (then any other `NAME.*`, sorted).
    public static let extensions = ["mp4", "mkv", "webm", "mov", "m4v", "avi", "gif", "ogv", "ts"]

    /// The wayloop data directories, in order: `$XDG_DATA_HOME/wayloop` (default
    /// `~/.local/share/wayloop`), each of `$XDG_DATA_DIRS` (default `/usr/local/share:/usr/share`)
    /// with `/wayloop`, then the install prefix's `share/wayloop` (from the binary's place), each
    /// once. Relative entries are ignored, as the XDG base directory spec says.
    public static func directories(xdgDataHome: String?, home: String?, xdgDataDirs: String?, prefixShare: String?) -> [String] {
        var out: [String] = []
        func trimmed(_ d: String) -> String {
            var d = d
            while d.count > 1 && d.hasSuffix("/") { d.removeLast() }
            return d
        }
        func add(_ d: String?, _ sub: String = "") {
            guard let d, d.hasPrefix("/") else { return }
            let full = trimmed(d) + sub
            if !out.contains(full) { out.append(full) }
        }
        if let h = xdgDataHome, h.hasPrefix("/") { add(h, "/wayloop") } else if let home, !home.isEmpty { add(home, "/.local/share/wayloop") }
        let dirs = (xdgDataDirs?.isEmpty == false ? xdgDataDirs! : "/usr/local/share:/usr/share").split(separator: ":")
        for d in dirs { add(String(d), "/wayloop") }
        add(prefixShare)
        return out
    }

    /// A name to look up rather than a path: no slash, not `~`, `.` or `..`.
    public static func isBareName(_ s: String) -> Bool {
        !s.isEmpty && !s.contains("/") && s != "." && s != ".." && s != "~"
    }

    /// The file `name` stands for: in the first directory that has one, `name` itself, else
    /// `name.EXT` for the extensions in order, else any other `name.*` (sorted). `entries`
    /// lists a directory's file names (empty when it cannot be read).
    public static func resolve(_ name: String, in directories: [String], entries: (String) -> [String]) -> String? {
        for dir in directories {
            let files = Set(entries(dir))
            if files.contains(name) { return dir + "/" + name }
            for ext in extensions where files.contains(name + "." + ext) { return dir + "/" + name + "." + ext }
            if let other = files.filter({ $0.hasPrefix(name + ".") && $0.count > name.count + 1 }).sorted().first {
                return dir + "/" + other
            }
        }
        return nil
    }

    /// Where a name was looked for, for the error line (`~` for the home directory).
    public static func places(_ directories: [String], home: String?) -> String {
        directories.map { d in
            if let home, !home.isEmpty, home != "/", d.hasPrefix(home + "/") { return "~" + d.dropFirst(home.count) }
            return d
        }.joined(separator: ", ")
    }
}

extension OutputEntry {
    /// Bare names (video and fallback video) replaced by what `find` resolves them to; a name
    /// it cannot resolve stays bare (the error then says where it was looked for).
    public func resolvingNames(_ find: (String) -> String?) -> OutputEntry {
        var e = self
        if let v = video, VideoLookup.isBareName(v), let found = find(v) { e.video = found }
        if case .video(let v)? = fallback, VideoLookup.isBareName(v), let found = find(v) { e.fallback = .video(found) }
        return e
    }

    /// Every video and fallback video passed through `map`, which makes a Wallpaper Engine
    /// item's folder its video file (WayLoopKit's Workshop) and leaves anything else as it is.
    public func resolvingFolders(_ map: (String) -> String) -> OutputEntry {
        var e = self
        if let v = video { e.video = map(v) }
        if case .video(let v)? = fallback { e.fallback = .video(map(v)) }
        return e
    }
}
