// Start and stop: signals end the process with status 0, and so does the compositor going away.
// Each test gets its own compositor, since one of them kills it.
import Foundation
import XCTest

final class LifecycleTests: XCTestCase {
    private func startPlaying(_ sway: Compositor) throws -> Wayloop {
        _ = Repo.clips
        let w = try Wayloop([Repo.clip("grid.mp4")], env: sway.env)
        XCTAssertTrue(w.waitFor("showing"), "never showed the video: \(w.stderr)")
        return w
    }

    func testSignalsStopWithStatusZero() throws {
        let sway = try Compositor(kind: "start-sway")
        defer { sway.stop() }
        for sig in [SIGINT, SIGTERM] {
            let w = try startPlaying(sway)
            let start = Date()
            XCTAssertEqual(w.stop(signal: sig), 0, "signal \(sig): \(w.stderr)")
            XCTAssertLessThan(Date().timeIntervalSince(start), 5, "took too long to stop")
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

    /// Compositors with wl_output older than version 4 name their outputs through xdg-output:
    /// `-o HEADLESS-1` still finds the output (wl_output capped at 3 and at 1 here).
    func testOutputNamesFromXdgOutput() throws {
        let sway = try Compositor(kind: "start-sway")
        defer { sway.stop() }
        for version in ["3", "1"] {
            var env = sway.env
            env["WAYLOOP_WL_OUTPUT_VERSION"] = version
            let w = try Wayloop(["-o", "HEADLESS-1", "-i", Repo.clip("grid.mp4")], env: env)
            XCTAssertTrue(w.waitFor("HEADLESS-1 (1280x720, scale 1): showing"), "wl_output v\(version): \(w.stderr)")
            XCTAssertEqual(w.stop(), 0)
        }
    }
}
