// The decoder thread's parts that hold state of their own beside reading and seams (Decoder)
// and the hardware path (HwDecoding): the pacer that follows the load with frame threads, and
// the watch on libavcodec's frame pool. Values on the decoder thread; no FFmpeg in them.
import WayLoopCore

/// Keeping up with software decoding (DecodeThreads, LateFrames): the frame threads now, a
/// change waiting for the next key frame, the wall time per frame lately (waits for room in the
/// queue left out), and the most threads the clip was behind with, held for a while.
struct ThreadPacer {
    var threadsNow: Int
    private(set) var pendingThreads: Int?
    /// The wall time per frame lately (a moving average).
    private(set) var busy: Nanos = 0
    private var framesSinceChange = 0
    /// The most frame threads this clip was behind with, and when (frames decoded then): held
    /// for `tooSlowFor` frames, so that a spell of load on the machine is not for ever.
    private var tooSlowThreads = 0
    private var tooSlowAt = 0
    private var framesDecoded = 0
    static let tooSlowFor = 900

    init(threads: Int) { threadsNow = threads }

    /// Behind: slower than a frame's duration per frame, and no thread left to add.
    func isBehind(frame: Nanos, queued: Int, base: Int, hardware: Bool, adaptive: Bool) -> Bool {
        busy > Nanos(Double(frame) * DecodeThreads.behindShare) && pendingThreads == nil && queued <= 1
            && (threadsNow >= max(base, Sys.cores) || hardware || !adaptive)
    }

    /// Notes one frame's wall time: whether decoding is behind with it (before any change is
    /// decided), and the frame threads to change to from the next key frame, if a change is
    /// decided now (software decoding that may adapt only).
    mutating func note(busy b: Nanos, frame: Nanos, queued: Int, base: Int, hardware: Bool, adaptive: Bool) -> (behind: Bool, change: Int?) {
        busy = busy == 0 ? b : (busy * 7 + b) / 8
        framesSinceChange += 1
        framesDecoded += 1
        if tooSlowThreads > 0 && framesDecoded - tooSlowAt > Self.tooSlowFor { tooSlowThreads = 0 }
        let behind = isBehind(frame: frame, queued: queued, base: base, hardware: hardware, adaptive: adaptive)
        return (behind, decide(frame: frame, queued: queued, base: base, hardware: hardware, adaptive: adaptive))
    }

    private mutating func decide(frame: Nanos, queued: Int, base: Int, hardware: Bool, adaptive: Bool) -> Int? {
        guard !hardware, adaptive, pendingThreads == nil, framesSinceChange >= 30 else { return nil }
        guard let n = DecodeThreads.next(current: threadsNow, base: base, busy: busy, frame: frame,
                                         cores: Sys.cores, tooSlow: tooSlowThreads, queued: queued) else { return nil }
        if n > threadsNow {
            tooSlowThreads = max(tooSlowThreads, threadsNow)
            tooSlowAt = framesDecoded
        }
        pendingThreads = n
        return n
    }

    /// The change decided, taken to be applied (nil: none waits).
    mutating func takePending() -> Int? {
        defer { pendingThreads = nil }
        return pendingThreads
    }

    /// The codec runs with the new threads: the pace is measured afresh.
    mutating func restarted() {
        busy = 0
        framesSinceChange = 0
    }
}

/// libavcodec's frame pool keeps every buffer it made, so a new one is memory for good: the
/// buffers handed out since the codec was opened (their data pointers), counted up to `tracked`
/// (a decoder whose frames are not pooled, rawvideo's pointing into each packet, would make a
/// new one every frame).
struct PoolWatch {
    static let tracked = 64
    private var buffers = Set<UInt>()
    /// When and in which pass the codec was (re)opened: its pool starts empty then.
    private var openedAt: Nanos = 0
    var codecOpenedInPass = 0

    enum Note: Equatable {
        case nothing
        /// Past `tracked`: no longer counted (said once).
        case stopsCounting
        /// A new buffer after the codec's first pass: how many now, and how long after it opened.
        case grew(count: Int, seconds: Double)
    }

    mutating func codecOpened(pass: Int, at now: Nanos) {
        buffers.removeAll()
        openedAt = now
        codecOpenedInPass = pass
    }

    mutating func note(_ data: UInt, pass: Int, now: Nanos) -> Note {
        guard buffers.count <= Self.tracked, buffers.insert(data).inserted else { return .nothing }
        if buffers.count > Self.tracked { return .stopsCounting }
        guard pass > codecOpenedInPass else { return .nothing }
        return .grew(count: buffers.count, seconds: Double((now - openedAt) / 100_000_000) / 10)
    }
}
