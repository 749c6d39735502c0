// A frame-rate cap (`--max-fps`, `--battery-fps`): which frames an output commits, when it must
// wake for the next one, and what its decoder may leave undecoded. The cap never slows the
// video: the clip keeps its own timeline, and the cap only chooses frames on it. The timeline
// is cut into slots of 1/cap seconds; an output commits the first frame of each slot and none
// of the others, so the commits keep a steady cadence and the loop seam stays where the clip
// puts it. Pure.

public enum FrameCap {
    /// The accepted values, in the words of every error about one.
    public static let expected = "a number of frames per second from 1 to 1000, or 0 for no cap"
    public static let range: ClosedRange<Double> = 1...1000

    /// Parses a cap: a number in `range`, or 0 / "off" (no cap; it overrides a cap set below).
    public static func parse(_ s: String) -> Double? {
        if s.lowercased() == "off" { return 0 }
        guard let v = Double(s), v.isFinite else { return nil }
        return v == 0 || range.contains(v) ? v : nil
    }

    /// A cap as text: `30`, `23.976`, `0`.
    public static func text(_ v: Double) -> String {
        v == v.rounded() ? String(Int(v)) : String(v)
    }

    /// The cap an output draws at (nil: none): `--max-fps`, lowered to `--battery-fps` while on
    /// battery. 0 means no cap for either.
    /// (Asked several times a pass per output: no allocation.)
    public static func effective(maxFps: Double, batteryFps: Double, onBattery: Bool) -> Double? {
        let always = maxFps > 0 ? maxFps : .infinity, battery = onBattery && batteryFps > 0 ? batteryFps : .infinity
        let cap = min(always, battery)
        return cap.isFinite ? cap : nil
    }

    /// A frame that starts this close before a slot's start counts as the slot's own (the
    /// frames' times are whole nanoseconds: 1/60 s is not).
    static let tolerance: Nanos = 500_000

    /// The slot a frame starting at `mediaTime` falls in, under a cap of `fps`.
    public static func slot(_ mediaTime: Nanos, fps: Double) -> Int64 {
        Int64((Double(mediaTime + tolerance) * fps / 1e9).rounded(.down))
    }

    /// When slot `n` starts, on the media timeline.
    public static func start(ofSlot n: Int64, fps: Double) -> Nanos {
        Nanos((Double(n) * 1e9 / fps).rounded(.up)) - tolerance
    }

    /// Whether an output under `cap` should commit a frame starting at `mediaTime`, having last
    /// committed in `shownSlot` (nil: nothing yet, or drawn uncapped).
    public static func isNew(mediaTime: Nanos, shownSlot: Int64?, cap: Double?) -> Bool {
        guard let cap, let shownSlot else { return true }
        return slot(mediaTime, fps: cap) != shownSlot
    }

    /// The media time before which an output under `cap` has nothing new to commit (nil: no cap).
    public static func nextStart(shownSlot: Int64?, cap: Double?) -> Nanos? {
        guard let cap, let shownSlot else { return nil }
        return start(ofSlot: shownSlot + 1, fps: cap)
    }

    /// The cap a clip's decoder may skip frames for (nil: decode every frame), given the caps
    /// of the outputs that show it (nil: one without) and the clip's rate: when every output is
    /// capped below the clip's rate. The decoder then decodes, of the frames no output commits
    /// (`wanted`), only what other frames need: an intra-only codec (MJPEG, ProRes) skips them
    /// whole, others leave out those that are not references (`AVDISCARD_NONREF`, set packet
    /// by packet: H.264 and HEVC's non-reference B-frames). The frames the outputs commit are
    /// always decoded, so the cadence stays exact. A clip held whole in the loop cache decodes
    /// its one pass in full (the decoder's rule).
    public static func skipCap(caps: [Double?], clipFps: Double?) -> Double? {
        guard let clipFps, clipFps > 0, let cap = clipCap(caps) else { return nil }
        return cap < clipFps * 0.99 ? cap : nil
    }

    /// Whether an output under `cap` commits the frame at `mediaTime`, that follows the one
    /// before it by `frameDuration`: it is the first frame of its slot.
    public static func wanted(_ mediaTime: Nanos, frameDuration: Nanos, cap: Double) -> Bool {
        slot(mediaTime, fps: cap) != slot(mediaTime - frameDuration, fps: cap)
    }

    /// The highest cap of a clip's outputs (nil: some output has none, or it has no output):
    /// the clip's frames past it are skipped on purpose, not dropped for being late.
    public static func clipCap(_ caps: [Double?]) -> Double? {
        guard !caps.isEmpty, caps.allSatisfy({ $0 != nil }) else { return nil }
        return caps.compactMap { $0 }.max()
    }
}
