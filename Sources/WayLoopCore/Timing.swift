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
    public mutating func push(_ payload: Payload, pts: Nanos?, ownDuration: Nanos) -> StampedFrame<Payload>? {
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
        held = (payload, p, own, indexInPass)
        indexInPass += 1
        return out
    }

    /// The end of a pass: returns the held last frame (shown for its own duration) and starts the
    /// next pass right after it. The first call fixes `loopLength`.
    public mutating func wrap() -> StampedFrame<Payload>? {
        guard let h = held, let first = firstPts else { return nil }
        let last = stamp(h, duration: h.ownDuration)
        let length = h.pts + h.ownDuration - first
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
