// A video per workspace: `-w NAME VIDEO` on the command line, `workspace NAME = VIDEO` in the
// config file, and the settings an output gets for the workspace it shows.
import WayLoopCore
import XCTest

final class WorkspaceVideoTests: XCTestCase {
    private func options(_ args: [String]) throws -> Options {
        guard case .run(let o) = try OptionParser.parse(args) else { throw XCTSkip("not a run") }
        return o
    }

    func testTheCommandLine() throws {
        let o = try options(["base.mp4", "-w", "2", "rain.mp4", "-o", "DP-1", "-i", "left.mp4", "-w", "2: web", "web.mp4", "-m", "fit"])
        XCTAssertEqual(o.entries.map(\.workspace), [nil, nil, "2", "2: web"])
        XCTAssertEqual(o.entries[2], OutputEntry(selector: .all, workspace: "2", video: "rain.mp4"))
        XCTAssertEqual(o.entries[3], OutputEntry(selector: .named("DP-1"), workspace: "2: web", video: "web.mp4"))
        XCTAssertEqual(o.entries[1].mode, .fit, "-m after -w is the -o scope's")
        XCTAssertEqual(o.baseVideos, ["base.mp4", "left.mp4"])
        XCTAssertEqual(o.videos, ["base.mp4", "left.mp4", "rain.mp4", "web.mp4"])
        XCTAssertTrue(o.hasWorkspaceEntries)
        let bad: [([String], String)] = [
            (["-w"], "option '-w' needs a value"),
            (["-w", "2"], "option '-w 2' needs a value"),
            (["-w", "", "a.mp4"], "option '-w': '' is not a workspace name (as the compositor names it: 1, 2: web)"),
            (["-w", "a\u{7}b", "a.mp4"], "option '-w': 'a\u{7}b' is not a workspace name (as the compositor names it: 1, 2: web)"),
        ]
        for (args, line) in bad {
            XCTAssertThrowsError(try OptionParser.parse(args), "\(args)") { XCTAssertEqual("\($0)", line) }
        }
    }

    func testTheConfigFile() throws {
        let text = """
        video = base.mp4
        workspace 3 = /v/rain.mp4
        workspace "9: music" = /v/music.mp4

        [output DP-1]
        video = /v/left.mp4
        workspace 3 = /v/left-rain.mp4
        """
        let e = try ConfigFile.parse(text, path: "/c/config", home: "/h")
        let ws = e.filter { $0.workspace != nil }
        XCTAssertEqual(ws.map(\.workspace), ["3", "9: music", "3"])
        XCTAssertEqual(ws.map(\.selector), [.all, .all, .named("DP-1")])
        XCTAssertEqual(ws[0].videoOrigin, "/c/config:2")
        for (bad, reason) in [("workspace = a.mp4", "unknown key 'workspace'"), ("workspace  \"\" = a.mp4", "after 'workspace'"),
                              ("workspace 3 = a.mp4\nworkspace 3 = b.mp4", "'workspace 3' is set twice in this section")] {
            XCTAssertThrowsError(try ConfigFile.parse(bad, path: "/c/config", home: nil), bad) { XCTAssertTrue("\($0)".contains(reason), "\($0)") }
        }
    }

    /// The output's own settings, then the workspace's for every output, then the workspace's
    /// for this output; a workspace with no entry: the output's own video.
    func testTheSettingsForTheWorkspaceShown() throws {
        var o = Options()
        o.entries = [
            OutputEntry(selector: .all, video: "/v/base.mp4", mode: .fit),
            OutputEntry(selector: .named("DP-1"), video: "/v/left.mp4"),
            OutputEntry(selector: .named("DP-1"), workspace: "3", video: "/v/left-rain.mp4"),
            OutputEntry(selector: .all, workspace: "3", video: "/v/rain.mp4", color: RGB(hex: "202020")),
            OutputEntry(selector: .all, workspace: "music", video: "/v/music.mp4"),
        ]
        let rows: [(output: String, workspace: String?, video: String, mode: ScaleMode)] = [
            ("DP-1", nil, "/v/left.mp4", .fit),
            ("DP-1", "1", "/v/left.mp4", .fit),
            ("DP-1", "3", "/v/left-rain.mp4", .fit),
            ("DP-2", "3", "/v/rain.mp4", .fit),
            ("DP-2", "music", "/v/music.mp4", .fit),
            ("DP-2", "Music", "/v/base.mp4", .fit),
        ]
        for r in rows {
            let s = try XCTUnwrap(o.settings(forOutput: r.output, workspace: r.workspace), "\(r)")
            XCTAssertEqual(s.video, r.video, "\(r)")
            XCTAssertEqual(s.mode, r.mode, "\(r)")
        }
        XCTAssertEqual(o.settings(forOutput: "DP-2", workspace: "3")?.color, RGB(hex: "202020"))
        // An output with nothing but a workspace's entry gets a surface only on that workspace.
        var only = Options()
        only.entries = [OutputEntry(selector: .named("DP-3"), workspace: "2", video: "/v/two.mp4")]
        XCTAssertNil(only.settings(forOutput: "DP-3", workspace: "1"))
        XCTAssertEqual(only.settings(forOutput: "DP-3", workspace: "2")?.video, "/v/two.mp4")
    }

    // MARK: A colour as a workspace's entry

    func testAColourOnTheCommandLineInTheConfigAndThroughCtl() throws {
        let c = try XCTUnwrap(RGB(hex: "203040"))
        let o = try options(["base.mp4", "-w", "4", "#203040", "-w", "5", "203040", "-w", "6", "20304g"])
        XCTAssertEqual(o.entries.map(\.solid), [nil, c, c, nil])
        XCTAssertEqual(o.entries[3].video, "20304g", "not six hex digits: a file name")
        XCTAssertEqual(o.videos, ["base.mp4", "20304g"], "a colour is no video to open")
        let e = try ConfigFile.parse("video = /v/base.mp4\nworkspace 4 = #203040\nworkspace 5 = 203040 # comment\n", path: "/c/config", home: nil)
        XCTAssertEqual(e.compactMap(\.solid), [c, c])
        XCTAssertEqual(e.filter { $0.solid != nil }.map(\.video), [nil, nil])
        XCTAssertNil(e[1].videoOrigin, "a colour is not looked up as a file")
        // ctl: only a workspace's entry takes a colour, in either place of the command line.
        for args in [["set", "*", "--workspace", "4", "#203040"], ["set", "*", "203040", "-w", "4"]] {
            guard case .set(let entry) = try CtlParser.parse(args).request else { return XCTFail("\(args)") }
            XCTAssertEqual(entry.solid, c, "\(args)")
            XCTAssertNil(entry.video, "\(args)")
            XCTAssertEqual(ControlRequest.parse(ControlRequest.set(entry).json.serialized), .success(.set(entry)), "\(args)")
        }
        guard case .set(let plain) = try CtlParser.parse(["set", "*", "203040"]).request else { return XCTFail() }
        XCTAssertEqual(plain.video, "203040", "without --workspace it names a file, as it always did")
        let badJSON: [(String, String)] = [
            (#"{"cmd":"set","output":"*","solid":"203040"}"#, "\"solid\" is for a workspace's entry (with \"workspace\")"),
            (#"{"cmd":"set","output":"*","workspace":"4","solid":"2030"}"#, "\"solid\" must be a colour RRGGBB"),
            (#"{"cmd":"set","output":"*","workspace":"4","solid":"203040","video":"/v/a.mp4"}"#,
             "\"video\" and \"solid\" are one entry's two choices: name one"),
        ]
        for (line, why) in badJSON {
            guard case .failure(let f) = ControlRequest.parse(line) else { XCTFail(line); continue }
            XCTAssertTrue("\(f)".contains(why), "\(line): \(f)")
        }
    }

    /// A colour and a video are one slot: the later entry for the workspace wins.
    func testTheSettingsOfAColourWorkspace() throws {
        let c = try XCTUnwrap(RGB(hex: "203040"))
        var o = Options()
        o.entries = [
            OutputEntry(selector: .all, video: "/v/base.mp4", mode: .fit),
            OutputEntry(workspace: "4", selector: .all, showing: "203040"),
            OutputEntry(workspace: "5", selector: .all, showing: "203040"),
            OutputEntry(selector: .named("DP-1"), workspace: "5", video: "/v/five.mp4"),
            OutputEntry(selector: .named("DP-3"), workspace: "2", video: "/v/x.mp4"),
        ]
        let rows: [(output: String, workspace: String?, video: String, solid: RGB?)] = [
            ("DP-1", "1", "/v/base.mp4", nil),
            ("DP-1", "4", "/v/base.mp4", c),  // the output's own video, kept for the way back
            ("DP-2", "5", "/v/base.mp4", c),
            ("DP-1", "5", "/v/five.mp4", nil),  // this output's video over every output's colour
        ]
        for r in rows {
            let s = try XCTUnwrap(o.settings(forOutput: r.output, workspace: r.workspace), "\(r)")
            XCTAssertEqual(s.video, r.video, "\(r)")
            XCTAssertEqual(s.solid, r.solid, "\(r)")
            XCTAssertEqual(s.mode, .fit, "the output's settings go on: \(r)")
        }
        // An output with nothing but the colour: shown on that workspace, "" as its video.
        var only = Options()
        only.entries = [OutputEntry(workspace: "2", selector: .named("DP-3"), showing: "#203040")]
        XCTAssertNil(only.settings(forOutput: "DP-3", workspace: "1"))
        XCTAssertEqual(only.settings(forOutput: "DP-3", workspace: "2")?.solid, c)
        XCTAssertEqual(only.settings(forOutput: "DP-3", workspace: "2")?.video, "")
        // A colour and a later video for the same workspace shadow each other (ctl set ten times).
        XCTAssertEqual(OutputEntry.unshadowed([OutputEntry(workspace: "4", selector: .all, showing: "203040"),
                                               OutputEntry(selector: .all, workspace: "4", video: "/v/a.mp4")]), [false, true])
    }

    func testAColourInTheStateFile() throws {
        let e = OutputEntry(workspace: "4", selector: .named("Make Model 1"), showing: "203040")
        let state = SavedState(base: SavedState.fingerprint([]), overrides: [e])
        guard case .success(let back) = SavedState.parse(state.text) else { return XCTFail(state.text) }
        XCTAssertEqual(back.overrides, [e])
        XCTAssertTrue(state.text.contains(#""solid":"203040""#), state.text)
        XCTAssertNotEqual(SavedState.fingerprint([e]), SavedState.fingerprint([OutputEntry(selector: .named("Make Model 1"), workspace: "4")]))
    }
}
