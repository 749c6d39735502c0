// niri's event stream adapter on transcripts written from niri's source (github:niri-wm/niri
// v26.04: niri-ipc/src/lib.rs's Workspace :1408-1444, Window :1297-1337, WindowLayout :1367-1393,
// Event :1571-; serde's JSON of them, one per line, src/ipc/server.rs:496-497; the full state
// first, server.rs:249) and applied as niri-ipc/src/state.rs applies them: the socket, the request
// and its reply, two outputs through workspace switches, focus, a window moved and one closed, the
// events it does not keep, fullscreen it cannot know, and malformed lines.
import WayLoopCore
import XCTest

final class NiriIPCTests: XCTestCase {
    // MARK: Transcripts

    /// A workspace as serde writes niri's `Workspace`.
    private func workspace(_ id: Int, idx: Int, name: String? = nil, output: String?, active: Bool, focused: Bool = false,
                           activeWindow: Int? = nil) -> String {
        #"{"id":\#(id),"idx":\#(idx),"name":\#(name.map { "\"\($0)\"" } ?? "null"),"output":\#(output.map { "\"\($0)\"" } ?? "null"),"#
            + #""is_urgent":false,"is_active":\#(active),"is_focused":\#(focused),"active_window_id":\#(activeWindow.map(String.init) ?? "null")}"#
    }

    /// A window as serde writes niri's `Window` (its layout a tiled one's, or a floating one's).
    private func window(_ id: Int, title: String, appID: String, workspace: Int?, focused: Bool = false, floating: Bool = false,
                        size: (Int, Int) = (1268, 1402)) -> String {
        let pos = floating ? "null" : "[\(id),1]"
        return #"{"id":\#(id),"title":"\#(title)","app_id":"\#(appID)","pid":\#(4000 + id),"#
            + #""workspace_id":\#(workspace.map(String.init) ?? "null"),"is_focused":\#(focused),"is_floating":\#(floating),"is_urgent":false,"#
            + #""layout":{"pos_in_scrolling_layout":\#(pos),"tile_size":[\#(size.0).0,\#(size.1).0],"window_size":[\#(size.0 - 4),\#(size.1 - 4)],"#
            + #""tile_pos_in_workspace_view":null,"window_offset_in_tile":[2.0,2.0]},"focus_timestamp":{"secs":1715,"nanos":250000000}}"#
    }

    /// What niri writes on an event stream's connection, the reply first: two outputs, DP-1 with
    /// workspaces 1 (active, focused) and 2, HDMI-A-1 with "chat" (active) and an unnamed 2;
    /// Alacritty (focused) and a floating mpv on DP-1's 1, code on its 2, firefox on "chat".
    private var connection: [String] {
        [
            #"{"Ok":"Handled"}"#,
            #"{"WorkspacesChanged":{"workspaces":["# + [
                workspace(1, idx: 1, output: "DP-1", active: true, focused: true, activeWindow: 11),
                workspace(2, idx: 2, output: "DP-1", active: false, activeWindow: 14),
                workspace(3, idx: 1, name: "chat", output: "HDMI-A-1", active: true, activeWindow: 12),
                workspace(4, idx: 2, output: "HDMI-A-1", active: false),
            ].joined(separator: ",") + "]}}",
            #"{"WindowsChanged":{"windows":["# + [
                window(11, title: "~", appID: "Alacritty", workspace: 1, focused: true),
                window(12, title: "Matrix — Mozilla Firefox", appID: "firefox", workspace: 3),
                window(13, title: "clip.mp4 - mpv", appID: "mpv", workspace: 1, floating: true, size: (640, 360)),
                window(14, title: "main.swift - WayLoop", appID: "code", workspace: 2),
            ].joined(separator: ",") + "]}}",
            #"{"KeyboardLayoutsChanged":{"keyboard_layouts":{"names":["English (US)","Russian"],"current_idx":0}}}"#,
            #"{"OverviewOpenedOrClosed":{"is_open":false}}"#,
            #"{"ConfigLoaded":{"failed":false}}"#,
            #"{"CastsChanged":{"casts":[]}}"#,
        ]
    }

    /// The state after the connection's lines (its reply checked, not applied).
    private func connected(file: StaticString = #filePath, line: UInt = #line) -> NiriState {
        var state = NiriState()
        let lines = connection
        XCTAssertNoThrow(try NiriIPC.checkEventStreamReply(lines[0]).get(), file: file, line: line)
        for l in lines.dropFirst() {
            XCTAssertNoThrow(try state.apply(l), l, file: file, line: line)
        }
        return state
    }

    private func ids(_ windows: [ScreenWindow]) -> [String] { windows.map(\.id) }

    // MARK: Tests

    func testTheSocketTheRequestAndItsReply() {
        XCTAssertEqual(NiriIPC.socketVariable, "NIRI_SOCKET")
        XCTAssertEqual(NiriIPC.socketPath("/run/user/1000/niri.wayland-1.2211.sock"), "/run/user/1000/niri.wayland-1.2211.sock")
        XCTAssertNil(NiriIPC.socketPath(nil))
        XCTAssertNil(NiriIPC.socketPath(""))
        XCTAssertEqual(NiriIPC.eventStreamRequest, "\"EventStream\"\n")
        XCTAssertEqual(try JSON.parse(NiriIPC.eventStreamRequest), .string("EventStream"))
        let cases: [(String, NiriIPCError?)] = [
            (#"{"Ok":"Handled"}"#, nil),
            (#"{"Err":"error parsing request: unknown variant `EventStream`"}"#,
             .refused("error parsing request: unknown variant `EventStream`")),
            (#"{"Ok":{"Version":"26.04"}}"#, .malformed(#"its reply to EventStream is not {"Ok":"Handled"}: {"Ok":{"Version":"26.04"}}"#)),
            ("Handled", .malformed("its reply to EventStream is not JSON (invalid JSON at byte 0: expected a value)")),
        ]
        for (line, want) in cases {
            switch NiriIPC.checkEventStreamReply(line) {
            case .success: XCTAssertNil(want, line)
            case .failure(let e): XCTAssertEqual(e, want, line)
            }
        }
        XCTAssertEqual("\(NiriIPCError.refused("x"))", "niri refused the event stream: x")
    }

    func testTheStateUpFrontOnTwoOutputs() {
        let state = connected()
        let f = state.facts
        XCTAssertEqual(f.workspaces, [
            ScreenWorkspace(name: "1", output: "DP-1", active: true),
            ScreenWorkspace(name: "2", output: "DP-1", active: false),
            ScreenWorkspace(name: "chat", output: "HDMI-A-1", active: true),
            ScreenWorkspace(name: "2", output: "HDMI-A-1", active: false),   // unnamed: its idx
        ])
        XCTAssertEqual(f.windows, [
            ScreenWindow(id: "11", appID: "Alacritty", title: "~", workspace: "1", output: "DP-1", activated: true),
            ScreenWindow(id: "12", appID: "firefox", title: "Matrix — Mozilla Firefox", workspace: "chat", output: "HDMI-A-1"),
            ScreenWindow(id: "13", appID: "mpv", title: "clip.mp4 - mpv", workspace: "1", output: "DP-1"),
            ScreenWindow(id: "14", appID: "code", title: "main.swift - WayLoop", workspace: "2", output: "DP-1"),
        ])
        XCTAssertEqual(f.activeWorkspace(on: "DP-1"), "1")
        XCTAssertEqual(f.activeWorkspace(on: "HDMI-A-1"), "chat")
        XCTAssertNil(f.activeWorkspace(on: "eDP-1"))
        XCTAssertEqual(ids(f.windows(on: "DP-1")), ["11", "13"])
        XCTAssertEqual(ids(f.windows(on: "HDMI-A-1")), ["12"])
        XCTAssertEqual(state.windows.first { $0.id == 13 }?.isFloating, true)
        XCTAssertEqual(state.workspaces.first { $0.id == 3 }?.activeWindowID, 12)
        XCTAssertEqual(state.workspaces.filter(\.isFocused).map(\.id), [1])
    }

    func testWorkspaceSwitchesAndTheFocusFollowing() {
        var state = connected()
        // focus-workspace-down on DP-1, then the focus moves to code (server's order).
        let lines: [(String, Bool)] = [
            (#"{"WorkspaceActivated":{"id":2,"focused":true}}"#, true),
            (#"{"WindowFocusChanged":{"id":14}}"#, true),
            (#"{"WindowFocusTimestampChanged":{"id":14,"focus_timestamp":{"secs":1716,"nanos":0}}}"#, false),
        ]
        for (line, changes) in lines { XCTAssertEqual(try state.apply(line), changes, line) }
        var f = state.facts
        XCTAssertEqual(f.activeWorkspace(on: "DP-1"), "2")
        XCTAssertEqual(f.activeWorkspace(on: "HDMI-A-1"), "chat")   // another output's is kept
        XCTAssertEqual(f.windows(on: "DP-1"), [
            ScreenWindow(id: "14", appID: "code", title: "main.swift - WayLoop", workspace: "2", output: "DP-1", activated: true),
        ])
        XCTAssertEqual(f.windows.filter(\.activated).map(\.id), ["14"])
        XCTAssertEqual(state.workspaces.filter(\.isFocused).map(\.id), [2])
        // The focus to HDMI-A-1's unnamed 2, not focusing it (focused false: the focus stays on 2).
        XCTAssertEqual(try state.apply(#"{"WorkspaceActivated":{"id":4,"focused":false}}"#), true)
        f = state.facts
        XCTAssertEqual(f.activeWorkspace(on: "HDMI-A-1"), "2")
        XCTAssertEqual(f.activeWorkspace(on: "DP-1"), "2")
        XCTAssertEqual(f.windows(on: "HDMI-A-1"), [])
        XCTAssertEqual(state.workspaces.filter(\.isFocused).map(\.id), [2])
        // No window has the focus (a layer surface took it).
        XCTAssertEqual(try state.apply(#"{"WindowFocusChanged":{"id":null}}"#), true)
        XCTAssertEqual(state.facts.windows.filter(\.activated), [])
        // A workspace it does not know: ignored (niri-ipc would panic, state.rs:139).
        let before = state
        XCTAssertEqual(try state.apply(#"{"WorkspaceActivated":{"id":99,"focused":true}}"#), false)
        XCTAssertEqual(state, before)
    }

    func testAWindowMovedBetweenWorkspacesAndOneClosed() {
        var state = connected()
        // move-window-to-monitor-right: Alacritty onto HDMI-A-1's "chat", still focused.
        let moved = window(11, title: "~", appID: "Alacritty", workspace: 3, focused: true)
        XCTAssertEqual(try state.apply(#"{"WindowOpenedOrChanged":{"window":"# + moved + "}}"), true)
        XCTAssertEqual(try state.apply(#"{"WorkspaceActiveWindowChanged":{"workspace_id":3,"active_window_id":11}}"#), false)
        var f = state.facts
        XCTAssertEqual(f.windows.first { $0.id == "11" }, ScreenWindow(id: "11", appID: "Alacritty", title: "~", workspace: "chat",
                                                                        output: "HDMI-A-1", activated: true))
        XCTAssertEqual(ids(f.windows(on: "HDMI-A-1")), ["11", "12"])
        XCTAssertEqual(ids(f.windows(on: "DP-1")), ["13"])
        XCTAssertEqual(state.workspaces.first { $0.id == 3 }?.activeWindowID, 11)
        // A new window, focused: the focus leaves the others (state.rs:189-195).
        let opened = window(15, title: "notes.md", appID: "org.gnome.TextEditor", workspace: 1, focused: true)
        XCTAssertEqual(try state.apply(#"{"WindowOpenedOrChanged":{"window":"# + opened + "}}"), true)
        XCTAssertEqual(state.facts.windows.filter(\.activated).map(\.id), ["15"])
        XCTAssertEqual(ids(state.facts.windows(on: "DP-1")), ["13", "15"])
        // mpv closed; a close of a window it does not know changes nothing.
        XCTAssertEqual(try state.apply(#"{"WindowClosed":{"id":13}}"#), true)
        XCTAssertEqual(try state.apply(#"{"WindowClosed":{"id":999}}"#), true)
        f = state.facts
        XCTAssertEqual(ids(f.windows(on: "DP-1")), ["15"])
        XCTAssertFalse(f.windows.contains { $0.id == "13" })
        XCTAssertEqual(f.windows.count, 4)
    }

    func testWorkspacesReplacedAWindowOnAWorkspaceNotYetToldAndWindowsReplaced() {
        var state = connected()
        // A window opened on a workspace whose WorkspacesChanged has not come yet (state.rs:27-32).
        let early = window(16, title: "scratch", appID: "foot", workspace: 5)
        XCTAssertEqual(try state.apply(#"{"WindowOpenedOrChanged":{"window":"# + early + "}}"), true)
        XCTAssertEqual(state.facts.windows.first { $0.id == "16" }, ScreenWindow(id: "16", appID: "foot", title: "scratch"))
        XCTAssertEqual(ids(state.facts.windows(on: "DP-1")), ["11", "13"])
        // Then it comes: DP-1's workspaces are now 1, "scratch" (5) and an empty 3.
        let spaces = [
            workspace(1, idx: 1, output: "DP-1", active: false, activeWindow: 11),
            workspace(5, idx: 2, name: "scratch", output: "DP-1", active: true, focused: true, activeWindow: 16),
            workspace(2, idx: 3, output: "DP-1", active: false, activeWindow: 14),
            workspace(3, idx: 1, name: "chat", output: "HDMI-A-1", active: true, activeWindow: 12),
            workspace(4, idx: 2, output: "HDMI-A-1", active: false),
        ]
        XCTAssertEqual(try state.apply(#"{"WorkspacesChanged":{"workspaces":["# + spaces.joined(separator: ",") + "]}}"), true)
        var f = state.facts
        XCTAssertEqual(f.workspaces.map(\.name), ["1", "scratch", "3", "chat", "2"])
        XCTAssertEqual(f.activeWorkspace(on: "DP-1"), "scratch")
        XCTAssertEqual(ids(f.windows(on: "DP-1")), ["16"])
        XCTAssertEqual(f.windows.first { $0.id == "14" }?.workspace, "3")   // its idx changed
        // WindowsChanged replaces them all: those missing were closed.
        XCTAssertEqual(try state.apply(#"{"WindowsChanged":{"windows":["# + window(12, title: "Matrix", appID: "firefox", workspace: 3) + "]}}"), true)
        f = state.facts
        XCTAssertEqual(ids(f.windows), ["12"])
        XCTAssertEqual(f.windows(on: "DP-1"), [])
        XCTAssertEqual(ids(f.windows(on: "HDMI-A-1")), ["12"])
        // No workspaces at all (no output connected): windows on none.
        XCTAssertEqual(try state.apply(#"{"WorkspacesChanged":{"workspaces":[]}}"#), true)
        XCTAssertEqual(state.facts.workspaces, [])
        XCTAssertEqual(state.facts.windows, [ScreenWindow(id: "12", appID: "firefox", title: "Matrix")])
    }

    func testAFullscreenWindowIsNotKnownAsOne() {
        // niri 26.04 reports no fullscreen state (lib.rs:1297-1337, server.rs:515-531): a window
        // fullscreened on DP-1 (2560x1440 logical) only changes its layout's sizes.
        var state = connected()
        let layout = #"{"pos_in_scrolling_layout":[1,1],"tile_size":[2560.0,1440.0],"window_size":[2560,1440],"#
            + #""tile_pos_in_workspace_view":[0.0,0.0],"window_offset_in_tile":[0.0,0.0]}"#
        XCTAssertEqual(try state.apply(#"{"WindowLayoutsChanged":{"changes":[[11,"# + layout + "]]}}"), false)
        XCTAssertEqual(state.facts.windows.first { $0.id == "11" }?.fullscreen, false)
        XCTAssertEqual(state.facts.windows.first { $0.id == "11" }?.maximized, false)
        XCTAssertEqual(state, connected())
    }

    func testEventsItDoesNotKeepAndNewOnesAreIgnored() {
        var state = connected()
        let before = state
        let lines = [
            #"{"WorkspaceUrgencyChanged":{"id":3,"urgent":true}}"#,
            #"{"WindowUrgencyChanged":{"id":12,"urgent":true}}"#,
            #"{"KeyboardLayoutSwitched":{"idx":1}}"#,
            #"{"OverviewOpenedOrClosed":{"is_open":true}}"#,
            #"{"ConfigLoaded":{"failed":true}}"#,
            #"{"ScreenshotCaptured":{"path":null}}"#,
            #"{"CastStopped":{"stream_id":3}}"#,
            #"{"WindowFullscreenStateChanged":{"id":11,"fullscreen_state":"Fullscreen"}}"#,   // a newer niri's, perhaps
            #"{"SomethingNew":[1,2,3]}"#,
            #""SomeUnitEvent""#,
        ]
        for line in lines {
            XCTAssertEqual(try state.apply(line), false, line)
        }
        XCTAssertEqual(state, before)
        // New fields in a known event are ignored too.
        let extra = #"{"WindowFocusChanged":{"id":12,"reason":"click"}}"#
        XCTAssertEqual(try state.apply(extra), true)
        XCTAssertEqual(state.facts.windows.filter(\.activated).map(\.id), ["12"])
    }

    func testAnOlderNirisWindowWithoutItsNewerFields() {
        // niri 0.1.9's Window had no is_floating, layout, pid (v0.1.9 niri-ipc/src/lib.rs:649-668).
        var state = NiriState()
        XCTAssertNoThrow(try state.apply(#"{"WorkspacesChanged":{"workspaces":[{"id":6,"idx":1,"name":null,"output":"eDP-1","is_active":true,"is_focused":true,"active_window_id":12}]}}"#))
        XCTAssertNoThrow(try state.apply(#"{"WindowsChanged":{"windows":[{"id":12,"title":"t socat STDIO /run/u ~","app_id":"Alacritty","workspace_id":6,"is_focused":true}]}}"#))
        XCTAssertEqual(state.facts.windows(on: "eDP-1"), [
            ScreenWindow(id: "12", appID: "Alacritty", title: "t socat STDIO /run/u ~", workspace: "1", output: "eDP-1", activated: true),
        ])
    }

    func testMalformedLinesAreErrorsAndChangeNothing() {
        var state = connected()
        let before = state
        let cases: [(String, String)] = [
            ("", "niri's event stream: a line is not JSON (invalid JSON at byte 0: unexpected end): "),
            ("WorkspacesChanged", "niri's event stream: a line is not JSON (invalid JSON at byte 0: expected a value): WorkspacesChanged"),
            ("[1,2]", "niri's event stream: a line is not an event (an object of one key): [1,2]"),
            (#"{"WindowClosed":{"id":1},"WindowFocusChanged":{"id":null}}"#,
             #"niri's event stream: a line is not an event (an object of one key): {"WindowClosed":{"id":1},"WindowFocusChanged":{"id":null}}"#),
            (#"{"WindowsChanged":"none"}"#, "niri's event stream: WindowsChanged is not an object"),
            (#"{"WindowsChanged":{"windows":{}}}"#, "niri's event stream: WindowsChanged has no windows array"),
            (#"{"WorkspacesChanged":{}}"#, "niri's event stream: WorkspacesChanged has no workspaces array"),
            (#"{"WorkspacesChanged":{"workspaces":[{"id":1,"output":"DP-1"}]}}"#, "niri's event stream: workspace 1 has no idx from 0 to 255"),
            (#"{"WorkspacesChanged":{"workspaces":[{"id":1,"idx":1},7]}}"#, "niri's event stream: a workspace is not an object"),
            (#"{"WorkspacesChanged":{"workspaces":[{"id":1,"idx":1,"is_active":"yes"}]}}"#,
             "niri's event stream: workspace 1's is_active is not a bool"),
            (#"{"WindowClosed":{"id":"13"}}"#, "niri's event stream: WindowClosed's id is not an id"),
            (#"{"WindowClosed":{"id":-1}}"#, "niri's event stream: WindowClosed's id is not an id"),
            (#"{"WindowFocusChanged":{"id":1.5}}"#, "niri's event stream: WindowFocusChanged's id is not an id"),
            (#"{"WindowOpenedOrChanged":{}}"#, "niri's event stream: WindowOpenedOrChanged has no window"),
            (#"{"WindowOpenedOrChanged":{"window":{"id":5,"title":7}}}"#, "niri's event stream: window 5's title is not a string"),
            (#"{"WorkspaceActivated":{"id":2,"focused":1}}"#, "niri's event stream: WorkspaceActivated's focused is not a bool"),
        ]
        for (line, want) in cases {
            XCTAssertThrowsError(try state.apply(line), line) { e in XCTAssertEqual("\(e)", want, line) }
            XCTAssertEqual(state, before, line)
        }
    }

    func testTheStreamReadInPiecesThroughEventLines() {
        // The connection's bytes read 7 at a time, lines joined by EventLines, as the shell does.
        let bytes = Array(connection.map { $0 + "\n" }.joined().utf8)
        var lines = EventLines()
        var state = NiriState()
        var got: [String] = []
        var i = 0
        while i < bytes.count {
            got += lines.append(bytes[i..<min(i + 7, bytes.count)])
            i += 7
        }
        XCTAssertEqual(got, connection)
        XCTAssertNoThrow(try NiriIPC.checkEventStreamReply(got[0]).get())
        for l in got.dropFirst() { XCTAssertNoThrow(try state.apply(l)) }
        XCTAssertEqual(state, connected())
    }
}
