// When a fitted copy of a video is worth making (`--fit`), and what it is: a video decoded at
// its full size and rate for ever, when the outputs showing it sample a quarter of its pixels
// or half of its frames, is re-encoded once, smaller, as H.264 (`wayloop prepare`), and played
// from then on. Pure: the shell gives the clip's facts and what the outputs need.

/// `--fit`: whether WayLoop makes fitted copies of oversized videos.
public enum FitMode: String, Sendable, CaseIterable {
    /// When the rule says a copy is worth it (FitRule).
    case auto
    /// For every video that can be made smaller or cheaper at all.
    case always
    /// Never: every video plays from its own file.
    case off

    /// What `--fit` takes, for its usage error.
    public static let expected = "one of auto, always, off"

    /// The mode for a video several outputs show (it is decoded once): `off` on any of them
    /// wins (that output asked for the file itself), then `always`, else `auto`.
    public static func combined(_ modes: [FitMode]) -> FitMode {
        modes.contains(.off) ? .off : modes.contains(.always) ? .always : .auto
    }
}

/// `--fit-cache-max`: the fitted-copy cache's bound. A number of MiB, or with a unit: `512M`,
/// `2G`, `1.5GiB`.
public enum FitCacheSize {
    public static let `default` = 2 << 30
    public static let range = (16 << 20)...(1 << 40)
    public static let expected = "a size from 16M to 1T (2G by default; a bare number is MiB)"

    public static func parse(_ text: String) -> Int? {
        var s = text.uppercased()
        if s.hasSuffix("IB") { s.removeLast(2) } else if s.hasSuffix("B") { s.removeLast() }
        let units: [Character: Double] = ["K": 0x1p10, "M": 0x1p20, "G": 0x1p30, "T": 0x1p40]
        var unit = 0x1p20
        if let u = s.last, let f = units[u] { unit = f; s.removeLast() }
        guard let v = Double(s), v.isFinite, v > 0 else { return nil }
        let bytes = v * unit
        guard bytes <= Double(range.upperBound), range.contains(Int(bytes)) else { return nil }
        return Int(bytes)
    }

    /// `2 GiB`, `512 MiB`, `1.5 GiB`.
    public static func text(_ bytes: Int) -> String {
        let g = Double(bytes) / Double(1 << 30)
        if g >= 1 { return g == g.rounded() ? "\(Int(g)) GiB" : "\(String(oneDecimal: g)) GiB" }
        return "\(Int((Double(bytes) / Double(1 << 20)).rounded())) MiB"
    }
}

public enum FitRule {
    /// A clip's facts, as its decoder opened it.
    public struct Clip: Equatable, Sendable {
        /// Coded size, and whether it is shown turned a quarter (rotation metadata).
        public var size: Size
        public var turned: Bool
        public var frameRate: Double
        /// libavcodec's codec name (`h264`, `hevc`, `av1`, `vp9` …) and bits per sample.
        public var codec: String
        public var bitDepth: Int
        /// Seconds; nil where the container does not say.
        public var duration: Double?
        /// A still picture or an animated GIF: nothing to gain.
        public var isStill: Bool
        /// Its frames come from a hardware decoder into GPU memory at no CPU cost (zero copy).
        public var decodedForFree: Bool

        public init(size: Size, turned: Bool = false, frameRate: Double, codec: String, bitDepth: Int = 8,
                    duration: Double?, isStill: Bool = false, decodedForFree: Bool = false) {
            self.size = size
            self.turned = turned
            self.frameRate = frameRate
            self.codec = codec
            self.bitDepth = bitDepth
            self.duration = duration
            self.isStill = isStill
            self.decodedForFree = decodedForFree
        }
    }

    /// Why a copy is made.
    public enum Reason: Equatable, Sendable {
        /// The clip holds this many times the pixels the largest output needs.
        case pixels(Double)
        /// Its frame rate is this many times the cap in force.
        case rate(Double)
        /// Its codec costs this many times H.264's to decode at the same size.
        case codec(Double)
    }

    /// Why none is made.
    public enum Skip: Equatable, Sendable {
        case off
        case still
        case decodedForFree
        /// Longer than `maxDuration` (or of unknown length).
        case tooLong
        /// Nothing to gain: no rule holds (under `auto`), or the copy would be the clip again.
        case notWorthIt

        /// Why no copy is made, in the words `ctl status` (its `fit` note) and `wayloop prepare`
        /// both use: `clip` shown on an output of `size` (the largest showing it), under `cap`.
        public func text(clip: Clip, on size: Size?, cap: Double?) -> String {
            switch self {
            case .off: return "--fit off"
            case .still: return "a still picture or an animated image"
            case .decodedForFree: return "decoded in hardware at no CPU cost"
            case .tooLong: return "longer than \(Int(FitRule.maxDuration / 60)) minutes (or of unknown length)"
            case .notWorthIt:
                let on = size.map { " on \($0)" } ?? ""
                return "\(clip.size) at \(String(oneDecimal: clip.frameRate)) fps\(on)" + (cap.map { " under --max-fps \(String(oneDecimal: $0))" } ?? "")
                    + " is not worth a copy"
            }
        }
    }

    /// What to make: the encoded size (the coded orientation, even), the frames kept (every
    /// `keepEvery`-th, each at its own time), why, and the decode cost of the copy against the
    /// original's, as the measured factors predict.
    public struct Target: Equatable, Sendable {
        public var size: Size
        public var keepEvery: Int
        public var reasons: [Reason]
        public var expectedCost: Double
    }

    public enum Verdict: Equatable, Sendable {
        case make(Target)
        case keep(Skip)
    }

    /// Longer clips are not copied: the copy would take long to make and much room to keep.
    public static let maxDuration = 600.0

    /// Decode cost per frame against 8-bit H.264 at the same size, one thread, measured on
    /// the project's 2-core machine with libavcodec 59 (`scripts/codec-costs --grain 0`;
    /// docs/performance.md): one 1080p30 testsrc2 clip encoded by x264, x265 (8 and 10 bits),
    /// libvpx-vp9 and SVT-AV1 (decoded by dav1d) at qualities a viewer would keep. With camera
    /// grain (`--grain 10`) every factor falls to about 1 or below (the H.264 stream is then
    /// the largest), so these are the upper ones. Codecs not measured count as 1.
    public static let codecCost: [String: Double] = [
        "h264": 1.0,
        "hevc": 1.8,
        "hevc10": 2.2,
        "vp9": 1.15,
        "av1": 0.9,
    ]

    /// A codec worth a copy by itself costs at least this much more than H.264.
    public static let codecWorthIt = 2.0

    /// The cost factor of `codec` at `bitDepth` (1 where not measured).
    public static func cost(codec: String, bitDepth: Int) -> Double {
        if bitDepth > 8, let c = codecCost[codec + "10"] { return c }
        return codecCost[codec] ?? 1
    }

    /// The verdict for `clip`, shown on `outputs` (each one's buffer size in pixels and mode)
    /// under `cap` frames a second (nil: uncapped on at least one of them).
    public static func verdict(_ clip: Clip, outputs: [(size: Size, mode: ScaleMode)], cap: Double?, mode: FitMode,
                               maxDuration: Double = maxDuration) -> Verdict {
        if mode == .off { return .keep(.off) }
        if clip.isStill { return .keep(.still) }
        if clip.decodedForFree { return .keep(.decodedForFree) }
        guard let d = clip.duration, d <= maxDuration else { return .keep(.tooLong) }
        guard !clip.size.isEmpty, clip.frameRate > 0, !outputs.isEmpty else { return .keep(.notWorthIt) }

        let need = DecodeScale.need(video: clip.size, turned: clip.turned, outputs: outputs)
        let size = evenSize(clip.size, scale: need)
        let pixelRatio = Double(clip.size.width * clip.size.height) / Double(size.width * size.height)
        // A whole ratio (59.94 under 30 is 2): every frame is then kept at its own time. Under
        // a cap that does not divide the rate (50 under 30), every frame is kept and the
        // player's cap picks among them as it does now.
        let keepEvery = cap.map { max(1, Int(clip.frameRate / $0 + 0.01)) } ?? 1
        let codecFactor = cost(codec: clip.codec, bitDepth: clip.bitDepth)

        var reasons: [Reason] = []
        if pixelRatio >= 2 { reasons.append(.pixels(pixelRatio)) }
        if keepEvery >= 2 { reasons.append(.rate(Double(keepEvery))) }
        if codecFactor >= codecWorthIt { reasons.append(.codec(codecFactor)) }
        let smaller = size != clip.size || keepEvery > 1 || clip.codec != "h264" || clip.bitDepth > 8
        guard mode == .always ? smaller : !reasons.isEmpty else { return .keep(.notWorthIt) }
        let expected = 1 / (pixelRatio * Double(keepEvery) * codecFactor)
        return .make(Target(size: size, keepEvery: keepEvery, reasons: reasons, expectedCost: expected))
    }

    /// `size` scaled by `scale` (≤ 1), both sides even (4:2:0), never larger than it was.
    static func evenSize(_ size: Size, scale: Double) -> Size {
        func even(_ v: Int) -> Int {
            let scaled = Int((Double(v) * min(scale, 1) - 1e-6).rounded(.up))
            return min(max(2, scaled + scaled % 2), max(2, v - v % 2))
        }
        return Size(width: even(size.width), height: even(size.height))
    }
}

/// When the making of a fitted copy waits: on battery (unless asked to go on), and while other
/// programs keep the machine's CPUs busy. It runs at idle priority anyway; waiting also spares
/// the battery, the heat and the memory bandwidth that idle priority does not.
///
/// The load is what the CPUs did between two looks at /proc/stat, less what WayLoop itself did
/// (the copy's maker and the wallpaper that started it, whose decoding the copy is there to
/// relieve). PSI's CPU line would count the maker's own waiting at idle priority as pressure,
/// and the maker would hold itself.
public enum FitPace {
    public enum Hold: Equatable, Sendable {
        case onBattery
        /// Other programs kept this share of all the CPUs busy lately (percent).
        case cpuBusy(Double)
    }

    /// Others keeping at least this share of all the CPUs busy (percent) hold it.
    public static let busyPercent = 50.0

    /// Why it waits now (nil: it goes on).
    public static func hold(onBattery: Bool, allowedOnBattery: Bool, othersBusy: Double?) -> Hold? {
        if onBattery && !allowedOnBattery { return .onBattery }
        if let p = othersBusy, p >= busyPercent { return .cpuBusy(p) }
        return nil
    }

    /// The share of all the CPUs (percent) busy between two /proc/stat samples with WayLoop's
    /// own processes' ticks over the same time taken out (nil: no time passed).
    public static func othersBusy(before: (busy: Int, all: Int), after: (busy: Int, all: Int), ownTicks: Int) -> Double? {
        let all = after.all - before.all
        guard all > 0 else { return nil }
        let others = max(0, after.busy - before.busy - max(0, ownTicks))
        return min(100, Double(others) * 100 / Double(all))
    }
}

/// What the wallpaper does about one video's fitted copy each time it looks: pure, from what
/// the rule says now and where the copy stands.
public enum FitPlan {
    /// What the decoder plays, or was last asked to.
    public enum Playing: Equatable, Sendable {
        case original
        /// A copy: the one the verdict now asks for (`current`), or one made for another
        /// target (an output grew or a cap changed since).
        case copy(current: Bool)
    }

    /// Whether a `wayloop prepare` child is at work, and on what.
    public enum Making: Equatable, Sendable {
        case nothing
        /// This video's copy for the verdict now.
        case this
        /// This video's copy for a target the verdict no longer asks for.
        case stale
        /// Another video's (one child at a time).
        case other
    }

    public struct Facts: Equatable, Sendable {
        /// The verdict now (nil: the video has not opened yet).
        public var verdict: FitRule.Verdict?
        /// The copy the verdict asks for is in the cache, sound.
        public var cached = false
        public var playing = Playing.original
        public var making = Making.nothing
        /// Making this copy failed in this run (not tried again until the source changes).
        public var failed = false
        /// Its loop replays from memory (nothing is decoded: a copy would save nothing now).
        public var replaying = false

        public init(verdict: FitRule.Verdict?, cached: Bool = false, playing: Playing = .original, making: Making = .nothing,
                    failed: Bool = false, replaying: Bool = false) {
            self.verdict = verdict
            self.cached = cached
            self.playing = playing
            self.making = making
            self.failed = failed
            self.replaying = replaying
        }
    }

    public enum Action: Equatable, Sendable {
        /// Switch to the copy at the next seam.
        case useCopy
        /// Switch back to the original at the next seam.
        case useOriginal
        /// Start a child making the copy.
        case make
        /// Stop the child making this video's copy (deleting what it made so far).
        case stopMaking
    }

    public static func actions(_ f: Facts) -> [Action] {
        guard let verdict = f.verdict else { return [] }
        var out: [Action] = []
        guard case .make = verdict else {
            if f.making == .this || f.making == .stale { out.append(.stopMaking) }
            if f.playing != .original { out.append(.useOriginal) }
            return out
        }
        if f.making == .stale { out.append(.stopMaking) }
        if f.playing == .copy(current: true) { return out }
        if f.cached { return out + [.useCopy] }
        // A copy made for another target may be too small now: the original until the new one.
        if f.playing == .copy(current: false) { out.append(.useOriginal) }
        if f.making == .nothing && !f.failed && !f.replaying { out.append(.make) }
        return out
    }
}
