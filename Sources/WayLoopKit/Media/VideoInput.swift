// Opening a file for its video stream (the steps and the errors the decoder thread, the stills,
// `wayloop prepare` and `wayloop list` share), the stream's facts worked out in one place, and
// FFmpeg's errors as text.
import CFFmpeg
import CSystem
import Glibc
import WayLoopCore

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
