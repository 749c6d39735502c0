// Hyprland's IPC adapter on transcripts written from Hyprland's source (github:hyprwm/Hyprland
// v0.56.2 src/debug/HyprCtl.cpp: getMonitorData :223-311, getWindowData :376-456,
// getWorkspaceData :487-520; v0.41.2 for the older bool `fullscreen`) and its event lines
// (src/managers/EventManager.cpp:126-130, the wiki's IPC page): the sockets, the requests, the
// facts of two monitors through workspace switches, a fullscreen, a maximized and a floating
// window, a special workspace shown, a window moved and one closed, older replies, malformed
// ones, which event lines call for asking again, and the line splitter.
import WayLoopCore
import XCTest

final class HyprlandIPCTests: XCTestCase {
    // MARK: Transcripts

    /// A monitor as `j/monitors` writes one (HyprCtl.cpp:230-274): each item ends in "},", the
    /// list's last comma trimmed.
    private func monitor(_ id: Int, _ name: String, x: Int, active: (Int, String), special: (Int, String) = (0, ""),
                         focused: Bool = false) -> String {
        """
        {
            "id": \(id),
            "name": "\(name)",
            "description": "Dell Inc. DELL U2720Q F8KFX0\(id)",
            "make": "Dell Inc.",
            "model": "DELL U2720Q",
            "serial": "F8KFX0\(id)",
            "width": 3840,
            "height": 2160,
            "physicalWidth": 600,
            "physicalHeight": 340,
            "refreshRate": 59.99700,
            "x": \(x),
            "y": 0,
            "activeWorkspace": {
                "id": \(active.0),
                "name": "\(active.1)"
            },
            "specialWorkspace": {
                "id": \(special.0),
                "name": "\(special.1)"
            },
            "reserved": [0, 30, 0, 0],
            "scale": 1.5,
            "transform": 0,
            "focused": \(focused),
            "dpmsStatus": true,
            "vrr": false,
            "solitary": "0",
            "solitaryBlockedBy": ["windowed mode","missing candidate"],
            "activelyTearing": false,
            "tearingBlockedBy": ["next frame is not torn","user settings"],
            "directScanoutTo": "0",
            "directScanoutBlockedBy": ["user settings"],
            "disabled": false,
            "currentFormat": "XRGB8888",
            "mirrorOf": "none",
            "availableModes": ["3840x2160@60.00Hz","2560x1440@59.95Hz"],
            "colorManagementPreset": "srgb",
            "sdrBrightness": 1,
            "sdrSaturation": 1,
            "sdrMinLuminance": 0.2,
            "sdrMaxLuminance": 80,
            "hardwareCursorsInUse": true
        },
        """
    }

    /// A workspace as `j/workspaces` writes one (HyprCtl.cpp:497-508); the request adds the commas.
    private func workspace(_ id: Int, _ name: String, on monitor: String, _ monitorID: Int, windows: Int, fullscreen: Bool = false) -> String {
        """
        {
            "id": \(id),
            "name": "\(name)",
            "monitor": "\(monitor)",
            "monitorID": \(monitorID),
            "windows": \(windows),
            "hasfullscreen": \(fullscreen),
            "lastwindow": "0x55d0c0a1b2c0",
            "lastwindowtitle": "~",
            "ispersistent": false,
            "tiledLayout": "dwindle"
        },
        """
    }

    /// A window as `j/clients` writes one in 0.42 and later (HyprCtl.cpp:389-424).
    private func client(_ address: String, _ cls: String, _ title: String, workspace: (Int, String), monitor: Int,
                        fullscreen: Int = 0, floating: Bool = false, hidden: Bool = false, focusHistoryID: Int) -> String {
        """
        {
            "address": "0x\(address)",
            "mapped": true,
            "hidden": \(hidden),
            "visible": \(!hidden),
            "acceptsInput": true,
            "at": [10, 40],
            "size": [1260, 1380],
            "workspace": {
                "id": \(workspace.0),
                "name": "\(workspace.1)"
            },
            "floating": \(floating),
            "monitor": \(monitor),
            "class": "\(cls)",
            "title": "\(title)",
            "initialClass": "\(cls)",
            "initialTitle": "\(title)",
            "pid": 4242,
            "xwayland": false,
            "pinned": false,
            "pinFullscreened": false,
            "fullscreen": \(fullscreen),
            "fullscreenClient": \(fullscreen),
            "fullscreenHandler": "default",
            "allowedOverFullscreen": false,
            "grouped": [],
            "tags": [],
            "swallowing": "0x0",
            "focusHistoryID": \(focusHistoryID),
            "inhibitingIdle": false,
            "xdgTag": "",
            "xdgDescription": "",
            "contentType": "none",
            "tearingHint": false,
            "stableId": "1a"
        },
        """
    }

    /// A reply list: the items, the trailing comma trimmed (HyprCtl.cpp:331-335), in brackets.
    private func list(_ items: [String]) -> String {
        var s = items.joined()
        if s.hasSuffix(",") { s.removeLast() }
        return "[" + s + "]"
    }

    /// `j/activewindow`: the window's object without its trailing comma (HyprCtl.cpp:639-642).
    private func active(_ item: String) -> String {
        var s = item
        if s.hasSuffix(",") { s.removeLast() }
        return s
    }

    private let kitty = "55d0c0a1b2c0", firefox = "55d0c0a1b3d0", code = "55d0c0a1b4e0"
    private let pavucontrol = "55d0c0a1b5f0", btop = "55d0c0a1b600", grouped = "55d0c0a1b710"

    /// Two monitors: DP-1 (id 0) shows workspace 1, HDMI-A-1 (id 1) workspace 3; DP-1 also holds
    /// workspace 2 and the special workspace `special:scratch`.
    private func monitors(dp1: (Int, String) = (1, "1"), special: (Int, String) = (0, "")) -> String {
        list([monitor(0, "DP-1", x: 0, active: dp1, special: special, focused: true), monitor(1, "HDMI-A-1", x: 2560, active: (3, "3"))])
    }

    private var workspaces: String {
        list([workspace(1, "1", on: "DP-1", 0, windows: 3), workspace(2, "2", on: "DP-1", 0, windows: 1),
              workspace(3, "3", on: "HDMI-A-1", 1, windows: 1, fullscreen: true),
              workspace(-98, "special:scratch", on: "DP-1", 0, windows: 1)])
    }

    /// kitty (focused) and a floating pavucontrol on 1, a grouped kitty hidden behind the first,
    /// a fullscreen firefox on 3, a maximized code on 2, btop on the special workspace.
    private func clientItems(kittyOn: (Int, String) = (1, "1"), kittyMonitor: Int = 0) -> [String: String] {
        [
            kitty: client(kitty, "kitty", "~", workspace: kittyOn, monitor: kittyMonitor, focusHistoryID: 0),
            firefox: client(firefox, "firefox", "Big Buck Bunny - YouTube — Mozilla Firefox", workspace: (3, "3"), monitor: 1,
                            fullscreen: 2, focusHistoryID: 1),
            code: client(code, "code", "main.swift - WayLoop", workspace: (2, "2"), monitor: 0, fullscreen: 1, focusHistoryID: 2),
            pavucontrol: client(pavucontrol, "org.pulseaudio.pavucontrol", "Volume Control", workspace: (1, "1"), monitor: 0,
                                floating: true, focusHistoryID: 3),
            btop: client(btop, "btop", "btop", workspace: (-98, "special:scratch"), monitor: 0, focusHistoryID: 4),
            grouped: client(grouped, "kitty", "htop", workspace: (1, "1"), monitor: 0, hidden: true, focusHistoryID: 5),
        ]
    }

    private func clients(_ items: [String: String], _ order: [String]) -> String {
        list(order.compactMap { items[$0] })
    }

    private var allWindows: [String] { [kitty, firefox, code, pavucontrol, btop, grouped] }

    private func facts(_ monitors: String, _ workspaces: String, _ clients: String, _ activeWindow: String?,
                       file: StaticString = #filePath, line: UInt = #line) -> ScreenFacts {
        switch HyprlandIPC.facts(monitors: monitors, workspaces: workspaces, clients: clients, activeWindow: activeWindow) {
        case .success(let f): return f
        case .failure(let e):
            XCTFail("\(e)", file: file, line: line)
            return ScreenFacts()
        }
    }

    private func ids(_ windows: [ScreenWindow]) -> [String] { windows.map(\.id) }

    // MARK: Tests

    func testTheSocketsAreInTheRuntimeDirectoryThenInTmp() {
        let sig = "0d0b6d49b8ab7b2e2b7e6b9f8d3c4e5f6a7b8c9d_1718000000_1804289383"
        let new = HyprlandIPC.Sockets(requests: "/run/user/1000/hypr/\(sig)/.socket.sock", events: "/run/user/1000/hypr/\(sig)/.socket2.sock")
        let old = HyprlandIPC.Sockets(requests: "/tmp/hypr/\(sig)/.socket.sock", events: "/tmp/hypr/\(sig)/.socket2.sock")
        let cases: [(String?, String?, [HyprlandIPC.Sockets])] = [
            (sig, "/run/user/1000", [new, old]),
            (sig, "/run/user/1000/", [new, old]),
            (sig, nil, [old]),                  // 0.39 and before ran without it; 0.40+ does not
            (sig, "", [old]),
            (sig, "run/user/1000", [old]),      // relative: taken as none
            (sig, "/", [HyprlandIPC.Sockets(directory: "/hypr/\(sig)"), old]),
            (nil, "/run/user/1000", []),        // not under Hyprland
            ("", "/run/user/1000", []),
            ("../x", "/run/user/1000", []),
            ("..", "/run/user/1000", []),
        ]
        for (signature, runtime, want) in cases {
            XCTAssertEqual(HyprlandIPC.socketCandidates(signature: signature, runtimeDirectory: runtime), want, "\(String(describing: signature)) \(String(describing: runtime))")
        }
    }

    func testTheRequestsAreJSONFlaggedWithoutANewline() {
        // 'j' before the '/' asks for JSON; `clients`, `workspaces` and `activewindow` must match
        // exactly (HyprCtl.cpp:2004-2009, :2069-2108), so nothing follows the name.
        XCTAssertEqual(HyprlandIPC.monitorsRequest, "j/monitors")
        XCTAssertEqual(HyprlandIPC.workspacesRequest, "j/workspaces")
        XCTAssertEqual(HyprlandIPC.clientsRequest, "j/clients")
        XCTAssertEqual(HyprlandIPC.activeWindowRequest, "j/activewindow")
    }

    func testTwoMonitorsWithAFullscreenAMaximizedAFloatingAndAHiddenWindow() {
        let items = clientItems()
        let f = facts(monitors(), workspaces, clients(items, allWindows), active(items[kitty] ?? ""))
        XCTAssertEqual(f.workspaces, [
            ScreenWorkspace(name: "1", output: "DP-1", active: true),
            ScreenWorkspace(name: "2", output: "DP-1", active: false),
            ScreenWorkspace(name: "3", output: "HDMI-A-1", active: true),
            ScreenWorkspace(name: "special:scratch", output: "DP-1", active: false),
        ])
        XCTAssertEqual(f.windows, [
            ScreenWindow(id: "0x" + kitty, appID: "kitty", title: "~", workspace: "1", output: "DP-1", activated: true),
            ScreenWindow(id: "0x" + firefox, appID: "firefox", title: "Big Buck Bunny - YouTube — Mozilla Firefox", workspace: "3",
                         output: "HDMI-A-1", fullscreen: true),
            ScreenWindow(id: "0x" + code, appID: "code", title: "main.swift - WayLoop", workspace: "2", output: "DP-1", maximized: true),
            ScreenWindow(id: "0x" + pavucontrol, appID: "org.pulseaudio.pavucontrol", title: "Volume Control", workspace: "1", output: "DP-1"),
            // On a special workspace shown nowhere: hidden, as in a scratchpad.
            ScreenWindow(id: "0x" + btop, appID: "btop", title: "btop", workspace: "special:scratch", output: "DP-1", minimized: true),
            // A group's member behind its visible one.
            ScreenWindow(id: "0x" + grouped, appID: "kitty", title: "htop", workspace: "1", output: "DP-1", minimized: true),
        ])
        XCTAssertEqual(f.activeWorkspace(on: "DP-1"), "1")
        XCTAssertEqual(f.activeWorkspace(on: "HDMI-A-1"), "3")
        XCTAssertNil(f.activeWorkspace(on: "eDP-1"))
        XCTAssertEqual(ids(f.windows(on: "DP-1")), ["0x" + kitty, "0x" + pavucontrol])
        XCTAssertEqual(ids(f.windows(on: "HDMI-A-1")), ["0x" + firefox])
        XCTAssertEqual(f.windows(on: "HDMI-A-1").first?.fullscreen, true)
    }

    func testAWorkspaceSwitchIsAskedAgainAndShowsTheMaximizedWindow() {
        // The user switches DP-1 to workspace 2: the lines socket2 sends (Monitor.cpp:1505-1506,
        // FocusState.cpp:209-210), then the replies asked again.
        let lines = ["workspace>>2", "workspacev2>>2,2", "activewindow>>code,main.swift - WayLoop", "activewindowv2>>55d0c0a1b4e0"]
        XCTAssertTrue(lines.allSatisfy { HyprlandIPC.isRelevant(eventLine: $0) })
        var items = clientItems()
        items[code] = client(code, "code", "main.swift - WayLoop", workspace: (2, "2"), monitor: 0, fullscreen: 1, focusHistoryID: 0)
        items[kitty] = client(kitty, "kitty", "~", workspace: (1, "1"), monitor: 0, focusHistoryID: 1)
        let f = facts(monitors(dp1: (2, "2")), workspaces, clients(items, allWindows), active(items[code] ?? ""))
        XCTAssertEqual(f.activeWorkspace(on: "DP-1"), "2")
        XCTAssertEqual(f.workspaces.filter(\.active).map(\.name), ["2", "3"])
        XCTAssertEqual(f.windows(on: "DP-1"), [
            ScreenWindow(id: "0x" + code, appID: "code", title: "main.swift - WayLoop", workspace: "2", output: "DP-1",
                         maximized: true, activated: true),
        ])
        XCTAssertEqual(ids(f.windows(on: "HDMI-A-1")), ["0x" + firefox])
    }

    func testASpecialWorkspaceShownCoversItsMonitorOverTheRegularOne() {
        // togglespecialworkspace scratch on DP-1 (Monitor.cpp:1688-1689).
        let lines = ["activespecial>>special:scratch,DP-1", "activespecialv2>>-98,special:scratch,DP-1", "activewindowv2>>55d0c0a1b600"]
        XCTAssertTrue(lines.allSatisfy { HyprlandIPC.isRelevant(eventLine: $0) })
        let items = clientItems()
        let f = facts(monitors(special: (-98, "special:scratch")), workspaces, clients(items, allWindows), active(items[btop] ?? ""))
        // DP-1 still shows workspace 1 (the video for it stays); the special one is drawn over it.
        XCTAssertEqual(f.activeWorkspace(on: "DP-1"), "1")
        XCTAssertEqual(f.workspaces.first { $0.name == "special:scratch" }, ScreenWorkspace(name: "special:scratch", output: "DP-1", active: false))
        let shown = ScreenWindow(id: "0x" + btop, appID: "btop", title: "btop", workspace: nil, output: "DP-1", activated: true)
        XCTAssertEqual(f.windows.first { $0.id == "0x" + btop }, shown)
        XCTAssertEqual(ids(f.windows(on: "DP-1")), ["0x" + kitty, "0x" + pavucontrol, "0x" + btop])
        XCTAssertEqual(ids(f.windows(on: "HDMI-A-1")), ["0x" + firefox])
        // Hidden again ("activespecial>>,DP-1", Monitor.cpp:1567): its windows are not drawn.
        XCTAssertTrue(HyprlandIPC.isRelevant(eventLine: "activespecial>>,DP-1"))
        let hidden = facts(monitors(), workspaces, clients(items, allWindows), active(items[kitty] ?? ""))
        XCTAssertEqual(ids(hidden.windows(on: "DP-1")), ["0x" + kitty, "0x" + pavucontrol])
    }

    func testAWindowMovedToTheOtherMonitorAndOneClosed() {
        // movetoworkspacesilent 3 on kitty (Window.cpp:579-580).
        XCTAssertTrue(HyprlandIPC.isRelevant(eventLine: "movewindow>>55d0c0a1b2c0,3"))
        XCTAssertTrue(HyprlandIPC.isRelevant(eventLine: "movewindowv2>>55d0c0a1b2c0,3,3"))
        let items = clientItems(kittyOn: (3, "3"), kittyMonitor: 1)
        let moved = facts(monitors(), workspaces, clients(items, allWindows), active(items[pavucontrol] ?? ""))
        XCTAssertEqual(moved.windows.first { $0.id == "0x" + kitty }?.workspace, "3")
        XCTAssertEqual(moved.windows.first { $0.id == "0x" + kitty }?.output, "HDMI-A-1")
        XCTAssertEqual(ids(moved.windows(on: "HDMI-A-1")), ["0x" + kitty, "0x" + firefox])
        XCTAssertEqual(ids(moved.windows(on: "DP-1")), ["0x" + pavucontrol])
        XCTAssertEqual(moved.windows(on: "DP-1").first?.activated, true)
        // firefox closed (Window.cpp:2574): HDMI-A-1 keeps kitty only, nothing fullscreen.
        XCTAssertTrue(HyprlandIPC.isRelevant(eventLine: "closewindow>>55d0c0a1b3d0"))
        let closed = facts(monitors(), workspaces, clients(items, [kitty, code, pavucontrol, btop, grouped]), active(items[kitty] ?? ""))
        XCTAssertEqual(ids(closed.windows(on: "HDMI-A-1")), ["0x" + kitty])
        XCTAssertFalse(closed.windows(on: "HDMI-A-1").contains { $0.fullscreen })
        XCTAssertFalse(closed.windows.contains { $0.id == "0x" + firefox })
    }

    func testTheFullscreenModesOfEachVersion() {
        // 0.42-0.55: a bit set, drawn as its highest bit (v0.42.0 Workspace.hpp:9-14,
        // Compositor.cpp:2303); 0.56: 0, 1, 2 (FullscreenController.hpp:12-16).
        let cases: [(Int, Bool, Bool)] = [(0, false, false), (1, false, true), (2, true, false), (3, true, false)]
        for (mode, fullscreen, maximized) in cases {
            let c = list([client(kitty, "kitty", "~", workspace: (1, "1"), monitor: 0, fullscreen: mode, focusHistoryID: 0)])
            let w = facts(monitors(), workspaces, c, nil).windows.first
            XCTAssertEqual(w?.fullscreen, fullscreen, "\(mode)")
            XCTAssertEqual(w?.maximized, maximized, "\(mode)")
        }
        // The client told it is fullscreen while Hyprland draws it tiled (a fake fullscreen): not
        // fullscreen, `fullscreenClient` is not what is drawn.
        let fake = client(kitty, "kitty", "~", workspace: (1, "1"), monitor: 0, fullscreen: 0, focusHistoryID: 0)
            .replacingAll("\"fullscreenClient\": 0", with: "\"fullscreenClient\": 2")
        XCTAssertEqual(facts(monitors(), workspaces, list([fake]), nil).windows.first?.fullscreen, false)
    }

    /// A window as `j/clients` wrote one up to 0.41.2 (v0.41.2 src/debug/HyprCtl.cpp:202-229):
    /// `fullscreen` a bool, `fullscreenMode` 0 full or 1 maximized, `fakeFullscreen`.
    private func oldClient(_ address: String, _ title: String, fullscreen: Bool, mode: Int, fake: Bool = false, focus: Int) -> String {
        """
        {
            "address": "0x\(address)",
            "mapped": true,
            "hidden": false,
            "at": [0, 0],
            "size": [2560, 1440],
            "workspace": {
                "id": 1,
                "name": "1"
            },
            "floating": false,
            "pseudo": false,
            "monitor": 0,
            "class": "mpv",
            "title": "\(title)",
            "initialClass": "mpv",
            "initialTitle": "mpv",
            "pid": 777,
            "xwayland": false,
            "pinned": false,
            "fullscreen": \(fullscreen),
            "fullscreenMode": \(mode),
            "fakeFullscreen": \(fake),
            "grouped": [],
            "tags": [],
            "swallowing": "0x0",
            "focusHistoryID": \(focus)
        },
        """
    }

    func testAnOlderHyprlandsBoolFullscreen() {
        let c = list([
            oldClient("a1", "full", fullscreen: true, mode: 0, focus: 0),
            oldClient("a2", "maximized", fullscreen: true, mode: 1, focus: 1),
            oldClient("a3", "fake", fullscreen: false, mode: 0, fake: true, focus: 2),
            oldClient("a4", "tiled", fullscreen: false, mode: 0, focus: 3),
        ])
        // Monitors of that time had no "specialWorkspace" before it was reported; drop it.
        let oldMonitors = monitors().replacingAll("""
            "specialWorkspace": {
                    "id": 0,
                    "name": ""
                },
            """, with: "")
        XCTAssertFalse(oldMonitors.contains("specialWorkspace"))
        let f = facts(oldMonitors, workspaces, c, nil)
        XCTAssertEqual(f.windows.map { [$0.title ?? "", "\($0.fullscreen)", "\($0.maximized)", "\($0.activated)"] }, [
            ["full", "true", "false", "true"],      // focusHistoryID 0, no activewindow asked
            ["maximized", "false", "true", "false"],
            ["fake", "false", "false", "false"],
            ["tiled", "false", "false", "false"],
        ])
        XCTAssertEqual(f.windows(on: "DP-1").count, 4)
    }

    func testTheFocusIsTheActiveWindowsAddressElseTheLatestInTheHistory() {
        let items = clientItems()
        let all = clients(items, allWindows)
        // Asked: its address (firefox's, though kitty is first in the history).
        XCTAssertEqual(facts(monitors(), workspaces, all, active(items[firefox] ?? "")).windows.filter(\.activated).map(\.id), ["0x" + firefox])
        // `{}`: no window has the focus (a layer surface has it).
        XCTAssertEqual(facts(monitors(), workspaces, all, "{}").windows.filter(\.activated), [])
        // Not asked: focusHistoryID 0.
        XCTAssertEqual(facts(monitors(), workspaces, all, nil).windows.filter(\.activated).map(\.id), ["0x" + kitty])
    }

    func testRepliesAskedAMomentApartStillNameEachMonitorsWorkspace() {
        // Workspace 4 was made on HDMI-A-1 between the monitors' reply and the workspaces' one.
        let mons = list([monitor(0, "DP-1", x: 0, active: (1, "1")), monitor(1, "HDMI-A-1", x: 2560, active: (4, "4"))])
        let spaces = list([workspace(1, "1", on: "DP-1", 0, windows: 0), workspace(3, "3", on: "HDMI-A-1", 1, windows: 0),
                           workspace(7, "7", on: "?", -1, windows: 0).replacingAll("\"monitorID\": -1", with: "\"monitorID\": null")])
        let f = facts(mons, spaces, "[]", "{}")
        XCTAssertEqual(f.workspaces, [
            ScreenWorkspace(name: "1", output: "DP-1", active: true),
            ScreenWorkspace(name: "3", output: "HDMI-A-1", active: false),
            ScreenWorkspace(name: "7", output: nil, active: false),       // on no monitor: "?"
            ScreenWorkspace(name: "4", output: "HDMI-A-1", active: true),
        ])
        XCTAssertEqual(f.activeWorkspace(on: "HDMI-A-1"), "4")
        XCTAssertEqual(f.windows, [])
    }

    func testMalformedRepliesAreErrors() {
        let good = (monitors(), workspaces, clients(clientItems(), allWindows))
        let cases: [(String, String, String, String?, String)] = [
            ("unknown request", good.1, good.2, nil, "Hyprland's reply to j/monitors is not JSON (invalid JSON at byte 0: expected a value)"),
            ("{}", good.1, good.2, nil, "Hyprland's reply to j/monitors is not a JSON array"),
            (#"[{"id": 0}]"#, good.1, good.2, nil, "Hyprland's reply to j/monitors has a monitor without an id and a name"),
            (good.0, #"[{"id": 1,"#, good.2, nil, "Hyprland's reply to j/workspaces is not JSON (invalid JSON at byte 10: expected a key)"),
            (good.0, #"[{"name": "1"}]"#, good.2, nil, "Hyprland's reply to j/workspaces has a workspace without an id and a name"),
            (good.0, good.1, "[1]", nil, "Hyprland's reply to j/clients has an item that is not an object (#1)"),
            (good.0, good.1, #"[{"class": "kitty"}]"#, nil, "Hyprland's reply to j/clients has a window without an address"),
            (good.0, good.1, good.2, "Invalid", "Hyprland's reply to j/activewindow is not JSON (invalid JSON at byte 0: expected a value)"),
            (good.0, good.1, good.2, "[]", "Hyprland's reply to j/activewindow is not a JSON object"),
        ]
        for (m, w, c, a, want) in cases {
            switch HyprlandIPC.facts(monitors: m, workspaces: w, clients: c, activeWindow: a) {
            case .success: XCTFail("parsed: \(want)")
            case .failure(let e): XCTAssertEqual("\(e)", want)
            }
        }
        // Empty lists are no error: no monitor, no window.
        XCTAssertEqual(try? HyprlandIPC.facts(monitors: "[]", workspaces: "[]", clients: "[]").get(), ScreenFacts())
    }

    func testWhichEventLinesCallForAskingAgain() {
        let cases: [(String, Bool)] = [
            ("workspace>>2", true),
            ("workspacev2>>2,2", true),
            ("focusedmon>>HDMI-A-1,3", true),
            ("focusedmonv2>>HDMI-A-1,3", true),
            ("activewindow>>kitty,~", true),
            ("activewindow>>,", true),                   // focus to no window (FocusState.cpp:243)
            ("activewindowv2>>", true),
            ("fullscreen>>1", true),
            ("fullscreen>>0", true),
            ("openwindow>>55d0c0a1b800,1,mpv,clip.mp4 - mpv", true),
            ("closewindow>>55d0c0a1b800", true),
            ("movewindow>>55d0c0a1b2c0,3", true),
            ("movewindowv2>>55d0c0a1b2c0,3,3", true),
            ("changefloatingmode>>55d0c0a1b2c0,1", true),
            ("minimized>>55d0c0a1b2c0,1", true),
            ("activespecial>>special:scratch,DP-1", true),
            ("activespecialv2>>-98,special:scratch,DP-1", true),
            ("monitoradded>>DP-2", true),
            ("monitoraddedv2>>2,DP-2,LG Electronics 27GL850", true),
            ("monitorremoved>>DP-2", true),
            ("monitorremovedv2>>2,DP-2,LG Electronics 27GL850", true),
            ("createworkspacev2>>4,4", true),
            ("destroyworkspace>>4", true),
            ("renameworkspace>>2,web", true),
            ("moveworkspacev2>>2,2,HDMI-A-1", true),
            ("windowtitlev2>>55d0c0a1b2c0,vim a>>b", true),
            ("togglegroup>>1,55d0c0a1b2c0,55d0c0a1b710", true),
            ("configreloaded>>", true),
            ("activelayout>>at-translated-set-2-keyboard,English (US)", false),
            ("submap>>resize", false),
            ("urgent>>55d0c0a1b2c0", false),
            ("openlayer>>waybar", false),
            ("screencast>>1,0", false),
            ("bell>>55d0c0a1b2c0", false),
            ("custom>>workspace>>2", false),             // a user's text: its name is "custom"
            ("workspace", false),                        // no ">>": no event line
            ("", false),
            ("Workspace>>2", false),
        ]
        for (line, want) in cases {
            XCTAssertEqual(HyprlandIPC.isRelevant(eventLine: line), want, line)
        }
        XCTAssertEqual(HyprlandIPC.eventName("windowtitlev2>>55d0c0a1b2c0,a>>b").map(String.init), "windowtitlev2")
        XCTAssertEqual(HyprlandIPC.eventName(">>x").map(String.init), "")
        XCTAssertNil(HyprlandIPC.eventName("no event"))
    }

    func testLinesSplitOverReadsAreJoined() {
        var lines = EventLines()
        XCTAssertEqual(lines.append(Array("workspace>>2\nworkspa".utf8)), ["workspace>>2"])
        XCTAssertEqual(lines.append(Array("cev2>>2,2\n\nactivewindow>>kitty,caf".utf8)), ["workspacev2>>2,2"])
        // "é" split between two reads.
        let e = Array("é".utf8)
        XCTAssertEqual(lines.append([e[0]]), [])
        XCTAssertEqual(lines.append([e[1]] + Array("\n".utf8)), ["activewindow>>kitty,café"])
        XCTAssertEqual(lines.append([]), [])
        // A line over the limit is dropped whole, the next one kept.
        var small = EventLines(limit: 8)
        XCTAssertEqual(small.append(Array("12345678\n123456789012".utf8)), ["12345678"])
        XCTAssertEqual(small.append(Array("345\nok\n".utf8)), ["ok"])
        XCTAssertEqual(small.dropped, 1)
    }
}

private extension String {
    /// Every occurrence of `target` replaced (the tests' transcripts edited; no Foundation).
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var out = ""
        var rest = self[...]
        while let r = rest.firstRange(of: target) {
            out += rest[..<r.lowerBound]
            out += replacement
            rest = rest[r.upperBound...]
        }
        return out + rest
    }
}
