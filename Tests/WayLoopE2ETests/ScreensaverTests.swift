// A screensaver beside the wallpaper: `--name saver --layer overlay` is an instance
// of its own (lock and socket wayloop-saver-$WAYLAND_DISPLAY), drawn above a fullscreen window
// without pausing for it and without taking the keyboard, stopped by `ctl --name saver quit`,
// while the wallpaper instance goes on. Headless sway; the fullscreen window is the harness's
// magenta foot ("cover").
import Foundation
import WayLoopTestSupport
import XCTest

final class ScreensaverTests: CompositorTestCase {
    nonisolated(unsafe) static var dir = ""

    override class var outputSizes: [String] { ["320x240"] }

    override class func setUpFixtures(_: Compositor) {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-saver-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        chmod(dir, 0o755)
        SolidClip.makeAll([("red", "0xE01010"), ("blue", "0x1020E0")], size: "320x240", in: dir)
    }

    override class func tearDownFixtures() {
        try? FileManager.default.removeItem(atPath: dir)
    }

    private let red = RGB8(0xE0, 0x10, 0x10), blue = RGB8(0x10, 0x20, 0xE0), magenta = RGB8(0xFF, 0x00, 0xFF)

    private func centre(_ sway: Compositor) throws -> RGB8 {
        let img = try sway.shot(sway.outputs[0])
        return img.pixel(img.width / 2, img.height / 2)
    }

    private func waitCentre(_ sway: Compositor, _ want: RGB8) -> Bool {
        var last = "none"
        let ok = Wait.until(timeout: 10) {
            guard let p = try? self.centre(sway) else { return false }
            last = "\(p)"
            return p.close(to: want, tolerance: 40)
        }
        if !ok { print("ScreensaverTests: centre \(last), wanted \(want)") }
        return ok
    }

    /// `ctl [--name NAME] status --json` of one instance.
    private func status(_ sway: Compositor, name: String?) -> [[String: Any]] {
        let args = [Repo.binary, "ctl"] + (name.map { ["--name", $0] } ?? []) + ["status", "--json"]
        let r = Shell.run(args, env: sway.env, timeout: 10)
        guard r.status == 0, let obj = try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] else { return [] }
        return obj["outputs"] as? [[String: Any]] ?? []
    }

    private func waitState(_ sway: Compositor, name: String?, _ state: String, reason: String? = nil) -> Bool {
        Wait.until(timeout: 15) {
            self.status(sway, name: name).contains { $0["state"] as? String == state && (reason == nil || $0["reason"] as? String == reason) }
        }
    }

    /// The app_id of the node sway says has the focus (nil: none, or not a window).
    private func focusedAppID(_ sway: Compositor) -> String? {
        let r = sway.swaymsg(["-r", "-t", "get_tree"])
        guard let root = try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] else { return nil }
        func find(_ n: [String: Any]) -> [String: Any]? {
            if n["focused"] as? Bool == true { return n }
            for key in ["nodes", "floating_nodes"] {
                for c in n[key] as? [[String: Any]] ?? [] { if let f = find(c) { return f } }
            }
            return nil
        }
        return find(root)?["app_id"] as? String
    }

    func testAnOverlayScreensaverBesideTheWallpaper() throws {
        let sway = try compositor()
        let wallpaper = try Wayloop([Self.dir + "/red.mp4"], env: sway.env)
        defer { XCTAssertEqual(wallpaper.stop(), 0, wallpaper.stderr) }
        XCTAssertTrue(waitState(sway, name: nil, "playing"), wallpaper.stderr)
        XCTAssertTrue(waitCentre(sway, red))
        // A fullscreen window: the wallpaper pauses under it.
        try sway.cover()
        defer { sway.uncover() }
        XCTAssertTrue(waitState(sway, name: nil, "paused", reason: "fullscreen"), "\(status(sway, name: nil))")
        XCTAssertTrue(waitCentre(sway, magenta))
        // The screensaver: its own instance, above the fullscreen window, never paused by it.
        let saver = try Wayloop(["--name", "saver", "--layer", "overlay", Self.dir + "/blue.mp4"], env: sway.env)
        XCTAssertTrue(waitState(sway, name: "saver", "playing"), "\(status(sway, name: "saver")); \(saver.stderr)")
        XCTAssertTrue(waitCentre(sway, blue), "the overlay is not above the fullscreen window")
        XCTAssertTrue(FileManager.default.fileExists(atPath: Ctl.socketPath(env: sway.env, name: "saver")))
        XCTAssertTrue(FileManager.default.fileExists(atPath: Ctl.socketPath(env: sway.env)), "the wallpaper's socket")
        // It takes no keyboard: the fullscreen window keeps the focus.
        XCTAssertEqual(focusedAppID(sway), "wayloop-cover", "the fullscreen window lost the focus")
        // Still one of each: the wallpaper paused, the saver playing. Paused for the fullscreen
        // window on sway 1.7; from sway 1.10 on (wlroots' scene graph), a toplevel the overlay
        // covers whole leaves the output on wlr-foreign-toplevel (output_leave), and the
        // wallpaper is paused because the compositor stopped its frame callbacks (hidden).
        XCTAssertTrue(Wait.until(timeout: 15) {
            self.status(sway, name: nil).contains { $0["state"] as? String == "paused" && ["fullscreen", "hidden"].contains($0["reason"] as? String ?? "") }
        }, "\(status(sway, name: nil))")
        XCTAssertTrue(waitState(sway, name: "saver", "playing"))
        // A second start with the same name hands over to the saver, not to the wallpaper.
        let again = Shell.run([Repo.binary, "--name", "saver", "--layer", "overlay", Self.dir + "/red.mp4"], env: sway.env, timeout: 30)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(Wait.until(timeout: 10) {
            self.status(sway, name: "saver").contains { ($0["video"] as? String ?? "").hasSuffix("red.mp4") }
        }, "\(status(sway, name: "saver"))")
        XCTAssertTrue(status(sway, name: nil).contains { ($0["video"] as? String ?? "").hasSuffix("red.mp4") })
        // swayidle's resume: the saver goes, the fullscreen window shows again, the wallpaper stays.
        let quit = Shell.run([Repo.binary, "ctl", "--name", "saver", "quit"], env: sway.env, timeout: 10)
        XCTAssertEqual(quit.status, 0, quit.stderr)
        XCTAssertEqual(saver.waitExit(timeout: 10), 0, saver.stderr)
        XCTAssertTrue(waitCentre(sway, magenta))
        XCTAssertTrue(wallpaper.isRunning, wallpaper.stderr)
        sway.uncover()
        XCTAssertTrue(waitState(sway, name: nil, "playing"))
        XCTAssertTrue(waitCentre(sway, red))
    }

    /// A fullscreen window that is there before the wallpaper starts pauses it too: the toplevel
    /// manager listens from its bind, so the windows announced during start-up are known.
    func testAFullscreenWindowOpenBeforeTheStartPausesIt() throws {
        let sway = try compositor()
        try sway.cover()
        defer { sway.uncover() }
        let wallpaper = try Wayloop([Self.dir + "/red.mp4"], env: sway.env)
        defer { XCTAssertEqual(wallpaper.stop(), 0, wallpaper.stderr) }
        XCTAssertTrue(waitState(sway, name: nil, "paused", reason: "fullscreen"), "\(status(sway, name: nil)); \(wallpaper.stderr)")
        sway.uncover()
        XCTAssertTrue(waitState(sway, name: nil, "playing"), "\(status(sway, name: nil))")
        XCTAssertTrue(waitCentre(sway, red))
    }

    func testBadNamesAndLayersAreRefused() throws {
        let sway = try compositor()
        for (args, mention) in [(["--name", "a/b"], "--name"), (["--name", ""], "--name"), (["--layer", "sideways"], "sideways"),
                                (["--name", String(repeating: "n", count: 33)], "--name")] {
            let w = try Wayloop(args + [Self.dir + "/red.mp4"], env: sway.env)
            XCTAssertEqual(w.waitExit(), 2, "\(args): \(w.stderr)")
            XCTAssertEqual(w.stderrLines.count, 1, w.stderr)
            XCTAssertTrue(w.stderr.contains(mention), w.stderr)
        }
        let ctl = Shell.run([Repo.binary, "ctl", "--name", "no/such", "status"], env: sway.env, timeout: 10)
        XCTAssertEqual(ctl.status, 2, ctl.stderr)
        let none = Shell.run([Repo.binary, "ctl", "--name", "nobody", "status"], env: sway.env, timeout: 10)
        XCTAssertEqual(none.status, 3, "no instance of that name runs: \(none.stderr)")
        XCTAssertTrue(none.stderr.contains("wayloop-nobody-"), none.stderr)
    }
}
