// Fitted copies made and played by the wallpaper itself (`--fit`, default auto): a clip with
// four times the pixels of its 640x360 output gets a copy made by a `wayloop prepare` child and
// is played from it from a loop seam (SeamTests checks that seam frame by frame); editing the
// source drops the copy; `--fit off` makes none; an unwritable or full cache, a corrupt copy,
// the child killed and battery power each end with playback going on and at most one notice.
//
// The harness turns copies off for every other test (WAYLOOP_FIT_MAKER=none); these turn them
// on, each with a cache of its own, no power supplies (mains) unless a test fakes a battery,
// and the machine's load not consulted (WAYLOOP_FIT_IGNORE_LOAD: a test asserts what WayLoop
// controls, and CI's machine is shared).
import Foundation
import WayLoopTestSupport
import XCTest

final class FitTests: CompositorTestCase {
    override class var outputSizes: [String] { ["640x360"] }

    private var scratch = ""
    private var cache: String { scratch + "/cache" }
    private var fitted: String { cache + "/wayloop/fitted" }

    override func setUp() {
        super.setUp()
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-fit-e2e-\(UUID().uuidString.prefix(8))").path
        try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: scratch)
        super.tearDown()
    }

    private func env(cache: String? = nil, power: String? = nil) throws -> [String: String] {
        var e = try compositor().env
        e["WAYLOOP_FIT_MAKER"] = nil
        e["WAYLOOP_FIT_IGNORE_LOAD"] = "1"
        e["XDG_CACHE_HOME"] = cache ?? self.cache
        e["WAYLOOP_POWER_SUPPLY_DIR"] = power ?? scratch + "/no-power-supplies"
        return e
    }

    /// A copy of a test clip in the scratch directory (so that a test may edit it).
    private func source(_ clip: String = "grid.mp4") throws -> String {
        let p = scratch + "/" + clip
        try? FileManager.default.removeItem(atPath: p)
        try FileManager.default.copyItem(atPath: Repo.clip(clip), toPath: p)
        return p
    }

    /// The copies and half-written files in `dir`.
    private func files(_ dir: String? = nil) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir ?? fitted)) ?? []).filter { $0.hasSuffix(".mp4") || $0.contains(".part-") }
    }

    private static func fit(_ outputs: [[String: Any]]) -> [String: Any]? { outputs.first?["fit"] as? [String: Any] }
    private static func stage(_ outputs: [[String: Any]]) -> String? { fit(outputs)?["stage"] as? String }

    /// The copy the decoder reads, once status says it plays from one (`copy`, with no note
    /// saying it waits for a seam): the one copy in the cache.
    private func readingCopy(_ w: Wayloop, timeout: Double = 120) -> String? {
        guard w.waitForStatus(timeout: timeout, { o in Self.stage(o) == "copy" && Self.fit(o)?["note"] == nil }) else { return nil }
        let copies = files().filter { !$0.contains(".part-") }
        return copies.count == 1 ? fitted + "/" + copies[0] : nil
    }

    /// The maker's pid, once status says a copy is being made: wayloop's child process.
    private func makerPid(_ w: Wayloop) -> pid_t? {
        guard w.waitForStatus(timeout: 60, { o in Self.stage(o) == "preparing" }) else { return nil }
        return Proc.children(of: w.pid).first
    }

    /// grid.mp4 (1280x720) on 640x360: a copy at 640x360 is made, played from a seam, and status
    /// says so with the saving measured; -v logs what it cost and when it pays for itself; the
    /// first-time notice comes once. A second run finds the copy and its measured saving:
    /// nothing is made, no notice.
    func testACopyIsMadeThenPlayedAndFoundAgain() throws {
        let src = try source()
        let w = try Wayloop(["-v", "--cache-mb", "0", src], env: try env())
        let copy = try XCTUnwrap(readingCopy(w), w.stderr)
        XCTAssertTrue(copy.hasSuffix("-640x360-r1-q16.mp4"), copy)
        XCTAssertTrue(w.waitForStatus { o in
            Self.stage(o) == "copy" && Self.fit(o)?["note"] == nil && Self.fit(o)?["size"] as? String == "640x360"
                && (Self.fit(o)?["decode_share"] as? Double).map { $0 > 0 && $0 < 1 } == true
        }, w.lastStatus)
        let text = Shell.run([Repo.binary, "ctl", "status"], env: w.env, timeout: 20).stdout
        XCTAssertTrue(text.contains("fit: copy 640x360, decodes in "), text)
        XCTAssertEqual(w.stderrLines.filter { $0.contains("making a smaller copy of 'grid.mp4'") && $0.contains("--fit off") }.count, 1, w.stderr)
        XCTAssertTrue(w.stderr.contains("pays for itself after"), w.stderr)
        XCTAssertEqual(files(), [copy.split(separator: "/").last.map(String.init)!])
        XCTAssertEqual(w.stop(), 0)
        XCTAssertFalse(w.stderr.contains("wayloop: error"), w.stderr)

        let again = try Wayloop(["-v", "--cache-mb", "0", src], env: try env())
        XCTAssertEqual(readingCopy(again), copy, again.stderr)
        // What was measured while making it is kept beside it.
        XCTAssertTrue(again.waitForStatus { o in
            Self.stage(o) == "copy" && (Self.fit(o)?["decode_share"] as? Double).map { $0 > 0 && $0 < 1 } == true
        }, again.lastStatus)
        XCTAssertEqual(again.stop(), 0)
        XCTAssertFalse(again.stderr.contains("making a fitted copy") || again.stderr.contains("making a smaller copy"), again.stderr)
    }

    /// The source replaced on disk: the copy of the old one is deleted, the new file plays (a
    /// 320x180 clip, not worth a copy).
    func testEditingTheSourceDropsTheCopy() throws {
        let src = try source()
        let w = try Wayloop(["-v", "--cache-mb", "0", src], env: try env())
        let copy = try XCTUnwrap(readingCopy(w), w.stderr)
        let next = scratch + "/next.mp4"
        try FileManager.default.copyItem(atPath: Repo.clip("seam-30.mp4"), toPath: next)
        XCTAssertEqual(rename(next, src), 0)
        XCTAssertTrue(w.waitFor("its fitted copy is deleted"), w.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: copy), "the old copy is still there")
        XCTAssertTrue(w.waitForStatus { o in Self.stage(o) == "original" && o.first?["state"] as? String == "playing" }, w.lastStatus)
        XCTAssertEqual(files(), [])
        XCTAssertEqual(w.stop(), 0)
    }

    /// `--fit off` never makes a copy; `ctl set --fit off` sends a video on its copy back to its
    /// own file at the next seam.
    func testFitOffMakesNoneAndCtlSetTurnsItOff() throws {
        let src = try source()
        let off = try Wayloop(["-v", "--cache-mb", "0", "--fit", "off", src], env: try env())
        XCTAssertTrue(off.waitForStatus { o in (o.first?["frames_shown"] as? Int ?? 0) >= 90 }, off.lastStatus)
        XCTAssertTrue(off.waitForStatus { o in Self.stage(o) == "original" && Self.fit(o)?["note"] as? String == "--fit off" }, off.lastStatus)
        XCTAssertEqual(off.stop(), 0)
        XCTAssertFalse(off.stderr.contains("making a"), off.stderr)
        XCTAssertEqual(files(), [])

        let w = try Wayloop(["-v", "--cache-mb", "0", src], env: try env())
        XCTAssertNotNil(readingCopy(w), w.stderr)
        let r = Shell.run([Repo.binary, "ctl", "set", "*", "--fit", "off"], env: w.env, timeout: 20)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(w.waitForStatus { o in Self.stage(o) == "original" && Self.fit(o)?["note"] as? String == "--fit off" }, w.lastStatus)
        let bad = Shell.run([Repo.binary, "ctl", "set", "*", "--fit", "sometimes"], env: w.env, timeout: 20)
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertEqual(bad.stderr.split(separator: "\n").count, 1, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("one of auto, always, off"), bad.stderr)
        XCTAssertEqual(w.stop(), 0)
    }

    /// A cache that cannot be made, and a full one (a 16 KiB tmpfs: the copy of the 20 s 1080p
    /// clip needs far more): one notice each, nothing left behind, playback goes on.
    func testAnUnwritableOrFullCacheIsOneNoticeAndPlaybackGoesOn() throws {
        let unwritable = try Wayloop(["-v", "--cache-mb", "0", Repo.clip("grid.mp4")], env: try env(cache: "/proc/wayloop-nothere"))
        XCTAssertTrue(unwritable.waitFor("no fitted copy", timeout: 60), unwritable.stderr)
        XCTAssertTrue(unwritable.waitForStatus { o in
            o.first?["state"] as? String == "playing" && Self.stage(o) == "original" && Self.fit(o)?["note"] as? String == "the copy could not be made"
        }, unwritable.lastStatus)
        XCTAssertEqual(unwritable.stderrLines.filter { $0.contains("no fitted copy") }.count, 1, unwritable.stderr)
        XCTAssertTrue(unwritable.stderr.contains("cannot make the fitted-copy cache"), unwritable.stderr)
        XCTAssertEqual(unwritable.stop(), 0)

        guard getuid() == 0 else { throw HarnessError("this test mounts a tmpfs: run it as root (CI does)") }
        let mount = scratch + "/full"
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        XCTAssertEqual(Shell.run(["mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", mount], timeout: 10).status, 0)
        defer { Shell.run(["umount", mount], timeout: 10) }
        let full = try Wayloop(["-v", Repo.clip("bench-1080p30.mp4")], env: try env(cache: mount))
        XCTAssertTrue(full.waitFor("no fitted copy", timeout: 120), full.stderr)
        XCTAssertTrue(full.waitForStatus { o in o.first?["state"] as? String == "playing" && Self.stage(o) == "original" }, full.lastStatus)
        XCTAssertEqual(full.stderrLines.filter { $0.contains("no fitted copy") }.count, 1, full.stderr)
        XCTAssertEqual(files(mount + "/wayloop/fitted"), [], "a half-written copy is left on the full filesystem")
        XCTAssertEqual(full.stop(), 0)
    }

    /// A copy in the cache truncated to half: discarded with one notice, made again, played.
    func testACorruptCopyIsDiscardedWithOneNotice() throws {
        let src = try source()
        let made = Shell.run([Repo.binary, "prepare", src, "--size", "640x360"], env: try env(), timeout: 120)
        XCTAssertEqual(made.status, 0, made.stderr)
        let copy = try XCTUnwrap(made.stdout.split(separator: "\n").last?.components(separatedBy: ": ").last, made.stdout)
        let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: copy)[.size] as? Int)
        XCTAssertEqual(truncate(copy, off_t(size / 2)), 0)
        let w = try Wayloop(["-v", "--cache-mb", "0", src], env: try env())
        XCTAssertEqual(readingCopy(w), copy, w.stderr)
        XCTAssertEqual(w.stderrLines.filter { $0.contains("discarded '\(copy)'") }.count, 1, w.stderr)
        XCTAssertEqual(w.stop(), 0)
        XCTAssertFalse(w.stderr.contains("wayloop: error"), w.stderr)
    }

    /// The maker killed halfway: one notice, its half-written file removed, the original plays
    /// on. The wallpaper stopped while its maker works: the maker stops too, leaving nothing.
    func testTheMakerKilledOrTheWallpaperStoppedLeavesNothing() throws {
        let w = try Wayloop(["-v", Repo.clip("bench-1080p30.mp4")], env: try env())
        let pid = try XCTUnwrap(makerPid(w), w.stderr)
        XCTAssertTrue(Wait.until(timeout: 60) { self.files().contains { $0.contains(".part-") } }, "no half-written copy: \(files())")
        kill(pid, SIGKILL)
        XCTAssertTrue(w.waitFor("the maker ended with signal 9"), w.stderr)
        XCTAssertTrue(w.waitForStatus { o in o.first?["state"] as? String == "playing" && Self.stage(o) == "original" }, w.lastStatus)
        XCTAssertEqual(files(), [])
        XCTAssertEqual(w.stop(), 0)

        let again = try Wayloop(["-v", Repo.clip("bench-1080p30.mp4")], env: try env())
        let maker = try XCTUnwrap(makerPid(again), again.stderr)
        XCTAssertTrue(Wait.until(timeout: 60) { self.files().contains { $0.contains(".part-") } }, "no half-written copy: \(files())")
        XCTAssertEqual(again.stop(), 0)
        XCTAssertTrue(Wait.until(timeout: 10) { kill(maker, 0) != 0 }, "the maker outlived the wallpaper")
        XCTAssertEqual(files(), [])
    }

    /// A maker that ignores SIGTERM (a stand-in named by WAYLOOP_FIT_MAKER: the real one
    /// stops between two frames) is stopped without the wallpaper waiting for it: the switch
    /// that made it unneeded plays on while it is being stopped, it gets SIGKILL after 3 s, and
    /// it is reaped (no zombie left).
    func testStoppingAMakerDoesNotHoldThePlaybackUp() throws {
        let maker = scratch + "/stubborn-maker"
        try "#!/bin/sh\ntrap '' TERM\necho 'fitted copy: started'\nexec sleep 120\n".write(toFile: maker, atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod(maker, 0o755), 0)
        var e = try env()
        e["WAYLOOP_FIT_MAKER"] = maker
        let trace = scratch + "/trace"
        let w = try Wayloop(["-v", "--cache-mb", "0", "--trace-frames", trace, Repo.clip("grid.mp4")], env: e)
        defer { if w.isRunning { XCTAssertEqual(w.stop(), 0, w.stderr) } }
        let pid = try XCTUnwrap(makerPid(w), w.stderr)
        let asked = Proc.monotonicNanos()
        let r = Shell.run([Repo.binary, "ctl", "set", "*", Repo.clip("seam-30.mp4")], env: w.env, timeout: 30)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(w.waitFor("stopping the fitted copy's maker (pid \(pid))"), w.stderr)
        // Reaped, not a zombie: kill(pid, 0) fails once waitpid has collected it.
        XCTAssertTrue(Wait.until(timeout: 20) { kill(pid, 0) != 0 }, "the maker (pid \(pid)) was not reaped: \(w.stderr)")
        let gone = Proc.monotonicNanos()
        XCTAssertTrue(w.stderr.contains("the fitted copy's maker (pid \(pid)) did not stop within 3 s: SIGKILL"), w.stderr)
        // Frames went on while it was being stopped: a stop that waited would hold the loop for
        // the 3 s before its SIGKILL, so from 2.5 s to 0.5 s before the maker was seen gone
        // (the test polls for that) nothing would be committed.
        let window = (from: gone - 2_500_000_000, to: gone - 500_000_000)
        let during = TraceFile.records(trace).filter { $0.commit > window.from && $0.commit < window.to }
        print("FitTests: the maker went \(Double(gone - asked) / 1e9) s after ctl set; \(during.count) frames committed in the 2 s before")
        XCTAssertGreaterThan(gone - asked, 3_000_000_000, "the maker went before its 3 s")
        XCTAssertGreaterThan(during.count, 0, "no frame was committed while the maker was being stopped")
        XCTAssertTrue(w.isRunning, w.stderr)
    }

    /// On battery (the fake power tree) nothing is made: status says it waits; on mains the
    /// copy is made and played.
    func testOnBatteryNothingIsMade() throws {
        let power = try FakePower(tag: "fit")
        let w = try Wayloop(["-v", "--cache-mb", "0", try source()], env: try env(power: power.dir))
        XCTAssertTrue(w.waitForStatus(timeout: 60) { o in
            Self.stage(o) == "preparing" && Self.fit(o)?["note"] as? String == "on battery"
        }, w.lastStatus)
        usleep(2_000_000)
        XCTAssertFalse(files().contains { $0.hasSuffix(".mp4") }, "a copy was made on battery: \(files())")
        let text = Shell.run([Repo.binary, "ctl", "status"], env: w.env, timeout: 20).stdout
        XCTAssertTrue(text.contains("fit: preparing 640x360: waiting: on battery"), text)
        try power.mains(online: true)
        XCTAssertNotNil(readingCopy(w), w.stderr)
        XCTAssertEqual(w.stop(), 0)
    }
}
