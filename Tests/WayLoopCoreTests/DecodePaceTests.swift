import XCTest
@testable import WayLoopCore

/// Software decoding that keeps up, and says when it cannot.
final class DecodePaceTests: XCTestCase {
    private let frame: Nanos = 33_333_333

    func testFrameThreadsFollowTheLoadWithinTheCores() {
        // (current, base, busy ms, cores, tooSlow, want)
        let rows: [(Int, Int, Double, Int, Int, Int?)] = [
            (1, 1, 20, 2, 0, nil),   // 0.6 of a frame: fine
            (1, 1, 29, 2, 0, 2),     // 0.87: behind, doubles
            (1, 1, 48, 16, 0, 2),
            (2, 1, 40, 16, 1, 4),
            (8, 1, 40, 16, 4, 16),
            (12, 1, 40, 16, 8, 16),  // doubling past the cores stops at them
            (2, 1, 40, 2, 1, nil),   // behind with every core: nothing more to add
            (1, 2, 40, 1, 0, 2),     // the renderer's own base counts as possible
            (4, 1, 10, 16, 0, 2),    // 0.3: far ahead, halves
            (2, 1, 10, 16, 1, nil),  // ...but never back to a count it was behind with
            (2, 2, 5, 16, 0, nil),   // never below the base
            (3, 1, 10, 16, 0, 1),
            (1, 1, 0, 2, 0, nil),    // nothing measured yet
        ]
        for (current, base, ms, cores, tooSlow, want) in rows {
            XCTAssertEqual(DecodeThreads.next(current: current, base: base, busy: Nanos(ms * 1e6), frame: frame, cores: cores, tooSlow: tooSlow),
                           want, "\(current) threads, \(ms) ms, \(cores) cores, too slow at \(tooSlow)")
        }
        XCTAssertNil(DecodeThreads.next(current: 1, base: 1, busy: 40_000_000, frame: 0, cores: 2))
        // A full queue: not behind, however long frames take (a loaded machine stretches wall time).
        XCTAssertNil(DecodeThreads.next(current: 1, base: 1, busy: 40_000_000, frame: frame, cores: 2, queued: 3))
        XCTAssertEqual(DecodeThreads.next(current: 1, base: 1, busy: 40_000_000, frame: frame, cores: 2, queued: 1), 2)
    }

    func testALateFrameIsOneThatCannotReachTheScreenInTime() {
        let ms: Nanos = 1_000_000
        // (media, screen, busy, queued, wanted)
        let rows: [(Nanos, Nanos?, Nanos, Int, Bool)] = [
            (100 * ms, nil, 50 * ms, 0, true),          // not playing yet
            (100 * ms, 0, 50 * ms, 0, true),            // 100 ms ahead, 50 ms to decode
            (100 * ms, 60 * ms, 50 * ms, 0, false),     // 40 ms ahead: comes out late
            (100 * ms, 100 * ms, 10 * ms, 0, false),    // due now
            (200 * ms, 100 * ms, 40 * ms, 4, false),    // 100 ms ahead; with a queue of 4, three frames' decoding first
            (300 * ms, 100 * ms, 40 * ms, 4, true),
            (50 * ms, 100 * ms, 1 * ms, 0, false),      // already past
            (Nanos.max / 2, 0, Nanos.max / 2, 64, true), // no overflow trap: the lead saturates
        ]
        for (media, screen, busy, queued, want) in rows {
            XCTAssertEqual(LateFrames.wanted(media, screen: screen, busy: busy, queued: queued), want,
                           "\(media) on \(screen.map(String.init) ?? "-"), \(busy), \(queued)")
        }
    }

    func testFramesLeftOutBetweenTwoShownOnes() {
        let rows: [((Int, Int), (Int, Int), Int?, Int)] = [
            ((0, 3), (0, 4), nil, 0), ((0, 3), (0, 7), nil, 3), ((0, 28), (1, 0), 30, 1), ((0, 29), (1, 0), 30, 0),
            ((0, 27), (1, 2), 30, 4), ((0, 27), (1, 2), nil, 2), ((2, 5), (2, 5), 30, 0), ((2, 5), (4, 0), 30, 0),
        ]
        for (a, b, n, want) in rows {
            XCTAssertEqual(LateFrames.between(previous: (a.0, a.1), next: (b.0, b.1), passFrames: n), want, "\(a) -> \(b)")
        }
    }

    func testTheShownRateAndWhatStatusSays() {
        var r = ShownRate()
        XCTAssertNil(r.fps(now: 0))
        for i in 0..<40 { r.shown(at: Nanos(i) * 50_000_000) }   // 20 fps for 2 s
        XCTAssertEqual(r.fps(now: 1_950_000_000) ?? 0, 20, accuracy: 0.01)
        XCTAssertNil(r.fps(now: 10_000_000_000), "nothing shown lately: no rate")
        for i in 0..<200 { r.shown(at: 2_000_000_000 + Nanos(i) * 16_666_667) }  // the ring keeps the last 64
        XCTAssertEqual(r.fps(now: 2_000_000_000 + 199 * 16_666_667) ?? 0, 60, accuracy: 0.1)
        r.reset()
        XCTAssertNil(r.fps(now: 0))

        XCTAssertEqual(DecodeHealth.behind(shownFps: 19.2, clipFps: 30, decoderBehind: true, capped: false), "decoding behind: 19 of 30 fps")
        XCTAssertEqual(DecodeHealth.behind(shownFps: 36.6, clipFps: 59.94, decoderBehind: true, capped: false), "decoding behind: 37 of 60 fps")
        XCTAssertNil(DecodeHealth.behind(shownFps: 28, clipFps: 30, decoderBehind: true, capped: false), "within 10 %")
        XCTAssertNil(DecodeHealth.behind(shownFps: 10, clipFps: 30, decoderBehind: false, capped: false), "slow for another reason")
        XCTAssertNil(DecodeHealth.behind(shownFps: 10, clipFps: 30, decoderBehind: true, capped: true), "a cap sets the pace")
        XCTAssertNil(DecodeHealth.behind(shownFps: nil, clipFps: 30, decoderBehind: true, capped: false))
    }
}
