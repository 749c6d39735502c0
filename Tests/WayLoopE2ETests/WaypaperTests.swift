// waypaper (the GUI wallpaper picker, 2.9 from PyPI) with WayLoop's backend
// (integrations/waypaper), run as a user runs it: its own command line (`waypaper --wallpaper
// FILE --backend wayloop [--monitor OUTPUT]`) and its GUI's buttons, against a real wayloop on
// headless sway. What the backend does is read back from `wayloop ctl status --json`, the
// processes on the display and screenshots. The venv comes from scripts/waypaper-env (a missing
// or stale one fails each test with one line naming it); waypaper's own tests and the patch's
// unit tests run in `scripts/waypaper-env --test`.
import Foundation
import WayLoopTestSupport
import XCTest

final class WaypaperTests: CompositorTestCase {
    override class var outputSizes: [String] { ["640x360", "320x240"] }

    /// The class's clips beside the harness's: a solid red 16:9 clip.
    nonisolated(unsafe) private static var clipDir = ""

    override class func setUpFixtures(_ compositor: Compositor) throws {
        clipDir = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-waypaper-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: clipDir, withIntermediateDirectories: true)
        try SolidClip.make(clipDir + "/red.mp4", colour: "0xff0000", size: "320x180")
    }

    override class func tearDownFixtures() {
        if !clipDir.isEmpty { try? FileManager.default.removeItem(atPath: clipDir) }
    }

    private var scratch: String!

    override func setUp() {
        super.setUp()
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-waypaper-\(UUID().uuidString.prefix(8))").path
        try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() {
        // The wayloops waypaper started (in sessions of their own) on this test's display.
        if let pids = try? wayloops() {
            for pid in pids { kill(pid, SIGTERM) }
            if !Wait.until(timeout: 10, { ((try? self.wayloops()) ?? []).isEmpty }) {
                for pid in (try? wayloops()) ?? [] { kill(pid, SIGKILL) }
            }
        }
        try? FileManager.default.removeItem(atPath: scratch)
        super.tearDown()
    }

    // MARK: Helpers

    private var grid: String { Repo.clip("grid.mp4") }
    private var red: String { Self.clipDir + "/red.mp4" }

    /// The venv scripts/waypaper-env makes; throws its one line when it is missing or stale.
    private func waypaperBinary() throws -> String {
        let r = Shell.run([Repo.path("scripts/waypaper-env"), "--check"], timeout: 30)
        guard r.status == 0 else {
            throw HarnessError(r.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
                .split(separator: "\n").last.map(String.init) ?? "scripts/waypaper-env --check exited \(r.status)")
        }
        let venv = ProcessInfo.processInfo.environment["WAYLOOP_WAYPAPER_VENV"] ?? Repo.path(".build/waypaper-venv")
        return venv + "/bin/waypaper"
    }

    /// The compositor's environment with a home of the test's own (no user config is read) and
    /// the directory of the wayloop under test first on PATH, where waypaper looks for it.
    private func env() throws -> [String: String] {
        var e = try compositor().env
        let bin = (Repo.binary as NSString).deletingLastPathComponent
        guard (Repo.binary as NSString).lastPathComponent == "wayloop" else {
            throw HarnessError("waypaper runs `wayloop` from PATH: WAYLOOP_BIN must name a file called wayloop, not \(Repo.binary)")
        }
        e["PATH"] = bin + ":" + (e["PATH"] ?? "/usr/bin:/bin")
        e["HOME"] = scratch + "/home"
        e["XDG_CONFIG_HOME"] = scratch + "/config"
        e["XDG_CACHE_HOME"] = scratch + "/cache"
        e["XDG_STATE_HOME"] = scratch + "/state"
        e["XDG_DATA_HOME"] = scratch + "/data"
        e["DISPLAY"] = nil
        return e
    }

    private func waypaper(_ args: [String]) throws -> ShellResult {
        Shell.run([try waypaperBinary()] + args, env: try env(), timeout: 120)
    }

    /// The wayloop processes on this test's display (not `wayloop ctl` clients), by pid.
    private func wayloops() throws -> [pid_t] {
        let e = try env()
        let want = ["XDG_RUNTIME_DIR=\(e["XDG_RUNTIME_DIR"] ?? "")", "WAYLAND_DISPLAY=\(e["WAYLAND_DISPLAY"] ?? "")"]
        guard let real = realpath(Repo.binary, nil) else { throw HarnessError("no wayloop binary at \(Repo.binary)") }
        let binary = String(cString: real)
        free(real)
        var pids: [pid_t] = []
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            // " (deleted)": the binary was rebuilt while it ran.
            guard let pid = pid_t(name), pid != getpid(),
                  let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(name)/exe"),
                  exe == binary || exe == binary + " (deleted)",
                  let environ = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(name)/environ")),
                  let cmdline = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(name)/cmdline")) else { continue }
            let vars = environ.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            let argv = cmdline.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if want.allSatisfy(vars.contains), argv.dropFirst().first != "ctl" { pids.append(pid) }
        }
        return pids.sorted()
    }

    /// `ctl status --json` by output name.
    private func status() throws -> [String: [String: Any]] {
        var out: [String: [String: Any]] = [:]
        for o in try Ctl.status(env: try env()) { if let n = o["name"] as? String { out[n] = o } }
        return out
    }

    /// Waits (polling ctl status) until every output named plays its video with a picture
    /// committed, in `mode` when given; the last status is in the message.
    private func waitForVideos(_ want: [String: String], mode: String? = nil, timeout: Double = 20) throws {
        var last = "no status"
        let ok = Wait.until(timeout: timeout) {
            guard let s = try? self.status() else { return false }
            last = Ctl.describe(Array(s.values))
            return want.allSatisfy { name, video in
                guard let o = s[name], o["video"] as? String == video else { return false }
                return Ctl.matches(o, state: "playing", reason: nil, shown: true) && (mode == nil || o["mode"] as? String == mode)
            }
        }
        if !ok { throw HarnessError("expected \(want)\(mode.map { " (\($0))" } ?? ""): \(last)") }
    }

    /// Screenshots `output` until `check` passes (a switch fades for 0.5 s), or `timeout`.
    private func waitForPicture(_ output: String, _ what: String, timeout: Double = 20,
                                _ check: (Image) -> (ok: Bool, report: String)) throws {
        var report = "no screenshot"
        let end = Date().addingTimeInterval(timeout)
        repeat {
            let r = check(try compositor().shot(output))
            if r.ok { return }
            report = r.report
            usleep(200_000)
        } while Date() < end
        XCTFail("\(output) does not show \(what): \(report)")
    }

    /// One colour at the centre and near each corner of `img` (or of its part from row y0 to y1).
    private func solid(_ img: Image, _ want: RGB8, rows: Range<Int>? = nil) -> (ok: Bool, report: String) {
        let rows = rows ?? 0..<img.height
        var bad: [String] = []
        for (fx, fy) in [(0.5, 0.5), (0.1, 0.1), (0.9, 0.1), (0.1, 0.9), (0.9, 0.9)] {
            let x = Int(fx * Double(img.width)), y = rows.lowerBound + Int(fy * Double(rows.count))
            if !img.pixel(x, y).close(to: want, tolerance: 40) { bad.append("(\(x),\(y)) is \(img.pixel(x, y))") }
        }
        return (bad.isEmpty, "want \(want): \(bad)")
    }

    private func gridFills(_ img: Image) -> (ok: Bool, report: String) { GridPicture.fillReport(img, cells: (try? GridPicture.colors()) ?? []) }

    // MARK: Tests

    /// With no wayloop on the display, waypaper starts one (detached: it outlives waypaper),
    /// once; the next call, for one output, switches that wayloop instead of starting another.
    func testWaypaperStartsAWayloopOnceAndThenSwitchesIt() throws {
        _ = try waypaperBinary()
        let none = Shell.run([Repo.binary, "ctl", "status"], env: try env(), timeout: 30)
        XCTAssertEqual(none.status, 3, "a wayloop already runs on this display: \(none.stdout)\(none.stderr)")

        let first = try waypaper(["--wallpaper", grid, "--backend", "wayloop"])
        XCTAssertEqual(first.status, 0, first.stdout + first.stderr)
        XCTAssertTrue(first.stdout.contains("Sent wayloop command to set grid.mp4 on All display"), first.stdout + first.stderr)
        try waitForVideos(["HEADLESS-1": grid, "HEADLESS-2": grid], mode: "fill")
        let started = try wayloops()
        XCTAssertEqual(started.count, 1, "waypaper left \(started.count) wayloops on the display: \(started)")
        try waitForPicture("HEADLESS-1", "the grid, filled") { gridFills($0) }

        let second = try waypaper(["--wallpaper", red, "--backend", "wayloop", "--monitor", "HEADLESS-1"])
        XCTAssertEqual(second.status, 0, second.stdout + second.stderr)
        XCTAssertFalse(second.stdout.contains("starting one"), second.stdout)
        try waitForVideos(["HEADLESS-1": red, "HEADLESS-2": grid])
        XCTAssertEqual(try wayloops(), started, "the second call did not reuse the running wayloop")
        try waitForPicture("HEADLESS-1", "red") { solid($0, RGB8(255, 0, 0)) }
        try waitForPicture("HEADLESS-2", "the grid, filled") { gridFills($0) }
        // What the started wayloop logged, where the backend says it is.
        let log = (try? String(contentsOfFile: scratch + "/cache/waypaper/wayloop.log", encoding: .utf8)) ?? ""
        XCTAssertTrue(log.contains("showing '\(grid)'"), "wayloop.log: \(log)")
    }

    /// A wayloop already running (as from the compositor's config) is switched through `ctl set`:
    /// one output with waypaper's fill type and colour (from its config file), then "All"; the
    /// same process throughout.
    func testWaypaperSwitchesTheRunningWayloop() throws {
        _ = try waypaperBinary()
        let w = try Wayloop([grid], env: try env())
        defer { XCTAssertEqual(w.stop(), 0) }
        XCTAssertTrue(w.waitForStates(["HEADLESS-1", "HEADLESS-2"], state: "playing", shown: true), w.lastStatus)
        try FileManager.default.createDirectory(atPath: scratch + "/config/waypaper", withIntermediateDirectories: true)
        try "[Settings]\ncolor = #ff00ff\n".write(toFile: scratch + "/config/waypaper/config.ini", atomically: true, encoding: .utf8)

        let fit = try waypaper(["--wallpaper", grid, "--backend", "wayloop", "--monitor", "HEADLESS-2", "--fill", "fit"])
        XCTAssertEqual(fit.status, 0, fit.stdout + fit.stderr)
        try waitForVideos(["HEADLESS-2": grid], mode: "fit")
        XCTAssertEqual(try status()["HEADLESS-1"]?["mode"] as? String, "fill", "HEADLESS-1 changed too")
        // 16:9 on 320x240, fitted: magenta bars of 30 rows above and below the grid.
        try waitForPicture("HEADLESS-2", "the grid fitted between magenta bars") { img in
            let bars = [self.solid(img, RGB8(255, 0, 255), rows: 0..<28), self.solid(img, RGB8(255, 0, 255), rows: 212..<240)]
            let picture = self.gridFills(img.cropped(x: 0, y: 32, width: 320, height: 176))
            return (bars.allSatisfy(\.ok) && picture.ok, "bars: \(bars.map(\.report)); picture: \(picture.report)")
        }

        let all = try waypaper(["--wallpaper", red, "--backend", "wayloop", "--monitor", "All", "--fill", "fill"])
        XCTAssertEqual(all.status, 0, all.stdout + all.stderr)
        try waitForVideos(["HEADLESS-1": red, "HEADLESS-2": red], mode: "fill")
        try waitForPicture("HEADLESS-1", "red") { solid($0, RGB8(255, 0, 0)) }
        try waitForPicture("HEADLESS-2", "red") { solid($0, RGB8(255, 0, 0)) }
        XCTAssertTrue(w.isRunning, w.stderr)
        XCTAssertEqual(try wayloops(), [w.pid], "not the one wayloop the test started")
    }

    /// A file wayloop cannot play: waypaper prints wayloop's own error line (and exits 0, as
    /// waypaper 2.9 does for every backend that fails); a running wayloop keeps its video, and
    /// none is left behind when none ran.
    func testABadFileShowsWayloopsErrorLine() throws {
        _ = try waypaperBinary()
        let bad = Repo.clip("text.mp4")
        // No wayloop running: the one waypaper starts exits 5 with its line.
        let reference = Shell.run([Repo.binary, "-m", "fill", "-c", "ffffff", bad], env: try env(), timeout: 30)
        XCTAssertEqual(reference.status, 5, reference.stderr)
        let line = reference.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(line.split(separator: "\n").count, 1, line)
        let cold = try waypaper(["--wallpaper", bad, "--backend", "wayloop"])
        XCTAssertEqual(cold.status, 0, cold.stdout + cold.stderr)
        XCTAssertTrue(cold.stdout.contains("Error occured while changing wallpaper: \n\(line)\n"), "waypaper said:\n\(cold.stdout)\(cold.stderr)\nwayloop says: \(line)")
        XCTAssertEqual(try wayloops(), [], "a wayloop was left running")

        // A running wayloop: `ctl set` refuses, the old video plays on.
        let w = try Wayloop([grid], env: try env())
        defer { XCTAssertEqual(w.stop(), 0) }
        XCTAssertTrue(w.waitForState("HEADLESS-1", state: "playing", shown: true), w.lastStatus)
        let refused = Shell.run([Repo.binary, "ctl", "set", "HEADLESS-1", bad], env: try env(), timeout: 60)
        XCTAssertEqual(refused.status, 1, refused.stderr)
        let ctlLine = refused.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
        let warm = try waypaper(["--wallpaper", bad, "--backend", "wayloop", "--monitor", "HEADLESS-1"])
        XCTAssertEqual(warm.status, 0, warm.stdout + warm.stderr)
        XCTAssertTrue(warm.stdout.contains("Error occured while changing wallpaper: \n\(ctlLine)\n"), "waypaper said:\n\(warm.stdout)\(warm.stderr)\nwayloop says: \(ctlLine)")
        try waitForVideos(["HEADLESS-1": grid])
        try waitForPicture("HEADLESS-1", "the grid, filled") { gridFills($0) }
        XCTAssertTrue(w.isRunning, w.stderr)
        XCTAssertEqual(try wayloops(), [w.pid])
    }

    /// The GUI with the wayloop backend, on the compositor: the outputs come from the running
    /// wayloop, fill and colour are offered, pause and stop (no sound); pause toggles one
    /// output, stop quits wayloop.
    func testTheGUIDrivesTheRunningWayloop() throws {
        let python = ((try waypaperBinary()) as NSString).deletingLastPathComponent + "/python"
        let w = try Wayloop([grid], env: try env())
        defer { _ = w.stop() }
        XCTAssertTrue(w.waitForStates(["HEADLESS-1", "HEADLESS-2"], state: "playing", shown: true), w.lastStatus)
        let script = """
        import threading
        from waypaper.app import App
        from waypaper.config import Config
        from waypaper.translations import load_language
        cf = Config(); cf.read(); cf.backend = "wayloop"; cf.check_validity()
        app = App(load_language("en"), cf)
        packed = app.options_box.get_children()
        widgets = {"pause": app.mpv_pause_button, "stop": app.mpv_stop_button, "sound": app.mpv_sound_toggle,
                   "fill": app.fill_option_combo, "colour": app.color_picker_button, "monitor": app.monitor_option_combo}
        print("monitors:", " ".join(row[0] for row in app.monitor_option_combo.get_model()))
        print("shown:", " ".join(sorted(name for name, widget in widgets.items() if widget in packed)))
        def click(button):
            before = set(threading.enumerate())
            button.clicked()
            for thread in set(threading.enumerate()) - before:
                thread.join(60)
        app.cf.selected_monitor = "HEADLESS-1"
        click(app.mpv_pause_button)
        print("paused")
        input()
        click(app.mpv_stop_button)
        print("stopped")
        """
        try script.write(toFile: scratch + "/gui.py", atomically: true, encoding: .utf8)
        // Its stdin a FIFO the test writes a line to between the two clicks.
        let fifo = scratch + "/stdin"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let out = scratch + "/gui.out", err = scratch + "/gui.err"
        var e = try env()
        e["PYTHONUNBUFFERED"] = "1"
        let holder = open(fifo, O_RDWR)
        defer { close(holder) }
        guard let gui = Child([python, scratch + "/gui.py"], env: e, stdout: out, stderr: err, stdin: fifo) else {
            throw HarnessError("cannot start \(python)")
        }
        defer { if gui.isRunning { kill(gui.pid, SIGKILL); _ = gui.wait(timeout: 5) } }
        func said() -> String { ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "") + ((try? String(contentsOfFile: err, encoding: .utf8)) ?? "") }
        XCTAssertTrue(Wait.until(timeout: 60) { said().contains("paused\n") || !gui.isRunning }, said())
        XCTAssertTrue(said().contains("monitors: All HEADLESS-1 HEADLESS-2\n"), said())
        XCTAssertTrue(said().contains("shown: colour fill monitor pause stop\n"), said())
        let s = try status()
        XCTAssertTrue(Ctl.matches(s["HEADLESS-1"] ?? [:], state: "paused", reason: "user", shown: false), Ctl.describe(Array(s.values)))
        XCTAssertEqual(s["HEADLESS-2"]?["state"] as? String, "playing")
        _ = "\n".withCString { write(holder, $0, 1) }
        XCTAssertEqual(gui.wait(timeout: 60), 0, said())
        XCTAssertTrue(said().contains("stopped\n"), said())
        XCTAssertEqual(w.waitExit(timeout: 20), 0, "the stop button did not quit wayloop: \(w.stderr)")
    }
}
