// Suspend and resume: the compositor frozen for 10 s (SIGSTOP, as after a system
// sleep it sends no frame callbacks) and continued: playback goes on from where it stopped, at
// once, with no burst of catch-up frames, no jump in the video and no black frame. WayLoop's
// clocks are CLOCK_MONOTONIC (a wall-clock jump cannot move them); the stall is what it sees.
import Foundation
import WayLoopTestSupport
import XCTest

final class SuspendTests: CompositorTestCase {
    override class var outputSizes: [String] { ["320x240"] }

    func testAFrozenCompositorResumesWithoutABurst() throws {
        let sway = try compositor()
        let output = sway.outputs[0]
        let trace = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-suspend-\(getpid())").path
        try? FileManager.default.removeItem(atPath: trace)
        defer { try? FileManager.default.removeItem(atPath: trace) }
        // 30 fps, 30 frames a pass: a frame's place in the video is pass * 30 + index.
        let w = try Wayloop(["--cache-mb", "0", "--trace-frames", trace, Repo.clip("grid.mp4")], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(output, state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        XCTAssertTrue(Wait.until(timeout: 10) { TraceFile.records(trace).count >= 30 }, "no frames traced")
        let pid = try XCTUnwrap(sway.env["COMPOSITOR_PID"].flatMap { pid_t($0) })

        XCTAssertEqual(kill(pid, SIGSTOP), 0)
        var continued = false
        defer { if !continued { kill(pid, SIGCONT) } }
        let frozenAt = Proc.monotonicNanos()
        // The freeze is the scenario itself: ten seconds without the compositor.
        while Proc.monotonicNanos() - frozenAt < 10_000_000_000 { usleep(100_000) }
        XCTAssertTrue(w.isRunning, "died while the compositor was frozen: \(w.stderr)")
        let before = TraceFile.records(trace)
        let last = try XCTUnwrap(before.last)
        let resumedAt = Proc.monotonicNanos()
        XCTAssertEqual(kill(pid, SIGCONT), 0)
        continued = true

        XCTAssertTrue(Wait.until(timeout: 10) { TraceFile.records(trace).filter { $0.commit > resumedAt }.count >= 45 },
                      "playback did not go on after the compositor continued: \(w.lastStatus); \(w.stderr)")
        let all = TraceFile.records(trace).filter { $0.output == output }
        let after = all.filter { $0.commit > resumedAt }
        let first = after[0]
        // How soon the compositor came back after SIGCONT is its own and the machine's; WayLoop's
        // part is to commit the next frame as soon as the compositor released the one it had
        // committed before the freeze (its frame callback).
        let pacing = Pacing(all, tolerance: Pacing.tolerance)
        let resume = try XCTUnwrap(pacing.holds.first { $0.b.commit == first.commit && $0.b.index == first.index })
        let starvedMs = Double(Pacing.starved(resume.a, first)) / 1e6
        let ownDelay = Double(first.commit - resume.a.presented) / 1e6 - starvedMs
        print("SuspendTests: the first frame came \(Double(first.commit - resumedAt) / 1e6) ms after SIGCONT, "
              + "\(ownDelay) ms after the compositor released the frame before it (less \(starvedMs) ms waited for a CPU); \(pacing.latencyReport)")
        XCTAssertLessThan(ownDelay, 500, "the first frame came \(ownDelay) ms after the compositor released the frame before it")
        // No jump: it goes on from the frame it stopped at (the frames queued are not dropped as late).
        let step = (first.pass * 30 + first.index) - (last.pass * 30 + last.index)
        XCTAssertTrue((0...3).contains(step), "the video jumped by \(step) frames across the freeze (\(last.pass).\(last.index) → \(first.pass).\(first.index))")
        // No burst: the first second after it holds at most a second of frames, each one once,
        // each committed when it was due (its clock re-anchored at the return), a frame left out
        // only where the compositor released the one before it too late; how many frames the
        // compositor, just continued, let through in that second is its own: printed.
        let firstSecond = after.filter { $0.commit < first.commit + 1_000_000_000 }
        print("SuspendTests: \(firstSecond.count) commits in the first second after the freeze")
        XCTAssertLessThanOrEqual(firstSecond.count, 34, "a burst of \(firstSecond.count) commits in the first second")
        for h in pacing.holds where h.b.commit > first.commit && h.b.commit < first.commit + 1_000_000_000 {
            XCTAssertLessThanOrEqual(h.early, 0, "\(h.label) committed \(Double(h.early) / 1e6) ms before it was due")
            XCTAssertLessThanOrEqual(h.late, Pacing.tolerance,
                                     "\(h.label) committed \(Double(h.late) / 1e6) ms after it was due and the compositor had released the frame before")
            let skipped = (h.b.pass * 30 + h.b.index) - (h.a.pass * 30 + h.a.index) - 1
            XCTAssertTrue(skipped <= 0 || h.forced, "\(h.label): \(skipped) frame(s) left out though the compositor had released the frame before in time")
        }
        let places = after.map { $0.pass * 30 + $0.index }
        XCTAssertEqual(places, places.sorted(), "frames out of order after the freeze")
        XCTAssertEqual(Set(places).count, places.count, "a frame committed twice after the freeze")
        // And a picture, not black: the grid's cells.
        let img = try sway.shot(output)
        var colours = Set<String>()
        for y in stride(from: 10, to: img.height, by: 20) {
            for x in stride(from: 10, to: img.width, by: 20) { colours.insert("\(img.pixel(x, y))") }
        }
        XCTAssertGreaterThanOrEqual(colours.count, 8, "not the grid after the freeze: \(colours.prefix(4))")
        XCTAssertTrue(w.waitForState(output, state: "playing"), w.lastStatus)
    }
}
