// `wayloop list`, pure: its command line, what a directory's entries are (videos, workshop
// items), the facts kept of a file and their cache line, the name a picker passes back, and the
// two forms of the answer (text for people, JSON version 1 for pickers: docs/list.md). The shell
// reads directories, opens videos and makes the previews (WayLoopKit's Library).

/// `wayloop list [PATH...] [--json] [--previews] [--no-workshop]`.
public struct ListCommand: Equatable, Sendable {
    /// What to list (empty: the wayloop data directories and the workshop folders).
    public var paths: [String] = []
    /// The JSON form (docs/list.md) instead of lines for people.
    public var json = false
    /// Make the missing thumbnails and previews first (idle priority).
    public var previews = false
    /// Without paths: leave Steam's workshop folders out.
    public var noWorkshop = false

    public init(paths: [String] = [], json: Bool = false, previews: Bool = false, noWorkshop: Bool = false) {
        self.paths = paths
        self.json = json
        self.previews = previews
        self.noWorkshop = noWorkshop
    }

    /// The command's synopsis, as its error messages quote it.
    public static let usage = "list [PATH...] [--json] [--previews] [--no-workshop]"

    /// `args` after `list`.
    public static func parse(_ args: [String]) throws(UsageError) -> ListCommand {
        var c = ListCommand()
        for a in args {
            switch a {
            case "--json": c.json = true
            case "--previews": c.previews = true
            case "--no-workshop": c.noWorkshop = true
            default:
                if a.hasPrefix("-") && a.count > 1 { throw .unknownOption(a) }
                guard !a.isEmpty else { throw .list("an empty PATH (\(usage))") }
                c.paths.append(a)
            }
        }
        return c
    }
}

/// What a directory holds for `list`.
public enum LibraryEntries {
    /// One entry of a directory: its name and whether it is a directory.
    public struct Entry: Equatable, Sendable {
        public var name: String
        public var isDirectory: Bool
        public init(_ name: String, isDirectory: Bool) {
            self.name = name
            self.isDirectory = isDirectory
        }
    }

    /// Its videos (files named with a video extension, as a directory playlist takes them) and
    /// the sub-directories that may be workshop items, each in name order; hidden ones left out.
    public static func split(_ entries: [Entry]) -> (videos: [String], folders: [String]) {
        let visible = entries.filter { !$0.name.hasPrefix(".") }
        let videos = visible.filter { !$0.isDirectory && isVideoName($0.name) }.map(\.name)
        let folders = visible.filter(\.isDirectory).map(\.name)
        let order: (String, String) -> Bool = { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        return (videos.sorted(by: order), folders.sorted(by: order))
    }

    /// A file name with one of VideoLookup's extensions (any case).
    public static func isVideoName(_ name: String) -> Bool {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
        return VideoLookup.extensions.contains(name[name.index(after: dot)...].lowercased())
    }

    /// A file's name without its directory and its last extension.
    public static func stem(_ path: String) -> String {
        let base = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = base.lastIndex(of: "."), dot != base.startIndex else { return base }
        return String(base[..<dot])
    }
}

/// Where a listed video was found.
public enum ListSource: String, Sendable {
    /// A wayloop data directory: `wayloop NAME` finds it by name.
    case library
    /// A directory given to `list`.
    case directory
    /// A file given to `list`.
    case file
    /// A Wallpaper Engine workshop item.
    case workshop
}

/// What is known of one video file, as the cache keeps it.
public struct FileFacts: Equatable, Sendable {
    /// Why it cannot be played (nil: it can).
    public var problem: String?
    /// The container's `title` tag.
    public var title: String?
    public var duration: Double?
    /// As shown: rotation applied.
    public var size: Size?
    public var codec: String?
    public var fps: Double?
    /// FitCache's identity of the file, once worked out (it reads 2 MiB).
    public var identity: String?

    public init(problem: String? = nil, title: String? = nil, duration: Double? = nil, size: Size? = nil,
                codec: String? = nil, fps: Double? = nil, identity: String? = nil) {
        self.problem = problem
        self.title = title
        self.duration = duration
        self.size = size
        self.codec = codec
        self.fps = fps
        self.identity = identity
    }
}

/// What identifies a file's version cheaply: what stat(2) says of it.
public struct FileStamp: Equatable, Hashable, Sendable {
    public var path: String
    public var bytes: Int
    /// Modification time, nanoseconds since the epoch.
    public var modified: Int64
    public var inode: UInt64

    public init(path: String, bytes: Int, modified: Int64, inode: UInt64) {
        self.path = path
        self.bytes = bytes
        self.modified = modified
        self.inode = inode
    }

    /// 16 hex digits naming this version of the file: its previews' file names.
    public var key: String {
        var h = FNV1a()
        h.add(Array(path.utf8))
        h.add("\(bytes) \(modified) \(inode)")
        return h.hex
    }
}

/// The facts cache: one JSON object per line, a file's stamp and its facts. A line that does
/// not read back is dropped (the file is then opened again).
public enum FactsIndex {
    public static let version = 1

    public static func line(_ stamp: FileStamp, _ f: FileFacts) -> String {
        var pairs: [(String, JSON)] = [
            ("v", .number(Double(version))), ("path", .string(stamp.path)), ("bytes", .number(Double(stamp.bytes))),
            ("mtime", .string(String(stamp.modified))), ("ino", .string(String(stamp.inode))),
        ]
        if let p = f.problem { pairs.append(("problem", .string(p))) }
        if let t = f.title { pairs.append(("title", .string(t))) }
        if let d = f.duration { pairs.append(("duration", .number(d))) }
        if let s = f.size { pairs.append(("width", .number(Double(s.width)))); pairs.append(("height", .number(Double(s.height)))) }
        if let c = f.codec { pairs.append(("codec", .string(c))) }
        if let r = f.fps { pairs.append(("fps", .number(r))) }
        if let i = f.identity { pairs.append(("identity", .string(i))) }
        return JSON.object(pairs).serialized
    }

    public static func parse(_ line: String) -> (FileStamp, FileFacts)? {
        guard let j = try? JSON.parse(line), j["v"]?.number == Double(version),
              let path = j["path"]?.string, let bytes = j["bytes"]?.number,
              let mtime = j["mtime"]?.string.flatMap({ Int64($0) }), let ino = j["ino"]?.string.flatMap({ UInt64($0) }) else { return nil }
        var f = FileFacts()
        f.problem = j["problem"]?.string
        f.title = j["title"]?.string
        f.duration = j["duration"]?.number
        if let w = j["width"]?.number, let h = j["height"]?.number { f.size = Size(width: Int(w), height: Int(h)) }
        f.codec = j["codec"]?.string
        f.fps = j["fps"]?.number
        f.identity = j["identity"]?.string
        return (FileStamp(path: path, bytes: Int(bytes), modified: mtime, inode: ino), f)
    }

    /// The index's text: `entries` in path order.
    public static func text(_ entries: [FileStamp: FileFacts]) -> String {
        entries.keys.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
            .map { line($0, entries[$0]!) + "\n" }.joined()
    }

    /// The entries a text holds (by path; a later line for a path wins).
    public static func entries(_ text: String) -> [String: (FileStamp, FileFacts)] {
        var out: [String: (FileStamp, FileFacts)] = [:]
        for l in text.split(separator: "\n") {
            if let e = parse(String(l)) { out[e.0.path] = e }
        }
        return out
    }
}

/// One line of the answer: a video (or a workshop item) and what is known of it.
public struct ListedItem: Equatable, Sendable {
    public var name: String
    public var path: String
    public var source: ListSource
    public var title: String
    public var facts: FileFacts
    public var bytes: Int
    public var fitted: Bool
    public var thumbnail: String?
    public var preview: String?
    /// For a workshop item: its id, its type and its folder.
    public var workshop: (id: String, type: String?, folder: String)?

    public init(name: String, path: String, source: ListSource, title: String, facts: FileFacts, bytes: Int,
                fitted: Bool = false, thumbnail: String? = nil, preview: String? = nil,
                workshop: (id: String, type: String?, folder: String)? = nil) {
        self.name = name
        self.path = path
        self.source = source
        self.title = title
        self.facts = facts
        self.bytes = bytes
        self.fitted = fitted
        self.thumbnail = thumbnail
        self.preview = preview
        self.workshop = workshop
    }

    public var playable: Bool { facts.problem == nil }

    public static func == (a: ListedItem, b: ListedItem) -> Bool {
        a.name == b.name && a.path == b.path && a.source == b.source && a.title == b.title && a.facts == b.facts
            && a.bytes == b.bytes && a.fitted == b.fitted && a.thumbnail == b.thumbnail && a.preview == b.preview
            && a.workshop?.id == b.workshop?.id && a.workshop?.type == b.workshop?.type && a.workshop?.folder == b.workshop?.folder
    }

    /// The title a listing shows: the workshop item's, else the container's, else the file's stem.
    public static func title(workshop: String?, tag: String?, path: String) -> String {
        if let w = workshop, !w.isEmpty { return w }
        if let t = tag?.trimmed, !t.isEmpty { return t }
        return LibraryEntries.stem(path)
    }

    /// What a picker passes back to play `path`: the shortest name that `wayloop NAME` resolves
    /// to this very file (`resolve` says what a bare name resolves to), else the path.
    public static func name(for path: String, candidates: [String], resolve: (String) -> String?) -> String {
        for c in candidates where VideoLookup.isBareName(c) && resolve(c) == path { return c }
        return path
    }
}

/// A problem with something that could not be listed at all: a directory, a project.json.
public struct ListError: Equatable, Sendable {
    public var path: String
    public var error: String
    public init(path: String, error: String) {
        self.path = path
        self.error = error
    }
}

/// The answer, in its two forms.
public enum ListOutput {
    public static let version = 1

    /// JSON version 1 (docs/list.md).
    public static func json(_ items: [ListedItem], errors: [ListError]) -> String {
        func opt(_ s: String?) -> JSON { s.map { .string($0) } ?? .null }
        func num(_ d: Double?) -> JSON { d.map { .number(($0 * 1000).rounded() / 1000) } ?? .null }
        func item(_ i: ListedItem) -> JSON {
            var pairs: [(String, JSON)] = [("name", .string(i.name)), ("path", .string(i.path)), ("source", .string(i.source.rawValue))]
            pairs += [("title", .string(i.title)), ("playable", .bool(i.playable)), ("reason", opt(i.facts.problem))]
            pairs.append(("duration", num(i.facts.duration)))
            let size = i.facts.size
            pairs.append(("width", size.map { JSON.number(Double($0.width)) } ?? .null))
            pairs.append(("height", size.map { JSON.number(Double($0.height)) } ?? .null))
            pairs += [("codec", opt(i.facts.codec)), ("fps", num(i.facts.fps)), ("bytes", .number(Double(i.bytes)))]
            pairs += [("fitted", .bool(i.fitted)), ("thumbnail", opt(i.thumbnail)), ("preview", opt(i.preview))]
            var workshop = JSON.null
            if let w = i.workshop { workshop = .object([("id", .string(w.id)), ("type", opt(w.type)), ("folder", .string(w.folder))]) }
            pairs.append(("workshop", workshop))
            return .object(pairs)
        }
        let list = items.map(item)
        let errs: [JSON] = errors.map { .object([("path", .string($0.path)), ("error", .string($0.error))]) }
        return JSON.object([("version", .number(Double(version))), ("items", .array(list)), ("errors", .array(errs))]).serialized + "\n"
    }

    /// For people: a line per video, `NAME  FACTS  PATH` (`~` for the home directory), and a
    /// last line counting them.
    public static func text(_ items: [ListedItem], home: String?) -> String {
        func short(_ p: String) -> String {
            if let home, !home.isEmpty, home != "/", p.hasPrefix(home + "/") { return "~" + p.dropFirst(home.count) }
            return p
        }
        let nameWidth = min(24, items.map { short($0.name).count }.max() ?? 0)
        var out = ""
        for i in items {
            let name = short(i.name)
            var facts: String
            if let p = i.facts.problem {
                facts = "cannot be played: \(p)"
            } else {
                var parts: [String] = []
                if let s = i.facts.size { parts.append("\(s.width)x\(s.height)") }
                if let c = i.facts.codec { parts.append(c) }
                if let r = i.facts.fps { parts.append("\(trimmedNumber(r)) fps") }
                if let d = i.facts.duration { parts.append(durationText(d)) }
                parts.append(sizeText(i.bytes))
                if i.fitted { parts.append("fitted copy cached") }
                facts = parts.joined(separator: ", ")
            }
            if i.title != LibraryEntries.stem(i.path) || i.source == .workshop { facts = "\"\(i.title)\": " + facts }
            let pad = String(repeating: " ", count: max(0, nameWidth - name.count))
            out += name == short(i.path) ? "\(name)\(pad)  \(facts)\n" : "\(name)\(pad)  \(facts)  \(short(i.path))\n"
        }
        let playable = items.filter(\.playable).count
        out += items.isEmpty ? "no videos\n" : "\(items.count) video\(items.count == 1 ? "" : "s"), \(playable) playable\n"
        return out
    }

    /// `12.5 s`, `3 min 20 s`.
    public static func durationText(_ d: Double) -> String {
        if d < 60 { return "\(trimmedNumber((d * 10).rounded() / 10)) s" }
        let s = Int(d.rounded())
        return s % 60 == 0 ? "\(s / 60) min" : "\(s / 60) min \(s % 60) s"
    }

    public static func sizeText(_ b: Int) -> String {
        if b >= 1 << 30 { return "\(String(oneDecimal: Double(b) / Double(1 << 30))) GiB" }
        if b >= 1 << 20 { return "\(String(oneDecimal: Double(b) / Double(1 << 20))) MiB" }
        if b >= 1 << 10 { return "\(b >> 10) KiB" }
        return "\(b) B"
    }

    /// 30, 29.97, 12.5: at most two decimals, none when whole.
    public static func trimmedNumber(_ v: Double) -> String {
        let r = (v * 100).rounded() / 100
        if r == r.rounded() { return String(Int(r)) }
        var s = String(r)
        while s.hasSuffix("0") { s.removeLast() }
        return s
    }
}
