// Bad input: each case gets exactly one line on stderr naming the file or the missing piece, a
// documented exit status, and no crash, before anything is shown.
import Foundation
import WayLoopTestSupport
import XCTest

final class BadInputTests: CompositorTestCase {
    override class var outputSizes: [String] { ["640x480"] }

    private func env() throws -> [String: String] {
        try compositor().env
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

    /// A video the config file names that does not exist: the lookup's line, and where the file
    /// named it (FILE:LINE), as for the file's other errors. A relative name is looked for in
    /// the config file's directory, not the current one.
    func testAMissingVideoInTheConfigFileSaysWhereItWasNamed() throws {
        let env = try env()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-cfg-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = dir + "/config"
        try "# wallpaper\nmode = fit\n\n[output *]\nvideo = sub/gone.mp4\n".write(toFile: config, atomically: true, encoding: .utf8)
        try expectFailure(["--config", config], env: env, status: 5,
                          mentions: ["'\(dir)/sub/gone.mp4': no such file", "(named at \(config):5)"])
    }

    /// A bare name in the config file is looked for beside the file first: the error line's
    /// list of places starts there (a user met the list without it).
    func testAMissingNameInTheConfigFileListsItsDirectoryFirst() throws {
        var env = try env()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-cfgname-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        env["XDG_DATA_HOME"] = dir + "/data"
        let config = dir + "/config"
        try "video = nothere.mp4\n".write(toFile: config, atomically: true, encoding: .utf8)
        try expectFailure(["--config", config], env: env, status: 5,
                          mentions: ["'nothere.mp4': no such file (looked for 'nothere.mp4' and 'nothere.mp4.*' in \(dir), \(dir)/data/wayloop,",
                                     "(named at \(config):1)"])
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
            // .txt is a playlist file: plain text names no video that can be played.
            ("text.txt", ["text.txt", "a playlist with no video to play", "read as a playlist because its name ends in .txt"]),
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

    /// GNOME's mutter (43, headless) has no wlr-layer-shell either: the same one line and exit 4.
    func testGnomeWithoutLayerShell() throws {
        let mutter = try Compositor(kind: "start-mutter")
        defer { mutter.stop() }
        try expectFailure([Repo.clip("grid.mp4")], env: mutter.env, status: 4, mentions: ["zwlr_layer_shell_v1", "not GNOME"])
    }

    /// Corrupt packets in the middle: playback goes on, with at most one line per distinct error.
    func testCorruptPacketsAreSkipped() throws {
        let env = try env()
        let trace = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-corrupt-\(getpid())").path
        try? FileManager.default.removeItem(atPath: trace)
        defer { try? FileManager.default.removeItem(atPath: trace) }
        let w = try Wayloop(["--trace-frames", trace, Repo.clip("corrupt-middle.mp4")], env: env)
        XCTAssertTrue(w.waitForState(try compositor().outputs[0], state: "playing"), "\(w.lastStatus); \(w.stderr)")
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

    // MARK: A hostile environment

    /// No runtime directory: one line naming it (not libwayland's line and ours), exit 3.
    func testRuntimeDirectoryMissingOrUnset() throws {
        var env = try env()
        env["XDG_RUNTIME_DIR"] = nil
        try expectFailure([Repo.clip("grid.mp4")], env: env, status: 3, mentions: ["XDG_RUNTIME_DIR is not set"])
        env["XDG_RUNTIME_DIR"] = "/nonexistent/runtime"
        try expectFailure([Repo.clip("grid.mp4")], env: env, status: 3, mentions: ["XDG_RUNTIME_DIR='/nonexistent/runtime'"])
    }

    /// A path with a newline and an escape character: still one line, the characters shown escaped.
    func testControlCharactersInAPathStayOnOneLine() throws {
        let odd = Repo.clip("no\nsuch\u{1b}[31m.mp4")
        try expectFailure([odd], env: try env(), status: 5, mentions: ["no\\nsuch\\u{1b}[31m.mp4", "no such file"])
    }

    /// /proc files say size 0 but have text: not "empty", not a video.
    func testAProcFileIsNotAVideo() throws {
        try expectFailure(["/proc/cpuinfo"], env: try env(), status: 5, mentions: ["/proc/cpuinfo", "not a playable video"])
    }

    /// --trace-frames on a FIFO would block the main loop: refused, one line, exit 2.
    func testATraceFIFOIsRefused() throws {
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-fifo-\(getpid())").path
        try? FileManager.default.removeItem(atPath: fifo)
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        defer { try? FileManager.default.removeItem(atPath: fifo) }
        try expectFailure(["--trace-frames", fifo, Repo.clip("grid.mp4")], env: try env(), status: 2, mentions: [fifo, "trace"])
    }

    /// A stderr pipe whose reader has gone costs the logs, never the wallpaper (no SIGPIPE);
    /// with fd 2 closed at start, nothing is written into the lock file.
    func testABrokenOrClosedStderrIsHarmless() throws {
        let env = try env()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-stderr-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let output = try compositor().outputs[0]
        func ctl(_ args: [String]) -> ShellResult { Shell.run([Repo.binary, "ctl"] + args, env: env, timeout: 20) }
        func playing() -> Bool {
            Wait.until(timeout: 20) { ctl(["status"]).stdout.contains("\(output): playing") }
        }
        // 1. stderr into a pipe whose reader exits after one byte; -v logs a line per request.
        let status1 = dir + "/pipe-status"
        let piped = try XCTUnwrap(Child(["/bin/bash", "-c", #"set -o pipefail; "$0" -v "$1" 2>&1 >/dev/null | head -c 1 >/dev/null; echo "${PIPESTATUS[0]}" > "$2""#,
                                          Repo.binary, Repo.clip("grid.mp4"), status1], env: env, stdout: "/dev/null", stderr: dir + "/sh.err"))
        XCTAssertTrue(playing(), "not playing with a piped stderr")
        for _ in 0..<20 { XCTAssertEqual(ctl(["status"]).status, 0) }
        XCTAssertEqual(ctl(["quit"]).status, 0)
        XCTAssertEqual(piped.wait(timeout: 20), 0)
        XCTAssertEqual((try? String(contentsOfFile: status1, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines), "0",
                       "wayloop's exit status with a broken stderr pipe (141 = killed by SIGPIPE)")
        // 2. fd 2 closed: the lock file (opened first) must not become stderr.
        let closed = try XCTUnwrap(Child(["/bin/bash", "-c", #"exec 2>&-; exec "$0" -v "$1""#, Repo.binary, Repo.clip("grid.mp4")],
                                          env: env, stdout: "/dev/null", stderr: dir + "/unused"))
        XCTAssertTrue(playing(), "not playing with fd 2 closed")
        let lock = env["XDG_RUNTIME_DIR"]! + "/wayloop-" + env["WAYLAND_DISPLAY"]! + ".lock"
        XCTAssertEqual(ctl(["status"]).status, 0)
        let text = (try? String(contentsOfFile: lock, encoding: .utf8)) ?? ""
        XCTAssertFalse(text.contains("wayloop:"), "log lines went into the lock file: \(text)")
        XCTAssertEqual(ctl(["quit"]).status, 0)
        XCTAssertEqual(closed.wait(timeout: 20), 0)
    }

    /// A socket that accepts but never answers: SIGTERM while start-up waits on it stops wayloop
    /// at once (exit 0). (Giving up on it and on a garbage socket, one line, exit 3: HostileTests.)
    func testSIGTERMWhileWaitingOnASilentSocket() throws {
        var env = try env()
        let name = "wayloop-test-silent-\(getpid())"
        let fake = try FakeWayland.start(path: env["XDG_RUNTIME_DIR"]! + "/" + name, mode: "silent")
        defer { fake.stop() }
        env["WAYLAND_DISPLAY"] = name
        let w = try Wayloop([Repo.clip("grid.mp4")], env: env)
        XCTAssertTrue(Wait.until(timeout: 5) { fake.connected }, "never connected")
        XCTAssertEqual(w.stop(signal: SIGTERM, timeout: 3), 0, "SIGTERM during start-up: \(w.stderr)")
    }
}
