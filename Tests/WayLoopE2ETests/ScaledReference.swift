// FFmpeg's own picture of a still scaled to a buffer's size, and how far a picture is from it
// (PSNR over RGB24): the check of a buffer drawn at a fractional scale (KWinTests,
// NewerCompositorTests).
import Foundation
import WayLoopTestSupport
import XCTest

enum ScaledReference {
    /// Writes a one-frame 640x360 testsrc2 H.264 clip, tagged BT.709 limited range, to `path`.
    static func makeStill(_ path: String) throws {
        let made = Shell.run(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                              "testsrc2=s=640x360", "-frames:v", "1", "-c:v", "libx264", "-crf", "10", "-pix_fmt", "yuv420p",
                              "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv", path],
                             timeout: 60)
        guard made.status == 0 else { throw HarnessError("cannot make \(path): \(made.stderr)") }
    }

    /// The still's frame as FFmpeg scales it to `width`x`height` (bilinear, BT.709 limited
    /// range in, full range out), RGB24.
    static func rgb(of still: String, width: Int, height: Int, in dir: String) throws -> [UInt8] {
        let ref = dir + "/ref-\(width)x\(height).rgb"
        let r = Shell.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", still, "-vf",
                           "scale=\(width):\(height):flags=bilinear:in_color_matrix=bt709:in_range=tv:out_range=pc,format=rgb24",
                           "-frames:v", "1", "-f", "rawvideo", ref], timeout: 30)
        guard r.status == 0 else { throw HarnessError("ffmpeg's reference failed: \(r.stderr)") }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: ref)))
    }

    /// A PNG (`ctl snapshot`'s) as RGB24.
    static func rgb(ofPNG png: String) throws -> [UInt8] {
        let raw = png + ".rgb"
        let r = Shell.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", png, "-f", "rawvideo", "-pix_fmt", "rgb24", raw],
                          timeout: 30)
        guard r.status == 0 else { throw HarnessError("cannot read \(png): \(r.stderr)") }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
    }

    /// PSNR in dB of `a` against `b` over their common length (99: identical).
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        var sse = 0.0
        for i in 0..<min(a.count, b.count) {
            let d = Double(Int(a[i]) - Int(b[i]))
            sse += d * d
        }
        return sse == 0 ? 99 : 10 * log10(255 * 255 * Double(min(a.count, b.count)) / sse)
    }
}
