// The decoder: libavformat + libavcodec on a thread of its own. It owns every FFmpeg object it
// creates (they never leave this thread), decodes ahead of presentation into its FrameChannel,
// and at the end of the stream drains the codec, seeks back to the start and goes on, so the
// first frame of the next pass is queued before the last one of this pass is on screen.
import CFFmpeg
import CSystem
import Glibc
import WayLoopCore

/// Runs on the decoder thread only.
final class Decoder {
    /// The video (its errors and notices name it) and the file read now: the video's own, or
    /// its fitted copy (FitPlan), switched at the end of a pass.
    private let path: String
    private var file: String
    /// The video's own coded width over the file's: the main thread's target scale is of the
    /// video, the file's frames are scaled by it times this (1 for the video's own file).
    private var fileRatio = 1.0
    private let channel: FrameChannel
    private let log: Logger
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var streamIndex: Int32 = -1
    private var timeBase = AVRational(num: 1, den: 1)
    private var nominalDuration: Nanos = 40_000_000
    private var draining = false
    private var stamper = LoopStamper<FrameHandle>()
    /// The pass's source frames, for indices and the pass's end when some are left out.
    private var passFrames = PassFrames()
    private var converter: PixelConverter?
    private var seenErrors: Set<Int32> = []
    private var decodeErrors = 0
    private var decodedAny = false
    private var heldNotices: [String] = []
    /// What the whole clip would take decoded (frames × frame size), when the container says;
    /// the loop cache is tried only when this fits its budget.
    private var estimatedBytes: Int?
    /// A frame was scaled down for the provisional picture limit (the device's own arrives after
    /// decoding starts): such frames are not kept in the loop cache.
    private var downscaledProvisionally = false
    /// The smallest scale frames were decoded at (what a replayed loop cache holds).
    private var smallestScale = 1.0
    /// libavcodec's `lowres` the codec runs with, and the scale the outputs asked for before the
    /// main thread could say (from `channel.outputs`, at open).
    private var lowres = 0
    private var maxLowres = 0
    private var intraOnly = false
    private var hintedScale = 1.0
    /// The frame buffers libavcodec's pool has handed out since the codec was opened (their
    /// data pointers): the pool keeps every buffer it made, so a new one is memory for good.
    private var poolBuffers = Set<UInt>()
    /// When and in which pass the codec was (re)opened: its pool starts empty then.
    private var codecOpenedAt = Sys.now()
    private var codecOpenedInPass = 0
    private static let poolBuffersTracked = 64
    /// Hardware decoding: the fallback's state, the device while a hardware path is active,
    /// a failure seen while decoding (acted on by the loop), and the last frame handed on
    /// (its PTS, in the stream's time base): after a switch to software the stream is decoded
    /// again from the key frame before it, and the frames up to it are left out.
    private var hw: HwdecState?
    private var hwDevice: HwDevice?
    /// The buffers hardware frames are copied back into.
    private let downloads = DownloadPool()
    /// Frames the hardware path has given (the fake source's triggers count them).
    private var hwFrames = 0
    /// Keeping up (DecodeThreads, LateFrames): the frame threads now, a change waiting for the
    /// next key frame, the wall time per frame lately (waits for room in the queue left out),
    /// frames since the last change, and a key packet held while the codec drains for a change.
    private lazy var threadsNow = channel.decoderThreads
    private var pendingThreads: Int?
    /// The most frame threads this clip was behind with, and when (frames decoded then): held
    /// for `tooSlowFor` frames, so that a spell of load on the machine is not for ever.
    private var tooSlowThreads = 0
    private var tooSlowAt = 0
    private var framesDecoded = 0
    private static let tooSlowFor = 900
    private var busy: Nanos = 0
    private var framesSinceChange = 0
    private var heldKey: UnsafeMutablePointer<AVPacket>?
    private var reopening = false
    /// Frames may be left out for being late (not while the loop cache is filled: it keeps a whole pass).
    private var lateSkipAllowed = false
    private var hwFailure: HwdecFailure?
    private var lastFedPts: Int64?
    private var resumeAfterPts: Int64?

    init(path: String, channel: FrameChannel, log: Logger) {
        self.path = path
        file = channel.wantedFile ?? path
        self.channel = channel
        self.log = log
    }

    deinit { closeDecoder() }

    /// Starts a decoder thread for `path`; its status and frames arrive through `channel`.
    static func start(path: String, channel: FrameChannel, log: Logger) -> WorkerThread? {
        WorkerThread {
            let decoder = Decoder(path: path, channel: channel, log: log)
            decoder.run()
        }
    }

    private func run() {
        do {
            let info = try open()
            log.debug("opened: \(info)")
            try decodeLoop(info: info)
            if let held = stamper.discardHeld() { channel.recycle(FrameHandle(frame: held.frame)) }
        } catch {
            if let held = stamper.discardHeld() { channel.recycle(FrameHandle(frame: held.frame)) }
            log.debug("decoder stopped: \(error)")
            channel.setStatus(.failed(error))
        }
    }

    // MARK: Opening

    private func open() throws(VideoError) -> VideoInfo {
        let input: VideoInput
        do { input = try VideoInput.open(file) } catch {
            // A copy that no longer opens: the video's own file, and the main thread hears why.
            guard file != path else { throw error }
            channel.refuse(file, "\(error)")
            file = path
            return try open()
        }
        channel.readingFile = file
        let fmt = input.format, decoder = input.decoder
        let stream = input.stream
        let par = stream.pointee.codecpar!
        adopt(input)
        let orientation = Decoder.orientation(of: stream)
        let facts = input.facts
        hintedScale = DecodeScale.factor(video: Size(width: Int(par.pointee.width), height: Int(par.pointee.height)),
                                         turned: orientation.rotation % 180 != 0, outputs: channel.outputs)
        chooseDecodePath(decoder, par)
        try openCodec(decoder, par, lowres: hwDevice == nil ? wantedLowres : 0)
        packet = av_packet_alloc()
        let pixfmt = av_get_pix_fmt_name(AVPixelFormat(rawValue: par.pointee.format)).map { String(cString: $0) } ?? "?"
        let frameBytes = av_image_get_buffer_size(AVPixelFormat(rawValue: par.pointee.format), par.pointee.width, par.pointee.height, 1)
        // Header values are untrusted: no arithmetic here may trap (overflow, division by zero).
        var frames = Int(stream.pointee.nb_frames)
        if frames <= 0 && nominalDuration > 0 {
            var d: Nanos = 0
            if stream.pointee.duration != avx_nopts() && stream.pointee.duration > 0 {
                d = rescale(stream.pointee.duration)
            } else if fmt.pointee.duration != avx_nopts() && fmt.pointee.duration > 0 {
                let (v, o) = Nanos(fmt.pointee.duration).multipliedReportingOverflow(by: 1000)
                d = o ? 0 : v
            }
            if d > 0 { frames = Int(d / nominalDuration) + 1 }
        }
        if frameBytes > 0 && frames > 0 {
            let (v, o) = Int(frameBytes).multipliedReportingOverflow(by: frames)
            estimatedBytes = o ? nil : v
        }
        return VideoInfo(width: Int(par.pointee.width), height: Int(par.pointee.height),
                         codec: String(cString: decoder.pointee.name), pixelFormat: pixfmt,
                         frameRate: Double(Nanos.nanosPerSecond) / Double(nominalDuration),
                         orientation: orientation, facts: facts)
    }

    /// Takes an opened file's demuxer and stream facts (the codec is opened after).
    private func adopt(_ input: VideoInput) {
        let stream = input.stream
        let par = stream.pointee.codecpar!
        format = input.format
        streamIndex = input.streamIndex
        timeBase = stream.pointee.time_base
        maxLowres = Int(input.decoder.pointee.max_lowres)
        intraOnly = (avcodec_descriptor_get(par.pointee.codec_id)?.pointee.props ?? 0) & avx_codec_prop_intra_only() != 0
        for rate in [stream.pointee.avg_frame_rate, stream.pointee.r_frame_rate] where rate.num > 0 && rate.den > 0 {
            nominalDuration = av_rescale(Nanos(rate.den), .nanosPerSecond, Nanos(rate.num))
            break
        }
        let width = Int(par.pointee.width)
        let reference = channel.referenceWidth ?? width
        if channel.referenceWidth == nil && file == path { channel.referenceWidth = width }
        fileRatio = width > 0 ? Double(reference) / Double(width) : 1
    }

    /// The end of a pass, when the main thread asked for another file (FitPlan: the fitted copy,
    /// or the video's own file again): the next pass is read from it, from its first frame, on
    /// the same timeline (LoopStamper.newSource). False when the clip decodes in hardware (its
    /// copy is only for software decoding). A file that will not open or decode is refused (the
    /// main thread hears why) and the pass is read from the file it read, from its start.
    private func switchFileAtSeam() throws(VideoError) -> Bool {
        guard let next = channel.wantedFile, next != file, hwDevice == nil else { return false }
        let previous = file
        do { try openFile(next) } catch {
            channel.refuse(next, "\(error)")
            channel.wantedFile = nil
            try openFile(previous)
        }
        stamper.newSource()
        log.debug("from pass \(stamper.pass): reading '\(file)'\(file == path ? " (its own file)" : "")")
        return true
    }

    /// Reads `f` from its start from now on: its demuxer and a codec for it (software).
    private func openFile(_ f: String) throws(VideoError) {
        let input = try VideoInput.open(f)
        closeDecoder()
        file = f
        adopt(input)
        channel.readingFile = f
        try openCodec(input.decoder, input.stream.pointee.codecpar!, lowres: wantedLowres)
        packet = av_packet_alloc()
        draining = false
        lastFedPts = nil
    }

    /// (Re)creates the codec context at `lowres` (the old one, if any, is freed: its frames
    /// live on by reference).
    private func openCodec(_ decoder: UnsafePointer<AVCodec>, _ par: UnsafePointer<AVCodecParameters>, lowres n: Int) throws(VideoError) {
        avcodec_free_context(&codec)
        guard let ctx = avcodec_alloc_context3(decoder) else { throw .decodeFailed(path, reason: "out of memory") }
        codec = ctx
        let rc = avcodec_parameters_to_context(ctx, par)
        guard rc >= 0 else { throw .decodeFailed(path, reason: AVError.text(rc)) }
        ctx.pointee.pkt_timebase = timeBase
        // Frame threads: the render device's hint (DecoderHints, measured per device).
        ctx.pointee.thread_count = Int32(threadsNow)
        ctx.pointee.lowres = Int32(n)
        hwDevice?.attach(to: ctx, extraFrames: HwdecPool.extraFrames(copying: true, queued: 0, held: 0))
        guard avcodec_open2(ctx, decoder, nil) >= 0 else {
            if hwDevice != nil {
                // The hwaccel refused to start: software, from here on.
                fallBackToSoftware(.device("the codec would not open on the device"), reopen: false)
                return try openCodec(decoder, par, lowres: n)
            }
            throw .unsupportedCodec(path, codec: String(cString: decoder.pointee.name))
        }
        if n != lowres || n > 0 { log.debug("decoding at lowres \(n) (1/\(1 << n) of the coded size)") }
        lowres = n
        poolBuffers.removeAll()
        codecOpenedAt = Sys.now()
        codecOpenedInPass = stamper.pass
    }

    /// The scale the outputs need (of the coded size): the main thread's once it has said,
    /// else what `channel.outputs` gave at open.
    private var wantedScale: Double { channel.targetScaleIsSet ? min(1, channel.targetScale * fileRatio) : hintedScale }
    private var wantedLowres: Int { DecodeScale.lowres(scale: wantedScale, maxLowres: maxLowres) }

    /// Opens the codec again at another `lowres` when the outputs' needs moved past a power of
    /// two: at once for an intra-only codec (MJPEG: any frame stands alone), else at the start
    /// of a pass (a key frame). True if it did.
    @discardableResult
    private func followLowres(atPassStart: Bool) throws(VideoError) -> Bool {
        guard maxLowres > 0, hwDevice == nil, intraOnly || atPassStart, let codec, let decoder = codec.pointee.codec,
              let format, let par = format.pointee.streams[Int(streamIndex)]?.pointee.codecpar else { return false }
        let want = wantedLowres
        guard want != lowres else { return false }
        try openCodec(decoder, par, lowres: want)
        return true
    }

    /// The stream's display matrix as an orientation (as ffmpeg's autorotate reads it; a negative
    /// determinant is a mirror, removed before the angle is read, as FFmpeg 6.1 does).
    static func orientation(of stream: UnsafeMutablePointer<AVStream>) -> Orientation {
        var size: Int = 0
        guard let raw = avx_stream_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 else {
            return .upright
        }
        var m = [Int32](repeating: 0, count: 9)
        m.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: raw, count: 36)) }
        let mirrored = Int64(m[0]) * Int64(m[4]) - Int64(m[1]) * Int64(m[3]) < 0
        if mirrored { av_display_matrix_flip(&m, 1, 0) }
        return Orientation(displayMatrixDegrees: av_display_rotation_get(m), mirrored: mirrored)
    }

    // MARK: Decoding

    /// What the decode loop keeps from frame to frame: whether the clip was announced ready,
    /// the frames of this pass, and the loop cache (the first pass's frames, kept while the
    /// whole clip fits the budget).
    private struct LoopState {
        var announced = false
        var framesThisPass = 0
        var caching: Bool
        var cache: [StampedFrame<FrameHandle>] = []
    }

    /// What the loop does after a step.
    private enum Next {
        case goOn
        case stop
    }

    private func decodeLoop(info: VideoInfo) throws(VideoError) {
        var state = LoopState(caching: channel.cacheBudget > 0 && (estimatedBytes ?? Int.max) <= channel.cacheBudget)
        while !channel.shouldStop {
            if intraOnly { try followLowres(atPassStart: false) }
            // A cached pass is decoded whole (the cache may be replayed after the cap is lifted).
            followSkipCap(state.caching ? nil : channel.skipCap)
            guard let frame = channel.obtainFrame() else { throw .decodeFailed(path, reason: "out of memory") }
            let started = Sys.threadCPU()
            let wallStart = Sys.now()
            lateSkipAllowed = !state.caching
            let step = nextFrame(into: frame)
            if let why = hwFailure {
                hwFailure = nil
                channel.recycle(FrameHandle(frame: frame))
                try switchToSoftware(why)
                continue
            }
            let next: Next
            switch step {
            case .frame: next = handOn(frame, started: started, wallStart: wallStart, info: info, state: &state)
            case .endOfPass: next = try endPass(frame, info: info, state: &state)
            }
            if next == .stop { return }
        }
    }

    /// Keeps a first-pass frame in the loop cache while the loop fits its budget.
    private func remember(_ out: StampedFrame<FrameHandle>, _ state: inout LoopState) {
        guard state.caching, out.pass == 0 else { return }
        if let copy = channel.keep(out.payload.frame) {
            var s = out
            s.payload = FrameHandle(frame: copy, cached: true)
            state.cache.append(s)
        } else {
            state.caching = false
            state.cache.removeAll()
            channel.dropCache()
            log.debug("the loop does not fit the cache (\(channel.cacheBudget >> 20) MB): every pass is decoded")
        }
    }

    /// Queues a stamped frame (announcing the clip ready with its first); stop when the channel
    /// is stopping.
    private func queue(_ out: StampedFrame<FrameHandle>, info: VideoInfo, state: inout LoopState) -> Next {
        remember(out, &state)
        guard channel.push(out) else {
            channel.recycle(out.payload)
            return .stop
        }
        if !state.announced {
            state.announced = true
            channel.setStatus(.ready(info))
        }
        return .goOn
    }

    /// A decoded frame: copied back from a device, left out after a switch to software, converted
    /// where no renderer takes its format, stamped on the loop's timeline and queued.
    private func handOn(_ frame: UnsafeMutablePointer<AVFrame>, started: Nanos, wallStart: Nanos, info: VideoInfo,
                        state: inout LoopState) -> Next {
        guard let decoded = takeHardwareFrame(frame) else { return .goOn }
        if let after = resumeAfterPts {
            // Decoded again after a switch to software: the frames already handed on are left out.
            let pts = decoded.pointee.best_effort_timestamp
            if pts != avx_nopts() && pts <= after {
                channel.recycle(FrameHandle(frame: decoded))
                return .goOn
            }
            resumeAfterPts = nil
        }
        state.framesThisPass += 1
        frameDecoded()
        notePoolBuffer(decoded)
        lastFedPts = decoded.pointee.best_effort_timestamp == avx_nopts() ? lastFedPts : decoded.pointee.best_effort_timestamp
        guard let ready = convertIfNeeded(decoded) else { return .goOn }
        channel.addDecodeCost(Sys.threadCPU() - started)
        followPace(busy: Sys.now() - wallStart)
        let pts = ready.pointee.best_effort_timestamp
        let ptsNs: Nanos? = pts == avx_nopts() ? nil : rescale(pts)
        let own = rescale(avx_frame_duration(ready))
        let index = ptsNs.map { passFrames.index(ofFrame: $0) }
        guard let out = stamper.push(FrameHandle(frame: ready), pts: ptsNs, ownDuration: own > 0 ? own : nominalDuration,
                                     index: passFrames.skipped ? index : nil) else { return .goOn }
        return queue(out, info: info, state: &state)
    }

    /// The end of a pass: its last frame queued; a still stops decoding; a first pass that fit
    /// the cache is replayed from memory from now on; otherwise the stream is rewound.
    private func endPass(_ frame: UnsafeMutablePointer<AVFrame>, info: VideoInfo, state: inout LoopState) throws(VideoError) -> Next {
        channel.recycle(FrameHandle(frame: frame))
        resumeAfterPts = nil
        lastFedPts = nil
        let pass = stamper.pass
        let end = passFrames.skipped ? passFrames.end : nil
        passFrames.reset()
        if let last = stamper.wrap(end: end), queue(last, info: info, state: &state) == .stop { return .stop }
        guard state.framesThisPass > 0 else {
            throw .decodeFailed(path, reason: decodeErrors > 0 ? "every frame failed to decode" : "the stream has no frames")
        }
        if pass == 0 && state.framesThisPass == 1 {
            log.debug("one frame: a still picture, decoding stops")
            channel.waitForStop()
            return .stop
        }
        if pass == 0, let length = stamper.loopLength {
            log.debug("loop length \(Double(length) / 1e9) s, \(state.framesThisPass) frames")
            // Frames scaled down for a provisional picture limit are not kept.
            if state.caching && !downscaledProvisionally && state.cache.count == state.framesThisPass {
                return try replayCache(length: length, state: &state)
            }
        }
        if state.caching {
            state.caching = false
            state.cache.removeAll()
            channel.dropCache()
        }
        state.framesThisPass = 0
        if try !switchFileAtSeam() { try rewind() }
        return .goOn
    }

    /// The whole loop is in memory: decoding stops and every later pass is replayed from it,
    /// until the cache is given up (memory pressure): then every pass is decoded again, from
    /// the pass that was due next, so the loop goes on without a gap.
    private func replayCache(length: Nanos, state: inout LoopState) throws(VideoError) -> Next {
        log.debug("the whole loop is in memory (\(state.cache.count) frames, \(channel.cacheBytes >> 20) MB): "
            + "decoding stops, every later pass is replayed from memory")
        closeDecoder()
        channel.replayScale = smallestScale
        guard let resume = replay(state.cache, loopLength: length) else { return .stop }
        log.debug("the loop cache is given up: decoding again from pass \(resume)")
        state.cache.removeAll()
        state.caching = false
        try reopenToDecode()
        stamper.skip(toPass: resume)
        codecOpenedInPass = resume
        channel.replayScale = nil
        state.framesThisPass = 0
        return .goOn
    }

    /// Frees the demuxer and the codec (the loop cache keeps its frames alive by reference).
    private func closeDecoder() {
        av_packet_free(&heldKey)
        av_packet_free(&packet)
        avcodec_free_context(&codec)
        avformat_close_input(&format)
    }

    /// Queues the cached first pass again and again, each pass one loop length later. Returns
    /// the pass to decode from when the main thread asks for the cache to be given up (the
    /// cached frames still queued or on screen are freed by it once they are past), nil on stop.
    private func replay(_ frames: [StampedFrame<FrameHandle>], loopLength: Nanos) -> Int? {
        var pass = 1
        while true {
            if channel.takeCacheDropRequest(atPass: pass) { return pass }
            for f in frames {
                var s = f
                s.pass = pass
                s.mediaTime = f.mediaTime + Nanos(pass) * loopLength
                guard channel.push(s) else { return nil }
            }
            pass += 1
        }
    }

    /// Opens the file and the codec again after a replay (closeDecoder freed them).
    private func reopenToDecode() throws(VideoError) {
        // A switch asked for while the loop replayed takes effect now.
        if try !switchFileAtSeam() { try openFile(file) }
    }

    /// `--max-fps`: the cap frames are skipped for (FrameCap.skipCap; nil: none).
    private var skipCap: Double?

    /// Takes the main thread's skip cap (logged when it changes).
    private func followSkipCap(_ cap: Double?) {
        guard cap != skipCap else { return }
        skipCap = cap
        if cap == nil { codec?.pointee.skip_frame = AVDISCARD_DEFAULT }
        log.debug(cap.map { "capped at \(FrameCap.text($0)) fps: of the frames no output shows, "
            + (intraOnly ? "none is decoded" : "only references are decoded") } ?? "every frame is decoded")
    }

    /// Notes the packet in `passFrames` (every pass: the indices must count from its start);
    /// under a skip cap, true when its frame is one no output commits and an intra-only codec
    /// can skip it whole; for other codecs, the codec is told to leave it out if no other frame
    /// refers to it (skip_frame is read per packet, frame threads included).
    private func skipsPacket(_ p: UnsafeMutablePointer<AVPacket>) -> Bool {
        guard p.pointee.pts != avx_nopts() else { return false }
        let pts = rescale(p.pointee.pts)
        var wanted = true
        if let cap = skipCap, let t = stamper.mediaTime(ofPts: pts) {
            wanted = FrameCap.wanted(t, frameDuration: nominalDuration, cap: cap)
        }
        // Behind with every thread it may have: frames that would reach the screen late are left out.
        var late = false
        if wanted, lateSkipAllowed, isBehind, let t = stamper.mediaTime(ofPts: pts),
           !LateFrames.wanted(t, screen: channel.screenMedia, busy: busy, queued: channel.queuedFrameCount) {
            wanted = false
            late = true
        }
        let duration = rescale(p.pointee.duration)
        passFrames.packet(pts: pts, duration: duration > 0 ? duration : nominalDuration, skipped: !wanted)
        guard skipCap != nil || late || codec?.pointee.skip_frame == AVDISCARD_NONREF, let codec else { return false }
        if intraOnly { return !wanted }
        codec.pointee.skip_frame = wanted ? AVDISCARD_DEFAULT : AVDISCARD_NONREF
        return false
    }

    private enum Step { case frame, endOfPass }

    /// Receives the next decoded frame, feeding packets as the codec asks. Corrupt packets are
    /// skipped with one notice per distinct error.
    private func nextFrame(into frame: UnsafeMutablePointer<AVFrame>) -> Step {
        guard let codec, let format, let packet else { return .endOfPass }
        while true {
            let r = avcodec_receive_frame(codec, frame)
            if r == 0 { return .frame }
            if r == avx_error_eof() && reopening {
                // Drained for new frame threads: reopen, and go on from the key packet held.
                reopening = false
                applyThreads()
                if let key = heldKey, let c = self.codec { _ = avcodec_send_packet(c, key) }
                av_packet_free(&heldKey)
                return nextFrame(into: frame)
            }
            if r == avx_error_eof() { return .endOfPass }
            if r != avx_error_eagain() {
                noteError(r, "a frame failed to decode")
                if hwFailure != nil { return .frame }
                if draining { return .endOfPass }
                continue
            }
            if draining { return .endOfPass }
            let rr = av_read_frame(format, packet)
            if rr < 0 {
                if rr != avx_error_eof() { noteError(rr, "reading stopped early") }
                avcodec_send_packet(codec, nil)
                draining = true
                continue
            }
            defer { av_packet_unref(packet) }
            if packet.pointee.stream_index != streamIndex || skipsPacket(packet) { continue }
            if pendingThreads != nil && packet.pointee.flags & AV_PKT_FLAG_KEY != 0 {
                // New frame threads from this key frame on: drain the frames before it first.
                heldKey = av_packet_clone(packet)
                avcodec_send_packet(codec, nil)
                reopening = true
                continue
            }
            let s = avcodec_send_packet(codec, packet)
            if s < 0 && s != avx_error_eagain() {
                noteError(s, "skipped a corrupt packet")
                if hwFailure != nil { return .frame }
            }
        }
    }

    private func noteError(_ code: Int32, _ what: String) {
        if hwDevice != nil {
            // On a hardware path any error moves the clip to software (the loop acts on it).
            hwFailure = code == -ENOMEM ? .poolExhausted : .decodeError(AVError.text(code))
            return
        }
        decodeErrors += 1
        guard seenErrors.insert(code).inserted else { return }
        let line = "'\(path)': \(what): \(AVError.text(code)); playback goes on (logged once)"
        // Until a frame decodes, hold the notice: a file that never decodes gets one error instead.
        if decodedAny { log.notice(line) } else { heldNotices.append(line) }
    }

    /// Counts the frame buffers the codec's pool made; a new one after the codec's first pass is
    /// logged (`-v`) with the frames queued and on the screen side then.
    /// A decoder whose frames are not pooled (rawvideo's point into each packet) would make this
    /// log every frame: past `poolBuffersTracked` it stops.
    private func notePoolBuffer(_ frame: UnsafeMutablePointer<AVFrame>) {
        guard poolBuffers.count <= Self.poolBuffersTracked, let data = frame.pointee.buf.0?.pointee.data else { return }
        guard poolBuffers.insert(UInt(bitPattern: data)).inserted else { return }
        if poolBuffers.count > Self.poolBuffersTracked {
            log.debug("more than \(Self.poolBuffersTracked) frame buffers (the loop cache holds them, or this decoder does not pool its frames): no longer counted")
            return
        }
        guard stamper.pass > codecOpenedInPass else { return }
        let at = Double((Sys.now() - codecOpenedAt) / 100_000_000) / 10
        log.debug("'\(path.split(separator: "/").last ?? "")': libavcodec's frame pool: \(poolBuffers.count) buffers "
            + "(one more in pass \(stamper.pass), \(at) s after the codec opened; \(channel.queuedFrameCount) frames queued, "
            + "\(channel.heldFrameCount) on the screen side)")
    }

    private func frameDecoded() {
        guard !decodedAny else { return }
        decodedAny = true
        for line in heldNotices { log.notice(line) }
        heldNotices.removeAll()
    }

    /// Back to the start of the stream for the next pass.
    private func rewind() throws(VideoError) {
        guard let format, let codec else { return }
        let stream = format.pointee.streams[Int(streamIndex)]!
        let start = stream.pointee.start_time == avx_nopts() ? 0 : stream.pointee.start_time
        var rc = av_seek_frame(format, streamIndex, start, avx_seek_backward())
        if rc < 0 { rc = avformat_seek_file(format, -1, Int64.min, 0, 0, 0) }
        if rc < 0 {
            // Some inputs cannot seek (GIF, pipes): open the file again instead.
            log.debug("cannot seek back (\(AVError.text(rc))): reopening")
            try reopen()
        }
        if pendingThreads != nil {
            applyThreads()
        } else if try !followLowres(atPassStart: true) {
            avcodec_flush_buffers(codec)
        }
        draining = false
    }

    private func reopen() throws(VideoError) {
        avformat_close_input(&format)
        var fmt: UnsafeMutablePointer<AVFormatContext>?
        var rc = avformat_open_input(&fmt, Sys.cPath(file), nil, nil)
        guard rc >= 0, let fmt else { throw .decodeFailed(path, reason: "cannot reopen to loop: \(AVError.text(rc))") }
        format = fmt
        rc = avformat_find_stream_info(fmt, nil)
        guard rc >= 0, Int(streamIndex) < Int(fmt.pointee.nb_streams) else {
            throw .decodeFailed(path, reason: "cannot reopen to loop: \(AVError.text(rc))")
        }
        for i in 0..<Int(fmt.pointee.nb_streams) where i != Int(streamIndex) {
            fmt.pointee.streams[i]!.pointee.discard = AVDISCARD_ALL
        }
    }

    private func rescale(_ v: Int64) -> Nanos {
        av_rescale_q(v, timeBase, AVRational(num: 1, den: Int32(Nanos.nanosPerSecond)))
    }

    /// Frames the shader cannot take directly go through libswscale (the fallback path).
    private func convertIfNeeded(_ frame: UnsafeMutablePointer<AVFrame>) -> UnsafeMutablePointer<AVFrame>? {
        // A frame still on a device has no planes here: it is copied back first (takeHardwareFrame),
        // and one that was not is never handed on as if it were a picture.
        if frame.pointee.hw_frames_ctx != nil {
            channel.recycle(FrameHandle(frame: frame))
            hwFailure = .transfer("a frame reached the converter still on the device")
            return nil
        }
        let limits = channel.limits.current
        let maxSize = limits.maxPictureSize
        let tooLarge = Int(frame.pointee.width) > maxSize || Int(frame.pointee.height) > maxSize
        if tooLarge && !limits.isFinal { downscaledProvisionally = true }
        // Frames follow the screen, not the file: scaled here, on this thread, to what the
        // largest output showing them samples (the main thread then converts at output size).
        let scale = wantedScale
        smallestScale = min(smallestScale, scale)
        // A frame decoded at lowres n is already 1/2ⁿ: only the rest is left to libswscale.
        let rest = DecodeScale.remaining(scale: scale, lowres: lowres)
        if !tooLarge && rest >= 1 && PlaneLayout(frame: frame) != nil { return frame }
        if converter == nil { converter = PixelConverter(log: log) }
        guard let out = channel.obtainFrame() else { channel.recycle(FrameHandle(frame: frame)); return nil }
        let ok = converter!.convert(frame, into: out, maxSize: maxSize, scale: rest)
        channel.recycle(FrameHandle(frame: frame))
        if !ok { channel.recycle(FrameHandle(frame: out)); return nil }
        return out
    }
}

// MARK: Keeping up

extension Decoder {
    /// Behind: slower than a frame's duration per frame, and no thread left to add.
    fileprivate var isBehind: Bool {
        busy > Nanos(Double(nominalDuration) * DecodeThreads.behindShare) && pendingThreads == nil && channel.queuedFrameCount <= 1
            && (threadsNow >= max(channel.decoderThreads, Sys.cores) || hwDevice != nil || !channel.adaptiveThreads)
    }

    /// Notes one frame's wall time and decides on frame threads (software decoding only).
    fileprivate func followPace(busy b: Nanos) {
        busy = busy == 0 ? b : (busy * 7 + b) / 8
        framesSinceChange += 1
        framesDecoded += 1
        if tooSlowThreads > 0 && framesDecoded - tooSlowAt > Self.tooSlowFor { tooSlowThreads = 0 }
        channel.decoderBehind = isBehind
        guard hwDevice == nil, channel.adaptiveThreads, pendingThreads == nil, framesSinceChange >= 30 else { return }
        guard let n = DecodeThreads.next(current: threadsNow, base: channel.decoderThreads, busy: busy, frame: nominalDuration,
                                         cores: Sys.cores, tooSlow: tooSlowThreads, queued: channel.queuedFrameCount) else { return }
        if n > threadsNow {
            tooSlowThreads = max(tooSlowThreads, threadsNow)
            tooSlowAt = framesDecoded
        }
        pendingThreads = n
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let ms = { (n: Nanos) in Double(n / 100_000) / 10 }
        log.debug("'\(name)': \(ms(busy)) ms of a \(ms(nominalDuration)) ms frame: \(n) frame threads from the next key frame (\(threadsNow) now)")
    }

    /// Opens the codec again with the frame threads decided (at a key frame, or a pass start).
    fileprivate func applyThreads() {
        guard let n = pendingThreads else { return }
        pendingThreads = nil
        guard let codec, let decoder = codec.pointee.codec, let format,
              let par = format.pointee.streams[Int(streamIndex)]?.pointee.codecpar else { return }
        let was = threadsNow
        threadsNow = n
        do { try openCodec(decoder, par, lowres: lowres) } catch {
            threadsNow = was
            log.debug("cannot reopen the codec with \(n) threads: \(error)")
            return
        }
        busy = 0
        framesSinceChange = 0
    }
}

// MARK: Hardware decoding

extension Decoder {
    /// Picks how this clip is decoded before its codec opens: each hardware candidate is opened
    /// and checked against software decoding (HwStartupCheck); the first that passes is used.
    /// Sets `hw`, `hwDevice` and the channel's report; a failure under an explicit `--hwdec`
    /// gets one notice, under auto a debug line (status says why either way).
    fileprivate func chooseDecodePath(_ decoder: UnsafePointer<AVCodec>, _ par: UnsafePointer<AVCodecParameters>) {
        let fmt = AVPixelFormat(rawValue: par.pointee.format)
        let stream = HwdecStream(codec: String(cString: avcodec_get_name(par.pointee.codec_id)), bitDepth: Int(avx_pix_fmt_depth(fmt)),
                                 chroma420: avx_pix_fmt_is_420(fmt) == 1)
        var state = HwdecState(mode: channel.hwdec, stream: stream)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        while case .trying(let p) = state.phase, !channel.shouldStop {
            switch HwDevice.open(p, device: channel.hwdecDevice, codec: decoder, auto: channel.hwdec == .auto) {
            case .failure(let why):
                state.failed(why)
            case .success(let device):
                let check = HwStartupCheck.run(path, device: device)
                channel.checkSeconds = (channel.checkSeconds ?? 0) + check.seconds
                log.debug("'\(name)': \(p.rawValue) start-up check on \(device.name): \(check.frames) frames, lowest plane "
                    + "\((check.lowest * 10).rounded() / 10) dB, \(Int(check.seconds * 1000)) ms")
                if let why = check.failure {
                    // A picture that differs is worth a notice even under auto: the path exists and is wrong.
                    if case .checkFailed = why { log.notice("'\(name)': \(p.rawValue): \(why): not used for it") }
                    state.failed(why)
                } else {
                    // Its surfaces live on the device: how many libavcodec's pool makes, and their size.
                    let codecName = String(cString: avcodec_get_name(par.pointee.codec_id))
                    let n = HwdecPool.size(codec: codecName, extra: HwdecPool.extraFrames(copying: true, queued: 0, held: 0))
                    let bytes = Double(par.pointee.width) * Double(par.pointee.height) * (avx_pix_fmt_depth(fmt) > 8 ? 3 : 1.5)
                    let mb = Int((Double(n) * bytes / 1_048_576).rounded())
                    state.passed(device: device.fake == nil ? "\(device.name); \(n) surfaces, \(mb) MB on the device" : device.name)
                    hwDevice = device
                }
            }
        }
        hw = state
        channel.decodeState = state
        if case .software(let why?) = state.phase, !state.refusals.isEmpty {
            let line = "'\(name)': decoding in software (\(why))"
            if channel.hwdec == .auto { log.debug(line) } else { log.notice(line) }
        } else {
            log.debug("'\(name)': decode: \(state.text)")
        }
    }

    /// The frame a hardware path decoded, copied back into one of the channel's frames (the
    /// surface goes back to the pool at once); a software frame as it is. nil when the frame
    /// is gone: a failure was noted (`hwFailure`) and the loop switches to software.
    fileprivate func takeHardwareFrame(_ frame: UnsafeMutablePointer<AVFrame>) -> UnsafeMutablePointer<AVFrame>? {
        guard let device = hwDevice else { return frame }
        guard device.owns(frame) else {
            channel.recycle(FrameHandle(frame: frame))
            hwFailure = .notHardware
            return nil
        }
        hwFrames += 1
        if let fake = device.fake, fake.trigger.whilePlaying, hwFrames == fake.at {
            channel.recycle(FrameHandle(frame: frame))
            switch fake.trigger {
            case .pool: hwFailure = .poolExhausted
            case .transfer: hwFailure = .transfer("Input/output error (WAYLOOP_FAKE_HWDEC)")
            default: hwFailure = .decodeError("Invalid data found when processing input (WAYLOOP_FAKE_HWDEC)")
            }
            return nil
        }
        guard let out = channel.obtainFrame() else {
            channel.recycle(FrameHandle(frame: frame))
            hwFailure = .transfer("out of memory")
            return nil
        }
        let rc = device.download(frame, into: out, pool: downloads)
        channel.recycle(FrameHandle(frame: frame))
        guard rc >= 0 else {
            channel.recycle(FrameHandle(frame: out))
            hwFailure = .transfer(AVError.text(rc))
            return nil
        }
        return out
    }

    /// A hardware path failed while playing: the clip is decoded in software from the key frame
    /// before the last frame handed on, and the frames up to that one are left out, so the loop
    /// goes on where it was. One notice.
    fileprivate func switchToSoftware(_ why: HwdecFailure) throws(VideoError) {
        guard hwDevice != nil else { return }
        fallBackToSoftware(why, reopen: true)
        guard let format, let codec, let decoder = codec.pointee.codec,
              let par = format.pointee.streams[Int(streamIndex)]?.pointee.codecpar else { return }
        try openCodec(decoder, par, lowres: wantedLowres)
        draining = false
        passFrames.reset()
        if let pts = lastFedPts {
            resumeAfterPts = pts
            if av_seek_frame(format, streamIndex, pts, avx_seek_backward()) >= 0 { return }
        }
        // No frame handed on yet in this pass, or no seek: from the start of the pass.
        let stream = format.pointee.streams[Int(streamIndex)]!
        let start = stream.pointee.start_time == avx_nopts() ? 0 : stream.pointee.start_time
        if av_seek_frame(format, streamIndex, start, avx_seek_backward()) < 0 { try reopen() }
    }

    /// Leaves the hardware path: the state, the report and the one notice.
    fileprivate func fallBackToSoftware(_ why: HwdecFailure, reopen: Bool) {
        hwDevice = nil
        if hw == nil { hw = HwdecState(mode: .no, stream: HwdecStream(codec: "", bitDepth: 0, chroma420: true)) }
        let line = hw!.failed(why)
        channel.decodeState = hw
        let name = path.split(separator: "/").last.map(String.init) ?? path
        if let line { log.notice("'\(name)': \(line)") }
    }
}

/// Opening a file for its video stream: the steps (and the errors) the decoder thread and the
/// stills share.
struct VideoInput {
    /// The caller closes it (avformat_close_input).
    let format: UnsafeMutablePointer<AVFormatContext>
    let streamIndex: Int32
    let decoder: UnsafePointer<AVCodec>
    var stream: UnsafeMutablePointer<AVStream> { format.pointee.streams[Int(streamIndex)]! }

    /// Opens `path` and finds its best video stream (every other stream discarded: audio never
    /// adds to the loop length) and its decoder. On error nothing is left open.
    static func open(_ path: String) throws(VideoError) -> VideoInput {
        var fmt: UnsafeMutablePointer<AVFormatContext>?
        csys_av_clear_error()
        var rc = avformat_open_input(&fmt, Sys.cPath(path), nil, nil)
        guard rc >= 0, let f = fmt else { throw .notAVideo(path, reason: AVError.reason(rc)) }
        var opened = false
        defer { if !opened { avformat_close_input(&fmt) } }
        // FFmpeg's tty demuxer shows text files as "ANSI art" video: a text file is not a video.
        if let name = f.pointee.iformat?.pointee.name, String(cString: name) == "tty" {
            throw .notAVideo(path, reason: "it is a text file")
        }
        rc = avformat_find_stream_info(f, nil)
        guard rc >= 0 else { throw .notAVideo(path, reason: AVError.reason(rc)) }
        // No stream at all: a container cut before its index (a truncated download).
        guard f.pointee.nb_streams > 0 else { throw .notAVideo(path, reason: "no streams in it: truncated, or not a video") }
        rc = av_find_best_stream(f, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard rc >= 0 else { throw .noVideoStream(path) }
        for i in 0..<Int(f.pointee.nb_streams) where i != Int(rc) {
            f.pointee.streams[i]!.pointee.discard = AVDISCARD_ALL
        }
        let par = f.pointee.streams[Int(rc)]!.pointee.codecpar!
        guard let decoder = avcodec_find_decoder(par.pointee.codec_id) else {
            let name = String(cString: avcodec_get_name(par.pointee.codec_id))
            throw .unsupportedCodec(path, codec: name == "none" ? "unknown" : name)
        }
        opened = true
        return VideoInput(format: f, streamIndex: rc, decoder: decoder)
    }
}

extension VideoInput {
    /// The stream's facts as the fitting rule and the library listing read them: the one place
    /// they are worked out (the decoder's open, `wayloop prepare` and `wayloop list` use it).
    var facts: FitRule.Clip {
        let st = stream.pointee
        let par = st.codecpar.pointee
        let codec = String(cString: avcodec_get_name(par.codec_id))
        let depth = Int(avx_pix_fmt_depth(AVPixelFormat(rawValue: par.format)))
        let rate = av_q2d(st.avg_frame_rate) > 0 ? av_q2d(st.avg_frame_rate) : av_q2d(st.r_frame_rate)
        let duration = st.duration > 0 ? Double(st.duration) * av_q2d(st.time_base)
            : format.pointee.duration > 0 ? Double(format.pointee.duration) / 1e6 : nil
        let stills: Set<String> = ["gif", "png", "apng", "webp", "bmp", "tiff", "jpegls"]
        let orientation = Decoder.orientation(of: stream)
        return FitRule.Clip(size: Size(width: Int(par.width), height: Int(par.height)), turned: orientation.rotation % 180 != 0,
                            frameRate: rate, codec: codec, bitDepth: max(8, depth), duration: duration,
                            isStill: stills.contains(codec) || st.nb_frames == 1)
    }
}

enum AVError {
    /// What went wrong, for a failure just now on this thread: FFmpeg's last error message if it
    /// logged one since `csys_av_clear_error`, else the code's text.
    static func reason(_ code: Int32) -> String {
        let logged = String(cString: csys_av_last_error())
        return logged.isEmpty ? text(code) : logged
    }

    /// FFmpeg's text for an AVERROR code (av_err2str is a macro).
    static func text(_ code: Int32) -> String {
        var buf = [CChar](repeating: 0, count: 128)
        av_strerror(code, &buf, buf.count)
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// FFmpeg's own log would print per-packet lines; WayLoop reports errors itself (once each),
/// with FFmpeg's last error message where its error code says less ("Device or resource busy"
/// for a picture size no decoder takes).
func av_quiet() {
    av_log_set_level(avx_log_quiet())
    csys_av_log_capture()
}
