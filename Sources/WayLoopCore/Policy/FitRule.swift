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

/// When the making of a fitted copy waits: on battery (unless asked to go on), and while the
/// machine's CPUs are busy. It runs at idle priority anyway; waiting also spares the battery,
/// the heat and the memory bandwidth that idle priority does not.
public enum FitPace {
    public enum Hold: Equatable, Sendable {
        case onBattery
        /// Tasks waited for a CPU this share of the last 10 s (PSI `some avg10`, percent).
        case cpuBusy(Double)
    }

    /// CPU pressure at or above this (percent of the last 10 s with a task waiting) holds it.
    public static let busyPercent = 50.0

    /// Why it waits now (nil: it goes on).
    public static func hold(onBattery: Bool, allowedOnBattery: Bool, cpuSomeAvg10: Double?) -> Hold? {
        if onBattery && !allowedOnBattery { return .onBattery }
        if let p = cpuSomeAvg10, p >= busyPercent { return .cpuBusy(p) }
        return nil
    }

    /// `some avg10` from /proc/pressure/cpu's text (nil: not there or not readable).
    public static func someAvg10(_ text: String) -> Double? {
        ProcCPU.someField("avg10", of: text).flatMap { Double($0) }
    }
}

