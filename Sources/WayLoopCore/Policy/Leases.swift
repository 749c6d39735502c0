// Frames with lifetimes, the decisions: where a decoded frame lives (memory of its own, or a
// surface of the decoder's fixed pool that it pins), how the queue between the decoder and the
// screen budgets each kind, and when a hardware path hands its surfaces on in place instead of
// copying them back. Pure: the channel, the decoder and the sinks ask.

/// Where a decoded frame's pixels live, as the queue budgets them.
public enum FrameStorageKind: String, Sendable, Equatable {
    /// Memory of its own (a software frame, or one copied back): budgeted in bytes
    /// (QueueBudget). A sink copies it into its buffers, so nothing shows it once presented.
    case cpu
    /// A surface of the decoder's fixed pool, handed on in place (not copied back): budgeted
    /// in surfaces (SurfaceBudget). What shows it keeps its lease until the compositor let go.
    case surface
}

/// The queue's budget for frames that pin a pool surface. libavcodec's hardware pool has a
/// fixed size (`HwdecPool.size`): every surface WayLoop holds (queued, on screen, kept by a
/// sink until the compositor released it) is one libavcodec cannot decode into. The decoder
/// waits before it queues one more past `limit`, so the pool never runs dry; the surfaces come
/// back as leases end.
public enum SurfaceBudget {
    /// Surfaces shown at once that the pool is sized for: the one on screen and three more a
    /// compositor may still hold (a buffer being scanned out, one queued, one released late).
    /// More (several outputs each holding old frames) only makes the decoder wait, never dry.
    public static let leasedMax = 4

    /// The surfaces WayLoop may hold, queued and leased together, for a queue of `capacity`:
    /// what `HwdecPool.extraFrames` asked the pool for, less its spare (the frame being
    /// decoded and the one the stamper holds back).
    public static func limit(capacity: Int) -> Int {
        HwdecPool.outstandingLimit(extra: HwdecPool.extraFrames(copying: false, queued: capacity, held: leasedMax))
    }

    /// One more surface may be queued: the queue has room, and the surfaces out of the pool
    /// (queued and leased) stay within `limit`.
    public static func admits(queued: Int, leased: Int, capacity: Int, limit: Int) -> Bool {
        queued < capacity && queued + leased < limit
    }
}

/// How a hardware path hands its frames on.
public enum FrameDelivery: Equatable, Sendable {
    /// Copied back into memory of WayLoop's own (every path today): the surface goes back to
    /// the pool at once, and the frame is a `.cpu` one.
    case copyBack
    /// Handed on in place, as the named place (`dmabuf`; the fake's in-memory surfaces:
    /// `cpu`): each frame pins its surface until its lease ends.
    case inPlace(String)

    /// In place when the path can export into a place the render device takes (it says so
    /// once it is up: before, `deviceIsFinal` is false and frames are copied back, as they
    /// must be for a device that may not take them); copied back otherwise.
    public static func choose(exportsTo place: String?, deviceTakes: [String], deviceIsFinal: Bool) -> FrameDelivery {
        guard let place, deviceIsFinal || place == "cpu", deviceTakes.contains(place) else { return .copyBack }
        return .inPlace(place)
    }

    public var storage: FrameStorageKind { self == .copyBack ? .cpu : .surface }
}

/// The loop cache replays the first pass from memory by keeping a reference to every frame:
/// a surface kept that way is one the pool never gets back, so only frames in memory of their
/// own are kept.
public enum LoopCacheRule {
    public static func keeps(_ kind: FrameStorageKind) -> Bool { kind == .cpu }
}

/// What the fake hardware source's surface pool saw (WAYLOOP_FAKE_HWDEC with `+export`): the
/// proof that no surface is decoded into while a buffer still shows it, and that the pool never
/// ran dry. Real pools are libavcodec's: only the channel's own counts exist for them.
public struct SurfaceStats: Equatable, Sendable {
    /// Surfaces in the pool WayLoop's frames may take (the fake's; libavcodec's extra ones).
    public var pool: Int
    /// The channel's budget of surfaces queued and leased (SurfaceBudget.limit).
    public var limit: Int
    /// Surfaces out of the pool now.
    public var out: Int
    /// Surfaces out of the pool at most since the clip opened.
    public var mostOut: Int
    /// Surfaces handed on so far.
    public var taken: Int
    /// Times the decoder found no free surface (the pool ran dry).
    public var dry: Int
    /// Times a surface was decoded into while a committed buffer still showed it.
    public var reusedWhileShown: Int
    /// Surfaces shown by committed buffers at once, at most (0: no sink ever held one).
    public var mostShown: Int

    /// The counts as given (a pool of `pool` surfaces under a budget of `limit`).
    public init(pool: Int, limit: Int, out: Int = 0, mostOut: Int = 0, taken: Int = 0, dry: Int = 0, reusedWhileShown: Int = 0,
                mostShown: Int = 0) {
        self.pool = pool
        self.limit = limit
        self.out = out
        self.mostOut = mostOut
        self.taken = taken
        self.dry = dry
        self.reusedWhileShown = reusedWhileShown
        self.mostShown = mostShown
    }

    package init?(json: JSON) {
        guard let pool = json["pool"]?.number, let limit = json["limit"]?.number else { return nil }
        let n = { (k: String) in Int(json[k]?.number ?? 0) }
        self.init(pool: Int(pool), limit: Int(limit), out: n("out"), mostOut: n("most_out"), taken: n("taken"), dry: n("dry"),
                  reusedWhileShown: n("reused_while_shown"), mostShown: n("most_shown"))
    }

    package var json: JSON {
        .object([("pool", .number(Double(pool))), ("limit", .number(Double(limit))), ("out", .number(Double(out))),
                 ("most_out", .number(Double(mostOut))), ("taken", .number(Double(taken))), ("dry", .number(Double(dry))),
                 ("reused_while_shown", .number(Double(reusedWhileShown))), ("most_shown", .number(Double(mostShown)))])
    }
}

/// The fake source's pool of surfaces, as a value: which are free (the last given back goes
/// out first, as libavcodec's buffer pools hand them out: a surface given back too early is
/// decoded into at once), which are out, and how many committed buffers show each. The Kit's
/// ledger holds one behind a lock.
public struct SurfacePool: Equatable, Sendable {
    private var free: [Int]
    private var shownBy: [Int]
    private var outCount = 0
    public private(set) var stats: SurfaceStats

    public init(size: Int, limit: Int) {
        free = Array((0..<max(0, size)).reversed())
        shownBy = Array(repeating: 0, count: max(0, size))
        stats = SurfaceStats(pool: size, limit: limit)
    }

    /// A free surface for the next decoded frame (nil: the pool ran dry). Counts a reuse when a
    /// committed buffer still shows the one handed out.
    public mutating func take() -> Int? {
        guard !free.isEmpty else {
            stats.dry += 1
            return nil
        }
        let id = free.removeLast()
        if shownBy[id] > 0 { stats.reusedWhileShown += 1 }
        outCount += 1
        stats.taken += 1
        stats.out = outCount
        stats.mostOut = max(stats.mostOut, outCount)
        return id
    }

    /// The surface's last reference went: it is free again.
    public mutating func giveBack(_ id: Int) {
        guard id >= 0, id < shownBy.count, !free.contains(id) else { return }
        free.append(id)
        outCount -= 1
        stats.out = outCount
    }

    /// A committed buffer shows it (`by` +1), or no longer does (-1: released, or replaced by a swap).
    public mutating func shown(_ id: Int, by delta: Int) {
        guard id >= 0, id < shownBy.count else { return }
        shownBy[id] = max(0, shownBy[id] + delta)
        stats.mostShown = max(stats.mostShown, shownBy.filter { $0 > 0 }.count)
    }
}
