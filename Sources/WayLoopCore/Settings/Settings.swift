// The per-output settings, named once: the command line (`-m fit`), the config file
// (`mode = fit`), `wayloop ctl set` (`-m fit`) and the control protocol (`"mode":"fit"`) all
// read a setting through this table, so they take the same values and say the same thing
// about a bad one. The video itself is not in it: its path is resolved differently in each.

public struct EntrySetting: Sendable {
    /// The config file's key and the control protocol's.
    public let key: String
    /// Other config keys for it (`colour`).
    public let aliases: [String]
    /// Its flags on the command line and in `ctl set` (none: config file only).
    public let flags: [String]
    /// Flags that take no value and set this one (`--shuffle` is `yes`, `--no-shuffle` `no`).
    public let switches: [(flag: String, value: String)]
    /// What a value must be: "one of fill, fit, stretch, center, tile, span, span-fit".
    public let expected: String
    /// A JSON number in the control protocol (else a string).
    public let numeric: Bool
    private let parse: @Sendable (inout OutputEntry, String) -> Bool
    private let render: @Sendable (OutputEntry) -> String?

    init(_ key: String, aliases: [String] = [], flags: [String], switches: [(flag: String, value: String)] = [],
         expected: String, numeric: Bool = false,
         parse: @escaping @Sendable (inout OutputEntry, String) -> Bool, render: @escaping @Sendable (OutputEntry) -> String?) {
        self.key = key
        self.aliases = aliases
        self.flags = flags
        self.switches = switches
        self.expected = expected
        self.numeric = numeric
        self.parse = parse
        self.render = render
    }

    /// Sets the value in `entry`; false (entry unchanged) when it is not what `expected` says.
    public func set(_ value: String, in entry: inout OutputEntry) -> Bool {
        var e = entry
        guard parse(&e, value) else { return false }
        entry = e
        return true
    }

    /// The value `entry` holds, as text (nil: not set).
    public func value(in entry: OutputEntry) -> String? { render(entry) }

    /// The one wording of a bad value: `'zoom' is not one of fill, fit, stretch, center, tile, span, span-fit`.
    public func problem(_ value: String) -> String { "'\(value)' is not \(expected)" }
}

public enum EntrySettings {
    public static let mode = EntrySetting("mode", flags: ["-m", "--mode"], expected: "one of fill, fit, stretch, center, tile, span, span-fit",
                                          parse: { e, v in ScaleMode(rawValue: v).map { e.mode = $0 } != nil },
                                          render: { $0.mode?.rawValue })
    public static let color = EntrySetting("color", aliases: ["colour"], flags: ["-c", "--color"], expected: "a colour RRGGBB",
                                           parse: { e, v in RGB(hex: v).map { e.color = $0 } != nil },
                                           render: { $0.color?.description })
    public static let dim = EntrySetting("dim", flags: ["--dim"], expected: "a number from 0 to 1", numeric: true,
                                         parse: { e, v in
                                             guard let d = Double(v), (0...1).contains(d) else { return false }
                                             e.dim = d
                                             return true
                                         },
                                         render: { $0.dim.map { "\($0)" } })
    public static let fallback = EntrySetting("fallback", flags: ["-f", "--fallback"], expected: "a colour RRGGBB or a video file",
                                              parse: { e, v in
                                                  guard !v.isEmpty else { return false }
                                                  e.fallback = Fallback(parsing: v)
                                                  return true
                                              },
                                              render: { $0.fallback?.description })
    public static let pauseOnFullscreen = EntrySetting("pause-on-fullscreen", flags: [], expected: "yes or no",
                                                       parse: { e, v in yesNo(v).map { e.pauseOnFullscreen = $0 } != nil },
                                                       render: { $0.pauseOnFullscreen.map { $0 ? "yes" : "no" } })
    public static let pauseOnBattery = EntrySetting("pause-on-battery", flags: [], expected: "yes or no",
                                                    parse: { e, v in yesNo(v).map { e.pauseOnBattery = $0 } != nil },
                                                    render: { $0.pauseOnBattery.map { $0 ? "yes" : "no" } })

    public static let interval = EntrySetting("interval", flags: ["--interval"], expected: DurationText.expected,
                                              parse: { e, v in DurationText.parse(v).map { e.interval = $0 } != nil },
                                              render: { $0.interval.map(DurationText.format) })
    public static let loops = EntrySetting("loops", flags: ["--loops"], expected: "a whole number from 1 to 1000000", numeric: true,
                                           parse: { e, v in
                                               guard let n = Int(v), (1...1_000_000).contains(n) else { return false }
                                               e.loops = n
                                               return true
                                           },
                                           render: { $0.loops.map { "\($0)" } })
    /// `--shuffle` / `--no-shuffle` on the command line and in `ctl set`; `shuffle = yes` in the config file.
    public static let shuffle = EntrySetting("shuffle", flags: [], switches: [("--shuffle", "yes"), ("--no-shuffle", "no")],
                                             expected: "yes or no",
                                             parse: { e, v in yesNo(v).map { e.shuffle = $0 } != nil },
                                             render: { $0.shuffle.map { $0 ? "yes" : "no" } })
    public static let transition = EntrySetting("transition", flags: ["--transition"], expected: Transition.expected,
                                                parse: { e, v in Transition(parsing: v).map { e.transition = $0 } != nil },
                                                render: { $0.transition?.description })

    public static let maxFps = EntrySetting("max-fps", flags: ["--max-fps"], expected: FrameCap.expected, numeric: true,
                                            parse: { e, v in FrameCap.parse(v).map { e.maxFps = $0 } != nil },
                                            render: { $0.maxFps.map(FrameCap.text) })
    public static let batteryFps = EntrySetting("battery-fps", flags: ["--battery-fps"], expected: FrameCap.expected, numeric: true,
                                                parse: { e, v in FrameCap.parse(v).map { e.batteryFps = $0 } != nil },
                                                render: { $0.batteryFps.map(FrameCap.text) })

    public static let scaling = EntrySetting("scaling", flags: ["--scaling"], expected: CompositorScaling.Choice.expected,
                                             parse: { e, v in CompositorScaling.Choice(rawValue: v).map { e.scaling = $0 } != nil },
                                             render: { $0.scaling?.rawValue })

    public static let hwdec = EntrySetting("hwdec", flags: ["--hwdec"], expected: HwdecMode.expected,
                                           parse: { e, v in HwdecMode(rawValue: v).map { e.hwdec = $0 } != nil },
                                           render: { $0.hwdec?.rawValue })
    /// A DRM render node for VA-API (`/dev/dri/renderD129`) or a CUDA device index for NVDEC.
    public static let hwdecDevice = EntrySetting("hwdec-device", flags: ["--hwdec-device"], expected: "a device path or number",
                                                 parse: { e, v in
                                                     guard !v.isEmpty, v.utf8.count < 4096, !v.contains("\0") else { return false }
                                                     e.hwdecDevice = v
                                                     return true
                                                 },
                                                 render: { $0.hwdecDevice })

    /// `--fit`: whether an oversized video is played from a fitted copy (FitMode).
    public static let fit = EntrySetting("fit", flags: ["--fit"], expected: FitMode.expected,
                                         parse: { e, v in FitMode(rawValue: v).map { e.fit = $0 } != nil },
                                         render: { $0.fit?.rawValue })

    /// `--pause-when`: what on screen pauses an output (PauseWhen).
    public static let pauseWhen = EntrySetting("pause-when", flags: ["--pause-when"], expected: PauseWhen.expected,
                                               parse: { e, v in PauseWhen(parsing: v).map { e.pauseWhen = $0 } != nil },
                                               render: { $0.pauseWhen?.description })
    /// `--pause-ignore`: app_ids whose windows no pause rule counts.
    public static let pauseIgnore = EntrySetting("pause-ignore", flags: ["--pause-ignore"], expected: PauseIgnore.expected,
                                                 parse: { e, v in PauseIgnore.parse(v).map { e.pauseIgnore = $0 } != nil },
                                                 render: { $0.pauseIgnore?.joined(separator: ",") })

    public static let all = [mode, color, dim, fallback, pauseOnFullscreen, pauseOnBattery, pauseWhen, pauseIgnore, interval, loops,
                             shuffle, transition, maxFps, batteryFps, scaling, hwdec, hwdecDevice, fit]

    /// The setting a command-line or `ctl set` flag names.
    public static func flag(_ f: String) -> EntrySetting? { all.first { $0.flags.contains(f) } }
    /// The setting a config key names.
    public static func key(_ k: String) -> EntrySetting? { all.first { $0.key == k || $0.aliases.contains(k) } }
    /// The setting a value-less flag sets, and the value it stands for (`--shuffle`: yes).
    public static func switchFlag(_ f: String) -> (setting: EntrySetting, value: String)? {
        for s in all { if let sw = s.switches.first(where: { $0.flag == f }) { return (s, sw.value) } }
        return nil
    }
    /// The settings `ctl set` and the control protocol take (those with flags or switches).
    public static var runtime: [EntrySetting] { all.filter { !$0.flags.isEmpty || !$0.switches.isEmpty } }

    static func yesNo(_ s: String) -> Bool? {
        switch s.lowercased() {
        case "yes", "true", "on", "1": return true
        case "no", "false", "off", "0": return false
        default: return nil
        }
    }
}

extension OutputEntry {
    /// The fields this entry sets (video and every table setting), by name.
    public var fieldsSet: Set<String> {
        var f = Set(EntrySettings.all.filter { $0.value(in: self) != nil }.map(\.key))
        if video != nil || solid != nil { f.insert("video") }
        if renderer != nil { f.insert("renderer") }
        return f
    }

    /// Which of `entries` still matter: an entry is dropped when later entries with the same
    /// selector set every field it sets (20 000 `ctl set -m …` must not make a list of
    /// 20 000 overrides). Order is kept; what `Options.settings` computes does not change.
    public static func unshadowed(_ entries: [OutputEntry]) -> [Bool] {
        var keep = Array(repeating: true, count: entries.count)
        // The same outputs on the same workspace (or none): only then does one shadow another.
        struct Scope: Hashable { let selector: OutputSelector, workspace: String? }
        var later: [Scope: Set<String>] = [:]
        for i in entries.indices.reversed() {
            let e = entries[i], fields = e.fieldsSet, scope = Scope(selector: e.selector, workspace: e.workspace)
            let covered = later[scope, default: []]
            if !fields.isEmpty && fields.isSubset(of: covered) { keep[i] = false }
            later[scope, default: []].formUnion(fields)
        }
        return keep
    }
}
