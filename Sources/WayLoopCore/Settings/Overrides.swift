// The layers of entries in force: the config file's, the command line's, then the `ctl set`
// overrides, each tagged with the request that made it (a switch whose video fails takes its
// own override back, and only its own). Bounded: overrides that later ones shadow entirely
// are forgotten. Pure.

public struct Overrides: Sendable {
    public private(set) var tagged: [(tag: Int, entry: OutputEntry)] = []
    private var nextTag = 0
    /// Counts every change (what the state file says is saved again when it moves).
    public private(set) var generation = 0

    public init() {}

    /// The overrides a state file kept, in their order, each with its own tag.
    public init(restoring entries: [OutputEntry]) {
        for e in entries {
            tagged.append((nextTag, e))
            nextTag += 1
        }
    }

    public var entries: [OutputEntry] { tagged.map(\.entry) }

    /// Adds a `ctl set` override and returns its tag. `*` means every output: it also
    /// overrides the entries in force that name one (`existing`), so that it wins over them.
    public mutating func add(_ entry: OutputEntry, over existing: [OutputEntry]) -> Int {
        let tag = nextTag
        nextTag += 1
        generation += 1
        tagged.append((tag, entry))
        if entry.selector == .all {
            var named: [String] = []
            for case .named(let n) in existing.map(\.selector) where !named.contains(n) { named.append(n) }
            for n in named {
                var e = entry
                e.selector = .named(n)
                tagged.append((tag, e))
            }
        }
        return tag
    }

    public mutating func remove(tag: Int) {
        tagged.removeAll { $0.tag == tag }
        generation += 1
    }

    public mutating func removeAll() {
        tagged.removeAll()
        generation += 1
    }

    /// `ctl forget OUTPUT`: the overrides whose selector names it (by a name `names` accepts);
    /// how many went.
    public mutating func remove(naming names: (String) -> Bool) -> Int {
        let before = tagged.count
        tagged.removeAll { if case .named(let n) = $0.entry.selector { return names(n) }; return false }
        generation += 1
        return before - tagged.count
    }

    /// Forgets the overrides that later ones shadow entirely; true when any went.
    public mutating func compact() -> Bool {
        let keep = OutputEntry.unshadowed(entries)
        guard keep.contains(false) else { return false }
        tagged = zip(tagged, keep).filter(\.1).map(\.0)
        generation += 1
        return true
    }
}

/// The three layers of settings, lowest first: the config file's entries (with the default
/// loop when nothing names a video), the command line's (as given at start or by the last
/// hand-over), then `ctl set`'s overrides. What applies is their entries in that order: the
/// one place that says so.
public struct SettingsLayers: Sendable {
    public var config: [OutputEntry]
    public var commandLine: Options
    public var overrides: Overrides

    public init(config: [OutputEntry], commandLine: Options, overrides: Overrides = Overrides()) {
        self.config = config
        self.commandLine = commandLine
        self.overrides = overrides
    }

    /// Every entry in force, lowest first (later entries win for the outputs they match).
    public var entries: [OutputEntry] { config + commandLine.entries + overrides.entries }

    /// The entries a state file's overrides were made on (config file and command line).
    public var base: [OutputEntry] { config + commandLine.entries }
}

extension Options {
    /// A hand-over (a second `wayloop ARGS` on the same display): what the running instance
    /// takes of the new command line `incoming`: its entries (resolved by the caller against
    /// the new start's directory), its config file and the two pause rules. The process-wide
    /// options stay (`unappliable` refused the hand-over if they differ).
    public mutating func adoptHandOver(_ incoming: Options, entries: [OutputEntry], configPath: String?) {
        self.entries = entries
        self.configPath = configPath
        noConfig = incoming.noConfig
        pauseOnFullscreen = incoming.pauseOnFullscreen
        pauseOnBattery = incoming.pauseOnBattery
    }
}
