// Plays the grid clip on headless sway with three outputs of different shapes and checks, by
// screenshot, that each is aspect-filled, that it plays, that it loops, and that a window covers it.
import Foundation
import XCTest

final class PlaybackTests: XCTestCase {
    nonisolated(unsafe) static var sway: Compositor?
    nonisolated(unsafe) static var wayloop: Wayloop?
    nonisolated(unsafe) static var startError: String?
    static let trace = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-e2e-trace-\(getpid())").path
    static let shapes = ["1280x720", "1024x768", "720x1280"]

    // The grid clip (scripts/make-clips): 1280x720, 4×4 cells of 320×180, a box at 600..680 ×
    // 320..400 cycling white/black/grey every 10 frames, 30 frames at 30 fps.
    static let video = (w: 1280.0, h: 720.0)

    override class func setUp() {
        super.setUp()
        do {
            _ = Repo.clips
            let s = try Compositor(kind: "start-sway", outputs: shapes)
            sway = s
            try? FileManager.default.removeItem(atPath: trace)
            let w = try Wayloop(["--trace-frames", trace, Repo.clip("grid.mp4")], env: s.env)
            wayloop = w
            if !w.waitFor("playing") { startError = "wayloop did not start playing: \(w.stderr)" }
        } catch {
            startError = "\(error)"
        }
    }

    override class func tearDown() {
        if let w = wayloop { _ = w.stop() }
        sway?.stop()
        try? FileManager.default.removeItem(atPath: trace)
        super.tearDown()
    }

    private func ready() throws -> (Compositor, Wayloop) {
        if let e = Self.startError { throw HarnessError(e) }
        return (Self.sway!, Self.wayloop!)
    }

    private func gridColors() throws -> [[RGB8]] {
        let text = try String(contentsOfFile: Repo.clip("grid.txt"), encoding: .utf8)
        var cells = Array(repeating: Array(repeating: RGB8(0, 0, 0), count: 4), count: 4)
        for line in text.split(separator: "\n") {
            let f = line.split(separator: " ")
            guard f.count == 3, let c = Int(f[0]), let r = Int(f[1]), let rgb = RGB8(hex: String(f[2])) else { continue }
            cells[r][c] = rgb
        }
        return cells
    }

    /// Waits until the output shows a frame whose every chosen point matches the grid (or times out).
    private func fillCheck(output: String, size: (Int, Int), sway: Compositor) throws -> (ok: Bool, report: String) {
        let cells = try gridColors()
        let (W, H) = (Double(size.0), Double(size.1))
        // Independent aspect-fill maths: the scale that covers the output, centred.
        let scale = max(W / Self.video.w, H / Self.video.h)
        var report = ""
        let ok = Wait.until(timeout: 10) {
            guard let img = try? sway.shot(output), img.width == size.0, img.height == size.1 else {
                report = "no screenshot of the expected size"
                return false
            }
            var bad: [String] = []
            var checked = 0
            for gy in 0..<12 {
                for gx in 0..<12 {
                    let sx = (Double(gx) + 0.5) * W / 12, sy = (Double(gy) + 0.5) * H / 12
                    let vx = (sx - W / 2) / scale + Self.video.w / 2, vy = (sy - H / 2) / scale + Self.video.h / 2
                    // Skip points near cell borders (compression, filtering) and in the centre box.
                    let fx = vx.truncatingRemainder(dividingBy: 320), fy = vy.truncatingRemainder(dividingBy: 180)
                    if fx < 24 || fx > 296 || fy < 24 || fy > 156 { continue }
                    if vx > 580 && vx < 700 && vy > 300 && vy < 420 { continue }
                    let want = cells[Int(vy / 180)][Int(vx / 320)]
                    let got = img.pixel(Int(sx), Int(sy))
                    checked += 1
                    if !got.close(to: want, tolerance: 40) { bad.append("(\(Int(sx)),\(Int(sy))) got \(got) want \(want)") }
                }
            }
            report = "\(checked) points checked; mismatches: \(bad.prefix(6))"
            return checked >= 20 && bad.isEmpty
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

    /// Colours seen at the centre box of the first output over ~1.3 s.
    private func centreColours(_ sway: Compositor) throws -> Set<String> {
        var seen: Set<String> = []
        let end = Date().addingTimeInterval(1.3)
        while Date() < end {
            let img = try sway.shot(sway.outputs[0])
            let p = img.pixel(img.width / 2, img.height / 2)
            // Quantise: white, black or grey.
            seen.insert(p.r > 200 ? "white" : p.r < 50 ? "black" : "grey")
        }
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
        // wlr-foreign-toplevel-management says the window is fullscreen on the first output: that
        // output pauses, the others keep playing.
        let (_, w) = try ready()
        XCTAssertTrue(w.waitFor("\(sway.outputs[0]): paused (fullscreen)"), w.stderr)
        let n0 = TraceFile.records(Self.trace).filter { $0.output == sway.outputs[0] }.count
        let m0 = TraceFile.records(Self.trace).filter { $0.output == sway.outputs[1] }.count
        XCTAssertTrue(Wait.until(timeout: 5) {
            TraceFile.records(Self.trace).filter { $0.output == sway.outputs[1] }.count >= m0 + 15
        }, "the other output stopped playing")
        let n1 = TraceFile.records(Self.trace).filter { $0.output == sway.outputs[0] }.count
        XCTAssertLessThanOrEqual(n1 - n0, 2, "the covered output kept presenting frames")
        sway.uncover()
        XCTAssertTrue(w.waitFor("\(sway.outputs[0]): resumed"), w.stderr)
    }
}
