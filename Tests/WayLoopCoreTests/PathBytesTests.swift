import WayLoopCore
import XCTest

final class PathBytesTests: XCTestCase {
    /// Bytes → string → bytes gives back every byte; valid UTF-8 stays as its characters.
    func testRoundTripKeepsEveryByte() {
        let cases: [(bytes: [UInt8], shown: String)] = [
            (Array("/home/me/ocean.mp4".utf8), "/home/me/ocean.mp4"),
            (Array("/v/café 🌊.mp4".utf8), "/v/café 🌊.mp4"),
            ([0x2F, 0x63, 0x61, 0x66, 0xE9, 0x2E, 0x6D, 0x70, 0x34], "/caf\\xe9.mp4"),  // Latin-1 é
            ([0xFF, 0xFE, 0x41], "\\xff\\xfeA"),
            ([0xC3], "\\xc3"),                          // a sequence cut short
            ([0xC3, 0x28], "\\xc3("),                   // a bad continuation byte
            ([0xED, 0xA0, 0x80], "\\xed\\xa0\\x80"),    // an encoded surrogate is not UTF-8
            ([0xC0, 0xAF], "\\xc0\\xaf"),               // an overlong "/"
            ([0xF4, 0x90, 0x80, 0x80], "\\xf4\\x90\\x80\\x80"),  // past U+10FFFF
            (Array("\u{F7E9}".utf8), "\\xef\\x9f\\xa9"),  // a real escape-range character stays lossless
            ([], ""),
        ]
        for c in cases {
            let s = PathBytes.decode(c.bytes)
            XCTAssertEqual(PathBytes.encode(s), c.bytes, "round trip of \(c.bytes)")
            XCTAssertEqual(LineText.escaped(s), c.shown, "shown form of \(c.bytes)")
            XCTAssertEqual(PathBytes.cString(s).last, 0)
            XCTAssertEqual(PathBytes.cString(s).count, c.bytes.count + 1)
        }
    }

    /// Every single byte and every pair round-trips.
    func testAllBytesAndPairsRoundTrip() {
        for a in 0...255 {
            XCTAssertEqual(PathBytes.encode(PathBytes.decode([UInt8(a)])), [UInt8(a)])
            for b in stride(from: 0, through: 255, by: 7) {
                let bytes = [UInt8(a), UInt8(b)]
                XCTAssertEqual(PathBytes.encode(PathBytes.decode(bytes)), bytes)
            }
        }
    }
}
