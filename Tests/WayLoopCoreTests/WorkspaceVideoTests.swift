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
}
