// What bars, service managers and scripts read: waybar lines, journal priorities, the status
// JSON's version.
import WayLoopCore
import XCTest

final class IntegrationTests: XCTestCase {
    func testWaybarLines() {
        let a = OutputStatus(name: "DP-1", video: "/v/ocean.mp4", mode: .fill, state: .playing)
        var b = OutputStatus(name: "HDMI-A-1", video: "/v/ocean.mp4", mode: .fit, state: .paused(.user))
        let cases: [([OutputStatus], text: String, cls: String, tooltip: String)] = [
            ([], "", "idle", ""),
            ([a], "ocean", "playing", "DP-1: playing - ocean"),
            ([a, b], "ocean", "paused", "DP-1: playing - ocean\nHDMI-A-1: paused (user) - ocean"),
        ]
        for c in cases {
            let j = Waybar.line(c.0)
            XCTAssertEqual(j["text"]?.string, c.text)
            XCTAssertEqual(j["class"]?.string, c.cls)
            XCTAssertEqual(j["alt"]?.string, c.cls)
            XCTAssertEqual(j["tooltip"]?.string, c.tooltip)
            // One line of JSON that parses back with the three keys waybar reads.
            let line = j.serialized
            XCTAssertFalse(line.contains("\n"))
            let back = try? JSON.parse(line)
            XCTAssertEqual(back, j, "not JSON: \(line)")
        }
        b.video = "/v/a&b <1>.webm"
        b.state = .failed(.resourceNotFound, "gone")
        let j = Waybar.line([a, b])
        XCTAssertEqual(j["text"]?.string, "2 videos")
        XCTAssertEqual(j["class"]?.string, "failed", "failed says most")
        XCTAssertTrue(j["tooltip"]?.string?.contains("a&amp;b &lt;1&gt;") == true, "Pango markup is escaped: \(j)")
    }

    func testSubscribeTakesWaybar() throws {
        XCTAssertEqual(try CtlParser.parse(["subscribe", "--waybar"]), CtlCommand(request: .subscribe, waybar: true))
        XCTAssertEqual(try CtlParser.parse(["subscribe"]), CtlCommand(request: .subscribe))
        XCTAssertThrowsError(try CtlParser.parse(["subscribe", "--json"]))
        XCTAssertThrowsError(try CtlParser.parse(["subscribe", "x"]))
        XCTAssertEqual(OutputStatus.version, 1)
    }

    func testJournalPriorities() {
        let cases: [(String, String)] = [
            ("wayloop: error: video: 'x': no such file", "<3>"),
            ("wayloop: notice: main: playing 'x'", "<5>"),
            ("wayloop: debug: main: a → b", "<7>"),
            ("wayloop: trace: video: dropped 1", "<7>"),
            ("something else", "<6>"),
        ]
        for (line, p) in cases { XCTAssertEqual(Journal.prefixed(line), p + line) }
        XCTAssertTrue(Journal.names("2049:1234", device: 2049, inode: 1234))
        for v: String? in [nil, "", "2049", "2049:1235", "x:y", "2049:1234:5"] {
            XCTAssertFalse(Journal.names(v, device: 2049, inode: 1234), "\(v ?? "nil")")
        }
    }
}
