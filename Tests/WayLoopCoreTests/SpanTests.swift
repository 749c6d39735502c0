import WayLoopCore
import XCTest

final class SpanTests: XCTestCase {
    private func assertRect(_ r: Rect, _ e: Rect, accuracy: Double = 1e-12, _ note: String,
                            file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(r.x, e.x, accuracy: accuracy, "\(note): x", file: file, line: line)
        XCTAssertEqual(r.y, e.y, accuracy: accuracy, "\(note): y", file: file, line: line)
        XCTAssertEqual(r.width, e.width, accuracy: accuracy, "\(note): width", file: file, line: line)
        XCTAssertEqual(r.height, e.height, accuracy: accuracy, "\(note): height", file: file, line: line)
    }

    private func full(_ s: Size) -> Rect { Rect(x: 0, y: 0, width: Double(s.width), height: Double(s.height)) }
    private let hd = Size(width: 1920, height: 1080)

    func testCanvas() {
        let cases: [([Rect], Rect?, String)] = [
            ([], nil, "no outputs"),
            ([Rect(x: 0, y: 0, width: 1920, height: 1080)], Rect(x: 0, y: 0, width: 1920, height: 1080), "one"),
            ([Rect(x: 0, y: 0, width: 1920, height: 1080), Rect(x: 1920, y: 0, width: 1080, height: 1920)],
             Rect(x: 0, y: 0, width: 3000, height: 1920), "an L: the bounding box"),
            ([Rect(x: -1920, y: 200, width: 1920, height: 1080), Rect(x: 0, y: 0, width: 2560, height: 1440)],
             Rect(x: -1920, y: 0, width: 4480, height: 1440), "negative coordinates, offset heights"),
            ([Rect(x: 0, y: 0, width: 1920, height: 1080), Rect(x: 5000, y: 5000, width: 0, height: 0)],
             Rect(x: 0, y: 0, width: 1920, height: 1080), "a rect without area is left out"),
            ([Rect(x: 0, y: 0, width: 0, height: 1080), Rect(x: 0, y: 0, width: -5, height: 5)], nil, "none with area"),
            ([Rect(x: .nan, y: 0, width: 10, height: 10)], nil, "not finite"),
        ]
        for (outputs, want, note) in cases {
            XCTAssertEqual(Span.canvas(outputs), want, note)
        }
    }

    /// Filled canvases, worked out by hand. `video` is the display size; each expected source is
    /// (u0, v0, width, height) in normalised video coordinates.
    func testFill() {
        let cases: [(video: Size, outputs: [Rect], buffers: [Size], sources: [Rect], note: String)] = [
            // Canvas 3840x1080 = the video: each output shows exactly half.
            (Size(width: 3840, height: 1080),
             [Rect(x: 0, y: 0, width: 1920, height: 1080), Rect(x: 1920, y: 0, width: 1920, height: 1080)], [hd, hd],
             [Rect(x: 0, y: 0, width: 0.5, height: 1), Rect(x: 0.5, y: 0, width: 0.5, height: 1)], "a 32:9 video on two 16:9"),
            // Canvas 3840x1080 (32:9), video 16:9: scale 2 → 3840x2160 on the canvas, 540 cropped
            // above and below: v from 540/2160 = 0.25 to 1620/2160 = 0.75.
            (hd, [Rect(x: 0, y: 0, width: 1920, height: 1080), Rect(x: 1920, y: 0, width: 1920, height: 1080)], [hd, hd],
             [Rect(x: 0, y: 0.25, width: 0.5, height: 0.5), Rect(x: 0.5, y: 0.25, width: 0.5, height: 0.5)],
             "a 16:9 video on two 16:9: vertical crop"),
            // L: canvas 3000x1920. Scale max(3000/1920, 1920/1080) = 16/9 → 3413⅓x1920, x from -206⅔.
            // u(x) = (x + 620/3) / (10240/3) = (3x + 620) / 10240: u(0) = 620/10240 = 0.060546875,
            // u(1920) = 6380/10240 = 0.623046875, u(3000) = 9620/10240 = 0.939453125.
            // v(y) = y / 1920: the landscape output reaches 1080/1920 = 0.5625.
            (hd, [Rect(x: 0, y: 0, width: 1920, height: 1080), Rect(x: 1920, y: 0, width: 1080, height: 1920)],
             [hd, Size(width: 1080, height: 1920)],
             [Rect(x: 0.060546875, y: 0, width: 0.5625, height: 0.5625), Rect(x: 0.623046875, y: 0, width: 0.31640625, height: 1)],
             "an L: landscape + portrait"),
            // Mixed scales: a 2560x1440 panel at scale 2 is 1280x720 logical; beside it a 1920x1080 at
            // scale 1. Canvas 3200x1080; scale max(3200/3840, 1080/2160) = 5/6 → 3200x1800, y from -360.
            // u(x) = x / 3200: 0.4 at 1280. v(y) = (y + 360) / 1800: 0.2 at 0, 0.6 at 720, 0.8 at 1080.
            (Size(width: 3840, height: 2160),
             [Rect(x: 0, y: 0, width: 1280, height: 720), Rect(x: 1280, y: 0, width: 1920, height: 1080)],
             [Size(width: 2560, height: 1440), hd],
             [Rect(x: 0, y: 0.2, width: 0.4, height: 0.4), Rect(x: 0.4, y: 0.2, width: 0.6, height: 0.6)],
             "mixed scales: sources from the logical rects, destinations the buffers"),
            // A 100 px gap: canvas 3940x1080 = the video; u(x) = x / 3940.
            (Size(width: 3940, height: 1080),
             [Rect(x: 0, y: 0, width: 1920, height: 1080), Rect(x: 2020, y: 0, width: 1920, height: 1080)], [hd, hd],
             [Rect(x: 0, y: 0, width: 1920.0 / 3940, height: 1), Rect(x: 2020.0 / 3940, y: 0, width: 1920.0 / 3940, height: 1)],
             "a gap between outputs"),
            // Stacked: canvas 1920x2160 (8:9). Scale max(1, 2) = 2 → 3840x2160, x from -960:
            // u from 960/3840 = 0.25 to 0.75; v(y) = y / 2160.
            (hd, [Rect(x: 0, y: 0, width: 1920, height: 1080), Rect(x: 0, y: 1080, width: 1920, height: 1080)], [hd, hd],
             [Rect(x: 0.25, y: 0, width: 0.5, height: 0.5), Rect(x: 0.25, y: 0.5, width: 0.5, height: 0.5)], "stacked vertically"),
            // Outputs given right to left: the result follows the given order.
            (Size(width: 3840, height: 1080),
             [Rect(x: 1920, y: 0, width: 1920, height: 1080), Rect(x: 0, y: 0, width: 1920, height: 1080)], [hd, hd],
             [Rect(x: 0.5, y: 0, width: 0.5, height: 1), Rect(x: 0, y: 0, width: 0.5, height: 1)], "order as given"),
            // Negative layout coordinates: only positions relative to the canvas count.
            (Size(width: 3840, height: 1080),
             [Rect(x: -1920, y: -50, width: 1920, height: 1080), Rect(x: 0, y: -50, width: 1920, height: 1080)], [hd, hd],
             [Rect(x: 0, y: 0, width: 0.5, height: 1), Rect(x: 0.5, y: 0, width: 0.5, height: 1)], "negative coordinates"),
        ]
        for c in cases {
            let ps = Span.placements(video: c.video, outputs: c.outputs, buffers: c.buffers, fit: false)
            XCTAssertEqual(ps.count, c.outputs.count, c.note)
            for (i, p) in ps.enumerated() where i < c.sources.count {
                XCTAssertEqual(p.destination, full(c.buffers[i]), "\(c.note) [\(i)]: the whole buffer")
                assertRect(p.source, c.sources[i], "\(c.note) [\(i)]")
                XCTAssertFalse(p.hasBorders, "\(c.note) [\(i)]")
            }
        }
    }

    func testGapIsNotShown() {
        let ps = Span.placements(video: Size(width: 3940, height: 1080),
                                 outputs: [Rect(x: 0, y: 0, width: 1920, height: 1080), Rect(x: 2020, y: 0, width: 1920, height: 1080)],
                                 buffers: [hd, hd], fit: false)
        guard ps.count == 2 else { return XCTFail("two placements") }
        let gap = (1920.0 / 3940, 2020.0 / 3940)
        XCTAssertLessThanOrEqual(ps[0].source.x + ps[0].source.width, gap.0)
        XCTAssertGreaterThanOrEqual(ps[1].source.x, gap.1)
        XCTAssertEqual(ps[1].source.x - (ps[0].source.x + ps[0].source.width), 100.0 / 3940, accuracy: 1e-12,
                       "100 px of 3940 fall behind the gap")
    }

    /// One output: the same crop as Placement's fill (and fit) for that output alone, wherever it lies.
    func testSingleOutputIsPlacement() {
        let cases: [(video: Size, output: Rect, buffer: Size, note: String)] = [
            (hd, Rect(x: 0, y: 0, width: 1920, height: 1080), hd, "same aspect"),
            (hd, Rect(x: 0, y: 0, width: 1024, height: 768), Size(width: 1024, height: 768), "16:9 on 4:3"),
            (hd, Rect(x: 1920, y: 300, width: 720, height: 1280), Size(width: 720, height: 1280), "portrait, offset"),
            (Size(width: 720, height: 1280), Rect(x: -100, y: 0, width: 1920, height: 1080), hd, "portrait video"),
            (Size(width: 1001, height: 777), Rect(x: 0, y: 0, width: 1280, height: 720), Size(width: 2560, height: 1440), "scale 2"),
        ]
        for c in cases {
            for (fit, mode) in [(false, ScaleMode.fill), (true, ScaleMode.fit)] {
                let want = Placement.compute(video: c.video, output: c.buffer, mode: mode)
                let got = Span.placements(video: c.video, outputs: [c.output], buffers: [c.buffer], fit: fit)
                XCTAssertEqual(got.count, 1)
                guard let p = got.first else { continue }
                let note = "\(c.note), \(mode)"
                assertRect(p.source, want.source, accuracy: 1e-12, note)
                assertRect(p.destination, want.destination, accuracy: 1e-9, note)
                XCTAssertEqual(p.hasBorders, want.hasBorders, note)
            }
        }
    }

    /// Fit: the whole video inside the canvas, centred; what an output does not show of it is border.
    func testFitWithBorders() {
        let twoHD = [Rect(x: 0, y: 0, width: 1920, height: 1080), Rect(x: 1920, y: 0, width: 1920, height: 1080)]
        let three = [Rect(x: 0, y: 0, width: 1920, height: 1080), Rect(x: 1920, y: 0, width: 1920, height: 1080),
                     Rect(x: 3840, y: 0, width: 1920, height: 1080)]
        let empty = Rect(x: 0, y: 0, width: 0, height: 0)
        let cases: [(video: Size, outputs: [Rect], buffers: [Size], want: [(dest: Rect, source: Rect, borders: Bool)], note: String)] = [
            // Canvas 3840x1080, video 16:9: scale min(2, 1) = 1 → 1920x1080 at x 960..2880.
            // Left output: 960..1920 of it → buffer x 960, width 960; u 0...0.5.
            (hd, twoHD, [hd, hd],
             [(Rect(x: 960, y: 0, width: 960, height: 1080), Rect(x: 0, y: 0, width: 0.5, height: 1), true),
              (Rect(x: 0, y: 0, width: 960, height: 1080), Rect(x: 0.5, y: 0, width: 0.5, height: 1), true)],
             "16:9 on two: pillarboxed across both"),
            // The same with the right output at scale 2: its buffer is 3840x2160, so its part doubles.
            (hd, twoHD, [hd, Size(width: 3840, height: 2160)],
             [(Rect(x: 960, y: 0, width: 960, height: 1080), Rect(x: 0, y: 0, width: 0.5, height: 1), true),
              (Rect(x: 0, y: 0, width: 1920, height: 2160), Rect(x: 0.5, y: 0, width: 0.5, height: 1), true)],
             "destinations in buffer pixels"),
            // The exact aspect: no borders anywhere.
            (Size(width: 3840, height: 1080), twoHD, [hd, hd],
             [(Rect(x: 0, y: 0, width: 1920, height: 1080), Rect(x: 0, y: 0, width: 0.5, height: 1), false),
              (Rect(x: 0, y: 0, width: 1920, height: 1080), Rect(x: 0.5, y: 0, width: 0.5, height: 1), false)],
             "fits exactly"),
            // Canvas 5760x1080, a square video: 1080x1080 at x 2340..3420, inside the middle output only.
            // Middle: logical 420..1500 of 1920 → at scale 2, buffer x 840, width 2160, full height.
            (Size(width: 1080, height: 1080), three, [hd, Size(width: 3840, height: 2160), hd],
             [(empty, .unit, true), (Rect(x: 840, y: 0, width: 2160, height: 2160), .unit, true), (empty, .unit, true)],
             "outputs entirely outside the video draw nothing"),
            // A wide video on stacked outputs: canvas 1920x2160, scale min(1, 2) = 1 → 1920x1080 at
            // y 540..1620: the top output shows its lower half (v 0...0.5), the bottom one its upper half.
            (hd, [Rect(x: 0, y: 0, width: 1920, height: 1080), Rect(x: 0, y: 1080, width: 1920, height: 1080)], [hd, hd],
             [(Rect(x: 0, y: 540, width: 1920, height: 540), Rect(x: 0, y: 0, width: 1, height: 0.5), true),
              (Rect(x: 0, y: 0, width: 1920, height: 540), Rect(x: 0, y: 0.5, width: 1, height: 0.5), true)],
             "letterboxed across stacked outputs"),
        ]
        for c in cases {
            let ps = Span.placements(video: c.video, outputs: c.outputs, buffers: c.buffers, fit: true)
            XCTAssertEqual(ps.count, c.want.count, c.note)
            for (i, (p, w)) in zip(ps, c.want).enumerated() {
                assertRect(p.destination, w.dest, accuracy: 1e-9, "\(c.note) [\(i)] destination")
                assertRect(p.source, w.source, "\(c.note) [\(i)] source")
                XCTAssertEqual(p.hasBorders, w.borders, "\(c.note) [\(i)] borders")
            }
        }
    }

    func testEmptyInputs() {
        let two = [Rect(x: 0, y: 0, width: 1920, height: 1080), Rect(x: 1920, y: 0, width: 1920, height: 1080)]
        let cases: [(video: Size, outputs: [Rect], buffers: [Size], drawn: [Bool], note: String)] = [
            (hd, [], [], [], "no outputs: no placements"),
            (Size(width: 0, height: 0), two, [hd, hd], [false, false], "a video of zero size"),
            (Size(width: 1920, height: 0), two, [hd, hd], [false, false], "a video of zero height"),
            (hd, two, [hd], [true, false], "a missing buffer size"),
            (hd, two, [hd, Size(width: 0, height: 0)], [true, false], "an empty buffer"),
            (hd, two + [Rect(x: 0, y: 0, width: 0, height: 0)], [hd, hd, hd], [true, true, false], "an output without area"),
        ]
        for fit in [false, true] {
            for c in cases {
                let ps = Span.placements(video: c.video, outputs: c.outputs, buffers: c.buffers, fit: fit)
                XCTAssertEqual(ps.map { $0.destination.width * $0.destination.height > 0 }, c.drawn, "\(c.note), fit \(fit)")
                for p in ps where p.destination.width == 0 {
                    XCTAssertTrue(p.hasBorders, c.note)
                }
            }
        }
    }

    /// Neighbours meet bit for bit: A's source `x + width` is B's source `x`, with awkward sizes
    /// whose quotients are not exact in binary.
    func testNeighboursShareEdgesExactly() {
        let row3 = [Rect(x: 0, y: 0, width: 1366, height: 768), Rect(x: 1366, y: 0, width: 1441, height: 900),
                    Rect(x: 2807, y: 0, width: 1599, height: 1000)]
        let column2 = [Rect(x: 0, y: 0, width: 1333, height: 777), Rect(x: 0, y: 777, width: 1333, height: 1111)]
        let row2 = [Rect(x: 7, y: 3, width: 1023, height: 599), Rect(x: 1030, y: 3, width: 1919, height: 1079)]
        for video in [Size(width: 1001, height: 777), Size(width: 333, height: 1999), hd, Size(width: 4097, height: 2161)] {
            for fit in [false, true] {
                for outputs in [row2, row3] {
                    let ps = Span.placements(video: video, outputs: outputs, buffers: outputs.map(buffer), fit: fit)
                    for k in 1..<ps.count where !drawsNothing(ps[k - 1]) && !drawsNothing(ps[k]) {
                        XCTAssertEqual(ps[k - 1].source.x + ps[k - 1].source.width, ps[k].source.x,
                                       "\(video) fit \(fit): \(k - 1)|\(k)")
                    }
                }
                let ps = Span.placements(video: video, outputs: column2, buffers: column2.map(buffer), fit: fit)
                if !drawsNothing(ps[0]) && !drawsNothing(ps[1]) {
                    XCTAssertEqual(ps[0].source.y + ps[0].source.height, ps[1].source.y, "\(video) fit \(fit): stacked")
                }
            }
        }
    }

    /// The same over random layouts: rows of 2–4 outputs, random widths, heights, offsets and videos.
    func testRandomRowsShareEdgesAndStayInside() {
        var r = SplitMix64(seed: 2024)
        var checked = 0
        for _ in 0..<500 {
            let n = 2 + r.below(3)
            var x = Double(r.below(4000)) - 2000
            let y0 = Double(r.below(500))
            var outputs: [Rect] = []
            for _ in 0..<n {
                let w = Double(600 + r.below(3000)), h = Double(600 + r.below(2000))
                outputs.append(Rect(x: x, y: y0 + Double(r.below(300)), width: w, height: h))
                x += w
            }
            let video = Size(width: 1 + r.below(5000), height: 1 + r.below(5000))
            for fit in [false, true] {
                let buffers = outputs.map { Size(width: Int($0.width) * (1 + r.below(2)), height: Int($0.height)) }
                let ps = Span.placements(video: video, outputs: outputs, buffers: buffers, fit: fit)
                for (p, b) in zip(ps, buffers) {
                    XCTAssertGreaterThanOrEqual(p.source.x, 0)
                    XCTAssertGreaterThanOrEqual(p.source.y, 0)
                    XCTAssertLessThanOrEqual(p.source.x + p.source.width, 1)
                    XCTAssertLessThanOrEqual(p.source.y + p.source.height, 1)
                    if !fit { XCTAssertEqual(p.destination, full(b)) }
                    if !drawsNothing(p) {
                        XCTAssertLessThanOrEqual(p.destination.x + p.destination.width, Double(b.width))
                        XCTAssertLessThanOrEqual(p.destination.y + p.destination.height, Double(b.height))
                    }
                }
                for k in 1..<ps.count where !drawsNothing(ps[k - 1]) && !drawsNothing(ps[k]) {
                    XCTAssertEqual(ps[k - 1].source.x + ps[k - 1].source.width, ps[k].source.x, "\(outputs) \(video) fit \(fit)")
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 500)
    }

    func testVideoEdge() {
        let cases: [(Double, Double, String)] = [
            (0, 0, "zero"),
            (0.5, 0.5, "a dyadic value is kept"),
            (-0.25, 0, "clamped below"),
            (1.25, 1, "clamped above"),
            (.nan, 0, "not a number"),
            (.infinity, 1, "infinity"),
            (0.1, (0.1 * 1_099_511_627_776).rounded() / 1_099_511_627_776, "snapped to 2^-40"),
        ]
        for (t, want, note) in cases {
            XCTAssertEqual(Span.videoEdge(t), want, note)
        }
        XCTAssertEqual(Span.videoEdge(0.1), 0.1, accuracy: 1e-12, "within half a grid step")
    }

    private func buffer(_ r: Rect) -> Size { Size(width: Int(r.width), height: Int(r.height)) }
    private func drawsNothing(_ p: Placement) -> Bool { p.destination.width <= 0 || p.destination.height <= 0 }
}
