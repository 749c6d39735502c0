// When an output draws, and when the loop must wake for it: one pure decision that both the
// draw pass (tick) and the poll timeout use, so that they can never disagree (when they
// did, a surface marked for redraw before its first configure got a 0 ms timeout but no draw:
// a spin). An output draws only when its frame callback fired and a new frame is due: pacing
// follows the compositor, never a sleep.

public enum Schedule {
    /// What an output shows.
    public enum Content: Equatable, Sendable {
        /// No surface content yet (nothing ready).
        case nothing
        /// A solid fallback colour.
        case colour
        case video(Video)
    }

    /// The video's side, as the output sees it.
    public struct Video: Equatable, Sendable {
        /// Its decoder and frames were freed (nothing presented for a while): drawing restarts it.
        public var released: Bool
        /// A frame is on screen or about to be (`current`).
        public var hasFrame: Bool
        /// `current` differs from what this output last committed.
        public var frameIsNew: Bool
        /// When the next queued frame is due (nil: none queued; the decoder's wake-up comes).
        public var nextDue: Nanos?
        public init(released: Bool = false, hasFrame: Bool = true, frameIsNew: Bool = false, nextDue: Nanos? = nil) {
            self.released = released
            self.hasFrame = hasFrame
            self.frameIsNew = frameIsNew
            self.nextDue = nextDue
        }
    }

    public struct Output: Equatable, Sendable {
        /// The surface has its size and its sink has buffers of that size.
        public var configured: Bool
        /// Reconfigured, or other settings/video: draw even if paused or the frame is the same.
        public var needsRedraw: Bool
        /// A frame callback is pending; when it was requested.
        public var awaitingFrame: Bool
        public var frameRequestedAt: Nanos
        /// Already counted as hidden (its callbacks stopped): no more wake-ups to say so.
        public var hidden: Bool
        /// Paused by the user, a fullscreen window or the battery rule.
        public var paused: Bool
        /// The sink can draw now (shm: a buffer is free).
        public var sinkCanDraw: Bool
        public var content: Content
        public init(configured: Bool = true, needsRedraw: Bool = false, awaitingFrame: Bool = false, frameRequestedAt: Nanos = 0,
                    hidden: Bool = false, paused: Bool = false, sinkCanDraw: Bool = true, content: Content = .nothing) {
            self.configured = configured
            self.needsRedraw = needsRedraw
            self.awaitingFrame = awaitingFrame
            self.frameRequestedAt = frameRequestedAt
            self.hidden = hidden
            self.paused = paused
            self.sinkCanDraw = sinkCanDraw
            self.content = content
        }
    }

    /// After this long without a frame callback, an output counts as hidden (not presented).
    public static let hiddenAfter: Nanos = 1_000_000_000

    /// The output stopped being presented: a frame callback asked for at `requestedAt` has not
    /// come `hiddenAfter` later.
    public static func isHidden(awaitingFrame: Bool, requestedAt: Nanos, now: Nanos) -> Bool {
        awaitingFrame && now - requestedAt >= hiddenAfter
    }

    /// What the draw pass does with an output's video once the schedule lets it draw.
    public struct VideoStep: Equatable, Sendable {
        /// Start its released decoder again (from the start of the clip).
        public var restart: Bool
        /// Move to the frame due now (once per pass, however many outputs show it).
        public var advance: Bool

        public init(restart: Bool, advance: Bool) {
            self.restart = restart
            self.advance = advance
        }
    }

    /// A released video restarts and its clock advances while the output plays, or, paused,
    /// until it has a first frame to hold.
    public static func videoStep(released: Bool, paused: Bool, hasFrame: Bool) -> VideoStep {
        let moves = !paused || !hasFrame
        return VideoStep(restart: released && moves, advance: moves)
    }

    /// A commit is worth it: the surface needs a redraw (a configure, other settings), the
    /// frame is new (and worth it under the cap), or a fade's next step is due.
    public static func worthCommit(needsRedraw: Bool, frameIsNew: Bool, fadeStepDue: Bool) -> Bool {
        needsRedraw || frameIsNew || fadeStepDue
    }

    /// A fade goes on while the new picture is not whole yet, the output plays, and the old
    /// video still has frames (ready, not released); otherwise it ends at once and the new
    /// picture shows alone.
    public static func fadeGoesOn(weight: Double, paused: Bool, oldReady: Bool, oldReleased: Bool) -> Bool {
        weight < 1 && !paused && oldReady && !oldReleased
    }

    /// May the draw pass look at this output now (advance its video, commit if something changed)?
    public static func mayDraw(_ o: Output) -> Bool {
        guard o.configured, !o.awaitingFrame, o.sinkCanDraw, !o.paused || o.needsRedraw else { return false }
        return o.content != .nothing
    }

    /// Will the draw pass commit something if it runs now?
    public static func drawsNow(_ o: Output) -> Bool {
        guard mayDraw(o) else { return false }
        switch o.content {
        case .nothing: return false
        case .colour: return o.needsRedraw
        case .video(let v): return v.released || (v.hasFrame && (o.needsRedraw || v.frameIsNew))
        }
    }

    /// When the loop must wake for this output: now, a deadline, or nil (an event will come:
    /// a frame callback, a configure, a release, the decoder's wake-up).
    public static func wake(_ o: Output, now: Nanos) -> Nanos? {
        if o.awaitingFrame {
            // One wake-up to notice that the callbacks stopped (the output is hidden).
            return o.hidden ? nil : o.frameRequestedAt + hiddenAfter
        }
        if drawsNow(o) { return now }
        guard mayDraw(o), case .video(let v) = o.content else { return nil }
        // Paused: the frame stays; playing: the next frame's deadline.
        return o.paused ? nil : v.nextDue.map { max(now, $0) }
    }

    /// The poll timeout in milliseconds for a wake-up at `deadline` (-1: none), rounded up so
    /// that the loop never wakes just before a deadline and spins.
    public static func timeoutMs(until deadline: Nanos?, now: Nanos) -> Int32 {
        guard let deadline else { return -1 }
        let ms = (deadline - now + 999_999) / 1_000_000
        return Int32(clamping: max(0, ms))
    }
}
