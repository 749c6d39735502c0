// Software decoding that keeps up, and says when it cannot. Pure: the decoder
// thread measures, these decide.
//   - Frame threads follow the load: a decoder that takes most of a frame's duration per frame
//     gets more threads (up to the cores), and gives them back once it is far ahead again, so a
//     clip that keeps up costs what it always cost.
//   - A decoder still behind leaves out the frames that would reach the screen late (those no
//     other frame refers to), so the video keeps its speed; the frames the screen never shows
//     are counted as dropped.
//   - Status says so: the rate reached against the clip's, with a reason.

public enum DecodeThreads {
    /// Busy share of a frame's duration above which the decoder is taken to fall behind.
    public static let behindShare = 0.85
    /// Busy share below which it is far ahead (with the threads it has now).
    public static let aheadShare = 0.35

    /// The frame threads to decode with next. `busy`: the decoder's wall time per frame lately
    /// (excluding waits for room in the queue); `frame`: the clip's frame duration; `base`: what
    /// the renderer starts with; `cores`: the most there may be; `tooSlow`: the most threads this
    /// clip was already behind with (it never goes back to that many: the same loop would fall
    /// behind again). Up doubles; down halves, never below `base`. nil: keep `current`.
    /// `queued`: frames waiting in the queue now: a decoder that keeps its queue full is not
    /// behind, however long a frame takes it (a machine under load stretches the wall time).
    public static func next(current: Int, base: Int, busy: Nanos, frame: Nanos, cores: Int, tooSlow: Int = 0, queued: Int = 0) -> Int? {
        guard frame > 0, busy > 0 else { return nil }
        let share = Double(busy) / Double(frame)
        let most = max(base, cores)
        if share > behindShare && current < most && queued <= 1 { return min(most, max(current + 1, current * 2)) }
        // Halving doubles the time per frame at worst: only when that still leaves room.
        let down = max(base, current / 2)
        if share < aheadShare && current > base && down > tooSlow { return down }
        return nil
    }
}

public enum LateFrames {
    /// Whether a frame at `mediaTime` can still reach the screen in time, with the screen at
    /// `screen` (media time) and the decoder taking `busy` per frame with `queued` frames before
    /// it. nil screen: not playing yet (every frame is wanted).
    public static func wanted(_ mediaTime: Nanos, screen: Nanos?, busy: Nanos, queued: Int) -> Bool {
        guard let screen else { return true }
        // Its frame comes out after the decoder's next frame time; the queue ahead of it is no help.
        let (lead, o) = busy.multipliedReportingOverflow(by: Nanos(max(1, queued / 2 + 1)))
        return mediaTime >= screen + (o ? .max / 4 : lead)
    }

    /// Frames left out between two frames shown one after the other: the index gap within a
    /// pass, or the rest of the last pass plus the start of the next (`passFrames` when known).
    public static func between(previous: (pass: Int, index: Int), next: (pass: Int, index: Int), passFrames: Int?) -> Int {
        if next.pass == previous.pass { return max(0, next.index - previous.index - 1) }
        guard next.pass == previous.pass + 1 else { return 0 }
        let rest = passFrames.map { max(0, $0 - previous.index - 1) } ?? 0
        return rest + max(0, next.index)
    }
}

/// The rate frames reach the screen, over the last seconds: a ring of the times frames were
/// taken.
public struct ShownRate: Equatable, Sendable {
    private var times: [Nanos] = []
    private var next = 0
    public static let capacity = 64
    /// The window the rate is taken over.
    public static let window: Nanos = 2_000_000_000

    public init() {}

    public mutating func shown(at t: Nanos) {
        if times.count < Self.capacity { times.append(t) } else { times[next] = t }
        next = (next + 1) % Self.capacity
    }

    public mutating func reset() { self = ShownRate() }

    /// Frames per second over the window before `now`; nil with fewer than 8 frames in it, or
    /// when the last frame is older than the window (paused, hidden: not a rate).
    public func fps(now: Nanos) -> Double? {
        let recent = times.filter { now - $0 <= Self.window }.sorted()
        guard recent.count >= 8, let first = recent.first, let last = recent.last, last > first else { return nil }
        return Double(recent.count - 1) * 1e9 / Double(last - first)
    }
}

public enum DecodeHealth {
    /// What status says when frames come slower than the clip's rate because decoding is
    /// behind: `decoding behind: 19 of 30 fps` (nil: keeping up, or something else sets the
    /// pace: a cap, a paused or hidden output, a still).
    public static func behind(shownFps: Double?, clipFps: Double, decoderBehind: Bool, capped: Bool) -> String? {
        guard decoderBehind, !capped, clipFps > 0, let shown = shownFps, shown < clipFps * 0.9 else { return nil }
        return "decoding behind: \(Int(shown.rounded())) of \(Int(clipFps.rounded())) fps"
    }
}
