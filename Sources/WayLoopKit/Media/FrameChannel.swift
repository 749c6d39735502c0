// Where a decoder thread meets the main thread: one bounded queue of decoded frames, a pool of
// recycled AVFrames, the decoder's status and a stop flag, all behind one lock, plus the shared
// wakeup eventfd the main loop polls. Stopping is set, wake, join, never a thread cancel: a
// cancelled decoder could die holding the lock or half an FFmpeg call.
import CFFmpeg
import WayLoopCore

/// A decoded picture (an owned, ref-counted AVFrame). Moves between threads only through a
/// FrameChannel; whoever holds it either hands it on or gives it back (the decoder `recycle`s,
/// the main thread `release`s what it took).
struct FrameHandle: @unchecked Sendable {
    let frame: UnsafeMutablePointer<AVFrame>
    /// Owned by the loop cache: replayed pass after pass, never recycled.
    var cached = false
    /// The decoder surface it pins, when a hardware path handed it on in place (nil: memory of
    /// its own). Given back when the frame is recycled.
    var surface: SurfaceTag?
    init(frame: UnsafeMutablePointer<AVFrame>, cached: Bool = false, surface: SurfaceTag? = nil) {
        self.frame = frame
        self.cached = cached
        self.surface = surface
    }

    var storage: FrameStorageKind { surface == nil ? .cpu : .surface }
}

struct VideoInfo: Sendable, CustomStringConvertible {
    var width: Int
    var height: Int
    var codec: String
    var pixelFormat: String
    var frameRate: Double
    var orientation: Orientation
    /// The stream's facts for the fitting rule, from the same open (VideoInput.facts).
    var facts: FitRule.Clip
    var description: String {
        let fps = (frameRate * 100).rounded() / 100
        let turn = orientation == .upright ? "" : ", shown \(orientation)"
        return "\(codec) \(width)x\(height) \(pixelFormat) \(fps) fps\(turn)"
    }
}

enum DecoderStatus: Sendable {
    case opening
    case ready(VideoInfo)
    case failed(VideoError)
}

/// Shared by one decoder thread (producer) and the main thread (consumer); every stored
/// property is guarded by `lock`.
final class FrameChannel: @unchecked Sendable {
    private let lock = ConditionLock()
    private var queue: BoundedQueue<StampedFrame<FrameHandle>>
    /// Bytes held by the queued frames (QueueBudget bounds them).
    private var queuedBytes = 0
    /// Frames the main thread has taken and not given back (`release`), and their bytes:
    /// QueueBudget counts all but the one on screen against the queue.
    private var held = 0
    private var heldBytes = 0
    /// Of those, the frames that pin decoder surfaces, queued and held (SurfaceBudget), and the
    /// budget (0 until a hardware path hands surfaces on in place).
    private var queuedSurfaces = 0
    private var heldSurfaces = 0
    private var surfaceLimit = 0
    /// The fake source's pool, for status (nil: none).
    private var ledger: SurfaceLedger?
    private var pool: [UnsafeMutablePointer<AVFrame>] = []
    /// Frames the queue holds at most.
    let capacity: Int
    private var _status: DecoderStatus = .opening
    private var stopRequested = false
    let wakeup: WakeupFD
    /// The render device's limits (the largest picture side), read by the decoder for each frame.
    let limits: PictureLimits
    /// The scale (≤ 1) the decoder brings frames to: what the largest output showing the video
    /// samples (DecodeScale). Set by the main thread.
    private var _targetScale = 1.0
    private var _targetScaleIsSet = false
    var targetScale: Double {
        get { lock.withLock { _targetScale } }
        set { lock.withLock { _targetScale = newValue; _targetScaleIsSet = true } }
    }
    /// The cap the decoder may skip frames for (FrameCap.skipCap; nil: none). Set by the main
    /// thread; the decoder applies it from its next packet, except while it fills the loop
    /// cache (a cached pass is decoded whole, so that lifting the cap never replays a thinned loop).
    private var _skipCap: Double?
    var skipCap: Double? {
        get { lock.withLock { _skipCap } }
        set { lock.withLock { _skipCap = newValue } }
    }
    /// The main thread has said (it can only once the video is open).
    var targetScaleIsSet: Bool { lock.withLock { _targetScaleIsSet } }
    /// The outputs that will show the video (buffer or mode size, scale mode), set before the
    /// decoder starts: it picks libavcodec's `lowres` from them before it opens the codec, so that
    /// not even the first frame of a huge MJPEG exists at full size.
    private var _outputs: [(size: Size, mode: ScaleMode)] = []
    var outputs: [(size: Size, mode: ScaleMode)] {
        get { lock.withLock { _outputs } }
        set { lock.withLock { _outputs = newValue } }
    }
    /// Set by the decoder when it replays the loop cache: the smallest scale those frames were
    /// decoded at (nil: it decodes, and a new target scale applies from the next frame).
    private var _replayScale: Double?
    var replayScale: Double? {
        get { lock.withLock { _replayScale } }
        set { lock.withLock { _replayScale = newValue } }
    }
    /// The loop cache's budget in bytes (0: off) and its frames: references to every decoded
    /// frame of the first pass, kept by the decoder thread and replayed when the whole loop fits.
    /// Freed on `purge` or deinit (after the decoder thread has ended).
    let cacheBudget: Int
    private var cacheFrames: [UnsafeMutablePointer<AVFrame>] = []
    private var _cacheBytes = 0
    /// Bytes the loop cache holds (read by the main thread for budgets and logs).
    var cacheBytes: Int { lock.withLock { _cacheBytes } }

    /// libavcodec frame threads for this video's decoder (set by the main thread before start).
    let decoderThreads: Int
    /// Frame threads follow the load (DecodeThreads); `wayloop decode --threads N` fixes them.
    var adaptiveThreads = true
    /// `--hwdec` and `--hwdec-device` for this video (set before start).
    let hwdec: HwdecMode
    let hwdecDevice: String?
    /// How the decoder decodes now, as a value (its `text` is for status); nil until it has
    /// opened. Decisions read the value, never the text.
    private var _decodeState: HwdecState?
    var decodeState: HwdecState? {
        get { lock.withLock { _decodeState } }
        set { lock.withLock { _decodeState = newValue } }
    }
    /// The media time on screen (the main thread's clock), which the decoder leaves out late
    /// frames against; nil until playing.
    private var _screenMedia: Nanos?
    var screenMedia: Nanos? {
        get { lock.withLock { _screenMedia } }
        set { lock.withLock { _screenMedia = newValue } }
    }
    /// The decoder takes longer than a frame's duration per frame with every thread it may have.
    private var _decoderBehind = false
    var decoderBehind: Bool {
        get { lock.withLock { _decoderBehind } }
        set { lock.withLock { _decoderBehind = newValue } }
    }
    /// What the start-up check cost (wall seconds), when one ran.
    private var _checkSeconds: Double?
    var checkSeconds: Double? {
        get { lock.withLock { _checkSeconds } }
        set { lock.withLock { _checkSeconds = newValue } }
    }

    /// The file the decoder reads from its next pass on: a fitted copy, or the video's own file
    /// again (nil: its own). Set by the main thread; the decoder takes it at the end of a pass.
    private var _wantedFile: String?
    var wantedFile: String? {
        get { lock.withLock { _wantedFile } }
        set { lock.withLock { _wantedFile = newValue } }
    }
    /// The file the decoder reads now (set by the decoder when it opens one).
    private var _readingFile: String?
    var readingFile: String? {
        get { lock.withLock { _readingFile } }
        set { lock.withLock { _readingFile = newValue } }
    }
    /// A file the decoder would not switch to, and why (taken once by the main thread).
    private var _refused: (file: String, reason: String)?
    func refuse(_ file: String, _ reason: String) { lock.withLock { _refused = (file, reason) } }
    func takeRefused() -> (file: String, reason: String)? { lock.withLock { defer { _refused = nil }; return _refused } }
    /// The video's own coded width (set before start when known): `targetScale` is of it, and
    /// the decoder scales a copy's frames by the two widths' ratio.
    private var _referenceWidth: Int?
    var referenceWidth: Int? {
        get { lock.withLock { _referenceWidth } }
        set { lock.withLock { _referenceWidth = newValue } }
    }

    /// The decoder thread's CPU time per decoded frame (FrameCosts.decode).
    private var _decodeCost = StageCost()
    var decodeCost: StageCost { lock.withLock { _decodeCost } }
    func addDecodeCost(_ n: Nanos) { lock.withLock { _decodeCost.add(n) } }

    init(capacity: Int, wakeup: WakeupFD, limits: PictureLimits, cacheBudget: Int = 0, decoderThreads: Int = 2,
         hwdec: HwdecMode = .no, hwdecDevice: String? = nil) {
        self.hwdec = hwdec
        self.hwdecDevice = hwdecDevice
        self.cacheBudget = cacheBudget
        self.decoderThreads = decoderThreads
        self.limits = limits
        queue = BoundedQueue(capacity: capacity)
        self.capacity = capacity
        pool.reserveCapacity(capacity + 4)
        self.wakeup = wakeup
    }

    deinit { purge() }

    /// Decoder thread, when its hardware path hands surfaces on in place: the budget of
    /// surfaces queued and leased, and the fake source's pool.
    func handsOnSurfaces(limit: Int, ledger: SurfaceLedger?) {
        lock.withLock {
            surfaceLimit = limit
            self.ledger = ledger
        }
    }

    /// The surfaces, for status (nil: none handed on in place).
    var surfaceStats: SurfaceStats? {
        lock.withLock { () -> SurfaceStats? in
            guard surfaceLimit > 0 else { return nil }
            if let ledger { return ledger.stats }
            let out = queuedSurfaces + heldSurfaces
            return SurfaceStats(pool: 0, limit: surfaceLimit, out: out)
        }
    }

    /// Frees every queued, pooled and cached frame. Only once the decoder thread has ended.
    func purge() {
        lock.withLock {
            while let f = queue.pop() {
                if f.payload.cached { continue }
                var p: UnsafeMutablePointer<AVFrame>? = f.payload.frame
                av_frame_free(&p)
                f.payload.surface?.giveBack()
            }
            queuedBytes = 0
            queuedSurfaces = 0
            for f in pool {
                var p: UnsafeMutablePointer<AVFrame>? = f
                av_frame_free(&p)
            }
            pool.removeAll()
        }
        dropCache()
    }

    // MARK: Decoder thread: the loop cache

    /// Keeps a reference to `frame` for replay; nil (nothing kept) when it would exceed the budget.
    func keep(_ frame: UnsafeMutablePointer<AVFrame>) -> UnsafeMutablePointer<AVFrame>? {
        let bytes = Int(avx_frame_bytes(frame))
        guard lock.withLock({ _cacheBytes }) + bytes <= cacheBudget, let copy = av_frame_alloc() else { return nil }
        guard av_frame_ref(copy, frame) >= 0 else {
            var c: UnsafeMutablePointer<AVFrame>? = copy
            av_frame_free(&c)
            return nil
        }
        lock.withLock {
            cacheFrames.append(copy)
            _cacheBytes += bytes
        }
        return copy
    }

    /// Bytes of decoded frames queued (either thread).
    var queuedFrameBytes: Int { lock.withLock { queuedBytes } }
    /// Frames queued, and frames the main thread holds (either thread).
    var queuedFrameCount: Int { lock.withLock { queue.count } }
    var heldFrameCount: Int { lock.withLock { held } }

    // MARK: Giving the loop cache up (memory pressure)

    private var _cacheDropRequested = false
    /// The pass the decoder decodes again from, once it gave the cache up.
    private var _retiredFrom: Int?

    /// Main thread: asks a decoder that replays its loop cache to decode again from the next pass.
    func requestCacheDrop() { lock.withLock { _cacheDropRequested = true } }

    /// Decoder thread, at the start of replayed pass `pass`: true once per request. From then on
    /// the cache is retired: its frames are freed by the main thread once they are all past.
    func takeCacheDropRequest(atPass pass: Int) -> Bool {
        lock.withLock {
            guard _cacheDropRequested else { return false }
            _cacheDropRequested = false
            _retiredFrom = pass
            return true
        }
    }

    /// Main thread: `frame` is now on screen. A decoded frame of the pass decoding resumed at
    /// was queued after every replayed one (FIFO), so from it on no cached frame is queued or
    /// shown: the cache is freed. (A decoded frame of the first pass, still queued when the
    /// request came, is not such a frame.)
    func frameTaken(_ frame: StampedFrame<FrameHandle>) {
        guard !frame.payload.cached else { return }
        let free = lock.withLock { () -> Bool in
            guard let from = _retiredFrom, frame.pass >= from else { return false }
            _retiredFrom = nil
            return true
        }
        if free { dropCache() }
    }

    /// Either thread: frees the loop cache's frames (taken out under the lock, freed outside it).
    func dropCache() {
        let frames = lock.withLock { () -> [UnsafeMutablePointer<AVFrame>] in
            let f = cacheFrames
            cacheFrames.removeAll()
            _cacheBytes = 0
            return f
        }
        for f in frames {
            var p: UnsafeMutablePointer<AVFrame>? = f
            av_frame_free(&p)
        }
    }

    // MARK: Either thread

    var status: DecoderStatus { lock.withLock { _status } }

    /// Returns a frame to the pool for reuse (its buffers are released now).
    func recycle(_ handle: FrameHandle) {
        if handle.cached { return }
        av_frame_unref(handle.frame)
        handle.surface?.giveBack()
        lock.withLock { pool.append(handle.frame) }
    }

    // MARK: Decoder thread

    var shouldStop: Bool { lock.withLock { stopRequested } }

    func setStatus(_ s: DecoderStatus) {
        lock.withLock { _status = s }
        wakeup.signal()
    }

    /// An empty AVFrame to decode into: from the pool, or newly allocated while the pool warms up.
    func obtainFrame() -> UnsafeMutablePointer<AVFrame>? {
        if let f = lock.withLock({ pool.popLast() }) { return f }
        lock.withLock { _framesMade += 1 }
        return av_frame_alloc()
    }
    /// AVFrames made for this channel so far (flat once the pool has warmed up).
    private var _framesMade = 0
    var framesMade: Int { lock.withLock { _framesMade } }

    /// Queues a frame, waiting while the queue is full. Returns false (frame not taken) on stop.
    func push(_ frame: StampedFrame<FrameHandle>) -> Bool {
        let wasEmpty: Bool? = lock.withLock {
            let bytes = Int(avx_frame_bytes(frame.payload.frame))
            let surface = frame.payload.surface != nil
            while !(surface ? SurfaceBudget.admits(queued: queue.count, leased: heldSurfaces, capacity: queue.capacity, limit: surfaceLimit)
                        : QueueBudget.admits(count: queue.count, held: held, heldBytes: heldBytes, capacity: queue.capacity,
                                             queuedBytes: queuedBytes, adding: bytes))
                    && !stopRequested { lock.wait() }
            if stopRequested { return nil }
            let empty = queue.isEmpty
            queue.push(frame)
            queuedBytes += bytes
            if surface { queuedSurfaces += 1 }
            return empty
        }
        guard let wasEmpty else { return false }
        // The main loop only waits on the wakeup when it has nothing queued.
        if wasEmpty { wakeup.signal() }
        return true
    }

    /// Blocks until stop is requested (a still image needs no more decoding); from then on
    /// `isStill` says so (a playlist counts its passes by time).
    func waitForStop() {
        lock.withLock {
            _isStill = true
            while !stopRequested { lock.wait() }
        }
    }
    private var _isStill = false
    var isStill: Bool { lock.withLock { _isStill } }

    // MARK: Main thread

    func requestStop() {
        lock.withLock {
            stopRequested = true
            lock.broadcast()
        }
    }

    /// The media time of the next queued frame, if any.
    var headTime: Nanos? { lock.withLock { queue.peek()?.mediaTime } }

    /// The pass of the next queued frame, if any (a playlist switches before a new pass shows).
    var headPass: Int? { lock.withLock { queue.peek()?.pass } }

    /// Takes the next frame regardless of its time (the first frame of a video).
    func takeNext() -> StampedFrame<FrameHandle>? {
        lock.withLock {
            let f = popCounted()
            if f != nil { lock.broadcast() }
            return f
        }
    }

    /// Takes every frame due at `mediaTime`: returns the last one (to show) and releases the
    /// ones before it (late: dropped), counting them.
    func takeDue(at mediaTime: Nanos) -> (frame: StampedFrame<FrameHandle>?, dropped: Int) {
        var late: [FrameHandle] = []
        let shown: StampedFrame<FrameHandle>? = lock.withLock {
            let n = FramePick.dueCount(queued: queue.lazy.map { $0.mediaTime }, at: mediaTime)
            guard n > 0 else { return nil }
            for _ in 0..<(n - 1) { if let f = popCounted() { late.append(f.payload) } }
            lock.broadcast()
            return popCounted()
        }
        for f in late { release(f) }
        return (shown, late.count)
    }

    /// Gives back a frame `takeNext` or `takeDue` returned (recycled; its place in the queue is
    /// free): a late frame at once, one shown when its lease ends (FrameLease). Main thread
    /// only: the decoder `recycle`s its own.
    func release(_ handle: FrameHandle) {
        let bytes = Int(avx_frame_bytes(handle.frame))
        recycle(handle)
        lock.withLock {
            assert(held > 0, "a frame released twice, or one the main thread never took")
            held = max(0, held - 1)
            heldBytes = held == 0 ? 0 : max(0, heldBytes - bytes)
            if handle.surface != nil { heldSurfaces = max(0, heldSurfaces - 1) }
            lock.broadcast()
        }
    }

    /// Pops the head for the main thread (held until `release`) and takes its bytes off the
    /// count; inside the lock.
    private func popCounted() -> StampedFrame<FrameHandle>? {
        guard let f = queue.pop() else { return nil }
        let bytes = Int(avx_frame_bytes(f.payload.frame))
        queuedBytes = max(0, queuedBytes - bytes)
        held += 1
        heldBytes += bytes
        if f.payload.surface != nil {
            queuedSurfaces = max(0, queuedSurfaces - 1)
            heldSurfaces += 1
        }
        return f
    }
}
