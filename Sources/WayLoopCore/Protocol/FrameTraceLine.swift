// The last two fields of a `--trace-frames` line, pure: which video the committed picture is of
// and its weight in a fade, so that a switch can be checked frame by frame (every commit one of
// the two videos, the mix rising, never anything else).

/// How a `--trace-frames` line names a video and a fade's weight.
public enum FrameTraceLine {
    /// The video's tag: FNV-1a 64 of its path, 16 hex digits (a path may hold spaces; the
    /// line's fields are separated by spaces).
    public static func videoTag(_ path: String) -> String {
        var h = FNV1a()
        h.add(path)
        return h.hex
    }

    /// The weight of the committed video's picture, 0 to 1, three decimals ("1" when it is
    /// alone on screen: no fade).
    public static func weight(_ w: Double) -> String {
        guard w < 1 else { return "1" }
        let t = Int((max(0, w) * 1000).rounded())
        return t >= 1000 ? "1" : "0." + String(repeating: "0", count: 3 - String(t).count) + String(t)
    }
}
