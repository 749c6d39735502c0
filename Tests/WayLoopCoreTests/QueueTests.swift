import WayLoopCore
import XCTest

final class QueueTests: XCTestCase {
    func testBoundedAndOrderedAcrossTheRingWrap() {
        var q = BoundedQueue<Int>(capacity: 3)
        XCTAssertTrue(q.push(1))
        XCTAssertTrue(q.push(2))
        XCTAssertTrue(q.push(3))
        XCTAssertFalse(q.push(4), "a full queue refuses")
        XCTAssertEqual(Array(q), [1, 2, 3])
        XCTAssertEqual(q.pop(), 1)
        XCTAssertTrue(q.push(5)) // wraps around the ring
        XCTAssertEqual(Array(q), [2, 3, 5])
        XCTAssertEqual(q.peek(), 2)
        XCTAssertEqual(q.peek(2), 5)
        XCTAssertNil(q.peek(3))
        XCTAssertEqual([q.pop(), q.pop(), q.pop(), q.pop()], [2, 3, 5, nil])
        XCTAssertTrue(q.isEmpty)
    }

    /// Frames from the end of one pass and the start of the next keep their order through the
    /// queue, and the frame picker sees the new pass's first frame right after the old last.
    func testOrderAcrossTheLoopWrap() {
        var s = LoopStamper<String>()
        var q = BoundedQueue<StampedFrame<String>>(capacity: 8)
        for pass in 0..<2 {
            for (i, pts) in [0, 33, 66].enumerated() {
                if let f = s.push("p\(pass)f\(i)", pts: Nanos(pts) * 1_000_000, ownDuration: 33_000_000) { q.push(f) }
            }
            if let f = s.wrap() { q.push(f) }
        }
        XCTAssertEqual(q.map(\.payload), ["p0f0", "p0f1", "p0f2", "p1f0", "p1f1", "p1f2"])
        XCTAssertEqual(FramePick.dueCount(queued: q.lazy.map(\.mediaTime), at: 99_000_000), 4)
    }
}

final class QueueBudgetTests: XCTestCase {
    func testBytesAndFrames() {
        let mb = 1 << 20
        let hd = 3 * mb, uhd8k = 100 * mb
        let cases: [(count: Int, queued: Int, adding: Int, want: Bool, note: String)] = [
            (0, 0, hd, true, "empty"),
            (7, 7 * hd, hd, true, "eight 1080p frames fit 48 MiB"),
            (8, 8 * hd, hd, false, "the frame count still bounds it"),
            (0, 0, uhd8k, true, "a huge frame: first"),
            (1, uhd8k, uhd8k, true, "never below two frames"),
            (2, 2 * uhd8k, uhd8k, false, "a third 8192x8192 frame waits"),
            (3, 45 * mb, 4 * mb, false, "over the budget"),
            (3, 44 * mb, 4 * mb, true, "at the budget"),
        ]
        for c in cases {
            XCTAssertEqual(QueueBudget.admits(count: c.count, capacity: 8, queuedBytes: c.queued, adding: c.adding), c.want, c.note)
        }
    }

    func testFramesHeldBeyondTheScreenTakeAPlace() {
        let hd = 3 << 20
        let cases: [(count: Int, held: Int, want: Bool, note: String)] = [
            (7, 0, true, "nothing on screen yet"),
            (7, 1, true, "the frame on screen is free"),
            (7, 2, false, "the next one taken while the old one is given back: the decoder waits"),
            (6, 2, true, "then there is room"),
            (5, 4, false, "late frames not yet recycled count too"),
            (4, 4, true, ""),
            (0, 3, true, "two held beyond the screen: the bytes still fit"),
        ]
        for c in cases {
            XCTAssertEqual(QueueBudget.admits(count: c.count, held: c.held, heldBytes: c.held * hd, capacity: 8,
                                              queuedBytes: c.count * hd, adding: hd), c.want, c.note)
        }
        // Where bytes bound the queue (4K frames, ~12.4 MB: four queued fill 48 MiB), a frame
        // held beside the one on screen takes its bytes' place.
        let uhd = 12_441_600
        let byBytes: [(count: Int, held: Int, want: Bool, note: String)] = [
            (3, 1, true, "a fourth 4K frame fits"),
            (4, 1, false, "a fifth does not"),
            (3, 2, false, "two held: the one beyond the screen counts in bytes too"),
            (2, 2, true, "room again once one more is out"),
            (2, 3, false, "three held: two beyond the screen"),
        ]
        for c in byBytes {
            XCTAssertEqual(QueueBudget.admits(count: c.count, held: c.held, heldBytes: c.held * uhd, capacity: 8,
                                              queuedBytes: c.count * uhd, adding: uhd), c.want, c.note)
        }
    }
}
