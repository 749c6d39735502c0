// `--max-fps`: frames past the cap are never committed, the video keeps its own speed (the
// frames committed are spaced by 1/cap of media time, through the loop seam), the decoder
// leaves out the non-reference frames when it may (and not while it fills the loop cache),
// `ctl set --max-fps` changes or lifts the cap at run time, `ctl status` says it, and a bad
// value is one line. Read from the --trace-frames record of what was committed: media times,
// not wall times.
import Foundation
import WayLoopTestSupport
import XCTest

final class FrameCapTests: CompositorTestCase {
    /// seam-30.mp4: 30 fps, 1 s, x264 with B-frames (-bf 3).
    static let clip = "seam-30.mp4"
    static let frame: Int64 = 33_333_333

    override class var outputSizes: [String] { ["640x360"] }

    private func tracePath(_ tag: String) -> String {
        let p = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-cap-\(getpid())-\(tag)").path
        try? FileManager.default.removeItem(atPath: p)
        return p
    }

    /// The committed frames of passes `passes` on the first output.
    private func committed(_ trace: String, output: String, passes: ClosedRange<Int>) -> [TraceFile.Record] {
        TraceFile.records(trace).filter { $0.output == output && passes.contains($0.pass) }
    }

    /// The holds between commits of passes `passes` (Pacing over the output's whole trace).
    private func holds(_ trace: String, output: String, passes: ClosedRange<Int>) -> [Pacing.Hold] {
        Pacing(TraceFile.records(trace).filter { $0.output == output }, tolerance: Pacing.tolerance).holds
            .filter { passes.contains($0.a.pass) && passes.contains($0.b.pass) }
    }

    /// Every gap between consecutive commits is 1/cap of media time, give or take one source
    /// frame (a slot whose own frame the decoder left out takes the next one); each pass has
    /// about cap commits. Where the compositor released a frame only after the next slot's was
    /// due (its latency, on a loaded machine, past a slot), WayLoop rightly goes on to the frame
    /// due then: the slots between are left out there, and only there.
    private func checkCapped(_ trace: String, output: String, cap: Int64, passes: ClosedRange<Int>,
                             file: StaticString = #filePath, line: UInt = #line) {
        let slot = 1_000_000_000 / cap
        let recs = committed(trace, output: output, passes: passes)
        XCTAssertGreaterThan(recs.count, 0, "nothing committed", file: file, line: line)
        var leftOut: [Int: Int] = [:]
        for h in holds(trace, output: output, passes: passes) {
            let gap = h.delay
            let what = "frames \(h.label): \(gap / 1_000_000) ms of media time apart, not ~\(slot / 1_000_000)"
            XCTAssertGreaterThanOrEqual(gap, slot - Self.frame - 1_000_000, what, file: file, line: line)
            if gap > slot + Self.frame + 1_000_000 {
                XCTAssertTrue(h.forced, "\(what), though the compositor released \(h.a.pass).\(h.a.index) in time for the next slot",
                              file: file, line: line)
                leftOut[h.b.pass, default: 0] += Int((Double(gap) / Double(slot)).rounded()) - 1
            }
        }
        for p in passes {
            let n = recs.filter { $0.pass == p }.count
            XCTAssertTrue((Int(cap) - 1 - leftOut[p, default: 0]...Int(cap) + 1).contains(n),
                          "pass \(p): \(n) commits, not ~\(cap) (\(leftOut[p, default: 0]) slot(s) the compositor made WayLoop leave out)",
                          file: file, line: line)
        }
        if !leftOut.isEmpty { print("FrameCapTests: slots left out where the compositor held WayLoop back, by pass: \(leftOut)") }
    }

    /// The frames committed from the cache are exactly every third (every frame is there to
    /// pick from), but where the compositor made WayLoop leave slots out.
    private func checkEveryThird(_ trace: String, output: String, passes: ClosedRange<Int>, file: StaticString = #filePath, line: UInt = #line) {
        for h in holds(trace, output: output, passes: passes) where h.a.pass == h.b.pass {
            let step = h.b.index - h.a.index
            XCTAssertTrue(step == 3 || (h.forced && step > 3 && step % 3 == 0), "frames \(h.label): \(step) apart, not 3", file: file, line: line)
        }
    }

    /// The frames the first output's video decoded (ctl status: costs.decoded) while the trace
    /// went through one whole pass: from the first commit of the next pass to that of the one after.
    private func decodedInAPass(_ w: Wayloop, trace: String) throws -> Int {
        func decoded() throws -> Int {
            guard let n = Ctl.decoded(try w.ctlStatus().first) else { throw HarnessError("no costs.decoded in ctl status") }
            return n
        }
        let pass = TraceFile.maxPass(trace)
        guard Wait.until(timeout: 10, { TraceFile.maxPass(trace) > pass }) else { throw HarnessError("the trace stayed at pass \(pass)") }
        let before = try decoded()
        guard Wait.until(timeout: 10, { TraceFile.maxPass(trace) > pass + 1 }) else { throw HarnessError("the trace stayed at pass \(pass + 1)") }
        return try decoded() - before
    }

    func testACapOfTenOnThirtyCommitsEveryThirdFrameAndDecodesFewer() throws {
        let sway = try compositor()
        let trace = tracePath("10")
        defer { try? FileManager.default.removeItem(atPath: trace) }
        // No loop cache: every pass is decoded, so the decoder may skip.
        let w = try Wayloop(["-v", "--cache-mb", "0", "--max-fps", "10", "--trace-frames", trace, Repo.clip(Self.clip)], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(Wait.until(timeout: 30) { TraceFile.maxPass(trace) >= 5 || !w.isRunning }, "the trace never reached pass 5: \(w.stderr)")
        XCTAssertTrue(w.stderr.contains("capped at 10 fps: of the frames no output shows, only references are decoded"), w.stderr)
        checkCapped(trace, output: sway.outputs[0], cap: 10, passes: 1...4)
        // The frames committed are always decoded (only the others may be left out): exactly
        // every third frame, as from the loop cache.
        checkEveryThird(trace, output: sway.outputs[0], passes: 1...4)
        XCTAssertTrue(try w.waitForStatus { outs in (outs.first?["max_fps"] as? Double) == 10 }, w.lastStatus)
        let status = Shell.run([Repo.binary, "ctl", "status"], env: sway.env, timeout: 20)
        XCTAssertTrue(status.stdout.contains("at most 10 fps"), status.stdout)
        XCTAssertTrue(try w.waitForStatus { outs in (outs.first?["frames_dropped"] as? Double) == 0 }, "frames past the cap counted as dropped: \(w.lastStatus)")

        // Lifted at run time: every frame again, and every frame decoded.
        let set = Shell.run([Repo.binary, "ctl", "set", "*", "--max-fps", "0"], env: sway.env, timeout: 30)
        XCTAssertEqual(set.status, 0, set.stderr)
        // The decoder decodes every frame again: a whole pass of the trace takes all 30 of its frames.
        var decoded = -1
        XCTAssertTrue(Wait.until(timeout: 20) {
            decoded = (try? self.decodedInAPass(w, trace: trace)) ?? -1
            return decoded >= 30
        }, "after --max-fps 0, \(decoded) frames decoded in a pass, not 30: \(w.lastStatus); \(w.stderr)")
        XCTAssertTrue(try w.waitForStatus { outs in outs.first?["max_fps"] == nil }, w.lastStatus)
        let from = TraceFile.maxPass(trace) + 1
        XCTAssertTrue(Wait.until(timeout: 30) { TraceFile.maxPass(trace) >= from + 2 || !w.isRunning }, w.stderr)
        // Every frame, in order (a frame left out only where the compositor released the one
        // before it after the next was due).
        let full = holds(trace, output: sway.outputs[0], passes: from...from + 2).filter { $0.a.pass == from + 1 || $0.b.pass == from + 1 }
        XCTAssertGreaterThan(full.count, 0, "after --max-fps 0 nothing was committed in pass \(from + 1)")
        for h in full {
            let step = (h.b.pass * 30 + h.b.index) - (h.a.pass * 30 + h.a.index)
            XCTAssertTrue(step == 1 || (h.forced && step > 1), "after --max-fps 0, frames \(h.label): \(step) apart, not every frame committed")
        }
    }

    /// A clip held in the loop cache decodes its one pass whole (the cap may be lifted later:
    /// the replay must not be thinned) and the cap picks exactly every third cached frame.
    func testACachedClipIsDecodedWholeAndCappedOnReplay() throws {
        let sway = try compositor()
        let trace = tracePath("cached")
        defer { try? FileManager.default.removeItem(atPath: trace) }
        let w = try Wayloop(["-v", "--max-fps", "10", "--trace-frames", trace, Repo.clip(Self.clip)], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(Wait.until(timeout: 30) { TraceFile.maxPass(trace) >= 4 || !w.isRunning }, "the trace never reached pass 4: \(w.stderr)")
        XCTAssertTrue(w.stderr.contains("the whole loop is in memory (30 frames"), w.stderr)
        XCTAssertFalse(w.stderr.contains("only references are decoded"), w.stderr)
        checkCapped(trace, output: sway.outputs[0], cap: 10, passes: 1...3)
        // Every frame is there to pick from: the steps are exactly three frames.
        checkEveryThird(trace, output: sway.outputs[0], passes: 1...3)
    }

    /// `--battery-fps` follows the power monitor (a fake power_supply tree): capped while
    /// discharging, the cap gone once mains is back.
    func testBatteryFpsCapsOnlyOnBattery() throws {
        let sway = try compositor()
        let power = try FakePower(tag: "cap")
        var env = sway.env
        env["WAYLOOP_POWER_SUPPLY_DIR"] = power.dir
        let trace = tracePath("battery")
        defer { try? FileManager.default.removeItem(atPath: trace) }
        let w = try Wayloop(["--max-fps", "15", "--battery-fps", "5", "--trace-frames", trace, Repo.clip(Self.clip)], env: env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(try w.waitForStatus(env: env) { outs in (outs.first?["max_fps"] as? Double) == 5 }, "\(w.lastStatus); \(w.stderr)")
        var from = TraceFile.maxPass(trace) + 1
        XCTAssertTrue(Wait.until(timeout: 30) { TraceFile.maxPass(trace) >= from + 3 || !w.isRunning }, w.stderr)
        checkCapped(trace, output: sway.outputs[0], cap: 5, passes: from + 1...from + 2)
        try power.mains(online: true)
        // The power check runs every 5 s; then --max-fps alone applies.
        XCTAssertTrue(try w.waitForStatus(timeout: 15, env: env) { outs in (outs.first?["max_fps"] as? Double) == 15 }, "\(w.lastStatus); \(w.stderr)")
        from = TraceFile.maxPass(trace) + 1
        XCTAssertTrue(Wait.until(timeout: 30) { TraceFile.maxPass(trace) >= from + 3 || !w.isRunning }, w.stderr)
        checkCapped(trace, output: sway.outputs[0], cap: 15, passes: from + 1...from + 2)
    }

    func testABadCapIsOneLine() throws {
        let r = Shell.run([Repo.binary, "--max-fps", "0.5", Repo.clip(Self.clip)], timeout: 20)
        XCTAssertEqual(r.status, 2, r.stderr)
        let lines = r.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("'0.5' is not a number of frames per second from 1 to 1000, or 0 for no cap"), r.stderr)

        let sway = try compositor()
        let w = try Wayloop([Repo.clip(Self.clip)], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        let set = Shell.run([Repo.binary, "ctl", "set", "*", "--battery-fps", "fast"], env: sway.env, timeout: 20)
        XCTAssertEqual(set.status, 2, set.stderr)
        XCTAssertEqual(set.stderr.split(separator: "\n").count, 1, set.stderr)
        XCTAssertTrue(set.stderr.contains("'fast' is not a number of frames per second"), set.stderr)
        XCTAssertTrue(w.isRunning)
    }
}
