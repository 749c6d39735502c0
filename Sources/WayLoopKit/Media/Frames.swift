// What the renderer needs to know about a decoded frame's memory and colour, and the libswscale
// fallback for pixel formats the shader does not take. Any thread.
import CFFmpeg
import WayLoopCore

/// How a frame's planes map onto textures. Only 8-bit Y'CbCr layouts are taken directly.
struct PlaneLayout: Equatable {
    /// Two planes: Y, then interleaved CbCr (NV12).
    var semiPlanar: Bool
    /// Chroma subsampling shifts (1,1 for 4:2:0).
    var chromaShiftX: Int32
    var chromaShiftY: Int32
    /// The pixel format implies full range (the deprecated yuvj* formats).
    var impliesFullRange: Bool

    init?(frame: UnsafePointer<AVFrame>) {
        switch AVPixelFormat(rawValue: frame.pointee.format) {
        case AV_PIX_FMT_YUV420P: self.init(false, 1, 1, false)
        case AV_PIX_FMT_YUVJ420P: self.init(false, 1, 1, true)
        case AV_PIX_FMT_YUV422P: self.init(false, 1, 0, false)
        case AV_PIX_FMT_YUVJ422P: self.init(false, 1, 0, true)
        case AV_PIX_FMT_YUV444P: self.init(false, 0, 0, false)
        case AV_PIX_FMT_YUVJ444P: self.init(false, 0, 0, true)
        case AV_PIX_FMT_YUV440P: self.init(false, 0, 1, false)
        case AV_PIX_FMT_NV12: self.init(true, 1, 1, false)
        default: return nil
        }
    }

    private init(_ semi: Bool, _ sx: Int32, _ sy: Int32, _ full: Bool) {
        semiPlanar = semi
        chromaShiftX = sx
        chromaShiftY = sy
        impliesFullRange = full
    }
}

/// The matrix and range a frame asks for; unspecified ones follow the documented rule
/// (YUVMatrix.guess, limited range). Both renderers take their colour from here.
struct FrameColour: Equatable {
    var matrix: YUVMatrix
    var range: YUVRange

    init(frame: UnsafePointer<AVFrame>, layout: PlaneLayout) {
        let f = frame.pointee
        switch f.colorspace {
        case AVCOL_SPC_BT709: matrix = .bt709
        case AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M, AVCOL_SPC_FCC: matrix = .bt601
        case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: matrix = .bt2020
        default: matrix = YUVMatrix.guess(width: Int(f.width), height: Int(f.height))
        }
        let full = f.color_range == AVCOL_RANGE_JPEG || (f.color_range != AVCOL_RANGE_MPEG && layout.impliesFullRange)
        range = full ? .full : .limited
    }
}

/// libswscale conversion to an 8-bit planar Y'CbCr format the shader takes, keeping the chroma
/// subsampling where it can. Lives on the decoder thread.
final class PixelConverter {
    private var context: avx_sws?
    private let log: Logger
    private var loggedFormat: Int32 = -1

    init(log: Logger) { self.log = log }
    deinit { avx_sws_free(context) }

    /// Converts (and scales down by `scale`, and to fit `maxSize`, keeping the aspect ratio) into `dst`.
    func convert(_ src: UnsafeMutablePointer<AVFrame>, into dst: UnsafeMutablePointer<AVFrame>, maxSize: Int,
                 scale: Double = 1) -> Bool {
        let s = src.pointee
        let fit = min(1, scale, Double(maxSize) / Double(max(s.width, s.height, 1)))
        let dw = max(2, Int32(Double(s.width) * fit) & ~1), dh = max(2, Int32(Double(s.height) * fit) & ~1)
        guard let desc = av_pix_fmt_desc_get(AVPixelFormat(rawValue: s.format)) else { return false }
        let isRGB = desc.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0 || desc.pointee.nb_components < 3
            || desc.pointee.flags & UInt64(AV_PIX_FMT_FLAG_PAL) != 0
        let target: AVPixelFormat
        if PlaneLayout(frame: src) != nil {
            // Only scaling: the same layout (NV12 and yuvj formats included).
            target = AVPixelFormat(rawValue: s.format)
        } else {
            switch (isRGB, desc.pointee.log2_chroma_w, desc.pointee.log2_chroma_h) {
            case (false, 1, 1): target = AV_PIX_FMT_YUV420P
            case (false, 1, 0): target = AV_PIX_FMT_YUV422P
            default: target = AV_PIX_FMT_YUV444P
            }
        }
        if loggedFormat != s.format {
            loggedFormat = s.format
            log.debug("converting \(String(cString: desc.pointee.name)) \(s.width)x\(s.height) to "
                + "\(String(cString: av_get_pix_fmt_name(target))) \(dw)x\(dh) with libswscale")
        }
        context = avx_sws_get_cached_context(context, s.width, s.height, AVPixelFormat(rawValue: s.format),
                                             dw, dh, target, avx_sws_bilinear())
        guard let context else { return false }
        dst.pointee.format = target.rawValue
        dst.pointee.width = dw
        dst.pointee.height = dh
        guard av_frame_get_buffer(dst, 0) >= 0 else { return false }
        let rc = SwsFrames.scale(context, src, into: dst)
        guard rc > 0 else { return false }
        _ = av_frame_copy_props(dst, src)
        if isRGB {
            // libswscale's default RGB → Y'CbCr is BT.601, limited range.
            dst.pointee.colorspace = AVCOL_SPC_SMPTE170M
            dst.pointee.color_range = AVCOL_RANGE_MPEG
        }
        return true
    }
}

/// sws_scale over two AVFrames (their data and linesize are 8-tuples Swift cannot pass as
/// pointers directly). The rows written, as sws_scale returns them.
enum SwsFrames {
    static func scale(_ context: avx_sws, _ src: UnsafePointer<AVFrame>, into dst: UnsafeMutablePointer<AVFrame>) -> Int32 {
        let h = src.pointee.height
        return withUnsafePointer(to: src.pointee.data) { sp in
            withUnsafePointer(to: src.pointee.linesize) { sl in
                withUnsafePointer(to: dst.pointee.data) { dp in
                    withUnsafePointer(to: dst.pointee.linesize) { dl in
                        sp.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { spp in
                            sl.withMemoryRebound(to: Int32.self, capacity: 8) { slp in
                                dp.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { dpp in
                                    dl.withMemoryRebound(to: Int32.self, capacity: 8) { dlp in
                                        avx_sws_scale(context, spp, slp, 0, h, dpp, dlp)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
