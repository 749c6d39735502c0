// The control socket, `wayloop ctl`, runtime switches, the config file and the hand-over of a
// second start, against a running instance on headless sway (one compositor for the class;
// the tests run one after another, each with its own wayloop).
import Foundation
import WayLoopTestSupport
import XCTest

final class CtlTests: CompositorTestCase {
    override class var outputSizes: [String] { ["640x360"] }

    private var scratch: String!

    override func setUp() {
        super.setUp()
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-ctl-\(UUID().uuidString.prefix(8))").path
        try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o755])
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: scratch)
        super.tearDown()
    }

    // MARK: Helpers

    /// sway's environment, with a config home of the test's own (empty unless a test writes one).
    private func env() throws -> [String: String] {
        var e = try compositor().env
        e["XDG_CONFIG_HOME"] = scratch + "/config"
        return e
    }

    private var socketPath: String { Ctl.socketPath(env: (try? env()) ?? [:]) }

    /// Starts wayloop and waits until its first output is in `state` (playing, or failed for a
    /// fallback) with a picture committed (ctl status: frames_shown > 0).
    private func start(_ args: [String], trace: String? = nil, env extra: [String: String] = [:],
                       state: String = "playing") throws -> Wayloop {
        var e = try env()
        for (k, v) in extra { e[k] = v }
        let w = try Wayloop(["-v"] + (trace.map { ["--trace-frames", $0] } ?? []) + args, env: e)
        XCTAssertTrue(w.waitForState("HEADLESS-1", state: state, shown: true),
                      "wayloop did not start (\(state) with a picture): \(w.lastStatus); \(w.stderr)")
        XCTAssertTrue(Wait.until(timeout: 10) { FileManager.default.fileExists(atPath: self.socketPath) })
        return w
    }

    @discardableResult
    private func ctl(_ args: [String], timeout: Double = 60) throws -> ShellResult {
        Shell.run([Repo.binary, "ctl"] + args, env: try env(), timeout: timeout)
    }

    /// `ctl status --json`, decoded: one dictionary per output.
    private func status() throws -> [[String: Any]] { try Ctl.status(env: try env()) }

    private func state(_ key: String = "state") throws -> String? { try status().first?[key] as? String }

    private func clip(_ name: String) -> String { Repo.clip(name) }

    // MARK: Commands

    func testStatusPauseResumeAndToggle() throws {
        let trace = scratch + "/trace"
        let w = try start([clip("grid.mp4")], trace: trace)
        defer { XCTAssertEqual(w.stop(), 0) }
        let text = try ctl(["status"])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.hasPrefix("HEADLESS-1: playing, \(clip("grid.mp4")) (fill)"), text.stdout)
        let s = try XCTUnwrap(try status().first)
        XCTAssertEqual(s["name"] as? String, "HEADLESS-1")
        XCTAssertEqual(s["video"] as? String, clip("grid.mp4"))
        XCTAssertEqual(s["mode"] as? String, "fill")
        XCTAssertEqual(s["state"] as? String, "playing")
        XCTAssertTrue(s["reason"] is NSNull)
        XCTAssertNotNil(s["position"] as? Double)
        XCTAssertGreaterThan(s["frames_shown"] as? Int ?? 0, 0)
        XCTAssertNotNil(s["frames_dropped"] as? Int)

        XCTAssertEqual(try ctl(["pause", "HEADLESS-1"]).status, 0)
        XCTAssertEqual(try state(), "paused")
        XCTAssertEqual(try status().first?["reason"] as? String, "user")
        // No frames while paused (after those in flight).
        XCTAssertTrue(settles(trace), "frames kept coming while paused")
        let atPause = TraceFile.records(trace).count
        usleep(500_000)
        XCTAssertEqual(TraceFile.records(trace).count, atPause, "frames committed while paused")
        XCTAssertEqual(try ctl(["resume"]).status, 0)
        XCTAssertEqual(try state(), "playing")
        XCTAssertTrue(Wait.until(timeout: 5) { TraceFile.records(trace).count >= atPause + 10 }, "no frames after resume")
        XCTAssertEqual(try ctl(["toggle"]).status, 0)
        XCTAssertEqual(try state(), "paused")
        XCTAssertEqual(try ctl(["toggle", "HEADLESS-1"]).status, 0)
        XCTAssertEqual(try state(), "playing")

        let missing = try ctl(["pause", "DP-9"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("no output matches 'DP-9'"), missing.stderr)
        let bad = try ctl(["frobnicate"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertEqual(bad.stderr.split(separator: "\n").count, 1, bad.stderr)
        XCTAssertTrue(w.isRunning)
    }

    private func settles(_ trace: String) -> Bool {
        Wait.until(timeout: 5) {
            let n = TraceFile.records(trace).count
            usleep(300_000)
            return TraceFile.records(trace).count == n
        }
    }

    func testSubscribeStreamsStateChanges() throws {
        let w = try start([clip("grid.mp4")])
        defer { XCTAssertEqual(w.stop(), 0) }
        let out = scratch + "/events"
        guard let sub = Child([Repo.binary, "ctl", "subscribe"], env: try env(), stdout: out, stderr: scratch + "/sub-err") else {
            throw HarnessError("cannot start ctl subscribe")
        }
        defer { kill(sub.pid, SIGTERM); _ = sub.wait(timeout: 5) }
        func events() -> [[String: Any]] {
            ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
        // The current state first, then every change.
        XCTAssertTrue(Wait.until(timeout: 10) { events().count >= 1 }, "no first event")
        XCTAssertEqual(events().first?["state"] as? String, "playing")
        XCTAssertEqual(events().first?["output"] as? String, "HEADLESS-1")
        XCTAssertEqual(try ctl(["pause"]).status, 0)
        XCTAssertEqual(try ctl(["resume"]).status, 0)
        XCTAssertTrue(Wait.until(timeout: 5) { events().count >= 3 }, "events: \(events())")
        let e = events()
        XCTAssertEqual(e[1]["event"] as? String, "state")
        XCTAssertEqual(e[1]["state"] as? String, "paused")
        XCTAssertEqual(e[1]["reason"] as? String, "user")
        XCTAssertEqual(e[2]["state"] as? String, "playing")
        // Two subscribers at once both get the stream.
        XCTAssertTrue(sub.isRunning)
    }

    func testMalformedRequestsGetAnErrorAndTheConnectionStays() throws {
        let w = try start([clip("grid.mp4")])
        defer { XCTAssertEqual(w.stop(), 0) }
        let c = try SocketClient(path: socketPath)
        defer { c.close() }
        for bad in ["garbage", "[1,2]", "{\"cmd\":\"frobnicate\"}", "{\"nocmd\":1}", "{\"cmd\":\"set\",\"output\":\"*\",\"video\":\"rel.mp4\"}"] {
            try c.send(bad)
            let r = try c.readJSON()
            XCTAssertEqual(r["ok"] as? Bool, false, bad)
            XCTAssertEqual(r["kind"] as? String, "malformed", "\(bad): \(r)")
        }
        // Over the size limit: one error, and the line after it is read normally.
        try c.send(String(repeating: "x", count: 70_000))
        let long = try c.readJSON()
        XCTAssertEqual(long["kind"] as? String, "too-long", "\(long)")
        try c.send("{\"cmd\":\"status\"}")
        let ok = try c.readJSON()
        XCTAssertEqual(ok["ok"] as? Bool, true, "\(ok)")
        // Many clients at once, each answered.
        let many = try (0..<12).map { _ in try SocketClient(path: socketPath) }
        for m in many { try m.send("{\"cmd\":\"status\"}") }
        for m in many {
            XCTAssertEqual(try m.readJSON()["ok"] as? Bool, true)
            m.close()
        }
        XCTAssertTrue(w.isRunning, w.stderr)
        // 40 idle connections (more than the 32 it keeps): `wayloop ctl` still gets through,
        // the oldest idle one is closed with a reason (idle clients cannot lock ctl out).
        let idle = try (0..<40).map { _ in try SocketClient(path: socketPath) }
        defer { idle.forEach { $0.close() } }
        let st1 = try ctl(["status"])
        XCTAssertEqual(st1.status, 0, "ctl locked out by idle connections: \(st1.stderr)")
        let evicted = try idle[0].readJSON()
        XCTAssertEqual(evicted["kind"] as? String, "busy", "\(evicted)")
        XCTAssertTrue((evicted["error"] as? String ?? "").contains("idle the longest"), "\(evicted)")
        // The socket is the owner's alone.
        var st = stat()
        XCTAssertEqual(stat(socketPath, &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o600)
    }

    /// SO_PEERCRED: a peer of another uid is refused even where file permissions let it in
    /// (root connecting to the test user's wayloop).
    func testAPeerOfAnotherUidIsRefused() throws {
        guard getuid() == 0 else { throw HarnessError("this test needs root (to act as two users)") }
        var e = try env()
        let runtime = e["XDG_RUNTIME_DIR"]!
        // The lock file of earlier runs is root's: give this run a clean slate.
        unlink("\(runtime)/wayloop-\(e["WAYLAND_DISPLAY"]!).lock")
        defer { unlink("\(runtime)/wayloop-\(e["WAYLAND_DISPLAY"]!).lock") }
        let binDir = scratch + "/bin"
        try FileManager.default.createDirectory(atPath: binDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try FileManager.default.copyItem(atPath: Repo.binary, toPath: binDir + "/wayloop")
        let video = scratch + "/grid.mp4"
        try FileManager.default.copyItem(atPath: clip("grid.mp4"), toPath: video)
        e["XDG_CONFIG_HOME"] = "/nonexistent"
        let w = try Wayloop(["-v", video], env: e, user: "wayloop-test", binary: binDir + "/wayloop")
        defer {
            // runuser passes SIGTERM on and then ends by it (143); wayloop's clean exit shows as
            // its socket going away.
            _ = w.stop()
            XCTAssertTrue(Wait.until(timeout: 10) { !FileManager.default.fileExists(atPath: self.socketPath) })
        }
        // Asked as the test user (root would be refused: that is the point of the test).
        XCTAssertTrue(w.waitForState("HEADLESS-1", state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        let r = try ctl(["status"])
        XCTAssertEqual(r.status, 1, r.stdout)
        XCTAssertTrue(r.stderr.contains("refused") && r.stderr.contains("uid 0"), r.stderr)
        XCTAssertTrue(w.waitFor("control: refused"), w.stderr)
        XCTAssertTrue(w.isRunning)
    }

    /// A runtime directory of the test user's own (as /run/user/UID is), holding a lock file of
    /// root's for this display, as a wayloop once run with `sudo -E` leaves it. WAYLAND_DISPLAY
    /// becomes the compositor's socket path, so that only the lock and control files move.
    private func runtimeWithRootLock() throws -> (env: [String: String], lock: String, binary: String, video: String) {
        guard getuid() == 0 else { throw HarnessError("this test needs root (to act as two users)") }
        var e = try env()
        let display = e["WAYLAND_DISPLAY"]!
        let runtime = scratch + "/runtime"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let user = getpwnam("wayloop-test")!.pointee
        XCTAssertEqual(chown(runtime, user.pw_uid, user.pw_gid), 0)
        e["WAYLAND_DISPLAY"] = display.hasPrefix("/") ? display : e["XDG_RUNTIME_DIR"]! + "/" + display
        e["XDG_RUNTIME_DIR"] = runtime
        e["XDG_CONFIG_HOME"] = "/nonexistent"
        let lock = runtime + "/wayloop-\(display.split(separator: "/").last!).lock"
        XCTAssertTrue(FileManager.default.createFile(atPath: lock, contents: Data("4242\n".utf8), attributes: [.posixPermissions: 0o600]))
        let binDir = scratch + "/bin"
        try FileManager.default.createDirectory(atPath: binDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try FileManager.default.copyItem(atPath: Repo.binary, toPath: binDir + "/wayloop")
        let video = scratch + "/grid.mp4"
        try FileManager.default.copyItem(atPath: clip("grid.mp4"), toPath: video)
        return (e, lock, binDir + "/wayloop", video)
    }

    /// A lock file of root's that nothing holds (a wayloop once run with `sudo -E`, long gone)
    /// no longer stops the user's start: it is removed, with one notice, and the video plays.
    func testAStaleLockFileOfRootIsRemoved() throws {
        let r = try runtimeWithRootLock()
        let w = try Wayloop(["-v", r.video], env: r.env, user: "wayloop-test", binary: r.binary)
        defer { _ = w.stop() }
        XCTAssertTrue(w.waitForState("HEADLESS-1", state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        XCTAssertEqual(w.stderrLines.filter { $0.contains("removed the lock file \(r.lock) of uid 0, which no process held") }.count, 1,
                       w.stderr)
        XCTAssertFalse(w.stderr.contains("Permission denied"), w.stderr)
        var st = stat()
        XCTAssertEqual(stat(r.lock, &st), 0)
        XCTAssertEqual(st.st_uid, getpwnam("wayloop-test")!.pointee.pw_uid, "the new lock file is the user's")
    }

    /// The same file while a process of root's holds it (a wayloop run with sudo may be playing
    /// on this display now): it is left alone, and the one error line says who holds it and
    /// what to do.
    func testALockFileOfRootThatIsHeldNamesItsHolder() throws {
        let r = try runtimeWithRootLock()
        let fd = open(r.lock, O_RDWR)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        XCTAssertEqual(flock(fd, LOCK_EX | LOCK_NB), 0)
        let w = try Wayloop([r.video], env: r.env, user: "wayloop-test", binary: r.binary)
        XCTAssertEqual(w.waitExit(timeout: 20), 1, w.stderr)
        XCTAssertEqual(w.stderrLines.count, 1, w.stderr)
        XCTAssertTrue(w.stderr.contains("belongs to uid 0, and pid \(getpid()) holds it") && w.stderr.contains("sudo kill \(getpid())"),
                      w.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: r.lock), "a held lock file is never removed")
    }

    func testNoInstanceMeansExitThree() throws {
        var e = try env()
        e["XDG_RUNTIME_DIR"] = scratch
        let r = Shell.run([Repo.binary, "ctl", "status"], env: e, timeout: 20)
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("no wayloop is running"), r.stderr)
    }

    // MARK: Switching

    /// `set` while playing: screenshots taken all through the switch are never black, and the
    /// commits run on without a gap; then the new video is on screen.
    func testSetSwitchesWithoutABlackFrame() throws {
        let sway = try compositor()
        let trace = scratch + "/trace"
        let w = try start([clip("grid.mp4")], trace: trace)
        defer { XCTAssertEqual(w.stop(), 0) }
        XCTAssertTrue(Wait.until(timeout: 10) { TraceFile.records(trace).count >= 10 })
        let before = try sway.shot("HEADLESS-1")
        let box = DispatchGroup()
        nonisolated(unsafe) var reply: ShellResult?
        let env = try env()
        let target = clip("seam-30.mp4")
        DispatchQueue.global().async(group: box) {
            usleep(150_000)
            reply = Shell.run([Repo.binary, "ctl", "set", "*", target], env: env, timeout: 60)
        }
        var shots: [Image] = []
        let end = Date().addingTimeInterval(2.5)
        while Date() < end { shots.append(try sway.shot("HEADLESS-1")) }
        box.wait()
        XCTAssertEqual(reply?.status, 0, reply?.stderr ?? "ctl set did not return")
        // How many screenshots fit in 2.5 s is the machine's; the commits below are checked whatever it is.
        print("CtlTests: \(shots.count) screenshots through the switch")
        for (i, s) in shots.enumerated() {
            XCTAssertGreaterThan(s.meanLuma, 0.15, "screenshot \(i) of \(shots.count) is black (mean luma \(s.meanLuma))")
        }
        XCTAssertEqual(try status().first?["video"] as? String, target)
        let after = try sway.shot("HEADLESS-1")
        XCTAssertGreaterThan(before.difference(after), 0.05, "the picture did not change")
        // Commit times: no hole around the switch (a black frame would need one, or a blank
        // commit) of WayLoop's making. A commit waits for the compositor to release the one
        // before it (its frame callback), and how long that takes is the compositor's and the
        // machine's; WayLoop's own part of each gap is how long after that release, and after the
        // next frame of the same video was due, it committed (Pacing.late; at the switch, after
        // the release alone).
        let pacing = Pacing(TraceFile.records(trace).filter { $0.output == "HEADLESS-1" }, tolerance: Pacing.tolerance)
        let own = pacing.holds.map { Double($0.late) / 1e6 }
        let gaps = pacing.holds.map { Double($0.b.commit - $0.a.commit) / 1e6 }
        print("CtlTests: the longest gap between commits \(gaps.max() ?? 0) ms, WayLoop's part of it at most \(own.max() ?? 0) ms; \(pacing.latencyReport)")
        XCTAssertEqual(pacing.holds.filter(\.newClock).count, 1, "not one switch in the trace: \(pacing.holds.filter(\.newClock).map(\.label))")
        for h in pacing.holds {
            XCTAssertLessThan(Double(h.late) / 1e6, 250, "\(h.label)\(h.newClock ? " (the switch)" : ""): committed \(Double(h.late) / 1e6) ms after "
                              + "the compositor had released the frame before\(h.newClock ? "" : " and the next was due")")
        }
    }

    func testAFailedSetKeepsTheOldVideo() throws {
        let trace = scratch + "/trace"
        let w = try start([clip("grid.mp4")], trace: trace)
        defer { XCTAssertEqual(w.stop(), 0) }
        let missing = try ctl(["set", "HEADLESS-1", "/nonexistent/clip.mp4"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("/nonexistent/clip.mp4': no such file"), missing.stderr)
        // Opens, then fails to decode: the reply waits for the verdict.
        let corrupt = try ctl(["set", "*", clip("all-corrupt.mp4")])
        XCTAssertEqual(corrupt.status, 1)
        XCTAssertTrue(corrupt.stderr.contains("no frame could be decoded"), corrupt.stderr)
        let s = try XCTUnwrap(try status().first)
        XCTAssertEqual(s["video"] as? String, clip("grid.mp4"))
        XCTAssertEqual(s["state"] as? String, "playing")
        let n = TraceFile.records(trace).count
        XCTAssertTrue(Wait.until(timeout: 5) { TraceFile.records(trace).count >= n + 10 }, "the old video stopped")
        // Settings without a video apply at once.
        XCTAssertEqual(try ctl(["set", "HEADLESS-1", "-m", "fit", "--dim", "0.5"]).status, 0)
        XCTAssertEqual(try status().first?["mode"] as? String, "fit")
    }

    func testFiftySwitchesLeakNothing() throws {
        let w = try start([clip("seam-30.mp4")])
        defer { XCTAssertEqual(w.stop(), 0) }
        var rss: [Int] = []
        for i in 0..<50 {
            let r = try ctl(["set", "*", clip(i % 2 == 0 ? "seam-24.mp4" : "seam-30.mp4")])
            XCTAssertEqual(r.status, 0, r.stderr)
            rss.append(Proc.rssKB(w.pid))
        }
        print("RSS after switches 10, 30, 50: \(rss[9]) \(rss[29]) \(rss[49]) kB")
        XCTAssertLessThan(rss[49] - rss[9], 4_000, "RSS grew \(rss[49] - rss[9]) kB over 40 switches: \(rss)")
        XCTAssertEqual(try state(), "playing")
    }

    // MARK: Config file

    func testConfigFileAndReload() throws {
        let dir = scratch + "/config/wayloop"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let config = dir + "/config"
        try "# test\nvideo = \(clip("grid.mp4"))\nmode = fit\n[output HEADLESS-1]\ndim = 0.2\n".write(toFile: config, atomically: true, encoding: .utf8)
        let w = try start([])
        defer { XCTAssertEqual(w.stop(), 0) }
        XCTAssertEqual(try status().first?["video"] as? String, clip("grid.mp4"))
        XCTAssertEqual(try status().first?["mode"] as? String, "fit")
        // A bad config: rejected with file:line and the reason; what plays stays.
        try "video = \(clip("seam-30.mp4"))\n\n[output HEADLESS-1]\nspeed = 2\n".write(toFile: config, atomically: true, encoding: .utf8)
        let bad = try ctl(["reload"])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("\(config):4: unknown key 'speed'"), bad.stderr)
        XCTAssertTrue(w.stderr.contains("\(config):4: unknown key 'speed'"), w.stderr)
        XCTAssertEqual(try status().first?["video"] as? String, clip("grid.mp4"))
        XCTAssertEqual(try state(), "playing")
        // A good one through `ctl reload`, then another through SIGHUP.
        try "video = \(clip("seam-30.mp4"))\n".write(toFile: config, atomically: true, encoding: .utf8)
        XCTAssertEqual(try ctl(["reload"]).status, 0)
        XCTAssertEqual(try status().first?["video"] as? String, clip("seam-30.mp4"))
        XCTAssertEqual(try status().first?["mode"] as? String, "fill")
        try "video = seam-24.mp4\n".write(toFile: config, atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: clip("seam-24.mp4"), toPath: dir + "/seam-24.mp4")
        kill(w.pid, SIGHUP)
        XCTAssertTrue(Wait.until(timeout: 10) { (try? self.status().first?["video"] as? String) == dir + "/seam-24.mp4" },
                      "SIGHUP did not reload: \(w.stderr)")
    }

    func testABadConfigAtStartIsAUsageError() throws {
        let dir = scratch + "/config/wayloop"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try "mode = sideways\n".write(toFile: dir + "/config", atomically: true, encoding: .utf8)
        let w = try Wayloop([clip("grid.mp4")], env: try env())
        XCTAssertEqual(w.waitExit(), 2, w.stderr)
        XCTAssertEqual(w.stderrLines.count, 1, w.stderr)
        XCTAssertTrue(w.stderr.contains("\(dir)/config:1: mode 'sideways' is not one of"), w.stderr)
    }

    // MARK: One instance per display

    /// `exec_always wayloop ...` on every sway reload: the second start hands its arguments to
    /// the first and exits 0; a bad video exits 5 and changes nothing; --replace takes over.
    func testASecondStartHandsOverItsArguments() throws {
        let first = try start([clip("grid.mp4")])
        defer { _ = first.stop() }
        // Relative paths are the second start's, not the first's.
        let second = Shell.run(["/bin/sh", "-c", "cd '\(Repo.clips)' && exec '\(Repo.binary)' -m fit seam-30.mp4"], env: try env(), timeout: 60)
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(second.stderr.contains("handed over"), second.stderr)
        XCTAssertEqual(try status().first?["video"] as? String, clip("seam-30.mp4"))
        XCTAssertEqual(try status().first?["mode"] as? String, "fit")
        let bad = Shell.run([Repo.binary, "/nonexistent/x.mp4"], env: try env(), timeout: 60)
        XCTAssertEqual(bad.status, 5, bad.stderr)
        XCTAssertEqual(bad.stderr.split(separator: "\n").count, 1, bad.stderr)
        XCTAssertEqual(try status().first?["video"] as? String, clip("seam-30.mp4"))
        // What only a new process can change is refused by name (never dropped in silence), and
        // nothing changes.
        let refused = Shell.run([Repo.binary, "--release-after", "5", "--cache-mb", "0", clip("grid.mp4")], env: try env(), timeout: 60)
        XCTAssertEqual(refused.status, 2, refused.stderr)
        XCTAssertEqual(refused.stderr.split(separator: "\n").count, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("--cache-mb (128, asked 0)") && refused.stderr.contains("--release-after"), refused.stderr)
        XCTAssertEqual(try status().first?["video"] as? String, clip("seam-30.mp4"))
        XCTAssertTrue(first.isRunning)
        // --replace: the first stops (exit 0), the new one plays.
        let third = try Wayloop(["--replace", clip("grid.mp4")], env: try env())
        defer { XCTAssertEqual(third.stop(), 0) }
        XCTAssertEqual(first.waitExit(timeout: 10), 0, first.stderr)
        XCTAssertTrue(third.waitForState("HEADLESS-1", state: "playing", shown: true), "\(third.lastStatus); \(third.stderr)")
        XCTAssertTrue(third.stderr.contains("replaced the wayloop"), third.stderr)
        XCTAssertEqual(try status().first?["video"] as? String, clip("grid.mp4"))
    }

    func testQuitRemovesTheSocketAndAStaleOneIsReplaced() throws {
        let w = try start([clip("grid.mp4")])
        let r = try ctl(["quit"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(w.waitExit(), 0, w.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: socketPath))
        // A crash leaves the socket file behind; the next start replaces it.
        let crashed = try start([clip("grid.mp4")])
        kill(crashed.pid, SIGKILL)
        _ = crashed.waitExit()
        XCTAssertTrue(FileManager.default.fileExists(atPath: socketPath))
        let next = try start([clip("grid.mp4")])
        defer { XCTAssertEqual(next.stop(), 0) }
        XCTAssertTrue(next.stderr.contains("replaced a stale control socket"), next.stderr)
        XCTAssertEqual(try state(), "playing")
    }

    // MARK: Fallback

    func testAFailedOutputShowsItsFallback() throws {
        let sway = try compositor()
        let w = try start(["-f", "ff0000", "/nonexistent/clip.mp4"], state: "failed")
        defer { XCTAssertEqual(w.stop(), 0) }
        let s = try XCTUnwrap(try status().first)
        XCTAssertEqual(s["state"] as? String, "failed")
        XCTAssertEqual(s["reason"] as? String, "resource-not-found")
        XCTAssertTrue((s["error"] as? String ?? "").contains("no such file"), "\(s)")
        let img = try sway.shot("HEADLESS-1")
        XCTAssertTrue(img.pixel(img.width / 2, img.height / 2).close(to: RGB8(255, 0, 0), tolerance: 2))
        // A working video set later replaces the fallback.
        XCTAssertEqual(try ctl(["set", "HEADLESS-1", clip("grid.mp4")]).status, 0)
        XCTAssertEqual(try state(), "playing")
        XCTAssertTrue(Wait.until(timeout: 5) {
            guard let i = try? sway.shot("HEADLESS-1") else { return false }
            return !i.pixel(i.width / 2, i.height / 2).close(to: RGB8(255, 0, 0), tolerance: 30)
        })
    }

    func testAFallbackVideo() throws {
        let w = try start(["-f", clip("grid.mp4"), clip("all-corrupt.mp4")], state: "failed")
        defer { XCTAssertEqual(w.stop(), 0) }
        let s = try XCTUnwrap(try status().first)
        XCTAssertEqual(s["state"] as? String, "failed")
        XCTAssertEqual(s["video"] as? String, clip("all-corrupt.mp4"))
        XCTAssertEqual(s["showing"] as? String, "'\(clip("grid.mp4"))'")
    }
}

/// A raw client of the control socket, for requests `wayloop ctl` would never send.
final class SocketClient {
    private let fd: Int32
    private var buffer: [UInt8] = []

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            let b = Array(path.utf8)
            raw.copyBytes(from: b)
            raw[b.count] = 0
        }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else { throw HarnessError("cannot connect to \(path): \(String(cString: strerror(errno)))") }
    }

    func close() { Glibc.close(fd) }

    func send(_ line: String) throws {
        let bytes = Array((line + "\n").utf8)
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + off, $0.count - off, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw HarnessError("send failed") }
            off += n
        }
    }

    func readJSON(timeout: Double = 20) throws -> [String: Any] {
        let end = Date().addingTimeInterval(timeout)
        while !buffer.contains(UInt8(ascii: "\n")) {
            guard Date() < end else { throw HarnessError("no reply within \(timeout) s") }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 200) >= 0 else { continue }
            if p.revents == 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &chunk, chunk.count, 0)
            guard n > 0 else { throw HarnessError("connection closed") }
            buffer += chunk[0..<n]
        }
        let i = buffer.firstIndex(of: UInt8(ascii: "\n"))!
        let line = Data(buffer[..<i])
        buffer.removeSubrange(...i)
        guard let obj = try JSONSerialization.jsonObject(with: line) as? [String: Any] else { throw HarnessError("not an object") }
        return obj
    }
}

extension Image {
    /// Mean of (r+g+b)/3 over every pixel, 0 to 1.
    var meanLuma: Double {
        var sum = 0
        for v in pixels { sum += Int(v) }
        return Double(sum) / Double(max(1, pixels.count)) / 255
    }

    /// Mean absolute difference per channel, 0 to 1.
    func difference(_ o: Image) -> Double {
        guard o.pixels.count == pixels.count else { return 1 }
        var sum = 0
        for i in 0..<pixels.count { sum += abs(Int(pixels[i]) - Int(o.pixels[i])) }
        return Double(sum) / Double(max(1, pixels.count)) / 255
    }
}
