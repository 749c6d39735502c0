// Bad input: each case gets exactly one line on stderr naming the file or the missing piece, a
// documented exit status, and no crash, before anything is shown.
import Foundation
import XCTest

final class BadInputTests: XCTestCase {
    nonisolated(unsafe) static var shared: SharedCompositor?

    override class func setUp() {
        super.setUp()
        shared = SharedCompositor(outputs: ["640x480"])
    }

    override class func tearDown() {
        shared?.stop()
        super.tearDown()
    }

    private func env() throws -> [String: String] {
        try Self.shared!.get().env
    }

    /// Runs wayloop to its exit and checks status, the single stderr line and its content.
    private func expectFailure(_ args: [String], env: [String: String], status: Int32, mentions: [String],
                               user: String? = nil, binary: String = Repo.binary,
                               file: StaticString = #filePath, line: UInt = #line) throws {
        let w = try Wayloop(args, env: env, user: user, binary: binary)
        let code = w.waitExit(timeout: 20)
        XCTAssertFalse(w.crashed, "crashed on \(args): \(w.stderr)", file: file, line: line)
        XCTAssertEqual(code, status, "exit status for \(args); stderr: \(w.stderr)", file: file, line: line)
        let lines = w.stderrLines
        XCTAssertEqual(lines.count, 1, "expected one line for \(args), got: \(lines)", file: file, line: line)
        for m in mentions {
            XCTAssertTrue(w.stderr.contains(m), "stderr for \(args) should mention '\(m)': \(w.stderr)", file: file, line: line)
        }
    }

    func testBadFilesBeforeConnecting() throws {
        let env = try env()
        let missing = Repo.clip("does-not-exist.mp4")
        try expectFailure([missing], env: env, status: 5, mentions: [missing, "no such file"])
        try expectFailure([Repo.clip("dir.mp4")], env: env, status: 5, mentions: ["dir.mp4", "directory"])
        try expectFailure([Repo.clip("empty.mp4")], env: env, status: 5, mentions: ["empty.mp4", "empty"])
    }

    func testUnreadableFile() throws {
        let env = try env()
        // Root reads any file: run as the unprivileged test user when we are root.
        let user = getuid() == 0 ? "wayloop-test" : nil
        let file = Repo.clip("unreadable.mp4")
        XCTAssertEqual(chmod(file, 0), 0)
        // The test user must reach the file through the path (the checkout may be under /root).
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-unreadable-\(getpid()).mp4").path
        try? FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: file, toPath: copy)
        XCTAssertEqual(chmod(copy, 0), 0)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        // ... and the binary through its path too (a checkout in a 0700 directory hides it).
        let binDir = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-bin-\(getpid())").path
        try? FileManager.default.removeItem(atPath: binDir)
        try FileManager.default.createDirectory(atPath: binDir, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(atPath: binDir) }
        try FileManager.default.copyItem(atPath: Repo.binary, toPath: binDir + "/wayloop")
        try expectFailure([copy], env: env, status: 5, mentions: [copy, "cannot read"], user: user,
                          binary: binDir + "/wayloop")
    }

    func testFilesThatAreNotPlayableVideos() throws {
        let env = try env()
        let cases: [(String, [String])] = [
            ("text.txt", ["text.txt", "not a playable video"]),
            ("text.mp4", ["text.mp4", "not a playable video"]),
            ("truncated.mp4", ["truncated.mp4", "not a playable video"]),
            ("audio-only.m4a", ["audio-only.m4a", "no video stream"]),
            ("unsupported.avi", ["unsupported.avi", "no decoder"]),
            ("all-corrupt.mp4", ["all-corrupt.mp4", "no frame could be decoded"]),
        ]
        for (name, mentions) in cases {
            try expectFailure([Repo.clip(name)], env: env, status: 5, mentions: mentions)
        }
    }

    func testUsageErrors() throws {
        let env = try env()
        try expectFailure(["--frobnicate", Repo.clip("grid.mp4")], env: env, status: 2, mentions: ["--frobnicate", "usage"])
        try expectFailure(["-m", "zoom", Repo.clip("grid.mp4")], env: env, status: 2, mentions: ["-m", "zoom"])
        try expectFailure([], env: env, status: 2, mentions: ["no video"])
    }

    func testNoCompositor() throws {
        var env = try env()
        env["WAYLAND_DISPLAY"] = nil
        env["XDG_RUNTIME_DIR"] = FileManager.default.temporaryDirectory.path
        try expectFailure([Repo.clip("grid.mp4")], env: env, status: 3, mentions: ["WAYLAND_DISPLAY"])
        env["WAYLAND_DISPLAY"] = "wayland-nonexistent"
        try expectFailure([Repo.clip("grid.mp4")], env: env, status: 3, mentions: ["wayland-nonexistent"])
    }

    /// Weston has no wlr-layer-shell: one line naming the protocol and compositors that have it,
    /// exit 4, and no decoder opened (checked at debug level, where opening would be logged).
    func testCompositorWithoutLayerShell() throws {
        let weston = try Compositor(kind: "start-weston")
        defer { weston.stop() }
        try expectFailure([Repo.clip("grid.mp4")], env: weston.env, status: 4, mentions: ["zwlr_layer_shell_v1", "sway"])
        let w = try Wayloop(["-v", Repo.clip("grid.mp4")], env: weston.env)
        XCTAssertEqual(w.waitExit(), 4)
        XCTAssertFalse(w.stderr.contains("opened"), "a decoder was opened: \(w.stderr)")
    }

    /// Corrupt packets in the middle: playback goes on, with at most one line per distinct error.
    func testCorruptPacketsAreSkipped() throws {
        let env = try env()
        let trace = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-corrupt-\(getpid())").path
        try? FileManager.default.removeItem(atPath: trace)
        defer { try? FileManager.default.removeItem(atPath: trace) }
        let w = try Wayloop(["--trace-frames", trace, Repo.clip("corrupt-middle.mp4")], env: env)
        XCTAssertTrue(w.waitForState(try Self.shared!.get().outputs[0], state: "playing"), "\(w.lastStatus); \(w.stderr)")
        // Let it loop twice so that a repeated error would be logged again.
        let looped = Wait.until(timeout: 15) { TraceFile.maxPass(trace) >= 2 }
        XCTAssertTrue(looped, "never reached the third pass: \(w.stderr)")
        XCTAssertTrue(w.isRunning, "stopped on corrupt packets: \(w.stderr)")
        XCTAssertEqual(w.stop(), 0)
        let notices = w.stderrLines.filter { $0.contains("playback goes on") }
        XCTAssertEqual(Set(notices).count, notices.count, "the same error was logged twice: \(notices)")
        XCTAssertGreaterThanOrEqual(notices.count, 1, "the clip should exercise a decode error: \(w.stderr)")
        XCTAssertLessThanOrEqual(notices.count, 3, "\(notices)")
    }
}
