// Plays the grid clip on headless sway with three outputs of different shapes and checks, by
// screenshot, that each is aspect-filled, that it plays, that it loops, and that a window covers it.
import Foundation
import WayLoopTestSupport
import XCTest

final class PlaybackTests: CompositorTestCase {
    nonisolated(unsafe) static var wayloop: Wayloop?
    static let trace = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-e2e-trace-\(getpid())").path
    static let shapes = ["1280x720", "1024x768", "720x1280"]

    override class var outputSizes: [String] { shapes }

    /// One wayloop for the class, playing on every output.
    override class func setUpFixtures(_ s: Compositor) throws {
        try? FileManager.default.removeItem(atPath: trace)
        let w = try Wayloop(["--trace-frames", trace, Repo.clip("grid.mp4")], env: s.env)
        wayloop = w
        if !w.waitForStates(s.outputs, state: "playing", shown: true) {
            throw HarnessError("wayloop did not start playing on \(s.outputs): \(w.lastStatus); \(w.stderr)")
        }
    }

    override class func tearDownFixtures() {
        if let w = wayloop { _ = w.stop() }
        try? FileManager.default.removeItem(atPath: trace)
    }

    private func ready() throws -> (Compositor, Wayloop) {
        (try compositor(), Self.wayloop!)
    }

    /// Waits until the output shows a frame whose every chosen point matches the grid (or times
    /// out); the independent aspect-fill maths is GridPicture.fillReport's.
    private func fillCheck(output: String, size: (Int, Int), sway: Compositor) throws -> (ok: Bool, report: String) {
        let cells = try GridPicture.colors()
        var report = ""
        let ok = Wait.until(timeout: 10) {
            guard let img = try? sway.shot(output), img.width == size.0, img.height == size.1 else {
                report = "no screenshot of the expected size"
                return false
            }
            let r = GridPicture.fillReport(img, cells: cells)
            report = r.report
            return r.ok
        }
        return (ok, report)
    }

    func testEachOutputIsAspectFilled() throws {
        let (sway, _) = try ready()
        XCTAssertEqual(sway.outputs.count, 3)
        for (name, shape) in zip(sway.outputs, Self.shapes) {
            let p = shape.split(separator: "x").map { Int($0)! }
            let r = try fillCheck(output: name, size: (p[0], p[1]), sway: sway)
            XCTAssertTrue(r.ok, "\(name) \(shape) is not aspect-filled: \(r.report)")
            // No bars: every corner shows picture, not black.
            let img = try sway.shot(name)
            for (x, y) in [(2, 2), (img.width - 3, 2), (2, img.height - 3), (img.width - 3, img.height - 3)] {
                XCTAssertFalse(img.pixel(x, y).close(to: RGB8(0, 0, 0), tolerance: 12), "\(name) corner (\(x),\(y)) is black")
            }
        }
    }

    /// Colours seen at the centre box of the first output until it has shown two (it changes
    /// every 333 ms), or 10 s: how many screenshots a second the machine takes is not the
    /// question, so the bound is for a hang.
    private func centreColours(_ sway: Compositor) throws -> Set<String> {
        var seen: Set<String> = []
        var failure: Error?
        Wait.until(timeout: 10) {
            do {
                let img = try sway.shot(sway.outputs[0])
                let p = img.pixel(img.width / 2, img.height / 2)
                // Quantise: white, black or grey.
                seen.insert(p.r > 200 ? "white" : p.r < 50 ? "black" : "grey")
            } catch {
                failure = error
                return true
            }
            return seen.count >= 2
        }
        if let failure { throw failure }
        return seen
    }

    func testItPlaysAndKeepsPlayingAfterSeveralLoops() throws {
        let (sway, w) = try ready()
        XCTAssertGreaterThanOrEqual(try centreColours(sway).count, 2, "the centre box never changed: not playing")
        // Wait (on the trace, not a sleep) until the one-second clip has looped four times.
        let looped = Wait.until(timeout: 15) { TraceFile.maxPass(Self.trace) >= 4 }
        XCTAssertTrue(looped, "the trace never reached pass 4")
        // Memory is flat across loops: RSS after pass 8 is within a few MB of RSS at pass 4.
        let rss4 = Proc.rssKB(w.pid)
        XCTAssertTrue(Wait.until(timeout: 15) { TraceFile.maxPass(Self.trace) >= 8 }, "the trace never reached pass 8")
        let rss8 = Proc.rssKB(w.pid)
        XCTAssertLessThan(abs(rss8 - rss4), 4096, "RSS moved from \(rss4) kB to \(rss8) kB over four loops")
        XCTAssertTrue(w.isRunning, "wayloop exited: \(w.stderr)")
        XCTAssertGreaterThanOrEqual(try centreColours(sway).count, 2, "the centre box stopped changing after several loops")
        // Every pass in the trace shows its frames in order, and passes follow each other.
        var last: (pass: Int, index: Int)?
        for r in TraceFile.records(Self.trace) where r.output == sway.outputs[0] {
            let cur = (r.pass, r.index)
            if let l = last { XCTAssertTrue(cur > l, "frame \(cur) after \(l)") }
            last = cur
        }
    }

    func testAWindowCoversTheWallpaper() throws {
        let (sway, _) = try ready()
        try sway.cover()
        defer { sway.uncover() }
        let magenta = RGB8(255, 0, 255)
        let covered = Wait.until(timeout: 10) {
            guard let img = try? sway.shot(sway.outputs[0]) else { return false }
            return [(img.width / 2, img.height / 2), (100, 100), (img.width - 100, img.height - 100)]
                .allSatisfy { img.pixel($0.0, $0.1).close(to: magenta, tolerance: 8) }
        }
        XCTAssertTrue(covered, "a fullscreen window does not cover the wallpaper (background layer expected)")
        // That output pauses, the others keep playing: for the fullscreen window that
        // wlr-foreign-toplevel-management reports on it, or (sway 1.10: the toplevel is not reported
        // fullscreen there in time) because the compositor stopped the covered surface's frame
        // callbacks (hidden; docs/compositors.md).
        let (_, w) = try ready()
        XCTAssertTrue(w.waitForStatus(timeout: 20) { outs in
            outs.contains { $0["name"] as? String == sway.outputs[0] && $0["state"] as? String == "paused"
                && ["fullscreen", "hidden"].contains($0["reason"] as? String ?? "") }
        }, "\(w.lastStatus); \(w.stderr)")
        let n0 = TraceFile.records(Self.trace).filter { $0.output == sway.outputs[0] }.count
        let m0 = TraceFile.records(Self.trace).filter { $0.output == sway.outputs[1] }.count
        XCTAssertTrue(Wait.until(timeout: 5) {
            TraceFile.records(Self.trace).filter { $0.output == sway.outputs[1] }.count >= m0 + 15
        }, "the other output stopped playing")
        let n1 = TraceFile.records(Self.trace).filter { $0.output == sway.outputs[0] }.count
        XCTAssertLessThanOrEqual(n1 - n0, 2, "the covered output kept presenting frames")
        sway.uncover()
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "playing"), "\(w.lastStatus); \(w.stderr)")
    }
}
