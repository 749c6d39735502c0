// A clip: one distinct video file as the main thread sees it: its decoder thread (and loop
// cache), the frame on screen and the playback clock. No renderer resources: the sinks keep
// those, by clip path, and draw the `Picture` it hands them. Main thread only.
import CFFmpeg
import CSystem
import Glibc
import WayLoopCore

final class Clip {
    let path: String
    private var channel: FrameChannel
    private var thread: WorkerThread?
    private let queueFrames: Int
    private let cacheBudget: Int
    /// The render device's limits, which its decoder reads (the device fills them once it is up).
    private let limits: PictureLimits
    /// The decoder and its frames were released (nothing presented for a while).
    private(set) var isReleased = false
    /// When a frame of this video was last committed on any output.
    var lastDrawn: Nanos = Sys.now()
    private let log: Logger
    private(set) var info: VideoInfo?
    private(set) var error: VideoError?
    private var clock = PlaybackClock()
    /// The frame on screen (or about to be), leased: what shows it keeps it too (FrameLease).
    private var lease: FrameLease?
    var current: StampedFrame<FrameHandle>? { lease?.frame }
    /// Changes whenever `current` changes; outputs compare it with what they committed. Unique
    /// in the process (FrameSerials), so that a sink's buffer holding another clip's frame of
    /// the same path can never pass for this one's.
    private(set) var serial: UInt64 = 0
    /// What changed between its last frames on screen (the sinks' damage).
    private(set) var damage = DamageHistory()
    /// The last Picture built of the frame on screen (Clip.picture), by serial.
    private var pictureOfSerial: Picture?
    private var comparing = ComparePolicy()
    /// The frame comparisons' CPU time, and the decoding done by channels before a restart.
    private var compareCost = StageCost()
    private var decodeBefore = StageCost()

    /// Its part of the frame path's costs: decoding and comparing.
    var costs: FrameCosts {
        var c = FrameCosts()
        let now = channel.decodeCost
        c.decode = StageCost(nanos: decodeBefore.nanos &+ now.nanos, count: decodeBefore.count + now.count)
        c.compare = compareCost
        return c
    }
    private(set) var dropped = 0
    /// Frames a pass has (the highest index seen in a finished pass, plus one).
    private var passFrames: Int?
    /// When frames reached the screen lately, for the rate status reports.
    private var shownRate = ShownRate()

    /// `decoding behind: 19 of 30 fps` while decoding cannot keep the clip's rate (nil otherwise).
    func pace(now: Nanos) -> String? {
        guard let info, !isReleased else { return nil }
        return DecodeHealth.behind(shownFps: shownRate.fps(now: now), clipFps: info.frameRate,
                                   decoderBehind: channel.decoderBehind, capped: frameCap != nil)
    }

    /// Frames per second reaching the screen lately (nil: too few to say).
    func shownFps(now: Nanos) -> Double? { shownRate.fps(now: now) }
    private var lastAdvance: Nanos = -1
    private var anchored = false
    /// Its first frame has been presented since it (re)started: fitting waits for that, so
    /// that nothing of it stands before the first frame.
    var hasPresented: Bool { anchored }

    private let decoderThreads: Int
    /// How it was asked to be decoded (`--hwdec`, `--hwdec-device` of the outputs showing it).
    private(set) var hwdec: HwdecMode
    private(set) var hwdecDevice: String?
    /// How it is decoded now and why (its `text` for status). Kept across a release.
    private var lastDecodeState: HwdecState?
    var decodeState: HwdecState? {
        if !sticksToSoftware, let s = channel.decodeState { lastDecodeState = s }
        return lastDecodeState
    }
    /// The clip fell back to software (a path failed or none passed its check): a restart
    /// decodes it in software without trying again (the choice sticks for the clip).
    private var sticksToSoftware: Bool {
        guard hwdec != .no, case .software(let why)? = lastDecodeState?.phase else { return false }
        return why != nil
    }

    /// The file its decoder is asked to read (a fitted copy; nil: its own), from the next seam
    /// on and at every restart.
    private(set) var wantedFile: String?

    /// Reads `file` (a fitted copy, or nil: its own file) from the next loop seam on: the
    /// picture goes on without a gap, from the same place (Decoder.switchFileAtSeam).
    func read(from file: String?) {
        wantedFile = file
        channel.wantedFile = file ?? path
    }

    /// When a file asked for with `read(from:)` takes over, in status's words.
    var switchNote: String { isReplaying ? "from the next decode; the loop replays from memory" : "from the next loop seam" }

    /// The file the decoder reads now (nil: not opened yet).
    var readingFile: String? { isReleased ? wantedFile ?? path : channel.readingFile }

    /// It was asked for another file than the one it reads: the switch waits for a seam (or,
    /// while the loop replays from memory, for the next decode).
    var switchWaiting: Bool { (readingFile ?? path) != (wantedFile ?? path) }

    /// A file the decoder would not switch to, and why (once): it goes on with its own.
    func takeRefusedFile() -> (file: String, reason: String)? {
        guard let r = channel.takeRefused() else { return nil }
        if wantedFile == r.file { wantedFile = nil }
        return r
    }

    /// The outputs that show it (size, mode), for the decoder's choice of `lowres` at open.
    private var outputs: [(size: Size, mode: ScaleMode)]

    init?(path: String, queueFrames: Int, cacheBudget: Int, wakeup: WakeupFD, limits: PictureLimits, decoderThreads: Int,
          hwdec: HwdecMode = .no, hwdecDevice: String? = nil, outputs: [(size: Size, mode: ScaleMode)], log: Logger) {
        self.hwdec = hwdec
        self.hwdecDevice = hwdecDevice
        self.outputs = outputs
        self.decoderThreads = decoderThreads
        self.path = path
        self.log = log
        self.queueFrames = queueFrames
        self.cacheBudget = cacheBudget
        self.limits = limits
        channel = FrameChannel(capacity: queueFrames, wakeup: wakeup, limits: limits, cacheBudget: cacheBudget,
                               decoderThreads: decoderThreads, hwdec: hwdec, hwdecDevice: hwdecDevice)
        channel.outputs = outputs
        guard let t = Decoder.start(path: path, channel: channel, log: log) else { return nil }
        thread = t
    }

    /// The scale the decoder brings frames to (DecodeScale), from the next frame on.
    private(set) var decodeScale = 1.0
    /// Since when the loop cache replays frames smaller than the outputs now need.
    private var tooSmallSince: Nanos?
    /// How long that must last before decoding starts again (a new output is often born at one
    /// size and resized at once: no restart for a passing size).
    static let regrowAfter: Nanos = 1_000_000_000

    /// The main thread has told the decoder (its first value, even 1, replaces the decoder's
    /// own guess from `outputs`).
    private var scaleSent = false

    func setDecodeScale(_ f: Double, outputs: [(size: Size, mode: ScaleMode)]) {
        self.outputs = outputs
        guard !scaleSent || abs(f - decodeScale) > 0.01 else { return }
        scaleSent = true
        decodeScale = f
        channel.targetScale = f
    }

    /// When a replayed loop cache holds frames too small for the outputs: the time to decode
    /// again (nil: nothing to do). Frames being decoded simply take the new scale.
    func regrowDeadline(now: Nanos) -> Nanos? {
        guard !isReleased, let cached = channel.replayScale, decodeScale > cached + 0.01 else {
            tooSmallSince = nil
            return nil
        }
        if tooSmallSince == nil { tooSmallSince = now }
        return tooSmallSince! + Self.regrowAfter
    }

    /// Decodes again from the start when the cache stayed too small for `regrowAfter`.
    func regrowIfDue(now: Nanos) {
        guard let due = regrowDeadline(now: now), now >= due else { return }
        log.debug("'\(path)': outputs need larger frames than the loop cache holds (scale \((decodeScale * 100).rounded() / 100)): decoding again")
        tooSmallSince = nil
        release()
        restart()
    }

    /// Frees the decoder and every decoded frame; the picture stays in the sinks' resources (and
    /// on screen). `restart` decodes again from the start of the clip.
    func release() {
        stop()
        channel.purge()
        isReleased = true
        // Hand the freed heap back to the system (glibc keeps small freed chunks otherwise).
        _ = csys_malloc_trim()
    }

    /// Its decoder surfaces, when a hardware path hands them on in place (status; nil: none).
    var surfaceStats: SurfaceStats? { channel.surfaceStats }

    /// Bytes its loop cache holds.
    var cacheBytes: Int { channel.cacheBytes }
    /// Bytes of decoded frames it holds: the queue and the loop cache.
    var heldBytes: Int { channel.queuedFrameBytes + channel.cacheBytes }

    /// Replaying its loop cache from memory (nothing decoded).
    var isReplaying: Bool { !isReleased && channel.replayScale != nil }

    /// Memory pressure: decode every pass again from the next one and free the cache once its
    /// frames are off screen (the loop goes on without a gap).
    func giveUpLoopCache() { channel.requestCacheDrop() }

    /// Decodes again from the start with another `--hwdec` (a fresh choice: nothing sticks).
    func reopen(hwdec mode: HwdecMode, device: String?) {
        release()
        hwdec = mode
        hwdecDevice = device
        lastDecodeState = nil
        restart()
    }

    func restart() {
        guard isReleased else { return }
        let done = channel.decodeCost
        decodeBefore = StageCost(nanos: decodeBefore.nanos &+ done.nanos, count: decodeBefore.count + done.count)
        _ = decodeState
        channel = FrameChannel(capacity: queueFrames, wakeup: channel.wakeup, limits: limits, cacheBudget: cacheBudget,
                               decoderThreads: decoderThreads, hwdec: sticksToSoftware ? .no : hwdec, hwdecDevice: hwdecDevice)
        // Only a scale the main thread worked out: until then the decoder guesses from `outputs`.
        if scaleSent { channel.targetScale = decodeScale }
        channel.skipCap = skipCap
        channel.outputs = outputs
        channel.wantedFile = wantedFile
        channel.referenceWidth = info?.width
        thread = Decoder.start(path: path, channel: channel, log: log)
        clock = PlaybackClock()
        shownRate.reset()
        anchored = false
        isReleased = false
        lastDrawn = Sys.now()
    }

    deinit { stop() }

    var isReady: Bool { info != nil && error == nil }

    /// Picks up the decoder's status; returns true when it changed.
    func pollStatus() -> Bool {
        guard info == nil, error == nil else {
            if error == nil, case .failed(let e) = channel.status {
                error = e
                return true
            }
            return false
        }
        switch channel.status {
        case .opening: return false
        case .ready(let i): info = i
        case .failed(let e): error = e
        }
        return true
    }

    /// Moves to the frame due at `now` (the first frame starts the clock). True if it changed.
    func advance(now: Nanos) -> Bool {
        guard now != lastAdvance else { return false }
        lastAdvance = now
        if let c = current, clock.resumeIfStalled(now: now, shown: c.mediaTime, duration: c.duration) {
            log.debug("resumed after a stall at frame \(c.pass).\(c.index)")
        }
        let next: StampedFrame<FrameHandle>?
        if let media = clock.mediaTime(at: now) {
            channel.screenMedia = media
            let (f, d) = channel.takeDue(at: media)
            if d > 0 && frameCap == nil { log.trace("dropped \(d) late frame(s)") }
            next = f
        } else {
            next = channel.takeNext()
            if let next { clock.start(now: now, at: next.mediaTime) }
        }
        guard let next else { return false }
        let previous = serial
        serial = FrameSerials.next()
        shownRate.shown(at: now)
        if let old = current {
            // Every source frame the screen skipped (late, or left out by a decoder behind) is a
            // drop; under a cap on every output, the frames between slots are skipped on purpose.
            if next.pass > old.pass { passFrames = max(passFrames ?? 0, old.index + 1) }
            if frameCap == nil {
                dropped += LateFrames.between(previous: (old.pass, old.index), next: (next.pass, next.index), passFrames: passFrames)
            }
            damage.record(serial: serial, previous: previous, mask: changed(old.payload.frame, next.payload.frame))
        } else {
            damage.record(serial: serial, previous: previous, mask: nil)
        }
        // The old frame goes back to its channel now, or when the last sink showing it lets go.
        pictureOfSerial = nil
        lease = FrameLease(next, channel: channel)
        channel.frameTaken(next)
        return true
    }

    /// The first frame's presentation (its frame callback). The clock started at its commit;
    /// if start-up made the first presentation later than that frame's whole duration (a new
    /// surface being mapped), the clock re-anchors there, so that the frames after it are not
    /// dropped as late. Otherwise it stays: re-anchoring on a normal callback delay would add
    /// that delay to the first frame's hold.
    func firstFramePresented(at now: Nanos) {
        guard !anchored, let c = current else { return }
        anchored = true
        if let end = clock.wallTime(of: c.mediaTime + c.duration), now > end {
            clock.start(now: now, at: c.mediaTime)
        }
    }

    /// The pass the next queued frame belongs to (nil: nothing queued).
    var nextPass: Int? { channel.headPass }
    /// One frame, shown for ever: nothing more is decoded or queued.
    var isStill: Bool { channel.isStill }

    /// The highest cap of the outputs that show it (nil: some output has none): FrameCap.clipCap.
    private(set) var frameCap: Double?

    /// The caps of the outputs that show it (nil: one without): the frames past them are not
    /// drops (FrameCap.clipCap), and its decoder may skip frames from the next packet on
    /// (FrameCap.skipCap; nil: every frame).
    func follow(caps: [Double?]) {
        frameCap = FrameCap.clipCap(caps)
        let cap = FrameCap.skipCap(caps: caps, clipFps: info?.frameRate)
        guard cap != skipCap else { return }
        skipCap = cap
        channel.skipCap = cap
    }
    private(set) var skipCap: Double?

    /// The wall time at which media time `t` is due (nil: the clock has not started).
    func wallTime(ofMedia t: Nanos) -> Nanos? { clock.wallTime(of: t) }

    /// When the next queued frame is due (nil: nothing queued; the decoder will wake us).
    var nextDeadline: Nanos? {
        guard let head = channel.headTime else { return nil }
        return clock.wallTime(of: head) ?? 0
    }

    /// Stops the decoder thread (set, wake, join) and gives back every frame.
    func stop() {
        channel.requestStop()
        thread?.join()
        thread = nil
        pictureOfSerial = nil
        lease = nil
        damage.reset()
    }
}

extension Clip {
    /// The tiles that differ between two frames on screen (nil: all of them, or not compared:
    /// the device draws whole frames anyway, or a run of full frames paused the comparison).
    fileprivate func changed(_ old: UnsafeMutablePointer<AVFrame>, _ new: UnsafeMutablePointer<AVFrame>) -> TileMask? {
        guard FrameDiff.enabled, limits.current.usesDamage, comparing.shouldCompare() else { return nil }
        let started = Sys.threadCPU()
        let mask = FrameDiff.changed(old, new)
        compareCost.add(Sys.threadCPU() - started)
        comparing.compared(full: mask == nil)
        return mask
    }
}

/// Frame serials, unique in the process (0: no frame). Main thread only.
enum FrameSerials {
    nonisolated(unsafe) private static var last: UInt64 = 0
    static func next() -> UInt64 {
        last &+= 1
        return last
    }
}

extension Clip {
    /// The frame on screen, as the sinks take it.
    /// The frame on screen as the sinks draw it: built once per frame (the schedule, the draw
    /// and the snapshot all ask for it).
    var picture: Picture? {
        guard let c = current else { return nil }
        if let p = pictureOfSerial, p.serial == serial { return p }
        let p = Picture(frame: c.payload.frame, serial: serial, clip: path, orientation: info?.orientation ?? .upright, damage: damage,
                        lease: lease)
        pictureOfSerial = p
        return p
    }
}

extension VideoFacts {
    /// A video's record, and its decoder's state while it runs, as the director sees them.
    init(record r: VideoRecord<Clip>) {
        self.init(failure: r.failure)
        recent = r.recentOrder != nil
        checked = r.checked
        guard let v = r.clip else { return }
        open = true
        ready = v.isReady
        opened = v.info != nil
        released = v.isReleased
        hasFrame = v.current != nil
        replaying = v.isReplaying
        // Only what is kept for a switch back counts against --cache-mb (a lock per video).
        heldBytes = recent ? v.heldBytes : 0
    }
}
