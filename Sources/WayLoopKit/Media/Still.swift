// Stills: one frame of a video decoded at a time into its loop (`wayloop thumbnail`), a picture
// converted as the shm renderer converts it (its ShmConverter, into memory of the same layout)
// and read out as shown (the orientation the compositor would apply), and a PNG written with
// FFmpeg's own encoder (no new library). Main thread only.
import CFFmpeg
import CSystem
import Glibc
import WayLoopCore

/// Pixels in memory laid out as a shm buffer is (rows 64-byte aligned with a spare pixel, a
/// spare row above and below), so that the shm renderer's converter writes into it unchanged.
final class RGBImage: PixelCanvas {
    let size: Size
    let stride: Int
    let data: UnsafeMutableRawPointer
    private let memory: UnsafeMutableRawPointer
    private let bytes: Int
    var bars: (rect: PixelRect, colour: RGB)?

    init?(size: Size) {
        guard !size.isEmpty, size.width <= ThumbnailCommand.maxSide, size.height <= ThumbnailCommand.maxSide else { return nil }
        self.size = size
        stride = CanvasLayout.stride(width: size.width)
        bytes = stride * (size.height + 2) + 4
        guard let m = calloc(1, bytes) else { return nil }
        memory = m
        data = m + CanvasLayout.lead(stride)
    }
    deinit { free(memory) }

    func fill(_ c: RGB) {
        CanvasLayout.fill(data, count: (bytes - CanvasLayout.lead(stride)) / 4, with: c)
    }

    /// Packed RGB (3 bytes a pixel, rows without padding) as shown: turned and mirrored by
    /// `orientation`, so a picture stored on its side comes out upright.
    func rgb(shownAs orientation: Orientation) -> (pixels: [UInt8], size: Size) {
        let shown = orientation.displaySize(size)
        var out = [UInt8](repeating: 0, count: shown.width * shown.height * 3)
        let src = data.assumingMemoryBound(to: UInt8.self)
        out.withUnsafeMutableBufferPointer { o in
            var k = 0
            for y in 0..<shown.height {
                for x in 0..<shown.width {
                    let (sx, sy) = orientation.storedPixel(x: x, y: y, stored: size)
                    let p = src + sy * stride + sx * 4
                    // Memory order B, G, R, X (XRGB8888, little-endian).
                    o[k] = p[2]
                    o[k + 1] = p[1]
                    o[k + 2] = p[0]
                    k += 3
                }
            }
        }
        return (out, shown)
    }
}

enum Still {
    /// Why a still could not be made: one line.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    /// `picture` placed on an output of `output` pixels (as shown) with these settings, converted
    /// as the shm renderer converts it; packed RGB as shown.
    static func render(_ picture: Picture, output: Size, mode: ScaleMode, color: RGB, dim: Double,
                       span: SpanView? = nil) throws(Failure) -> (pixels: [UInt8], size: Size) {
        let o = picture.orientation
        let stored = o.rotation % 180 == 0 ? output : Size(width: output.height, height: output.width)
        guard let image = RGBImage(size: stored) else { throw Failure("cannot hold a \(output) picture in memory") }
        let key = ShmPictures.Key(size: stored, mode: mode, color: color, dim: dim, span: span?.stored(o))
        do { try ShmConverter().convert(picture, into: image, key: key, format: .bgrx) } catch {
            throw Failure("cannot convert the picture: \(error)")
        }
        return image.rgb(shownAs: o)
    }

    /// One colour filling an output (a fallback colour on screen).
    static func solid(_ c: RGB, size: Size) -> (pixels: [UInt8], size: Size) {
        var out = [UInt8](repeating: 0, count: size.width * size.height * 3)
        for i in stride(from: 0, to: out.count, by: 3) {
            out[i] = c.red
            out[i + 1] = c.green
            out[i + 2] = c.blue
        }
        return (out, size)
    }

    // MARK: PNG

    /// Writes packed RGB as a PNG (FFmpeg's encoder) to `path`: a temporary file beside it,
    /// then renamed, so that a reader never sees half a picture.
    static func writePNG(_ pixels: [UInt8], size: Size, to path: String) throws(Failure) {
        let png = try encodePNG(pixels, size: size)
        let failure = Sys.writeWhole(png, to: path, mode: 0o644, sync: false)
        if failure != 0 { throw Failure("cannot write '\(path)': \(whyNot(path, failure))") }
    }

    /// A directory named as FILE says so (rename's EISDIR, open's EISDIR...).
    private static func whyNot(_ path: String, _ code: Int32) -> String {
        var st = stat()
        if stat(Sys.cPath(path), &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR { return "it is a directory" }
        return Sys.errnoText(code)
    }

    private static func encodePNG(_ pixels: [UInt8], size: Size) throws(Failure) -> [UInt8] {
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_PNG) else { throw Failure("this FFmpeg has no PNG encoder") }
        var ctx = avcodec_alloc_context3(codec)
        defer { avcodec_free_context(&ctx) }
        var frame = av_frame_alloc()
        defer { av_frame_free(&frame) }
        var packet = av_packet_alloc()
        defer { av_packet_free(&packet) }
        guard let ctx, let frame, let packet else { throw Failure("out of memory") }
        ctx.pointee.width = Int32(size.width)
        ctx.pointee.height = Int32(size.height)
        ctx.pointee.pix_fmt = AV_PIX_FMT_RGB24
        ctx.pointee.time_base = AVRational(num: 1, den: 1)
        guard avcodec_open2(ctx, codec, nil) >= 0 else { throw Failure("cannot open FFmpeg's PNG encoder") }
        frame.pointee.format = AV_PIX_FMT_RGB24.rawValue
        frame.pointee.width = Int32(size.width)
        frame.pointee.height = Int32(size.height)
        guard av_frame_get_buffer(frame, 0) >= 0, let dst = frame.pointee.data.0 else { throw Failure("out of memory") }
        let line = Int(frame.pointee.linesize.0), row = size.width * 3
        pixels.withUnsafeBytes { src in
            for y in 0..<size.height { memcpy(dst + y * line, src.baseAddress! + y * row, row) }
        }
        let rc = avcodec_send_frame(ctx, frame)
        guard rc >= 0 else { throw Failure("PNG encoding failed: \(AVError.text(rc))") }
        // Flush: the encoder's one packet comes out below.
        _ = avcodec_send_frame(ctx, nil)
        var out: [UInt8] = []
        while avcodec_receive_packet(ctx, packet) >= 0 {
            out += UnsafeBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size))
            av_packet_unref(packet)
        }
        guard !out.isEmpty else { throw Failure("PNG encoding gave nothing") }
        return out
    }
}

/// One frame of a video, decoded on this thread: for `wayloop thumbnail`.
enum StillDecoder {
    /// The frame shown at `at` seconds into the loop (modulo its length), and how it is turned.
    /// The caller frees the frame (av_frame_free).
    static func frame(_ path: String, at: Double, hwdec: HwdecMode = .no, hwdecDevice: String? = nil,
                      notice: (String) -> Void = { _ in }) throws(VideoError) -> (frame: UnsafeMutablePointer<AVFrame>, orientation: Orientation) {
        let (decoder, device) = try open(path, hwdec: hwdec, hwdecDevice: hwdecDevice, notice: notice)
        let f = decoder.input.format, stream = decoder.input.stream
        // Where in the loop: the stream's (else the file's) length; a still has none.
        let tb = stream.pointee.time_base
        var length: Double?
        if stream.pointee.duration != avx_nopts() && stream.pointee.duration > 0 && tb.den > 0 {
            length = Double(stream.pointee.duration) * Double(tb.num) / Double(tb.den)
        } else if f.pointee.duration != avx_nopts() && f.pointee.duration > 0 {
            length = Double(f.pointee.duration) / 1e6
        }
        let t = ThumbnailCommand.time(at, inLoopOf: length)
        let start = stream.pointee.start_time != avx_nopts() ? stream.pointee.start_time : 0
        let target = tb.num > 0 ? start + Int64(t * Double(tb.den) / Double(tb.num)) : start
        if t > 0 { _ = av_seek_frame(f, decoder.input.streamIndex, target, avx_seek_backward()) }
        var best = try frame(at: target, from: decoder, path: path)
        if let device { best = try copied(best, from: device, path: path, notice: notice) }
        return (try converted(best, path: path), Decoder.orientation(of: stream))
    }

    /// The clip's decoder: on the first hardware path whose device opens (no start-up check
    /// for one still: the picture is the check's subject, as the tests compare it with
    /// software's), else in software, with one notice saying why.
    private static func open(_ path: String, hwdec: HwdecMode, hwdecDevice: String?,
                             notice: (String) -> Void) throws(VideoError) -> (FewFrames, HwDevice?) {
        let input = try VideoInput.open(path)
        let par = input.stream.pointee.codecpar!
        let pixfmt = AVPixelFormat(rawValue: par.pointee.format)
        let decoderName = String(cString: input.decoder.pointee.name)
        var hw = HwdecState(mode: hwdec, stream: HwdecStream(codec: String(cString: avcodec_get_name(par.pointee.codec_id)),
                                                             bitDepth: Int(avx_pix_fmt_depth(pixfmt)), chroma420: avx_pix_fmt_is_420(pixfmt) == 1))
        var device: HwDevice?
        while case .trying(let p) = hw.phase {
            switch HwDevice.open(p, device: hwdecDevice, codec: input.decoder, auto: hwdec == .auto) {
            case .failure(let why): hw.failed(why)
            case .success(let d): device = d; hw.passed(device: d.name)
            }
        }
        if case .software(let why?) = hw.phase, hwdec != .no { notice("decoded in software (\(why))") }
        do { return (try FewFrames(input: input, device: device, extraFrames: 2), device) } catch {
            switch error {
            case .video(let e): throw e
            case .codec: throw .unsupportedCodec(path, codec: decoderName)
            }
        }
    }

    /// The last frame at or before `target` (the one on screen then), or the first after it
    /// when none comes before. The caller frees it.
    private static func frame(at target: Int64, from decoder: FewFrames, path: String) throws(VideoError) -> UnsafeMutablePointer<AVFrame> {
        var got = av_frame_alloc()
        defer { av_frame_free(&got) }
        guard let got, let best = av_frame_alloc() else { throw .decodeFailed(path, reason: "out of memory") }
        var have = false
        while case .success(true) = decoder.next(into: got, strictReceive: false, strictSend: false) {
            let pts = got.pointee.best_effort_timestamp
            if have && pts != avx_nopts() && pts > target { break }
            av_frame_unref(best)
            av_frame_move_ref(best, got)
            have = true
            if pts != avx_nopts() && pts >= target { break }
        }
        guard have else {
            var b: UnsafeMutablePointer<AVFrame>? = best
            av_frame_free(&b)
            throw .decodeFailed(path, reason: "no frame could be decoded")
        }
        return best
    }

    /// A frame on `device` copied back into memory (a software frame as it is, with a notice);
    /// `frame` is freed.
    private static func copied(_ frame: UnsafeMutablePointer<AVFrame>, from device: HwDevice, path: String,
                               notice: (String) -> Void) throws(VideoError) -> UnsafeMutablePointer<AVFrame> {
        guard device.owns(frame) else {
            notice("\(device.path.rawValue): \(HwdecFailure.notHardware): decoded in software")
            return frame
        }
        var old: UnsafeMutablePointer<AVFrame>? = frame
        defer { av_frame_free(&old) }
        guard let soft = av_frame_alloc() else { throw .decodeFailed(path, reason: "out of memory") }
        let rc = device.download(frame, into: soft)
        guard rc >= 0 else {
            var s: UnsafeMutablePointer<AVFrame>? = soft
            av_frame_free(&s)
            throw .decodeFailed(path, reason: "\(device.path.rawValue): the frame could not be copied back: \(AVError.text(rc))")
        }
        return soft
    }

    /// A new reference to `frame`, converted (below) where no renderer takes its format; the
    /// caller frees it and still owns `frame`.
    static func convertedCopy(_ frame: UnsafeMutablePointer<AVFrame>, path: String) throws(VideoError) -> UnsafeMutablePointer<AVFrame> {
        guard let copy = av_frame_clone(frame) else { throw .decodeFailed(path, reason: "out of memory") }
        return try converted(copy, path: path)
    }

    /// A frame in a format no renderer takes goes through libswscale, as the decoder thread's
    /// do; `frame` is freed when it is replaced.
    private static func converted(_ frame: UnsafeMutablePointer<AVFrame>, path: String) throws(VideoError) -> UnsafeMutablePointer<AVFrame> {
        guard PlaneLayout(frame: frame) == nil else { return frame }
        var old: UnsafeMutablePointer<AVFrame>? = frame
        defer { av_frame_free(&old) }
        var out = av_frame_alloc()
        guard let o = out, PixelConverter(log: Logger(label: "thumbnail", level: .error, sink: { _ in })).convert(frame, into: o, maxSize: ThumbnailCommand.maxSide) else {
            av_frame_free(&out)
            throw .decodeFailed(path, reason: "cannot convert its pixel format")
        }
        return o
    }
}

/// `wayloop thumbnail`: a still of VIDEO as an output of `--size` would show it, written as a
/// PNG, without a compositor. One error line and a non-zero status for anything that fails.
enum Thumbnail {
    static func run(_ command: ThumbnailCommand) -> ExitStatus {
        func fail(_ line: String, _ status: ExitStatus) -> ExitStatus {
            Sys.writeStderr("wayloop: error: \(line)")
            return status
        }
        let cwd = Sys.currentDirectory, home = Sys.env("HOME")
        let video = Paths.absolute(Workshop.resolvePath(Sys.findVideo(command.video, here: cwd) ?? command.video, here: cwd), in: cwd, home: home)
        let file = Paths.absolute(command.file, in: cwd, home: home)
        if let e = Preflight.check(video) { return fail("video: \(e)", .badVideo) }
        av_quiet()
        let decoded: (frame: UnsafeMutablePointer<AVFrame>, orientation: Orientation)
        do {
            decoded = try StillDecoder.frame(video, at: command.at, hwdec: command.hwdec, hwdecDevice: command.hwdecDevice) {
                Sys.writeStderr("wayloop: notice: --hwdec \(command.hwdec.rawValue): \($0)")
            }
        } catch { return fail("video: \(error)", .badVideo) }
        var frame: UnsafeMutablePointer<AVFrame>? = decoded.frame
        defer { av_frame_free(&frame) }
        guard let picture = Picture(frame: decoded.frame, serial: FrameSerials.next(), clip: video, orientation: decoded.orientation) else {
            return fail("video: '\(video)' cannot be played: its pixel format cannot be converted", .badVideo)
        }
        let size = command.size ?? decoded.orientation.displaySize(picture.size)
        do {
            let still = try Still.render(picture, output: size, mode: command.mode, color: command.color, dim: command.dim)
            try Still.writePNG(still.pixels, size: still.size, to: file)
        } catch { return fail("thumbnail: \(error)", .failure) }
        return .ok
    }
}
