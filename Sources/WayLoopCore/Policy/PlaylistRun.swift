// One playlist being played: the outputs whose settings name the same playlist (and the same
// order, interval and loops) share one run: one cursor, one decoder, switching together. The
// order is the pure `Playlist`; `advance` is the once-per-pass decision of when to open the next
// video ahead and when to switch (PlaylistTiming), on what the shell saw of the video on screen.
// Main thread only.

public final class PlaylistRun {
    public struct Key: Hashable, Sendable {
        public var source: String
        public var shuffle: Bool
        public var interval: Double?
        public var loops: Int?
        public init(source: String, shuffle: Bool, interval: Double?, loops: Int?) {
            self.source = source
            self.shuffle = shuffle
            self.interval = interval
            self.loops = loops
        }
    }
    public let key: Key
    public var playlist: Playlist
    /// The pass the current video was in when it came on screen.
    public private(set) var startPass = 0
    /// Seconds the current video has been seen (an interval counts only those: a covered or
    /// paused wallpaper does not switch, and opens nothing), and when that was last added to
    /// (nil: the current video is not on screen yet; its clock starts when it is).
    public private(set) var seen = 0.0
    public private(set) var lastSeenTick: Nanos?
    /// The next video, opened ahead of the switch (nil: not yet due, or nothing else to play).
    public var preload: String?
    /// Items already reported as skipped (one line each, until the list changes).
    public var skipped: Set<String> = []
    /// How often the cursor moved (the state file is saved again when it did).
    public private(set) var moves = 0

    /// Where this run is, for the state file (nil: nothing plays).
    public var saved: SavedPlaylist? {
        playlist.current.map { SavedPlaylist(key: key, current: $0, round: playlist.restOfRound) }
    }

    public init(key: Key, items: [String], seed: UInt64) {
        self.key = key
        var seed = seed
        for b in key.source.utf8 { seed = (seed ^ UInt64(b)) &* 0x100_0000_01b3 }
        playlist = Playlist(items: items, shuffle: key.shuffle, seed: seed)
    }

    /// Passes of each video when no interval is set: once each with several, for ever with one.
    public var loopsPerVideo: Int? { key.loops ?? (playlist.count > 1 ? 1 : nil) }

    /// Seconds to the next switch on an interval (nil: no interval, or not on screen yet).
    public var remaining: Double? {
        guard let interval = key.interval, lastSeenTick != nil else { return nil }
        return max(0, interval - seen)
    }

    /// A new video is on screen (or the clock starts again): nothing seen of it yet.
    public func restart(at now: Nanos, pass: Int) {
        startPass = pass
        seen = 0
        lastSeenTick = now
    }

    /// Goes on from `playing` (in `old`'s list) and keeps how long it has been seen.
    public func carry(from old: PlaylistRun, playing: String) {
        if !key.shuffle {
            for _ in 0..<playlist.count where playlist.current != playing { playlist.next() }
        }
        if playlist.current == playing {
            startPass = old.startPass
            seen = old.seen
            lastSeenTick = old.lastSeenTick
        }
    }

    /// The cursor moved: the new video's clock starts when it is on screen, and what was opened
    /// ahead for the old position is not needed any more.
    public func moved() {
        moves += 1
        lastSeenTick = nil
        preload = nil
    }

    /// Steps the cursor one video on (`forward`) or back, past videos that failed.
    public func step(forward: Bool, failed: (String) -> Bool) {
        if forward {
            playlist.nextPlayable(failed)
        } else {
            var steps = 0
            repeat { playlist.prev(); steps += 1 } while playlist.current.map(failed) == true && steps < playlist.count
        }
        moved()
    }

    /// When the loop must wake for a still picture (nothing more is decoded or drawn): the end
    /// of its interval, or of its passes (nil: not on screen, or it loops for ever).
    public func stillDeadline(now: Nanos) -> Nanos? {
        guard lastSeenTick != nil else { return nil }
        let length = key.interval ?? loopsPerVideo.map { Double($0) * PlaylistTiming.stillPass }
        return length.map { now + Nanos(max(0, $0 - seen) * 1e9) }
    }

    /// What the shell saw of the current video this pass.
    public struct Seen: Equatable, Sendable {
        /// Some output of the run draws it; some such output is neither paused nor unpresented.
        public var drawn: Bool
        public var watched: Bool
        /// Its decoder: ready, the pass of the frame on screen (nil: none yet), the pass of the
        /// next queued frame, whether that frame's time has come, and whether it is one frame.
        public var ready: Bool
        public var framePass: Int?
        public var nextPass: Int?
        public var nextIsDue: Bool
        public var still: Bool
        public init(drawn: Bool, watched: Bool, ready: Bool, framePass: Int?, nextPass: Int? = nil, nextIsDue: Bool = false,
                    still: Bool = false) {
            self.drawn = drawn
            self.watched = watched
            self.ready = ready
            self.framePass = framePass
            self.nextPass = nextPass
            self.nextIsDue = nextIsDue
            self.still = still
        }
    }

    public struct Advance: Equatable, Sendable {
        /// The cursor moved: the outputs' targets change.
        public var moved = false
        /// What is opened ahead changed: the decoders change.
        public var preloadChanged = false
        /// A video that failed was skipped (said once).
        public var skipped: String?
        public init(moved: Bool = false, preloadChanged: Bool = false, skipped: String? = nil) {
            self.moved = moved
            self.preloadChanged = preloadChanged
            self.skipped = skipped
        }
    }

    /// Once per pass of the loop, before drawing: starts the clock when the video is on screen,
    /// opens the next video ahead, and switches when the interval is over or the next frame would
    /// start a pass beyond --loops (on a frame boundary: that frame is never shown). `seen`: nil
    /// when the current video is not open; `ready` says whether a video is ready to switch to.
    public func advance(now: Nanos, seen s: Seen?, failed: (String) -> Bool, ready: (String) -> Bool) -> Advance {
        var out = Advance()
        guard let current = playlist.current else { return out }
        if failed(current) {
            // Its error line was said when it failed; the next playable one takes over.
            if let next = playlist.upcomingPlayable(failed), next != current {
                if skipped.insert(current).inserted { out.skipped = current }
                playlist.nextPlayable(failed)
                moved()
                out.moved = true
            }
            return out
        }
        guard let s, s.ready, let pass = s.framePass, s.drawn else { return out }
        if lastSeenTick == nil || pass < startPass { restart(at: now, pass: pass) }
        if s.watched { seen += Double(now - (lastSeenTick ?? now)) / 1e9 }
        lastSeenTick = now
        let upcoming = playlist.upcomingPlayable(failed)
        let decision = PlaylistTiming.decide(interval: key.interval, loops: loopsPerVideo, elapsed: seen, passes: pass - startPass,
                                             nextPass: s.nextPass.map { $0 - startPass }, nextIsDue: s.nextIsDue, still: s.still)
        let other = upcoming.flatMap { $0 == current ? nil : $0 }
        if preload != (decision.preload ? other : nil) {
            preload = decision.preload ? other : nil
            out.preloadChanged = true
        }
        guard decision.due else { return out }
        guard let next = other else {
            // Nothing else can play (or the next entry is this same file again): the video plays
            // on, the cursor moves (a list with a file twice must not stop there), the clock
            // starts again.
            if upcoming != nil && playlist.count > 1 { playlist.nextPlayable(failed) }
            restart(at: now, pass: pass)
            return out
        }
        // Not open yet (a preload only just asked for): the old video plays on meanwhile.
        guard ready(next) else { return out }
        playlist.nextPlayable(failed)
        moved()
        out.moved = true
        return out
    }

    /// Nothing of the playlist can ever be shown: every video of every run of it failed.
    public static func allFailed(_ source: String, runs: [PlaylistRun], failed: (String) -> Bool) -> Bool {
        let mine = runs.filter { $0.key.source == source }
        return !mine.isEmpty && mine.allSatisfy { $0.playlist.items.allSatisfy(failed) }
    }
}
