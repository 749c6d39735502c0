// A second start that hands over a video that cannot be played, while the first is still
// starting (a launcher run twice, waypaper's backend): the second exits 5 with its one line, and
// the first keeps playing its own video (before, a hand-over in the first ~20 ms, before the
// first video was ready, left nothing that could play and the first exited 5 too). Each delay is
// counted from the moment the first holds the instance (its control socket exists).
import Foundation
import WayLoopTestSupport
import XCTest

final class HandOverTests: CompositorTestCase {
    override class var outputSizes: [String] { ["640x360"] }

    func testAFailedHandOverDuringStartUpLeavesTheFirstPlaying() throws {
        let c = try compositor()
        let out = c.outputs[0]
        for delayMs in [0, 5, 10, 20, 40, 80] {
            let first = try Wayloop([Repo.clip("grid.mp4")], env: c.env)
            defer { _ = first.stop() }
            // The first must be the first: its control socket is bound right after it takes the
            // instance lock, before it connects to the compositor or opens its video. Without
            // this wait a loaded machine once let the second take the lock, and the first, now
            // the second, handed its own arguments over (a CI run, delay 5 ms).
            let socket = Ctl.socketPath(env: c.env)
            let end = Date().addingTimeInterval(10)
            while access(socket, F_OK) != 0 && Date() < end { usleep(1000) }   // 1 ms: the delays below start from it
            XCTAssertEqual(access(socket, F_OK), 0, "no control socket at \(socket) after 10 s: \(first.stderr)")
            usleep(useconds_t(delayMs * 1000))
            let second = Shell.run([Repo.binary, Repo.clip("text.mp4")], env: first.env, timeout: 30)
            XCTAssertEqual(second.status, 5, "after \(delayMs) ms: \(second.stderr)")
            XCTAssertEqual(second.stderr.split(separator: "\n").count, 1, "after \(delayMs) ms: \(second.stderr)")
            XCTAssertTrue(second.stderr.contains("text.mp4': not a playable video file"), second.stderr)
            XCTAssertTrue(first.waitForStatus(timeout: 20) { outs in
                outs.contains { $0["name"] as? String == out && $0["video"] as? String == Repo.clip("grid.mp4") && $0["state"] as? String == "playing" }
            }, "after \(delayMs) ms the first does not play its own video: \(first.lastStatus); \(first.stderr)")
            XCTAssertTrue(first.isRunning, "after \(delayMs) ms the first exited: \(first.stderr)")
            XCTAssertEqual(first.stop(), 0, first.stderr)
        }
    }
}
