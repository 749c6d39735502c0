import XCTest
@testable import WayLoopCore

final class StartupTimelineTests: XCTestCase {
    func testTheLineGivesEachStepAfterExecOnceTheFrameIsPresented() {
        var t = StartupTimeline(exec: 1_000_000_000)
        let ms: Nanos = 1_000_000
        t.mark(.main, at: 1_000_000_000 + 6 * ms)
        t.mark(.checked, at: 1_000_000_000 + 9 * ms)
        t.mark(.connected, at: 1_000_000_000 + 10 * ms)
        XCTAssertNil(t.line, "no line before the first presentation")
        t.mark(.outputs, at: 1_000_000_000 + 12 * ms)
        t.mark(.renderer, at: 1_000_000_000 + 13 * ms)
        t.mark(.decoded, at: 1_000_000_000 + 30 * ms)
        t.mark(.configured, at: 1_000_000_000 + 20 * ms)
        t.mark(.committed, at: 1_000_000_000 + 35 * ms)
        t.mark(.committed, at: 1_000_000_000 + 99 * ms)  // only the first counts
        t.mark(.presented, at: 1_000_000_000 + 48_250_000)
        XCTAssertTrue(t.isComplete)
        XCTAssertEqual(t.line, "first frame on screen 48.3 ms after exec: main 6.0, checked 9.0, connected 10.0, outputs 12.0, "
                       + "renderer 13.0, decoded 30.0, configured 20.0, committed 35.0, presented 48.3 (ms after exec)")
    }

    func testWithoutTheExecTimeTheLineCountsFromMainAndSkipsMissingSteps() {
        var t = StartupTimeline(exec: nil)
        t.mark(.main, at: 100)
        t.mark(.committed, at: 100 + 2_000_000)
        t.mark(.presented, at: 100 + 5_000_000)
        XCTAssertEqual(t.line, "first frame on screen 5.0 ms after main: main 0.0, committed 2.0, presented 5.0 (ms after main)")
    }

    func testAFrameCallbackBeforeAnyCommitIsNotTheFirstFrame() {
        var t = StartupTimeline(exec: 0)
        XCTAssertNil(t.presented(at: 5))
        t.drew(configured: 7, committed: nil)
        XCTAssertNil(t.presented(at: 8))
        t.drew(configured: 8, committed: 9_000_000)
        XCTAssertEqual(t.marks[.configured], 7)
        XCTAssertEqual(t.presented(at: 10_000_000), "first frame on screen 10.0 ms after exec: configured 0.0, committed 9.0, presented 10.0 (ms after exec)")
    }
}
