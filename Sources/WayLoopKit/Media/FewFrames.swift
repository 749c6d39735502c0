// A video decoded on the calling thread for a few frames: the hardware start-up check (the
// first frames both ways) and a still (`wayloop thumbnail`). The demuxer, a one-thread codec
// context (on a device where given) and the packet between them, freed together.
import CFFmpeg
import CSystem
import WayLoopCore

final class FewFrames {
    let input: VideoInput
    let context: UnsafeMutablePointer<AVCodecContext>
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var draining = false

    /// Why it could not be opened: the file, or the codec (with FFmpeg's reason).
    enum OpenError: Error {
        case video(VideoError)
        case codec(String)
    }

    /// Opens `path` with its decoder, on `device` (its pool grown by `extraFrames`) where given.
    convenience init(_ path: String, device: HwDevice?, extraFrames: Int) throws(OpenError) {
        let input: VideoInput
        do { input = try VideoInput.open(path) } catch { throw .video(error) }
        try self.init(input: input, device: device, extraFrames: extraFrames)
    }

    /// Decodes `input`, which it takes over (closed with it, or at once when the codec fails).
    init(input: VideoInput, device: HwDevice?, extraFrames: Int) throws(OpenError) {
        var fmt: UnsafeMutablePointer<AVFormatContext>? = input.format
        var codec = avcodec_alloc_context3(input.decoder)
        var packet = av_packet_alloc()
        func fail(_ why: String) -> OpenError {
            av_packet_free(&packet)
            avcodec_free_context(&codec)
            avformat_close_input(&fmt)
            return .codec(why)
        }
        guard let ctx = codec, packet != nil, avcodec_parameters_to_context(ctx, input.stream.pointee.codecpar) >= 0 else {
            throw fail("out of memory")
        }
        ctx.pointee.pkt_timebase = input.stream.pointee.time_base
        ctx.pointee.thread_count = 1
        device?.attach(to: ctx, extraFrames: extraFrames)
        csys_av_clear_error()
        let rc = avcodec_open2(ctx, input.decoder, nil)
        guard rc >= 0 else { throw fail(AVError.reason(rc)) }
        self.input = input
        context = ctx
        format = fmt
        self.codec = codec
        self.packet = packet
    }

    deinit {
        av_packet_free(&packet)
        avcodec_free_context(&codec)
        avformat_close_input(&format)
    }

    /// The next frame into `frame`: true; false at the end of the stream. A frame the codec
    /// fails on is an error when `strictReceive` (the check compares every frame), else it is
    /// skipped, as playback skips it; a packet the codec refuses is an error only when
    /// `strictSend` (a hardware decoder must take them all).
    func next(into frame: UnsafeMutablePointer<AVFrame>, strictReceive: Bool, strictSend: Bool) -> Result<Bool, FewFramesError> {
        guard let packet else { return .failure(FewFramesError("out of memory")) }
        while true {
            let r = avcodec_receive_frame(context, frame)
            if r == 0 { return .success(true) }
            if r == avx_error_eof() { return .success(false) }
            if r != avx_error_eagain() && strictReceive { return .failure(FewFramesError(AVError.reason(r))) }
            if draining { return .success(false) }
            if av_read_frame(input.format, packet) < 0 {
                avcodec_send_packet(context, nil)
                draining = true
                continue
            }
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == input.streamIndex else { continue }
            let s = avcodec_send_packet(context, packet)
            if s < 0 && s != avx_error_eagain() && strictSend { return .failure(FewFramesError(AVError.reason(s))) }
        }
    }
}

/// Why decoding a few frames stopped: FFmpeg's reason.
struct FewFramesError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}
