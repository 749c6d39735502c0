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

    /// `action` with every option at its default.
    public init(action: Action) { self.action = action }

    /// The size copies are made for when `--size` is not given.
    public static let defaultSize = Size(width: 1920, height: 1080)
    /// The command's synopsis, as its error messages quote it.
    public static let usage = "prepare VIDEO... [--size WxH] [--max-fps N] [--quality Q] [--always] [--on-battery] | prepare --list | prepare --clean"

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
