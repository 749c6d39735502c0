// Frame timing: stamping decoded frames across loop passes, and picking the frame that is due.
// Pure arithmetic on nanoseconds; the shell reads CLOCK_MONOTONIC and feeds it in (tests inject it).

/// Nanoseconds, either on CLOCK_MONOTONIC (wall) or on the playback timeline (media time).
public typealias Nanos = Int64

public extension Nanos {
    static let nanosPerSecond: Nanos = 1_000_000_000
}

/// A decoded frame with its place on the playback timeline, which runs on forever across loops.
public struct StampedFrame<Payload> {
    public var payload: Payload
    /// When this frame starts, on the endless timeline (pass 0 starts at 0).
    public var mediaTime: Nanos
    /// How long it is shown: the gap to the next frame's PTS, or, for the last frame of a
    /// pass, its own duration from the stream.
    public var duration: Nanos
    /// Which pass through the clip (0 for the first).
    public var pass: Int
    /// The frame's index within its pass.
    public var index: Int

    public init(payload: Payload, mediaTime: Nanos, duration: Nanos, pass: Int, index: Int) {
        self.payload = payload
        self.mediaTime = mediaTime
        self.duration = duration
        self.pass = pass
        self.index = index
    }
}

/// Turns the PTS of decoded frames, pass after pass, into one gapless timeline.
///
/// The loop length comes from the video stream alone: from the first frame's PTS to the end of
/// the last frame (its PTS plus its duration). A non-zero start PTS is honoured; audio is never
/// consulted. One frame is held back so that each frame's duration can be taken from the next
/// frame's PTS (variable frame rate, reordered B-frames come out in PTS order from the decoder).
public struct LoopStamper<Payload> {
    public private(set) var loopLength: Nanos?
    public private(set) var pass = 0
    private var passOffset: Nanos = 0
    private var firstPts: Nanos?
    private var held: (payload: Payload, pts: Nanos, ownDuration: Nanos, index: Int)?
    private var indexInPass = 0

    public init() {}

    /// Feeds the next decoded frame. `pts` nil means the stream gave none (the frame follows the
    /// previous one by `ownDuration`). Returns the previous frame, now that its duration is known.
    /// `index`: the frame's place among the pass's source frames when the decoder left some out
    /// (PassFrames; nil: the count of frames pushed).
    public mutating func push(_ payload: Payload, pts: Nanos?, ownDuration: Nanos, index: Int? = nil) -> StampedFrame<Payload>? {
        let own = max(ownDuration, 1)
        var p: Nanos
        if let pts {
            p = pts
        } else if let h = held {
            p = h.pts + h.ownDuration
        } else {
            p = firstPts ?? 0
        }
        if firstPts == nil { firstPts = p }
        // PTS must increase within a pass; a broken stream that repeats or goes back is clamped.
        if let h = held, p <= h.pts { p = h.pts + 1 }
        if pass > 0, held == nil, let f = firstPts, p < f { p = f }
        let out = held.map { stamp($0, duration: p - $0.pts) }
        if let index, index >= indexInPass { indexInPass = index }
        held = (payload, p, own, indexInPass)
        indexInPass += 1
        return out
    }

    /// Where a frame of this pass with `pts` will fall on the endless timeline (nil before the
    /// first frame: its PTS starts the timeline).
    public func mediaTime(ofPts pts: Nanos) -> Nanos? { firstPts.map { passOffset + pts - $0 } }

    /// The end of a pass: returns the held last frame (shown for its own duration, or until
    /// `end`, the end of the pass's last source frame when the decoder left that one out) and
    /// starts the next pass right after it. The first call fixes `loopLength`.
    public mutating func wrap(end: Nanos? = nil) -> StampedFrame<Payload>? {
        guard let h = held, let first = firstPts else { return nil }
        let own = end.map { max($0 - h.pts, 1) } ?? h.ownDuration
        let last = stamp(h, duration: own)
        let length = h.pts + own - first
        if loopLength == nil { loopLength = length }
        passOffset += length
        pass += 1
        held = nil
        indexInPass = 0
        return last
    }

    /// Goes on at the start of pass `k` (k ≥ the current pass): the decoder decodes again after a
    /// replayed loop cache was dropped, and its frames must follow the replayed passes.
    public mutating func skip(toPass k: Int) {
        guard let length = loopLength, k > pass, held == nil else { return }
        passOffset += Nanos(k - pass) * length
        pass = k
        indexInPass = 0
    }

    /// At the start of a pass (nothing held), the next frame's PTS starts the pass, whatever the
    /// last pass's first was: the decoder reads another file of the same clip from here (a
    /// fitted copy, whose timestamps may start elsewhere).
    public mutating func newSource() {
        guard held == nil else { return }
        firstPts = nil
    }

    /// Gives up the held frame (the decoder is stopping).
    public mutating func discardHeld() -> Payload? {
        defer { held = nil }
        return held?.payload
    }

    private func stamp(_ h: (payload: Payload, pts: Nanos, ownDuration: Nanos, index: Int),
                       duration: Nanos) -> StampedFrame<Payload> {
        StampedFrame(payload: h.payload, mediaTime: passOffset + h.pts - (firstPts ?? 0),
                     duration: duration, pass: pass, index: h.index)
    }
}

/// Maps the wall clock to the media timeline.
public struct PlaybackClock: Equatable, Sendable {
    /// The wall time at which media time 0 is (or would have been) on screen.
    public private(set) var origin: Nanos?

    public init() {}

    public var isRunning: Bool { origin != nil }

    /// Starts the clock so that `mediaTime` is on screen at `now`.
    public mutating func start(now: Nanos, at mediaTime: Nanos) { origin = now - mediaTime }

    public func mediaTime(at now: Nanos) -> Nanos? { origin.map { now - $0 } }

    /// The wall time at which `mediaTime` is due.
    public func wallTime(of mediaTime: Nanos) -> Nanos? { origin.map { $0 + mediaTime } }
}

public enum FramePick {
    /// How many frames at the head of a queue (media times ascending) are due at `mediaTime`.
    /// The last of them is the one to show; any before it are late and are dropped.
    @inlinable
    public static func dueCount<C: Collection>(queued times: C, at mediaTime: Nanos) -> Int
    where C.Element == Nanos {
        var n = 0
        for t in times {
            guard t <= mediaTime else { break }
            n += 1
        }
        return n
    }
}

public extension PlaybackClock {
    /// Longest a frame may overstay before the clock is taken to have stopped (output hidden,
    /// paused, machine suspended): playback then continues from where it stopped instead of
    /// racing through every frame it missed.
    static let stallTolerance: Nanos = 250_000_000

    /// Re-anchors the clock when the frame on screen (`mediaTime`, `duration`) has overstayed
    /// by more than `stallTolerance` at `now`, so that the next frame is due now. True if it did.
    mutating func resumeIfStalled(now: Nanos, shown mediaTime: Nanos, duration: Nanos) -> Bool {
        guard let t = self.mediaTime(at: now), t > mediaTime + duration + Self.stallTolerance else { return false }
        start(now: now, at: mediaTime + duration)
        return true
    }
}

/// A pass's source frames as its packets tell them, for a decoder that leaves some out
/// (`--max-fps`): each decoded frame's index among all of them, and where the pass ends, so that
/// frame indices and the loop length stay those of the clip. Packets come in decode order and
/// frames in presentation order; only the packets not yet passed by a frame are kept (a
/// reordering window), so it stays small whatever the pass's length.
public struct PassFrames: Sendable {
    /// PTS of packets no frame has passed yet, ascending.
    private var pending: [Nanos] = []
    /// Packets before every pending one.
    private var before = 0
    /// The end of the latest source frame (its PTS plus its duration).
    public private(set) var end: Nanos?
    /// Some packet of this pass was left out (or may have been).
    public private(set) var skipped = false

    public init() {}

    public mutating func packet(pts: Nanos, duration: Nanos, skipped s: Bool) {
        var i = pending.count
        while i > 0 && pending[i - 1] > pts { i -= 1 }
        pending.insert(pts, at: i)
        end = max(end ?? .min, pts + max(duration, 1))
        if s { skipped = true }
    }

    /// The index of the decoded frame with `pts` among the pass's source frames.
    public mutating func index(ofFrame pts: Nanos) -> Int {
        var i = 0
        while i < pending.count && pending[i] < pts { i += 1 }
        let index = before + i
        let passed = i < pending.count && pending[i] == pts ? i + 1 : i
        pending.removeFirst(passed)
        before += passed
        return index
    }

    public mutating func reset() { self = PassFrames() }
}
