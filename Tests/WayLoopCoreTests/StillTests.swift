// `wayloop thumbnail`'s command line, where in a loop its frame is, and a stored picture read
// out as shown.
import XCTest
@testable import WayLoopCore

final class StillTests: XCTestCase {
    func testThumbnailCommandLines() throws {
        var c = ThumbnailCommand(video: "a.mp4", file: "a.png")
        XCTAssertEqual(try ThumbnailCommand.parse(["a.mp4", "a.png"]), c)
        c.size = Size(width: 1920, height: 1080)
        c.at = 90
        c.mode = .fit
        c.color = RGB(hex: "202020")!
        c.dim = 0.5
        XCTAssertEqual(try ThumbnailCommand.parse(["--size", "1920x1080", "a.mp4", "--at", "1m30s", "-m", "fit", "a.png",
                                                   "-c", "202020", "--dim", "0.5"]), c)
        XCTAssertEqual(try ThumbnailCommand.parse(["a.mp4", "a.png", "--at", "0"]).at, 0)
        XCTAssertEqual(try OptionParser.parse(["thumbnail", "a.mp4", "a.png"]), .thumbnail(ThumbnailCommand(video: "a.mp4", file: "a.png")))
        XCTAssertEqual(try OptionParser.parse(["thumbnail", "--help"]), .help)
        // Not the first argument: a video named "thumbnail".
        guard case .run = try OptionParser.parse(["-m", "fit", "thumbnail"]) else { return XCTFail("thumbnail as a video name") }

        let bad: [([String], UsageError)] = [
            ([], .thumbnail("needs VIDEO and FILE.png (\(ThumbnailCommand.usage))")),
            (["a.mp4"], .thumbnail("needs VIDEO and FILE.png (\(ThumbnailCommand.usage))")),
            (["a.mp4", "a.png", "b"], .thumbnail("takes one VIDEO and one FILE.png, not also 'b'")),
            (["a.mp4", "a.png", "--size", "0x10"], .badValue(option: "--size", value: "0x10", expected: "a size WxH from 1x1 to 16384x16384")),
            (["a.mp4", "a.png", "--size", "1920"], .badValue(option: "--size", value: "1920", expected: "a size WxH from 1x1 to 16384x16384")),
            (["a.mp4", "a.png", "--size", "20000x10"], .badValue(option: "--size", value: "20000x10", expected: "a size WxH from 1x1 to 16384x16384")),
            (["a.mp4", "a.png", "--size", "-1x-1"], .badValue(option: "--size", value: "-1x-1", expected: "a size WxH from 1x1 to 16384x16384")),
            (["a.mp4", "a.png", "--at", "soon"], .badValue(option: "--at", value: "soon", expected: DurationText.expected + " (or 0)")),
            (["a.mp4", "a.png", "-m", "zoom"], .badValue(option: "-m", value: "zoom", expected: EntrySettings.mode.expected)),
            (["a.mp4", "a.png", "-m", "span"], .thumbnail("-m span needs outputs to span: use one of fill, fit, stretch, center, tile")),
            (["a.mp4", "a.png", "--dim"], .missingValue(option: "--dim")),
            (["a.mp4", "a.png", "--fast"], .unknownOption("--fast")),
        ]
        for (args, want) in bad {
            XCTAssertThrowsError(try ThumbnailCommand.parse(args), "\(args)") { XCTAssertEqual($0 as? UsageError, want, "\(args)") }
        }
        XCTAssertEqual(UsageError.thumbnail("x").description, "thumbnail x")
    }

    func testTheFrameIsTakenWithinTheLoop() {
        XCTAssertEqual(ThumbnailCommand.time(0.5, inLoopOf: 1), 0.5)
        XCTAssertEqual(ThumbnailCommand.time(2.25, inLoopOf: 1), 0.25, accuracy: 1e-9)
        XCTAssertEqual(ThumbnailCommand.time(5, inLoopOf: nil), 0)
        XCTAssertEqual(ThumbnailCommand.time(5, inLoopOf: 0), 0)
        XCTAssertEqual(ThumbnailCommand.time(.infinity, inLoopOf: 3), 0)
    }

    func testAStoredPictureIsReadOutAsShown() {
        // A 3x2 picture stored; each case: where the shown picture's corners come from.
        let stored = Size(width: 3, height: 2)
        let cases: [(Orientation, [(shown: (Int, Int), from: (Int, Int))])] = [
            (.upright, [((0, 0), (0, 0)), ((2, 1), (2, 1))]),
            // A quarter turn clockwise: shown 2x3, its top-right is the stored top-left.
            (Orientation(rotation: 90), [((1, 0), (0, 0)), ((0, 0), (0, 1)), ((0, 2), (2, 1))]),
            (Orientation(rotation: 180), [((0, 0), (2, 1)), ((2, 1), (0, 0))]),
            // Three quarters: the stored top-left ends bottom-left.
            (Orientation(rotation: 270), [((0, 2), (0, 0)), ((1, 0), (2, 1))]),
            (Orientation(rotation: 0, mirrored: true), [((0, 0), (2, 0)), ((2, 1), (0, 1))]),
            (Orientation(rotation: 90, mirrored: true), [((1, 0), (2, 0))]),
        ]
        for (o, points) in cases {
            for p in points {
                let got = o.storedPixel(x: p.shown.0, y: p.shown.1, stored: stored)
                XCTAssertTrue(got == p.from, "\(o): shown \(p.shown) comes from \(got), not \(p.from)")
            }
        }
        // Every shown pixel comes from one stored pixel, each once.
        for o in [Orientation.upright, Orientation(rotation: 90), Orientation(rotation: 180), Orientation(rotation: 270, mirrored: true)] {
            let shown = o.displaySize(stored)
            var seen = Set<Int>()
            for y in 0..<shown.height { for x in 0..<shown.width {
                let s = o.storedPixel(x: x, y: y, stored: stored)
                XCTAssertTrue((0..<3).contains(s.x) && (0..<2).contains(s.y), "\(o)")
                seen.insert(s.y * 3 + s.x)
            } }
            XCTAssertEqual(seen.count, 6, "\(o)")
        }
    }

    func testCtlSnapshot() throws {
        XCTAssertEqual(try CtlParser.parse(["snapshot", "a.png"]), CtlCommand(request: .snapshot(output: nil, file: "a.png")))
        XCTAssertEqual(try CtlParser.parse(["snapshot", "DP-1", "a.png"]), CtlCommand(request: .snapshot(output: "DP-1", file: "a.png")))
        XCTAssertEqual(try CtlParser.parse(["snapshot", "*", "a.png"]), CtlCommand(request: .snapshot(output: nil, file: "a.png")))
        XCTAssertThrowsError(try CtlParser.parse(["snapshot"])) { XCTAssertEqual($0 as? UsageError, .ctl("snapshot needs FILE.png (and OUTPUT, with several outputs)")) }
        XCTAssertThrowsError(try CtlParser.parse(["snapshot", "a", "b", "c"])) { XCTAssertEqual($0 as? UsageError, .ctl("snapshot takes [OUTPUT] FILE.png, not also 'c'")) }
        XCTAssertThrowsError(try CtlParser.parse(["snapshot", "--big", "a.png"])) { XCTAssertEqual($0 as? UsageError, .unknownOption("--big")) }
        for r in [ControlRequest.snapshot(output: nil, file: "/t/a.png"), .snapshot(output: "DP-1", file: "/t/a b.png")] {
            XCTAssertEqual(ControlRequest.parse(r.json.serialized), .success(r))
        }
        XCTAssertEqual(ControlRequest.snapshot(output: "DP-1", file: "/a.png").json.serialized, #"{"cmd":"snapshot","output":"DP-1","file":"/a.png"}"#)
        XCTAssertEqual(ControlRequest.parse(#"{"cmd":"snapshot","file":"a.png"}"#), .failure(.malformed("snapshot needs \"file\" (an absolute path)")))
        XCTAssertEqual(ControlRequest.parse(#"{"cmd":"snapshot"}"#), .failure(.malformed("snapshot needs \"file\" (an absolute path)")))
    }
}
