// Memory follows the screen, not the file: a huge stream on a small output costs at
// most twice what the 1080p clip costs the same player on the same output, measured in the same
// run (private RSS: VmRSS less the wl_shm buffers the compositor shares). MJPEG decodes at
// libavcodec's lowres (1/8 of 8192 or 16248), so no full-size frame ever exists. H.264 cannot:
// its decoder keeps full-size reference frames; that number is printed, not asserted.
import Foundation
import WayLoopTestSupport
import XCTest

final class HugeClipTests: CompositorTestCase {
    nonisolated(unsafe) static var dir = ""

    override class var outputSizes: [String] { ["640x480"] }

    override class func setUpFixtures(_: Compositor) {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-huge-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (name, size, codec) in [("mjpeg-8192.avi", "8192x8192", "mjpeg"), ("mjpeg-16248.avi", "16248x16248", "mjpeg"),
                                    ("h264-8192.mp4", "8192x8192", "libx264")] {
            var args = ["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=\(size):r=4", "-t", "1",
                        "-c:v", codec]
            args += codec == "mjpeg" ? ["-q:v", "10", "-pix_fmt", "yuvj420p"] : ["-preset", "ultrafast", "-pix_fmt", "yuv420p"]
            let r = Shell.run(args + [dir + "/" + name], timeout: 120)
            precondition(r.status == 0, "ffmpeg could not make \(name): \(r.stderr)")
        }
    }

    override class func tearDownFixtures() {
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// Plays `clip` until a few frames are shown, then the lowest private RSS (kB) over a second.
    private func privateRSS(_ clip: String) throws -> Int {
        let sway = try compositor()
        let w = try Wayloop(["--cache-mb", "0", clip], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForStatus(timeout: 30) { outs in outs.contains { ($0["frames_shown"] as? Int ?? 0) >= 4 } },
                      "\(clip) did not play: \(w.lastStatus); \(w.stderr)")
        var low = Int.max
        let end = Date().addingTimeInterval(1)
        while Date() < end {
            low = min(low, Proc.privateKB(w.pid))
            usleep(100_000)
        }
        XCTAssertFalse(w.stderr.contains(": error: "), w.stderr)
        return low
    }

    func testAHugeMJPEGCostsWhatA1080pClipCosts() throws {
        let reference = try privateRSS(Repo.clip("bench-1080p30.mp4"))
        for name in ["mjpeg-8192.avi", "mjpeg-16248.avi"] {
            let huge = try privateRSS(Self.dir + "/" + name)
            let ratio = Double(huge) / Double(reference)
            print("HugeClipTests: \(name): \(huge) kB against \(reference) kB for the 1080p clip (\(String(format: "%.2f", ratio))x)")
            XCTAssertLessThanOrEqual(ratio, 2.0, "\(name): \(huge) kB, the 1080p clip \(reference) kB on the same 640x480 output")
        }
        // H.264 keeps full-size reference pictures (no lowres in its decoder): plays, measured only.
        let h264 = try privateRSS(Self.dir + "/h264-8192.mp4")
        print("HugeClipTests: h264-8192.mp4: \(h264) kB against \(reference) kB (\(String(format: "%.2f", Double(h264) / Double(reference)))x; not bounded: H.264 decodes at full size)")
    }
}
