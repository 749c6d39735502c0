// The decoder thread's stateful parts as values, without a decoder: the thread pacer (frame
// threads that follow the load, behind said before a change is decided) and the frame pool's
// watch (a buffer new after the codec's first pass said once, counting stopped past its limit).
@testable import WayLoopKit
import WayLoopCore
import XCTest

final class DecoderPartsTests: XCTestCase {
    private let frame: Nanos = 33_333_333

    /// Slow frames (95 % of a frame's duration): after 30, one change to more threads, once;
    /// taken, applied, and measured afresh.
    func testThePacerAddsThreadsAfterThirtySlowFrames() {
        var p = ThreadPacer(threads: 1)
        var changes: [Int] = []
        for _ in 0..<40 {
            let n = p.note(busy: frame * 95 / 100, frame: frame, queued: 0, base: 1, hardware: false, adaptive: true)
            if let c = n.change { changes.append(c) }
        }
        let most = max(1, Sys.cores)
        XCTAssertEqual(changes, most > 1 ? [2] : [], "one change, decided at the 30th slow frame")
        if most > 1 {
            XCTAssertEqual(p.pendingThreads, 2)
            XCTAssertEqual(p.takePending(), 2)
            XCTAssertNil(p.pendingThreads)
            p.threadsNow = 2
            p.restarted()
            XCTAssertEqual(p.busy, 0)
        }
    }

    /// Behind is said from the pace before a change is decided (with a change pending it would
    /// not be behind), and never for a queue that holds frames, hardware aside.
    func testBehindIsSaidBeforeAChangeAndNotWithAFullQueue() {
        var p = ThreadPacer(threads: max(1, Sys.cores))
        var behind = false
        for _ in 0..<40 {
            behind = p.note(busy: frame * 2, frame: frame, queued: 0, base: 1, hardware: false, adaptive: true).behind
        }
        XCTAssertTrue(behind, "twice a frame's duration per frame with every core: behind")
        XCTAssertFalse(p.isBehind(frame: frame, queued: 3, base: 1, hardware: false, adaptive: true), "a full queue is not behind")
        var quick = ThreadPacer(threads: 1)
        for _ in 0..<40 {
            behind = quick.note(busy: frame / 10, frame: frame, queued: 0, base: 1, hardware: false, adaptive: true).behind
        }
        XCTAssertFalse(behind)
    }

    /// Hardware decoding or fixed threads: no change is ever decided.
    func testNoChangeOnHardwareOrFixedThreads() {
        for (hardware, adaptive) in [(true, true), (false, false)] {
            var p = ThreadPacer(threads: 1)
            for _ in 0..<60 {
                XCTAssertNil(p.note(busy: frame * 2, frame: frame, queued: 0, base: 1, hardware: hardware, adaptive: adaptive).change)
            }
        }
    }

    /// The pool's buffers: the first pass fills it quietly; a new one after is said, with its
    /// count; one seen before is nothing; past the limit, counting stops (said once); a codec
    /// opened again starts afresh.
    func testThePoolWatch() {
        var w = PoolWatch()
        w.codecOpened(pass: 0, at: 0)
        for b in 1...5 { XCTAssertEqual(w.note(UInt(b), pass: 0, now: 0), .nothing) }
        XCTAssertEqual(w.note(6, pass: 1, now: 2_500_000_000), .grew(count: 6, seconds: 2.5))
        XCTAssertEqual(w.note(6, pass: 2, now: 3_000_000_000), .nothing, "a buffer seen before")
        for b in 7...PoolWatch.tracked { _ = w.note(UInt(b), pass: 0, now: 0) }
        XCTAssertEqual(w.note(UInt(PoolWatch.tracked + 1), pass: 3, now: 0), .stopsCounting)
        XCTAssertEqual(w.note(UInt(PoolWatch.tracked + 2), pass: 3, now: 0), .nothing, "said once")
        w.codecOpened(pass: 4, at: 0)
        XCTAssertEqual(w.note(1, pass: 4, now: 0), .nothing, "the first pass of the codec opened again")
        XCTAssertEqual(w.note(2, pass: 5, now: 1_000_000_000), .grew(count: 2, seconds: 1))
    }
}
