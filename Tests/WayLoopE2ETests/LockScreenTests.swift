// The lock screen: swaylock-plugin (built from third_party/ in the sid chroot by scripts/chroots)
// locks headless sway 1.12 through ext-session-lock-v1 and draws its lock screen with WayLoop
// (`swaylock-plugin --command 'wayloop …'`: the host's wayloop inside the chroot, through the
// host's loader and libraries, as QuickshellTests runs it; scripts/compositors/chroot.sh,
// chroot_locker). What it shows:
//   - the lock screen plays the lock's video (a screenshot of the locked output shows it, and its
//     frame trace goes on: it plays, not a still);
//   - the lock's wayloop runs on the connection swaylock-plugin hands it (WAYLAND_SOCKET) as an
//     instance of its own: it does not hand its arguments over to the desktop's wayloop (which
//     would change the desktop's video and end the lock's), and the desktop's goes on;
//   - the desktop's wayloop pauses while the session is locked (reason hidden: nothing decoded,
//     converted or presented), and plays again once it is unlocked (SIGUSR1, swaylock-plugin(1));
//   - nothing of the lock is left running after the unlock.
// Always sway 1.12, whatever $WAYLOOP_COMPOSITOR says. Skipped, with the reason, only where the
// sid chroot (or its swaylock-plugin) is not there.
import Foundation
import WayLoopTestSupport
import XCTest

final class LockScreenTests: XCTestCase {
    private static let testUser = "wayloop-test"
    private static let lockColour = RGB8(0xd0, 0x20, 0x20)

    func testTheVideoPlaysOnTheLockScreenAndTheDesktopPausesUnderIt() throws {
        let sid = Shell.run([Repo.path("scripts/chroots"), "path", "sid"], timeout: 10).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard Shell.run([Repo.path("scripts/chroots"), "check", "sid"], timeout: 30).status == 0 else {
            throw XCTSkip("the sid chroot is not made (scripts/chroots make sid): no sway 1.12 or swaylock-plugin to lock it with")
        }
        guard FileManager.default.isExecutableFile(atPath: sid + "/opt/swaylock-plugin/bin/swaylock-plugin") else {
            throw XCTSkip("no swaylock-plugin in the sid chroot (\(sid)/opt/swaylock-plugin): scripts/chroots builds it from third_party/swaylock-plugin")
        }
        guard getuid() == 0 else { throw HarnessError("LockScreenTests needs root (the chroot, its mounts, two users)") }

        let sway = try Compositor(kind: "start-sway", outputs: ["640x360"], named: "sway-1.12")
        defer { sway.stop() }
        let output = try XCTUnwrap(sway.outputs.first, "sway 1.12 reported no output")

        // The lock's world, the test user's: the binary under test and the lock's clip where it
        // can read them (a checkout under a 0700 directory is out of its reach), its cache and state.
        let (base, binary) = try UserWorld.make(sway.dir + "/lock", subdirectories: ["cache", "state"])
        let fm = FileManager.default
        let lockClip = base + "/lock.mp4"
        try SolidClip.make(lockClip, colour: "0x" + Self.lockColour.description, size: "320x180")
        try UserWorld.chown(base, to: Self.testUser)

        // The desktop's wallpaper: the host's wayloop, as on any desktop.
        let desktop = try Wayloop([Repo.clip("grid.mp4")], env: sway.env)
        defer { _ = desktop.stop() }
        XCTAssertTrue(desktop.waitForState(output, state: "playing", shown: true, timeout: 20), "\(desktop.lastStatus); \(desktop.stderr)")

        try UserWorld.prepareChroot("chroot_locker", dir: sway.dir, binary: binary, env: sway.env)
        var lockEnv = sway.env
        lockEnv["XDG_CACHE_HOME"] = base + "/cache"
        lockEnv["XDG_STATE_HOME"] = base + "/state"
        let lockErr = base + "/swaylock-plugin.err"
        let lockTrace = base + "/lock.trace"
        guard let locker = Child([sway.dir + "/tools/swaylock-plugin", "--command", "wayloop -v --no-config --trace-frames \(lockTrace) \(lockClip)"],
                                 env: lockEnv,
                                 stdout: base + "/swaylock-plugin.out", stderr: lockErr) else {
            throw HarnessError("cannot start swaylock-plugin")
        }
        defer {
            if locker.isRunning { kill(locker.pid, SIGUSR1) }
            _ = locker.wait(timeout: 10)
        }
        func lockLog() -> String {
            ((try? String(contentsOfFile: lockErr, encoding: .utf8)) ?? "").split(separator: "\n").suffix(15).joined(separator: "\n")
        }

        // Locked: the lock screen plays the lock's clip.
        var shown = RGB8(0, 0, 0)
        let onLock = Wait.until(timeout: 30) {
            guard locker.isRunning, let img = try? sway.shot(output) else { return !locker.isRunning }
            shown = img.pixel(img.width / 2, img.height / 2)
            return shown.close(to: Self.lockColour, tolerance: 24)
        }
        XCTAssertTrue(locker.isRunning, "swaylock-plugin exited: \(lockLog())")
        XCTAssertTrue(onLock, "the locked output never showed the lock's video (centre \(shown)): \(lockLog())")
        // It plays there (frames committed and presented one after another), not a still.
        let seen = TraceFile.records(lockTrace).count
        XCTAssertTrue(Wait.until(timeout: 10) { TraceFile.records(lockTrace).count >= seen + 15 },
                      "the lock screen's video does not play: \(TraceFile.records(lockTrace).count - seen) frames presented after the first \(seen)")
        XCTAssertTrue(lockLog().contains("on a connection of its own"), "the lock's wayloop did not run on its own connection: \(lockLog())")
        XCTAssertFalse(lockLog().contains("handed over"), "the lock's wayloop handed over to the desktop's: \(lockLog())")
        // Its own instance: no lock or control socket of its own beside the desktop's two (one
        // named by WAYLAND_DISPLAY's default, wayland-0, would be taken for another display's).
        let runtime = try XCTUnwrap(sway.env["XDG_RUNTIME_DIR"]), display = try XCTUnwrap(sway.env["WAYLAND_DISPLAY"])
        let instanceFiles = ((try? fm.contentsOfDirectory(atPath: runtime)) ?? []).filter { $0.hasPrefix("wayloop-") }.sorted()
        XCTAssertEqual(instanceFiles, ["wayloop-\(display).lock", "wayloop-\(display).sock"], "the lock's wayloop made instance files")
        let desktopVideo = (try? desktop.ctlStatus())?.first { $0["name"] as? String == output }?["video"] as? String
        XCTAssertEqual(desktopVideo, Repo.clip("grid.mp4"), "the desktop's wayloop took the lock's arguments: \(desktop.lastStatus)")

        // Under the lock the desktop's wallpaper costs nothing: paused (hidden), no frame
        // converted or presented.
        XCTAssertTrue(desktop.waitForState(output, state: "paused", reason: "hidden", timeout: 15),
                      "the desktop's wayloop did not pause under the lock: \(desktop.lastStatus)")
        desktop.assertDrawsNothing(output, while: "under the lock")

        // Unlocked: swaylock-plugin ends (and its wayloop with it), the desktop plays again.
        kill(locker.pid, SIGUSR1)
        XCTAssertTrue(Wait.until(timeout: 15) { !locker.isRunning }, "swaylock-plugin did not unlock and exit on SIGUSR1: \(lockLog())")
        XCTAssertEqual(locker.exitStatus, 0, lockLog())
        XCTAssertTrue(desktop.waitForState(output, state: "playing", timeout: 15), "the desktop's wayloop did not play again: \(desktop.lastStatus)")
        let resumed = desktop.frameCounts(output)
        XCTAssertTrue(Wait.until(timeout: 10) { (desktop.frameCounts(output)?.presented ?? 0) > (resumed?.presented ?? 0) },
                      "the desktop's wayloop presents nothing after the unlock")
        let img = try sway.shot(output)
        XCTAssertFalse(img.pixel(img.width / 2, img.height / 2).close(to: Self.lockColour, tolerance: 24), "the lock's video is still on screen")
        XCTAssertTrue(Wait.until(timeout: 10) {
            Shell.run(["pgrep", "-f", lockClip], timeout: 10).status != 0
        }, "the lock's wayloop is still running after the unlock")
    }
}
