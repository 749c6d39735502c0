// Windows over the wallpaper, on whichever compositor $WAYLOOP_COMPOSITOR names: a window that
// fills the workspace (tiled on sway, maximized elsewhere), the same within gaps where the
// compositor has them, and a fullscreen one. What the compositor does with the wallpaper's frame
// callbacks is its own (wlroots' scene graph stops them for a surface that windows cover; others
// go on, and Wayfire goes on asking for frames that it then discards); what is WayLoop's, and
// asserted here, is that its state follows them: no frame callback means paused, with the
// reason, and callbacks mean it plays. Each run prints one line for docs/compositors.md's table.
import Foundation
import WayLoopTestSupport
import XCTest

final class CoveringTests: CompositorTestCase {
    override class var outputSizes: [String] { ["800x450"] }

    private func tracePath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-covering-\(getpid())-\(UUID().uuidString.prefix(6))").path
    }

    /// What reached the compositor and what it showed of `output` in a 2 s window, once the
    /// frames in flight have landed: frames committed (status's frames_shown: each one a frame
    /// callback answered) and frames the compositor says it presented (presentation-time, the
    /// trace; a frame it discards gets no line).
    private func whileCovered(_ c: Compositor, _ trace: String) throws -> (committed: Int, presented: Int) {
        let out = c.outputs[0]
        func committed() throws -> Int {
            let outs: [[String: Any]] = try Ctl.status(env: c.env)
            let o: [String: Any]? = outs.first { $0["name"] as? String == out }
            return o?["frames_shown"] as? Int ?? 0
        }
        usleep(700_000)
        let n0 = TraceFile.records(trace).filter { $0.output == out }.count, c0 = try committed()
        usleep(2_000_000)
        return (try committed() - c0, TraceFile.records(trace).filter { $0.output == out }.count - n0)
    }

    /// One covering: what the callbacks did and WayLoop's state, judged against each other.
    /// Returns the table's words for it.
    private func observe(_ what: String, _ c: Compositor, _ w: Wayloop, _ trace: String) throws -> String {
        let out = c.outputs[0]
        let (committed, presented) = try whileCovered(c, trace)
        if committed == 0 {
            // No frame callback: WayLoop must say it is paused, and why.
            let why = w.waitForState(out, state: "paused", reason: "fullscreen", timeout: 3) ? "fullscreen"
                : w.waitForState(out, state: "paused", reason: "hidden", timeout: 5) ? "hidden" : nil
            XCTAssertNotNil(why, "\(c.label), \(what): no frame committed, yet WayLoop does not say it is paused: \(w.lastStatus)")
            return why == "fullscreen" ? "paused (fullscreen, from wlr-foreign-toplevel)" : "callbacks stop: paused (hidden)"
        }
        // The compositor asks for frames: WayLoop plays.
        XCTAssertTrue(w.waitForState(out, state: "playing", timeout: 5), "\(c.label), \(what): \(committed) frames committed but \(w.lastStatus)")
        if presented == 0 {
            // presentation-time says every one was discarded: nobody sees them, and WayLoop,
            // which reads frame callbacks, plays on unseen.
            return "callbacks go on, every frame discarded (\(committed) in 2 s): plays unseen"
        }
        return "callbacks go on (\(committed) frames in 2 s, \(presented) presented): plays"
    }

    func testWindowsOverTheWallpaper() throws {
        let c = try compositor()
        let out = c.outputs[0]
        let trace = tracePath()
        defer { try? FileManager.default.removeItem(atPath: trace) }
        let w = try Wayloop(["--trace-frames", trace, Repo.clip("grid.mp4")], env: c.env)
        defer { _ = w.stop() }
        XCTAssertTrue(w.waitForState(out, state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        var row: [String] = []

        try c.cover(maximized: true)
        row.append("tiled/maximized: " + (try observe("a window filling the workspace", c, w, trace)))
        c.uncover()
        XCTAssertTrue(w.waitForState(out, state: "playing", timeout: 10), "not playing again after the window closed: \(w.lastStatus)")

        if c.hasGaps {
            try c.gaps(40)
            try c.cover(maximized: true)
            // The wallpaper shows between the window and the output's edges: it must play.
            if !c.isKWin {
                let img = try c.shot(out)
                XCTAssertFalse(img.pixel(10, img.height / 2).close(to: RGB8(255, 0, 255), tolerance: 8),
                               "\(c.label): the window covers the output's edge despite gaps of 40")
            }
            let (committed, presented) = try whileCovered(c, trace)
            XCTAssertGreaterThan(presented, 0, "\(c.label): the wallpaper shows within gaps of 40, yet no frame was presented")
            XCTAssertTrue(w.waitForState(out, state: "playing", timeout: 5), "\(c.label), gaps 40: \(w.lastStatus)")
            row.append("with gaps 40: plays (\(committed) frames in 2 s, \(presented) presented)")
            c.uncover()
            try c.gaps(0)
        } else {
            row.append("with gaps: none to set")
        }

        try c.cover()
        row.append("fullscreen: " + (try observe("a fullscreen window", c, w, trace)))
        c.uncover()
        XCTAssertTrue(w.waitForState(out, state: "playing", timeout: 10), "not playing again after the window closed: \(w.lastStatus)")
        print("covering on \(c.label) (\(c.shotSource)): " + row.joined(separator: "; "))
    }
}
