// The loop seam, frame-exact, from the --trace-frames record of what was committed and presented:
// over five loops every source frame is committed exactly once per loop, in order, each when its
// own duration after the one before it was over (no earlier, and at most a refresh later than
// that and than the compositor's release of the frame before), across the wrap too; the loop
// period is the video's duration. How long the compositor kept each frame on screen is reported.
import Foundation
import WayLoopTestSupport
import XCTest

final class SeamTests: CompositorTestCase {
    /// sway's headless outputs tick at 60 Hz.
    static let refresh: Int64 = 16_666_667
    /// What a frame's time on screen may be off by and count as on time (for the report).
    static let slack: Int64 = 3_000_000

    override class var outputSizes: [String] { ["640x360"] }

    struct SeamReport {
        var records: [TraceFile.Record]
        var maxCommitError: Int64 = 0
        var maxPresentError: Int64 = 0
        var maxWrapPresentError: Int64 = 0
        var presentOutliers = 0
        var holds = 0
        var forcedSkips = 0
    }

    /// Plays `clip` until the trace reaches pass `passes.upperBound + 1` and checks `passes`
    /// (1...5 unless said; `env` adds to the compositor's environment; `ready`, when given,
    /// is waited for in its log first, and the passes counted from the one after it).
    ///
    /// What WayLoop decides is checked: which frames, in which order, each stamped with its
    /// duration (media time), each committed when it was due (Pacing: never before, and at most
    /// a refresh and a few ms after it was due and the compositor had released the frame before
    /// it). When the compositor released a frame only after the next one's time had passed as
    /// well (sway on a loaded machine: its latency went past 100 ms), WayLoop rightly goes on to
    /// the frame due then: such a left-out frame is allowed, and only then. How long each frame
    /// was on screen (presented − presented) is the compositor's: printed, not asserted.
    @discardableResult
    func checkSeam(_ clip: String, frames: Int, loopLength: Int64, durations: [Int64]? = nil, args: [String] = [],
                   env extra: [String: String?] = [:], ready: ((String) -> Int?)? = nil, cached: Bool = true,
                   file: StaticString = #filePath, line: UInt = #line) throws -> SeamReport {
        let sway = try compositor()
        let trace = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-seam-\(getpid())-\(clip)").path
        try? FileManager.default.removeItem(atPath: trace)
        defer { try? FileManager.default.removeItem(atPath: trace) }
        var env = sway.env
        for (k, v) in extra { env[k] = v }
        let w = try Wayloop(["-v", "--trace-frames", trace] + args + [Repo.clip(clip)], env: env)
        var first = 1
        if let ready {
            var from: Int?
            XCTAssertTrue(Wait.until(timeout: 120) { from = ready(w.stderr); return from != nil || !w.isRunning },
                          "\(clip): never ready: \(w.stderr)", file: file, line: line)
            first = max(1, from ?? 1)
        }
        let passes = first...(first + 4)
        XCTAssertTrue(Wait.until(timeout: 60) { TraceFile.maxPass(trace) >= passes.upperBound + 1 || !w.isRunning },
                      "\(clip): the trace never reached pass \(passes.upperBound + 1): \(w.stderr)", file: file, line: line)
        XCTAssertEqual(w.stop(), 0, file: file, line: line)
        // Small clips fit the loop cache (default 128 MiB): passes 1 on come from memory.
        XCTAssertEqual(w.stderr.contains("the whole loop is in memory"), cached,
                       "\(clip): loop cache \(cached ? "not used" : "used"): \(w.stderr)", file: file, line: line)
        let all = TraceFile.records(trace).filter { $0.output == sway.outputs[0] }
        let pacing = Pacing(all, tolerance: Pacing.tolerance)
        // The holds into and through passes 1...5, up to pass 6's first frame.
        let after = passes.upperBound + 1
        let holds = pacing.holds.filter { passes.contains($0.b.pass) || ($0.b.pass == after && $0.b.index == 0) }
        let recs = all.filter { passes.contains($0.pass) } + all.filter { $0.pass == after && $0.index == 0 }
        var report = SeamReport(records: recs)
        for h in holds {
            let (a, b) = (h.a, h.b)
            XCTAssertFalse(h.newClock, "\(clip): the clock started over at \(h.label)", file: file, line: line)
            // Every frame once per pass, in order: the next commit is the next frame, or a later
            // one only where the compositor made WayLoop skip (it released a after b was due).
            let step = (b.pass * frames + b.index) - (a.pass * frames + a.index)
            XCTAssertGreaterThanOrEqual(step, 1, "\(clip): \(h.label): a frame again or out of order", file: file, line: line)
            if step > 1 {
                report.forcedSkips += step - 1
                XCTAssertTrue(h.forced, "\(clip): \(h.label): \(step - 1) frame(s) left out though the compositor released "
                              + "\(a.pass).\(a.index) \(Double(h.b.commit - a.presented) / 1e6) ms before the next commit",
                              file: file, line: line)
            }
            if let durations, step == 1, a.index < frames - 1 {
                XCTAssertEqual(h.delay, durations[a.index % durations.count], accuracy: 1_000_000,
                               "\(clip): frame \(a.index) duration", file: file, line: line)
            }
            let commitError = abs((b.commit - a.commit) - h.delay)
            let presentError = abs((b.presented - a.presented) - h.delay)
            report.maxCommitError = max(report.maxCommitError, commitError)
            report.maxPresentError = max(report.maxPresentError, presentError)
            if b.index == 0 { report.maxWrapPresentError = max(report.maxWrapPresentError, presentError) }
            if presentError > Self.refresh + Self.slack { report.presentOutliers += 1 }
            report.holds += 1
            // The client's own pacing: each commit when its frame was due.
            XCTAssertLessThanOrEqual(h.early, 0, "\(clip): frame \(b.pass).\(b.index) committed \(Double(h.early) / 1e6) ms before it was due",
                                     file: file, line: line)
            XCTAssertLessThanOrEqual(h.late, Pacing.tolerance,
                                     "\(clip): frame \(b.pass).\(b.index) committed \(Double(h.late) / 1e6) ms after it was due and the "
                                     + "compositor had released \(a.pass).\(a.index) (its latency \(h.latencies.0 / 1_000_000) ms)",
                                     file: file, line: line)
        }
        // The loop period on the timeline is the video's duration: a frame's media time one pass
        // on is its own plus the loop's length.
        let byPlace = Dictionary(grouping: all, by: { [$0.pass, $0.index] }).compactMapValues(\.first)
        var compared = 0
        for r in recs where r.pass <= passes.upperBound {
            guard let next = byPlace[[r.pass + 1, r.index]] else { continue }
            compared += 1
            XCTAssertEqual(next.media - r.media, loopLength, "\(clip): loop length on the timeline at frame \(r.index)", file: file, line: line)
        }
        XCTAssertGreaterThan(compared, 0, "\(clip): no frame one pass after another", file: file, line: line)
        let starts = recs.filter { $0.index == 0 }
        let periods = zip(starts, starts.dropFirst()).map { ($1.presented - $0.presented) / 1_000_000 }
        // How long frames stayed on screen is the compositor's (on a loaded 2-core machine sway,
        // rendering in software, now and then composites a frame late): reported.
        print("seam \(clip): holds=\(report.holds) maxCommitError=\(report.maxCommitError / 1000) µs "
            + "maxPresentError=\(report.maxPresentError / 1000) µs maxWrapPresentError=\(report.maxWrapPresentError / 1000) µs "
            + "outliers=\(report.presentOutliers) frames left out where the compositor held WayLoop back=\(report.forcedSkips) "
            + "loop periods as presented=\(periods) ms; \(pacing.latencyReport)")
        return report
    }

    /// A 4K clip on a 640x360 output gets a fitted copy (FitTests has the rest), and the loop
    /// goes on from it at a seam: checked over the switch (from the original's last frame to
    /// the copy's first) and five passes of the copy, as every other seam.
    func testSeamThroughTheSwitchToAFittedCopy() throws {
        let fitEnv: [String: String?] = ["WAYLOOP_FIT_MAKER": nil, "WAYLOOP_FIT_IGNORE_LOAD": "1",
                                         "WAYLOOP_POWER_SUPPLY_DIR": FileManager.default.temporaryDirectory.path + "/wayloop-no-power-supplies"]
        try checkSeam("seam-2160p30.mp4", frames: 30, loopLength: 1_000_000_000, env: fitEnv, ready: { log in
            // "from pass N: reading '…/wayloop/fitted/…'": pass N's first hold is the switch.
            guard let line = log.split(separator: "\n").first(where: { $0.contains("reading '") && $0.contains("/wayloop/fitted/") }),
                  let n = line.components(separatedBy: "from pass ").last?.split(separator: ":").first.flatMap({ Int($0) }) else { return nil }
            return n
        }, cached: false)
    }

    /// 30 fps with B-frames and an audio track longer than the video: the audio adds nothing.
    func testSeam30fpsWithBFramesAndLongerAudio() throws {
        try checkSeam("seam-30.mp4", frames: 30, loopLength: 1_000_000_000)
    }

    /// The same clip decoded on every pass (no loop cache): the seek-back path.
    func testSeam30fpsDecodedEveryPass() throws {
        try checkSeam("seam-30.mp4", frames: 30, loopLength: 1_000_000_000, args: ["--cache-mb", "0"], cached: false)
    }

    /// A budget smaller than the clip: decoded every pass, the cache given up.
    func testALoopOverTheCacheBudgetIsDecodedEveryPass() throws {
        try checkSeam("seam-24.mp4", frames: 24, loopLength: 1_000_000_000, args: ["--cache-mb", "1"], cached: false)
    }

    /// 24 fps whose timestamps start at 10 s.
    func testSeam24fpsWithNonZeroStart() throws {
        try checkSeam("seam-24.mp4", frames: 24, loopLength: 1_000_000_000)
    }

    /// Variable frame rate: each frame held for its own duration (60 ms, 20 ms, ...). The last
    /// frame lasts what the stream says (40 ms: the stream's duration is 0.98 s, per ffprobe).
    func testSeamVariableFrameRate() throws {
        try checkSeam("seam-vfr.mp4", frames: 24, loopLength: 980_000_000, durations: [60_000_000, 20_000_000])
    }

    /// An mp4 edit list that starts half a second into the stream: 30 frames, not 45.
    func testSeamHonoursTheEditList() throws {
        try checkSeam("seam-elst.mp4", frames: 30, loopLength: 1_000_000_000)
    }
}
