// Transitions: a switch fades by default (fade:0.5s); `--transition fade:D` sets the
// length, `ctl set --transition` the one switch's, `none` cuts on a frame boundary. Screenshots
// taken through the switch: a fade passes through a mix of both pictures (red E01010 and blue
// 1020E0 mix to R+B ≈ 240 at every weight, so a black frame shows as R+B ≈ 32) and ends on the
// new one; a cut never shows a mix. On both renderers (the GL blend, the shm blend pass).
import Foundation
import WayLoopTestSupport
import XCTest

final class TransitionTests: CompositorTestCase {
    nonisolated(unsafe) static var dir = ""

    override class var outputSizes: [String] { ["640x360"] }

    override class func setUpFixtures(_: Compositor) {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-fade-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        chmod(dir, 0o755)
        SolidClip.makeAll([("red", "0xE01010"), ("blue", "0x1020E0")], size: "640x360", in: dir)
        // 4:3, for fit with bars.
        SolidClip.makeAll([("blue43", "0x1020E0")], size: "480x360", in: dir)
    }

    override class func tearDownFixtures() {
        try? FileManager.default.removeItem(atPath: dir)
    }

    private func video(_ name: String) -> String { Self.dir + "/\(name).mp4" }

    /// Screenshots of the output for `seconds`, as the pixel at (x, y) of each.
    private func samples(_ sway: Compositor, seconds: Double, x: Int? = nil, y: Int? = nil) -> [RGB8] {
        var out: [RGB8] = []
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if let img = try? sway.shot(sway.outputs[0]) { out.append(img.pixel(x ?? img.width / 2, y ?? img.height / 2)) }
        }
        return out
    }

    private func isMix(_ p: RGB8) -> Bool { (50...190).contains(Int(p.r)) && (50...190).contains(Int(p.b)) }
    private func redBlueSum(_ p: RGB8) -> Int { Int(p.r) + Int(p.b) }
    private let red = RGB8(0xE0, 0x10, 0x10), blue = RGB8(0x10, 0x20, 0xE0)

    func testCtlSetFadesThroughAMixAndNeverShowsBlack() throws {
        let sway = try compositor()
        let w = try Wayloop(["-v", video("red")], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        let r = Shell.run([Repo.binary, "ctl", "set", "*", video("blue"), "--transition", "fade:2s"], env: sway.env, timeout: 30)
        XCTAssertEqual(r.status, 0, r.stderr)
        // ctl set returned as the fade began: the mix comes after it, over about 2 s.
        let seen = samples(sway, seconds: 2.5)
        // How many screenshots fit in 2.5 s is the machine's (one inside the ~1.4 s of clear mix is needed).
        print("TransitionTests: \(seen.count) screenshots in 2.5 s")
        XCTAssertTrue(seen.contains(where: isMix), "no mix of red and blue during a 2 s fade: \(seen)")
        for p in seen { XCTAssertTrue((180...300).contains(redBlueSum(p)), "a dark frame during the fade: \(p) in \(seen)") }
        XCTAssertTrue(Wait.until(timeout: 5) { self.samples(sway, seconds: 0.01).last?.close(to: self.blue, tolerance: 40) == true },
                      "the fade does not end on blue")
        // The one switch's transition does not stay: the next switch uses the default (0.5 s).
        XCTAssertTrue(w.stderr.contains("'\(video("blue"))'"), w.stderr)
        XCTAssertFalse(w.stderr.contains("error"), w.stderr)
    }

    func testTransitionNoneCutsWithoutAMix() throws {
        let sway = try compositor()
        let w = try Wayloop(["-v", "--transition", "none", video("red")], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        // The switch runs while screenshots are taken: before, at and after it.
        let set = Child([Repo.binary, "ctl", "set", "*", video("blue")], env: sway.env, stdout: "/dev/null", stderr: "/dev/null")
        let seen = samples(sway, seconds: 1.5)
        XCTAssertEqual(set?.wait(timeout: 20), 0)
        XCTAssertTrue(seen.last?.close(to: blue, tolerance: 40) == true, "not blue after the cut: \(seen)")
        for p in seen { XCTAssertTrue(p.close(to: red, tolerance: 40) || p.close(to: blue, tolerance: 40), "a mix with none: \(p) in \(seen)") }
    }

    /// A second start hands its arguments over: its --transition is how that switch looks.
    func testAHandOverFades() throws {
        let sway = try compositor()
        let w = try Wayloop(["-v", video("red")], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        var argv = [Repo.binary, "--transition", "fade:2s", video("blue")]
        if let r = Wayloop.rendererFromEnvironment { argv += ["--renderer", r] }
        let h = Shell.run(argv, env: sway.env, timeout: 30)
        XCTAssertEqual(h.status, 0, h.stderr)
        let seen = samples(sway, seconds: 2.5)
        XCTAssertTrue(seen.contains(where: isMix), "no mix during the hand-over's fade: \(seen)")
        for p in seen { XCTAssertTrue((180...300).contains(redBlueSum(p)), "a dark frame: \(p) in \(seen)") }
    }

    /// Fit's bars fade too (in GL they are a blended quad, not a clear): red (fill) to a 4:3
    /// blue fitted with green bars: the bar region goes from red to green through a mix.
    func testBarsFadeWithThePicture() throws {
        let sway = try compositor()
        let w = try Wayloop(["-v", video("red")], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        let r = Shell.run([Repo.binary, "ctl", "set", "*", video("blue43"), "-m", "fit", "-c", "00ff00", "--transition", "fade:2s"],
                          env: sway.env, timeout: 30)
        XCTAssertEqual(r.status, 0, r.stderr)
        let bar = samples(sway, seconds: 2.5, x: 20, y: 180)
        let mixed = bar.contains { (50...190).contains(Int($0.r)) && (50...200).contains(Int($0.g)) }
        XCTAssertTrue(mixed, "the bar did not fade from red to green: \(bar)")
        XCTAssertTrue(Wait.until(timeout: 5) {
            self.samples(sway, seconds: 0.01, x: 20, y: 180).last?.close(to: RGB8(0, 0xFF, 0), tolerance: 30) == true
        }, "the bar is not green after the fade")
    }

    /// A playlist's switches fade as well (its transition from the command line).
    func testAPlaylistSwitchFades() throws {
        let sway = try compositor()
        let d = Self.dir + "/list"
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        for n in ["red", "blue"] where !FileManager.default.fileExists(atPath: d + "/\(n).mp4") {
            try FileManager.default.linkItem(atPath: video(n), toPath: d + "/\(n).mp4")
        }
        let w = try Wayloop(["-v", "-i", d, "--interval", "1500ms", "--transition", "fade:1s"], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        let seen = samples(sway, seconds: 4)
        XCTAssertTrue(seen.contains(where: isMix), "no mix at a playlist switch: \(seen)")
        for p in seen { XCTAssertTrue((180...300).contains(redBlueSum(p)), "a dark frame: \(p) in \(seen)") }
    }

    func testABadTransitionIsOneLine() throws {
        let sway = try compositor()
        for bad in ["fade:0s", "fade:2m", "wipe", "fade:", "fade:-1s"] {
            let r = Shell.run([Repo.binary, "--no-config", "--transition", bad, video("red")], env: sway.env, timeout: 20)
            XCTAssertEqual(r.status, 2, "\(bad): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("'\(bad)' is not none, fade or fade:DURATION"), r.stderr)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        }
        let w = try Wayloop(["-v", video("red")], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        let only = Shell.run([Repo.binary, "ctl", "set", "*", "--transition", "fade:1s"], env: sway.env, timeout: 20)
        XCTAssertNotEqual(only.status, 0)
        XCTAssertTrue(only.stderr.contains("--transition is how a switch looks"), only.stderr)
    }

    /// Paused mid-fade: the new picture alone (not a frozen mix).
    func testAPauseMidFadeShowsTheNewPictureAlone() throws {
        let sway = try compositor()
        let w = try Wayloop(["-v", video("red")], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        XCTAssertEqual(Shell.run([Repo.binary, "ctl", "set", "*", video("blue"), "--transition", "fade:10s"], env: sway.env,
                                 timeout: 30).status, 0)
        XCTAssertEqual(Shell.run([Repo.binary, "ctl", "pause"], env: sway.env, timeout: 20).status, 0)
        XCTAssertTrue(Wait.until(timeout: 5) { self.samples(sway, seconds: 0.01).last?.close(to: self.blue, tolerance: 40) == true },
                      "paused mid-fade, the picture is not the new one: \(samples(sway, seconds: 0.01))")
    }

    /// The picture under a fitted video's bars does not darken mid-fade (GL draws the bars'
    /// colour only outside the picture): red to blue keeps R+B at every step.
    func testAFittedPictureDoesNotDarkenMidFade() throws {
        let sway = try compositor()
        let w = try Wayloop(["-v", video("red")], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        let r = Shell.run([Repo.binary, "ctl", "set", "*", video("blue43"), "-m", "fit", "--transition", "fade:2s"],
                          env: sway.env, timeout: 30)
        XCTAssertEqual(r.status, 0, r.stderr)
        let centre = samples(sway, seconds: 2.2)
        XCTAssertTrue(centre.contains(where: isMix), "no mix: \(centre)")
        for p in centre { XCTAssertTrue((180...300).contains(redBlueSum(p)), "darkened mid-fade: \(p) in \(centre)") }
    }
}
