// Playlists: a directory or a playlist file plays its videos in turn, on an interval
// or after --loops passes, in order or shuffled without repeats; `ctl next|prev`; status and
// subscribe events say where it is; a failing entry is skipped with one line; a watched
// directory's changes apply at the next switch; the next video is ready before its switch.
// The switches are observed through `ctl subscribe` (the event of each switch) and the frame
// trace (which frame was committed when), on a real headless sway.
import Foundation
import WayLoopTestSupport
import XCTest

/// `wayloop ctl subscribe` in the background: its events, each stamped when the test read it.
final class Subscription {
    private let child: Child
    private let file: String
    private var seen = 0
    private(set) var events: [(at: Date, json: [String: Any])] = []

    init(env: [String: String], name: String? = nil) throws {
        file = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-sub-\(UUID().uuidString)").path
        let argv = [Repo.binary, "ctl"] + (name.map { ["--name", $0] } ?? []) + ["subscribe"]
        guard let c = Child(argv, env: env, stdout: file, stderr: "/dev/null") else { throw HarnessError("cannot start \(argv)") }
        child = c
    }

    deinit {
        kill(child.pid, SIGTERM)
        _ = child.wait(timeout: 5)
        try? FileManager.default.removeItem(atPath: file)
    }

    /// Reads what arrived since the last poll.
    func poll() {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        guard lines.count > seen else { return }
        let now = Date()
        for line in lines[seen...] {
            if let d = line.data(using: .utf8), let j = (try? JSONSerialization.jsonObject(with: d)) as? [String: Any] {
                events.append((now, j))
            }
        }
        seen = lines.count
    }

    /// The videos the output switched to, in order (consecutive repeats of one video merged),
    /// each with when its first event was read.
    func switches(_ output: String) -> [(at: Date, video: String)] {
        poll()
        var out: [(at: Date, video: String)] = []
        for e in events where e.json["output"] as? String == output && e.json["state"] as? String == "playing" {
            guard let v = e.json["video"] as? String else { continue }
            if out.last?.video != v { out.append((e.at, v)) }
        }
        return out
    }

    /// Polls until `output` has switched `count` times (the first video counts as one), or `timeout`.
    @discardableResult
    func waitForSwitches(_ output: String, count: Int, timeout: Double) -> [(at: Date, video: String)] {
        _ = Wait.until(timeout: timeout) { self.switches(output).count >= count }
        return switches(output)
    }
}

final class PlaylistTests: CompositorTestCase {
    nonisolated(unsafe) static var dir = ""
    static let colours = [("a-red", "0xE01010"), ("b-green", "0x10C020"), ("c-blue", "0x1020E0"), ("d-yellow", "0xE0E010")]

    override class var outputSizes: [String] { ["640x360"] }

    override class func setUpFixtures(_: Compositor) {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-playlist-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir + "/clips", withIntermediateDirectories: true)
        chmod(dir, 0o755)
        SolidClip.makeAll(colours, size: "320x180", in: dir + "/clips")
    }

    override class func tearDownFixtures() {
        try? FileManager.default.removeItem(atPath: dir)
    }

    private func clip(_ name: String) -> String { Self.dir + "/clips/\(name).mp4" }

    /// A fresh directory holding copies of these clips (hard links: same bytes, own names).
    private func folder(_ names: [String], _ tag: String = #function) -> String {
        let d = Self.dir + "/" + tag.filter { $0.isLetter || $0.isNumber }
        try? FileManager.default.removeItem(atPath: d)
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        for n in names { XCTAssertNoThrow(try FileManager.default.linkItem(atPath: clip(n), toPath: d + "/\(n).mp4")) }
        return d
    }

    private func name(_ path: String) -> String {
        String(path.split(separator: "/").last ?? "").replacingOccurrences(of: ".mp4", with: "")
    }

    func testADirectoryPlaysInNameOrderOnItsInterval() throws {
        let sway = try compositor()
        let d = folder(["c-blue", "a-red", "b-green"])
        let w = try Wayloop(["-v", "-i", d, "--interval", "1s", "--transition", "none"], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        let sub = try Subscription(env: sway.env)
        let seq = sub.waitForSwitches(sway.outputs[0], count: 5, timeout: 30)
        XCTAssertGreaterThanOrEqual(seq.count, 5, "\(seq.map(\.video)); \(w.stderr)")
        let names = seq.map { name($0.video) }
        // Subscribing sends the current state first: the order continues from there.
        let order = ["a-red", "b-green", "c-blue"]
        guard let first = order.firstIndex(of: names.first ?? "") else { return XCTFail("\(names)") }
        for (i, n) in names.enumerated() { XCTAssertEqual(n, order[(first + i) % 3], "switch \(i) of \(names)") }
        // Each switch after the first one seen: one interval later, never early (the interval
        // runs from the video's first presentation, so how late is the compositor's and the
        // machine's as much as WayLoop's: printed, and bounded for a hang only).
        let gaps = stride(from: 2, to: seq.count, by: 1).map { seq[$0].at.timeIntervalSince(seq[$0 - 1].at) }
        print("PlaylistTests: switches \(gaps.map { String(format: "%.2f", $0) }) s apart (interval 1 s)")
        for (i, gap) in zip(2..., gaps) {
            XCTAssertGreaterThan(gap, 0.8, "switch \(i) came after \(gap) s, before the 1 s interval")
            XCTAssertLessThan(gap, 10, "switch \(i) came after \(gap) s, ten times the 1 s interval")
        }
        // Status says where it is and when the next switch comes.
        let out = try w.ctlStatus()[0]
        let p = out["playlist"] as? [String: Any]
        XCTAssertEqual(p?["source"] as? String, d, "\(out)")
        XCTAssertEqual(p?["count"] as? Int, 3, "\(out)")
        XCTAssertNotNil(p?["position"] as? Int, "\(out)")
        let next = p?["next_switch_in"] as? Double ?? -1
        XCTAssertTrue((0...1.0).contains(next), "next_switch_in \(next): \(out)")
        let line = Shell.run([Repo.binary, "ctl", "status"], env: sway.env, timeout: 10).stdout
        XCTAssertTrue(line.contains("playlist ") && line.contains("/3, next in "), line)
        // The video after the current one is opened ahead, before its switch.
        XCTAssertFalse(w.stderr.contains("error"), w.stderr)
    }

    /// Without an interval each video plays --loops passes; the switch is on the frame boundary
    /// after the last pass (no frame of a further pass is ever committed).
    func testLoopsCountsPassesAndSwitchesOnTheFrameBoundary() throws {
        let sway = try compositor()
        let list = Self.dir + "/loops.m3u"
        try "#EXTM3U\n# two videos, two passes each\nclips/a-red.mp4\n\n#EXTINF:1,blue\n\(clip("c-blue"))\r\n"
            .write(toFile: list, atomically: true, encoding: .utf8)
        let trace = Self.dir + "/loops.trace"
        let w = try Wayloop(["-v", list, "--loops", "2", "--transition", "none", "--trace-frames", trace], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        let sub = try Subscription(env: sway.env)
        let seq = sub.waitForSwitches(sway.outputs[0], count: 4, timeout: 30)
        XCTAssertEqual(seq.map { name($0.video) }.prefix(4), ["a-red", "c-blue", "a-red", "c-blue"], w.stderr)
        // The trace: pass 0 and pass 1 of red, then blue from its first frame (0.0), never a
        // frame of red's third pass in between. (When red comes round again it goes on from
        // where it stopped, kept ready by --keep-recent: its pass count goes on too.)
        let records = TraceFile.records(trace).filter { $0.output == sway.outputs[0] }
        guard let start = records.firstIndex(where: { $0.pass == 1 && $0.index == 0 }) else { return XCTFail("no second pass") }
        guard let next = records[start...].firstIndex(where: { $0.pass == 0 && $0.index == 0 }) else { return XCTFail("no switch") }
        let first = records[..<next].map { "\($0.pass).\($0.index)" }
        XCTAssertFalse(records[..<next].contains { $0.pass >= 2 }, "a third pass was shown: \(first)")
        let before = records[next - 1]
        XCTAssertEqual(before.pass, 1, "the frame before the switch")
        XCTAssertGreaterThanOrEqual(before.index, 27, "the switch came before the end of the pass (frame \(before.index))")
        // On time: the new video's first frame follows the last one by about one frame (33 ms),
        // once the compositor has released that last one (its frame callback: how long that
        // takes is the compositor's and the machine's, so WayLoop's part is what is bounded).
        let gapMs = Double(records[next].commit - before.commit) / 1e6
        // Time wayloop's threads waited for a CPU in between is the machine's load, not WayLoop's.
        let starvedMs = Double(Pacing.starved(before, records[next])) / 1e6
        let ownMs = Double(records[next].commit - max(before.commit, before.presented)) / 1e6 - starvedMs
        print("PlaylistTests: the new video's first frame came \(gapMs) ms after the old one's last, \(ownMs) ms after sway released it "
              + "(less \(starvedMs) ms waited for a CPU)")
        XCTAssertLessThan(ownMs, 200, "the new video's first frame came \(ownMs) ms after sway released the old one's last")
        XCTAssertTrue(w.stderr.contains("'\(list)' line") == false, w.stderr)
    }

    func testShuffleNeverRepeatsBeforeAllHavePlayed() throws {
        let sway = try compositor()
        let d = folder(["a-red", "b-green", "c-blue", "d-yellow"])
        let w = try Wayloop(["-v", "-i", d, "--shuffle", "--interval", "400ms", "--transition", "none"], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        let sub = try Subscription(env: sway.env)
        let seq = sub.waitForSwitches(sway.outputs[0], count: 13, timeout: 40).map { name($0.video) }
        XCTAssertGreaterThanOrEqual(seq.count, 13, "\(seq); \(w.stderr)")
        // Subscribed after start: the first round may be under way. Find where rounds begin:
        // some offset 0...3 from which every four in a row are all four videos.
        let rounds = (0..<4).filter { off in
            stride(from: off, to: seq.count - 3, by: 4).allSatisfy { Set(seq[$0..<($0 + 4)]).count == 4 }
        }
        XCTAssertFalse(rounds.isEmpty, "no split of \(seq) into rounds without repeats")
        for i in stride(from: 1, to: seq.count, by: 1) { XCTAssertNotEqual(seq[i], seq[i - 1], "the same video twice in a row at \(i): \(seq)") }
        XCTAssertTrue(w.stderr.contains("shuffled"), w.stderr)
    }

    func testNextAndPrevAnswerWithTheVideoOnScreen() throws {
        let sway = try compositor()
        let d = folder(["a-red", "b-green", "c-blue"])
        let w = try Wayloop(["-v", "-i", d, "--interval", "1h", "--transition", "none"], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        func centre() -> RGB8? { (try? sway.shot(sway.outputs[0])).map { $0.pixel($0.width / 2, $0.height / 2) } }
        XCTAssertTrue(Wait.until(timeout: 5) { centre()?.close(to: RGB8(0xE0, 0x10, 0x10), tolerance: 40) == true }, "red first")
        let next = Shell.run([Repo.binary, "ctl", "next"], env: sway.env, timeout: 20)
        XCTAssertEqual(next.status, 0, next.stderr)
        XCTAssertTrue(next.stdout.contains("b-green.mp4") && next.stdout.contains("(2/3)"), next.stdout)
        XCTAssertTrue(Wait.until(timeout: 5) { centre()?.close(to: RGB8(0x10, 0xC0, 0x20), tolerance: 40) == true }, "green after next")
        let named = Shell.run([Repo.binary, "ctl", "next", sway.outputs[0]], env: sway.env, timeout: 20)
        XCTAssertTrue(named.status == 0 && named.stdout.contains("c-blue.mp4"), named.stdout + named.stderr)
        let prev = Shell.run([Repo.binary, "ctl", "prev"], env: sway.env, timeout: 20)
        XCTAssertTrue(prev.status == 0 && prev.stdout.contains("b-green.mp4") && prev.stdout.contains("(2/3)"), prev.stdout + prev.stderr)
        XCTAssertTrue(Wait.until(timeout: 5) { centre()?.close(to: RGB8(0x10, 0xC0, 0x20), tolerance: 40) == true }, "green after prev")
        // The interval restarts at a manual switch: the next one is an hour away again.
        let p = (try w.ctlStatus()[0])["playlist"] as? [String: Any]
        XCTAssertGreaterThan(p?["next_switch_in"] as? Double ?? 0, 3500, "\(String(describing: p))")
        // An output without a playlist, and no such output: one error line, a non-zero status.
        let bad = Shell.run([Repo.binary, "ctl", "next", "NOPE-9"], env: sway.env, timeout: 20)
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.stderr.contains("no output matches 'NOPE-9'"), bad.stderr)
        XCTAssertEqual(bad.stderr.split(separator: "\n").count, 1, bad.stderr)
    }

    func testNextOnAPlainVideoIsRefusedInOneLine() throws {
        let sway = try compositor()
        let w = try Wayloop(["-v", clip("a-red")], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        let r = Shell.run([Repo.binary, "ctl", "next"], env: sway.env, timeout: 20)
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.stderr.contains("no output plays") && r.stderr.contains("playlist"), r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
    }

    /// A broken file in the list: one error line, skipped; the output never fails or goes black.
    func testAFailingEntryIsSkippedWithOneLine() throws {
        let sway = try compositor()
        let d = folder(["a-red", "c-blue"])
        try Data("not a video at all".utf8).write(to: URL(fileURLWithPath: d + "/b-broken.mp4"))
        let w = try Wayloop(["-v", "-i", d, "--interval", "700ms", "--transition", "none"], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        let sub = try Subscription(env: sway.env)
        let seq = sub.waitForSwitches(sway.outputs[0], count: 5, timeout: 30).map { name($0.video) }
        XCTAssertGreaterThanOrEqual(seq.count, 5, "\(seq); \(w.stderr)")
        XCTAssertFalse(seq.contains("b-broken"), "\(seq)")
        for i in stride(from: 1, to: seq.count, by: 1) { XCTAssertNotEqual(seq[i], seq[i - 1], "\(seq)") }
        XCTAssertFalse(sub.events.contains { $0.json["state"] as? String == "failed" }, "an output failed: \(sub.events.map(\.json))")
        let lines = w.stderrLines.filter { $0.contains("b-broken.mp4") && $0.contains("error") }
        XCTAssertEqual(lines.count, 1, "one error line for the broken file: \(w.stderr)")
    }

    /// A video added to the directory comes up after the next switch; a removed one never again.
    func testAWatchedDirectoryChangesTheListAtTheNextSwitch() throws {
        let sway = try compositor()
        let d = folder(["a-red", "b-green"])
        let w = try Wayloop(["-v", "-i", d, "--interval", "600ms", "--transition", "none"], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        // Written elsewhere, then renamed in (what a download or an encoder does).
        let tmp = Self.dir + "/incoming.mp4"
        try FileManager.default.copyItem(atPath: clip("c-blue"), toPath: tmp)
        XCTAssertEqual(rename(tmp, d + "/c-blue.mp4"), 0)
        XCTAssertTrue(w.waitFor("changed: 3 video(s)"), w.stderr)
        try FileManager.default.removeItem(atPath: d + "/b-green.mp4")
        XCTAssertTrue(w.waitFor("changed: 2 video(s)"), w.stderr)
        let sub = try Subscription(env: sway.env)
        let seq = sub.waitForSwitches(sway.outputs[0], count: 5, timeout: 30).map { name($0.video) }
        XCTAssertGreaterThanOrEqual(seq.count, 5, "\(seq)")
        // After the removal is applied (at most one switch later), only red and blue play.
        let settled = Array(seq.dropFirst(2))
        XCTAssertFalse(settled.contains("b-green"), "\(seq)")
        XCTAssertTrue(settled.contains("c-blue") && settled.contains("a-red"), "\(seq)")
    }

    /// A playlist with nothing playable, and an empty directory: one line, exit status 5.
    func testAPlaylistWithNothingToPlayFailsInOneLine() throws {
        let sway = try compositor()
        let empty = folder([])
        let r = Shell.run([Repo.binary, "--no-config", "-i", empty], env: sway.env, timeout: 20)
        XCTAssertEqual(r.status, 5, r.stderr)
        XCTAssertTrue(r.stderr.contains("a directory with no video to play"), r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        let list = Self.dir + "/missing.txt"
        try "# only missing files\n/nonexistent/a.mp4\nnope.mkv\n".write(toFile: list, atomically: true, encoding: .utf8)
        let m = Shell.run([Repo.binary, "--no-config", list], env: sway.env, timeout: 20)
        XCTAssertEqual(m.status, 5, m.stderr)
        XCTAssertTrue(m.stderr.contains("none of its 2 video(s) can be opened: '/nonexistent/a.mp4': no such file"), m.stderr)
        XCTAssertEqual(m.stderr.split(separator: "\n").count, 1, m.stderr)
        XCTAssertFalse(m.stderr.contains("Fatal") || m.stderr.contains("fault"), m.stderr)
        let bad = Shell.run([Repo.binary, "--no-config", "--interval", "soon", clip("a-red")], env: sway.env, timeout: 20)
        XCTAssertEqual(bad.status, 2, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("'soon' is not a duration like 30s"), bad.stderr)
    }

    /// The config file names a playlist for one output, with its interval and order; `ctl set`
    /// switches another scope to a directory at run time and answers with its first video on screen.
    func testTheConfigFileAndCtlSetTakePlaylists() throws {
        let sway = try compositor()
        let d = folder(["a-red", "b-green"])
        let config = Self.dir + "/config"
        try "transition = none\n[output \(sway.outputs[0])]\nvideo = \(d)\ninterval = 800ms\nshuffle = no\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        let w = try Wayloop(["-v", "--config", config], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        let sub = try Subscription(env: sway.env)
        let seq = sub.waitForSwitches(sway.outputs[0], count: 3, timeout: 20).map { name($0.video) }
        XCTAssertGreaterThanOrEqual(seq.count, 3, "\(seq); \(w.stderr)")
        for i in stride(from: 1, to: seq.count, by: 1) { XCTAssertNotEqual(seq[i], seq[i - 1], "\(seq)") }
        // At run time: another directory, with an hour's interval; the reply comes with its
        // first video on screen.
        let e = folder(["c-blue", "d-yellow"], "runtime")
        let r = Shell.run([Repo.binary, "ctl", "set", "*", e, "--interval", "1h"], env: sway.env, timeout: 20)
        XCTAssertEqual(r.status, 0, r.stderr)
        let img = try sway.shot(sway.outputs[0])
        XCTAssertTrue(img.pixel(img.width / 2, img.height / 2).close(to: RGB8(0x10, 0x20, 0xE0), tolerance: 40),
                      "not blue when ctl set returned: \(img.pixel(img.width / 2, img.height / 2))")
        let p = (try w.ctlStatus()[0])["playlist"] as? [String: Any]
        XCTAssertEqual(p?["source"] as? String, e)
        XCTAssertEqual(p?["position"] as? Int, 1)
        XCTAssertEqual(p?["count"] as? Int, 2)
    }

    /// Switch after switch (fades included), the memory a playlist holds stays bounded: after
    /// the first rounds have opened every video (kept for a switch back, --keep-recent 3 of 4),
    /// ten more rounds add nothing.
    func testManySwitchesLeakNothing() throws {
        let sway = try compositor()
        let d = folder(["a-red", "b-green", "c-blue", "d-yellow"])
        let w = try Wayloop(["-v", "-i", d, "--interval", "250ms", "--transition", "fade:100ms"], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        let sub = try Subscription(env: sway.env)
        XCTAssertGreaterThanOrEqual(sub.waitForSwitches(sway.outputs[0], count: 9, timeout: 30).count, 9)
        let before = Proc.privateKB(w.pid)
        XCTAssertGreaterThanOrEqual(sub.waitForSwitches(sway.outputs[0], count: 49, timeout: 120).count, 49, w.stderr)
        let after = Proc.privateKB(w.pid)
        print("PlaylistTests: private memory after 8 switches \(before) kB, after 48 \(after) kB")
        XCTAssertGreaterThan(before, 0)
        XCTAssertLessThan(after - before, 3 * 1024, "grew \(after - before) kB over 40 switches")
        XCTAssertFalse(w.stderr.contains("error"), w.stderr)
    }

    /// A file listed twice (a, b, a) does not stop the list at its second entry; a still
    /// picture in a --loops playlist counts a pass as 5 s (it has no pass that ends).
    func testAFileListedTwiceAndAStillPictureKeepTheListGoing() throws {
        let sway = try compositor()
        let still = Self.dir + "/still.mp4"
        let r = Shell.run(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                           "color=c=0xE0E010:s=320x180:r=25", "-frames:v", "1", "-pix_fmt", "yuv420p", "-c:v", "libx264", still],
                          timeout: 60)
        XCTAssertEqual(r.status, 0, r.stderr)
        let list = Self.dir + "/twice.m3u"
        try "\(clip("a-red"))\n\(clip("c-blue"))\n\(clip("a-red"))\n\(still)\n".write(toFile: list, atomically: true, encoding: .utf8)
        let w = try Wayloop(["-v", list, "--transition", "none"], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        let sub = try Subscription(env: sway.env)
        // red, blue, red (1 s each), the still (5 s), red again.
        let seq = sub.waitForSwitches(sway.outputs[0], count: 5, timeout: 30)
        let names = seq.map { name($0.video) }
        XCTAssertEqual(Array(names.prefix(5)), ["a-red", "c-blue", "a-red", "still", "a-red"], w.stderr)
        if seq.count >= 5 {
            let held = seq[4].at.timeIntervalSince(seq[3].at)
            XCTAssertGreaterThan(held, 4.5, "the still was shown \(held) s")
        }
    }

    /// A covered (fullscreen window) wallpaper does not switch: the interval counts the time it
    /// is seen, and nothing is opened while nobody sees it.
    func testAnIntervalDoesNotRunWhileCovered() throws {
        let sway = try compositor()
        let d = folder(["a-red", "b-green", "c-blue"])
        let w = try Wayloop(["-v", "-i", d, "--interval", "1s", "--transition", "none"], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        let sub = try Subscription(env: sway.env)
        try sway.cover()
        defer { sway.uncover() }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "paused", reason: "fullscreen"), w.lastStatus)
        let atCover = sub.switches(sway.outputs[0]).count
        usleep(3_000_000)
        XCTAssertEqual(sub.switches(sway.outputs[0]).count, atCover, "switched while covered: \(sub.switches(sway.outputs[0]).map(\.video))")
        sway.uncover()
        XCTAssertGreaterThan(sub.waitForSwitches(sway.outputs[0], count: atCover + 2, timeout: 20).count, atCover + 1,
                             "no switch after uncovering: \(w.stderr)")
    }

    /// `ctl set` to a directory whose first video is broken: skipped, the next one plays, the
    /// reply is ok. `ctl set --interval` on a playing list goes on from where it is. A playlist
    /// is no fallback.
    func testCtlSetSkipsABrokenFirstVideoAndKeepsThePlaceOnANewInterval() throws {
        let sway = try compositor()
        let d = folder(["b-green", "c-blue"])
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: d + "/a-broken.mp4"))
        let w = try Wayloop(["-v", "--transition", "none", clip("d-yellow")], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        let r = Shell.run([Repo.binary, "ctl", "set", "*", d, "--interval", "1h"], env: sway.env, timeout: 20)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(w.waitForStatus { ($0.first?["video"] as? String)?.hasSuffix("b-green.mp4") == true }, w.lastStatus)
        XCTAssertTrue(Shell.run([Repo.binary, "ctl", "next"], env: sway.env, timeout: 20).stdout.contains("c-blue"))
        let i = Shell.run([Repo.binary, "ctl", "set", "*", "--interval", "2h"], env: sway.env, timeout: 20)
        XCTAssertEqual(i.status, 0, i.stderr)
        let out = try w.ctlStatus()[0]
        XCTAssertTrue((out["video"] as? String)?.hasSuffix("c-blue.mp4") == true, "restarted from the top: \(out)")
        XCTAssertGreaterThan((out["playlist"] as? [String: Any])?["next_switch_in"] as? Double ?? 0, 7000, "\(out)")
        let f = Shell.run([Repo.binary, "--no-config", clip("a-red"), "-f", d], env: sway.env, timeout: 20)
        XCTAssertNotEqual(f.status, 0)
        XCTAssertTrue(f.stderr.contains("directory"), f.stderr)
    }
}
