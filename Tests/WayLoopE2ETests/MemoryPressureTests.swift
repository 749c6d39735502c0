// Memory pressure: an injected pressure event (WAYLOOP_PRESSURE_FIFO; the test must not depend on
// the machine's real pressure) makes a video on screen give its loop cache up at its next loop,
// without a gap (every frame once per pass, in order, none dropped), and private RSS falls by most
// of the cache; a video nobody sees is released at once. One line says what was given back.
// And without any pressure, once playback is steady, the library pages it does not touch are
// handed back (ColdPages), again without a gap. Headless sway, 1280x720.
import Foundation
import WayLoopTestSupport
import XCTest

final class MemoryPressureTests: CompositorTestCase {
    nonisolated(unsafe) static var dir = ""

    override class var outputSizes: [String] { ["1280x720"] }

    override class func setUpFixtures(_: Compositor) {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-pressure-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        // 2 s of 1280x720 at 30 fps: a loop cache of 60 frames, ~83 MB at full size.
        let r = Shell.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=1280x720:r=30", "-t", "2",
                           "-c:v", "libx264", "-preset", "veryfast", "-g", "30", "-pix_fmt", "yuv420p", dir + "/loop.mp4"], timeout: 120)
        precondition(r.status == 0, "ffmpeg: \(r.stderr)")
    }

    override class func tearDownFixtures() {
        try? FileManager.default.removeItem(atPath: dir)
    }

    private func fifo(_ name: String) throws -> String {
        let path = Self.dir + "/" + name
        unlink(path)
        guard mkfifo(path, 0o600) == 0 else { throw HarnessError("mkfifo \(path): \(String(cString: strerror(errno)))") }
        return path
    }

    /// One pressure event: a line into the FIFO (opened non-blocking: wayloop holds it open).
    private func press(_ path: String) {
        let fd = open(path, O_WRONLY | O_NONBLOCK)
        XCTAssertGreaterThanOrEqual(fd, 0, "the FIFO has no reader: \(path)")
        if fd >= 0 {
            _ = "pressure\n".withCString { write(fd, $0, 9) }
            close(fd)
        }
    }

    private func settledPrivateKB(_ pid: pid_t) -> Int {
        var samples: [Int] = []
        let end = Date().addingTimeInterval(1.5)
        while Date() < end {
            samples.append(Proc.privateKB(pid))
            usleep(100_000)
        }
        return samples.min() ?? -1
    }

    /// Every pass of the trace from the second to the one before the last has its 60 frames,
    /// once each, in order, and wayloop dropped none; its status.
    @discardableResult
    private func assertWithoutAGap(_ trace: String, output: String, _ w: Wayloop) throws -> [String: Any] {
        let byPass = Dictionary(grouping: TraceFile.records(trace).filter { $0.output == output }, by: \.pass)
        for p in 1..<(TraceFile.maxPass(trace)) {
            XCTAssertEqual(byPass[p]?.map(\.index), Array(0..<60), "pass \(p) is not every frame once, in order")
        }
        let status = try XCTUnwrap(try w.ctlStatus().first)
        XCTAssertEqual(status["frames_dropped"] as? Int, 0, "\(status)")
        return status
    }

    func testAVideoOnScreenGivesItsLoopCacheUpWithoutAGap() throws {
        let sway = try compositor()
        let output = sway.outputs[0]
        let pipe = try fifo("pressure-1")
        let trace = Self.dir + "/trace-1"
        var env = sway.env
        env["WAYLOOP_PRESSURE_FIFO"] = pipe
        let w = try Wayloop(["--cache-mb", "200", "--trace-frames", trace, Self.dir + "/loop.mp4"], env: env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(output, state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        // Replaying from memory: the third pass is on screen.
        XCTAssertTrue(Wait.until(timeout: 20) { TraceFile.maxPass(trace) >= 2 }, "never reached pass 2: \(w.stderr)")
        let before = settledPrivateKB(w.pid)
        // Replayed from memory, nothing is decoded: the count stands still until the cache is given up.
        let decodedBefore = Ctl.decoded(try w.ctlStatus().first) ?? -1
        press(pipe)
        // The loop cache is given up at its next loop (decoding starts again), and nothing else:
        // the video stays, its decoder running (not released).
        XCTAssertTrue(w.waitForStatus { outs in
            (Ctl.decoded(outs.first) ?? -1) > decodedBefore && outs.first?["decoder"] as? String == "running"
        }, "the loop cache was not given up (costs.decoded \(decodedBefore) before the event): \(w.lastStatus); \(w.stderr)")
        let pressedAt = TraceFile.maxPass(trace)
        XCTAssertTrue(Wait.until(timeout: 20) { TraceFile.maxPass(trace) >= pressedAt + 2 }, "playback stopped: \(w.stderr)")
        let after = settledPrivateKB(w.pid)
        print("MemoryPressureTests: private RSS \(before) kB before, \(after) kB after giving the loop cache up")
        XCTAssertGreaterThan(before - after, 30 * 1024, "private RSS \(before) → \(after) kB: the cache was not given back")
        // Without a gap: every pass from before the event to the end has its 60 frames, in order.
        let status = try assertWithoutAGap(trace, output: output, w)
        XCTAssertEqual(status["decoder"] as? String, "running")
        // A second event within 10 s does nothing (no thrash).
        press(pipe)
        usleep(500_000)
        XCTAssertEqual(w.stderrLines.filter { $0.contains("memory pressure") }.count, 1, w.stderr)
        XCTAssertTrue(w.isRunning)
    }

    /// Steady for 10 s, watched for 10 s: the library pages playback did not touch are handed
    /// back, in one debug line, RSS falls, and every pass still has every frame once, in order.
    func testLibraryPagesPlaybackDoesNotTouchAreHandedBackWithoutAGap() throws {
        let sway = try compositor()
        let output = sway.outputs[0]
        let trace = Self.dir + "/trace-3"
        var env = sway.env
        env["WAYLOOP_COLD_PAGES"] = nil   // the harness switches it off for the tests that watch RSS for leaks
        // No loop cache: the decoder works every pass, so its pages are in use.
        let w = try Wayloop(["-v", "--cache-mb", "0", "--trace-frames", trace, Self.dir + "/loop.mp4"], env: env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(output, state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        XCTAssertTrue(Wait.until(timeout: 10) { TraceFile.maxPass(trace) >= 1 }, "never reached pass 1: \(w.stderr)")
        let before = Proc.rssKB(w.pid)
        XCTAssertFalse(w.stderr.contains("library pages:"), "handed back before 10 s of steady playback: \(w.stderr)")
        // 10 s settling and 10 s watched from the start; generous for a loaded machine.
        XCTAssertTrue(Wait.until(timeout: 90) { w.stderr.contains("library pages: handed back") }, "nothing handed back: \(w.stderr)")
        let line = w.stderrLines.first { $0.contains("library pages:") } ?? ""
        print("MemoryPressureTests: \(line)")
        XCTAssertFalse(line.contains("refused"), line)
        let at = TraceFile.maxPass(trace)
        XCTAssertTrue(Wait.until(timeout: 20) { TraceFile.maxPass(trace) >= at + 3 }, "playback stopped: \(w.stderr)")
        let after = Proc.rssKB(w.pid)
        print("MemoryPressureTests: RSS \(before) kB playing, \(after) kB after the hand-back and three more passes")
        // About 20 MB here; other processes mapping the same libraries (the other half of the
        // test command's wayloops) keep their shared pages in, so less is asked.
        XCTAssertGreaterThan(before - after, 8 * 1024, "RSS \(before) → \(after) kB: \(line)")
        try assertWithoutAGap(trace, output: output, w)
        XCTAssertEqual(w.stderrLines.filter { $0.contains("library pages:") }.count, 1, "once: \(w.stderr)")
    }

    func testAVideoNobodySeesIsReleasedAtOnce() throws {
        let sway = try compositor()
        let output = sway.outputs[0]
        let pipe = try fifo("pressure-2")
        var env = sway.env
        env["WAYLOOP_PRESSURE_FIFO"] = pipe
        let w = try Wayloop([Self.dir + "/loop.mp4"], env: env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(output, state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        try sway.cover()
        defer { sway.uncover() }
        XCTAssertTrue(w.waitForState(output, state: "paused", reason: "fullscreen"), w.lastStatus)
        XCTAssertTrue(try w.waitForDecoder(output, "running"), w.lastStatus)
        let before = settledPrivateKB(w.pid)
        press(pipe)
        XCTAssertTrue(try w.waitForDecoder(output, "released", timeout: 20), w.lastStatus)
        let after = settledPrivateKB(w.pid)
        XCTAssertGreaterThan(before - after, 20 * 1024, "private RSS \(before) → \(after) kB")
        // Seen again: it plays again.
        sway.uncover()
        XCTAssertTrue(w.waitForState(output, state: "playing", shown: true), w.lastStatus)
        XCTAssertTrue(try w.waitForDecoder(output, "running"), w.lastStatus)
    }
}
