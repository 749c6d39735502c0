// The pause rules over what is on screen: `--pause-when` and `--pause-ignore` as text, which
// source is read on which compositor and what each can know, and the reason each output pauses
// for over one desktop.
import WayLoopCore
import XCTest

final class ScreenRulesTests: XCTestCase {
    func testPauseWhenAsText() {
        let cases: [(String, Set<PauseCondition>?)] = [
            ("hidden,fullscreen", [.hidden, .fullscreen]),
            ("any-window", [.anyWindow]),
            (" maximized , fullscreen-anywhere", [.maximized, .fullscreenAnywhere]),
            ("never", []),
            ("hidden,hidden", [.hidden]),
            ("never,hidden", nil), ("sometimes", nil), ("", nil), (",", nil), ("Fullscreen", nil), ("hidden,", nil),
        ]
        for (text, want) in cases { XCTAssertEqual(PauseWhen(parsing: text)?.conditions, want, text) }
        XCTAssertEqual(PauseWhen([.anyWindow, .hidden, .fullscreen]).description, "hidden,fullscreen,any-window")
        XCTAssertEqual(PauseWhen([]).description, "never")
        XCTAssertEqual(PauseWhen.standard.description, "hidden,fullscreen")
        XCTAssertEqual(PauseIgnore.parse("mpv, firefox ,"), ["mpv", "firefox"])
        XCTAssertNil(PauseIgnore.parse(" , "))
    }

    func testWhichSourceIsReadAndWhatItKnows() {
        let cases: [(String?, String?, String?, Bool, ScreenSource)] = [
            ("/run/sway.sock", nil, nil, true, .swayIPC),
            (nil, "abc_123", nil, true, .hyprlandIPC),
            ("/run/sway.sock", "abc_123", nil, true, .hyprlandIPC),  // Hyprland's own socket wins
            (nil, nil, "/run/niri.sock", false, .niriIPC),
            (nil, nil, nil, true, .foreignToplevel),
            (nil, "", "", false, .none),
        ]
        for (sway, hypr, niri, ftl, want) in cases {
            XCTAssertEqual(ScreenSource.choose(swaySocket: sway, hyprlandSignature: hypr, niriSocket: niri, hasForeignToplevel: ftl), want)
        }
        XCTAssertFalse(ScreenSource.hyprlandIPC.callbacksTellCovered)
        XCTAssertTrue(ScreenSource.swayIPC.callbacksTellCovered)
        let u = ScreenRules.unknowable(PauseWhen([.hidden, .maximized, .anyWindow]), source: .swayIPC)
        XCTAssertEqual(u.map(\.0), [.maximized])
        XCTAssertTrue(u[0].1.contains("sway has no maximized windows"))
        XCTAssertEqual(ScreenRules.unknowable(PauseWhen([.fullscreen, .maximized, .anyWindow]), source: .niriIPC).map(\.0), [.fullscreen, .maximized])
        XCTAssertEqual(ScreenRules.unknowable(PauseWhen.standard, source: .none).map(\.0), [.fullscreen])
        XCTAssertEqual(ScreenRules.unknowable(PauseWhen.standard, source: .foreignToplevel).map(\.0), [])
    }

    /// DP-1 shows workspace 1 (a tiled terminal, a maximized browser with the ignored mpv beside
    /// it); DP-2 shows 5 (a fullscreen game); DP-3 shows 7 (empty; a fullscreen window waits on
    /// workspace 8, not shown); a minimized window on DP-3's workspace 7.
    private let desktop = ScreenFacts(
        workspaces: [ScreenWorkspace(name: "1", output: "DP-1", active: true), ScreenWorkspace(name: "5", output: "DP-2", active: true),
                     ScreenWorkspace(name: "7", output: "DP-3", active: true), ScreenWorkspace(name: "8", output: "DP-3", active: false)],
        windows: [ScreenWindow(id: "1", appID: "foot", workspace: "1"),
                  ScreenWindow(id: "2", appID: "firefox", workspace: "1", maximized: true),
                  ScreenWindow(id: "3", appID: "mpv", workspace: "1", fullscreen: true),
                  ScreenWindow(id: "4", appID: "game", workspace: "5", fullscreen: true),
                  ScreenWindow(id: "5", appID: "other", workspace: "8", fullscreen: true),
                  ScreenWindow(id: "6", appID: "mail", workspace: "7", minimized: true)])

    func testTheReasonEachOutputPausesFor() {
        let outputs = ["DP-1", "DP-2", "DP-3"]
        typealias Row = (when: String, ignore: [String], want: [RulePause?])
        let rows: [Row] = [
            ("hidden,fullscreen", ["mpv"], [nil, .fullscreen, nil]),
            ("hidden,fullscreen", [], [.fullscreen, .fullscreen, nil]),          // mpv counts once not ignored
            ("fullscreen-anywhere", ["mpv"], [.fullscreenElsewhere, .fullscreen, .fullscreenElsewhere]),
            ("fullscreen-anywhere", ["mpv", "game"], [nil, nil, nil]),         // workspace 8 is not shown
            ("maximized", ["mpv"], [.maximized, nil, nil]),
            ("maximized", ["mpv", "firefox"], [nil, nil, nil]),
            ("any-window", ["mpv"], [.window, .window, nil]),                  // DP-3's only window is minimized
            ("any-window", ["mpv", "foot", "firefox", "game"], [nil, nil, nil]),
            ("never", [], [nil, nil, nil]),
            ("hidden", [], [nil, nil, nil]),                                   // frame callbacks, not facts
            ("fullscreen,maximized,any-window", [], [.fullscreen, .fullscreen, nil]),
        ]
        for r in rows {
            let when = PauseWhen(parsing: r.when)!
            let got = outputs.map { ScreenRules.pause($0, when: when, ignore: r.ignore, facts: desktop, source: .hyprlandIPC, outputs: outputs) }
            XCTAssertEqual(got, r.want, "\(r.when) ignoring \(r.ignore)")
        }
        // What the source cannot know never pauses: sway has no maximized windows, niri no fullscreen.
        let when = PauseWhen(parsing: "fullscreen,maximized")!
        XCTAssertNil(ScreenRules.pause("DP-1", when: PauseWhen(parsing: "maximized")!, ignore: ["mpv"], facts: desktop, source: .swayIPC, outputs: outputs))
        XCTAssertNil(ScreenRules.pause("DP-2", when: when, ignore: [], facts: desktop, source: .niriIPC, outputs: outputs))
        XCTAssertEqual(ScreenRules.pause("DP-2", when: PauseWhen(parsing: "any-window")!, ignore: [], facts: desktop, source: .niriIPC,
                                         outputs: outputs), .window)
        XCTAssertNil(ScreenRules.pause("DP-2", when: when, ignore: [], facts: desktop, source: .none, outputs: outputs))
        // wlr-foreign-toplevel-management: windows by output alone (no workspaces).
        let ftl = ScreenFacts(windows: [ScreenWindow(id: "a", appID: "game", output: "DP-2", fullscreen: true),
                                        ScreenWindow(id: "b", appID: "foot", output: "DP-1", maximized: true, minimized: true)])
        XCTAssertEqual(outputs.map { ScreenRules.pause($0, when: PauseWhen(parsing: "fullscreen-anywhere,maximized")!, ignore: [],
                                                       facts: ftl, source: .foreignToplevel, outputs: outputs) },
                       [.fullscreenElsewhere, .fullscreen, .fullscreenElsewhere])
    }
}
