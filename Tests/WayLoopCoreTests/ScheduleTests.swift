import WayLoopCore
import XCTest

final class ScheduleTests: XCTestCase {
    typealias O = Schedule.Output
    typealias V = Schedule.Video
    let now: Nanos = 10_000_000_000

    /// Every row: may the draw pass look at it, does it commit now, when must the loop wake.
    func testTable() {
        let due = now + 20_000_000
        let rows: [(O, may: Bool, draws: Bool, wake: Nanos?, note: String)] = [
            (O(content: .video(V(frameIsNew: true))), true, true, now, "a new frame is due: draw now"),
            (O(content: .video(V(frameIsNew: false, nextDue: due))), true, false, due, "same frame: wake at the next one"),
            (O(content: .video(V(frameIsNew: false, nextDue: now - 5))), true, false, now, "a late deadline is now, never in the past"),
            (O(content: .video(V(hasFrame: false, frameIsNew: false, nextDue: nil))), true, false, nil, "no frame yet: the decoder wakes us"),
            (O(content: .video(V(released: true, hasFrame: true))), true, true, now, "released: restart now"),
            (O(needsRedraw: true, content: .video(V())), true, true, now, "reconfigured: draw the same frame again"),
            // The spin of issue 11: marked for redraw before the first configure.
            (O(configured: false, needsRedraw: true, content: .video(V(frameIsNew: true))), false, false, nil, "not configured: no draw, no wake-up"),
            (O(configured: false, needsRedraw: true, content: .colour), false, false, nil, "not configured colour: no spin"),
            (O(needsRedraw: true, content: .colour), true, true, now, "colour to paint"),
            (O(needsRedraw: false, content: .colour), true, false, nil, "colour painted: nothing more"),
            (O(content: .nothing), false, false, nil, "nothing to show"),
            (O(paused: true, content: .video(V(frameIsNew: true, nextDue: due))), false, false, nil, "paused: no frames, no timers"),
            (O(needsRedraw: true, paused: true, content: .video(V(frameIsNew: true))), true, true, now, "paused but resized: draw once"),
            (O(needsRedraw: true, paused: true, content: .video(V(hasFrame: false, nextDue: due))), true, false, nil, "paused, resized, no frame yet"),
            (O(awaitingFrame: true, frameRequestedAt: now - 100, content: .video(V(frameIsNew: true))), false, false,
             now - 100 + Schedule.hiddenAfter, "waiting for the callback: wake once to call it hidden"),
            (O(awaitingFrame: true, frameRequestedAt: now - 100, hidden: true, content: .video(V(frameIsNew: true))), false, false, nil,
             "hidden: no wake-ups at all"),
            (O(sinkCanDraw: false, content: .video(V(frameIsNew: true))), false, false, nil, "every shm buffer busy: a release wakes us"),
        ]
        for r in rows {
            XCTAssertEqual(Schedule.mayDraw(r.0), r.may, "mayDraw: \(r.note)")
            XCTAssertEqual(Schedule.drawsNow(r.0), r.draws, "drawsNow: \(r.note)")
            XCTAssertEqual(Schedule.wake(r.0, now: now), r.wake, "wake: \(r.note)")
            // The two never disagree: a wake-up "now" always means the draw pass takes the output
            // (it advances the video to the due frame and commits it).
            if Schedule.wake(r.0, now: now) == now { XCTAssertTrue(Schedule.mayDraw(r.0), "spin: \(r.note)") }
        }
    }

    func testTimeout() {
        XCTAssertEqual(Schedule.timeoutMs(until: nil, now: now), -1)
        XCTAssertEqual(Schedule.timeoutMs(until: now, now: now), 0)
        XCTAssertEqual(Schedule.timeoutMs(until: now + 1, now: now), 1, "rounded up: never wake early and spin")
        XCTAssertEqual(Schedule.timeoutMs(until: now + 16_666_667, now: now), 17)
        XCTAssertEqual(Schedule.timeoutMs(until: now - 50_000_000, now: now), 0)
        XCTAssertEqual(Schedule.timeoutMs(until: now + Nanos(Int32.max) * 2_000_000, now: now), Int32.max)
    }
}
