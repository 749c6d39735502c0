// Switching back is instant: a video switched away from stays ready (`--keep-recent`, default 3),
// so `ctl set` back to it is answered without opening it again and it is on screen at once; with
// `--keep-recent 0` it is opened again. The times from `ctl set` to the picture on screen (ctl
// returns then) are printed: first time and back again. The switches cut (`--transition none`):
// with a fade the new picture would be on screen but mixed, and the old video kept until the fade
// ends (TransitionTests).
import Foundation
import WayLoopTestSupport
import XCTest

final class KeepRecentTests: CompositorTestCase {
    nonisolated(unsafe) static var dir = ""

    override class var outputSizes: [String] { ["640x360"] }

    override class func setUpFixtures(_: Compositor) {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-recent-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        chmod(dir, 0o755)
        SolidClip.makeAll([("red", "0xE01010"), ("blue", "0x1020E0"), ("green", "0x10C020")], size: "1280x720", in: dir)
    }

    override class func tearDownFixtures() {
        try? FileManager.default.removeItem(atPath: dir)
    }

    private func video(_ name: String) -> String { Self.dir + "/\(name).mp4" }

    /// `ctl set '*' VIDEO` and the milliseconds until it returned (the new picture is on screen).
    private func switchTo(_ name: String, env: [String: String]) -> Double {
        let t0 = Proc.monotonicNanos()
        let r = Shell.run([Repo.binary, "ctl", "set", "*", video(name)], env: env, timeout: 30)
        let ms = Double(Proc.monotonicNanos() - t0) / 1e6
        XCTAssertEqual(r.status, 0, "ctl set \(name): \(r.stderr)")
        return ms
    }

    private func opened(_ w: Wayloop, _ name: String) -> Int {
        w.stderrLines.filter { $0.contains("playing '\(video(name))'") }.count
    }

    private func centre(_ sway: Compositor) -> RGB8? {
        guard let img = try? sway.shot(sway.outputs[0]) else { return nil }
        return img.pixel(img.width / 2, img.height / 2)
    }

    func testSwitchingBackShowsTheVideoWithoutOpeningItAgain() throws {
        let sway = try compositor()
        let w = try Wayloop(["-v", "--transition", "none", video("red")], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        let first = switchTo("blue", env: sway.env)
        XCTAssertTrue(centre(sway)?.close(to: RGB8(0x10, 0x20, 0xE0), tolerance: 40) == true, "blue is not on screen")
        XCTAssertTrue(w.stderr.contains("'\(video("red"))': no output shows it: kept ready for a switch back"), w.stderr)
        let back = switchTo("red", env: sway.env)
        XCTAssertTrue(centre(sway)?.close(to: RGB8(0xE0, 0x10, 0x10), tolerance: 40) == true, "red is not on screen")
        XCTAssertEqual(opened(w, "red"), 1, "red was opened again: \(w.stderr)")
        print("KeepRecentTests: ctl set to a new video \(String(format: "%.1f", first)) ms, back to a recent one \(String(format: "%.1f", back)) ms")
        // A third and a fourth video with --keep-recent 3: all kept; still one open each.
        _ = switchTo("green", env: sway.env)
        _ = switchTo("blue", env: sway.env)
        _ = switchTo("red", env: sway.env)
        for name in ["red", "blue", "green"] { XCTAssertEqual(opened(w, name), 1, "\(name): \(w.stderr)") }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing"), w.lastStatus)
    }

    func testKeepRecentZeroOpensItAgain() throws {
        let sway = try compositor()
        let w = try Wayloop(["-v", "--transition", "none", "--keep-recent", "0", video("red")], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        let first = switchTo("blue", env: sway.env)
        XCTAssertTrue(w.stderr.contains("'\(video("red"))': no output shows it: decoder stopped"), w.stderr)
        let back = switchTo("red", env: sway.env)
        XCTAssertEqual(opened(w, "red"), 2, "red should have been opened again: \(w.stderr)")
        XCTAssertTrue(centre(sway)?.close(to: RGB8(0xE0, 0x10, 0x10), tolerance: 40) == true, "red is not on screen")
        print("KeepRecentTests: --keep-recent 0: ctl set to a new video \(String(format: "%.1f", first)) ms, back again \(String(format: "%.1f", back)) ms")
    }

    func testTheBudgetAndTheCountBoundWhatIsKept() throws {
        let sway = try compositor()
        let w = try Wayloop(["-v", "--transition", "none", "--keep-recent", "1", video("red")], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        _ = switchTo("blue", env: sway.env)   // red kept
        _ = switchTo("green", env: sway.env)  // blue kept, red (the oldest) dropped
        // Status says what is kept: blue alone, red dropped (--keep-recent 1).
        var recent: [String]?
        XCTAssertTrue(Wait.until(timeout: 20) {
            recent = (try? Ctl.statusReply(env: sway.env))?["recent"] as? [String]
            return recent == [video("blue")]
        }, "recent videos: \(recent ?? []); \(w.stderr)")
        _ = switchTo("blue", env: sway.env)
        XCTAssertEqual(opened(w, "blue"), 1, "blue was kept: \(w.stderr)")
        _ = switchTo("red", env: sway.env)
        XCTAssertEqual(opened(w, "red"), 2, "red was dropped, so it opens again: \(w.stderr)")
    }
}
