// `--scaling`: a video smaller than its output is scaled by libswscale (client, bilinear) or
// converted 1:1 and scaled by the compositor through wp_viewport (compositor). Checked by
// screenshot against FFmpeg's own scaling of the same picture: bilinear for the client; for the
// compositor, sway 1.7's software renderer scales nearest-neighbour, so the picture must match
// FFmpeg's nearest-neighbour scale far better than its bilinear one. Both with fill (a crop) and
// fit (bars in the -c colour), so that a buffer placed or cut wrongly shows as a picture far
// from both. `auto` on this compositor (no linux-dmabuf) is the client. `ctl set --scaling`
// switches at run time.
import Foundation
import WayLoopTestSupport
import XCTest

final class ScalingTests: CompositorTestCase {
    /// Per mode: the still, and its size. 4:3 on a 16:9 output, sizes whose compositor-scaled
    /// buffers land on whole pixels: fill 256x192 (the buffer 256x144, its crop from row 24,
    /// scaled 2.5x), fit 240x180 (the buffer 320x180, the picture at x 40, scaled 2x).
    nonisolated(unsafe) static var clips: [String: (path: String, w: Int, h: Int)] = [:]
    nonisolated(unsafe) static var dir = ""
    static let output = (w: 640, h: 360)

    override class var outputSizes: [String] { ["\(output.w)x\(output.h)"] }

    override class func setUpFixtures(_: Compositor) {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-scaling-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (mode, w, h) in [("fill", 256, 192), ("fit", 240, 180)] {
            let path = dir + "/still-\(w)x\(h).mp4"
            // One frame: a still, drawn once.
            let r = Shell.run(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                               "testsrc2=s=\(w)x\(h)", "-frames:v", "1", "-c:v", "libx264", "-crf", "10", "-pix_fmt", "yuv420p",
                               "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv", path],
                              timeout: 60)
            precondition(r.status == 0, "ffmpeg could not make the still: \(r.stderr)")
            clips[mode] = (path, w, h)
        }
    }

    /// FFmpeg's rendition on the output: `mode` fill or fit (bars ff0000). Bilinear: scaled and
    /// converted in one libswscale pass, as the client does; nearest: converted 1:1 first, then
    /// each pixel repeated, as the compositor scales the buffer.
    private func reference(_ mode: String, _ flags: String) throws -> [UInt8] {
        let (w, h) = Self.output
        let colour = "in_color_matrix=bt709:in_range=tv:out_range=pc"
        let c = Self.clips[mode]!
        let (sw, sh) = mode == "fill" ? (w, w * c.h / c.w) : (h * c.w / c.h, h)
        let scale = flags == "bilinear" ? "scale=\(sw):\(sh):flags=bilinear:\(colour),format=rgb24"
            : "scale=\(colour),format=rgb24,scale=\(sw):\(sh):flags=neighbor"
        let place = mode == "fill" ? "crop=\(w):\(h)" : "pad=\(w):\(h):(ow-iw)/2:0:color=0xff0000"
        let out = Self.dir + "/ref-\(mode)-\(flags).rgb"
        let r = Shell.run(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-i", c.path, "-vf",
                           "\(scale),\(place),format=rgb24",
                           "-frames:v", "1", "-f", "rawvideo", out], timeout: 60)
        guard r.status == 0 else { throw HarnessError("ffmpeg reference: \(r.stderr)") }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
    }

    private func psnr(_ img: Image, _ ref: [UInt8]) -> Double {
        var sse = 0.0
        for i in 0..<min(img.pixels.count, ref.count) {
            let d = Double(Int(img.pixels[i]) - Int(ref[i]))
            sse += d * d
        }
        return sse == 0 ? 99 : 10 * log10(255 * 255 * Double(ref.count) / sse)
    }

    /// Plays the still with `args`, waits for it, and returns the screenshot's PSNR against
    /// FFmpeg's bilinear and nearest-neighbour renditions.
    private func shot(_ mode: String, _ args: [String], until ready: (([[String: Any]]) -> Bool)? = nil)
        throws -> (bilinear: Double, nearest: Double) {
        let sway = try compositor()
        let w = try Wayloop(["-m", mode, "-c", "ff0000"] + args + [Self.clips[mode]!.path], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(try w.waitForStatus { outs in outs.first.map { ($0["frames_shown"] as? Int ?? 0) > 0 } ?? false }, w.lastStatus)
        let (bl, nn) = (try reference(mode, "bilinear"), try reference(mode, "neighbor"))
        // The still is drawn once: the first screenshot that shows it is the picture.
        var best = (bilinear: 0.0, nearest: 0.0)
        _ = Wait.until(timeout: 10) {
            guard let img = try? sway.shot(sway.outputs[0]) else { return false }
            best = (psnr(img, bl), psnr(img, nn))
            return max(best.bilinear, best.nearest) > 25
        }
        print("ScalingTests: -m \(mode) \(args.joined(separator: " ")): \((best.bilinear * 10).rounded() / 10) dB against bilinear, "
            + "\((best.nearest * 10).rounded() / 10) dB against nearest")
        return best
    }

    private var glRenders: Bool { Wayloop.rendererFromEnvironment == "gl" }

    func testTheClientScalesBilinearByDefault() throws {
        for mode in ["fill", "fit"] {
            for args in [[], ["--scaling", "client"]] {
                let p = try shot(mode, args)
                XCTAssertGreaterThan(p.bilinear, 35, "-m \(mode) \(args): not libswscale's bilinear picture")
                XCTAssertGreaterThan(p.bilinear, p.nearest + 3, "-m \(mode) \(args)")
            }
        }
    }

    func testTheCompositorScalesThePictureConverted1To1() throws {
        for mode in ["fill", "fit"] {
            let p = try shot(mode, ["--scaling", "compositor"])
            if glRenders {
                // GL draws the picture scaled itself (the option is the shm renderer's).
                XCTAssertGreaterThan(p.bilinear, 30, "-m \(mode)")
            } else {
                // Exact: converted 1:1 and repeated, as FFmpeg's nearest-neighbour does.
                XCTAssertGreaterThan(p.nearest, 45, "-m \(mode): not the picture, placed as -m \(mode) places it")
                XCTAssertGreaterThan(p.nearest, p.bilinear + 10, "-m \(mode): the compositor did not scale it (sway 1.7's pixman scales nearest-neighbour)")
            }
        }
    }

    func testCtlSetSwitchesItAtRunTime() throws {
        let sway = try compositor()
        let w = try Wayloop(["-m", "fit", "-c", "ff0000", "--scaling", "client", Self.clips["fit"]!.path], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(try w.waitForStatus { outs in outs.first.map { ($0["frames_shown"] as? Int ?? 0) > 0 } ?? false }, w.lastStatus)
        let (bl, nn) = (try reference("fit", "bilinear"), try reference("fit", "neighbor"))
        XCTAssertTrue(Wait.until(timeout: 10) { (try? sway.shot(sway.outputs[0])).map { psnr($0, bl) > 45 } ?? false })
        for (value, ref) in [("compositor", nn), ("client", bl)] {
            let set = Shell.run([Repo.binary, "ctl", "set", "*", "--scaling", value], env: sway.env, timeout: 20)
            XCTAssertEqual(set.status, 0, set.stderr)
            XCTAssertTrue(Wait.until(timeout: 10) { (try? sway.shot(sway.outputs[0])).map { psnr($0, ref) > 45 } ?? false },
                          "--scaling \(value) set at run time never showed: \(w.stderr)")
        }
        let bad = Shell.run([Repo.binary, "ctl", "set", "*", "--scaling", "gpu"], env: sway.env, timeout: 20)
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.stderr.contains("'gpu' is not one of auto, client, compositor"), bad.stderr)
    }

    func testABadScalingIsOneLine() throws {
        let sway = try compositor()
        let r = Shell.run([Repo.binary, "--scaling", "gpu", Self.clips["fit"]!.path], env: sway.env, timeout: 20)
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("'gpu' is not one of auto, client, compositor"), r.stderr)
    }
}
