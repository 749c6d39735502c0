// The last choice survives a restart: `ctl set` and a playlist's place come
// back at the next start on the same command line and config (screenshots); a changed base,
// --no-restore and `ctl forget` start from the base; bad state files are set aside with one
// notice; a read-only or full state directory gets one notice while playback goes on. On a
// real headless sway, one compositor for the class (each test its own state directory).
import Foundation
import WayLoopTestSupport
import XCTest

final class StateTests: CompositorTestCase {
    nonisolated(unsafe) static var dir = ""
    static let colours = [("a-red", "0xE01010"), ("b-green", "0x10C020"), ("c-blue", "0x1020E0")]

    override class var outputSizes: [String] { ["640x360"] }

    override class func setUpFixtures(_: Compositor) {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-state-tests-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir + "/clips", withIntermediateDirectories: true)
        SolidClip.makeAll(colours, size: "320x180", in: dir + "/clips")
    }

    override class func tearDownFixtures() {
        try? FileManager.default.removeItem(atPath: dir)
    }

    private func clip(_ name: String) -> String { Self.dir + "/clips/\(name).mp4" }

    /// A fresh directory for this test's state (XDG_STATE_HOME).
    private func stateHome(_ tag: String = #function) -> String {
        let d = Self.dir + "/state-" + tag.filter { $0.isLetter || $0.isNumber }
        try? FileManager.default.removeItem(atPath: d)
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    private func stateFile(_ home: String) -> String { home + "/wayloop/state" }
    private func stateText(_ home: String) -> String { (try? String(contentsOfFile: stateFile(home), encoding: .utf8)) ?? "" }

    /// Waits until the output shows `video`, then checks the screen's colour.
    private func assertShows(_ w: Wayloop, _ sway: Compositor, _ name: String, _ colour: RGB8, line: UInt = #line) throws {
        let output = sway.outputs[0]
        let ok = w.waitForStatus { outs in
            guard let o = outs.first(where: { $0["name"] as? String == output }) else { return false }
            return o["video"] as? String == clip(name) && Ctl.matches(o, state: "playing", reason: nil, shown: true)
        }
        XCTAssertTrue(ok, "never showed \(name): \(w.lastStatus); \(w.stderr)", line: line)
        // The picture, not just the status: the compositor may show the frame a moment later.
        var seen = RGB8(0, 0, 0)
        let shown = Wait.until(timeout: 10) {
            seen = (try? sway.shot(output).pixel(320, 180)) ?? seen
            return seen.close(to: colour, tolerance: 40)
        }
        XCTAssertTrue(shown, "\(name): the screen shows \(seen), not \(colour)", line: line)
    }

    private func waitForStateFile(_ home: String, containing text: String, line: UInt = #line) {
        XCTAssertTrue(Wait.until(timeout: 10) { self.stateText(home).contains(text) },
                      "the state file never said \(text): '\(stateText(home))'", line: line)
    }

    private func ctl(_ sway: Compositor, _ args: [String]) -> ShellResult {
        Shell.run([Repo.binary, "ctl"] + args, env: sway.env, timeout: 30)
    }

    private let red = RGB8(0xE0, 0x10, 0x10), green = RGB8(0x10, 0xC0, 0x20), blue = RGB8(0x10, 0x20, 0xE0)

    func testARestartRestoresTheVideoAndThePlaylistsPlace() throws {
        let sway = try compositor()
        let home = stateHome()
        // A video set at run time ...
        var w = try Wayloop(["-i", clip("a-red")], env: sway.env, stateHome: home)
        try assertShows(w, sway, "a-red", red)
        XCTAssertFalse(FileManager.default.fileExists(atPath: stateFile(home)), "nothing to remember, yet a state file")
        let set = ctl(sway, ["set", sway.outputs[0], clip("c-blue")])
        XCTAssertEqual(set.status, 0, set.stderr)
        try assertShows(w, sway, "c-blue", blue)
        waitForStateFile(home, containing: clip("c-blue"))
        XCTAssertEqual(w.stop(), 0, w.stderr)
        // ... is back after a restart on the same command line, from its first frame.
        w = try Wayloop(["-i", clip("a-red")], env: sway.env, stateHome: home)
        try assertShows(w, sway, "c-blue", blue)
        XCTAssertTrue(w.stderr.contains("restoring 1 choice(s) of wayloop ctl set"), w.stderr)
        XCTAssertEqual(w.stop(), 0, w.stderr)
        // The file says it in the documented format, with the output by identity.
        let text = stateText(home)
        XCTAssertTrue(text.hasPrefix("{\n  \"wayloop-state\": 1,"), text)

        // A playlist's place: `ctl next` moves it on, and a restart goes on from there.
        let list = Self.dir + "/restore.m3u"
        try "\(clip("a-red"))\n\(clip("b-green"))\n\(clip("c-blue"))\n".write(toFile: list, atomically: true, encoding: .utf8)
        let home2 = stateHome("playlist")
        w = try Wayloop(["-i", list, "--interval", "1h", "--transition", "none"], env: sway.env, stateHome: home2)
        try assertShows(w, sway, "a-red", red)
        XCTAssertEqual(ctl(sway, ["next"]).status, 0)
        try assertShows(w, sway, "b-green", green)
        waitForStateFile(home2, containing: "\"current\":\"\(clip("b-green"))\"")
        XCTAssertEqual(w.stop(), 0, w.stderr)
        w = try Wayloop(["-i", list, "--interval", "1h", "--transition", "none"], env: sway.env, stateHome: home2)
        try assertShows(w, sway, "b-green", green)
        XCTAssertTrue(w.stderr.contains("going on from '\(clip("b-green"))'"), w.stderr)
        XCTAssertEqual(w.stop(), 0, w.stderr)
    }

    /// --no-restore starts from the base and keeps the file; `ctl forget` drops the choice and
    /// the file; a changed command line drops the state with one notice.
    func testNoRestoreForgetAndAChangedBaseStartFromTheBase() throws {
        let sway = try compositor()
        let home = stateHome()
        var w = try Wayloop(["-i", clip("a-red")], env: sway.env, stateHome: home)
        try assertShows(w, sway, "a-red", red)
        XCTAssertEqual(ctl(sway, ["set", "*", clip("b-green")]).status, 0)
        try assertShows(w, sway, "b-green", green)
        waitForStateFile(home, containing: clip("b-green"))
        XCTAssertEqual(w.stop(), 0, w.stderr)

        w = try Wayloop(["-i", clip("a-red"), "--no-restore"], env: sway.env, stateHome: home)
        try assertShows(w, sway, "a-red", red)
        XCTAssertEqual(w.stop(), 0, w.stderr)
        XCTAssertTrue(stateText(home).contains(clip("b-green")), "--no-restore lost the state: '\(stateText(home))'")

        w = try Wayloop(["-i", clip("a-red")], env: sway.env, stateHome: home)
        try assertShows(w, sway, "b-green", green)
        let forget = ctl(sway, ["forget"])
        XCTAssertEqual(forget.status, 0, forget.stderr)
        XCTAssertTrue(forget.stdout.contains("back to the command line and config file"), forget.stdout)
        try assertShows(w, sway, "a-red", red)
        XCTAssertTrue(Wait.until(timeout: 10) { !FileManager.default.fileExists(atPath: self.stateFile(home)) }, stateText(home))
        // Forgetting an output that is not there, in ctl's words.
        let none = ctl(sway, ["forget", "NOPE-9"])
        XCTAssertEqual(none.status, 1, none.stderr)
        XCTAssertTrue(none.stderr.contains("no output matches 'NOPE-9'") && none.stderr.split(separator: "\n").count == 1, none.stderr)
        // One output's choice forgotten by name; another output's stays.
        XCTAssertEqual(ctl(sway, ["set", sway.outputs[0], clip("c-blue")]).status, 0)
        try assertShows(w, sway, "c-blue", blue)
        XCTAssertEqual(ctl(sway, ["forget", sway.outputs[0]]).status, 0)
        try assertShows(w, sway, "a-red", red)
        XCTAssertEqual(ctl(sway, ["set", "*", clip("b-green")]).status, 0)
        waitForStateFile(home, containing: clip("b-green"))
        XCTAssertEqual(w.stop(), 0, w.stderr)

        // Another command line: the user meant it.
        w = try Wayloop(["-i", clip("a-red"), "--dim", "0.1"], env: sway.env, stateHome: home)
        try assertShows(w, sway, "a-red", RGB8(0xCA, 0x0E, 0x0E))
        let notes = w.stderrLines.filter { $0.contains("state:") }
        XCTAssertEqual(notes.count, 1, w.stderr)
        XCTAssertTrue(notes.first?.contains("changed since") == true, w.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: stateFile(home)))
        XCTAssertEqual(w.stop(), 0, w.stderr)
    }

    /// Corrupt, truncated, foreign-version, huge, FIFO and directory state files: one notice
    /// each, set aside as `.bad`, the base plays. A saved video that is gone is skipped.
    func testBadStateFilesAreSetAsideAndNeverFatal() throws {
        let sway = try compositor()
        let home = stateHome()
        // A good file first, to cut the bad ones from.
        var w = try Wayloop(["-i", clip("a-red")], env: sway.env, stateHome: home)
        try assertShows(w, sway, "a-red", red)
        let gone = Self.dir + "/gone.mp4"
        try FileManager.default.copyItem(atPath: clip("c-blue"), toPath: gone)
        XCTAssertEqual(ctl(sway, ["set", "*", gone]).status, 0)
        waitForStateFile(home, containing: gone)
        XCTAssertEqual(w.stop(), 0, w.stderr)
        let good = stateText(home)
        let file = stateFile(home)

        let kinds: [(String, () throws -> Void, String)] = [
            ("corrupt", { try "{\"wayloop-state\": 1, garbage".write(toFile: file, atomically: false, encoding: .utf8) }, "is not a state file"),
            ("truncated", { try String(good.prefix(good.count * 2 / 3)).write(toFile: file, atomically: false, encoding: .utf8) }, "is not a state file"),
            ("foreign version", { try good.replacingOccurrences(of: "\"wayloop-state\": 1", with: "\"wayloop-state\": 7")
                .write(toFile: file, atomically: false, encoding: .utf8) }, "of another version (7"),
            ("huge", { try String(repeating: " ", count: 300 * 1024).appending(good).write(toFile: file, atomically: false, encoding: .utf8) },
             "larger than 256 KiB"),
            ("fifo", { XCTAssertEqual(mkfifo(file, 0o600), 0) }, "not a regular file"),
            ("directory", { try FileManager.default.createDirectory(atPath: file, withIntermediateDirectories: true) }, "is a directory"),
        ]
        for (kind, make, why) in kinds {
            try? FileManager.default.removeItem(atPath: file)
            try? FileManager.default.removeItem(atPath: file + ".bad")
            try make()
            w = try Wayloop(["-i", clip("a-red")], env: sway.env, stateHome: home)
            try assertShows(w, sway, "a-red", red)
            let notes = w.stderrLines.filter { $0.contains("state:") }
            XCTAssertEqual(notes.count, 1, "\(kind): \(w.stderr)")
            XCTAssertTrue(notes.first?.contains(why) == true && notes.first?.contains("set aside as '\(file).bad'") == true, "\(kind): \(w.stderr)")
            XCTAssertTrue(FileManager.default.fileExists(atPath: file + ".bad"), kind)
            XCTAssertFalse(FileManager.default.fileExists(atPath: file), kind)
            XCTAssertEqual(w.stop(), 0, "\(kind): \(w.stderr)")
            XCTAssertFalse(w.crashed, kind)
        }

        // A saved video that no longer exists: skipped with one line, as any missing video is.
        try good.write(toFile: file, atomically: false, encoding: .utf8)
        try FileManager.default.removeItem(atPath: gone)
        w = try Wayloop(["-i", clip("a-red")], env: sway.env, stateHome: home)
        try assertShows(w, sway, "a-red", red)
        let notes = w.stderrLines.filter { $0.contains("state:") }
        XCTAssertEqual(notes.count, 1, w.stderr)
        XCTAssertTrue(notes.first?.contains(gone) == true && notes.first?.contains("is not restored") == true, w.stderr)
        XCTAssertEqual(w.stop(), 0, w.stderr)
    }

    /// A read-only state directory, and a full filesystem (a small tmpfs): one notice, playback
    /// goes on, the old state stays whole, no temporary file is left; the next write that works
    /// says so.
    func testAStateDirectoryThatCannotBeWrittenGetsOneNotice() throws {
        let sway = try compositor()
        guard getuid() == 0 else { throw HarnessError("this test mounts a tmpfs: run it as root (CI does)") }
        // Read-only.
        let ro = stateHome("readonly")
        XCTAssertEqual(Shell.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", ro], timeout: 10).status, 0)
        defer { Shell.run(["umount", ro], timeout: 10) }
        var w = try Wayloop(["-i", clip("a-red")], env: sway.env, stateHome: ro)
        try assertShows(w, sway, "a-red", red)
        for c in ["c-blue", "b-green"] {
            XCTAssertEqual(ctl(sway, ["set", "*", clip(c)]).status, 0)
            try assertShows(w, sway, c, c == "c-blue" ? blue : green)
            XCTAssertTrue(w.waitFor("cannot save the state"), w.stderr)
        }
        usleep(1_500_000)
        XCTAssertEqual(w.stderrLines.filter { $0.contains("cannot save the state") }.count, 1, w.stderr)
        XCTAssertTrue(w.stderr.contains("Read-only file system"), w.stderr)
        XCTAssertEqual(w.stop(), 0, w.stderr)

        // Full: a good state first, then the filesystem filled.
        let full = stateHome("full")
        XCTAssertEqual(Shell.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", full], timeout: 10).status, 0)
        defer { Shell.run(["umount", full], timeout: 10) }
        w = try Wayloop(["-i", clip("a-red")], env: sway.env, stateHome: full)
        try assertShows(w, sway, "a-red", red)
        XCTAssertEqual(ctl(sway, ["set", "*", clip("c-blue")]).status, 0)
        waitForStateFile(full, containing: clip("c-blue"))
        let filler = full + "/filler"
        _ = Shell.run(["dd", "if=/dev/zero", "of=\(filler)", "bs=4k", "count=100"], timeout: 10)
        XCTAssertEqual(ctl(sway, ["set", "*", clip("b-green")]).status, 0)
        try assertShows(w, sway, "b-green", green)
        XCTAssertTrue(w.waitFor("No space left on device"), w.stderr)
        XCTAssertTrue(stateText(full).contains(clip("c-blue")), "the old state was not kept whole: '\(stateText(full))'")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: full + "/wayloop")) ?? []
        XCTAssertEqual(left.filter { $0.contains(".tmp") }, [], "a temporary file was left")
        // Room again: the next change is saved, and that is said.
        try FileManager.default.removeItem(atPath: filler)
        XCTAssertEqual(ctl(sway, ["set", "*", clip("a-red")]).status, 0)
        XCTAssertTrue(w.waitFor("is saved to"), w.stderr)
        waitForStateFile(full, containing: clip("a-red"))
        XCTAssertEqual(w.stop(), 0, w.stderr)
        XCTAssertFalse(w.crashed)
    }
}
