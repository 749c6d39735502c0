// A picker's previews of a video: a PNG still of its first frame and a small looping GIF of its
// first seconds (PreviewPlan), decoded in software on this thread, each frame placed as the shm
// renderer places it (Still.render: fill, the video's colours and rotation), the GIF through
// FFmpeg's own encoder and muxer with a median-cut palette (Palette). Each file is written beside
// its name and renamed into place, so that a reader never sees half of one.
import CFFmpeg
import CSystem
import Glibc
import WayLoopCore

enum PreviewMaker {
    static func make(_ path: String, thumbnail: String, preview: String) throws(Still.Failure) {
        let dir = FileWatcher.directory(thumbnail)
        if let why = Sys.makeDirectories(dir) { throw Still.Failure("cannot make the preview cache (\(why))") }
        let decoder: FewFrames
        do { decoder = try FewFrames(path, device: nil, extraFrames: 0) } catch {
            switch error {
            case .video(let e): throw Still.Failure(e.reason)
            case .codec(let why): throw Still.Failure("its decoder cannot be opened (\(why))")
            }
        }
        let stream = decoder.input.stream
        let orientation = Decoder.orientation(of: stream)
        let tb = stream.pointee.time_base
        var got = av_frame_alloc()
        defer { av_frame_free(&got) }
        guard let got else { throw Still.Failure("out of memory") }
        var frames: [[UInt8]] = []
        var size: Size?
        var first: Int64?
        var last: Int?
        while case .success(true) = decoder.next(into: got, strictReceive: false, strictSend: false) {
            defer { av_frame_unref(got) }
            let pts = got.pointee.best_effort_timestamp
            let t0 = first ?? (pts == avx_nopts() ? 0 : pts)
            first = t0
            let seconds = pts == avx_nopts() || tb.den == 0 ? Double(frames.count) / PreviewPlan.fps
                : Double(pts - t0) * Double(tb.num) / Double(tb.den)
            if seconds >= PreviewPlan.seconds { break }
            guard let slot = PreviewPlan.slot(at: seconds, after: last) else { continue }
            last = slot
            let frame: UnsafeMutablePointer<AVFrame>
            do { frame = try StillDecoder.convertedCopy(got, path: path) } catch { throw Still.Failure(error.reason) }
            var owned: UnsafeMutablePointer<AVFrame>? = frame
            defer { av_frame_free(&owned) }
            guard let picture = Picture(frame: frame, serial: FrameSerials.next(), clip: path, orientation: orientation) else {
                throw Still.Failure("its pixel format cannot be converted")
            }
            let shown = orientation.displaySize(picture.size)
            if frames.isEmpty {
                let still = try Still.render(picture, output: PreviewPlan.size(of: shown, width: PreviewPlan.thumbnailWidth),
                                             mode: .fill, color: RGB(red: 0, green: 0, blue: 0), dim: 0)
                try Still.writePNG(still.pixels, size: still.size, to: thumbnail)
            }
            let s = size ?? PreviewPlan.size(of: shown, width: PreviewPlan.previewWidth)
            size = s
            frames.append(try Still.render(picture, output: s, mode: .fill, color: RGB(red: 0, green: 0, blue: 0), dim: 0).pixels)
        }
        guard let size, !frames.isEmpty else { throw Still.Failure("no frame could be decoded") }
        try GIFWriter.write(frames, size: size, delay: Int((100 / PreviewPlan.fps).rounded()), to: preview)
    }
}

/// Frames of packed RGB as a looping GIF: one palette for all (median cut), FFmpeg's GIF encoder
/// and muxer (which loops for ever by default).
enum GIFWriter {
    /// `delay`: hundredths of a second each frame shows.
    static func write(_ frames: [[UInt8]], size: Size, delay: Int, to path: String) throws(Still.Failure) {
        let pixels = frames.reduce(0) { $0 + $1.count / 3 }
        let palette = Palette.medianCut(frames.flatMap { $0 }, count: 256, sampleStep: max(1, pixels / 300_000))
        let tmp = path + ".tmp-\(getpid())"
        var oc: UnsafeMutablePointer<AVFormatContext>?
        var enc: UnsafeMutablePointer<AVCodecContext>?
        var frame = av_frame_alloc()
        var packet = av_packet_alloc()
        var ok = false
        defer {
            if let out = oc {
                if out.pointee.pb != nil { avio_closep(&out.pointee.pb) }
                avformat_free_context(out)
            }
            avcodec_free_context(&enc)
            av_frame_free(&frame)
            av_packet_free(&packet)
            if !ok { unlink(Sys.cPath(tmp)) }
        }
        func fail(_ what: String, _ rc: Int32) -> Still.Failure { Still.Failure("\(what): \(AVError.text(rc))") }
        guard let frame, let packet else { throw Still.Failure("out of memory") }
        var rc = avformat_alloc_output_context2(&oc, nil, "gif", tmp)
        guard rc >= 0, let out = oc else { throw fail("cannot make a GIF muxer", rc) }
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_GIF) else { throw Still.Failure("this FFmpeg has no GIF encoder") }
        guard let st = avformat_new_stream(out, nil), let e = avcodec_alloc_context3(codec) else { throw Still.Failure("out of memory") }
        enc = e
        e.pointee.width = Int32(size.width)
        e.pointee.height = Int32(size.height)
        e.pointee.pix_fmt = AV_PIX_FMT_PAL8
        e.pointee.time_base = AVRational(num: 1, den: 100)
        rc = avcodec_open2(e, codec, nil)
        guard rc >= 0 else { throw fail("cannot open the GIF encoder", rc) }
        rc = avcodec_parameters_from_context(st.pointee.codecpar, e)
        guard rc >= 0 else { throw fail("cannot set up the GIF stream", rc) }
        st.pointee.time_base = e.pointee.time_base
        rc = avio_open(&out.pointee.pb, tmp, AVIO_FLAG_WRITE)
        guard rc >= 0 else { throw Still.Failure("cannot write '\(tmp)': \(AVError.text(rc))") }
        rc = avformat_write_header(out, nil)
        guard rc >= 0 else { throw fail("cannot write the GIF's header", rc) }

        func drain() throws(Still.Failure) {
            while true {
                let r = avcodec_receive_packet(e, packet)
                if r == avx_error_eagain() || r == avx_error_eof() { return }
                guard r >= 0 else { throw fail("cannot encode the GIF", r) }
                packet.pointee.duration = Int64(delay)
                packet.pointee.stream_index = 0
                av_packet_rescale_ts(packet, e.pointee.time_base, st.pointee.time_base)
                let w = av_interleaved_write_frame(out, packet)
                av_packet_unref(packet)
                guard w >= 0 else { throw fail("cannot write the GIF", w) }
            }
        }
        var memo: [UInt32: UInt8] = [:]
        for (i, rgb) in frames.enumerated() {
            frame.pointee.width = Int32(size.width)
            frame.pointee.height = Int32(size.height)
            frame.pointee.format = AV_PIX_FMT_PAL8.rawValue
            rc = av_frame_get_buffer(frame, 0)
            guard rc >= 0 else { throw fail("out of memory for a GIF frame", rc) }
            let indices = palette.indices(rgb, memo: &memo)
            let line = Int(frame.pointee.linesize.0)
            let data = frame.pointee.data.0!
            indices.withUnsafeBufferPointer { src in
                for y in 0..<size.height { memcpy(data + y * line, src.baseAddress! + y * size.width, size.width) }
            }
            let pal = UnsafeMutableRawPointer(frame.pointee.data.1!).assumingMemoryBound(to: UInt32.self)
            for k in 0..<256 {
                let c = k < palette.colors.count ? palette.colors[k] : RGB(red: 0, green: 0, blue: 0)
                pal[k] = 0xff00_0000 | UInt32(c.red) << 16 | UInt32(c.green) << 8 | UInt32(c.blue)
            }
            frame.pointee.pts = Int64(i * delay)
            rc = avcodec_send_frame(e, frame)
            av_frame_unref(frame)
            guard rc >= 0 else { throw fail("cannot encode the GIF", rc) }
            try drain()
        }
        rc = avcodec_send_frame(e, nil)
        guard rc >= 0 else { throw fail("cannot encode the GIF", rc) }
        try drain()
        rc = av_write_trailer(out)
        guard rc >= 0 else { throw fail("cannot finish the GIF", rc) }
        avio_closep(&out.pointee.pb)
        guard rename(Sys.cPath(tmp), Sys.cPath(path)) == 0 else { throw Still.Failure("cannot write '\(path)': \(Sys.errnoText())") }
        ok = true
    }
}
