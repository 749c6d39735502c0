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
    /// libavcodec's frame pool, watched (PoolWatch).
    private var pool = PoolWatch()
    /// Hardware decoding: the fallback's state, the device while a hardware path is active,
    /// a failure seen while decoding (acted on by the loop), and the last frame handed on
    /// (its PTS, in the stream's time base): after a switch to software the stream is decoded
    /// again from the key frame before it, and the frames up to it are left out.
    private let hardware = HardwarePath()
    /// Keeping up (ThreadPacer: the frame threads, the pace, a change waiting for the next key
    /// frame), and a key packet held while the codec drains for a change.
    private lazy var pacer = ThreadPacer(threads: channel.decoderThreads)
    private var heldKey: UnsafeMutablePointer<AVPacket>?
    private var reopening = false
    /// Frames may be left out for being late (not while the loop cache is filled: it keeps a whole pass).
    private var lateSkipAllowed = false
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
            if let held = stamper.discardHeld() { channel.recycle(held) }
        } catch {
            if let held = stamper.discardHeld() { channel.recycle(held) }
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
        hardware.choose(decoder, par, video: path, channel: channel, log: log)
        try openCodec(decoder, par, lowres: hardware.device == nil ? wantedLowres : 0)
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
        guard let next = channel.wantedFile, next != file, hardware.device == nil else { return false }
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
        ctx.pointee.thread_count = Int32(pacer.threadsNow)
        ctx.pointee.lowres = Int32(n)
        hardware.device?.attach(to: ctx, extraFrames: hardware.extraFrames(queue: channel.capacity))
        guard avcodec_open2(ctx, decoder, nil) >= 0 else {
            if hardware.device != nil {
                // The hwaccel refused to start: software, from here on.
                hardware.fallBack(.device("the codec would not open on the device"), video: path, channel: channel, log: log)
                return try openCodec(decoder, par, lowres: n)
            }
            throw .unsupportedCodec(path, codec: String(cString: decoder.pointee.name))
        }
        if n != lowres || n > 0 { log.debug("decoding at lowres \(n) (1/\(1 << n) of the coded size)") }
        lowres = n
        pool.codecOpened(pass: stamper.pass, at: Sys.now())
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
        guard maxLowres > 0, hardware.device == nil, intraOnly || atPassStart, let codec, let decoder = codec.pointee.codec,
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
            if let why = hardware.failure {
                hardware.failure = nil
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
        if LoopCacheRule.keeps(out.payload.storage), let copy = channel.keep(out.payload.frame) {
            var s = out
            s.payload = FrameHandle(frame: copy, cached: true)
            state.cache.append(s)
        } else {
            state.caching = false
            state.cache.removeAll()
            channel.dropCache()
            log.debug(LoopCacheRule.keeps(out.payload.storage) ? "the loop does not fit the cache (\(channel.cacheBudget >> 20) MB): every pass is decoded"
                : "frames handed on in place are not kept (each pins a surface): every pass is decoded")
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
        guard let (decoded, surface) = hardware.take(frame, channel: channel) else { return .goOn }
        if let after = resumeAfterPts {
            // Decoded again after a switch to software: the frames already handed on are left out.
            let pts = decoded.pointee.best_effort_timestamp
            if pts != avx_nopts() && pts <= after {
                channel.recycle(FrameHandle(frame: decoded, surface: surface))
                return .goOn
            }
            resumeAfterPts = nil
        }
        state.framesThisPass += 1
        frameDecoded()
        notePoolBuffer(decoded)
        lastFedPts = decoded.pointee.best_effort_timestamp == avx_nopts() ? lastFedPts : decoded.pointee.best_effort_timestamp
        // A surface handed on in place is shown as it is (the renderer scales it).
        guard let ready = surface != nil ? decoded : convertIfNeeded(decoded) else { return .goOn }
        channel.addDecodeCost(Sys.threadCPU() - started)
        followPace(busy: Sys.now() - wallStart)
        let pts = ready.pointee.best_effort_timestamp
        let ptsNs: Nanos? = pts == avx_nopts() ? nil : rescale(pts)
        let own = rescale(avx_frame_duration(ready))
        let index = ptsNs.map { passFrames.index(ofFrame: $0) }
        guard let out = stamper.push(FrameHandle(frame: ready, surface: surface), pts: ptsNs, ownDuration: own > 0 ? own : nominalDuration,
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
        pool.codecOpenedInPass = resume
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
           !LateFrames.wanted(t, screen: channel.screenMedia, busy: pacer.busy, queued: channel.queuedFrameCount) {
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
                if hardware.failure != nil { return .frame }
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
            if pacer.pendingThreads != nil && packet.pointee.flags & AV_PKT_FLAG_KEY != 0 {
                // New frame threads from this key frame on: drain the frames before it first.
                heldKey = av_packet_clone(packet)
                avcodec_send_packet(codec, nil)
                reopening = true
                continue
            }
            let s = avcodec_send_packet(codec, packet)
            if s < 0 && s != avx_error_eagain() {
                noteError(s, "skipped a corrupt packet")
                if hardware.failure != nil { return .frame }
            }
        }
    }

    private func noteError(_ code: Int32, _ what: String) {
        if hardware.device != nil {
            // On a hardware path any error moves the clip to software (the loop acts on it).
            hardware.failure = code == -ENOMEM ? .poolExhausted : .decodeError(AVError.text(code))
            return
        }
        decodeErrors += 1
        guard seenErrors.insert(code).inserted else { return }
        let line = "'\(path)': \(what): \(AVError.text(code)); playback goes on (logged once)"
        // Until a frame decodes, hold the notice: a file that never decodes gets one error instead.
        if decodedAny { log.notice(line) } else { heldNotices.append(line) }
    }

    /// A new buffer of the codec's pool after its first pass is logged (`-v`), with the frames
    /// queued and on the screen side then (PoolWatch).
    private func notePoolBuffer(_ frame: UnsafeMutablePointer<AVFrame>) {
        guard let data = frame.pointee.buf.0?.pointee.data else { return }
        switch pool.note(UInt(bitPattern: data), pass: stamper.pass, now: Sys.now()) {
        case .nothing: break
        case .stopsCounting:
            log.debug("more than \(PoolWatch.tracked) frame buffers (the loop cache holds them, or this decoder does not pool its frames): no longer counted")
        case .grew(let count, let seconds):
            log.debug("'\(path.split(separator: "/").last ?? "")': libavcodec's frame pool: \(count) buffers "
                + "(one more in pass \(stamper.pass), \(seconds) s after the codec opened; \(channel.queuedFrameCount) frames queued, "
                + "\(channel.heldFrameCount) on the screen side)")
        }
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
        if pacer.pendingThreads != nil {
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
            hardware.failure = .transfer("a frame reached the converter still on the device")
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
        pacer.isBehind(frame: nominalDuration, queued: channel.queuedFrameCount, base: channel.decoderThreads,
                       hardware: hardware.device != nil, adaptive: channel.adaptiveThreads)
    }

    /// Notes one frame's wall time and decides on frame threads (software decoding only).
    fileprivate func followPace(busy b: Nanos) {
        let was = pacer.threadsNow
        let noted = pacer.note(busy: b, frame: nominalDuration, queued: channel.queuedFrameCount, base: channel.decoderThreads,
                               hardware: hardware.device != nil, adaptive: channel.adaptiveThreads)
        channel.decoderBehind = noted.behind
        guard let n = noted.change else { return }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let ms = { (n: Nanos) in Double(n / 100_000) / 10 }
        log.debug("'\(name)': \(ms(pacer.busy)) ms of a \(ms(nominalDuration)) ms frame: \(n) frame threads from the next key frame (\(was) now)")
    }

    /// Opens the codec again with the frame threads decided (at a key frame, or a pass start).
    fileprivate func applyThreads() {
        guard let n = pacer.takePending() else { return }
        guard let codec, let decoder = codec.pointee.codec, let format,
              let par = format.pointee.streams[Int(streamIndex)]?.pointee.codecpar else { return }
        let was = pacer.threadsNow
        pacer.threadsNow = n
        do { try openCodec(decoder, par, lowres: lowres) } catch {
            pacer.threadsNow = was
            log.debug("cannot reopen the codec with \(n) threads: \(error)")
            return
        }
        pacer.restarted()
    }
}

// MARK: Leaving the hardware path

extension Decoder {
    /// A hardware path failed while playing: the clip is decoded in software from the key frame
    /// before the last frame handed on, and the frames up to that one are left out, so the loop
    /// goes on where it was. One notice.
    fileprivate func switchToSoftware(_ why: HwdecFailure) throws(VideoError) {
        guard hardware.device != nil else { return }
        hardware.fallBack(why, video: path, channel: channel, log: log)
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
}
