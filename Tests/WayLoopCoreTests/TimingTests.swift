import WayLoopCore
import XCTest

final class TimingTests: XCTestCase {
    private let ms: Nanos = 1_000_000

    /// Feeds `passes` passes of frames with the given PTS (ms) through a stamper.
    private func stamp(pts: [Nanos?], own: Nanos, passes: Int) -> (frames: [StampedFrame<Int>], loop: Nanos?) {
        var s = LoopStamper<Int>()
        var out: [StampedFrame<Int>] = []
        for _ in 0..<passes {
            for (i, p) in pts.enumerated() {
                if let f = s.push(i, pts: p.map { $0 * ms }, ownDuration: own * ms) { out.append(f) }
            }
            if let f = s.wrap() { out.append(f) }
        }
        return (out, s.loopLength)
    }

    func testGaplessAcrossTheWrapWithNonZeroStart() {
        // 4 frames at 30 fps starting at PTS 1000 ms: the loop is 4 × 33 = 132 ms long.
        let (frames, loop) = stamp(pts: [1000, 1033, 1066, 1099], own: 33, passes: 3)
        XCTAssertEqual(loop, 132 * ms)
        XCTAssertEqual(frames.count, 12)
        XCTAssertEqual(frames.map(\.payload), [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3])
        XCTAssertEqual(frames.map(\.pass), [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2])
        // Every frame starts exactly where the previous one ended, across both wraps.
        for (a, b) in zip(frames, frames.dropFirst()) {
            XCTAssertEqual(a.mediaTime + a.duration, b.mediaTime, "gap after pass \(a.pass) frame \(a.index)")
        }
        XCTAssertEqual(frames[4].mediaTime, 132 * ms)
        XCTAssertEqual(frames[0].mediaTime, 0)
    }

    /// After a replayed loop cache is dropped, decoding goes on at pass k: its frames follow the
    /// replayed passes without a gap (pass k starts at k × the loop length).
    func testSkippingToAPassAfterAReplay() {
        var s = LoopStamper<Int>()
        var out: [StampedFrame<Int>] = []
        func pass() {
            for (i, p) in [1000, 1033, 1066, 1099].enumerated() {
                if let f = s.push(i, pts: Nanos(p) * ms, ownDuration: 33 * ms) { out.append(f) }
            }
            if let f = s.wrap() { out.append(f) }
        }
        pass()
        s.skip(toPass: 5)  // passes 1-4 were replayed from memory
        pass()
        XCTAssertEqual(out.map(\.pass), [0, 0, 0, 0, 5, 5, 5, 5])
        XCTAssertEqual(out[4].mediaTime, 5 * 132 * ms, "pass 5 starts 5 loop lengths in")
        XCTAssertEqual(out[4].index, 0)
        for (a, b) in zip(out[4...], out[5...]) { XCTAssertEqual(a.mediaTime + a.duration, b.mediaTime) }
        s.skip(toPass: 3)  // never backwards
        XCTAssertEqual(s.pass, 6)
    }

    func testVariableFrameRateDurationsComeFromTheNextPTS() {
        let (frames, loop) = stamp(pts: [0, 10, 50, 60], own: 40, passes: 2)
        XCTAssertEqual(frames.prefix(4).map(\.duration), [10, 40, 10, 40].map { $0 * ms })
        XCTAssertEqual(loop, 100 * ms)
        XCTAssertEqual(frames[4].mediaTime, 100 * ms)
    }

    func testMissingAndNonIncreasingPTSAreRepaired() {
        let (frames, _) = stamp(pts: [0, nil, 20, 20], own: 10, passes: 1)
        let times = frames.map(\.mediaTime)
        XCTAssertEqual(times[0], 0)
        XCTAssertEqual(times[1], 10 * ms)
        XCTAssertEqual(times[2], 20 * ms)
        XCTAssertGreaterThan(times[3], times[2])
    }

    func testOneFramePass() {
        let (frames, loop) = stamp(pts: [0], own: 40, passes: 1)
        XCTAssertEqual(frames.count, 1)
        XCTAssertEqual(loop, 40 * ms)
    }

    /// Which frame is due at time t, across the loop wrap, with an injected clock.
    func testDueFrameAcrossTheWrap() {
        let (frames, _) = stamp(pts: [0, 40, 80], own: 40, passes: 2) // loop 120 ms
        let times = frames.map(\.mediaTime)
        var clock = PlaybackClock()
        XCTAssertNil(clock.mediaTime(at: 5))
        let start: Nanos = 7_000 * ms
        clock.start(now: start, at: 0)
        let table: [(at: Nanos, due: Int)] = [
            (0, 1), (39, 1), (40, 2), (119, 3), (120, 4), (121, 4), (160, 5), (239, 6), (500, 6),
        ]
        for row in table {
            let media = clock.mediaTime(at: start + row.at * ms)!
            XCTAssertEqual(FramePick.dueCount(queued: times, at: media), row.due, "at \(row.at) ms")
        }
        XCTAssertEqual(clock.wallTime(of: times[3]), start + 120 * ms)
    }

    /// After a stall (hidden output, pause), playback continues where it stopped.
    func testStalledClockResumesWhereItStopped() {
        var clock = PlaybackClock()
        clock.start(now: 1_000 * ms, at: 0)
        // Frame at 0 ms lasting 40 ms, looked at 100 ms later: within tolerance, no change.
        XCTAssertFalse(clock.resumeIfStalled(now: 1_140 * ms, shown: 0, duration: 40 * ms))
        XCTAssertEqual(clock.mediaTime(at: 1_140 * ms), 140 * ms)
        // 10 s later: the next frame (40 ms) is due now, not 10 s of frames.
        XCTAssertTrue(clock.resumeIfStalled(now: 11_000 * ms, shown: 0, duration: 40 * ms))
        XCTAssertEqual(clock.mediaTime(at: 11_000 * ms), 40 * ms)
    }
}
