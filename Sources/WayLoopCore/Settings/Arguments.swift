// The one way through a command line, for every parser (wayloop's own, `ctl`'s, `thumbnail`'s
// and `decode`'s): the argument under the cursor, an option's value, a value converted or
// refused with what it should have been, and the settings table's flags. Pure.

/// A cursor over command-line arguments.
public struct ArgumentCursor {
    /// Every argument, in order.
    public let arguments: [String]
    /// The position of the argument under the cursor.
    public private(set) var index = 0

    /// A cursor on the first of `arguments`.
    public init(_ arguments: [String]) { self.arguments = arguments }

    /// The argument under the cursor; nil past the last one.
    public var current: String? { index < arguments.count ? arguments[index] : nil }

    /// Moves past the argument under the cursor.
    public mutating func advance() { index += 1 }

    /// The argument after `option`, as its value; the cursor moves onto it.
    public mutating func value(of option: String) throws(UsageError) -> String {
        index += 1
        guard index < arguments.count else { throw .missingValue(option: option) }
        return arguments[index]
    }

    /// `option`'s value converted by `convert`; refused (a nil conversion) with `expected`,
    /// what it should have been.
    public mutating func value<T>(of option: String, expected: String, _ convert: (String) -> T?) throws(UsageError) -> T {
        let v = try value(of: option)
        guard let t = convert(v) else { throw .badValue(option: option, value: v, expected: expected) }
        return t
    }

    /// `option`'s value as a whole number in `range`.
    public mutating func number(of option: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        try value(of: option, expected: "a whole number from \(range.lowerBound) to \(range.upperBound)") {
            Int($0).flatMap { range.contains($0) ? $0 : nil }
        }
    }

    /// Every argument after the one under the cursor (after `--`); the cursor moves past them.
    public mutating func rest() -> ArraySlice<String> {
        defer { index = arguments.count }
        return arguments[min(index + 1, arguments.count)...]
    }

    /// `argument` is a flag of the settings table (`-m fill`, `--dim 0.3`, `--shuffle`): applied
    /// to `entry`, its value taken from the next argument where it has one. False when it is none.
    public mutating func applySetting(_ argument: String, to entry: inout OutputEntry) throws(UsageError) -> Bool {
        if let (setting, v) = EntrySettings.switchFlag(argument) {
            _ = setting.set(v, in: &entry)
            return true
        }
        guard let setting = EntrySettings.flag(argument) else { return false }
        let v = try value(of: argument)
        guard setting.set(v, in: &entry) else { throw .badValue(option: argument, value: v, expected: setting.expected) }
        return true
    }
}

/// One option of the whole process (`--cache-mb`, `--layer`, `--config`, …): its flags, its
/// value when it takes one, and, for those a running instance cannot change, how a hand-over
/// compares them (Options.unappliable).
struct ProcessOption: Sendable {
    /// Its flags; the first is its name unless `canonical` names another.
    let flags: [String]
    /// The option it is a short form of (`-v` of `--log-level`), for a hand-over's comparison.
    var canonical: String?
    /// Reads its value (if it takes one) from the cursor and sets it.
    let apply: @Sendable (inout ArgumentCursor, String, inout Options) throws(UsageError) -> Void
    /// What the running instance has for it, as a hand-over compares it (nil: a hand-over may
    /// change it, or it means nothing to a running instance).
    let shown: (@Sendable (Options) -> String)?

    var name: String { canonical ?? flags[0] }

    /// A flag that only sets something.
    static func flag(_ flags: String..., of canonical: String? = nil, set: @escaping @Sendable (inout Options) -> Void,
                     shown: (@Sendable (Options) -> String)? = nil) -> ProcessOption {
        ProcessOption(flags: flags, canonical: canonical, apply: { _, _, o in set(&o) }, shown: shown)
    }

    /// An option with a value, converted (nil: refused with `expected`).
    static func value<T>(_ flags: String..., expected: String, _ convert: @escaping @Sendable (String) -> T?,
                         set: @escaping @Sendable (inout Options, T) -> Void, shown: (@Sendable (Options) -> String)? = nil) -> ProcessOption {
        ProcessOption(flags: flags, canonical: nil, apply: { (c: inout ArgumentCursor, flag: String, o: inout Options) throws(UsageError) in
            set(&o, try c.value(of: flag, expected: expected, convert))
        }, shown: shown)
    }
}

extension Options {
    /// Every process-wide option `wayloop` takes: the one table the parser, the hand-over's
    /// refusals and the docs' checks read.
    static let processOptions: [ProcessOption] = {
        @Sendable func show(_ v: Any?) -> String { v.map { "\($0)" } ?? "none" }
        func whole(_ range: ClosedRange<Int>, _ unit: String = "") -> (expected: String, convert: @Sendable (String) -> Int?) {
            ("a whole number\(unit) from \(range.lowerBound) to \(range.upperBound)", { Int($0).flatMap { range.contains($0) ? $0 : nil } })
        }
        let keep = whole(0...16), queue = whole(2...120), cache = whole(0...4096, " of MiB")
        return [
            .value("--config", expected: "a file", { $0 }, set: { $0.configPath = $1 }),
            .flag("--no-config", set: { $0.noConfig = true }),
            .flag("--no-restore", set: { $0.noRestore = true }),
            .flag("--replace", set: { $0.replace = true }),
            .flag("--no-fullscreen-pause", set: { $0.pauseOnFullscreen = false }),
            .flag("--pause-on-battery", set: { $0.pauseOnBattery = true }),
            .value("--keep-recent", expected: keep.expected, keep.convert, set: { $0.keepRecent = $1 }, shown: { show($0.keepRecent) }),
            .value("--layer", expected: "one of background, bottom, top, overlay", Layer.init(rawValue:), set: { $0.layer = $1 },
                   shown: { $0.layer.rawValue }),
            .value("--name", expected: InstanceName.expected, { InstanceName.isValid($0) ? $0 : nil }, set: { $0.name = $1 }),
            .value("--log-level", expected: "one of error, notice, debug, trace", LogLevel.init(name:), set: { $0.logLevel = $1 },
                   shown: { $0.logLevel.name }),
            .flag("-v", "--verbose", of: "--log-level", set: { $0.logLevel = .debug }, shown: { $0.logLevel.name }),
            .value("--queue-frames", expected: queue.expected, queue.convert, set: { $0.queueFrames = $1 }, shown: { show($0.queueFrames) }),
            .value("--cache-mb", expected: cache.expected, cache.convert, set: { $0.cacheMB = $1 }, shown: { show($0.cacheMB) }),
            .value("--trace-frames", expected: "a file", { $0 }, set: { $0.traceFile = $1 }, shown: { show($0.traceFile) }),
            .value("--renderer", expected: RendererRequest.expected, RendererRequest.init(rawValue:), set: { $0.renderer = $1 },
                   shown: { $0.renderer?.rawValue ?? "auto" }),
            .value("--fit-quality", expected: FitQuality.expected, FitQuality.parse, set: { $0.fitQuality = $1 },
                   shown: { show($0.fitQuality) }),
            .value("--fit-cache-max", expected: FitCacheSize.expected, FitCacheSize.parse, set: { $0.fitCacheMax = $1 },
                   shown: { FitCacheSize.text($0.fitCacheMax) }),
            .value("--release-after", expected: "a number of seconds from 0.1 to 86400",
                   { Double($0).flatMap { (0.1...86_400).contains($0) ? $0 : nil } }, set: { $0.releaseAfter = $1 },
                   shown: { show($0.releaseAfter) }),
        ]
    }()

    /// The process-wide option `flag` belongs to.
    static func processOption(_ flag: String) -> ProcessOption? { processOptions.first { $0.flags.contains(flag) } }
}
