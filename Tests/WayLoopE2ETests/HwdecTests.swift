// Hardware decoding on a real compositor: on this machine (no GPU) `--hwdec auto`
// plays in software and status says why; an explicit path gives one notice and plays; bad values
// are one line and exit 2. Every fallback trigger runs through the real decoder thread with the
// fake source (WAYLOOP_FAKE_HWDEC: software frames taken as a hardware path's): the loop stays
// gapless across a failure in the middle of a pass, status says what happened, a check that
// fails is never shown, and `ctl set --hwdec` opens the video again that way.
import Foundation
import WayLoopTestSupport
import XCTest

final class HwdecTests: CompositorTestCase {
    /// seam-30.mp4: 30 fps, 1 s, x264 with B-frames.
    static let clip = "seam-30.mp4"
    static let framesPerPass = 30

    override class var outputSizes: [String] { ["640x360"] }

    private func tracePath(_ tag: String) -> String {
        let p = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-hwdec-\(getpid())-\(tag)").path
        try? FileManager.default.removeItem(atPath: p)
        return p
    }

    /// The first output's `decode` field, once it matches.
    private func waitForDecode(_ w: Wayloop, _ matches: @escaping (String) -> Bool) -> Bool {
        w.waitForStatus(timeout: 30) { outs in (outs.first?["decode"] as? String).map(matches) ?? false }
    }

    private func noticeLines(_ w: Wayloop, containing text: String) -> [String] {
        w.stderrLines.filter { $0.contains("notice") && $0.contains(text) }
    }

    /// Every source frame of each pass in `passes` committed once, in order: none shown twice,
    /// no going back (the seam and a switch to software included), and none left out, except
    /// where the machine, not WayLoop, made it skip (Pacing): the compositor released the frame
    /// before only after the next was due (`forced`), or wayloop's threads waited for a CPU in
    /// between at least as long as the frames left out lasted, less the pacing tolerance.
    /// Returns the frames left out.
    @discardableResult
    private func checkGapless(_ trace: String, output: String, passes: ClosedRange<Int>, file: StaticString = #filePath, line: UInt = #line) -> Int {
        let all = TraceFile.records(trace).filter { $0.output == output }
        let recs = all.filter { passes.contains($0.pass) }
        XCTAssertEqual(Set(recs.map(\.pass)), Set(passes), "passes committed: \(Set(recs.map(\.pass)).sorted())", file: file, line: line)
        let frame: Int64 = 1_000_000_000 / Int64(Self.framesPerPass)
        var skipped = 0
        for h in Pacing(all, tolerance: Pacing.tolerance).holds where passes.contains(h.b.pass) && (h.b.pass > passes.lowerBound || h.b.index > 0) {
            let step = (h.b.pass * Self.framesPerPass + h.b.index) - (h.a.pass * Self.framesPerPass + h.a.index)
            XCTAssertEqual(step >= 1, true, "\(h.label): a frame again or out of order", file: file, line: line)
            guard step > 1 else { continue }
            skipped += step - 1
            let starved = Pacing.starved(h.a, h.b)
            XCTAssertTrue(h.forced || starved >= Int64(step - 1) * frame - Pacing.tolerance,
                          "\(h.label): \(step - 1) frame(s) left out, though the compositor released \(h.a.pass).\(h.a.index) in time "
                          + "and wayloop waited only \(starved / 1_000_000) ms for a CPU", file: file, line: line)
        }
        if skipped > 0 { print("HwdecTests: \(skipped) frame(s) left out where the machine held WayLoop back") }
        return skipped
    }

    /// What this machine offers, as facts the test can read (the CI machine has no GPU).
    private var noRenderNode: Bool {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/dev/dri")) ?? []).allSatisfy { !$0.hasPrefix("renderD") }
    }
    private var noCUDA: Bool { dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD) == nil && dlopen("libcuda.so.1", RTLD_LAZY) == nil }

    // MARK: This machine

    func testAutoFallsBackToSoftwareWithTheReasonInStatus() throws {
        try XCTSkipUnless(noRenderNode && noCUDA, "this machine has a GPU: the fallback facts below are those of a machine without one")
        let sway = try compositor()
        let w = try Wayloop([Repo.clip(Self.clip)], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing", shown: true), w.lastStatus)
        XCTAssertTrue(waitForDecode(w) { $0.hasPrefix("software (") }, w.lastStatus)
        let decode = try XCTUnwrap(w.ctlStatus().first?["decode"] as? String)
        XCTAssertTrue(decode.contains("vaapi-copy: no VA-API device: no DRM render node in /dev/dri"), decode)
        XCTAssertTrue(decode.contains("nvdec-copy: no CUDA device"), decode)
        // Auto finding no device is no news: nothing on stderr at the default level.
        XCTAssertEqual(noticeLines(w, containing: "software").count, 0, w.stderr)
        let text = Shell.run([Repo.binary, "ctl", "status"], env: sway.env, timeout: 20)
        XCTAssertTrue(text.stdout.contains("decode: software (vaapi-copy: no VA-API device"), text.stdout)
    }

    func testAnExplicitPathGivesOneNoticeAndPlaysInSoftware() throws {
        try XCTSkipUnless(noRenderNode, "this machine has a render node")
        let sway = try compositor()
        let w = try Wayloop(["--hwdec", "vaapi", Repo.clip(Self.clip)], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing", shown: true), w.lastStatus)
        XCTAssertTrue(waitForDecode(w) { $0 == "software (vaapi-copy: no VA-API device: no DRM render node in /dev/dri)" }, w.lastStatus)
        XCTAssertEqual(noticeLines(w, containing: "decoding in software (vaapi-copy: no VA-API device").count, 1, w.stderr)
    }

    func testBadValuesAreOneLineAndExitTwo() throws {
        let sway = try compositor()
        let cases: [[String]] = [["--hwdec", "nvdec", "a.mp4"], ["--hwdec", "", "a.mp4"], ["--hwdec-device", "", "a.mp4"], ["--hwdec"],
                                 ["thumbnail", "a.mp4", "a.png", "--hwdec", "gpu"], ["decode", "a.mp4", "--hwdec", "yes"],
                                 ["decode", "a.mp4", "--frames", "0"], ["decode"]]
        for args in cases {
            let r = Shell.run([Repo.binary] + args, env: sway.env, timeout: 20)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(args): \(r.stderr)")
        }
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-hwdec-config-\(getpid())").path
        try "video = \(Repo.clip(Self.clip))\nhwdec = sometimes\n".write(toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let r = Shell.run([Repo.binary, "--config", config], env: sway.env, timeout: 20)
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertEqual(r.stderr.trimmingCharacters(in: .whitespacesAndNewlines),
                       "wayloop: error: config: \(config):2: hwdec 'sometimes' is not one of auto, no, vaapi, vaapi-copy, nvdec-copy")
        // ctl set refuses it in ctl's words, and the running one goes on.
        let w = try Wayloop([Repo.clip(Self.clip)], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing"), w.lastStatus)
        let set = Shell.run([Repo.binary, "ctl", "set", "*", "--hwdec", "cuda"], env: sway.env, timeout: 20)
        XCTAssertNotEqual(set.status, 0, set.stderr)
        XCTAssertEqual(set.stderr.split(separator: "\n").count, 1, set.stderr)
        XCTAssertTrue(set.stderr.contains("'cuda' is not one of auto, no, vaapi, vaapi-copy, nvdec-copy"), set.stderr)
        XCTAssertTrue(w.isRunning)
    }

    // MARK: The fake source: every fallback trigger

    /// Plays the clip with `spec` faked, no loop cache (every pass decoded), and waits for pass 5.
    private func play(_ spec: String, hwdec: String = "auto", tag: String) throws -> (Wayloop, String, Compositor) {
        let sway = try compositor()
        let trace = tracePath(tag)
        var env = sway.env
        env["WAYLOOP_FAKE_HWDEC"] = spec
        let w = try Wayloop(["--cache-mb", "0", "--hwdec", hwdec, "--trace-frames", trace, Repo.clip(Self.clip)], env: env)
        XCTAssertTrue(Wait.until(timeout: 40) { TraceFile.maxPass(trace) >= 5 || !w.isRunning }, "the trace never reached pass 5: \(w.stderr)")
        return (w, trace, sway)
    }

    func testAFakePathThatWorksPlaysItsFramesGaplessly() throws {
        let (w, trace, sway) = try play("nvdec-copy:ok", tag: "ok")
        defer { XCTAssertEqual(w.stop(), 0, w.stderr); try? FileManager.default.removeItem(atPath: trace) }
        XCTAssertTrue(waitForDecode(w) { $0 == "nvdec-copy (fake NVDEC (WAYLOOP_FAKE_HWDEC))" }, w.lastStatus)
        checkGapless(trace, output: sway.outputs[0], passes: 0...4)
        XCTAssertEqual(noticeLines(w, containing: "software").count, 0, w.stderr)
    }

    /// Failures at start: the path is never used (not one of its frames reaches the screen), the
    /// clip plays in software from its first frame, and status says why.
    func testFailuresAtStartAreNeverShownAndStatusSaysWhy() throws {
        let rows: [(String, String, Bool)] = [
            ("device", "nvdec-copy: the fake device refused to open (WAYLOOP_FAKE_HWDEC)", false),
            ("check", "nvdec-copy: its pictures differ from software decoding (", true),
            ("not-hardware", "nvdec-copy: the decoder gave software frames", false),
            ("slow", "nvdec-copy: no frame within 2.", false),
        ]
        for (trigger, reason, notice) in rows {
            let (w, trace, sway) = try play("nvdec-copy:\(trigger)", tag: trigger)
            defer { XCTAssertEqual(w.stop(), 0, w.stderr); try? FileManager.default.removeItem(atPath: trace) }
            XCTAssertTrue(waitForDecode(w) { $0.hasPrefix("software (vaapi-copy: not faked") && $0.contains(reason) }, "\(trigger): \(w.lastStatus)")
            checkGapless(trace, output: sway.outputs[0], passes: 0...4)
            // A path that exists and gives wrong pictures is news even under auto; one that is not there is not.
            XCTAssertEqual(noticeLines(w, containing: "nvdec-copy").count, notice ? 1 : 0, "\(trigger): \(w.stderr)")
        }
    }

    /// Failures while playing, in the middle of pass 1: the clip goes on in software from where
    /// it was (every frame of every pass once, in order), with one notice and status saying why.
    func testFailuresWhilePlayingMoveToSoftwareWithoutAGap() throws {
        let rows: [(String, String)] = [
            ("decode-error@45", "nvdec-copy failed while playing: a frame failed to decode (Invalid data found when processing input (WAYLOOP_FAKE_HWDEC))"),
            ("pool@45", "nvdec-copy failed while playing: its surface pool ran out"),
            ("transfer@45", "nvdec-copy failed while playing: a frame could not be copied back (Input/output error (WAYLOOP_FAKE_HWDEC))"),
        ]
        for (trigger, reason) in rows {
            let (w, trace, sway) = try play("nvdec-copy:\(trigger)", hwdec: "nvdec-copy", tag: trigger)
            defer { XCTAssertEqual(w.stop(), 0, w.stderr); try? FileManager.default.removeItem(atPath: trace) }
            XCTAssertTrue(waitForDecode(w) { $0 == "software (\(reason))" }, "\(trigger): \(w.lastStatus)")
            checkGapless(trace, output: sway.outputs[0], passes: 0...4)
            XCTAssertEqual(noticeLines(w, containing: "failed while playing").count, 1, "\(trigger): \(w.stderr)")
        }
    }

    // MARK: Frames with lifetimes: surfaces handed on in place

    /// The fake's `+export`: each frame is handed on in place, pinning a surface of a fixed pool
    /// (the size WayLoop asks libavcodec for) until its lease ends, which a sink keeps until the
    /// compositor released its buffer (shm) or the swap that replaced it (GL). On both renderers,
    /// with a long queue and a seek at every loop (no loop cache), and, in the second row, a
    /// failure in the middle of pass 1: every frame once, in order; no surface decoded into while
    /// a committed buffer still showed it; the pool never dry; and the sinks did hold surfaces
    /// past their present (`most_shown`), so the first two could have failed.
    func testSurfacesHandedOnInPlaceAreNeverReusedWhileShown() throws {
        let rows: [(renderer: String, spec: String, decode: String)] = [
            ("shm", "nvdec-copy:ok+export", "nvdec-copy (fake NVDEC (WAYLOOP_FAKE_HWDEC); frames handed on in place)"),
            ("gl", "nvdec-copy:ok+export", "nvdec-copy (fake NVDEC (WAYLOOP_FAKE_HWDEC); frames handed on in place)"),
            ("shm", "nvdec-copy:decode-error@45+export", "software (nvdec-copy failed while playing: a frame failed to decode "
                + "(Invalid data found when processing input (WAYLOOP_FAKE_HWDEC)))"),
            ("gl", "nvdec-copy:decode-error@45+export", "software (nvdec-copy failed while playing: a frame failed to decode "
                + "(Invalid data found when processing input (WAYLOOP_FAKE_HWDEC)))"),
        ]
        for row in rows {
            let label = "\(row.renderer), \(row.spec)"
            let sway = try compositor()
            let trace = tracePath("export-\(row.renderer)")
            defer { try? FileManager.default.removeItem(atPath: trace) }
            var env = sway.env
            env["WAYLOOP_FAKE_HWDEC"] = row.spec
            let w = try Wayloop(["--renderer", row.renderer, "--queue-frames", "12", "--cache-mb", "0", "--hwdec", "nvdec-copy",
                                 "--trace-frames", trace, Repo.clip(Self.clip)], env: env)
            defer { XCTAssertEqual(w.stop(), 0, "\(label): \(w.stderr)") }
            XCTAssertTrue(Wait.until(timeout: 60) { TraceFile.maxPass(trace) >= 8 || !w.isRunning }, "\(label): the trace never reached pass 8: \(w.stderr)")
            XCTAssertTrue(waitForDecode(w) { $0 == row.decode }, "\(label): \(w.lastStatus)")
            checkGapless(trace, output: sway.outputs[0], passes: 0...7)
            let out = try XCTUnwrap(Ctl.status(env: sway.env).first, label)
            let s = try XCTUnwrap(out["surfaces"] as? [String: Any], "\(label): \(Ctl.describe([out]))")
            let n = { (k: String) in s[k] as? Double ?? -1 }
            print("HwdecTests: \(label): surfaces \(s.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
            XCTAssertEqual(n("reused_while_shown"), 0, "\(label): \(s)")
            XCTAssertEqual(n("dry"), 0, "\(label): \(s)")
            XCTAssertGreaterThanOrEqual(n("most_shown"), 1, "\(label): no sink held a surface past its present: \(s)")
            XCTAssertLessThanOrEqual(n("most_out"), n("pool"), "\(label): \(s)")
            XCTAssertGreaterThan(n("limit"), 0, "\(label): \(s)")
            if row.spec.contains("@45") {
                // Software since frame 45: the surfaces handed on before went back as their leases ended.
                XCTAssertEqual(n("taken"), 44, "\(label): \(s)")
                let outNow = { ((try? Ctl.status(env: sway.env))?.first?["surfaces"] as? [String: Any])?["out"] as? Double }
                XCTAssertTrue(Wait.until(timeout: 10) { outNow() == 0 },
                              "\(label): surfaces still out after the fallback: \(s)")
            } else {
                XCTAssertGreaterThanOrEqual(n("taken"), Double(8 * Self.framesPerPass), "\(label): \(s)")
            }
        }
    }

    func testCtlSetHwdecOpensTheVideoAgainThatWay() throws {
        let (w, trace, sway) = try play("nvdec-copy:ok", tag: "set")
        defer { XCTAssertEqual(w.stop(), 0, w.stderr); try? FileManager.default.removeItem(atPath: trace) }
        XCTAssertTrue(waitForDecode(w) { $0.hasPrefix("nvdec-copy") }, w.lastStatus)
        let set = Shell.run([Repo.binary, "ctl", "set", "*", "--hwdec", "no"], env: sway.env, timeout: 30)
        XCTAssertEqual(set.status, 0, set.stderr)
        XCTAssertTrue(waitForDecode(w) { $0 == "software" }, w.lastStatus)
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing"), w.lastStatus)
        let back = Shell.run([Repo.binary, "ctl", "set", "*", "--hwdec", "nvdec-copy"], env: sway.env, timeout: 30)
        XCTAssertEqual(back.status, 0, back.stderr)
        XCTAssertTrue(waitForDecode(w) { $0.hasPrefix("nvdec-copy (fake NVDEC") }, w.lastStatus)
    }

    /// `wayloop decode` takes the same paths without a compositor, and says so.
    func testDecodeReportsThePathAndTheRate() throws {
        var env = ProcessInfo.processInfo.environment
        env["WAYLOOP_FAKE_HWDEC"] = "nvdec-copy:decode-error@40"
        let r = Shell.run([Repo.binary, "decode", Repo.clip(Self.clip), "--hwdec", "nvdec-copy", "--frames", "90", "--json"], env: env, timeout: 60)
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout)
        XCTAssertEqual(json["frames"] as? Double, 89, r.stdout)
        XCTAssertEqual(json["passes"] as? Double, 3, r.stdout)
        XCTAssertEqual(json["clip_fps"] as? Double, 30, r.stdout)
        XCTAssertTrue((json["path"] as? String)?.hasPrefix("software (nvdec-copy failed while playing") ?? false, r.stdout)
        XCTAssertEqual(r.stderr.split(separator: "\n").filter { $0.contains("failed while playing") }.count, 1, r.stderr)
        let missing = Shell.run([Repo.binary, "decode", "/nonexistent.mp4"], timeout: 20)
        XCTAssertEqual(missing.status, 5, missing.stderr)
        XCTAssertEqual(missing.stderr.split(separator: "\n").count, 1, missing.stderr)
    }

    // MARK: Software decoding that falls behind

    /// A 4K60 HEVC Main10 clip on one core decodes slower than its rate. What WayLoop decides,
    /// and what is asserted: which frames it leaves out (the late ones, counted as dropped; status
    /// says `decoding behind` at the rate reached) and what its clock says (media time never
    /// runs ahead of wall time, never steps back or repeats within a pass, and a clock that stops
    /// starts again from where it was instead of racing). How fast the clip then plays is the
    /// machine's: whether even the frames it keeps (every other one here: the non-reference
    /// frames are left out) decode in their time on one core. It is printed, never judged: CI
    /// passed with 0.85-1.15 asserted until 2026-12-05; on 2026-12-06, on the same kind of machine
    /// and idle, 7af54bf's binary reached 0.58 and this one 0.59-0.74.
    func testDecodingBehindKeepsTheClipsSpeedAndSaysSo() throws {
        let sway = try compositor()
        let trace = tracePath("behind")
        defer { try? FileManager.default.removeItem(atPath: trace) }
        let w = try Wayloop(["-c", "0", Repo.binary, "--renderer", "shm", "--cache-mb", "0", "--trace-frames", trace,
                             Repo.clip("hevc10-2160p60.mp4")], env: sway.env, binary: "/usr/bin/taskset", inheritRenderer: false)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(Wait.until(timeout: 60) { TraceFile.maxPass(trace) >= 4 || !w.isRunning }, "the trace never reached pass 4: \(w.stderr)")
        let recs = TraceFile.records(trace).filter { $0.output == sway.outputs[0] && $0.pass >= 1 }
        var media: Int64 = 0, wall: Int64 = 0
        for (a, b) in zip(recs, recs.dropFirst()) where a.pass == b.pass {
            XCTAssertGreaterThan(b.index, a.index, "pass \(a.pass): frame \(b.index) committed after \(a.index)")
            XCTAssertGreaterThan(b.media, a.media, "pass \(a.pass): media time \(b.media) after \(a.media)")
            media += b.media - a.media
            wall += b.commit - a.commit
        }
        XCTAssertGreaterThan(wall, 2_000_000_000, "too little of the trace to judge: \(recs.count) commits")
        let speed = Double(media) / Double(max(wall, 1))
        print("4K60 HEVC Main10 on one core: \(recs.count) commits in passes 1-4, media time moved \(String(format: "%.3f", speed))x wall time "
              + "(the machine's: how fast the frames kept decode on one core)")
        // A clock that races to catch up (or frames shown before they are due) would move media
        // time faster than wall time: that would be WayLoop's.
        XCTAssertLessThanOrEqual(speed, 1.15, "media time ran ahead of wall time: \(speed)x")
        let out = try XCTUnwrap(Ctl.status(env: sway.env).first)
        let shown = out["shown_fps"] as? Double, dropped = out["frames_dropped"] as? Double ?? 0
        print("status: shown_fps \(shown.map { String($0) } ?? "-"), frames_dropped \(dropped), pace \(out["pace"] as? String ?? "-")")
        if let shown, shown < 54 {
            // Slower than the clip's rate: said, with the rate reached, and the frames left out counted.
            // (shown_fps is rounded to a tenth in JSON, the pace's rate to a whole frame from the unrounded one)
            let pace = out["pace"] as? String ?? ""
            let said = Double(pace.split(separator: " ").dropFirst(2).first ?? "") ?? -99
            XCTAssertTrue(pace.hasPrefix("decoding behind: ") && pace.hasSuffix(" of 60 fps") && abs(said - shown) <= 1,
                          "pace '\(pace)' against shown_fps \(shown): \(Ctl.describe([out]))")
            XCTAssertGreaterThan(dropped, 0, Ctl.describe([out]))
        } else {
            XCTAssertNil(out["pace"], "keeping up, yet status says \(Ctl.describe([out]))")
        }
    }
}

