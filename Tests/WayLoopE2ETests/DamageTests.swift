// Damage tracking keeps the picture exact. A cinemagraph (a still, detailed picture with one
// small region that changes completely every frame) plays on two outputs of its own size, so
// that the shm renderer converts only the changed tiles into a buffer both outputs share, and the
// compositor is told only those. Screenshots after 100 frames and after further loop seams must
// match one of FFmpeg's own frames of the clip everywhere: a tile left stale (in a buffer of the
// ring, or by damage the compositor was not told of) shows as one block far off every frame.
//
// Each screenshot is matched against every frame of the clip (FFmpeg decodes and converts them:
// BT.709, limited range, as tagged); the best match must be close overall and in its worst
// 16x16 block (`limits`: per renderer, from what each gives with damage off).
import Foundation
import WayLoopTestSupport
import XCTest

final class DamageTests: CompositorTestCase {
    nonisolated(unsafe) static var clip = ""
    /// Every frame of the clip as RGB24, in order.
    nonisolated(unsafe) static var frames: [[UInt8]] = []
    static let width = 640, height = 360, frameCount = 60

    override class var outputSizes: [String] { ["\(width)x\(height)", "\(width)x\(height)"] }

    override class func setUpFixtures(_: Compositor) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-damage-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        clip = dir + "/cinemagraph.mp4"
        // Background: one testsrc2 frame, held. Region: Conway's life, 128x72 at (250, 140), on no
        // tile boundary (tiles 3...5 by 2...3), most of its cells changing every frame.
        let graph = "testsrc2=s=\(width)x\(height):r=30,trim=end_frame=1,loop=loop=-1:size=1,setpts=N/30/TB[bg];"
            + "life=s=128x72:r=30:ratio=0.5:mold=0:life_color=#ffffff:death_color=#2040a0,format=yuv420p[fg];"
            + "[bg][fg]overlay=250:140:shortest=1,format=yuv420p"
        let make = Shell.run(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-filter_complex", graph,
                              "-frames:v", "\(frameCount)", "-c:v", "libx264", "-preset", "veryfast", "-crf", "12",
                              "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv",
                              clip], timeout: 120)
        precondition(make.status == 0, "ffmpeg could not make the cinemagraph: \(make.stderr)")
        let raw = dir + "/frames.rgb"
        let dec = Shell.run(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-i", clip,
                             "-vf", "scale=in_color_matrix=bt709:in_range=tv:out_range=pc,format=rgb24",
                             "-f", "rawvideo", raw], timeout: 120)
        precondition(dec.status == 0, "ffmpeg could not decode the cinemagraph: \(dec.stderr)")
        let data = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: raw))) ?? Data())
        let n = width * height * 3
        precondition(data.count == n * frameCount, "the cinemagraph decoded to \(data.count / n) frames, not \(frameCount)")
        frames = (0..<frameCount).map { Array(data[($0 * n)..<(($0 + 1) * n)]) }
    }

    private struct Match {
        var frame: Int
        var psnr: Double
        var worstBlock: Double
        var worstAt: (x: Int, y: Int)
    }

    private static func psnr(_ sse: Double, _ n: Int) -> Double {
        sse == 0 ? 99 : 10 * log10(255 * 255 * Double(n) / sse)
    }

    /// The clip's frame closest to `img` (by a sparse lattice first), and how close it is
    /// overall and in its worst 16x16 block.
    private func bestMatch(_ img: Image) -> Match {
        let w = Self.width, h = Self.height
        let px = img.pixels
        var best = (frame: 0, sse: Double.infinity)
        for (i, f) in Self.frames.enumerated() {
            var sse = 0.0
            var y = 1
            while y < h {
                var x = 1
                while x < w {
                    let o = (y * w + x) * 3
                    for c in 0..<3 { let d = Double(Int(px[o + c]) - Int(f[o + c])); sse += d * d }
                    x += 3
                }
                y += 3
            }
            if sse < best.sse { best = (i, sse) }
        }
        let f = Self.frames[best.frame]
        var total = 0.0
        var worst = (psnr: 99.0, x: 0, y: 0)
        for by in stride(from: 0, to: h, by: 16) {
            for bx in stride(from: 0, to: w, by: 16) {
                var sse = 0.0, n = 0
                for y in by..<min(h, by + 16) {
                    for x in bx..<min(w, bx + 16) {
                        let o = (y * w + x) * 3
                        for c in 0..<3 { let d = Double(Int(px[o + c]) - Int(f[o + c])); sse += d * d }
                        n += 3
                    }
                }
                total += sse
                let p = Self.psnr(sse, n)
                if p < worst.psnr { worst = (p, bx, by) }
            }
        }
        return Match(frame: best.frame, psnr: Self.psnr(total, w * h * 3), worstBlock: worst.psnr, worstAt: (worst.x, worst.y))
    }

    /// shm converts with FFmpeg's own libswscale converter: bit-exact here (99 dB), so anything
    /// below 45 dB overall or 35 dB in a block is an error. GL's shader interpolates chroma
    /// (FFmpeg repeats it): ~30.6 dB overall and ~20.5 dB in the worst block (testsrc2's
    /// saturated edges) with damage on or off; a stale block of the region is ~8-12 dB.
    private var limits: (overall: Double, block: Double) { Wayloop.rendererFromEnvironment == "gl" ? (28, 17) : (45, 35) }

    private func checkShots(_ sway: Compositor, _ when: String, file: StaticString = #filePath, line: UInt = #line) throws {
        for o in sway.outputs {
            let img = try sway.shot(o)
            XCTAssertEqual(img.width, Self.width, file: file, line: line)
            let m = bestMatch(img)
            print("DamageTests: \(o) \(when): frame \(m.frame), \((m.psnr * 10).rounded() / 10) dB, worst block "
                + "\((m.worstBlock * 10).rounded() / 10) dB at \(m.worstAt)")
            XCTAssertGreaterThanOrEqual(m.psnr, limits.overall, "\(o) \(when): \(m.psnr) dB overall against frame \(m.frame)",
                                        file: file, line: line)
            XCTAssertGreaterThanOrEqual(m.worstBlock, limits.block,
                                        "\(o) \(when): the 16x16 block at \(m.worstAt) is \(m.worstBlock) dB off frame \(m.frame) "
                                            + "(overall \(m.psnr) dB): a stale region", file: file, line: line)
        }
    }

    func testACinemagraphStaysExactOnTwoOutputsThroughLoopSeams() throws {
        let sway = try compositor()
        let trace = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-damage-trace-\(getpid())").path
        try? FileManager.default.removeItem(atPath: trace)
        defer { try? FileManager.default.removeItem(atPath: trace) }
        // No loop cache: every pass is decoded again (the seam's frames are new frames).
        let w = try Wayloop(["--cache-mb", "0", "--trace-frames", trace, Self.clip], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        let first = sway.outputs[0]
        XCTAssertTrue(Wait.until(timeout: 30) {
            TraceFile.records(trace).filter { $0.output == first }.count >= 100 || !w.isRunning
        }, "100 frames were never committed: \(w.stderr)")
        XCTAssertGreaterThanOrEqual(TraceFile.maxPass(trace), 1)
        try checkShots(sway, "after 100 frames")
        // The shm renderer told the compositor a small part of each frame (the region is 4 % of
        // the picture; its tiles about 9 %). GL says so only where EGL offers swap with damage.
        XCTAssertTrue(try w.waitForStatus { outs in
            outs.count == 2 && outs.allSatisfy { o in
                guard let d = o["damaged"] as? Double else { return false }
                return o["renderer"] as? String == "shm" ? d < 0.2 : d <= 1
            }
        }, w.lastStatus)
        // The cost counters: every frame decoded and compared (shm), each shared buffer converted
        // once (by whichever output drew it first), every present counted.
        let outs = try Ctl.status(env: sway.env)
        let costs = outs.compactMap { $0["costs"] as? [String: Any] }
        XCTAssertEqual(costs.count, 2, Ctl.describe(outs))
        let sum = { (k: String) in costs.reduce(0) { $0 + (($1[k] as? Double) ?? 0) } }
        XCTAssertGreaterThanOrEqual(costs.first?["decoded"] as? Double ?? 0, 100, Ctl.describe(outs))
        XCTAssertGreaterThan(costs.first?["decode_ms"] as? Double ?? 0, 0, Ctl.describe(outs))
        XCTAssertGreaterThanOrEqual(sum("presented"), 200, Ctl.describe(outs))
        if Wayloop.rendererFromEnvironment != "gl" {
            XCTAssertLessThanOrEqual(sum("converted"), sum("presented") / 2 + 10, "a shared buffer converted for each output: \(Ctl.describe(outs))")
            XCTAssertGreaterThanOrEqual(costs.first?["compared"] as? Double ?? 0, 99, Ctl.describe(outs))
            XCTAssertGreaterThanOrEqual(sum("converted"), 99, Ctl.describe(outs))
        }
        for pass in [3, 5] {
            XCTAssertTrue(Wait.until(timeout: 30) { TraceFile.maxPass(trace) >= pass || !w.isRunning }, "pass \(pass) never began: \(w.stderr)")
            try checkShots(sway, "in pass \(pass)")
        }
    }

    func testDamageOffDrawsWholeFrames() throws {
        let sway = try compositor()
        var env = sway.env
        env["WAYLOOP_DAMAGE"] = "off"
        let w = try Wayloop([Self.clip], env: env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(try w.waitForStatus { outs in
            outs.count == 2 && outs.allSatisfy { ($0["frames_shown"] as? Int ?? 0) > 40 && ($0["damaged"] as? Double) == 1 }
        }, w.lastStatus)
        try checkShots(sway, "with damage off")
    }
}
