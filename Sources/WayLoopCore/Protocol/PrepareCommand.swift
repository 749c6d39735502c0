// `wayloop prepare`'s command line, pure: fitted copies made by hand, listed or cleaned. The
// shell decodes, scales, encodes and keeps the cache (FittedCopy, FitCache).

/// `wayloop prepare VIDEO… [--size WxH] [--max-fps N] [--quality Q] [--always] [--on-battery]`,
/// `wayloop prepare --list`, `wayloop prepare --clean`.
public struct PrepareCommand: Equatable, Sendable {
    /// What it does.
    public enum Action: Equatable, Sendable {
        /// Makes a fitted copy of each video (those the rule finds worth it, unless `always`).
        case make([String])
        /// Lists the copies in the cache: size, source, when last used.
        case list
        /// Empties the cache.
        case clean
    }

    /// What it does.
    public var action: Action
    /// The output the copies are made for, in pixels (default 1920x1080).
    public var size = PrepareCommand.defaultSize
    /// The frame-rate cap the copies are made for (nil: none).
    public var maxFps: Double?
    /// x264's constant rate factor: lower keeps more (default FitQuality.default).
    public var quality = FitQuality.default
    /// Makes a copy even where the rule finds nothing worth it (`--fit always`).
    public var always = false
    /// Makes copies on battery too (by default it waits for mains power).
    public var onBattery = false
    /// `--fit-cache-max`: the cache's bound, least recently used out (FitCacheSize).
    public var cacheMax = FitCacheSize.default
    /// `--for-wallpaper`: started by a running wallpaper. It stops when that process ends,
    /// waits while other programs keep the CPUs busy (FitPace), and reports on standard output
    /// in lines the wallpaper reads (FitReport), not with a bar.
    public var forWallpaper = false

    /// `action` with every option at its default.
    public init(action: Action) { self.action = action }

    /// The size copies are made for when `--size` is not given.
    public static let defaultSize = Size(width: 1920, height: 1080)
    /// The command's synopsis, as its error messages quote it.
    public static let usage = "prepare VIDEO... [--size WxH] [--max-fps N] [--quality Q] [--always] [--on-battery] [--fit-cache-max SIZE] | prepare --list | prepare --clean"

    /// `args` after `prepare`.
    public static func parse(_ args: [String]) throws(UsageError) -> PrepareCommand {
        var videos: [String] = []
        var c = PrepareCommand(action: .make([]))
        var list = false, clean = false
        var args = ArgumentCursor(args)
        while let a = args.current {
            switch a {
            case "--size":
                c.size = try args.value(of: a, expected: "a size WxH from 1x1 to \(ThumbnailCommand.maxSide)x\(ThumbnailCommand.maxSide)",
                                        ThumbnailCommand.parseSize)
            case "--max-fps":
                let fps: Double = try args.value(of: a, expected: "a frame rate from 1 to 240") { Double($0).flatMap { (1...240).contains($0) ? $0 : nil } }
                c.maxFps = fps
            case "--quality":
                c.quality = try args.value(of: a, expected: FitQuality.expected, FitQuality.parse)
            case "--fit-cache-max":
                c.cacheMax = try args.value(of: a, expected: FitCacheSize.expected, FitCacheSize.parse)
            case "--for-wallpaper": c.forWallpaper = true
            case "--always": c.always = true
            case "--on-battery": c.onBattery = true
            case "--list": list = true
            case "--clean": clean = true
            default:
                if a.hasPrefix("-") && a.count > 1 { throw .unknownOption(a) }
                guard !a.isEmpty else { throw .prepare("an empty VIDEO") }
                videos.append(a)
            }
            args.advance()
        }
        switch (list, clean, videos.isEmpty) {
        case (true, true, _): throw .prepare("--list and --clean go alone, not together")
        case (true, false, true): c.action = .list
        case (false, true, true): c.action = .clean
        case (false, false, false): c.action = .make(videos)
        case (false, false, true): throw .prepare("needs a VIDEO, --list or --clean (\(usage))")
        default: throw .prepare("--list and --clean take no VIDEO")
        }
        return c
    }
}

/// `--fit-quality` / `prepare --quality`: x264's constant rate factor for fitted copies.
public enum FitQuality {
    /// CRF 16: chosen by measurement (docs/performance.md, "The fitted copy's encoder").
    public static let `default` = 16
    public static let range = 0...40
    public static let expected = "a quality from 0 (lossless) to 40 (smallest), 16 by default"
    public static func parse(_ s: String) -> Int? { Int(s).flatMap { range.contains($0) ? $0 : nil } }
}

/// The lines a `wayloop prepare --for-wallpaper` child writes on standard output, one event
/// each, and how the wallpaper reads them back. Anything else it writes (its notices and errors)
/// is a message for the user.
public enum FitReport: Equatable, Sendable {
    /// The share done (0…1) and the seconds left at the pace so far (nil: too early to say).
    case progress(Double, secondsLeft: Double?)
    /// It waits (FitPace), and why, as a phrase: `on battery`, `other programs keep 63 % of the CPUs busy`.
    case waiting(String)
    case goingOn
    /// The copy is in the cache at this path; decoding a pass of it costs this share of the
    /// original's CPU, as measured while making it (one thread), and making it cost this many
    /// CPU seconds.
    case made(path: String, share: Double, cpuSeconds: Double)

    public var line: String {
        switch self {
        case .progress(let d, let left):
            return "fit-progress \(String(format3: d)) " + (left.map { String(oneDecimal: $0) } ?? "-")
        case .waiting(let why): return "fit-waiting \(why)"
        case .goingOn: return "fit-going-on"
        case .made(let p, let share, let cpu): return "fit-made \(String(format3: share)) \(String(oneDecimal: cpu)) \(p)"
        }
    }

    /// The event a line reports (nil: a message, not an event).
    public init?(line: String) {
        let f = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
        switch f.first {
        case "fit-progress" where f.count == 3:
            guard let d = Double(f[1]), (0...1).contains(d) else { return nil }
            self = .progress(d, secondsLeft: Double(f[2]))
        case "fit-waiting" where f.count >= 2: self = .waiting(String(line.dropFirst("fit-waiting ".count)))
        case "fit-going-on" where f.count == 1: self = .goingOn
        case "fit-made" where f.count == 4:
            guard let share = Double(f[1]), let cpu = Double(f[2]), f[3].hasPrefix("/") else { return nil }
            self = .made(path: f[3], share: share, cpuSeconds: cpu)
        default: return nil
        }
    }
}

extension String {
    /// Three decimals: `0.042`.
    init(format3 v: Double) {
        let m = Int((v * 1000).rounded())
        let frac = String(abs(m) % 1000)
        self = (m < 0 ? "-" : "") + "\(abs(m) / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac
    }
}
