import WayLoopCore
import XCTest

final class PlacementTests: XCTestCase {
    private func assertRect(_ r: Rect, _ e: Rect, accuracy: Double = 1e-9, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(r.x, e.x, accuracy: accuracy, "x", file: file, line: line)
        XCTAssertEqual(r.y, e.y, accuracy: accuracy, "y", file: file, line: line)
        XCTAssertEqual(r.width, e.width, accuracy: accuracy, "width", file: file, line: line)
        XCTAssertEqual(r.height, e.height, accuracy: accuracy, "height", file: file, line: line)
    }

    /// Aspect-fill: the whole output is covered and the long axis of the video is cropped
    /// symmetrically. Expected source rectangles are worked out by hand in the comments.
    func testFillCropsTheLongAxis() {
        let cases: [(video: Size, output: Size, source: Rect, note: String)] = [
            (Size(width: 1920, height: 1080), Size(width: 1280, height: 720), .unit, "16:9 on 16:9: nothing cropped"),
            // 4:3 output shows 0.75 of a 16:9 video's width: 12.5 % off each side.
            (Size(width: 1920, height: 1080), Size(width: 1024, height: 768),
             Rect(x: 0.125, y: 0, width: 0.75, height: 1), "16:9 on 4:3"),
            // 21:9 (2560x1080) output shows 1.7778/2.3704 = 0.75 of the height.
            (Size(width: 1920, height: 1080), Size(width: 2560, height: 1080),
             Rect(x: 0, y: 0.125, width: 1, height: 0.75), "16:9 on 21:9"),
            // 9:16 output shows (9/16)/(16/9) = 0.31640625 of the width.
            (Size(width: 1920, height: 1080), Size(width: 720, height: 1280),
             Rect(x: (1 - 0.31640625) / 2, y: 0, width: 0.31640625, height: 1), "16:9 on 9:16"),
            // A 9:16 video on a 16:9 output shows 0.31640625 of its height.
            (Size(width: 720, height: 1280), Size(width: 1920, height: 1080),
             Rect(x: 0, y: (1 - 0.31640625) / 2, width: 1, height: 0.31640625), "9:16 on 16:9"),
        ]
        for c in cases {
            let p = Placement.compute(video: c.video, output: c.output, mode: .fill)
            assertRect(p.destination, Rect(x: 0, y: 0, width: Double(c.output.width), height: Double(c.output.height)))
            assertRect(p.source, c.source)
            XCTAssertFalse(p.hasBorders, c.note)
        }
    }

    func testFitLetterboxes() {
        let p = Placement.compute(video: Size(width: 1920, height: 1080), output: Size(width: 1024, height: 768), mode: .fit)
        assertRect(p.source, .unit)
        assertRect(p.destination, Rect(x: 0, y: 96, width: 1024, height: 576))
        XCTAssertTrue(p.hasBorders)
        let q = Placement.compute(video: Size(width: 720, height: 1280), output: Size(width: 1280, height: 720), mode: .fit)
        assertRect(q.destination, Rect(x: 437.5, y: 0, width: 405, height: 720))
    }

    func testStretchAndCenter() {
        let s = Placement.compute(video: Size(width: 640, height: 480), output: Size(width: 1920, height: 1080), mode: .stretch)
        assertRect(s.destination, Rect(x: 0, y: 0, width: 1920, height: 1080))
        assertRect(s.source, .unit)
        // Smaller video: bordered, whole pixels.
        let c = Placement.compute(video: Size(width: 641, height: 480), output: Size(width: 1920, height: 1080), mode: .center)
        assertRect(c.destination, Rect(x: 639, y: 300, width: 641, height: 480))
        assertRect(c.source, .unit)
        XCTAssertTrue(c.hasBorders)
        // Larger video: cropped 1:1 around the centre.
        let d = Placement.compute(video: Size(width: 3840, height: 2160), output: Size(width: 1920, height: 1080), mode: .center)
        assertRect(d.destination, Rect(x: 0, y: 0, width: 1920, height: 1080))
        assertRect(d.source, Rect(x: 0.25, y: 0.25, width: 0.5, height: 0.5))
        XCTAssertFalse(d.hasBorders)
    }

    func testEmptySizesDrawNothing() {
        for (v, o) in [(Size(width: 0, height: 0), Size(width: 10, height: 10)), (Size(width: 10, height: 10), Size(width: 0, height: 5))] {
            let p = Placement.compute(video: v, output: o, mode: .fill)
            XCTAssertEqual(p.destination.width * p.destination.height, 0)
        }
    }
}

final class OrientationTests: XCTestCase {
    /// Where the display's corners come from in the stored picture, for each quarter turn:
    /// the top-left of a picture turned 90° clockwise is the stored bottom-left, and so on.
    func testQuarterTurnsMapCorners() {
        let cases: [(Orientation, topLeft: (Double, Double), topRight: (Double, Double))] = [
            (.upright, (0, 0), (1, 0)),
            (Orientation(rotation: 90), (0, 1), (0, 0)),
            (Orientation(rotation: 180), (1, 1), (0, 1)),
            (Orientation(rotation: 270), (1, 0), (1, 1)),
            (Orientation(rotation: 0, mirrored: true), (1, 0), (0, 0)),
            (Orientation(rotation: 90, mirrored: true), (1, 1), (1, 0)),
        ]
        for (o, tl, tr) in cases {
            let a = o.textureCoordinate(u: 0, v: 0), b = o.textureCoordinate(u: 1, v: 0)
            XCTAssertEqual(a.s, tl.0, accuracy: 1e-9, "\(o) top-left s")
            XCTAssertEqual(a.t, tl.1, accuracy: 1e-9, "\(o) top-left t")
            XCTAssertEqual(b.s, tr.0, accuracy: 1e-9, "\(o) top-right s")
            XCTAssertEqual(b.t, tr.1, accuracy: 1e-9, "\(o) top-right t")
        }
    }

    func testDisplayMatrixAnglesAndSizes() {
        // av_display_rotation_get gives counter-clockwise degrees; rotate=90 metadata stores -90.
        XCTAssertEqual(Orientation(displayMatrixDegrees: -90, mirrored: false).rotation, 90)
        XCTAssertEqual(Orientation(displayMatrixDegrees: 90, mirrored: false).rotation, 270)
        XCTAssertEqual(Orientation(displayMatrixDegrees: 180, mirrored: false).rotation, 180)
        XCTAssertEqual(Orientation(displayMatrixDegrees: -179.6, mirrored: false).rotation, 180)
        XCTAssertEqual(Orientation(displayMatrixDegrees: .nan, mirrored: false), .upright)
        XCTAssertEqual(Orientation(rotation: 90).displaySize(Size(width: 1920, height: 1080)), Size(width: 1080, height: 1920))
        XCTAssertEqual(Orientation(rotation: 180).displaySize(Size(width: 1920, height: 1080)), Size(width: 1920, height: 1080))
    }

    func testTileRepeatsFromTheTopLeft() {
        let p = Placement.compute(video: Size(width: 320, height: 240), output: Size(width: 1280, height: 720), mode: .tile)
        XCTAssertEqual(p.source, Rect(x: 0, y: 0, width: 4, height: 3))
        XCTAssertEqual(p.destination, Rect(x: 0, y: 0, width: 1280, height: 720))
    }
}

final class SurfaceGeometryTests: XCTestCase {
    func testIntegerAndFractionalBufferSizes() {
        let cases: [(SurfaceGeometry, Size, Int, Bool)] = [
            (SurfaceGeometry(logical: Size(width: 1920, height: 1080)), Size(width: 1920, height: 1080), 1, false),
            (SurfaceGeometry(logical: Size(width: 1280, height: 720), integerScale: 2), Size(width: 2560, height: 1440), 2, false),
            // 1.25 × 1536x864 = 1920x1080 exactly.
            (SurfaceGeometry(logical: Size(width: 1536, height: 864), integerScale: 2, scale120: 150),
             Size(width: 1920, height: 1080), 1, true),
            // 1.5 × 1707x960 = 2560.5 → 2561 (half away from zero), 1440.
            (SurfaceGeometry(logical: Size(width: 1707, height: 960), scale120: 180), Size(width: 2561, height: 1440), 1, true),
            // 1.75 × 1097x617 = 1919.75 → 1920, 1079.75 → 1080.
            (SurfaceGeometry(logical: Size(width: 1097, height: 617), scale120: 210), Size(width: 1920, height: 1080), 1, true),
        ]
        for (g, size, scale, viewport) in cases {
            XCTAssertEqual(g.bufferSize, size, "\(g)")
            XCTAssertEqual(g.bufferScale, scale, "\(g)")
            XCTAssertEqual(g.usesViewport, viewport, "\(g)")
        }
    }
}

extension PlacementTests {
    /// The scale the buffers are made at, as status gives it and the start notice writes it: the
    /// fractional one in use, never the integer wl_output scale beside it (sway says 2 at 1.5).
    func testTheScaleInUseAndItsText() {
        let logical = Size(width: 853, height: 480)
        let cases: [(SurfaceGeometry, Double, String)] = [
            (SurfaceGeometry(logical: logical, integerScale: 2, scale120: 180), 1.5, "1.5"),
            (SurfaceGeometry(logical: logical, integerScale: 2, scale120: 150), 1.25, "1.25"),
            (SurfaceGeometry(logical: logical, integerScale: 2, scale120: 210), 1.75, "1.75"),
            (SurfaceGeometry(logical: logical, integerScale: 1, scale120: 144), 1.2, "1.2"),
            (SurfaceGeometry(logical: logical, integerScale: 1, scale120: 121), 121.0 / 120, "1.008"),
            (SurfaceGeometry(logical: logical, integerScale: 1, scale120: 120), 1, "1"),
            (SurfaceGeometry(logical: logical, integerScale: 3, scale120: 240), 2, "2"),
            (SurfaceGeometry(logical: logical, integerScale: 2), 2, "2"),            // no fractional scale: the integer one
            (SurfaceGeometry(logical: logical, integerScale: 2, scale120: 0), 2, "2"),  // a zero scale is none
            (SurfaceGeometry(logical: logical), 1, "1"),
        ]
        for (g, scale, text) in cases {
            XCTAssertEqual(g.scale, scale, accuracy: 1e-9, "\(g)")
            XCTAssertEqual(g.scaleText, text, "\(g)")
        }
    }
}

final class FractionalScaleChoiceTests: XCTestCase {
    func testTheOutputsOwnScaleFromItsModeAndLogicalSize() {
        let cases: [(Size, Size?, Int?)] = [
            (Size(width: 1920, height: 1080), Size(width: 1280, height: 720), 180),    // 1.5
            (Size(width: 1920, height: 1080), Size(width: 1920, height: 1080), 120),   // 1
            (Size(width: 1920, height: 1080), Size(width: 1536, height: 864), 150),    // 1.25
            (Size(width: 2560, height: 1440), Size(width: 1707, height: 960), 180),    // 1.5, logical rounded
            (Size(width: 1920, height: 1080), Size(width: 1097, height: 617), 210),    // 1.75, rounded
            (Size(width: 3840, height: 2160), Size(width: 1920, height: 1080), 240),   // 2
            (Size(width: 1080, height: 1920), Size(width: 720, height: 1280), 180),    // turned a quarter, 1.5
            (Size(width: 1920, height: 1080), nil, nil),                              // no xdg-output
            (Size(width: 1920, height: 1080), Size(width: 0, height: 0), nil),
            (Size(width: 0, height: 0), Size(width: 1280, height: 720), nil),          // no mode yet
            (Size(width: 1920, height: 1080), Size(width: 720, height: 1280), nil),    // shapes disagree
        ]
        for (physical, logical, want) in cases {
            XCTAssertEqual(FractionalScaleChoice.outputScale120(physical: physical, logical: logical), want, "\(physical) over \(String(describing: logical))")
        }
    }

    func testWhichScaleIsDrawnAt() {
        // (output's own scale, preferred events as (scale, shown a buffer yet), scale drawn at)
        let cases: [(Int?, [(Int, Bool)], Int?)] = [
            (nil, [], nil),                               // nothing known: integer scaling
            (180, [], 180),                               // the output's own before any event
            (nil, [(150, false)], 150),                   // no logical size: the compositor's
            (180, [(120, false)], 180),                   // KWin: 120 before the surface is on its output
            (180, [(120, false), (180, true)], 180),      // … and 180 once shown: no second size
            (180, [(180, false)], 180),                   // a compositor that says it at once
            (180, [(120, false), (120, true)], 120),      // said again once shown: the compositor decides
            (180, [(180, true), (240, true)], 240),       // the scale changed at run time
            (120, [(0, true)], 120),                      // a zero scale is no scale
        ]
        for (output, events, want) in cases {
            var c = FractionalScaleChoice(output: output)
            for (scale, shown) in events { c.preferred(scale, shown: shown) }
            XCTAssertEqual(c.scale120, want, "output \(String(describing: output)), events \(events)")
        }
    }
}
