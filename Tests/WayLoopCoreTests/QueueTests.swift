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
