// Damage's pure core: the tile mask and its boxes, the frame-to-frame comparison, the history
// that brings an older buffer up to date, and where a changed rectangle lands on a buffer or an
// output.
import XCTest
@testable import WayLoopCore

final class DamageTests: XCTestCase {
    private let hd = Size(width: 1920, height: 1080)

    func testTheGridCoversThePictureAndCutsTheLastRowAndColumn() {
        let m = TileMask(picture: Size(width: 200, height: 100))
        XCTAssertEqual(m.columns, 4)
        XCTAssertEqual(m.rows, 2)
        XCTAssertEqual(m.rect(column: 3, row: 1), PixelRect(x: 192, y: 64, width: 8, height: 36))
        XCTAssertTrue(m.isEmpty)
        XCTAssertEqual(TileMask(picture: hd).tiles, 30 * 17)
    }

    func testInsertCountsEachTileOnceAndUnionNeedsTheSamePicture() {
        var a = TileMask(picture: hd)
        a.insert(column: 2, row: 3)
        a.insert(column: 2, row: 3)
        XCTAssertEqual(a.count, 1)
        XCTAssertTrue(a[2, 3])
        XCTAssertFalse(a[3, 2])
        var b = TileMask(picture: hd)
        b.insert(column: 2, row: 3)
        b.insert(column: 29, row: 16)
        XCTAssertTrue(a.formUnion(b))
        XCTAssertEqual(a.count, 2)
        XCTAssertFalse(a.formUnion(TileMask(picture: Size(width: 1280, height: 720))))
        XCTAssertEqual(a.count, 2)
    }

    func testRunsAndBoxesMergeAlongRowsThenDownColumns() {
        // A 320x180 region at (800, 450): tiles 12...17 by 7...9 (800/64 = 12.5, 1119/64 = 17.5;
        // 450/64 = 7.03, 629/64 = 9.8).
        var m = TileMask(picture: hd)
        for r in 7...9 { for c in 12...17 { m.insert(column: c, row: r) } }
        XCTAssertEqual(m.runs, [7, 8, 9].map { PixelRect(x: 768, y: $0 * 64, width: 384, height: 64) })
        XCTAssertEqual(m.boxes(), [PixelRect(x: 768, y: 448, width: 384, height: 192)])
        // Two separate regions stay two boxes; a limit of one merges them into their bounds.
        m.insert(column: 0, row: 0)
        XCTAssertEqual(m.boxes().count, 2)
        XCTAssertEqual(m.boxes(limit: 1), [PixelRect(x: 0, y: 0, width: 1152, height: 640)])
        // The boxes cover every changed tile.
        var scattered = TileMask(picture: hd)
        for i in 0..<40 { scattered.insert(column: (i * 7) % 30, row: (i * 3) % 17) }
        let boxes = scattered.boxes(limit: 8)
        XCTAssertLessThanOrEqual(boxes.count, 8)
        for r in 0..<17 { for c in 0..<30 where scattered[c, r] {
            let t = scattered.rect(column: c, row: r)
            XCTAssertTrue(boxes.contains { $0.intersection(t) == t }, "tile \(c),\(r) outside every box")
        } }
    }

    func testPastHalfTheTilesAFrameIsFull() {
        var m = TileMask(picture: Size(width: 256, height: 64))
        m.insert(column: 0, row: 0)
        m.insert(column: 1, row: 0)
        XCTAssertEqual(Damage.of(m), .rects([PixelRect(x: 0, y: 0, width: 128, height: 64)]))
        m.insert(column: 3, row: 0)
        XCTAssertEqual(Damage.of(m), .full)
        XCTAssertEqual(Damage.of(nil), .full)
        XCTAssertEqual(Damage.of(TileMask(picture: hd)), .rects([]))
    }

    /// Two 4:2:0 frames in memory (padded lines), changed at chosen pixels.
    private struct Frames {
        let size: Size
        var y0, y1, u0, u1, v0, v1: [UInt8]
        let ls: Int, cls: Int
        init(_ size: Size) {
            self.size = size
            ls = size.width + 32
            cls = size.width / 2 + 16
            y0 = [UInt8](repeating: 16, count: ls * size.height)
            u0 = [UInt8](repeating: 128, count: cls * size.height / 2)
            y1 = y0; v0 = u0; u1 = u0; v1 = u0
        }
        func changed() -> TileMask? {
            y0.withUnsafeBytes { a in y1.withUnsafeBytes { b in u0.withUnsafeBytes { c in u1.withUnsafeBytes { d in
                v0.withUnsafeBytes { e in v1.withUnsafeBytes { f in
                    TileDiff.changed(old: [.init(data: a.baseAddress!, lineSize: ls), .init(data: c.baseAddress!, lineSize: cls),
                                           .init(data: e.baseAddress!, lineSize: cls)],
                                     new: [.init(data: b.baseAddress!, lineSize: ls), .init(data: d.baseAddress!, lineSize: cls),
                                           .init(data: f.baseAddress!, lineSize: cls)],
                                     size: size, chromaShiftX: 1, chromaShiftY: 1)
                } }
            } } } }
        }
    }

    func testTheComparisonFindsLumaAndChromaChangesInTheirTiles() {
        var f = Frames(Size(width: 640, height: 360))
        XCTAssertEqual(f.changed()?.count, 0, "identical frames")
        f.y1[100 * f.ls + 300] = 17  // luma pixel (300, 100): tile 4, 1
        f.v1[150 * f.cls + 50] = 129  // chroma sample (50, 150) = luma (100, 300): tile 1, 4
        // Padding past the picture's width differs: not part of the picture.
        f.y1[10 * f.ls + 650] = 99
        let m = f.changed()
        XCTAssertEqual(m?.count, 2)
        XCTAssertEqual(m?[4, 1], true)
        XCTAssertEqual(m?[1, 4], true)
        // The last, cut row of tiles (rows 320...359).
        f.y1[359 * f.ls + 639] = 0
        XCTAssertEqual(f.changed()?[9, 5], true)
    }

    func testTheComparisonGivesUpPastHalfTheTiles() {
        var f = Frames(Size(width: 256, height: 128))
        for c in 0..<4 { f.y1[c * 64] = 0 }  // row 0 of tiles: 4 of 8
        XCTAssertEqual(f.changed()?.count, 4)
        f.y1[64 * f.ls] = 0
        XCTAssertNil(f.changed(), "5 of 8 tiles changed: a full frame")
    }

    func testHistoryJoinsTheStepsBetweenTwoFrames() {
        func mask(_ c: Int) -> TileMask {
            var m = TileMask(picture: hd)
            m.insert(column: c, row: 0)
            return m
        }
        var h = DamageHistory()
        h.record(serial: 10, previous: 0, mask: nil)
        h.record(serial: 12, previous: 10, mask: mask(1))
        h.record(serial: 13, previous: 12, mask: mask(2))
        h.record(serial: 17, previous: 13, mask: mask(3))
        XCTAssertEqual(h.changed(from: 13, to: 17)?.count, 1)
        XCTAssertEqual(h.changed(from: 10, to: 17)?.count, 3)
        XCTAssertNil(h.changed(from: 0, to: 17), "nothing held: everything")
        XCTAssertNil(h.changed(from: 11, to: 17), "a serial not of this chain (another clip's): everything")
        XCTAssertEqual(h.changed(from: 17, to: 17)?.count, 0, "the same frame: nothing")
        h.record(serial: 18, previous: 17, mask: nil)
        XCTAssertNil(h.changed(from: 13, to: 18), "an unknown step: everything")
        for s in 19...30 { h.record(serial: UInt64(s), previous: UInt64(s - 1), mask: mask(0)) }
        XCTAssertNil(h.changed(from: 18, to: 30), "older than the history: everything")
        XCTAssertEqual(h.changed(from: 25, to: 30)?.count, 1)
        h.reset()
        XCTAssertNil(h.changed(from: 29, to: 30))
    }

    func testRegionsAreConvertedOnlyOneToOneOnChromaSamples() {
        let same = ShmLayout.compute(video: hd, buffer: hd, mode: .fill)
        XCTAssertTrue(same.convertsRegions(chromaShiftX: 1, chromaShiftY: 1))
        let center = ShmLayout.compute(video: Size(width: 1280, height: 720), buffer: hd, mode: .center)
        XCTAssertTrue(center.convertsRegions(chromaShiftX: 1, chromaShiftY: 1))
        XCTAssertFalse(ShmLayout.compute(video: Size(width: 1280, height: 720), buffer: hd, mode: .fill)
            .convertsRegions(chromaShiftX: 1, chromaShiftY: 1), "scaled")
        XCTAssertFalse(ShmLayout.compute(video: Size(width: 640, height: 360), buffer: hd, mode: .tile)
            .convertsRegions(chromaShiftX: 1, chromaShiftY: 1), "tiled")
        // A crop from an odd row (1920x1081 shown 1:1 on 1080 rows: crop starts at row 0 or 1).
        let odd = ShmLayout(source: PixelRect(x: 0, y: 1, width: 1920, height: 1080),
                            destination: PixelRect(x: 0, y: 0, width: 1920, height: 1080), hasBorders: false, tiled: false)
        XCTAssertFalse(odd.convertsRegions(chromaShiftX: 1, chromaShiftY: 1))
        XCTAssertTrue(odd.convertsRegions(chromaShiftX: 0, chromaShiftY: 0))
    }

    func testAChangedRectangleLandsOnTheBuffer() {
        // 1:1 with a centred border: moved by the border.
        let center = ShmLayout.compute(video: Size(width: 1280, height: 720), buffer: hd, mode: .center)
        XCTAssertEqual(center.bufferRect(of: PixelRect(x: 0, y: 0, width: 64, height: 64)),
                       PixelRect(x: 320, y: 180, width: 64, height: 64))
        // Scaled 1.5x: scaled and widened by 2 pixels, clipped to the picture.
        let fill = ShmLayout.compute(video: Size(width: 1280, height: 720), buffer: hd, mode: .fill)
        XCTAssertEqual(fill.bufferRect(of: PixelRect(x: 64, y: 64, width: 64, height: 64)),
                       PixelRect(x: 94, y: 94, width: 100, height: 100))
        XCTAssertEqual(fill.bufferRect(of: PixelRect(x: 0, y: 0, width: 64, height: 64)),
                       PixelRect(x: 0, y: 0, width: 98, height: 98))
        // Cropped away (fill of a wider video): nothing on this buffer.
        let wide = ShmLayout.compute(video: Size(width: 3840, height: 1080), buffer: hd, mode: .fill)
        XCTAssertNil(wide.bufferRect(of: PixelRect(x: 0, y: 0, width: 64, height: 64)))
        XCTAssertEqual(wide.bufferRect(of: PixelRect(x: 960, y: 0, width: 64, height: 64)),
                       PixelRect(x: 0, y: 0, width: 64, height: 64))
    }

    func testAChangedRectangleLandsOnTheOutput() {
        let fit = Placement.compute(video: Size(width: 1280, height: 720), output: Size(width: 1920, height: 1200), mode: .fit)
        // Fit: 1.5x, bars of 60 rows above and below.
        XCTAssertEqual(fit.outputRect(of: PixelRect(x: 64, y: 64, width: 64, height: 64), picture: Size(width: 1280, height: 720)),
                       PixelRect(x: 94, y: 154, width: 100, height: 100))
        let fill = Placement.compute(video: Size(width: 3840, height: 1080), output: hd, mode: .fill)
        XCTAssertNil(fill.outputRect(of: PixelRect(x: 0, y: 0, width: 64, height: 64), picture: Size(width: 3840, height: 1080)))
        let same = Placement.compute(video: hd, output: hd, mode: .fill)
        XCTAssertEqual(same.outputRect(of: PixelRect(x: 1856, y: 1024, width: 64, height: 56), picture: hd),
                       PixelRect(x: 1854, y: 1022, width: 66, height: 58))
    }

    func testAFullMotionVideoIsComparedLessAndLessOften() {
        var p = ComparePolicy()
        var compared: [Int] = []
        for frame in 0..<200 where p.shouldCompare() {
            compared.append(frame)
            p.compared(full: true)
        }
        // Four full frames, then pauses of 4, 8, 16, 32, 32 ... frames between tries.
        XCTAssertEqual(Array(compared.prefix(8)), [0, 1, 2, 3, 8, 17, 34, 67])
        XCTAssertEqual(Array(compared.suffix(4)), [100, 133, 166, 199])
        // A try that finds a still part: every frame again.
        var q = ComparePolicy()
        for _ in 0..<10 where q.shouldCompare() { q.compared(full: true) }
        while !q.shouldCompare() {}
        q.compared(full: false)
        XCTAssertTrue((0..<10).allSatisfy { _ in q.shouldCompare() })
        // Full frames that do not come four in a row never pause it.
        var r = ComparePolicy()
        for i in 0..<40 {
            XCTAssertTrue(r.shouldCompare(), "frame \(i)")
            r.compared(full: i % 4 != 3)
        }
    }

    func testFrameCostsRoundTripThroughTheStatusJSON() {
        var c = FrameCosts()
        c.decode.add(4_250_000)
        c.decode.add(3_750_000)
        c.compare.add(-5)  // a clock that went backwards adds nothing but counts the run
        c.convert.add(1_234_567)
        var s = OutputStatus(name: "DP-1", video: "/v.mp4", mode: .fill, state: .playing)
        s.costs = c
        let back = OutputStatus(json: s.json)
        XCTAssertEqual(back?.costs?.decode, StageCost(nanos: 8_000_000, count: 2))
        XCTAssertEqual(back?.costs?.compare, StageCost(nanos: 0, count: 1))
        XCTAssertEqual(back?.costs?.convert, StageCost(nanos: 1_230_000, count: 1), "ms with two decimals")
        XCTAssertEqual(back?.costs?.present, StageCost())
        XCTAssertNil(OutputStatus(json: OutputStatus(name: "DP-1", video: nil, mode: nil, state: .idle).json)?.costs)
    }

    func testRunsAreCutIntoPowerOfTwoPieces() {
        func widths(_ w: Int) -> [Int] { TileMask.pieces(PixelRect(x: 128, y: 64, width: w, height: 64)).map(\.width) }
        XCTAssertEqual(widths(64), [64])
        XCTAssertEqual(widths(7 * 64), [256, 128, 64])
        XCTAssertEqual(widths(30 * 64), [1024, 512, 256, 128])
        // A cut tile at the picture's edge stays with the piece before it.
        XCTAssertEqual(widths(2 * 64 + 40), [168])
        XCTAssertEqual(widths(40), [40])
        let p = TileMask.pieces(PixelRect(x: 128, y: 64, width: 5 * 64, height: 56))
        XCTAssertEqual(p, [PixelRect(x: 128, y: 64, width: 256, height: 56), PixelRect(x: 384, y: 64, width: 64, height: 56)])
    }
}
