// A video per workspace on a compositor that says which workspace each output shows (sway's IPC:
// sway 1.7 here, 1.10 and 1.12 from the chroots): `-w NAME VIDEO` switches with the output's
// transition when the workspace changes, never through a black picture; the way back and the
// second visit take the video kept ready (no second open); `ctl set --workspace` adds one, kept
// in the state file across a restart; status and `ctl subscribe` say the workspace.
import Foundation
import WayLoopTestSupport
import XCTest

final class WorkspacePlaybackTests: CompositorTestCase {
    override class var outputSizes: [String] { ["640x360"] }

    /// A one-colour clip (1 s, 30 fps) made once per run.
    private func solid(_ name: String, _ colour: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-ws-\(name)-\(getpid()).mp4").path
        if !FileManager.default.fileExists(atPath: path) {
            let r = Shell.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=\(colour):s=320x180:r=30", "-t", "1",
                               "-pix_fmt", "yuv420p", path], timeout: 60)
            guard r.status == 0 else { throw HarnessError("ffmpeg: \(r.stderr)") }
        }
        return path
    }

    private func statusOf(_ w: Wayloop, _ out: String) -> [String: Any]? {
        (try? w.ctlStatus())?.first { $0["name"] as? String == out }
    }

    func testEachWorkspaceShowsItsVideoWithoutABlackFrame() throws {
        let c = try compositor()
        guard c.env["SWAYSOCK"] != nil else {
            throw XCTSkip("\(c.label): WayLoop reads which workspace an output shows from sway's IPC only so far (ext-workspace-v1, Hyprland's and niri's IPC are not read yet)")
        }
        let out = c.outputs[0]
        let red = try solid("red", "red"), blue = try solid("blue", "blue")
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-ws-state-\(UUID().uuidString.prefix(6))").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        XCTAssertEqual(c.swaymsg(["workspace", "1"]).status, 0)
        var w = try Wayloop([Repo.clip("grid.mp4"), "-w", "2", red, "-v"], env: c.env, stateHome: state)
        defer { _ = w.stop() }
        XCTAssertTrue(w.waitForState(out, state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        XCTAssertTrue(Wait.until(timeout: 10) { self.statusOf(w, out)?["workspace"] as? String == "1" }, "\(w.lastStatus)")
        XCTAssertEqual(statusOf(w, out)?["video"] as? String, Repo.clip("grid.mp4"))

        // Workspace 2: red, reached through the fade, with no black picture on the way.
        XCTAssertEqual(c.swaymsg(["workspace", "2"]).status, 0)
        var sawBlack = false, sawRed = false
        let end = Date().addingTimeInterval(8)
        while Date() < end && !sawRed {
            guard let img = try? c.shot(out) else { continue }
            let p = img.pixel(img.width / 2 + 37, img.height / 2 + 23)
            if p.close(to: RGB8(0, 0, 0), tolerance: 20) { sawBlack = true }
            if p.close(to: RGB8(254, 0, 0), tolerance: 40) { sawRed = true }
        }
        XCTAssertTrue(sawRed, "workspace 2 never showed its red video: \(w.lastStatus); \(w.stderr)")
        XCTAssertFalse(sawBlack, "a black picture between the two videos")
        XCTAssertTrue(Wait.until(timeout: 10) {
            let s = self.statusOf(w, out)
            return s?["video"] as? String == red && s?["workspace"] as? String == "2" && s?["state"] as? String == "playing"
        }, "\(w.lastStatus)")

        // Back, and there again: the red video was kept ready (opened once).
        XCTAssertEqual(c.swaymsg(["workspace", "1"]).status, 0)
        XCTAssertTrue(Wait.until(timeout: 10) { self.statusOf(w, out)?["video"] as? String == Repo.clip("grid.mp4") }, "\(w.lastStatus)")
        XCTAssertEqual(c.swaymsg(["workspace", "2"]).status, 0)
        XCTAssertTrue(Wait.until(timeout: 10) { self.statusOf(w, out)?["video"] as? String == red }, "\(w.lastStatus)")
        XCTAssertEqual(w.stderr.components(separatedBy: "playing '\(red)'").count - 1, 1, "the red video was opened again: \(w.stderr)")

        // ctl set --workspace: for a workspace not shown, at once, with what happens when.
        let set = Shell.run([Repo.binary, "ctl", "set", "*", "--workspace", "3", blue], env: w.env, timeout: 20)
        XCTAssertEqual(set.status, 0, set.stderr)
        XCTAssertTrue(set.stdout.contains("workspace '3'"), set.stdout)
        let bad = Shell.run([Repo.binary, "ctl", "set", "*", "--workspace", "", blue], env: w.env, timeout: 20)
        XCTAssertEqual(bad.status, 2, bad.stderr)
        XCTAssertEqual(bad.stderr.split(separator: "\n").count, 1, bad.stderr)
        XCTAssertEqual(c.swaymsg(["workspace", "3"]).status, 0)
        XCTAssertTrue(Wait.until(timeout: 10) { self.statusOf(w, out)?["video"] as? String == blue }, "\(w.lastStatus)")

        // Kept across a restart (the state file), with the command line's own.
        XCTAssertEqual(c.swaymsg(["workspace", "1"]).status, 0)
        XCTAssertEqual(w.stop(), 0)
        w = try Wayloop([Repo.clip("grid.mp4"), "-w", "2", red], env: c.env, stateHome: state)
        XCTAssertTrue(w.waitForState(out, state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        XCTAssertEqual(c.swaymsg(["workspace", "3"]).status, 0)
        XCTAssertTrue(Wait.until(timeout: 10) { self.statusOf(w, out)?["video"] as? String == blue }, "not restored: \(w.lastStatus); \(w.stderr)")
        XCTAssertEqual(c.swaymsg(["workspace", "1"]).status, 0)
    }
}
