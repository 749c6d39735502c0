// Frames with lifetimes. A decoded frame the main thread takes is a FrameLease: held by the
// clip while it is current, by every Picture made of it, and by a sink until the compositor
// let go of what shows it; the frame goes back to its channel when the last holder lets go.
// A frame that pins a decoder surface (handed on in place) carries a SurfaceTag, given back to
// its pool once; the fake source's pool (SurfaceLedger) records what it saw (SurfaceStats).
import WayLoopCore

/// A decoded frame's pin on a surface of the decoder's pool: given back once, when the frame's
/// last reference goes (its channel recycles it). Any thread.
final class SurfaceTag: @unchecked Sendable {
    let id: Int
    /// The fake source's pool (nil: a real device's, which libavcodec's references keep).
    let ledger: SurfaceLedger?
    /// Guarded by the ledger's lock (a tag without one is never given back twice: one frame).
    fileprivate var givenBack = false

    init(id: Int, ledger: SurfaceLedger?) {
        self.id = id
        self.ledger = ledger
    }

    func giveBack() { ledger?.giveBack(self) }
    /// A committed buffer shows it (+1), or stopped showing it (-1).
    func shown(by delta: Int) { ledger?.shown(id, by: delta) }
}

/// The fake source's fixed pool of surfaces (WAYLOOP_FAKE_HWDEC's `+export`), behind a lock:
/// the decoder thread takes, the main thread gives back and marks what buffers show.
final class SurfaceLedger: @unchecked Sendable {
    private let lock = ConditionLock()
    private var pool: SurfacePool

    init(size: Int, limit: Int) { pool = SurfacePool(size: size, limit: limit) }

    /// A free surface (nil: the pool ran dry).
    func take() -> SurfaceTag? {
        lock.withLock { pool.take() }.map { SurfaceTag(id: $0, ledger: self) }
    }

    fileprivate func giveBack(_ tag: SurfaceTag) {
        lock.withLock {
            guard !tag.givenBack else { return }
            tag.givenBack = true
            pool.giveBack(tag.id)
        }
    }

    func shown(_ id: Int, by delta: Int) { lock.withLock { pool.shown(id, by: delta) } }
    var stats: SurfaceStats { lock.withLock { pool.stats } }
}

/// A frame the main thread took from its channel, shared by whatever shows it. Main thread only.
final class FrameLease {
    let frame: StampedFrame<FrameHandle>
    private let channel: FrameChannel

    init(_ frame: StampedFrame<FrameHandle>, channel: FrameChannel) {
        self.frame = frame
        self.channel = channel
    }

    deinit { channel.release(frame.payload) }

    var storage: FrameStorageKind { frame.payload.storage }
}

/// The leases what a sink committed keeps: surface frames only (a frame in memory of its own
/// was copied into the sink's buffer or texture, and nothing on screen refers to it). A sink
/// keeps them until the compositor released the buffer (shm), or until the swap that replaced
/// them (GL), then lets go. Main thread only.
struct ShownLeases {
    private(set) var leases: [FrameLease] = []

    mutating func hold(_ pictures: Picture?...) {
        for case let l? in pictures.map({ $0?.lease }) where l.storage == .surface {
            l.frame.payload.surface?.shown(by: 1)
            leases.append(l)
        }
    }

    mutating func letGo() {
        for l in leases { l.frame.payload.surface?.shown(by: -1) }
        leases.removeAll()
    }
}
