/// What to give back under memory pressure (an asset cache cleared on a memory warning), in the
/// order that costs the picture least: a video nobody sees is released now (decoder and frames;
/// it restarts when seen again), a video on screen that replays its loop cache gives the cache
/// up at its next loop (decoding every pass again, without a gap); the heap is trimmed after.
/// At most once per `minInterval`: a pressure that lasts does not thrash.
public enum PressurePlan {
    public struct Clip: Equatable, Sendable {
        /// `hidden`: no output shows it (none draws it, or each one that does is covered or not
        /// presented); `ready`: it has opened (one still opening is left alone).
        public var hidden: Bool, released: Bool, replaying: Bool
        /// Kept ready for a switch back (`--keep-recent`): the first to go.
        public var recent: Bool
        public var ready: Bool
        public init(hidden: Bool, released: Bool, replaying: Bool, recent: Bool = false, ready: Bool = true) {
            self.hidden = hidden
            self.released = released
            self.replaying = replaying
            self.recent = recent
            self.ready = ready
        }
    }
    /// forget: a recent video is stopped and forgotten (switching back opens it again).
    public enum Action: Equatable, Sendable { case forget, release, giveUpCache, keep }

    public static let minInterval: Int64 = 10_000_000_000

    public static func actions(_ clips: [Clip]) -> [Action] {
        clips.map { c in
            if !c.ready { return .keep }
            if c.recent { return .forget }
            if c.released { return .keep }
            if c.hidden { return .release }
            return c.replaying ? .giveUpCache : .keep
        }
    }
}
