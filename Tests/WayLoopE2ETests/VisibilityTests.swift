// Visibility and lifecycle: an output that is not being presented costs nothing, the picture
// comes back without a hitch, SIGUSR1 pauses (a second start hands over: CtlTests).
import Foundation
import WayLoopTestSupport
import XCTest

final class VisibilityTests: CompositorTestCase {
    override class var outputSizes: [String] { ["800x450"] }

    private func play(trace: String) throws -> (Compositor, Wayloop) {
        let sway = try compositor()
        try? FileManager.default.removeItem(atPath: trace)
        let w = try Wayloop(["--trace-frames", trace, Repo.clip("grid.mp4")], env: sway.env)
        XCTAssertTrue(Wait.until(timeout: 20) { TraceFile.records(trace).count >= 5 }, "not playing: \(w.stderr)")
        return (sway, w)
    }

    /// True once the trace stops growing for 300 ms (the frames in flight have landed).
    private func traceSettles(_ trace: String) -> Bool {
        Wait.until(timeout: 5) {
            let n = TraceFile.records(trace).count
            usleep(300_000)
            return TraceFile.records(trace).count == n
        }
    }

    private func tracePath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-vis-\(getpid())-\(name)").path
    }

    /// A fullscreen window over the wallpaper: sway stops its frame callbacks, so WayLoop stops
    /// decoding and drawing (the decoder blocks on its full queue): no CPU while hidden.
    func testHiddenCostsNothingAndReturnsQuickly() throws {
        let trace = tracePath("cover")
        defer { try? FileManager.default.removeItem(atPath: trace) }
        let (sway, w) = try play(trace: trace)
        // The baseline, from the same process in the same run: what 5 s of playing cost it.
        let playing0 = Proc.cpuTicks(w.pid)
        let playingEnd = Date().addingTimeInterval(5)
        Wait.until(timeout: 6) { Date() >= playingEnd }
        let playing = Proc.cpuTicks(w.pid) - playing0
        try sway.cover()
        // Let the frames in flight land, then measure a 5 s window.
        XCTAssertTrue(traceSettles(trace), "frames kept coming while covered")
        let frames0 = TraceFile.records(trace).count
        let cpu0 = Proc.cpuTicks(w.pid)
        let windowEnd = Date().addingTimeInterval(5)
        Wait.until(timeout: 6) { Date() >= windowEnd }
        let cpu = Proc.cpuTicks(w.pid) - cpu0
        let hiddenFrames = TraceFile.records(trace).count - frames0
        print("hidden: \(hiddenFrames) frames, \(cpu) CPU ticks (1/\(Proc.ticksPerSecond) s) over 5 s; playing: \(playing) ticks over 5 s")
        XCTAssertEqual(hiddenFrames, 0, "frames were presented while covered")
        // Judged against the same wayloop playing: hidden, it costs at most a twentieth of that
        // (the target is nothing: 0.05 CPU-s per 20 s), plus 3 ticks for /proc's granularity.
        XCTAssertGreaterThan(playing, 0, "no CPU while playing: the baseline measured nothing")
        XCTAssertLessThanOrEqual(cpu, 3 + playing / 20, "wayloop used \(cpu) ticks while hidden, \(playing) while playing")
        let start = Proc.monotonicNanos()
        sway.uncover()
        // A bound for a hang: how soon sway renders again once the window is gone is its own.
        XCTAssertTrue(Wait.until(timeout: 10) { TraceFile.records(trace).contains { $0.commit > start } },
                      "frames did not resume after the window closed")
        // It continues from where it paused: the first frame after the return follows the last
        // one shown before it, and WayLoop commits it once sway has released the frame it had
        // committed before the window came (its frame callback) and the window is gone.
        let recs = TraceFile.records(trace)
        if let i = recs.firstIndex(where: { $0.commit > start }), i > 0 {
            let before = recs[i - 1], after = recs[i]
            XCTAssertEqual((after.pass * 30 + after.index) - (before.pass * 30 + before.index), 1,
                           "jumped from \(before.pass).\(before.index) to \(after.pass).\(after.index)")
            let starvedMs = Double(Pacing.starved(before, after)) / 1e6
            let ownDelay = Double(after.commit - max(before.presented, start)) / 1e6 - starvedMs
            print("resume: the first frame committed \(Double(after.commit - start) / 1e6) ms after the uncover command, "
                  + "\(ownDelay) ms after the later of the command and sway's release of the frame before it "
                  + "(\(Double(before.presented - start) / 1e6) ms after the command; less \(starvedMs) ms waited for a CPU)")
            XCTAssertLessThan(ownDelay, 1000, "the first frame after the return came \(ownDelay) ms after the window was gone and sway had "
                              + "released the frame before it")
        }
        XCTAssertEqual(w.stop(), 0)
    }

    func testSIGUSR1TogglesPause() throws {
        let trace = tracePath("usr1")
        defer { try? FileManager.default.removeItem(atPath: trace) }
        let (sway, w) = try play(trace: trace)
        let out = sway.outputs[0]
        kill(w.pid, SIGUSR1)
        XCTAssertTrue(w.waitForState(out, state: "paused", reason: "user"), "\(w.lastStatus); \(w.stderr)")
        XCTAssertTrue(traceSettles(trace), "frames kept coming while paused")
        let n = TraceFile.records(trace).count
        kill(w.pid, SIGUSR1)
        XCTAssertTrue(w.waitForState(out, state: "playing"), "\(w.lastStatus); \(w.stderr)")
        XCTAssertTrue(Wait.until(timeout: 5) { TraceFile.records(trace).count > n + 5 }, "did not resume")
        XCTAssertEqual(w.stop(), 0)
    }

    /// After --release-after seconds hidden, the decoder and its frames are freed (RSS drops);
    /// when the output is shown again, decoding restarts and frames come back.
    func testLongHiddenReleasesMemoryAndComesBack() throws {
        let sway = try compositor()
        let trace = tracePath("release")
        defer { try? FileManager.default.removeItem(atPath: trace) }
        try? FileManager.default.removeItem(atPath: trace)
        let w = try Wayloop(["-v", "--release-after", "1", "--trace-frames", trace, Repo.clip("bench-1080p30.mp4")], env: sway.env)
        XCTAssertTrue(Wait.until(timeout: 20) { TraceFile.records(trace).count >= 20 }, "not playing: \(w.stderr)")
        let out = sway.outputs[0]
        // (A status without the decoder field throws here: the test ends at once, with the reply.)
        let running = try w.waitForDecoder(out, "running")
        XCTAssertTrue(running, "decoder not running while playing: \(w.lastStatus)")
        let rssPlaying = Proc.rssKB(w.pid)
        try sway.cover()
        defer { sway.uncover() }
        let released = try w.waitForDecoder(out, "released", timeout: 10)
        XCTAssertTrue(released, "decoder not released: \(w.lastStatus); \(w.stderr)")
        let rssReleased = Proc.rssKB(w.pid)
        print("RSS playing \(rssPlaying) kB, released \(rssReleased) kB, drop \(rssPlaying - rssReleased) kB")
        XCTAssertLessThan(rssReleased, rssPlaying - 10_000, "releasing freed less than 10 MB")
        let start = Proc.monotonicNanos()
        sway.uncover()
        let restarted = try w.waitForDecoder(out, "running", timeout: 10)
        XCTAssertTrue(restarted, "decoder not restarted: \(w.lastStatus); \(w.stderr)")
        XCTAssertTrue(Wait.until(timeout: 10) { TraceFile.records(trace).contains { $0.presented > start } },
                      "no frame after the return: \(w.stderr)")
        if let first = TraceFile.records(trace).first(where: { $0.presented > start }) {
            print("return after release: first frame \(Double(first.presented - start) / 1e6) ms after the uncover command")
        }
        XCTAssertEqual(w.stop(), 0)
    }

    /// --pause-on-battery reads sysfs (here a fake power_supply tree): discharging → paused,
    /// mains back online → resumed.
    func testPauseOnBattery() throws {
        let sway = try compositor()
        let out = sway.outputs[0]
        var env = sway.env
        let power = try FakePower(tag: "visibility")
        env["WAYLOOP_POWER_SUPPLY_DIR"] = power.dir
        let w = try Wayloop(["--pause-on-battery", Repo.clip("grid.mp4")], env: env)
        XCTAssertTrue(w.waitForState(out, state: "paused", reason: "battery"), "\(w.lastStatus); \(w.stderr)")
        try power.mains(online: true)
        XCTAssertTrue(w.waitForState(out, state: "playing", timeout: 12), "\(w.lastStatus); \(w.stderr)")
        XCTAssertEqual(w.stop(), 0)
    }
}
