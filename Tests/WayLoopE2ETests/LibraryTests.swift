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

    /// Runs the Backdrop example (a host's own 320x180 layer surface on the top layer, centred,
    /// with a VideoView in it) with `arguments` until `done` holds for a screenshot of the
    /// 640x360 output, then until `then` holds for a later one, and stops it with SIGTERM (its
    /// clean stop); its stdout lines, whether both held, and its exit status.
    private func backdrop(_ arguments: [String], until done: (Image) -> Bool, then: (Image) -> Bool = { _ in true },
                          report: () -> String) throws -> (lines: [String], held: Bool, status: Int32?) {
        let sway = try compositor()
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-backdrop-\(UUID().uuidString.prefix(8))").path
        let err = out + ".err"
        defer { for f in [out, err] { try? FileManager.default.removeItem(atPath: f) } }
        guard let host = Child([try example("Backdrop")] + arguments, env: sway.env, stdout: out, stderr: err) else {
            throw HarnessError("cannot start the Backdrop example")
        }
        defer { if host.isRunning { kill(host.pid, SIGKILL); _ = host.wait(timeout: 5) } }
        func shown(_ check: (Image) -> Bool) -> Bool {
            Wait.until(timeout: 20) {
                guard let img = try? sway.shot(sway.outputs[0]), img.width == 640, img.height == 360 else { return false }
                return check(img)
            }
        }
        let held = shown(done) && shown(then)
        kill(host.pid, SIGTERM)
        let status = host.wait(timeout: 30)
        let stderr = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        XCTAssertFalse(stderr.contains("error"), "\(arguments): \(stderr)")
        XCTAssertTrue(held, "\(arguments): \(report()); \(stderr)")
        let lines = ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        return (lines, held, status)
    }

    /// A host's own surface (Examples/Sources/Backdrop), on both renderers: the grid
    /// aspect-filled inside the host's 320x180 surface with the compositor's own background
    /// around it, then a later picture in it (the clip's frame counter moved: it draws on); the
    /// host ends its loop on SIGTERM and exits well, having counted the frames drawn.
    func testAHostsOwnSurfaceShowsTheVideoOnBothRenderers() throws {
        let cells = try GridPicture.colors()
        for renderer in ["shm", "gl"] {
            var report = "no screenshot yet"
            var first: [UInt8]?
            let run = try backdrop([Repo.clip("grid.mp4"), renderer], until: { img in
                let inside = img.cropped(x: 160, y: 90, width: 320, height: 180)
                let r = GridPicture.fillReport(inside, cells: cells)
                report = r.report + "; outside \(img.pixel(20, 20))"
                first = inside.pixels
                return r.ok && !cells.joined().contains { $0.close(to: img.pixel(20, 20), tolerance: 12) }
            }, then: { img in
                report = "the picture inside never changed after the first that filled"
                return img.cropped(x: 160, y: 90, width: 320, height: 180).pixels != first
            }, report: { report })
            XCTAssertEqual(run.status, 0, "\(renderer): \(run.lines)")
            XCTAssertTrue(run.lines.contains("state playing"), "\(renderer): \(run.lines)")
            let frames = run.lines.last { $0.hasPrefix("frames ") }
            XCTAssertGreaterThanOrEqual(frames.flatMap { Int($0.split(separator: " ")[1]) } ?? 0, 2, "\(renderer): \(run.lines)")
            XCTAssertTrue(frames?.contains("renderer: \(renderer)") == true, "\(renderer): \(run.lines)")
        }
    }

    /// The view's controls from the host's loop, on both renderers: paused, no frame is drawn
    /// until it resumes; the host's surface grows to 480x270 and the view fills it; a switch to
    /// a red clip shows red over all of it (and the compositor's background around it), which
    /// also proves it drew again after the resume.
    func testAHostsViewPausesResizesAndSwitches() throws {
        let red = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-red-\(getpid()).mp4").path
        try SolidClip.make(red, colour: "0xFF0000", size: "320x180")
        defer { try? FileManager.default.removeItem(atPath: red) }
        for renderer in ["shm", "gl"] {
            var report = "no screenshot yet"
            let run = try backdrop([Repo.clip("grid.mp4"), renderer, "1:pause", "2:resume", "3:size=480x270", "3:switch=\(red)"], until: { img in
                let inside = [(82, 47), (557, 47), (82, 312), (557, 312), (320, 180)].map { img.pixel($0.0, $0.1) }
                let outside = [(76, 41), (563, 318)].map { img.pixel($0.0, $0.1) }
                report = "inside \(inside), outside \(outside)"
                return inside.allSatisfy { $0.close(to: RGB8(255, 0, 0), tolerance: 24) }
                    && outside.allSatisfy { !$0.close(to: RGB8(255, 0, 0), tolerance: 24) }
            }, report: { report })
            let at = { (what: String) in run.lines.first { $0.hasPrefix("\(what) at frames ") }.flatMap { Int($0.split(separator: " ").last!) } }
            XCTAssertEqual(run.status, 0, "\(renderer): \(run.lines)")
            XCTAssertNotNil(at("pause"), "\(renderer): \(run.lines)")
            XCTAssertEqual(at("pause"), at("resume"), "\(renderer): frames drawn while paused: \(run.lines)")
            XCTAssertTrue(run.lines.contains("state paused (user)"), "\(renderer): \(run.lines)")
        }
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

    /// The `wayloop` executable is WayLoopKit's client through its public API alone: it imports
    /// nothing else of the package, never with @testable or @_spi, and its target depends on
    /// the library only (the compiler then refuses any internal symbol).
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
                    XCTAssertTrue(["import Glibc", "import WayLoopKit"].contains(t), "\(f) imports more than WayLoopKit: \(t)")
                }
            }
        }
        let manifest = try String(contentsOfFile: Repo.path("Package.swift"), encoding: .utf8)
        XCTAssertTrue(manifest.contains(#".executableTarget(name: "WayLoop", dependencies: ["WayLoopKit"])"#),
                      "the executable target must depend on WayLoopKit alone")
    }
}
