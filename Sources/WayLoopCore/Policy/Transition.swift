// How an output goes from one video to the next: `none` switches on a frame
// boundary; `fade:DURATION` plays both videos for DURATION and blends the new one in (GL: in
// the shader pass; shm: a blend pass over the two converted pictures). Pure.

/// How an output goes from one video to the next (`--transition`).
public enum Transition: Equatable, Sendable, CustomStringConvertible {
    /// Switch on a frame boundary, with no blend.
    case none
    /// A crossfade of this many seconds.
    case fade(Double)

    /// What a switch does when nothing says otherwise.
    public static let standard = Transition.fade(0.5)
    /// The longest fade: both videos decode for its whole length.
    public static let longestFade = 60.0
    /// What a `--transition` value must be, as error messages say it.
    public static let expected = "none, fade or fade:DURATION (fade:0.5s, fade:2s; at most 60s)"

    /// `none`, `fade` (0.5 s) or `fade:DURATION`.
    public init?(parsing s: String) {
        if s == "none" {
            self = .none
            return
        }
        if s == "fade" {
            self = .standard
            return
        }
        guard s.hasPrefix("fade:"), let d = DurationText.parse(String(s.dropFirst(5))), d <= Self.longestFade else { return nil }
        self = .fade(d)
    }

    /// Seconds the transition lasts (0: none).
    public var seconds: Double {
        if case .fade(let d) = self { return d }
        return 0
    }

    public var description: String {
        switch self {
        case .none: return "none"
        case .fade(let d): return "fade:\(DurationText.format(d))"
        }
    }

    /// A fade redraws at most this often (and at every new frame of the new video): 30 steps
    /// a second look smooth, and a redraw at every 60 Hz callback would double the blending.
    public static let fadeStep: Int64 = 1_000_000_000 / 30

    /// The new picture's weight `elapsed` seconds into a fade of `duration` seconds: 0 at the
    /// start, 1 at the end, eased (smoothstep) so that neither end jumps. Pure, for the sinks.
    public static func weight(elapsed: Double, duration: Double) -> Double {
        guard duration > 0 else { return 1 }
        let t = min(1, max(0, elapsed / duration))
        return t * t * (3 - 2 * t)
    }
}
