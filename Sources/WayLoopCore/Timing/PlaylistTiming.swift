// When a playlist switches, pure: on an interval (wall time since its video was
// first on screen), or after --loops passes (on the frame boundary: the switch is due when the
// next queued frame would start a pass beyond the count, and that frame's time has come); and
// when the next video should be opened ahead, so that its first frame is ready at the switch.

public enum PlaylistTiming {
    /// Open the next video this long before an interval ends.
    public static let preloadLead = 5.0
    /// A still picture (one frame: no pass ever ends) counts a pass as this long.
    public static let stillPass = 5.0

    public struct Decision: Equatable, Sendable {
        /// Switch now (on this frame).
        public var due: Bool
        /// Have the next video open and decoded ahead.
        public var preload: Bool
        public init(due: Bool, preload: Bool) {
            self.due = due
            self.preload = preload
        }
    }

    /// `elapsed`: seconds since the current video was first on screen; `passes`: passes it has
    /// completed since then (the pass of the frame on screen less the one it started in);
    /// `nextStartsPass`: the next queued frame belongs to pass `passes + 1` or later (relative),
    /// nil when none is queued; `nextIsDue`: that frame's time has come. `loops` nil with no
    /// interval: it loops for ever (nothing to decide). `still`: the video is one frame.
    public static func decide(interval: Double?, loops: Int?, elapsed: Double, passes: Int,
                              nextPass: Int?, nextIsDue: Bool, still: Bool = false) -> Decision {
        if let interval {
            return Decision(due: elapsed >= interval, preload: interval - elapsed <= preloadLead)
        }
        guard let loops, loops > 0 else { return Decision(due: false, preload: false) }
        if still {
            let length = Double(loops) * stillPass
            return Decision(due: elapsed >= length, preload: length - elapsed <= preloadLead)
        }
        let due = nextIsDue && (nextPass.map { $0 >= loops } ?? false)
        return Decision(due: due, preload: passes >= loops - 1)
    }
}
