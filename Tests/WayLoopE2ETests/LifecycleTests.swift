// Start and stop: signals end the process with status 0, and so does the compositor going away.
// Each test gets its own compositor, since one of them kills it.
import Foundation
import WayLoopTestSupport
import XCTest

final class LifecycleTests: XCTestCase {
    private func startPlaying(_ sway: Compositor) throws -> Wayloop {
        _ = Repo.clips
        let w = try Wayloop([Repo.clip("grid.mp4")], env: sway.env)
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing", shown: true),
                      "never showed the video: \(w.lastStatus); \(w.stderr)")
        return w
    }

    func testSignalsStopWithStatusZero() throws {
        let sway = try Compositor(kind: "start-sway")
        defer { sway.stop() }
        for sig in [SIGINT, SIGTERM] {
            let w = try startPlaying(sway)
            let start = Date()
            XCTAssertEqual(w.stop(signal: sig), 0, "signal \(sig): \(w.stderr)")
            let took = Date().timeIntervalSince(start)
            // A stop takes under 200 ms on a quiet machine (printed, for the record); how long the
            // exit takes on a loaded one is the machine's. The bound is for a hang: stop's 10 s.
            print("signal \(sig): exited in \(Int(took * 1000)) ms (polled every 20 ms)")
            XCTAssertFalse(w.crashed)
        }
    }

    func testCompositorGoingAwayEndsWithStatusZero() throws {
        let sway = try Compositor(kind: "start-sway")
        defer { sway.stop() }
        let w = try startPlaying(sway)
        sway.stop()
        XCTAssertEqual(w.waitExit(timeout: 10), 0, w.stderr)
        XCTAssertFalse(w.crashed)
        XCTAssertTrue(w.stderr.contains("compositor closed the connection"), w.stderr)
    }

    /// The compositor killed outright (SIGKILL: no goodbye on the socket): wayloop notices at
    /// once, says so in one line and exits 0, which the systemd unit leaves stopped until the
    /// session (graphical-session.target) starts it again. It leaves nothing that would stop the
    /// next start: its control socket is gone and its lock (an flock) is free, so a new wayloop
    /// on the same display gets as far as looking for the compositor (exit 3), not "already
    /// running" (exit 6).
    func testCompositorKilledEndsAtOnceAndLeavesNothingBehind() throws {
        let sway = try Compositor(kind: "start-sway")
        defer { sway.stop() }
        let w = try startPlaying(sway)
        guard let pid = sway.env["COMPOSITOR_PID"].flatMap({ pid_t($0) }) else { throw HarnessError("no COMPOSITOR_PID in \(sway.dir)/env") }
        let start = Date()
        kill(pid, SIGKILL)
        XCTAssertEqual(w.waitExit(timeout: 10), 0, w.stderr)
        let took = Date().timeIntervalSince(start)
        // At once on a quiet machine (printed); the bound is for a hang: waitExit's 10 s.
        print("compositor SIGKILL: wayloop exited in \(Int(took * 1000)) ms")
        XCTAssertFalse(w.crashed)
        let lines = w.stderrLines.filter { !$0.contains(": notice: main:") }
        XCTAssertEqual(lines, ["wayloop: notice: wayland: the compositor closed the connection; exiting"], w.stderr)
        let runtime = sway.env["XDG_RUNTIME_DIR"] ?? ""
        let left = (try? FileManager.default.contentsOfDirectory(atPath: runtime))?.filter { $0.hasSuffix(".sock") && $0.hasPrefix("wayloop") } ?? []
        XCTAssertEqual(left, [], "a control socket was left in \(runtime)")
        let again = Shell.run([Repo.binary, Repo.clip("grid.mp4")], env: sway.env, timeout: 20)
        XCTAssertEqual(again.status, 3, again.stderr)
        XCTAssertFalse(again.stderr.contains("already running"), again.stderr)
    }

    /// Compositors with wl_output older than version 4 name their outputs through xdg-output:
    /// `-o HEADLESS-1` still finds the output (wl_output capped at 3 and at 1 here).
    func testOutputNamesFromXdgOutput() throws {
        let sway = try Compositor(kind: "start-sway")
        defer { sway.stop() }
        let cells = try GridPicture.colors()
        for version in ["3", "1"] {
            var env = sway.env
            env["WAYLOOP_WL_OUTPUT_VERSION"] = version
            let w = try Wayloop(["-o", "HEADLESS-1", "-i", Repo.clip("grid.mp4")], env: env)
            // Found by that name, and drawn at its 1280x720 size and scale 1.
            XCTAssertTrue(w.waitForState("HEADLESS-1", state: "playing", shown: true),
                          "wl_output v\(version): \(w.lastStatus); \(w.stderr)")
            let (filled, report) = waitFilled(sway, "HEADLESS-1", width: 1280, height: 720, cells: cells)
            XCTAssertTrue(filled, "wl_output v\(version): HEADLESS-1 not aspect-filled at 1280x720: \(report); \(w.stderr)")
            XCTAssertEqual(w.stop(), 0)
        }
    }

    /// A rotated output (wl_output transform 90): the surface is reconfigured to the turned
    /// size and the picture is aspect-filled, upright, at that size.
    func testRotatedOutputIsFilledAtItsTurnedSize() throws {
        let sway = try Compositor(kind: "start-sway")
        defer { sway.stop() }
        let w = try startPlaying(sway)
        let r = sway.swaymsg(["output", sway.outputs[0], "transform", "90"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let cells = try GridPicture.colors()
        let (ok, report) = waitFilled(sway, sway.outputs[0], width: 720, height: 1280, cells: cells)
        XCTAssertTrue(ok, "rotated output not aspect-filled: \(report); \(w.stderr)")
        XCTAssertEqual(w.stop(), 0)
    }

    /// Two outputs of the video's own size share one converted picture (copied with a blit):
    /// both show it upright and whole, and both keep playing.
    func testTwoOutputsOfTheVideoSizeShareOnePicture() throws {
        let sway = try Compositor(kind: "start-sway", outputs: ["1280x720", "1280x720"])
        defer { sway.stop() }
        let trace = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-share-\(getpid())").path
        try? FileManager.default.removeItem(atPath: trace)
        defer { try? FileManager.default.removeItem(atPath: trace) }
        _ = Repo.clips
        let w = try Wayloop(["--trace-frames", trace, Repo.clip("grid.mp4")], env: sway.env)
        let cells = try GridPicture.colors()
        for name in sway.outputs {
            var report = ""
            let ok = Wait.until(timeout: 10) {
                guard let img = try? sway.shot(name) else { return false }
                let f = GridPicture.fillReport(img, cells: cells)
                report = f.report
                return f.ok
            }
            XCTAssertTrue(ok, "\(name): \(report); \(w.stderr)")
        }
        XCTAssertTrue(Wait.until(timeout: 10) {
            let r = TraceFile.records(trace)
            return sway.outputs.allSatisfy { o in r.filter { $0.output == o }.count >= 30 }
        }, "both outputs should keep presenting frames")
        XCTAssertEqual(w.stop(), 0)
    }

    /// Waits (bounded) until a WxH screenshot of `output` is aspect-filled by the grid.
    private func waitFilled(_ sway: Compositor, _ output: String, width: Int, height: Int,
                            cells: [[RGB8]]) -> (ok: Bool, report: String) {
        var report = ""
        let ok = Wait.until(timeout: 10) {
            guard let img = try? sway.shot(output), img.width == width, img.height == height else {
                report = "no \(width)x\(height) screenshot"
                return false
            }
            let f = GridPicture.fillReport(img, cells: cells)
            report = f.report
            return f.ok
        }
        return (ok, report)
    }
}
