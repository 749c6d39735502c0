// The renderer choice (`--renderer auto|gl|shm`, `renderer =` in the config file): what `auto`
// picks on headless sway (shm: no linux-dmabuf, no /dev/dri), what ctl status reports per output,
// the one notice line that says why, the fall-back to shm when EGL fails, and the usage errors.
// One headless sway with two outputs for the class; each test runs its own wayloop, one after
// another. These tests pass their own --renderer (or none): $WAYLOOP_RENDERER is ignored.
import Foundation
import WayLoopTestSupport
import XCTest

final class RendererTests: CompositorTestCase {
    override class var outputSizes: [String] { ["640x360", "480x640"] }

    private var scratch: String!

    override func setUp() {
        super.setUp()
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-renderer-\(UUID().uuidString.prefix(8))").path
        try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o755])
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: scratch)
        super.tearDown()
    }

    // MARK: Helpers

    /// sway's environment with an empty config home (no user config file gets in the way).
    private func env(_ extra: [String: String] = [:]) throws -> [String: String] {
        var e = try compositor().env
        e["XDG_CONFIG_HOME"] = scratch + "/config"
        for (k, v) in extra { e[k] = v }
        return e
    }

    private var outputs: [String] { (try? compositor().outputs) ?? [] }

    /// Starts wayloop with exactly `args` (no --renderer added) and waits until every output
    /// plays with a picture committed; throws (ending the test) if that does not happen.
    private func start(_ args: [String], env extra: [String: String] = [:]) throws -> Wayloop {
        guard outputs.count == 2 else { throw HarnessError("sway's outputs: \(outputs)") }
        let w = try Wayloop(args, env: try env(extra), inheritRenderer: false)
        guard w.waitForStates(outputs, state: "playing", shown: true) else {
            throw HarnessError("\(args): not playing on \(outputs): \(w.lastStatus); \(w.stderr)")
        }
        return w
    }

    /// The `renderer` field of every output in ctl status.
    private func renderers(_ w: Wayloop) throws -> [String: String] {
        var r: [String: String] = [:]
        for o in try w.ctlStatus() {
            guard let name = o["name"] as? String else { continue }
            r[name] = o["renderer"] as? String ?? "(no renderer field: \(Ctl.describe([o])))"
        }
        return r
    }

    private func assertRenderer(_ w: Wayloop, _ want: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let got = try renderers(w)
        XCTAssertEqual(Set(got.keys), Set(outputs), "outputs in ctl status", file: file, line: line)
        for o in outputs {
            XCTAssertEqual(got[o], want, "\(o): renderer in ctl status --json", file: file, line: line)
        }
    }

    /// Notice lines whose message (after `wayloop: notice: `, with or without a subsystem label)
    /// starts with `prefix`.
    private static func notices(_ lines: [String], startingWith prefix: String) -> [String] {
        lines.filter { line in
            guard line.hasPrefix("wayloop: notice: ") else { return false }
            let rest = line.dropFirst("wayloop: notice: ".count)
            if rest.hasPrefix(prefix) { return true }
            guard let colon = rest.range(of: ": ") else { return false }
            return rest[colon.upperBound...].hasPrefix(prefix)
        }
    }

    /// The lines that announce the renderer choice, of either kind.
    private static func choiceLines(_ lines: [String]) -> [String] {
        notices(lines, startingWith: "renderer: shm (") + notices(lines, startingWith: "renderer: gl (")
    }

    private func clip(_ name: String) -> String { Repo.clip(name) }

    // MARK: The choice

    /// (a) auto on headless sway (GL would be llvmpipe, no dmabuf, no DRM node): shm on every
    /// output, said once, with the reason in parentheses.
    func testAutoPicksShmOnHeadlessSway() throws {
        let w = try start([clip("grid.mp4")])
        try assertRenderer(w, "shm")
        XCTAssertEqual(w.stop(), 0, w.stderr)
        let lines = Self.choiceLines(w.stderrLines)
        XCTAssertEqual(lines.count, 1, "want one 'renderer: ... (' notice line: \(w.stderr)")
        XCTAssertEqual(Self.notices(lines, startingWith: "renderer: shm (").count, 1, "want 'renderer: shm (...)': \(w.stderr)")
        XCTAssertTrue(lines.first?.hasSuffix(")") == true, "the reason ends with ')': \(lines)")
    }

    /// (b) --renderer gl: GL (llvmpipe here), as asked.
    func testRendererGL() throws {
        let w = try start(["--renderer", "gl", clip("grid.mp4")])
        try assertRenderer(w, "gl")
        XCTAssertEqual(w.stop(), 0, w.stderr)
        let lines = Self.choiceLines(w.stderrLines)
        XCTAssertEqual(lines.count, 1, "want one 'renderer: ... (' notice line: \(w.stderr)")
        XCTAssertEqual(Self.notices(lines, startingWith: "renderer: gl (").count, 1, "want 'renderer: gl (...)': \(w.stderr)")
    }

    /// (c) --renderer shm: shm, and the picture is on screen (not black).
    func testRendererShmShowsThePicture() throws {
        let sway = try compositor()
        let w = try start(["--renderer", "shm", clip("grid.mp4")])
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        try assertRenderer(w, "shm")
        for o in outputs {
            var luma = 0.0
            let lit = Wait.until(timeout: 10) {
                guard let img = try? sway.shot(o) else { return false }
                luma = img.meanLuma
                return luma > 0.15
            }
            XCTAssertTrue(lit, "\(o) with --renderer shm: mean luma \(luma), want > 0.15 (grid.mp4)")
        }
        XCTAssertTrue(w.isRunning, w.stderr)
    }

    /// (d) EGL cannot start (no vendor library): --renderer gl falls back to shm with one notice
    /// line and plays on; it still stops with 0.
    func testEGLFailureFallsBackToShm() throws {
        let w = try start(["--renderer", "gl", clip("grid.mp4")],
                          env: ["__EGL_VENDOR_LIBRARY_FILENAMES": "/nonexistent/none.json"])
        try assertRenderer(w, "shm")
        // Still playing: frames keep being committed.
        let before = try w.ctlStatus().compactMap { $0["frames_shown"] as? Int }.reduce(0, +)
        XCTAssertTrue(w.waitForStatus(timeout: 5) { outs in
            outs.compactMap { $0["frames_shown"] as? Int }.reduce(0, +) >= before + 10
        }, "no frames after the fall-back: \(w.lastStatus); \(w.stderr)")
        XCTAssertTrue(w.isRunning, w.stderr)
        XCTAssertEqual(w.stop(), 0, w.stderr)
        let fallback = w.stderrLines.filter { $0.contains("falling back to shm") }
        XCTAssertEqual(fallback.count, 1, "want one 'falling back to shm' line: \(w.stderr)")
        XCTAssertTrue(fallback.first?.hasPrefix("wayloop: notice: ") == true, "the fall-back is a notice: \(fallback)")
    }

    // MARK: Usage errors

    /// (e) an unknown renderer on the command line: exit 2, one line, naming --renderer and
    /// the value (like `-m zoom` in BadInputTests).
    func testBogusRendererIsAUsageError() throws {
        let w = try Wayloop(["--renderer", "bogus", clip("grid.mp4")], env: try env(), inheritRenderer: false)
        XCTAssertEqual(w.waitExit(), 2, w.stderr)
        XCTAssertFalse(w.crashed, w.stderr)
        XCTAssertEqual(w.stderrLines.count, 1, w.stderr)
        XCTAssertTrue(w.stderr.contains("--renderer"), w.stderr)
        XCTAssertTrue(w.stderr.contains("bogus"), "the line should name the bad value: \(w.stderr)")
    }

    // MARK: Config file

    /// (f) `renderer = shm` in the config file's top section; `renderer = nope` is a usage
    /// error naming FILE:LINE and the value.
    func testRendererInTheConfigFile() throws {
        let config = scratch + "/wayloop.conf"
        try "# renderer test\nrenderer = shm\nvideo = \(clip("grid.mp4"))\n".write(toFile: config, atomically: true, encoding: .utf8)
        let w = try start(["--config", config])
        try assertRenderer(w, "shm")
        XCTAssertEqual(w.stop(), 0, w.stderr)

        try "# renderer test\nrenderer = nope\nvideo = \(clip("grid.mp4"))\n".write(toFile: config, atomically: true, encoding: .utf8)
        let bad = try Wayloop(["--config", config], env: try env(), inheritRenderer: false)
        XCTAssertEqual(bad.waitExit(), 2, bad.stderr)
        XCTAssertFalse(bad.crashed, bad.stderr)
        XCTAssertEqual(bad.stderrLines.count, 1, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("\(config):2:"), bad.stderr)
        XCTAssertTrue(bad.stderr.contains("nope"), "the line should name the bad value: \(bad.stderr)")
    }
}
