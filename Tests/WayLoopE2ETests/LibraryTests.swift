// WayLoopKit as a library: the examples (a package that depends on it by path, built by
// scripts/test) run against headless sway, and the `wayloop` command reaches the library through
// its public API only.
import Foundation
import WayLoopTestSupport
import XCTest

final class LibraryTests: CompositorTestCase {
    override class var outputSizes: [String] { ["640x360"] }

    /// An example program, built by `swift build --package-path Examples` (scripts/test does).
    private func example(_ name: String) throws -> String {
        let path = Repo.path("Examples/.build/debug/\(name)")
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw HarnessError("no example at \(path): run `swift build --package-path Examples --disable-build-manifest-caching` first")
        }
        return path
    }

    /// The three-line wallpaper (Examples/Sources/Wallpaper): the clip aspect-filled on the
    /// output, and SIGTERM stops it cleanly (runAndExit reads SIGINT and SIGTERM).
    func testTheThreeLineWallpaperFillsTheOutputAndStopsOnSIGTERM() throws {
        let sway = try compositor()
        let w = try Wayloop([Repo.clip("grid.mp4")], env: sway.env, binary: try example("Wallpaper"), inheritRenderer: false)
        defer { if w.isRunning { _ = w.stop(signal: SIGKILL) } }
        let cells = try GridPicture.colors()
        var report = "no screenshot yet"
        let filled = Wait.until(timeout: 15) {
            guard let img = try? sway.shot(sway.outputs[0]), img.width == 640, img.height == 360 else { return false }
            let r = GridPicture.fillReport(img, cells: cells)
            report = r.report
            return r.ok
        }
        XCTAssertTrue(filled, "the example's picture is not the aspect-filled grid: \(report); \(w.stderr)")
        XCTAssertEqual(w.stop(signal: SIGTERM), 0, w.stderr)
        XCTAssertFalse(w.crashed, w.stderr)
        XCTAssertTrue(w.stderr.contains("stopping on signal SIGTERM"), w.stderr)
        XCTAssertFalse(w.stderr.contains("error"), w.stderr)
    }

    /// A video that is not there: one error line and wayloop's exit status 5, no crash (an
    /// uncaught error at the top level of a Swift program would trap).
    func testTheThreeLineWallpaperRefusesAMissingVideoInOneLine() throws {
        let sway = try compositor()
        var env = sway.env
        env["XDG_DATA_HOME"] = FileManager.default.temporaryDirectory.path + "/wayloop-none-\(getpid())"
        let r = Shell.run([try example("Wallpaper"), "nothere"], env: env, timeout: 30)
        XCTAssertEqual(r.status, 5, r.stderr)
        let lines = r.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("'nothere': no such file"), r.stderr)
    }

    /// A host (Examples/Sources/HostControl) hears each state change on the wallpaper's
    /// thread, asks another thread for the status 2 s after the output plays and stops it
    /// there: run() returns, and the program ends well.
    func testAHostFollowsTheStatesAsksTheStatusAndStops() throws {
        let sway = try compositor()
        let r = Shell.run([try example("HostControl"), Repo.clip("grid.mp4"), "2"], env: sway.env, timeout: 60)
        XCTAssertEqual(r.status, 0, "\(r.stdout)\n\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let output = sway.outputs[0]
        XCTAssertTrue(lines.contains("state \(output) playing \(Repo.clip("grid.mp4"))"), "\(lines)")
        let status = lines.first { $0.hasPrefix("status \(output) playing frames ") }
        let frames = status.flatMap { Int($0.split(separator: " ").last!) } ?? 0
        XCTAssertGreaterThan(frames, 0, "no status with frames shown: \(lines)")
        XCTAssertEqual(lines.last, "stopped", "\(lines)")
        XCTAssertFalse(r.stderr.contains("error"), r.stderr)
    }

    /// A host steers its own wallpaper in-process (Examples/Sources/HostControl with OTHER):
    /// pause and resume answered as `ctl` answers them, a switch answered once the new video
    /// plays, a switch to a file that is not there refused with its reason while the old video
    /// plays on; and with `controlSocket` the real `wayloop ctl` reaches the same wallpaper.
    func testAHostSteersItsOwnWallpaperAndCtlReachesIt() throws {
        let sway = try compositor()
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-host-\(UUID().uuidString.prefix(8))").path
        defer { for f in [base + ".out", base + ".err"] { try? FileManager.default.removeItem(atPath: f) } }
        let (grid, seam) = (Repo.clip("grid.mp4"), Repo.clip("seam-30.mp4"))
        // Its stdin a FIFO held open here: it stops when the test writes a line, not on a clock.
        let fifo = base + ".in"
        guard mkfifo(fifo, 0o600) == 0 else { throw HarnessError("cannot make a FIFO at \(fifo)") }
        let input = open(fifo, O_RDWR | O_CLOEXEC)
        defer {
            close(input)
            try? FileManager.default.removeItem(atPath: fifo)
        }
        guard let host = Child([try example("HostControl"), grid, "4", seam], env: sway.env, stdout: base + ".out", stderr: base + ".err",
                               stdin: fifo) else {
            throw HarnessError("cannot start the HostControl example")
        }
        defer { if host.isRunning { kill(host.pid, SIGKILL); _ = host.wait(timeout: 5) } }
        func lines() -> [String] { ((try? String(contentsOfFile: base + ".out", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }
        func stderr() -> String { (try? String(contentsOfFile: base + ".err", encoding: .utf8)) ?? "" }
        XCTAssertTrue(Wait.until(timeout: 60) { lines().contains { $0.hasPrefix("steered") } || !host.isRunning }, "\(lines()); \(stderr())")
        // The command's own ctl, on the display's control socket, reaches the host's wallpaper.
        let outs = try Ctl.status(env: sway.env)
        XCTAssertEqual(outs.first?["video"] as? String, seam, Ctl.describe(outs))
        XCTAssertEqual(write(input, "\n", 1), 1)
        XCTAssertEqual(host.wait(timeout: 30), 0, "\(lines()); \(stderr())")
        let out = lines(), output = sway.outputs[0]
        XCTAssertTrue(out.contains("pause: \(output) paused"), "\(out)")
        XCTAssertTrue(out.contains("resume: \(output) resumed"), "\(out)")
        XCTAssertTrue(out.contains("switch: every output: '\(seam)'"), "\(out)")
        XCTAssertTrue(out.contains { $0.hasPrefix("switch refused: ") && $0.contains("/nonexistent/clip.mp4") }, "\(out)")
        // Each step as the states say it: paused by the host, playing again, the new video playing.
        let states = out.filter { $0.hasPrefix("state \(output) ") }
        let paused = states.firstIndex { $0.hasPrefix("state \(output) paused") }
        let switched = states.firstIndex(of: "state \(output) playing \(seam)")
        XCTAssertNotNil(paused, "\(states)")
        XCTAssertNotNil(switched, "\(states)")
        if let paused, let switched { XCTAssertLessThan(paused, switched, "\(states)") }
        // The refused switch left the new video playing, to the end.
        XCTAssertTrue(out.contains { $0.hasPrefix("status \(output) playing frames ") }, "\(out)")
        XCTAssertEqual(out.last, "stopped", "\(out)")
    }

    /// The Backdrop example (a host's own 320x180 layer surface on the top layer, centred, with
    /// a VideoView in it), driven by lines on its stdin, a FIFO.
    private final class Backdrop {
        let host: Child, sway: Compositor
        let out: String, err: String, fifo: String
        private let input: Int32

        init(_ binary: String, _ arguments: [String], on sway: Compositor, env extra: [String: String] = [:]) throws {
            let base = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-backdrop-\(UUID().uuidString.prefix(8))").path
            (out, err, fifo, self.sway) = (base + ".out", base + ".err", base + ".in", sway)
            guard mkfifo(fifo, 0o600) == 0 else { throw HarnessError("cannot make a FIFO at \(fifo)") }
            // Held open for writing (and reading, so that opening it never blocks) while it runs.
            input = open(fifo, O_RDWR | O_CLOEXEC)
            guard let host = Child([binary] + arguments, env: sway.env.merging(extra) { $1 }, stdout: out, stderr: err, stdin: fifo) else {
                throw HarnessError("cannot start the Backdrop example")
            }
            self.host = host
        }

        deinit {
            if host.isRunning { kill(host.pid, SIGKILL); _ = host.wait(timeout: 5) }
            close(input)
            for f in [out, err, fifo] { try? FileManager.default.removeItem(atPath: f) }
        }

        /// One action, as a line on its stdin.
        func send(_ action: String) { _ = (action + "\n").withCString { write(input, $0, strlen($0)) } }
        var lines: [String] { ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }
        var stderr: String { (try? String(contentsOfFile: err, encoding: .utf8)) ?? "" }
        /// Waits for its line starting with `prefix`.
        func line(_ prefix: String) -> String? {
            var found: String?
            _ = Wait.until(timeout: 20) { found = lines.first { $0.hasPrefix(prefix) }; return found != nil }
            return found
        }
        /// Waits until a screenshot of the 640x360 output passes `check`.
        func shows(_ check: (Image) -> Bool) -> Bool {
            Wait.until(timeout: 20) {
                guard let img = try? sway.shot(sway.outputs[0]), img.width == 640, img.height == 360 else { return false }
                return check(img)
            }
        }
        /// SIGTERM, its clean stop: the exit status.
        func stop() -> Int32? {
            kill(host.pid, SIGTERM)
            return host.wait(timeout: 30)
        }
    }

    private func backdrop(_ arguments: [String], env: [String: String] = [:]) throws -> Backdrop {
        try Backdrop(try example("Backdrop"), arguments, on: try compositor(), env: env)
    }

    /// The grid aspect-filled inside the host's 320x180 surface (centred on the 640x360
    /// output), with the compositor's own background around it.
    private func gridInside(_ cells: [[RGB8]], report: @escaping (String) -> Void) -> (Image) -> Bool {
        { img in
            let r = GridPicture.fillReport(img.cropped(x: 160, y: 90, width: 320, height: 180), cells: cells)
            report(r.report + "; outside \(img.pixel(20, 20))")
            return r.ok && !cells.joined().contains { $0.close(to: img.pixel(20, 20), tolerance: 12) }
        }
    }

    /// A host's own surface (Examples/Sources/Backdrop), on both renderers: the grid
    /// aspect-filled inside the host's 320x180 surface with the compositor's own background
    /// around it, then a later picture in it (the clip's frame counter moved: it draws on); the
    /// host ends its loop on SIGTERM and exits well, having counted the frames drawn.
    func testAHostsOwnSurfaceShowsTheVideoOnBothRenderers() throws {
        let cells = try GridPicture.colors()
        for renderer in ["shm", "gl"] {
            let run = try backdrop([Repo.clip("grid.mp4"), renderer])
            var report = "no screenshot yet"
            var first: [UInt8]?
            let grid = gridInside(cells) { report = $0 }
            XCTAssertTrue(run.shows { img in first = img.cropped(x: 160, y: 90, width: 320, height: 180).pixels; return grid(img) },
                          "\(renderer): \(report); \(run.stderr)")
            XCTAssertTrue(run.shows { $0.cropped(x: 160, y: 90, width: 320, height: 180).pixels != first },
                          "\(renderer): the picture inside never changed after the first that filled")
            XCTAssertEqual(run.stop(), 0, "\(renderer): \(run.lines)")
            XCTAssertTrue(run.lines.contains("state playing"), "\(renderer): \(run.lines)")
            let frames = run.lines.last { $0.hasPrefix("frames ") }
            XCTAssertGreaterThanOrEqual(frames.flatMap { Int($0.split(separator: " ")[1]) } ?? 0, 2, "\(renderer): \(run.lines)")
            XCTAssertTrue(frames?.contains("renderer: \(renderer)") == true, "\(renderer): \(run.lines)")
            XCTAssertFalse(run.stderr.contains("error"), "\(renderer): \(run.stderr)")
        }
    }

    /// Red inside the host's surface at `size` (centred on the 640x360 output), and not around it.
    private func redInside(width: Int, height: Int, report: @escaping (String) -> Void) -> (Image) -> Bool {
        { img in
            let (x0, y0, x1, y1) = (320 - width / 2, 180 - height / 2, 320 + width / 2 - 1, 180 + height / 2 - 1)
            let inside = [(x0 + 2, y0 + 2), (x1 - 2, y0 + 2), (x0 + 2, y1 - 2), (x1 - 2, y1 - 2), (320, 180)].map { img.pixel($0.0, $0.1) }
            let outside = [(x0 - 4, y0 - 4), (x1 + 4, y1 + 4)].map { img.pixel($0.0, $0.1) }
            report("inside \(inside), outside \(outside)")
            return inside.allSatisfy { $0.close(to: RGB8(255, 0, 0), tolerance: 24) }
                && outside.allSatisfy { !$0.close(to: RGB8(255, 0, 0), tolerance: 24) }
        }
    }

    private func redClip() throws -> String {
        let red = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-red-\(getpid()).mp4").path
        if !FileManager.default.fileExists(atPath: red) { try SolidClip.make(red, colour: "0xFF0000", size: "320x180") }
        addTeardownBlock { try? FileManager.default.removeItem(atPath: red) }
        return red
    }

    /// The view's controls from the host's loop, on both renderers: paused, no frame is drawn
    /// until it resumes; the host's surface grows to 480x270 and the view fills it; a switch to
    /// a red clip shows red over all of it (and the compositor's background around it), which
    /// also proves it drew again after the resume.
    func testAHostsViewPausesResizesAndSwitches() throws {
        let red = try redClip()
        let cells = try GridPicture.colors()
        for renderer in ["shm", "gl"] {
            let run = try backdrop([Repo.clip("grid.mp4"), renderer])
            var report = "no screenshot yet"
            XCTAssertTrue(run.shows(gridInside(cells) { report = $0 }), "\(renderer): \(report); \(run.stderr)")
            run.send("pause")
            let paused = run.line("pause at frames ")
            XCTAssertTrue(run.shows { _ in true })   // a screenshot's time for frames to be drawn, if any were
            run.send("resume")
            let resumed = run.line("resume at frames ")
            XCTAssertNotNil(paused, "\(renderer): \(run.lines)")
            XCTAssertEqual(paused?.split(separator: " ").last, resumed?.split(separator: " ").last, "\(renderer): frames drawn while paused: \(run.lines)")
            run.send("size=480x270")
            run.send("switch=\(red)")
            XCTAssertTrue(run.shows(redInside(width: 480, height: 270) { report = $0 }), "\(renderer): \(report); \(run.stderr)")
            XCTAssertEqual(run.stop(), 0, "\(renderer): \(run.lines)")
            XCTAssertTrue(run.lines.contains("state paused (user)"), "\(renderer): \(run.lines)")
            XCTAssertFalse(run.stderr.contains("error"), "\(renderer): \(run.stderr)")
        }
    }

    /// The view's keep-recent cache and its release under memory pressure: a video switched
    /// away from is kept, and a switch back takes it from there (the kept one is then the
    /// other); memory pressure (the tests' FIFO in place of PSI) drops it with one notice, and
    /// a switch to it afterwards opens it again.
    func testAHostsViewKeepsRecentVideosUntilMemoryPressure() throws {
        let red = try redClip(), grid = Repo.clip("grid.mp4")
        let pressure = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-pressure-\(getpid())").path
        try? FileManager.default.removeItem(atPath: pressure)
        XCTAssertEqual(mkfifo(pressure, 0o600), 0)
        defer { try? FileManager.default.removeItem(atPath: pressure) }
        let run = try backdrop([grid, "shm"], env: ["WAYLOOP_PRESSURE_FIFO": pressure])
        let cells = try GridPicture.colors()
        var report = "no screenshot yet"
        XCTAssertTrue(run.shows(gridInside(cells) { report = $0 }), "\(report); \(run.stderr)")
        run.send("switch=\(red)")
        XCTAssertTrue(run.shows(redInside(width: 320, height: 180) { report = $0 }), "\(report); \(run.stderr)")
        run.send("switch=\(grid)")
        XCTAssertTrue(run.shows(gridInside(cells) { report = $0 }), "\(report); \(run.stderr)")
        run.send("kept")
        XCTAssertEqual(run.line("kept ["), "kept [\"\(red)\"]", "the grid came back from the kept videos, the red one took its place: \(run.lines)")
        let fd = open(pressure, O_WRONLY | O_NONBLOCK)
        XCTAssertGreaterThanOrEqual(fd, 0)
        _ = write(fd, "some\n", 5)
        close(fd)
        XCTAssertTrue(Wait.until(timeout: 20) { run.stderr.contains("memory pressure (\(pressure)): dropped 1 recent video(s)") }, run.stderr)
        run.send("kept")
        XCTAssertNotNil(run.line("kept []"), "\(run.lines)")
        run.send("switch=\(red)")
        XCTAssertTrue(run.shows(redInside(width: 320, height: 180) { report = $0 }), "\(report); \(run.stderr)")
        XCTAssertEqual(run.stop(), 0, "\(run.lines)")
        XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
    }

    /// Frames only (Examples/Sources/ContactSheet): the first pass of the 30-frame grid clip as
    /// a 6-column sheet of 160x90 cells, in order: its size says 30 frames, its first cell is
    /// byte for byte `wayloop thumbnail --size 160x90 --at 0` (the same converter), and the
    /// frame counter marker differs between the first and the last cell.
    func testAContactSheetOfOneLoop() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-sheet-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sheet = dir + "/sheet.png", thumb = dir + "/thumb.png"
        let r = Shell.run([try example("ContactSheet"), Repo.clip("grid.mp4"), sheet, "6", "160"], timeout: 60)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("30 frames of"), r.stdout)
        let t = Shell.run([Repo.binary, "thumbnail", Repo.clip("grid.mp4"), thumb, "--size", "160x90", "--at", "0"], timeout: 60)
        XCTAssertEqual(t.status, 0, t.stderr)
        let pixels = try Image(png: sheet), thumbnail = try Image(png: thumb)
        XCTAssertEqual(pixels.width, 960)
        XCTAssertEqual(pixels.height, 450, "5 rows of 90: 30 frames")
        func cell(_ c: Int) -> Image { pixels.cropped(x: (c % 6) * 160, y: (c / 6) * 90, width: 160, height: 90) }
        XCTAssertEqual(cell(0).pixels, thumbnail.pixels, "the first cell is not `wayloop thumbnail`'s picture, byte for byte")
        XCTAssertNotEqual(cell(0).pixels, cell(29).pixels, "the first and last frames of the pass are the same picture")
        let bad = Shell.run([try example("ContactSheet"), Repo.clip("empty.mp4"), sheet], timeout: 30)
        XCTAssertEqual(bad.status, 1, bad.stderr)
        XCTAssertEqual(bad.stderr.split(separator: "\n").count, 1, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("empty.mp4"), bad.stderr)
    }

    /// The `wayloop` executable runs the wallpaper through WayLoopKit's public `Wallpaper`: it
    /// imports WayLoopKit and the pure core (the command's parser, help and ctl's language, which
    /// are `package`, not WayLoopKit's API), never with @testable or @_spi, so the compiler
    /// refuses any internal symbol; and its wallpaper is a `Wallpaper` whose configuration turns
    /// on the public options (config file, control socket, state file, hand-over).
    func testTheCommandUsesOnlyThePublicAPI() throws {
        let dir = Repo.path("Sources/WayLoop")
        let files = try FileManager.default.subpathsOfDirectory(atPath: dir).filter { $0.hasSuffix(".swift") }
        XCTAssertFalse(files.isEmpty)
        for f in files {
            let text = try String(contentsOfFile: dir + "/" + f, encoding: .utf8)
            for line in text.split(separator: "\n") {
                let t = line.trimmingCharacters(in: .whitespaces)
                XCTAssertFalse(t.contains("@testable") || t.contains("@_spi") || t.contains("@_implementationOnly"), "\(f): \(t)")
                if t.hasPrefix("import ") {
                    XCTAssertTrue(["import Glibc", "import WayLoopCore", "import WayLoopKit"].contains(t), "\(f) imports more than WayLoopKit and the core: \(t)")
                }
            }
        }
        let manifest = try String(contentsOfFile: Repo.path("Package.swift"), encoding: .utf8)
        XCTAssertTrue(manifest.contains(#".executableTarget(name: "WayLoop", dependencies: ["WayLoopKit", "WayLoopCore"])"#),
                      "the executable target must depend on WayLoopKit and the core alone")
        let main = try String(contentsOfFile: dir + "/main.swift", encoding: .utf8)
        XCTAssertTrue(main.contains("WayLoopCommand.wallpaper(options, arguments: arguments).runAndExit()"), "the command does not run a Wallpaper")
        let command = try String(contentsOfFile: Repo.path("Sources/WayLoopKit/Launch/WayLoopCommand.swift"), encoding: .utf8)
        for option in ["readsConfigFile", "controlSocket", "stateFile", "handOver"] {
            XCTAssertTrue(command.contains("configuration.\(option) = "), "the command's Wallpaper does not set \(option)")
        }
    }
}
