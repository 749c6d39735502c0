import WayLoopCore
import XCTest

final class ColorTests: XCTestCase {
    /// Reference points: limited-range black, white and the BT.709 / BT.601 primaries as 8-bit
    /// codes (ITU-R BT.709 table 3.5, BT.601 derivation), checked to within half a level.
    func testLimitedRangeReferencePoints() {
        let cases: [(YUVMatrix, (Double, Double, Double), (Double, Double, Double))] = [
            (.bt709, (16, 128, 128), (0, 0, 0)),
            (.bt709, (235, 128, 128), (255, 255, 255)),
            (.bt709, (63, 102, 240), (255, 0, 0)),
            (.bt709, (173, 42, 26), (0, 255, 0)),
            (.bt709, (32, 240, 118), (0, 0, 255)),
            (.bt601, (81, 90, 240), (255, 0, 0)),
            (.bt601, (145, 54, 34), (0, 255, 0)),
            (.bt601, (41, 240, 110), (0, 0, 255)),
        ]
        for (m, yuv, rgb) in cases {
            let c = YUVConversion(matrix: m, range: .limited)
            let out = c.apply((yuv.0 / 255, yuv.1 / 255, yuv.2 / 255))
            XCTAssertEqual(out.0 * 255, rgb.0, accuracy: 2.0, "\(m) R of \(yuv)")
            XCTAssertEqual(out.1 * 255, rgb.1, accuracy: 2.0, "\(m) G of \(yuv)")
            XCTAssertEqual(out.2 * 255, rgb.2, accuracy: 2.0, "\(m) B of \(yuv)")
        }
    }

    func testFullRangeGreyIsIdentity() {
        for m in YUVMatrix.allCases {
            let c = YUVConversion(matrix: m, range: .full)
            for v in [0.0, 0.5, 1.0] {
                let out = c.apply((v, 128.0 / 255, 128.0 / 255))
                XCTAssertEqual(out.0, v, accuracy: 1e-6)
                XCTAssertEqual(out.1, v, accuracy: 1e-6)
                XCTAssertEqual(out.2, v, accuracy: 1e-6)
            }
        }
    }

    func testTenBitLimitedWhite() {
        let c = YUVConversion(matrix: .bt2020, range: .limited, bitDepth: 10)
        let out = c.apply((940.0 / 1023, 512.0 / 1023, 512.0 / 1023))
        XCTAssertEqual(out.0, 1, accuracy: 1e-6)
        XCTAssertEqual(out.2, 1, accuracy: 1e-6)
    }

    func testUnspecifiedMatrixRule() {
        XCTAssertEqual(YUVMatrix.guess(width: 1920, height: 1080), .bt709)
        XCTAssertEqual(YUVMatrix.guess(width: 1280, height: 720), .bt709)
        XCTAssertEqual(YUVMatrix.guess(width: 720, height: 576), .bt601)
        XCTAssertEqual(YUVMatrix.guess(width: 720, height: 1280), .bt709)
    }

    func testLoggerLevelsAndCapture() {
        final class Box: @unchecked Sendable { var lines: [String] = [] }
        let box = Box()
        let log = Logger(label: "test", level: .notice, sink: { box.lines.append($0) })
        log.error("bad")
        log.notice("hello")
        log.debug("hidden")
        log.scoped("video").notice("scoped")
        XCTAssertEqual(box.lines, ["wayloop: error: test: bad", "wayloop: notice: test: hello", "wayloop: notice: video: scoped"])
    }
}

final class PowerTests: XCTestCase {
    func testOnBatteryRule() {
        let bat = PowerSupply(type: "Battery", status: "Discharging")
        let cases: [([PowerSupply], Bool)] = [
            ([], false),
            ([bat], true),
            ([bat, PowerSupply(type: "Mains", online: true)], false),
            ([bat, PowerSupply(type: "Mains", online: false)], true),
            ([PowerSupply(type: "Battery", status: "Charging"), PowerSupply(type: "Mains", online: false)], false),
            ([PowerSupply(type: "Battery", status: "Full")], false),
            ([bat, PowerSupply(type: "USB", online: true)], false),
        ]
        for (s, want) in cases { XCTAssertEqual(PowerSupply.onBattery(s), want, "\(s)") }
    }
}
