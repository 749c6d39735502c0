// A video per workspace on a compositor that says which workspace each output shows (sway's IPC:
// sway 1.7 here, 1.10 and 1.12 from the chroots; ext-workspace-v1: labwc 0.20, switched by
// scripts/ext-workspace.c as a user's switcher would): `-w NAME VIDEO` switches with the output's
// transition when the workspace changes, never through a black picture; the way back and the
// second visit take the video kept ready (no second open); `ctl set --workspace` adds one, kept
// in the state file across a restart; status and `ctl subscribe` say the workspace.
import Foundation
import WayLoopCore
import WayLoopTestSupport
import XCTest

final class WorkspacePlaybackTests: CompositorTestCase {
    override class var outputSizes: [String] { ["640x360"] }

    /// A one-colour clip (1 s, 30 fps) made once per run.
    private func solid(_ name: String, _ colour: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-ws-\(name)-\(getpid()).mp4").path
        if !FileManager.default.fileExists(atPath: path) {
            let r = Shell.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=\(colour):s=320x180:r=30", "-t", "1",
                               "-pix_fmt", "yuv420p", path], timeout: 60)
            guard r.status == 0 else { throw HarnessError("ffmpeg: \(r.stderr)") }
        }
        return path
    }

    private func statusOf(_ w: Wayloop, _ out: String) -> [String: Any]? {
        (try? w.ctlStatus())?.first { $0["name"] as? String == out }
    }

    /// Through sway's IPC where the compositor is sway, else through ext-workspace-v1.
    func testEachWorkspaceShowsItsVideoWithoutABlackFrame() throws {
        let c = try compositor()
        let viaSway = c.env["SWAYSOCK"] != nil
        if !viaSway { try requireExtWorkspace(c) }
        try workspaces(c, env: c.env) { ws in
            viaSway ? c.swaymsg(["workspace", ws]).status : Shell.run([try ExtWorkspaceTool.path(), "activate", ws], env: c.env, timeout: 20).status
        }
    }

    /// sway 1.12 (and 1.10) offer ext-workspace-v1 too: the same with sway's IPC out of reach
    /// (no SWAYSOCK for wayloop), switched by swaymsg.
    func testOnSwayThroughExtWorkspace() throws {
        let c = try compositor()
        guard c.env["SWAYSOCK"] != nil else { throw XCTSkip("\(c.label) is not sway: its ext-workspace-v1 runs in the test above") }
        try requireExtWorkspace(c)
        var env = c.env
        env["SWAYSOCK"] = nil
        try workspaces(c, env: env) { ws in c.swaymsg(["workspace", ws]).status }
    }

    private func requireExtWorkspace(_ c: Compositor) throws {
        let list = Shell.run([try ExtWorkspaceTool.path(), "list"], env: c.env, timeout: 20)
        guard list.status == 0 else {
            let why = list.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
            throw XCTSkip(c.env["SWAYSOCK"] == nil ? "\(c.label) offers neither ext-workspace-v1 (\(why)) nor sway's IPC: WayLoop cannot know the workspace there"
                : "\(c.label) offers no ext-workspace-v1 (\(why)): its workspaces come from sway's IPC, in the test above")
        }
        if c.env["SWAYSOCK"] == nil {
            XCTAssertTrue(["1", "2", "3"].allSatisfy { list.stdout.contains($0 + "\t") }, "the harness's workspaces 1, 2, 3 are not there: \(list.stdout)")
        }
    }

    private func workspaces(_ c: Compositor, env: [String: String], switchTo: (String) throws -> Int32) throws {
        let out = c.outputs[0]
        let grid = Repo.clip("grid.mp4"), red = try solid("red", "red"), blue = try solid("blue", "blue")
        let tmp = FileManager.default.temporaryDirectory.path + "/wayloop-ws-\(UUID().uuidString.prefix(6))"
        let state = tmp + "-state", trace = tmp + "-trace"
        defer {
            try? FileManager.default.removeItem(atPath: state)
            try? FileManager.default.removeItem(atPath: trace)
        }
        XCTAssertEqual(try switchTo("1"), 0)
        // Workspace 3: a colour, until `ctl set --workspace 3` below gives it a video.
        var w = try Wayloop([grid, "-w", "2", red, "-w", "3", "#3060c0", "--trace-frames", trace, "-v"], env: env, stateHome: state)
        defer { _ = w.stop() }
        XCTAssertTrue(w.waitForState(out, state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        XCTAssertTrue(Wait.until(timeout: 10) { self.statusOf(w, out)?["workspace"] as? String == "1" }, "\(w.lastStatus)")
        XCTAssertEqual(statusOf(w, out)?["video"] as? String, grid)

        // Workspace 2: red, reached through the fade, with no black picture on the way.
        XCTAssertEqual(try switchTo("2"), 0)
        var sawBlack = false, sawRed = false
        let end = Date().addingTimeInterval(8)
        while Date() < end && !sawRed {
            guard let img = try? c.shot(out) else { continue }
            let p = img.pixel(img.width / 2 + 37, img.height / 2 + 23)
            if p.close(to: RGB8(0, 0, 0), tolerance: 20) { sawBlack = true }
            if p.close(to: RGB8(254, 0, 0), tolerance: 40) { sawRed = true }
        }
        XCTAssertTrue(sawRed, "workspace 2 never showed its red video: \(w.lastStatus); \(w.stderr)")
        XCTAssertFalse(sawBlack, "a black picture between the two videos")
        XCTAssertTrue(Wait.until(timeout: 10) {
            let s = self.statusOf(w, out)
            return s?["video"] as? String == red && s?["workspace"] as? String == "2" && s?["state"] as? String == "playing"
        }, "\(w.lastStatus)")
        // Frame by frame (the trace of every commit, with its video and its weight in the fade).
        XCTAssertTrue(Wait.until(timeout: 10) { self.settled(trace, out, on: red) }, "the fade to red never ended in the trace")
        checkSwitch(TraceFile.records(trace).filter { $0.output == out }, from: grid, to: red)

        // Back, and there again: the red video was kept ready (opened once).
        XCTAssertEqual(try switchTo("1"), 0)
        XCTAssertTrue(Wait.until(timeout: 10) { self.statusOf(w, out)?["video"] as? String == grid }, "\(w.lastStatus)")
        XCTAssertEqual(try switchTo("2"), 0)
        XCTAssertTrue(Wait.until(timeout: 10) { self.statusOf(w, out)?["video"] as? String == red }, "\(w.lastStatus)")
        XCTAssertEqual(w.stderr.components(separatedBy: "playing '\(red)'").count - 1, 1, "the red video was opened again: \(w.stderr)")

        // Workspace 3: the colour, at once, and no video drawn under it (nothing committed).
        XCTAssertEqual(try switchTo("3"), 0)
        XCTAssertTrue(Wait.until(timeout: 10) {
            guard let img = try? c.shot(out) else { return false }
            return img.pixel(img.width / 2 + 37, img.height / 2 + 23).close(to: RGB8(0x30, 0x60, 0xc0), tolerance: 12)
        }, "workspace 3 never showed its colour: \(w.lastStatus); \(w.stderr)")
        let colourStatus = statusOf(w, out)
        XCTAssertTrue(colourStatus?["video"] is NSNull, "\(w.lastStatus)")
        XCTAssertEqual(colourStatus?["showing"] as? String, "the colour 3060c0", "\(w.lastStatus)")
        XCTAssertEqual(colourStatus?["state"] as? String, "playing", "\(w.lastStatus)")
        let committed = TraceFile.records(trace).count
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(TraceFile.records(trace).count, committed, "a video was drawn under the colour")
        // Back to the video the colour replaced: it was kept ready.
        XCTAssertEqual(try switchTo("1"), 0)
        XCTAssertTrue(Wait.until(timeout: 10) { self.statusOf(w, out)?["video"] as? String == grid }, "\(w.lastStatus)")
        XCTAssertTrue(Wait.until(timeout: 10) { TraceFile.records(trace).count > committed }, "the video did not come back")
        XCTAssertEqual(w.stderr.components(separatedBy: "playing '\(grid)'").count - 1, 1, "the grid video was opened again: \(w.stderr)")

        // ctl set --workspace: for a workspace not shown, at once, with what happens when.
        let set = Shell.run([Repo.binary, "ctl", "set", "*", "--workspace", "3", blue], env: w.env, timeout: 20)
        XCTAssertEqual(set.status, 0, set.stderr)
        XCTAssertTrue(set.stdout.contains("workspace '3'"), set.stdout)
        let bad = Shell.run([Repo.binary, "ctl", "set", "*", "--workspace", "", blue], env: w.env, timeout: 20)
        XCTAssertEqual(bad.status, 2, bad.stderr)
        XCTAssertEqual(bad.stderr.split(separator: "\n").count, 1, bad.stderr)
        XCTAssertEqual(try switchTo("3"), 0)
        XCTAssertTrue(Wait.until(timeout: 10) { self.statusOf(w, out)?["video"] as? String == blue }, "\(w.lastStatus)")

        // Kept across a restart (the state file), with the command line's own.
        XCTAssertEqual(try switchTo("1"), 0)
        XCTAssertEqual(w.stop(), 0)
        w = try Wayloop([grid, "-w", "2", red, "-w", "3", "#3060c0"], env: env, stateHome: state)
        XCTAssertTrue(w.waitForState(out, state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        XCTAssertEqual(try switchTo("3"), 0)
        XCTAssertTrue(Wait.until(timeout: 10) { self.statusOf(w, out)?["video"] as? String == blue }, "not restored: \(w.lastStatus); \(w.stderr)")
        XCTAssertEqual(try switchTo("1"), 0)
    }

    /// The trace has a commit of `video` alone on screen (the fade to it is over).
    private func settled(_ trace: String, _ out: String, on video: String) -> Bool {
        let tag = FrameTraceLine.videoTag(video)
        return TraceFile.records(trace).contains { $0.output == out && $0.video == tag && $0.weight == 1 }
    }

    /// The switch from `a` to `b` frame by frame: `a`'s frames alone and in order, then commits of
    /// `b` mixed over `a` with a weight that only rises (the fade: at least its first step), then
    /// `b`'s frames alone and in order; nothing else is ever committed (a picture of neither
    /// would be a blank or a stale frame between them).
    private func checkSwitch(_ records: [TraceFile.Record], from a: String, to b: String, file: StaticString = #filePath, line: UInt = #line) {
        let ta = FrameTraceLine.videoTag(a), tb = FrameTraceLine.videoTag(b)
        XCTAssertTrue(records.allSatisfy { $0.video == ta || $0.video == tb }, "a commit of neither video: \(records.map { $0.video ?? "-" })",
                      file: file, line: line)
        guard let first = records.firstIndex(where: { $0.video == tb }) else { return XCTFail("no commit of \(b)", file: file, line: line) }
        let before = records[..<first], after = records[first...]
        XCTAssertFalse(before.isEmpty, "no commit of \(a) before the switch", file: file, line: line)
        XCTAssertTrue(before.allSatisfy { $0.video == ta && $0.weight == 1 }, "\(a) mixed before the switch", file: file, line: line)
        XCTAssertTrue(after.allSatisfy { $0.video == tb }, "\(a) committed again after the switch", file: file, line: line)
        let mixed = after.prefix { $0.weight < 1 }
        XCTAssertFalse(mixed.isEmpty, "no fade: the first commit of \(b) was not mixed", file: file, line: line)
        XCTAssertEqual(mixed.first?.weight, 0, "the fade did not start from the old picture", file: file, line: line)
        for (x, y) in zip(mixed, mixed.dropFirst()) {
            XCTAssertLessThan(x.weight, y.weight, "the fade's weight fell or stood still", file: file, line: line)
        }
        let alone = after.dropFirst(mixed.count)
        XCTAssertFalse(alone.isEmpty, "the fade never ended", file: file, line: line)
        XCTAssertTrue(alone.allSatisfy { $0.weight == 1 }, "\(b) mixed again after its fade", file: file, line: line)
        // In order: never an earlier frame of either video (a redraw may commit the same frame
        // again: a fade step redraws the mix, its end draws the new picture alone).
        func order(_ r: TraceFile.Record) -> Int { r.pass * 1_000_000 + r.index }
        for (x, y) in zip(before, before.dropFirst()) { XCTAssertLessThanOrEqual(order(x), order(y), "\(a) out of order", file: file, line: line) }
        for (x, y) in zip(after, after.dropFirst()) { XCTAssertLessThanOrEqual(order(x), order(y), "\(b) out of order", file: file, line: line) }
        print("workspace switch: \(before.count) commits of the old video, \(mixed.count) fade steps, then \(alone.count) of the new one")
    }
}

/// scripts/ext-workspace.c, built once per test process with the client code wayland-scanner
/// makes from protocols/ext-workspace-v1.xml (gcc and libwayland-dev: scripts/setup).
enum ExtWorkspaceTool {
    nonisolated(unsafe) private static var built: String?

    static func path() throws -> String {
        if let b = built { return b }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-ext-workspace-\(getpid())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let xml = Repo.path("protocols/ext-workspace-v1.xml")
        for (kind, out) in [("client-header", "ext-workspace-v1-client-protocol.h"), ("private-code", "ext-workspace-v1-protocol.c")] {
            let r = Shell.run(["wayland-scanner", kind, xml, dir + "/" + out], timeout: 30)
            guard r.status == 0 else { throw HarnessError("wayland-scanner \(kind): \(r.stderr)") }
        }
        let flags = Shell.run(["pkg-config", "--cflags", "--libs", "wayland-client"], timeout: 10).stdout
            .split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        let r = Shell.run(["gcc", "-O1", "-o", dir + "/ext-workspace", "-I", dir, Repo.path("scripts/ext-workspace.c"),
                           dir + "/ext-workspace-v1-protocol.c"] + flags, timeout: 120)
        guard r.status == 0 else { throw HarnessError("building scripts/ext-workspace.c: \(r.stderr)") }
        built = dir + "/ext-workspace"
        return dir + "/ext-workspace"
    }
}
