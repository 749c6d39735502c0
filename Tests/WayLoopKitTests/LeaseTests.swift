// Frames with lifetimes in the channel itself, without a decoder or a screen: a frame that
// pins a surface goes back to its pool only when the last holder of its lease lets go, and
// the decoder's side waits at the surface budget (queued and leased) instead of taking more.
import CFFmpeg
@testable import WayLoopKit
import WayLoopCore
import WayLoopTestSupport
import XCTest

final class LeaseTests: XCTestCase {
    /// A surface frame, as the hardware path hands one on in place.
    private func surfaceFrame(_ channel: FrameChannel, _ ledger: SurfaceLedger, index: Int) throws -> StampedFrame<FrameHandle> {
        let frame = try XCTUnwrap(channel.obtainFrame())
        frame.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        frame.pointee.width = 64
        frame.pointee.height = 36
        XCTAssertGreaterThanOrEqual(av_frame_get_buffer(frame, 0), 0)
        let tag = try XCTUnwrap(ledger.take(), "the pool ran dry")
        return StampedFrame(payload: FrameHandle(frame: frame, surface: tag), mediaTime: Nanos(index) * 33_333_333,
                            duration: 33_333_333, pass: 0, index: index)
    }

    func testASurfaceGoesBackOnlyWhenTheLastLeaseEndsAndTheBudgetWaitsForIt() throws {
        let wakeup = try XCTUnwrap(WakeupFD())
        let channel = FrameChannel(capacity: 4, wakeup: wakeup, limits: PictureLimits())
        let ledger = SurfaceLedger(size: 4, limit: 2)
        channel.handsOnSurfaces(limit: 2, ledger: ledger)
        XCTAssertTrue(channel.push(try surfaceFrame(channel, ledger, index: 0)))
        XCTAssertTrue(channel.push(try surfaceFrame(channel, ledger, index: 1)))
        // Two out (the budget): the third waits on another thread until a lease ends.
        nonisolated(unsafe) let third = try surfaceFrame(channel, ledger, index: 2)
        let pushed = ConditionLock()
        nonisolated(unsafe) var done = false
        let pusher = try XCTUnwrap(WorkerThread {
            _ = channel.push(third)
            pushed.withLock { done = true }
        })
        var lease: FrameLease? = FrameLease(try XCTUnwrap(channel.takeNext()), channel: channel)
        // A sink keeps it (the compositor has not released the buffer yet) after the clip moved on.
        var shown = ShownLeases()
        shown.hold(try XCTUnwrap(Picture(frame: lease!.frame.payload.frame, serial: 1, clip: "a", orientation: .upright, lease: lease)))
        XCTAssertEqual(shown.leases.count, 1)
        XCTAssertEqual(lease?.storage, .surface)
        lease = nil
        usleep(100_000)
        XCTAssertFalse(pushed.withLock { done }, "the decoder queued past the budget while a sink held a surface")
        XCTAssertEqual(ledger.stats.out, 3, "a surface went back while a sink held its lease")
        // The compositor let go: the surface goes back, and the decoder queues the third.
        shown.letGo()
        XCTAssertTrue(Wait.until(timeout: 5) { pushed.withLock { done } }, "the decoder never went on")
        pusher.join()
        XCTAssertEqual(ledger.stats.out, 2)
        XCTAssertEqual(ledger.stats.reusedWhileShown, 0)
        XCTAssertEqual(channel.surfaceStats?.limit, 2)
        channel.requestStop()
        channel.purge()
        XCTAssertEqual(ledger.stats.out, 0, "purging the queue gives its surfaces back")
    }
}
