import WayLoopCore
import XCTest

final class JSONTests: XCTestCase {
    func testRoundTrip() throws {
        let text = #"{"cmd":"set","output":"*","video":"/v/a \"b\".mp4","dim":0.25,"n":3,"ok":true,"x":null,"l":[1,"two",[]]}"#
        let v = try JSON.parse(text)
        XCTAssertEqual(v["cmd"]?.string, "set")
        XCTAssertEqual(v["video"]?.string, "/v/a \"b\".mp4")
        XCTAssertEqual(v["dim"]?.number, 0.25)
        XCTAssertEqual(v["ok"]?.bool, true)
        XCTAssertEqual(v["x"], .null)
        XCTAssertEqual(v["l"]?.array?.count, 3)
        XCTAssertEqual(v.serialized, text)
        XCTAssertEqual(try JSON.parse(v.serialized), v)
    }

    func testEscapesAndUnicode() throws {
        XCTAssertEqual(try JSON.parse(#""a\nb\u00e9\t""#), .string("a\nbé\t"))
        XCTAssertEqual(JSON.string("x\u{1}y\"").serialized, #""x\u0001y\"""#)
        XCTAssertEqual(try JSON.parse(" [ ] "), .array([]))
    }

    func testMalformedInputIsRejectedWithAnOffset() {
        let bad = ["", "{", "{\"a\" 1}", "[1,]", "tru", "\"abc", "{\"a\":1} x", "01x", "\"a\u{1}\"",
                   String(repeating: "[", count: 40) + String(repeating: "]", count: 40)]
        for b in bad {
            XCTAssertThrowsError(try JSON.parse(b), "\(b)") { e in
                XCTAssertTrue("\(e)".contains("invalid JSON at byte"), "\(e)")
            }
        }
    }
}
