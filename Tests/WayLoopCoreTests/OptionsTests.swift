import WayLoopCore
import XCTest

final class OptionsTests: XCTestCase {
    private func run(_ args: [String]) throws -> Options {
        guard case .run(let o) = try OptionParser.parse(args) else { throw XCTSkip("not a run command") }
        return o
    }

    func testPositionalVideoIsForEveryOutput() throws {
        let o = try run(["-m", "fit", "-c", "#102030", "--dim", "0.25", "v.mp4"])
        XCTAssertEqual(o.settings(forOutput: "DP-1"),
                       OutputSettings(video: "v.mp4", mode: .fit, color: RGB(red: 0x10, green: 0x20, blue: 0x30), dim: 0.25))
        XCTAssertEqual(o.videos, ["v.mp4"])
    }

    func testOutputScopes() throws {
        let o = try run(["-o", "DP-1", "-m", "stretch", "-i", "a.mp4", "-o", "*", "-i", "b.mp4", "-o", "Dell U2720 X1", "-i", "c.mp4"])
        XCTAssertEqual(o.settings(forOutput: "DP-1")?.video, "a.mp4")
        XCTAssertEqual(o.settings(forOutput: "DP-1")?.mode, .stretch)
        XCTAssertEqual(o.settings(forOutput: "HDMI-A-1")?.video, "b.mp4")
        XCTAssertEqual(o.settings(forOutput: "HDMI-A-1")?.mode, .fill)
        XCTAssertEqual(o.settings(forOutput: "DP-2", description: "Dell U2720 X1")?.video, "c.mp4")
        XCTAssertEqual(o.videos, ["a.mp4", "b.mp4", "c.mp4"])
    }

    func testAnOutputMatchingNothingGetsNoSurface() throws {
        let o = try run(["-o", "DP-1", "-i", "a.mp4"])
        XCTAssertNil(o.settings(forOutput: "HDMI-A-1"))
    }

    func testHelpVersionAndFlags() throws {
        XCTAssertEqual(try OptionParser.parse(["--help"]), .help)
        XCTAssertEqual(try OptionParser.parse(["v.mp4", "-V"]), .version)
        let o = try run(["-v", "--queue-frames", "4", "--trace-frames", "/tmp/t", "--", "-odd-name.mp4"])
        XCTAssertEqual(o.logLevel, .debug)
        XCTAssertEqual(o.queueFrames, 4)
        XCTAssertEqual(o.traceFile, "/tmp/t")
        XCTAssertEqual(o.videos, ["-odd-name.mp4"])
    }

    func testUsageErrorsNameTheOption() {
        let cases: [([String], UsageError)] = [
            (["--bogus", "v.mp4"], .unknownOption("--bogus")),
            (["v.mp4", "-m"], .missingValue(option: "-m")),
            (["-m", "zoom", "v.mp4"], .badValue(option: "-m", value: "zoom", expected: "one of fill, fit, stretch, center, tile")),
            (["-c", "red", "v.mp4"], .badValue(option: "-c", value: "red", expected: "a colour RRGGBB")),
            (["--dim", "1.5", "v.mp4"], .badValue(option: "--dim", value: "1.5", expected: "a number from 0 to 1")),
            ([], .noVideo),
            (["-o", "DP-1", "-m", "fit"], .noVideo),
            (["a.mp4", "b.mp4"], .unexpectedArgument("b.mp4")),
        ]
        for (args, expected) in cases {
            XCTAssertThrowsError(try OptionParser.parse(args), "\(args)") { error in
                XCTAssertEqual(error as? UsageError, expected, "\(args)")
                XCTAssertTrue("\(error)".contains(expected.description))
            }
        }
    }

    func testRGBParsesAndPrints() {
        XCTAssertEqual(RGB(hex: "ff8000"), RGB(red: 255, green: 128, blue: 0))
        XCTAssertEqual(RGB(hex: "#FF8000")?.description, "ff8000")
        XCTAssertNil(RGB(hex: "fff"))
        XCTAssertNil(RGB(hex: "gg0000"))
    }
}
