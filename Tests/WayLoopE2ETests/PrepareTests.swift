// `wayloop prepare`: fitted copies made by hand, against real clips and FFmpeg's own tools (no
// compositor). A copy has the source's frames at the source's times (so the loop's seam is
// where it was), the picture of the source scaled alike (PSNR), and lives in the cache until
// cleaned; bad input, an unwritable cache, a corrupt copy and a killed run each end well.
import Foundation
import WayLoopTestSupport
import XCTest

final class PrepareTests: XCTestCase {
    private var cacheHome = ""
    private var fitted: String { cacheHome + "/wayloop/fitted" }

    override func setUp() {
        cacheHome = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-fit-\(UUID().uuidString.prefix(8))").path
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: cacheHome) }

    /// The environment of a run: its own cache, and no power supplies at all (mains, as far as
    /// it can tell), so that the machine's own battery never holds a test up.
    private func environment(cache: String? = nil) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["XDG_CACHE_HOME"] = cache ?? cacheHome
        env["WAYLOOP_POWER_SUPPLY_DIR"] = cacheHome + "-no-power-supplies"
        return env
    }

    private func prepare(_ args: [String], cache: String? = nil, timeout: Double = 120) -> ShellResult {
        Shell.run([Repo.binary, "prepare"] + args, env: environment(cache: cache), timeout: timeout)
    }

    /// The copy a run reports making (the path after its last ": ").
    private func madeCopy(_ r: ShellResult, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        let path = try XCTUnwrap(r.stdout.split(separator: "\n").last?.components(separatedBy: ": ").last, r.stdout, file: file, line: line)
        XCTAssertTrue(path.contains("/wayloop/fitted/"), "\(path) is not in a cache", file: file, line: line)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path), r.stdout, file: file, line: line)
        return path
    }

    /// Each frame's presentation time, as ffprobe reads it.
    private func frameTimes(_ file: String) -> [String] {
        let r = Shell.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "frame=best_effort_timestamp_time",
                           "-of", "csv=p=0", file])
        // A frame with side data gets a trailing field: the time is the first.
        return r.stdout.split(separator: "\n").compactMap { $0.split(separator: ",").first.map(String.init) }
    }

    private func streamField(_ file: String, _ field: String) -> String {
        Shell.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "stream=\(field)", "-of", "csv=p=0", file])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Luma PSNR of `copy` against `source` scaled to its size (every `keep`-th frame).
    private func psnr(_ copy: String, _ source: String, width: Int, height: Int, keep: Int = 1) -> Double? {
        let pick = keep > 1 ? "select='not(mod(n\\,\(keep)))'," : ""
        let r = Shell.run(["ffmpeg", "-hide_banner", "-i", copy, "-i", source, "-filter_complex",
                           "[1:v]\(pick)scale=\(width):\(height):flags=bicubic,format=yuv420p[r];[0:v]format=yuv420p[c];[c][r]psnr",
                           "-f", "null", "-"], timeout: 120)
        guard let line = r.stderr.split(separator: "\n").last(where: { $0.contains("PSNR y:") }),
              let y = line.components(separatedBy: "PSNR y:").last?.split(separator: " ").first else { return nil }
        return Double(y)
    }

    /// The grid clip (1280x720) for a 640x360 output: four times the pixels, so a copy. It has
    /// every frame at its own time, the loop's length, the picture (PSNR ≥ 40 dB luma against
    /// the source scaled alike), H.264 at the size asked; a second run finds it; --list shows
    /// it and --clean removes it.
    func testACopyKeepsEveryFrameAtItsTimeAndThePicture() throws {
        let source = Repo.clip("grid.mp4")
        let r = prepare([source, "--size", "640x360"])
        let copy = try madeCopy(r)
        XCTAssertTrue(r.stdout.contains("1280x720 → 640x360"), r.stdout)
        XCTAssertTrue(r.stdout.contains("of the original's CPU") && r.stdout.contains("pays for itself after"), r.stdout)
        XCTAssertEqual(streamField(copy, "codec_name,width,height"), "h264,640,360")
        XCTAssertEqual(frameTimes(copy), frameTimes(source), "the copy's frames are not at the source's times")
        XCTAssertEqual(frameTimes(copy).count, 30)
        XCTAssertEqual(streamField(copy, "duration"), streamField(source, "duration"), "the loop is not as long as it was")
        let quality = try XCTUnwrap(psnr(copy, source, width: 640, height: 360))
        XCTAssertGreaterThanOrEqual(quality, 40, "luma PSNR \(quality) dB")
        XCTAssertTrue(prepare([source, "--size", "640x360"]).stdout.contains("already prepared: \(copy)"))
        let list = prepare(["--list"])
        XCTAssertTrue(list.stdout.contains((copy as NSString).lastPathComponent), list.stdout)
        let clean = prepare(["--clean"])
        XCTAssertTrue(clean.stdout.contains("removed 1 fitted copy"), clean.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: copy))
        XCTAssertTrue(prepare(["--list"]).stdout.contains("no fitted copies"))
    }

    /// 2160p60 HEVC Main10 for a 640x360 output under a 30 fps cap: every second frame, each at
    /// its own time, the loop as long, the picture kept.
    func testUnderACapEverySecondFrameAtItsTime() throws {
        let source = Repo.clip("hevc10-2160p60.mp4")
        let r = prepare([source, "--size", "640x360", "--max-fps", "30"])
        let copy = try madeCopy(r)
        XCTAssertTrue(r.stdout.contains("3840x2160 → 640x360, 1 frame in 2"), r.stdout)
        let all = frameTimes(source)
        XCTAssertEqual(all.count, 120)
        XCTAssertEqual(frameTimes(copy), all.enumerated().filter { $0.offset % 2 == 0 }.map(\.element))
        XCTAssertEqual(streamField(copy, "duration"), streamField(source, "duration"))
        let quality = try XCTUnwrap(psnr(copy, source, width: 640, height: 360, keep: 2))
        XCTAssertGreaterThanOrEqual(quality, 40, "luma PSNR \(quality) dB")
    }

    /// A variable frame rate and an edit list keep their times in the copy (`--always`: these
    /// small clips are not worth one by the rule).
    func testVariableFrameRateAndAnEditListKeepTheirTimes() throws {
        for name in ["seam-vfr.mp4", "seam-elst.mp4"] {
            let source = Repo.clip(name)
            let copy = try madeCopy(prepare([source, "--size", "160x90", "--always"]))
            XCTAssertEqual(frameTimes(copy), frameTimes(source), name)
            XCTAssertEqual(streamField(copy, "duration"), streamField(source, "duration"), name)
        }
    }

    /// A clip the output shows at its own size: no copy, said in one line, nothing written.
    func testNothingIsMadeWhereNothingIsGained() {
        let r = prepare([Repo.clip("grid.mp4"), "--size", "1280x720"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("no copy made"), r.stdout)
        XCTAssertTrue(r.stdout.contains("--always"), r.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: fitted))
    }

    /// Bad input: one line each, the usual exit statuses, no crash.
    func testBadInputIsOneLine() {
        let cases: [(args: [String], status: Int32, says: String)] = [
            ([], 2, "needs a VIDEO"),
            (["--list", "--clean"], 2, "not together"),
            (["--quality", "99", Repo.clip("grid.mp4")], 2, "a quality from 0"),
            (["--size", "0x0", Repo.clip("grid.mp4")], 2, "a size WxH"),
            (["--bogus"], 2, "unknown option"),
            (["/nonexistent/clip.mp4"], 5, "no such file"),
            ([Repo.clip("empty.mp4")], 5, "empty"),
            ([Repo.clip("text.txt")], 5, "text.txt"),
        ]
        for c in cases {
            let r = prepare(c.args)
            XCTAssertEqual(r.status, c.status, "\(c.args): \(r.stderr)")
            XCTAssertFalse(r.crashed, "\(c.args)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(c.args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(c.says), "\(c.args): \(r.stderr)")
        }
    }

    /// A cache that cannot be made: one line, exit 1.
    func testAnUnwritableCacheIsOneLine() {
        let r = prepare([Repo.clip("grid.mp4"), "--size", "640x360"], cache: "/proc/wayloop-nothere")
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("cannot make the fitted-copy cache"), r.stderr)
    }

    /// A full filesystem (a 48 KiB tmpfs; the copy of the 20 s 1080p clip needs far more) and a
    /// read-only one: one line each, exit 1, nothing left behind; with room, a copy is made.
    func testAFullOrReadOnlyCacheIsOneLineAndLeavesNothing() throws {
        guard getuid() == 0 else { throw HarnessError("this test mounts a tmpfs: run it as root (CI does)") }
        let source = Repo.clip("bench-1080p30.mp4")
        for (options, says) in [("size=48k", "No space left on device"), ("ro,size=48k", "Read-only file system")] {
            let mount = cacheHome + "-" + options.replacingOccurrences(of: ",", with: "-").replacingOccurrences(of: "=", with: "")
            try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
            XCTAssertEqual(Shell.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", mount], timeout: 10).status, 0)
            defer {
                Shell.run(["umount", mount], timeout: 10)
                try? FileManager.default.removeItem(atPath: mount)
            }
            let r = prepare([source, "--size", "640x360"], cache: mount)
            XCTAssertEqual(r.status, 1, "\(options): \(r.stdout) \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(options): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(says), "\(options): \(r.stderr)")
            let left = (try? FileManager.default.subpathsOfDirectory(atPath: mount))?.filter { $0.hasSuffix(".mp4") || $0.contains(".part-") } ?? []
            XCTAssertEqual(left, [], "\(options): left behind")
            if options == "size=48k" {
                XCTAssertEqual(Shell.run(["mount", "-o", "remount,size=8m", mount], timeout: 10).status, 0)
                XCTAssertTrue(try madeCopy(prepare([Repo.clip("grid.mp4"), "--size", "640x360"], cache: mount)).hasPrefix(mount))
            }
        }
    }

    /// On battery (the fake power tree) nothing is made: one line says it waits, and no file
    /// appears; on mains power it goes on and makes the copy. `--on-battery` makes it at once.
    func testOnBatteryItWaitsForMainsPower() throws {
        let power = try FakePower(tag: "prepare")
        var env = environment()
        env["WAYLOOP_POWER_SUPPLY_DIR"] = power.dir
        try FileManager.default.createDirectory(atPath: cacheHome, withIntermediateDirectories: true)
        let out = cacheHome + "/out", err = cacheHome + "/err"
        let child = try XCTUnwrap(Child([Repo.binary, "prepare", Repo.clip("grid.mp4"), "--size", "640x360"], env: env, stdout: out, stderr: err))
        defer { if child.isRunning { kill(child.pid, SIGKILL); _ = child.wait(timeout: 5) } }
        let stderr = { (try? String(contentsOfFile: err, encoding: .utf8)) ?? "" }
        XCTAssertTrue(Wait.until(timeout: 20) { stderr().contains("waiting while on battery") }, stderr())
        XCTAssertTrue(child.isRunning)
        XCTAssertEqual((try? FileManager.default.subpathsOfDirectory(atPath: fitted))?.filter { $0.hasSuffix(".mp4") || $0.contains(".part-") } ?? [], [],
                       "something was written on battery")
        try power.mains(online: true)
        XCTAssertEqual(child.wait(timeout: 60), 0, stderr())
        XCTAssertTrue(stderr().contains("going on"), stderr())
        let made = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        XCTAssertTrue(made.contains("1280x720 → 640x360"), made)
        // --on-battery: at once, without a word about waiting.
        try power.mains(online: false)
        XCTAssertEqual(prepare(["--clean"]).status, 0)
        let r = Shell.run([Repo.binary, "prepare", Repo.clip("grid.mp4"), "--size", "640x360", "--on-battery"], env: env, timeout: 60)
        _ = try madeCopy(r)
        XCTAssertEqual(r.stderr, "")
    }

    /// A copy overwritten with garbage (or truncated): discarded with one notice, never used,
    /// and made again.
    func testACorruptCopyIsDiscardedAndMadeAgain() throws {
        let source = Repo.clip("grid.mp4")
        let copy = try madeCopy(prepare([source, "--size", "640x360"]))
        for damage in ["garbage", "truncated"] {
            if damage == "garbage" {
                try Data("not a video at all".utf8).write(to: URL(fileURLWithPath: copy))
            } else {
                let data = try Data(contentsOf: URL(fileURLWithPath: copy))
                try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: copy))
            }
            let r = prepare([source, "--size", "640x360"])
            XCTAssertEqual(try madeCopy(r), copy, damage)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(damage): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("discarded '\(copy)'"), "\(damage): \(r.stderr)")
            XCTAssertEqual(frameTimes(copy).count, 30, damage)
        }
    }

    /// Stopped halfway: SIGTERM deletes the half-made copy at once (exit 0, one notice);
    /// SIGKILL leaves it, and the next run removes it. Nothing is left either way.
    func testAStoppedRunLeavesNothing() throws {
        try FileManager.default.createDirectory(atPath: cacheHome, withIntermediateDirectories: true)
        for sig in [SIGTERM, SIGKILL] {
            let env = environment()
            let out = cacheHome + "/out", err = cacheHome + "/err"
            let child = try XCTUnwrap(Child([Repo.binary, "prepare", Repo.clip("bench-1080p30.mp4"), "--size", "320x180"],
                                            env: env, stdout: out, stderr: err))
            let parts = { (try? FileManager.default.contentsOfDirectory(atPath: self.fitted))?.filter { $0.contains(".part-") } ?? [] }
            XCTAssertTrue(Wait.until(timeout: 30) { !parts().isEmpty }, "no half-made copy appeared")
            kill(child.pid, sig)
            let status = child.wait(timeout: 30)
            if sig == SIGTERM {
                XCTAssertEqual(status, 0)
                let stderr = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
                XCTAssertTrue(stderr.contains("stopped on a signal"), stderr)
                XCTAssertEqual(parts(), [], "SIGTERM left a half-made copy")
            }
            let list = prepare(["--list"])
            XCTAssertTrue(list.stdout.contains("no fitted copies"), "\(sig): \(list.stdout)")
            XCTAssertEqual(parts(), [], "\(sig): a half-made copy is left")
        }
    }
}
