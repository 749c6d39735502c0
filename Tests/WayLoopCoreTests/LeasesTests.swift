// Frames with lifetimes, the decisions: the surface budget, the choice to hand frames on in
// place, the loop cache's rule, and the fake pool that proves what no screen shows.
import WayLoopCore
import XCTest

final class LeasesTests: XCTestCase {
    func testTheSurfaceBudgetIsTheQueueAndTheSurfacesShown() {
        // The pool's extra surfaces for a queue of 4: 4 + 4 shown + 3 spare = 11; WayLoop holds 8 of them at most.
        XCTAssertEqual(HwdecPool.extraFrames(copying: false, queued: 4, held: SurfaceBudget.leasedMax), 11)
        XCTAssertEqual(SurfaceBudget.limit(capacity: 4), 8)
        XCTAssertEqual(SurfaceBudget.limit(capacity: 12), 16)
        // Never below what a copy path's pool gives (mpv's 6 extra: 3 held).
        XCTAssertEqual(SurfaceBudget.limit(capacity: 0), 4)
        let rows: [(queued: Int, leased: Int, capacity: Int, limit: Int, admits: Bool)] = [
            (0, 0, 4, 8, true),
            (3, 4, 4, 8, true),     // 7 out: one more fits
            (4, 0, 4, 8, false),    // the queue is full
            (3, 5, 4, 8, false),    // 8 out: the decoder waits for a lease to end
            (0, 8, 4, 8, false),    // every surface shown (several outputs): waits, never dry
            (0, 0, 4, 0, false),    // no budget: nothing handed on in place is queued
        ]
        for r in rows {
            XCTAssertEqual(SurfaceBudget.admits(queued: r.queued, leased: r.leased, capacity: r.capacity, limit: r.limit), r.admits, "\(r)")
        }
    }

    func testFramesAreHandedOnInPlaceOnlyWhereTheDeviceTakesThem() {
        let rows: [(exports: String?, takes: [String], final: Bool, want: FrameDelivery)] = [
            (nil, ["cpu"], true, .copyBack),                   // every real path today
            ("dmabuf", ["cpu"], true, .copyBack),              // a device that takes no dmabuf
            ("dmabuf", ["cpu", "dmabuf"], false, .copyBack),   // the device has not said yet
            ("dmabuf", ["cpu", "dmabuf"], true, .inPlace("dmabuf")),
            ("cpu", ["cpu"], false, .inPlace("cpu")),          // the fake's in-memory surfaces: every device takes memory
            ("cpu", [], true, .copyBack),
        ]
        for r in rows {
            let got = FrameDelivery.choose(exportsTo: r.exports, deviceTakes: r.takes, deviceIsFinal: r.final)
            XCTAssertEqual(got, r.want, "\(r)")
            XCTAssertEqual(got.storage, r.want == .copyBack ? .cpu : .surface)
        }
        XCTAssertTrue(LoopCacheRule.keeps(.cpu))
        XCTAssertFalse(LoopCacheRule.keeps(.surface))
    }

    func testTheFakePoolCountsReuseWhileShownAndRunningDry() {
        var pool = SurfacePool(size: 2, limit: 1)
        let a = pool.take(), b = pool.take()
        XCTAssertEqual([a, b], [0, 1])
        XCTAssertNil(pool.take())
        XCTAssertEqual(pool.stats.dry, 1)
        XCTAssertEqual(pool.stats.mostOut, 2)
        // Shown by a buffer, then given back early (a lease that ended too soon): the last given
        // back goes out first, and taking it while shown is a reuse.
        pool.shown(0, by: 1)
        pool.giveBack(0)
        XCTAssertEqual(pool.take(), 0)
        XCTAssertEqual(pool.stats.reusedWhileShown, 1)
        // Released by the compositor first, then given back: no reuse.
        pool.shown(0, by: -1)
        pool.giveBack(1)
        pool.giveBack(0)
        XCTAssertEqual(pool.take(), 0)
        XCTAssertEqual(pool.take(), 1)
        XCTAssertEqual(pool.stats.reusedWhileShown, 1)
        XCTAssertEqual(pool.stats.mostShown, 1)
        XCTAssertEqual(pool.stats.taken, 5)
        // Given back twice (or a stranger's id): counted once, never a second free entry.
        pool.giveBack(0)
        pool.giveBack(0)
        pool.giveBack(7)
        XCTAssertEqual(pool.stats.out, 1)
        XCTAssertEqual(pool.take(), 0)
        XCTAssertNil(pool.take())
    }

    func testSurfaceStatsRoundTripThroughStatus() throws {
        let stats = SurfaceStats(pool: 19, limit: 16, out: 7, mostOut: 18, taken: 240, dry: 0, reusedWhileShown: 0, mostShown: 2)
        var status = OutputStatus(name: "HEADLESS-1", video: "/a.mp4", mode: .fill, state: .playing)
        status.surfaces = stats
        let back = try XCTUnwrap(OutputStatus(json: status.json))
        XCTAssertEqual(back.surfaces, stats)
        XCTAssertNil(OutputStatus(json: OutputStatus(name: "X", video: nil, mode: nil, state: .idle).json)?.surfaces)
    }
}
