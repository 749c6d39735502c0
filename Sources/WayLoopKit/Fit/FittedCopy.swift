// One fitted copy, made through FFmpeg's own libraries (not the ffmpeg program): the source
// decoded in software on one thread, every `keepEvery`-th frame kept at its own time, the whole
// frame scaled to the target size by libswscale (never cropped: a later mode change still
// works), encoded by libavcodec's libx264 and muxed as MP4 by libavformat, into a file beside
// the destination that is renamed over it only when complete. Colour (matrix, range,
// primaries, transfer), rotation and sample aspect are kept; timestamps are the source's own,
// and the last kept frame lasts to the end of the source's last, so the loop is as long as
// it was and its seam where it was.
import CFFmpeg
import CSystem
import Glibc
import WayLoopCore

/// Why a fitted copy was not made.
public struct FitError: Error, Sendable, CustomStringConvertible {
    /// One line: the file and why.
    public let description: String
    /// It was asked to stop (not a failure of the copy).
    public let stopped: Bool
    init(_ description: String, stopped: Bool = false) {
        self.description = description
        self.stopped = stopped
    }
}

/// What making a copy did.
struct FittedCopyReport {
    var framesRead = 0
    var framesWritten = 0
    var bytes = 0
    /// CPU seconds this thread spent.
    var cpuSeconds = 0.0
    /// CPU of decoding the whole source, and the whole copy (its check), one thread.
    var sourceDecode: Nanos = 0
    var copyDecode: Nanos = 0
}

/// x264's settings for copies, chosen by measurement (docs/performance.md, "The fitted copy's
/// encoder"): `veryfast` makes a copy in a few CPU-seconds per second of 1080p;
/// `tune=fastdecode` (no CABAC, no deblocking, no weighted prediction) is what makes the copy
/// cheap to decode for ever after, at the price of a larger file; CRF 16 by default keeps
/// PSNR above 40 dB on natural motion. B-frames that no frame refers to (`b-pyramid=none`)
/// are what the frame cap's decoder skips without decoding; a keyframe every 2 s at most
/// keeps a seek (the loop's rewind) cheap.
enum FitEncoder {
    static let preset = "veryfast"
    static let tune = "fastdecode"
    static let x264Params = "bframes=2:b-pyramid=none:keyint=60:min-keyint=1:threads=1:log=-1"
}

enum FittedCopy {
    /// Makes the copy of `source` at `output` (written as `output`.part-PID, then renamed).
    /// `progress` hears the share done (0…1); `stop` is asked before each frame. On any error
    /// nothing is left at `output` or beside it.
    static func make(source: String, size: Size, keepEvery: Int, quality: Int, output: String, tag: String,
                     progress: (Double) -> Void, stop: () -> Bool) throws(FitError) -> FittedCopyReport {
        let part = output + ".part-\(getpid())"
        let cpuStart = Sys.threadCPU()
        let job: FitJob
        do { job = try FitJob(source: source, part: part, size: size, keepEvery: keepEvery, quality: quality, tag: tag) } catch {
            unlink(part)
            throw error
        }
        var copyDecode: Nanos = 0
        do throws(FitError) {
            try job.run(progress: progress, stop: stop)
            job.close()
            // The check: the copy decodes, every frame of it, and what that costs.
            let (frames, nanos) = try decodeAll(part)
            guard frames == job.report.framesWritten else {
                throw FitError("'\(source)': the copy failed its check: \(frames) frames decoded of \(job.report.framesWritten) written")
            }
            copyDecode = nanos
            guard rename(part, output) == 0 else { throw FitError("cannot move the copy into place at '\(output)': \(Sys.errnoText())") }
        } catch {
            job.close()
            unlink(part)
            throw error
        }
        var st = stat()
        var report = job.report
        report.bytes = stat(output, &st) == 0 ? Int(st.st_size) : 0
        report.cpuSeconds = Double(Sys.threadCPU() - cpuStart - copyDecode) / 1e9
        report.copyDecode = copyDecode
        return report
    }

    /// Decodes every frame of `path` on one thread (FewFrames, as the start-up check does):
    /// how many, and this thread's CPU for it.
    static func decodeAll(_ path: String) throws(FitError) -> (frames: Int, nanos: Nanos) {
        let decoder: FewFrames
        do { decoder = try FewFrames(path, device: nil, extraFrames: 0) } catch {
            throw FitError("the copy failed its check: \(FitJob.reason(error))")
        }
        guard let frame = av_frame_alloc() else { throw FitError("the copy failed its check: out of memory") }
        defer { var f: UnsafeMutablePointer<AVFrame>? = frame; av_frame_free(&f) }
        let start = Sys.threadCPU()
        var frames = 0
        while true {
            switch decoder.next(into: frame, strictReceive: true, strictSend: true) {
            case .success(true):
                frames += 1
                av_frame_unref(frame)
            case .success(false): return (frames, Sys.threadCPU() - start)
            case .failure(let e): throw FitError("the copy failed its check: \(e)")
            }
        }
    }
}

/// The open input and decoder (FewFrames), scaler, encoder and muxer of one copy; `close()`
/// frees them (again: nothing).
private final class FitJob {
    private var decoder: FewFrames?
    private var encoder: UnsafeMutablePointer<AVCodecContext>?
    private var output: UnsafeMutablePointer<AVFormatContext>?
    private var scaler: avx_sws?
    private var scaled: UnsafeMutablePointer<AVFrame>?
    private let source: String, keepEvery: Int, size: Size
    private let inTimeBase: AVRational
    private let expectedFrames: Double
    /// Opened at the first decoded frame, whose colour the copy says it has.
    private let part: String, quality: Int, tag: String
    private let stream: UnsafeMutablePointer<AVStream>
    private(set) var report = FittedCopyReport()
    /// Kept frames' times (source time base) and the packets held until their duration is known.
    private var keptTimes: [Int64] = []
    private var held: [UnsafeMutablePointer<AVPacket>?] = []
    private var endTime: Int64?

    init(source: String, part: String, size: Size, keepEvery: Int, quality: Int, tag: String) throws(FitError) {
        self.source = source
        self.size = size
        self.part = part
        self.quality = quality
        self.tag = tag
        self.keepEvery = max(1, keepEvery)
        // The source on one thread, in software: FewFrames, as the start-up check decodes.
        let opened: FewFrames
        do { opened = try FewFrames(source, device: nil, extraFrames: 0) } catch { throw FitError(Self.reason(error)) }
        decoder = opened
        stream = opened.input.stream
        inTimeBase = stream.pointee.time_base
        let rate = av_q2d(stream.pointee.avg_frame_rate)
        let seconds = stream.pointee.duration > 0 ? Double(stream.pointee.duration) * av_q2d(inTimeBase)
            : Double(opened.input.format.pointee.duration) / 1e6
        expectedFrames = stream.pointee.nb_frames > 0 ? Double(stream.pointee.nb_frames) : max(1, seconds * rate)
    }

    /// FewFrames' reason, as one line.
    static func reason(_ e: FewFrames.OpenError) -> String {
        switch e {
        case .video(let v): return "\(v)"
        case .codec(let why): return "cannot open its decoder: \(why)"
        }
    }

    private func fail(_ what: String, _ rc: Int32) -> FitError { FitError("'\(source)': \(what): \(AVError.reason(rc))") }

    /// The encoder and muxer, with the colour of `first`, the first frame decoded.
    private func openOutput(_ first: UnsafeMutablePointer<AVFrame>) throws(FitError) {
        var oc: UnsafeMutablePointer<AVFormatContext>?
        var rc = avformat_alloc_output_context2(&oc, nil, "mp4", part)
        guard rc >= 0, let out = oc else { throw fail("cannot make an MP4 muxer", rc) }
        output = out
        guard let codec = avcodec_find_encoder_by_name("libx264") else {
            throw FitError("this FFmpeg has no libx264 encoder: fitted copies cannot be made (--fit off)")
        }
        guard let st = avformat_new_stream(out, nil), let enc = avcodec_alloc_context3(codec), let dec = decoder?.context else {
            throw FitError("'\(source)': out of memory for an encoder")
        }
        encoder = enc
        enc.pointee.width = Int32(size.width)
        enc.pointee.height = Int32(size.height)
        enc.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        enc.pointee.time_base = inTimeBase
        var rate = stream.pointee.avg_frame_rate
        if rate.num > 0 && rate.den > 0 { rate.den *= Int32(keepEvery) }
        enc.pointee.framerate = rate
        enc.pointee.sample_aspect_ratio = dec.pointee.sample_aspect_ratio
        enc.pointee.color_range = first.pointee.color_range
        enc.pointee.colorspace = first.pointee.colorspace
        enc.pointee.color_primaries = first.pointee.color_primaries
        enc.pointee.color_trc = first.pointee.color_trc
        enc.pointee.chroma_sample_location = first.pointee.chroma_location
        enc.pointee.thread_count = 1
        if out.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 { enc.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER) }
        var opts: OpaquePointer?
        av_dict_set(&opts, "preset", FitEncoder.preset, 0)
        av_dict_set(&opts, "tune", FitEncoder.tune, 0)
        av_dict_set(&opts, "crf", "\(quality)", 0)
        av_dict_set(&opts, "x264-params", FitEncoder.x264Params, 0)
        rc = avcodec_open2(enc, codec, &opts)
        av_dict_free(&opts)
        guard rc >= 0 else { throw fail("cannot open the H.264 encoder", rc) }
        rc = avcodec_parameters_from_context(st.pointee.codecpar, enc)
        guard rc >= 0 else { throw fail("cannot set up the copy's stream", rc) }
        st.pointee.time_base = enc.pointee.time_base
        st.pointee.sample_aspect_ratio = enc.pointee.sample_aspect_ratio
        // Rotation: the display matrix goes with the stream, as the source had it.
        var n: Int = 0
        if let matrix = avx_stream_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &n), n > 0,
           let copy = avx_stream_new_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, n) {
            memcpy(copy, matrix, n)
        }
        av_dict_set(&out.pointee.metadata, "comment", tag, 0)
        rc = avio_open(&out.pointee.pb, part, AVIO_FLAG_WRITE)
        guard rc >= 0 else { throw FitError("cannot write '\(part)': \(AVError.text(rc))") }
        rc = avformat_write_header(out, nil)
        guard rc >= 0 else { throw fail("cannot write the copy's header", rc) }
        try openScaled()
    }

    private func openScaled() throws(FitError) {
        guard let frame = av_frame_alloc() else { throw FitError("'\(source)': out of memory for a frame") }
        scaled = frame
        frame.pointee.width = Int32(size.width)
        frame.pointee.height = Int32(size.height)
        frame.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        let rc = av_frame_get_buffer(frame, 0)
        guard rc >= 0 else { throw fail("cannot hold a scaled frame", rc) }
    }

    /// Decodes the whole source, keeping and encoding its frames; then drains both codecs.
    func run(progress: (Double) -> Void, stop: () -> Bool) throws(FitError) {
        guard let decoder else { return }
        guard let frame = av_frame_alloc() else { throw FitError("out of memory") }
        defer { var f: UnsafeMutablePointer<AVFrame>? = frame; av_frame_free(&f) }
        decoding: while true {
            if stop() { throw FitError("'\(source)': stopped", stopped: true) }
            let t0 = Sys.threadCPU()
            let got = decoder.next(into: frame, strictReceive: true, strictSend: true)
            report.sourceDecode += Sys.threadCPU() - t0
            switch got {
            case .failure(let e): throw FitError("'\(source)': cannot decode it: \(e)")
            case .success(false): break decoding
            case .success(true):
                defer { av_frame_unref(frame) }
                try take(frame)
                progress(min(1, Double(report.framesRead) / expectedFrames))
            }
        }
        guard report.framesRead > 0 else { throw FitError("'\(source)': no frame could be decoded") }
        guard let enc = encoder else { return }
        avcodec_send_frame(enc, nil)
        try receivePackets(final: true)
        var rc = av_write_trailer(output)
        guard rc >= 0 else { throw fail("cannot finish the copy", rc) }
        // The file's last bytes are written when it closes: a full disk is said here, or never.
        if let out = output, out.pointee.pb != nil {
            let failed = out.pointee.pb.pointee.error
            rc = avio_closep(&out.pointee.pb)
            if failed < 0 { rc = failed }
            guard rc >= 0 else { throw FitError("cannot write the copy '\(part)': \(AVError.text(rc))") }
        }
        progress(1)
    }

    /// One decoded frame: its time noted (the end of the loop follows the last), and kept when
    /// its turn comes.
    private func take(_ frame: UnsafeMutablePointer<AVFrame>) throws(FitError) {
        let index = report.framesRead
        report.framesRead += 1
        var time = frame.pointee.best_effort_timestamp
        if time == avx_nopts() { time = (keptTimes.last ?? 0) + 1 }
        var duration = avx_frame_duration(frame)
        let rate = stream.pointee.avg_frame_rate
        if duration <= 0, rate.num > 0, rate.den > 0 { duration = av_rescale_q(1, av_inv_q(rate), inTimeBase) }
        endTime = max(endTime ?? Int64.min, time + max(duration, 1))
        guard index % keepEvery == 0 else { return }
        if encoder == nil { try openOutput(frame) }
        guard let out = scaled, let enc = encoder else { return }
        try scale(frame, into: out)
        out.pointee.pts = time
        keptTimes.append(time)
        let rc = avcodec_send_frame(enc, out)
        guard rc >= 0 else { throw fail("cannot encode the copy", rc) }
        report.framesWritten += 1
        try receivePackets(final: false)
    }

    private func scale(_ frame: UnsafeMutablePointer<AVFrame>, into out: UnsafeMutablePointer<AVFrame>) throws(FitError) {
        let format = AVPixelFormat(rawValue: frame.pointee.format)
        let before = scaler
        scaler = avx_sws_get_cached_context(scaler, frame.pointee.width, frame.pointee.height, format,
                                            out.pointee.width, out.pointee.height, AV_PIX_FMT_YUV420P, avx_sws_bicubic())
        guard let sws = scaler else { throw FitError("'\(source)': libswscale cannot scale its frames") }
        if sws != before {
            // The same matrix and range on both sides: only the size and the depth change.
            let full: Int32 = frame.pointee.color_range == AVCOL_RANGE_JPEG ? 1 : 0
            let coefficients = sws_getCoefficients(Int32(frame.pointee.colorspace.rawValue == 0 ? 2 : frame.pointee.colorspace.rawValue))
            _ = avx_sws_set_colorspace_details(sws, coefficients, full, coefficients, full, 0, 1 << 16, 1 << 16)
        }
        guard av_frame_make_writable(out) >= 0 else { throw FitError("'\(source)': cannot write a scaled frame") }
        let rc = avx_sws_scale_frame(sws, out, frame)
        guard rc >= 0 else { throw fail("libswscale failed on a frame", rc) }
        out.pointee.color_range = frame.pointee.color_range
        out.pointee.colorspace = frame.pointee.colorspace
        out.pointee.color_primaries = frame.pointee.color_primaries
        out.pointee.color_trc = frame.pointee.color_trc
    }

    /// The encoder's packets, each written once its duration is known (the next kept frame's
    /// time, or for the last one the end of the source's last frame).
    private func receivePackets(final: Bool) throws(FitError) {
        guard let enc = encoder else { return }
        while true {
            guard let packet = av_packet_alloc() else { throw FitError("out of memory") }
            let rc = avcodec_receive_packet(enc, packet)
            if rc == avx_error_eagain() || rc == avx_error_eof() {
                var p: UnsafeMutablePointer<AVPacket>? = packet
                av_packet_free(&p)
                break
            }
            guard rc >= 0 else {
                var p: UnsafeMutablePointer<AVPacket>? = packet
                av_packet_free(&p)
                throw fail("cannot encode the copy", rc)
            }
            held.append(packet)
        }
        try writeHeld(final: final)
    }

    private func writeHeld(final: Bool) throws(FitError) {
        guard let out = output, let st = out.pointee.streams[0] else { return }
        while let first = held.first, let packet = first {
            let pts = packet.pointee.pts
            let next = FitJob.firstAfter(pts, in: keptTimes)
            let end: Int64
            if let next { end = next } else if final, let e = endTime { end = e } else { return }
            packet.pointee.duration = max(1, end - pts)
            packet.pointee.stream_index = 0
            av_packet_rescale_ts(packet, inTimeBase, st.pointee.time_base)
            let rc = av_interleaved_write_frame(out, packet)
            held.removeFirst()
            var p: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&p)
            guard rc >= 0 else { throw fail("cannot write the copy", rc) }
        }
    }

    /// The first of `times` (increasing: the decoder gives frames in presentation order) after
    /// `t`; nil if none is yet.
    static func firstAfter(_ t: Int64, in times: [Int64]) -> Int64? {
        var lo = 0, hi = times.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if times[mid] > t { hi = mid } else { lo = mid + 1 }
        }
        return lo < times.count ? times[lo] : nil
    }

    func close() {
        for packet in held {
            var p = packet
            av_packet_free(&p)
        }
        held.removeAll()
        if let out = output {
            if out.pointee.pb != nil { avio_closep(&out.pointee.pb) }
            avformat_free_context(out)
            output = nil
        }
        avcodec_free_context(&encoder)
        decoder = nil
        av_frame_free(&scaled)
        if let s = scaler { avx_sws_free(s); scaler = nil }
    }
}
