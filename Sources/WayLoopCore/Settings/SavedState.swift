// What survives a restart, pure: the `ctl set` overrides (each naming its output by a stable
// identity), the playlists' positions and shuffle orders, and the fingerprint of the base they
// were made on top of (the command line's and the config file's entries). A small versioned
// JSON file (wayloop(5) documents it); reading it trusts nothing. The shell reads and writes
// the file (StateStore) and decides when.

public struct SavedState: Equatable, Sendable {
    /// The format's version: a file of another version is set aside, never guessed at.
    public static let version = 1
    /// A state file larger than this is not read (it is not one WayLoop wrote).
    public static let sizeLimit = 256 * 1024
    /// At most this many overrides and playlists are kept from a file (a hand-made file of
    /// thousands is not trusted either).
    public static let itemLimit = 1000

    /// `SavedState.fingerprint` of the base.
    public var base: String
    /// The overrides in the order they were made, selectors rewritten to output identities.
    public var overrides: [OutputEntry]
    public var playlists: [SavedPlaylist]

    public init(base: String, overrides: [OutputEntry] = [], playlists: [SavedPlaylist] = []) {
        self.base = base
        self.overrides = overrides
        self.playlists = playlists
    }

    /// Nothing to remember: no file is written (and an old one goes).
    public var isEmpty: Bool { overrides.isEmpty && playlists.isEmpty }

    // MARK: The base

    /// A fingerprint of what the overrides were made on top of: every field of every entry of
    /// the config file and the command line, in order (where a config file named a video is
    /// not part of it). FNV-1a 64, hex.
    public static func fingerprint(_ entries: [OutputEntry]) -> String {
        var h = FNV1a()
        func mix(_ s: String) {
            h.add(s)
            h.add([0xff])
        }
        mix("v\(version)")
        for e in entries {
            mix("entry")
            mix(e.selector.text)
            if let ws = e.workspace { mix("workspace " + ws) }
            mix(e.video ?? e.solid.map { "solid " + $0.description } ?? "-")
            for s in EntrySettings.all { mix(s.value(in: e) ?? "-") }
            mix(e.renderer?.rawValue ?? "-")
        }
        return h.hex
    }

    // MARK: Writing

    /// The file's text: one JSON object, one override or playlist per line, a newline at the end.
    public var text: String {
        func lines(_ items: [JSON]) -> String {
            items.isEmpty ? "[]" : "[\n    " + items.map(\.serialized).joined(separator: ",\n    ") + "\n  ]"
        }
        return "{\n  \"wayloop-state\": \(Self.version),\n  \"base\": \(JSON.string(base).serialized),\n"
            + "  \"overrides\": \(lines(overrides.map(Self.json))),\n"
            + "  \"playlists\": \(lines(playlists.map(\.json)))\n}\n"
    }

    static func json(_ e: OutputEntry) -> JSON {
        var pairs: [(String, JSON)] = [("output", .string(e.selector.text))]
        if let ws = e.workspace { pairs.append(("workspace", .string(ws))) }
        if let v = e.video { pairs.append(("video", .string(v))) }
        if let c = e.solid { pairs.append(("solid", .string(c.description))) }
        for s in EntrySettings.all { if let v = s.value(in: e) { pairs.append((s.key, .string(v))) } }
        return .object(pairs)
    }

    // MARK: Reading

    /// Why a state file is not used.
    public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        case notJSON(String)
        case version(String)
        case malformed(String)

        public var description: String {
            switch self {
            case .notJSON(let why): return "it is not a state file (\(why))"
            case .version(let v): return "it is of another version (\(v), this wayloop reads \(SavedState.version))"
            case .malformed(let why): return "it is malformed (\(why))"
            }
        }
    }

    /// Reads a state file's text; anything not exactly as written is a problem (never a guess).
    public static func parse(_ text: String) -> Result<SavedState, Problem> {
        let root: JSON
        do { root = try JSON.parse(text) } catch { return .failure(.notJSON("\(error)")) }
        guard case .object = root, let v = root["wayloop-state"] else { return .failure(.notJSON("no \"wayloop-state\" version")) }
        guard v.number == Double(version) else { return .failure(.version(v.serialized)) }
        guard let base = root["base"]?.string, base.count == 16, base.utf8.allSatisfy(Self.isHex) else {
            return .failure(.malformed("\"base\" is not a fingerprint"))
        }
        guard let overrides = root["overrides"]?.array, let playlists = root["playlists"]?.array else {
            return .failure(.malformed("\"overrides\" and \"playlists\" must be arrays"))
        }
        guard overrides.count <= itemLimit, playlists.count <= itemLimit else {
            return .failure(.malformed("more than \(itemLimit) items"))
        }
        var state = SavedState(base: base)
        for (i, o) in overrides.enumerated() {
            switch entry(o) {
            case .success(let e): state.overrides.append(e)
            case .failure(.malformed(let why)): return .failure(.malformed("override \(i + 1): \(why)"))
            case .failure(let p): return .failure(p)
            }
        }
        for (i, p) in playlists.enumerated() {
            guard let saved = SavedPlaylist(json: p) else { return .failure(.malformed("playlist \(i + 1) is not one")) }
            state.playlists.append(saved)
        }
        return .success(state)
    }

    static func isHex(_ b: UInt8) -> Bool { (0x30...0x39).contains(b) || (0x61...0x66).contains(b) }

    /// One override: an output, an absolute video and settings as the config file writes them.
    static func entry(_ o: JSON) -> Result<OutputEntry, Problem> {
        guard case .object(let pairs) = o else { return .failure(.malformed("not an object")) }
        guard let output = o["output"]?.string, !output.isEmpty else { return .failure(.malformed("no \"output\"")) }
        var e = OutputEntry(selector: output == "*" ? .all : .named(output))
        for (key, value) in pairs where key != "output" {
            guard let text = value.string else { return .failure(.malformed("\"\(key)\" is not a string")) }
            if key == "video" {
                guard text.hasPrefix("/") else { return .failure(.malformed("\"video\" is not an absolute path")) }
                e.video = text
                continue
            }
            if key == "solid" {
                guard let c = RGB(hex: text) else { return .failure(.malformed("\"solid\" is not a colour RRGGBB")) }
                e.solid = c
                continue
            }
            if key == "workspace" {
                guard let ws = WorkspaceName.parse(text) else { return .failure(.malformed("\"workspace\": \(WorkspaceName.expected)")) }
                e.workspace = ws
                continue
            }
            guard let setting = EntrySettings.all.first(where: { $0.key == key }) else { return .failure(.malformed("unknown key \"\(key)\"")) }
            guard setting.set(text, in: &e) else { return .failure(.malformed("\"\(key)\": \(setting.problem(text))")) }
        }
        if case .video(let f)? = e.fallback, !f.hasPrefix("/") { return .failure(.malformed("\"fallback\" is not an absolute path")) }
        if e.solid != nil && (e.workspace == nil || e.video != nil) { return .failure(.malformed("\"solid\" is for a workspace's entry, without \"video\"")) }
        guard !e.fieldsSet.isEmpty else { return .failure(.malformed("it sets nothing")) }
        return .success(e)
    }

    // MARK: Restoring

    /// What a start does with the state it read, given the fingerprint of its own base.
    public enum Decision: Equatable, Sendable {
        case restore(SavedState)
        /// The command line or the config file changed since: the user meant the new base.
        case baseChanged
    }

    public func decision(base current: String) -> Decision {
        base == current ? .restore(self) : .baseChanged
    }
}

/// A playlist's place: which run (the key's fields), what played, and the rest of the shuffled
/// round (what comes next, in order; empty for a list played in order).
public struct SavedPlaylist: Equatable, Sendable {
    public var key: PlaylistRun.Key
    public var current: String
    public var round: [String]

    public init(key: PlaylistRun.Key, current: String, round: [String] = []) {
        self.key = key
        self.current = current
        self.round = round
    }

    var json: JSON {
        var pairs: [(String, JSON)] = [("source", .string(key.source)), ("shuffle", .bool(key.shuffle))]
        if let i = key.interval { pairs.append(("interval", .number(i))) }
        if let l = key.loops { pairs.append(("loops", .number(Double(l)))) }
        pairs.append(("current", .string(current)))
        if !round.isEmpty { pairs.append(("round", .array(round.map { .string($0) }))) }
        return .object(pairs)
    }

    init?(json p: JSON) {
        guard case .object = p, let source = p["source"]?.string, source.hasPrefix("/"), let shuffle = p["shuffle"]?.bool,
              let current = p["current"]?.string, current.hasPrefix("/") else { return nil }
        var interval: Double?, loops: Int?
        if let i = p["interval"] {
            guard let n = i.number, n > 0, n <= DurationText.maximum else { return nil }
            interval = n
        }
        if let l = p["loops"] {
            guard let n = l.number, n >= 1, n <= 1_000_000, n == n.rounded() else { return nil }
            loops = Int(n)
        }
        var round: [String] = []
        if let r = p["round"] {
            guard let items = r.array, items.count <= SavedState.itemLimit else { return nil }
            for item in items {
                guard let s = item.string, s.hasPrefix("/") else { return nil }
                round.append(s)
            }
        }
        self.init(key: PlaylistRun.Key(source: source, shuffle: shuffle, interval: interval, loops: loops), current: current, round: round)
    }
}

extension OutputSelector {
    /// `*`, or the name or description it matches.
    public var text: String {
        switch self {
        case .all: return "*"
        case .named(let n): return n
        }
    }
}

/// How a state file names an output so that the next start finds it again: "Make Model Serial"
/// (the description without the connector that wlroots appends, `… (DP-1)`) when the
/// compositor gives one and no other connected output has the same, else the connector name.
public enum OutputIdentity {
    public static func of(name: String, description: String, others: [(name: String, description: String)]) -> String {
        let mine = stable(name: name, description: description)
        guard !mine.isEmpty else { return name }
        let clash = others.contains { $0.name != name && stable(name: $0.name, description: $0.description) == mine }
        return clash ? name : mine
    }

    /// The description without a trailing ` (NAME)`.
    public static func stable(name: String, description: String) -> String {
        let suffix = " (\(name))"
        var d = description
        if !name.isEmpty, d.hasSuffix(suffix) { d.removeLast(suffix.count) }
        while d.last == " " { d.removeLast() }
        return d
    }
}

/// When the state file is written: a second after the last change, so that a burst of
/// `ctl set`s is one write, but never more than five seconds after the first unsaved one.
public struct SaveDebounce: Equatable, Sendable {
    public static let quiet: Nanos = 1_000_000_000
    public static let longest: Nanos = 5_000_000_000

    /// The generation last written (or read at start, which needs no write).
    public private(set) var saved: Int
    private var seen: Int
    private var firstChange: Nanos?
    private var lastChange: Nanos?

    public init(generation: Int) {
        saved = generation
        seen = generation
    }

    /// What changed is seen once per pass of the loop.
    public mutating func observe(_ generation: Int, now: Nanos) {
        guard generation != seen else { return }
        seen = generation
        if generation == saved {
            firstChange = nil
            lastChange = nil
            return
        }
        if firstChange == nil { firstChange = now }
        lastChange = now
    }

    /// When to write (nil: nothing unsaved).
    public var due: Nanos? {
        guard let first = firstChange, let last = lastChange else { return nil }
        return min(last + Self.quiet, first + Self.longest)
    }

    /// Written (or, for `ctl forget`, deliberately not): nothing is due until the next change.
    public mutating func wrote(_ generation: Int) {
        saved = generation
        seen = generation
        firstChange = nil
        lastChange = nil
    }
}
