// libswscale from a picture's CPU planes into packed RGB memory (crop by plane offsets, scale,
// Y'CbCr → RGB with the picture's matrix and range, dim folded into the conversion's
// contrast): what the shm device converts with, without seeing FFmpeg. Writes straight into
// the memory it is given (no copy of its own). Main thread only.
import CFFmpeg
import WayLoopCore

/// 32-bit RGB as wl_shm's XRGB8888 and ARGB8888 lay it out in memory: B, G, R, then X or A.
enum PackedRGB: Sendable {
    case bgrx
    case bgra

    fileprivate var pixelFormat: AVPixelFormat {
        switch self {
        case .bgrx: return AV_PIX_FMT_BGR0
        case .bgra: return AV_PIX_FMT_BGRA
        }
    }
}

/// A conversion libswscale refused or failed (one line).
struct ScaleError: Error, CustomStringConvertible {
    let description: String
}

/// One conversion's libswscale context, cached for the sizes, formats and flags it was made
/// for (one per converted picture kind: a context is cheap to keep, dear to make).
final class RGBScaler {
    private var context: avx_sws?
    /// What `context` converts: sizes and formats. Kept here, not left to sws_getCachedContext,
    /// which compares against the formats it rewrote at init (yuvj420p → yuv420p, BGR0 →
    /// BGRA) and so would build a new context for every frame, losing the colour details.
    private var contextKey: [Int32] = []
    /// What the context's colour details were set from (matrix, range, dim).
    private var colourApplied: (FrameColour, Double)?

    deinit { avx_sws_free(context) }

    /// Converts `src` of `planes` (its origin on a chroma sample) into `size` pixels of
    /// `format` starting at `dst`, rows `stride` bytes apart, darkened by `dim` (0...1).
    func convert(_ planes: CPUPlanes, source src: PixelRect, into dst: UnsafeMutableRawPointer, stride: Int, size: Size,
                 format: PackedRGB, dim: Double) throws(ScaleError) {
        let layout = planes.layout
        // Scaling with a dim: full-chroma output. FFmpeg 5.1's C output path, which its x86
        // vertical scaler uses for the last rows, mishandles a contrast below 1 (those rows come
        // out far too dark: measured, 1080p -> 720p at --dim 0.25); the full-chroma path is right
        // on every row. Unscaled conversions (the common case) are right either way.
        let scaled = src.width != size.width || src.height != size.height
        let flags = avx_sws_bilinear() | (scaled && dim > 0 ? avx_sws_full_chroma() : 0)
        let target = format.pixelFormat
        let wanted = [Int32(src.width), Int32(src.height), planes.sourceFormat, Int32(size.width), Int32(size.height),
                      target.rawValue, flags]
        if wanted != contextKey || context == nil {
            avx_sws_free(context)
            context = avx_sws_get_context(wanted[0], wanted[1], AVPixelFormat(rawValue: planes.sourceFormat), wanted[3], wanted[4], target,
                                          flags)
            contextKey = wanted
            colourApplied = nil
        }
        guard let context else {
            throw ScaleError(description: "libswscale cannot convert \(src.width)x\(src.height) to \(size.width)x\(size.height)")
        }
        let colour = planes.colour
        if colourApplied.map({ $0.0 != colour || $0.1 != dim }) ?? true {
            applyColour(colour, dim: dim, to: context)
            colourApplied = (colour, dim)
        }
        // Source planes moved to the crop's origin (chroma: the sample at or before it).
        var srcData: [UnsafePointer<UInt8>?] = [nil, nil, nil, nil]
        var srcStride: [Int32] = [0, 0, 0, 0]
        for p in 0..<(layout.semiPlanar ? 2 : 3) {
            let plane = planes.plane(p)
            guard let base = plane.data else { continue }
            let chroma = p > 0
            let x = chroma ? src.x >> Int(layout.chromaShiftX) : src.x
            let y = chroma ? src.y >> Int(layout.chromaShiftY) : src.y
            let bytesPerSample = chroma && layout.semiPlanar ? 2 : 1
            srcData[p] = UnsafePointer(base + y * plane.lineSize + x * bytesPerSample)
            srcStride[p] = Int32(plane.lineSize)
        }
        var dstData: [UnsafeMutablePointer<UInt8>?] = [dst.assumingMemoryBound(to: UInt8.self), nil, nil, nil]
        var dstStride: [Int32] = [Int32(stride), 0, 0, 0]
        let rc = avx_sws_scale(context, &srcData, &srcStride, 0, Int32(src.height), &dstData, &dstStride)
        guard rc > 0 else { throw ScaleError(description: "libswscale failed to convert a frame (\(AVError.text(rc)))") }
    }

    /// Y'CbCr → RGB with the frame's matrix and range; dim k as contrast 1 − k (libswscale
    /// scales the luma gain by contrast and the chroma gains by contrast × saturation, about
    /// black: rgb · (1 − k), what the GL path's shader computes).
    private func applyColour(_ c: FrameColour, dim: Double, to context: avx_sws) {
        let space: Int32
        switch c.matrix {
        case .bt601: space = SWS_CS_ITU601
        case .bt709: space = SWS_CS_ITU709
        case .bt2020: space = SWS_CS_BT2020
        }
        let contrast = Int32(((1 - dim) * 65536).rounded())
        let rc = avx_sws_set_colorspace_details(context, sws_getCoefficients(space), c.range == .full ? 1 : 0,
                                     sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, contrast, 1 << 16)
        if rc < 0 { Sys.writeStderr("wayloop: debug: shm: libswscale refused the colour details (\(c.matrix), \(c.range))") }
    }
}
