// `--pause-when` and `--pause-ignore` on a real compositor (whichever $WAYLOOP_COMPOSITOR names),
// with foot windows: a tiled window within gaps (the wallpaper shows, so the compositor keeps
// asking for frames: any pause is the rule's), a fullscreen one on the first output pausing the
// second (fullscreen-anywhere), an ignored app_id, maximized where the compositor can say so and
// one notice where it cannot, and what a rule's pause costs: no frame converted or presented.
import Foundation
import WayLoopCore
import WayLoopTestSupport
import XCTest

final class PauseRuleTests: CompositorTestCase {
    override class var outputSizes: [String] { ["640x360", "640x360"] }

    /// A window filling the first output's workspace inside gaps of 40: with `any-window` that
    /// output pauses (reason `window`) while the compositor still asks for its frames; the second
    /// output plays on; nothing is converted or presented for the paused one; it plays again when
    /// the window goes. `--pause-ignore` of the window's app_id: it plays on.
    func testAnyWindowPausesTheOutputWhoseWorkspaceHasOne() throws {
        let c = try compositor()
        guard c.hasGaps else {
            throw XCTSkip("\(c.label) has no gaps through the harness (sway only): a tiled window would cover the output and stop its frame callbacks, so the rule could not be told from hidden")
        }
        let (first, second) = (c.outputs[0], c.outputs[1])
        try c.gaps(40)
        let w = try Wayloop(["--pause-when", "any-window", Repo.clip("grid.mp4")], env: c.env)
        defer { _ = w.stop() }
        XCTAssertTrue(w.waitForStates([first, second], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        try c.cover(maximized: true)
        XCTAssertTrue(w.waitForState(first, state: "paused", reason: "window", timeout: 10), "\(w.lastStatus); \(w.stderr)")
        XCTAssertTrue(w.waitForState(second, state: "playing", timeout: 5), "the other output paused too: \(w.lastStatus)")
        XCTAssertTrue(w.stderr.contains("\(first): paused (window)"), w.stderr)
        // Paused by the rule costs what hidden costs: nothing converted, nothing presented.
        w.assertDrawsNothing(first, while: "while paused by the rule")
        c.uncover()
        XCTAssertTrue(w.waitForState(first, state: "playing", timeout: 10), "not playing after the window went: \(w.lastStatus)")
        XCTAssertTrue(w.stderr.contains("\(first): resumed (window rule)"), w.stderr)

        // The same window, its app_id ignored: no rule counts it.
        XCTAssertEqual(w.stop(), 0)
        let ignoring = try Wayloop(["--pause-when", "any-window", "--pause-ignore", "wayloop-cover,mpv", Repo.clip("grid.mp4")], env: c.env)
        defer { _ = ignoring.stop() }
        XCTAssertTrue(ignoring.waitForStates([first, second], state: "playing", shown: true), "\(ignoring.lastStatus)")
        try c.cover(maximized: true)
        usleep(1_500_000)
        XCTAssertTrue(ignoring.waitForState(first, state: "playing", timeout: 3), "an ignored app_id paused it: \(ignoring.lastStatus)")
        c.uncover()
    }

    /// A fullscreen window on the first output pauses the second with `fullscreen-anywhere`
    /// (reason `fullscreen-elsewhere`), and only with it: by default the second plays on.
    func testAFullscreenWindowAnywherePausesEveryOutput() throws {
        let c = try compositor()
        guard c.outputs.count >= 2 else { throw XCTSkip("\(c.label) made one output here (\(c.outputs)): this test needs two") }
        let (first, second) = (c.outputs[0], c.outputs[1])
        let w = try Wayloop(["-v", "--pause-when", "hidden,fullscreen-anywhere", Repo.clip("grid.mp4")], env: c.env)
        defer { _ = w.stop() }
        XCTAssertTrue(w.waitForStates([first, second], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        try requireWindows(c, w, for: "fullscreen-anywhere")
        try c.cover()
        XCTAssertTrue(w.waitForState(second, state: "paused", reason: "fullscreen-elsewhere", timeout: 10), "\(w.lastStatus); \(w.stderr)")
        XCTAssertTrue(w.waitForState(first, state: "paused", timeout: 5), "\(w.lastStatus)")
        c.uncover()
        XCTAssertTrue(w.waitForStates([first, second], state: "playing", timeout: 10), "\(w.lastStatus)")
        XCTAssertEqual(w.stop(), 0)

        let standard = try Wayloop([Repo.clip("grid.mp4")], env: c.env)
        defer { _ = standard.stop() }
        XCTAssertTrue(standard.waitForStates([first, second], state: "playing", shown: true), "\(standard.lastStatus)")
        try c.cover()
        XCTAssertTrue(standard.waitForState(first, state: "paused", timeout: 10), "\(standard.lastStatus)")
        usleep(1_000_000)
        XCTAssertTrue(standard.waitForState(second, state: "playing", timeout: 3), "the default rules paused the other output: \(standard.lastStatus)")
        c.uncover()
    }

    /// `maximized`: where the compositor reports it (wlr-foreign-toplevel-management on labwc,
    /// Wayfire, phoc), a maximized window pauses its output; under sway, which has no maximized
    /// windows, one notice says the rule cannot be known there, once.
    func testMaximizedWhereTheCompositorCanSaySo() throws {
        let c = try compositor()
        let first = c.outputs[0]
        let w = try Wayloop(["-v", "--pause-when", "hidden,maximized", Repo.clip("grid.mp4")], env: c.env)
        defer { _ = w.stop() }
        XCTAssertTrue(w.waitForState(first, state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        try requireWindows(c, w, for: "maximized")
        if c.env["SWAYSOCK"] != nil {
            XCTAssertTrue(w.waitFor("--pause-when maximized cannot be known here: sway has no maximized windows", timeout: 10), w.stderr)
            try c.cover(maximized: true)
            usleep(1_000_000)
            XCTAssertEqual(w.stderr.components(separatedBy: "--pause-when maximized cannot be known here").count, 2, "said more than once: \(w.stderr)")
            XCTAssertFalse(w.stderr.contains("paused (maximized)"), w.stderr)
        } else {
            try c.cover(maximized: true)
            XCTAssertTrue(w.waitForState(first, state: "paused", reason: "maximized", timeout: 10)
                          || w.waitForState(first, state: "paused", reason: "hidden", timeout: 1), "\(w.lastStatus); \(w.stderr)")
        }
        c.uncover()
    }

    /// Every rule asked for that the compositor cannot answer gets one notice with the reason,
    /// once, and the rest none: under sway, maximized; where the compositor offers neither an
    /// IPC WayLoop reads nor wlr-foreign-toplevel-management (Wayfire, KWin), every window rule;
    /// where it offers wlr-foreign-toplevel-management (labwc, phoc), none. Which source
    /// WayLoop took is its own debug line; the rules table (ScreenRules) says what that source
    /// cannot tell, and the notices must be exactly those.
    func testWhatTheCompositorCannotTellIsSaidOnceWithTheReason() throws {
        let c = try compositor()
        let rules = "hidden,fullscreen,fullscreen-anywhere,maximized,any-window"
        let w = try Wayloop(["-v", "--pause-when", rules, Repo.clip("grid.mp4")], env: c.env)
        defer { _ = w.stop() }
        XCTAssertTrue(w.waitForState(c.outputs[0], state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        guard let source = source(w) else { return XCTFail("no source said: \(w.stderr)") }
        let expected = ScreenRules.unknowable(try XCTUnwrap(PauseWhen(parsing: rules)), source: source)
        usleep(1_000_000)  // a pass or two more: a notice said twice would be there by now
        let notices = w.stderrLines.filter { $0.contains("cannot be known here") }
        XCTAssertEqual(notices.count, expected.count, "\(c.label) (\(source.rawValue)): \(notices)")
        for (condition, why) in expected {
            XCTAssertEqual(notices.filter { $0.contains("--pause-when \(condition.rawValue) cannot be known here: \(why)") }.count, 1,
                           "\(c.label): \(condition.rawValue): \(notices)")
        }
        print("\(c.label): \(source.rawValue); notices: \(notices.count)")
    }

    /// Where WayLoop reads the windows from, by its own debug line (`-v`).
    private func source(_ w: Wayloop) -> ScreenSource? {
        let sources: [(line: String, source: ScreenSource)] = [
            ("workspaces and windows from sway's IPC", .swayIPC), ("windows from wlr-foreign-toplevel-management", .foreignToplevel),
            ("no source of windows: frame callbacks alone", .none),
        ]
        return sources.first { w.stderr.contains($0.line) }?.source
    }

    /// Skips, with the reason, where the compositor tells WayLoop of no window (Wayfire, KWin):
    /// there the rule's one notice is what WayLoop owes (the test above checks it).
    private func requireWindows(_ c: Compositor, _ w: Wayloop, for rule: String) throws {
        guard let s = source(w) else { return XCTFail("no source said: \(w.stderr)") }
        guard s != .none else {
            throw XCTSkip("\(c.label) tells no client of its windows (no IPC WayLoop reads, no wlr-foreign-toplevel-management): "
                          + "\(rule) cannot be known there, and its notice is checked by testWhatTheCompositorCannotTellIsSaidOnceWithTheReason")
        }
    }

    /// Bad values: one line and exit 2 on the command line; a refusal from `ctl set`.
    func testBadValuesAreOneLine() throws {
        let c = try compositor()
        for args in [["--pause-when", "sometimes"], ["--pause-when", "never,hidden"], ["--pause-ignore", ","]] {
            let w = try Wayloop(args + [Repo.clip("grid.mp4")], env: c.env)
            XCTAssertEqual(w.waitExit(timeout: 20), 2, "\(args): \(w.stderr)")
            XCTAssertEqual(w.stderrLines.count, 1, "\(args): \(w.stderr)")
            XCTAssertTrue(w.stderr.contains("option '\(args[0])': '\(args[1])' is not"), w.stderr)
        }
        let w = try Wayloop([Repo.clip("grid.mp4")], env: c.env)
        defer { _ = w.stop() }
        XCTAssertTrue(w.waitForState(c.outputs[0], state: "playing"), "\(w.lastStatus)")
        let r = Shell.run([Repo.binary, "ctl", "set", "*", "--pause-when", "often"], env: c.env, timeout: 20)
        XCTAssertNotEqual(r.status, 0)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        let ok = Shell.run([Repo.binary, "ctl", "set", "*", "--pause-when", "never"], env: c.env, timeout: 20)
        XCTAssertEqual(ok.status, 0, ok.stderr)
    }
}
