import XCTest
@testable import WayLoopCore

final class FrameCapTests: XCTestCase {
    func testParseTakesACapZeroOrOffAndRefusesTheRest() {
        let rows: [(String, Double?)] = [("30", 30), ("23.976", 23.976), ("1", 1), ("1000", 1000), ("0", 0), ("off", 0), ("OFF", 0),
                                         ("0.5", nil), ("1001", nil), ("-5", nil), ("nan", nil), ("inf", nil), ("", nil), ("30fps", nil)]
        for (text, want) in rows { XCTAssertEqual(FrameCap.parse(text), want, text) }
    }

    func testTheEffectiveCapIsTheLowerOfMaxAndBatteryOnBattery() {
        let rows: [(max: Double, battery: Double, onBattery: Bool, want: Double?)] = [
            (0, 0, false, nil), (0, 0, true, nil), (30, 0, true, 30), (30, 0, false, 30),
            (0, 10, false, nil), (0, 10, true, 10), (30, 10, true, 10), (30, 10, false, 30), (10, 30, true, 10),
        ]
        for r in rows {
            XCTAssertEqual(FrameCap.effective(maxFps: r.max, batteryFps: r.battery, onBattery: r.onBattery), r.want, "\(r)")
        }
    }

    /// Which of `frames` (indices of a clip at `fps`, whole nanoseconds) an output under `cap` commits.
    private func committed(_ frames: [Int], fps: Double, cap: Double) -> [Int] {
        var shown: Int64? = nil
        return frames.filter { i in
            let t = Nanos((Double(i) * 1e9 / fps).rounded())
            guard FrameCap.isNew(mediaTime: t, shownSlot: shown, cap: cap) else { return false }
            shown = FrameCap.slot(t, fps: cap)
            return true
        }
    }

    /// 1/60 s is no whole number of nanoseconds: every other frame still starts a slot of 1/30 s.
    func testEveryOtherFrameOfSixtyStartsASlotOfThirty() {
        XCTAssertEqual(committed(Array(0..<120), fps: 60, cap: 30), Array(stride(from: 0, to: 120, by: 2)))
    }

    func testThirtyAtTenCommitsEveryThirdFrame() {
        XCTAssertEqual(committed(Array(0..<90), fps: 30, cap: 10), Array(stride(from: 0, to: 90, by: 3)))
    }

    /// Frames left out by the decoder (non-reference B-frames): a slot without a frame of its own
    /// takes the next one, at most one source frame late; none is committed twice in a slot.
    func testASlotWithoutItsFrameTakesTheNextOne() {
        let decoded = [0, 2, 3, 4, 6, 7, 8, 11, 12]  // of a 60 fps clip: 1, 5, 9, 10 left out
        XCTAssertEqual(committed(decoded, fps: 60, cap: 30), [0, 2, 4, 6, 8, 11, 12])
    }

    func testWithoutACapOrBeforeTheFirstCommitEveryFrameIsNew() {
        XCTAssertTrue(FrameCap.isNew(mediaTime: 5, shownSlot: 0, cap: nil))
        XCTAssertTrue(FrameCap.isNew(mediaTime: 5, shownSlot: nil, cap: 30))
        XCTAssertNil(FrameCap.nextStart(shownSlot: 3, cap: nil))
        XCTAssertNil(FrameCap.nextStart(shownSlot: nil, cap: 30))
    }

    func testTheNextSlotStartsWhereTheSlotOfItsFirstFrameBegins() {
        for cap in [1.0, 10, 24, 23.976, 30, 60, 144] {
            for n: Int64 in [0, 1, 7, 1000, 86_400 * 60] {
                let start = FrameCap.start(ofSlot: n + 1, fps: cap)
                XCTAssertEqual(FrameCap.slot(start, fps: cap), n + 1, "cap \(cap) slot \(n)")
                XCTAssertEqual(FrameCap.slot(start - 1, fps: cap), n, "cap \(cap) slot \(n)")
                XCTAssertEqual(FrameCap.nextStart(shownSlot: n, cap: cap), start)
            }
        }
    }

    func testTheDecoderSkipsOnlyWhenEveryOutputIsCappedBelowTheClipsRate() {
        let rows: [(caps: [Double?], fps: Double?, want: Double?)] = [
            ([30], 60, 30), ([30], 59.999998, 30), ([45], 60, 45), ([60], 60, nil), ([59.9], 60, nil), ([120], 60, nil),
            ([10], 30, 10), ([10, 15], 30, 15), ([10, 30], 30, nil), ([10, nil], 30, nil), ([nil], 30, nil), ([], 30, nil),
            ([10], nil, nil), ([10], 0, nil), ([29.97], 59.94, 29.97),
        ]
        for r in rows { XCTAssertEqual(FrameCap.skipCap(caps: r.caps, clipFps: r.fps), r.want, "\(r)") }
    }

    /// The frames the decoder must decode are exactly those the outputs commit: the first of
    /// each slot, for any rate and cap.
    func testTheWantedFramesAreTheOnesTheOutputCommits() {
        for (fps, cap) in [(60.0, 30.0), (30, 10), (60, 45), (59.94, 29.97), (24, 10), (30, 29)] {
            let d = Nanos((1e9 / fps).rounded())
            var shown: Int64? = nil
            for i in 0..<600 {
                let t = Nanos((Double(i) * 1e9 / fps).rounded())
                let commits = FrameCap.isNew(mediaTime: t, shownSlot: shown, cap: cap)
                if commits { shown = FrameCap.slot(t, fps: cap) }
                XCTAssertEqual(FrameCap.wanted(t, frameDuration: d, cap: cap), commits, "\(fps) at \(cap): frame \(i)")
            }
        }
    }

    func testAClipIsCappedOnlyWhenEveryOutputShowingItIs() {
        XCTAssertEqual(FrameCap.clipCap([10, 30]), 30)
        XCTAssertNil(FrameCap.clipCap([10, nil]))
        XCTAssertNil(FrameCap.clipCap([]))
    }

    func testTheSettingsTableTakesTheCapsEverywhere() throws {
        var e = OutputEntry(selector: .all)
        XCTAssertTrue(EntrySettings.maxFps.set("24", in: &e))
        XCTAssertTrue(EntrySettings.batteryFps.set("off", in: &e))
        XCTAssertFalse(EntrySettings.maxFps.set("fast", in: &e))
        XCTAssertEqual(e.maxFps, 24)
        XCTAssertEqual(e.batteryFps, 0)
        XCTAssertEqual(EntrySettings.maxFps.value(in: e), "24")
        XCTAssertEqual(EntrySettings.maxFps.problem("fast"), "'fast' is not \(FrameCap.expected)")
        XCTAssertEqual(EntrySettings.flag("--max-fps")?.key, "max-fps")
        XCTAssertEqual(EntrySettings.key("battery-fps")?.key, "battery-fps")
    }

    func testANamedOutputsCapBeatsTheDefaultAndZeroLiftsIt() {
        var o = Options()
        var all = OutputEntry(selector: .all, video: "/v.mp4")
        all.maxFps = 30
        all.batteryFps = 10
        var dp = OutputEntry(selector: .named("DP-1"))
        dp.maxFps = 0
        o.entries = [dp, all]
        XCTAssertEqual(o.settings(forOutput: "HDMI-A-1")?.maxFps, 30)
        XCTAssertEqual(o.settings(forOutput: "HDMI-A-1")?.batteryFps, 10)
        XCTAssertEqual(o.settings(forOutput: "DP-1")?.maxFps, 0)
        XCTAssertEqual(o.settings(forOutput: "DP-1")?.batteryFps, 10)
    }

    func testStatusSaysTheCap() {
        let s = OutputStatus(name: "DP-1", video: "/v.mp4", mode: .fill, state: .playing, maxFps: 24)
        XCTAssertTrue(s.line.contains("at most 24 fps"), s.line)
        XCTAssertEqual(s.json["max_fps"]?.number, 24)
        XCTAssertEqual(OutputStatus(json: s.json)?.maxFps, 24)
        let none = OutputStatus(name: "DP-1", video: "/v.mp4", mode: .fill, state: .playing)
        XCTAssertFalse(none.line.contains("fps"))
        XCTAssertNil(none.json["max_fps"])
    }

    /// A decoder that leaves frames out: packets in decode order (I P B b b ...), frames out in
    /// presentation order without the left-out ones; the indices and the pass's end stay the clip's.
    func testPassFramesKeepTheClipsIndicesAndEndWhenFramesAreLeftOut() {
        let d: Nanos = 10
        var p = PassFrames()
        // display order 0..7; decode order: 0 4 2 1 3 8? no: 0, 4, 2, 1, 3, 7, 6, 5
        for (pts, left) in [(0, false), (40, false), (20, false), (10, true), (30, true), (70, false), (60, false), (50, true)] {
            p.packet(pts: Nanos(pts), duration: d, skipped: left)
        }
        XCTAssertTrue(p.skipped)
        XCTAssertEqual(p.end, 80)
        // frames out: 0, 20, 40, 60, 70 (10, 30, 50 were left out)
        XCTAssertEqual([0, 20, 40, 60, 70].map { p.index(ofFrame: $0) }, [0, 2, 4, 6, 7])
        p.reset()
        XCTAssertFalse(p.skipped)
        XCTAssertNil(p.end)
    }

    func testTheStamperTakesTheIndicesAndTheEndItIsGiven() {
        var s = LoopStamper<Int>()
        var out: [StampedFrame<Int>] = []
        for (pts, index) in [(0, 0), (20, 2), (40, 4)] {
            if let f = s.push(pts, pts: Nanos(pts), ownDuration: 10, index: index) { out.append(f) }
        }
        if let f = s.wrap(end: 60) { out.append(f) }  // the last source frame (50) was left out
        XCTAssertEqual(out.map(\.index), [0, 2, 4])
        XCTAssertEqual(out.map(\.duration), [20, 20, 20])
        XCTAssertEqual(s.loopLength, 60)
    }
}
