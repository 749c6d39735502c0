// One video across several outputs (`-m span`): the outputs' layout is one canvas,
// the video covers it and each output shows its part, in sync, with no seam between neighbours.
// The clip is a gradient (red rises left to right, green top to bottom), so every pixel says
// where in the video it came from: screenshots of each output are checked against the canvas
// position they should show, and the columns either side of each seam against each other.
// Two and three outputs side by side, a layout change (one output moved below) and mixed scales.
import Foundation
import WayLoopTestSupport
import XCTest

final class SpanTests: CompositorTestCase {
    nonisolated(unsafe) static var gradient = ""
    /// The same gradient at half the size (640x180): a span over two outputs upscales it 2x.
    nonisolated(unsafe) static var smallGradient = ""

    override class var outputSizes: [String] { ["640x360", "640x360", "640x360"] }

    override class func setUpFixtures(_: Compositor) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-span-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        chmod(dir, 0o755)
        gradient = dir + "/gradient.mp4"
        makeGradient(gradient, size: "1280x360")
        smallGradient = dir + "/gradient-small.mp4"
        makeGradient(smallGradient, size: "640x180")
    }

    /// Converted and tagged as BT.709 limited range, so that red and green come back exactly
    /// (an untagged clip is read with another matrix: green leaks into red).
    private static func makeGradient(_ path: String, size: String) {
        let r = Shell.run(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi",
                           "-i", "nullsrc=s=\(size):r=30:d=1,format=gbrp,geq=r='X*255/W':g='Y*255/H':b=128,"
                               + "scale=out_color_matrix=bt709:out_range=tv,format=yuv444p",
                           "-c:v", "libx264", "-crf", "4", "-colorspace", "bt709", "-color_primaries", "bt709",
                           "-color_trc", "bt709", "-color_range", "tv", path], timeout: 120)
        precondition(r.status == 0, "ffmpeg could not make the gradient \(size): \(r.stderr)")
    }

    override class func tearDownFixtures() {
        if !gradient.isEmpty { try? FileManager.default.removeItem(atPath: (gradient as NSString).deletingLastPathComponent) }
    }

    /// Puts each output at a layout position (and scale), and waits until sway reports it.
    private func layout(_ sway: Compositor, _ places: [(String, Int, Int, Int)]) throws {
        for (o, x, y, s) in places {
            let r = sway.swaymsg(["output", o, "pos", "\(x)", "\(y)", "scale", "\(s)"])
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        let settled = Wait.until(timeout: 10) {
            let r = sway.swaymsg(["-t", "get_outputs", "-r"])
            guard let d = r.stdout.data(using: .utf8), let outs = (try? JSONSerialization.jsonObject(with: d)) as? [[String: Any]] else {
                return false
            }
            return places.allSatisfy { p in
                outs.contains { o in
                    let rect = o["rect"] as? [String: Any]
                    return o["name"] as? String == p.0 && rect?["x"] as? Int == p.1 && rect?["y"] as? Int == p.2
                }
            }
        }
        XCTAssertTrue(settled, "sway did not take the layout \(places)")
    }

    /// Waits until every output's picture satisfies `check` (sampled through screenshots).
    private func waitForPictures(_ sway: Compositor, _ outputs: [String], timeout: Double = 15,
                                 _ check: ([Image]) -> String?) -> String? {
        var last: String? = "no screenshot"
        _ = Wait.until(timeout: timeout) {
            let shots = outputs.compactMap { try? sway.shot($0) }
            guard shots.count == outputs.count else { return false }
            last = check(shots)
            return last == nil
        }
        return last
    }

    /// Red at canvas column `x` of a canvas `width` wide showing video columns `from...to` (in
    /// 0...1 of the video) when it is filled: what the gradient should have there.
    private func expectedRed(_ x: Double, canvas width: Double, from: Double, to: Double) -> Double {
        (from + (x + 0.5) / width * (to - from)) * 255
    }

    /// Checks each output's red at some columns against the canvas position, and the seams.
    private func checkRow(_ shots: [Image], canvasWidth: Double, from: Double, to: Double, y: Int = 180,
                          tolerance: Double = 12) -> String? {
        var x0 = 0.0
        for (i, img) in shots.enumerated() {
            for col in [0, img.width / 4, img.width / 2, img.width - 1] {
                let want = expectedRed(x0 + Double(col) * 640 / Double(img.width), canvas: canvasWidth, from: from, to: to)
                let got = Double(img.pixel(col, y).r)
                if abs(got - want) > tolerance { return "output \(i) column \(col): red \(got), want \(Int(want))" }
            }
            if i > 0 {
                let left = Double(shots[i - 1].pixel(shots[i - 1].width - 1, y).r), right = Double(img.pixel(0, y).r)
                // One column apart on the canvas: the gradient moves by under a level; a seam
                // (a gap, an overlap or a shifted part) would move it by many.
                if abs(left - right) > 4 { return "seam \(i - 1)|\(i): red \(left) then \(right)" }
            }
            x0 += 640
        }
        return nil
    }

    func testTwoOutputsSideBySideShowOneVideoWithoutASeam() throws {
        let sway = try compositor()
        try layout(sway, [(sway.outputs[0], 0, 0, 1), (sway.outputs[1], 640, 0, 1), (sway.outputs[2], 1280, 0, 1)])
        // Two outputs span; the third shows the same video on its own (fill, not part of it).
        let w = try Wayloop(["-v", "-o", sway.outputs[0], "-m", "span", "-i", Self.gradient,
                             "-o", sway.outputs[1], "-m", "span", "-i", Self.gradient,
                             "-o", sway.outputs[2], "-m", "fill", "-i", Self.gradient], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForStates(Array(sway.outputs), state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        // 1280x360 on a 1280x360 canvas: each output shows exactly its half.
        let problem = waitForPictures(sway, Array(sway.outputs.prefix(2))) { checkRow($0, canvasWidth: 1280, from: 0, to: 1) }
        XCTAssertNil(problem, w.stderr)
        // The third output alone: the whole video filled (cropped to 16:9), not a third of it.
        let alone = try sway.shot(sway.outputs[2])
        XCTAssertLessThan(Double(alone.pixel(0, 180).r), 80, "the lone output shows a part of a span")
        // One decoder for the three (one clip), in sync: a single 'playing' line.
        XCTAssertEqual(w.stderrLines.filter { $0.contains("playing '\(Self.gradient)'") }.count, 1, w.stderr)
        // Vertical: green follows the row on both.
        let shots = try sway.outputs.prefix(2).map { try sway.shot($0) }
        for img in shots {
            XCTAssertEqual(Double(img.pixel(320, 10).g), 10.0 / 360 * 255, accuracy: 12)
            XCTAssertEqual(Double(img.pixel(320, 350).g), 350.0 / 360 * 255, accuracy: 12)
        }
    }

    /// `--scaling compositor`: the span's canvas converted once at the video's size into one
    /// buffer, each output showing its half of it through wp_viewport's source rectangle, scaled
    /// by the compositor: the same picture, no seam.
    func testACompositorScaledSpanShowsOneBufferWithoutASeam() throws {
        let sway = try compositor()
        try layout(sway, [(sway.outputs[0], 0, 0, 1), (sway.outputs[1], 640, 0, 1), (sway.outputs[2], 1280, 0, 1)])
        let w = try Wayloop(["-o", sway.outputs[0], "-m", "span", "--scaling", "compositor", "-i", Self.smallGradient,
                             "-o", sway.outputs[1], "-m", "span", "--scaling", "compositor", "-i", Self.smallGradient,
                             "-o", sway.outputs[2], "-m", "fill", "-i", Self.gradient], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForStates(Array(sway.outputs), state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        // 640x180 on a 1280x360 canvas: scaled 2x, each output its half (nearest-neighbour on
        // sway's pixman: a level of red per two columns, within the tolerance).
        let problem = waitForPictures(sway, Array(sway.outputs.prefix(2))) { checkRow($0, canvasWidth: 1280, from: 0, to: 1) }
        XCTAssertNil(problem, w.stderr)
        let shots = try sway.outputs.prefix(2).map { try sway.shot($0) }
        for img in shots {
            XCTAssertEqual(Double(img.pixel(320, 10).g), 10.0 / 360 * 255, accuracy: 12)
            XCTAssertEqual(Double(img.pixel(320, 350).g), 350.0 / 360 * 255, accuracy: 12)
        }
        // Switched to the client at run time: the same picture, each output converting its part.
        let set = Shell.run([Repo.binary, "ctl", "set", "*", "--scaling", "client"], env: sway.env, timeout: 20)
        XCTAssertEqual(set.status, 0, set.stderr)
        XCTAssertNil(waitForPictures(sway, Array(sway.outputs.prefix(2))) { checkRow($0, canvasWidth: 1280, from: 0, to: 1) }, w.stderr)
    }

    func testThreeOutputsFillTheCanvasAndAMoveRecomputesIt() throws {
        let sway = try compositor()
        try layout(sway, [(sway.outputs[0], 0, 0, 1), (sway.outputs[1], 640, 0, 1), (sway.outputs[2], 1280, 0, 1)])
        let w = try Wayloop(["-v", "-m", "span", Self.gradient], env: sway.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForStates(Array(sway.outputs), state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        // 1280x360 filled onto 1920x360: scaled 1.5 to 1920x540, rows 90...450 shown: the whole
        // width across the three, green from 90/540 to 450/540 of the way down.
        var problem = waitForPictures(sway, Array(sway.outputs)) { checkRow($0, canvasWidth: 1920, from: 0, to: 1) }
        XCTAssertNil(problem, w.stderr)
        let mid = try sway.shot(sway.outputs[1])
        XCTAssertEqual(Double(mid.pixel(320, 0).g), 90.0 / 540 * 255, accuracy: 14, "top row of the crop")
        XCTAssertEqual(Double(mid.pixel(320, 359).g), 450.0 / 540 * 255, accuracy: 14, "bottom row of the crop")
        // The third output moves below the first: the canvas is now 1280x720 (an L), refilled:
        // scale 2 (2560x720), columns 0...1280 of 2560 cropped away on neither side... the
        // height decides: 1280x360 → 2560x720, columns 640...1920 shown; output 3 below output 1.
        try layout(sway, [(sway.outputs[2], 0, 360, 1)])
        problem = waitForPictures(sway, [sway.outputs[0], sway.outputs[1]]) {
            checkRow($0, canvasWidth: 1280, from: 0.25, to: 0.75, y: 100)
        }
        XCTAssertNil(problem, "after the move: \(w.stderr)")
        problem = waitForPictures(sway, [sway.outputs[0], sway.outputs[2]]) { shots in
            // The seam between output 1 and output 3 below it: green continues down.
            let above = Double(shots[0].pixel(320, 359).g), below = Double(shots[1].pixel(320, 0).g)
            if abs(above - 127.5) > 12 || abs(below - 127.5) > 12 { return "vertical seam: green \(above) above, \(below) below" }
            if abs(Double(shots[1].pixel(0, 100).r) - Double(shots[0].pixel(0, 100).r)) > 6 { return "output 3 is not under output 1" }
            return nil
        }
        XCTAssertNil(problem, w.stderr)
    }

    /// Mixed scales: the second output at scale 2 is 320x180 logical (640x360 pixels): the
    /// canvas is 960x360 logical; the seam still lines up, and the scaled output shows the top
    /// half of its column range at twice the density.
    func testMixedScalesStillMeetAtTheSeam() throws {
        let sway = try compositor()
        try layout(sway, [(sway.outputs[0], 0, 0, 1), (sway.outputs[1], 640, 0, 2), (sway.outputs[2], 5000, 0, 1)])
        let w = try Wayloop(["-v", "-o", sway.outputs[0], "-m", "span", "-i", Self.gradient,
                             "-o", sway.outputs[1], "-m", "span", "-i", Self.gradient], env: sway.env)
        defer {
            XCTAssertEqual(w.stop(), 0, w.stderr)
            _ = sway.swaymsg(["output", sway.outputs[1], "scale", "1"])
        }
        XCTAssertTrue(w.waitForStates(Array(sway.outputs.prefix(2)), state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        // 1280x360 onto 960x360: the height decides (scale 1), columns 160...1120 shown.
        let problem = waitForPictures(sway, Array(sway.outputs.prefix(2))) { shots in
            let a = shots[0], b = shots[1]
            let left = Double(a.pixel(a.width - 1, 100).r), right = Double(b.pixel(0, 50).r)
            if abs(left - 800.0 / 1280 * 255) > 12 { return "output 1's right edge: red \(left)" }
            if abs(left - right) > 5 { return "seam: \(left) then \(right)" }
            if abs(Double(b.pixel(b.width - 1, 50).r) - 1120.0 / 1280 * 255) > 12 { return "output 2's right edge: \(b.pixel(b.width - 1, 50))" }
            // Its bottom row is the canvas's row 180 of 360: green at the middle.
            if abs(Double(b.pixel(320, b.height - 1).g) - 127.5) > 14 { return "output 2's bottom: \(b.pixel(320, b.height - 1))" }
            return nil
        }
        XCTAssertNil(problem, w.stderr)
    }

    /// Outputs plugged in and unplugged (nested sway: its outputs are windows that can be
    /// opened and closed): the canvas grows with a new output and shrinks when one goes.
    func testPluggingAndUnpluggingRecomputesTheCanvas() throws {
        let nested = try NestedSway(outputs: ["640x360", "640x360"])
        defer { nested.stop() }
        let sway = nested.compositor
        let (a, b) = (nested.initialOutputs[0], nested.initialOutputs[1])
        try layout(sway, [(a, 0, 0, 1), (b, 640, 0, 1)])
        let w = try Wayloop(["-v", "-m", "span", Self.gradient], env: nested.env)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(w.waitForStates([a, b], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        var problem = waitForPictures(sway, [a, b]) { checkRow($0, canvasWidth: 1280, from: 0, to: 1) }
        XCTAssertNil(problem, w.stderr)
        // A third output to the right: 1280x360 filled onto 1920x360, across the three.
        let c = try nested.addOutput("640x360")
        try layout(sway, [(c, 1280, 0, 1)])
        XCTAssertTrue(w.waitForStates([a, b, c], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        problem = waitForPictures(sway, [a, b, c]) { checkRow($0, canvasWidth: 1920, from: 0, to: 1) }
        XCTAssertNil(problem, "after plugging \(c) in: \(w.stderr)")
        // Unplugged again: back to halves.
        try nested.removeOutput(c)
        XCTAssertTrue(w.waitFor("\(c): output removed"), w.stderr)
        problem = waitForPictures(sway, [a, b]) { checkRow($0, canvasWidth: 1280, from: 0, to: 1) }
        XCTAssertNil(problem, "after unplugging \(c): \(w.stderr)")
    }
}
