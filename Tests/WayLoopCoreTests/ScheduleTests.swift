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
            // Marked for redraw before the first configure: neither a draw nor a wake-up (waking for
            // it, with nothing it may draw, would spin the loop).
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

/// The draw pass's own rules: hidden after a second without a frame callback, when a released
/// video restarts and its clock moves, when a commit is worth it, when a fade goes on.
final class DrawRulesTests: XCTestCase {
    func testHidden() {
        let s: Nanos = 1_000_000_000
        let rows: [(awaiting: Bool, at: Nanos, now: Nanos, want: Bool, what: String)] = [
            (true, 5 * s, 5 * s + s - 1, false, "a callback asked for just under a second ago: still presented"),
            (true, 5 * s, 6 * s, true, "a second without the callback: hidden"),
            (false, 0, 60 * s, false, "no callback pending: nothing to wait for"),
        ]
        for r in rows { XCTAssertEqual(Schedule.isHidden(awaitingFrame: r.awaiting, requestedAt: r.at, now: r.now), r.want, r.what) }
    }

    func testVideoStep() {
        let rows: [(released: Bool, paused: Bool, hasFrame: Bool, restart: Bool, advance: Bool, what: String)] = [
            (false, false, true, false, true, "playing: the clock moves"),
            (false, true, true, false, false, "paused with a frame: it is held"),
            (false, true, false, false, true, "paused before its first frame: it gets one to hold"),
            (true, false, false, true, true, "released and shown again: the decoder restarts"),
            (true, true, false, true, true, "released and paused with no frame: restarted for one picture"),
            (true, true, true, false, false, "released, paused, a frame held: nothing restarts"),
        ]
        for r in rows {
            XCTAssertEqual(Schedule.videoStep(released: r.released, paused: r.paused, hasFrame: r.hasFrame),
                           Schedule.VideoStep(restart: r.restart, advance: r.advance), r.what)
        }
    }

    func testWorthCommit() {
        XCTAssertFalse(Schedule.worthCommit(needsRedraw: false, frameIsNew: false, fadeStepDue: false), "the same frame: no commit")
        XCTAssertTrue(Schedule.worthCommit(needsRedraw: true, frameIsNew: false, fadeStepDue: false), "a configure or new settings")
        XCTAssertTrue(Schedule.worthCommit(needsRedraw: false, frameIsNew: true, fadeStepDue: false), "a new frame")
        XCTAssertTrue(Schedule.worthCommit(needsRedraw: false, frameIsNew: false, fadeStepDue: true), "a fade's step")
    }

    func testFadeGoesOn() {
        let rows: [(weight: Double, paused: Bool, ready: Bool, released: Bool, want: Bool, what: String)] = [
            (0.5, false, true, false, true, "half way, both playing"),
            (1, false, true, false, false, "the new picture is whole: the fade ends"),
            (0.5, true, true, false, false, "paused mid-fade: the new picture alone (a still mix would stay)"),
            (0.5, false, false, false, false, "the old video is not ready"),
            (0.5, false, true, true, false, "the old video's decoder was released"),
        ]
        for r in rows {
            XCTAssertEqual(Schedule.fadeGoesOn(weight: r.weight, paused: r.paused, oldReady: r.ready, oldReleased: r.released), r.want, r.what)
        }
    }
}
