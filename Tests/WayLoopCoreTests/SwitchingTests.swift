// The pure decisions of switching videos: transitions (parse, weight), when a playlist
// switches and preloads, the settings playlists, fades and spans travel in, span placement of
// one output and its stored-orientation view (the shm renderer), and the protocol's new parts.
import WayLoopCore
import XCTest

final class SwitchingTests: XCTestCase {
    func testTransitionParsing() {
        let cases: [(String, Transition?)] = [
            ("none", Transition.none), ("fade", .fade(0.5)), ("fade:2s", .fade(2)), ("fade:500ms", .fade(0.5)),
            ("fade:1m", .fade(60)), ("fade:61s", nil), ("fade:0s", nil), ("fade:", nil), ("fade:-1s", nil),
            ("Fade", nil), ("wipe", nil), ("", nil), ("fade:2", .fade(2)), ("none:1s", nil), ("fade:nan", nil),
        ]
        for (text, want) in cases { XCTAssertEqual(Transition(parsing: text), want, text) }
        XCTAssertEqual(Transition.standard, .fade(0.5))
        XCTAssertEqual(Transition.fade(0.5).description, "fade:0.5s")
        XCTAssertEqual(Transition.none.description, "none")
        // What description writes, parsing reads back.
        for t in [Transition.none, .fade(0.25), .fade(2), .fade(60)] { XCTAssertEqual(Transition(parsing: t.description), t) }
    }

    func testFadeWeightIsEasedAndClamped() {
        let cases: [(elapsed: Double, duration: Double, weight: Double)] = [
            (0, 1, 0), (-1, 1, 0), (0.5, 1, 0.5), (1, 1, 1), (2, 1, 1), (0.25, 1, 0.15625), (0.75, 1, 0.84375),
            (1, 2, 0.5), (0, 0, 1), (5, 0, 1),
        ]
        for c in cases {
            XCTAssertEqual(Transition.weight(elapsed: c.elapsed, duration: c.duration), c.weight, accuracy: 1e-12, "\(c)")
        }
        // Never backwards.
        var last = -1.0
        for i in 0...100 {
            let w = Transition.weight(elapsed: Double(i) / 100, duration: 1)
            XCTAssertGreaterThanOrEqual(w, last)
            last = w
        }
    }

    func testWhenAPlaylistSwitchesAndPreloads() {
        typealias D = PlaylistTiming.Decision
        let cases: [(interval: Double?, loops: Int?, elapsed: Double, passes: Int, next: Int?, nextDue: Bool, want: D, note: String)] = [
            (10, nil, 0, 0, 0, true, D(due: false, preload: false), "interval: just started"),
            (10, nil, 4.9, 3, 3, true, D(due: false, preload: false), "interval: more than the lead to go"),
            (10, nil, 5, 3, 3, true, D(due: false, preload: true), "interval: the lead reached"),
            (10, nil, 10, 5, 5, false, D(due: true, preload: true), "interval: over, whatever the frames"),
            (3, nil, 0, 0, 0, false, D(due: false, preload: true), "interval shorter than the lead: preload at once"),
            (10, 2, 20, 9, 9, true, D(due: true, preload: true), "interval wins over loops"),
            (nil, 1, 0, 0, 0, true, D(due: false, preload: true), "once each: the only pass is the last"),
            (nil, 1, 0.9, 0, 1, false, D(due: false, preload: true), "pass 1 queued, not due yet"),
            (nil, 1, 1, 0, 1, true, D(due: true, preload: true), "pass 1's first frame is due: switch instead"),
            (nil, 3, 1, 0, 1, true, D(due: false, preload: false), "3 passes: the second starts"),
            (nil, 3, 2, 2, 2, true, D(due: false, preload: true), "3 passes: the last"),
            (nil, 3, 3, 2, 3, true, D(due: true, preload: true), "3 passes: done"),
            (nil, 3, 3, 2, nil, true, D(due: false, preload: true), "nothing queued: wait for the decoder"),
            (nil, nil, 100, 50, 51, true, D(due: false, preload: false), "one video, no interval: for ever"),
            (nil, 0, 1, 1, 1, true, D(due: false, preload: false), "no passes: nothing"),
        ]
        // A still picture (nothing more is ever queued): a pass is PlaylistTiming.stillPass.
        let stills: [(loops: Int, elapsed: Double, want: D)] = [
            (1, 0, D(due: false, preload: true)), (1, 4.9, D(due: false, preload: true)), (1, 5, D(due: true, preload: true)),
            (3, 9.9, D(due: false, preload: false)), (3, 10, D(due: false, preload: true)), (3, 15, D(due: true, preload: true)),
        ]
        for c in stills {
            XCTAssertEqual(PlaylistTiming.decide(interval: nil, loops: c.loops, elapsed: c.elapsed, passes: 0, nextPass: nil,
                                                 nextIsDue: false, still: true), c.want, "still, \(c)")
        }
        // An interval wins over a still too.
        XCTAssertEqual(PlaylistTiming.decide(interval: 2, loops: 1, elapsed: 2, passes: 0, nextPass: nil, nextIsDue: false, still: true),
                       D(due: true, preload: true))
        for c in cases {
            XCTAssertEqual(PlaylistTiming.decide(interval: c.interval, loops: c.loops, elapsed: c.elapsed, passes: c.passes,
                                                 nextPass: c.next, nextIsDue: c.nextDue), c.want, c.note)
        }
    }

    func testTheNewSettingsMergeLikeTheOthers() {
        var o = Options()
        var all = OutputEntry(selector: .all, video: "/v/dir")
        all.interval = 600
        all.transition = .fade(2)
        all.shuffle = true
        var dp1 = OutputEntry(selector: .named("DP-1"))
        dp1.loops = 3
        dp1.interval = 30
        dp1.shuffle = false
        dp1.transition = Transition.none
        o.entries = [all, dp1]
        let general = o.settings(forOutput: "HDMI-A-1")!
        XCTAssertEqual(general.interval, 600)
        XCTAssertNil(general.loops)
        XCTAssertTrue(general.shuffle)
        XCTAssertEqual(general.transition, .fade(2))
        let named = o.settings(forOutput: "DP-1")!
        XCTAssertEqual(named.interval, 30)
        XCTAssertEqual(named.loops, 3)
        XCTAssertFalse(named.shuffle)
        XCTAssertEqual(named.transition, Transition.none)
        // Nothing said: in order, no interval, the standard fade.
        o.entries = [OutputEntry(selector: .all, video: "/v/a.mp4")]
        let plain = o.settings(forOutput: "DP-1")!
        XCTAssertEqual(plain.transition, .standard)
        XCTAssertFalse(plain.shuffle)
        XCTAssertNil(plain.interval)
        XCTAssertNil(plain.playlist)
        XCTAssertNil(plain.span)
    }

    func testTheCommandLineTakesTheNewOptionsPerScope() throws {
        guard case .run(let o) = try OptionParser.parse(["-i", "/v/dir", "--interval", "10m", "--shuffle", "--transition", "fade:1s",
                                                         "-o", "DP-1", "-m", "span", "--loops", "2", "--no-shuffle", "-i", "/v/list.m3u",
                                                         "-o", "DP-2", "-m", "span-fit", "-i", "/v/wide.mp4"]) else { return XCTFail() }
        XCTAssertEqual(o.entries.count, 3)
        XCTAssertEqual(o.entries[0].interval, 600)
        XCTAssertEqual(o.entries[0].shuffle, true)
        XCTAssertEqual(o.entries[0].transition, .fade(1))
        XCTAssertEqual(o.entries[1].mode, .span)
        XCTAssertEqual(o.entries[1].loops, 2)
        XCTAssertEqual(o.entries[1].shuffle, false)
        XCTAssertEqual(o.entries[2].mode, .spanFit)
        let bad: [([String], UsageError)] = [
            (["--interval", "soon", "a.mp4"], .badValue(option: "--interval", value: "soon", expected: DurationText.expected)),
            (["--loops", "0", "a.mp4"], .badValue(option: "--loops", value: "0", expected: "a whole number from 1 to 1000000")),
            (["--transition", "wipe", "a.mp4"], .badValue(option: "--transition", value: "wipe", expected: Transition.expected)),
            (["--interval"], .missingValue(option: "--interval")),
        ]
        for (args, want) in bad {
            XCTAssertThrowsError(try OptionParser.parse(args), "\(args)") { XCTAssertEqual($0 as? UsageError, want, "\(args)") }
        }
    }

    func testSpanModesPlaceAloneAsFillAndFitAndOnACanvasAsTheirPart() {
        let video = Size(width: 1280, height: 360), buffer = Size(width: 640, height: 360)
        // Without a canvas (one output, or before the layout is known): fill and fit.
        XCTAssertEqual(Placement.compute(video: video, output: buffer, mode: .span),
                       Placement.compute(video: video, output: buffer, mode: .fill))
        XCTAssertEqual(Placement.compute(video: video, output: buffer, mode: .spanFit),
                       Placement.compute(video: video, output: buffer, mode: .fit))
        // On a 1280x360 canvas, the right output shows the right half, the whole buffer.
        let right = SpanView(canvas: Rect(x: 0, y: 0, width: 1280, height: 360), output: Rect(x: 640, y: 0, width: 640, height: 360))
        let p = Placement.compute(video: video, output: buffer, mode: .span, span: right)
        XCTAssertEqual(p.source, Rect(x: 0.5, y: 0, width: 0.5, height: 1))
        XCTAssertEqual(p.destination, Rect(x: 0, y: 0, width: 640, height: 360))
        XCTAssertFalse(p.hasBorders)
        // The view is ignored by the modes that are not span.
        XCTAssertEqual(Placement.compute(video: video, output: buffer, mode: .fill, span: right),
                       Placement.compute(video: video, output: buffer, mode: .fill))
        XCTAssertEqual(ScaleMode.span.single, .fill)
        XCTAssertEqual(ScaleMode.spanFit.single, .fit)
        XCTAssertEqual(ScaleMode(rawValue: "span-fit"), .spanFit)
        XCTAssertTrue(ScaleMode.spanFit.isSpan && !ScaleMode.fill.isSpan)
        // The shm layout crops the same columns of the coded picture.
        let l = ShmLayout.compute(video: video, buffer: buffer, mode: .span, span: right)
        XCTAssertEqual(l.source, PixelRect(x: 640, y: 0, width: 640, height: 360))
        XCTAssertEqual(l.destination, PixelRect(x: 0, y: 0, width: 640, height: 360))
        // The decode scale counts a span output as the canvas it is part of (the app passes
        // the canvas's size and the single mode): no downscale below what the canvas samples.
        XCTAssertEqual(DecodeScale.factor(video: Size(width: 3840, height: 1080), turned: false,
                                          outputs: [(Size(width: 1280, height: 360), .span)]), 1.0 / 3, accuracy: 1e-9)
    }

    /// The shm renderer keeps buffers in the stored orientation: a span view is turned with it.
    func testASpanViewInTheStoredOrientation() {
        let canvas = Rect(x: 100, y: 50, width: 400, height: 200)
        let left = SpanView(canvas: canvas, output: Rect(x: 100, y: 50, width: 100, height: 200))  // the left quarter
        let cases: [(Orientation, SpanView, String)] = [
            (.upright, left, "upright: unchanged"),
            // Turned 90° clockwise for display: the display's left quarter is the stored
            // picture's top quarter (s = v, t = 1 - u): the stored canvas is 200x400.
            (Orientation(rotation: 90), SpanView(canvas: Rect(x: 0, y: 0, width: 200, height: 400),
                                                 output: Rect(x: 0, y: 300, width: 200, height: 100)), "90"),
            (Orientation(rotation: 180), SpanView(canvas: Rect(x: 0, y: 0, width: 400, height: 200),
                                                  output: Rect(x: 300, y: 0, width: 100, height: 200)), "180"),
            (Orientation(rotation: 270), SpanView(canvas: Rect(x: 0, y: 0, width: 200, height: 400),
                                                  output: Rect(x: 0, y: 0, width: 200, height: 100)), "270"),
            (Orientation(rotation: 0, mirrored: true), SpanView(canvas: Rect(x: 0, y: 0, width: 400, height: 200),
                                                                output: Rect(x: 300, y: 0, width: 100, height: 200)), "mirrored"),
        ]
        for (o, want, note) in cases {
            let got = left.stored(o)
            XCTAssertEqual(got.canvas, want.canvas, note)
            XCTAssertEqual(got.output.x, want.output.x, accuracy: 1e-9, note)
            XCTAssertEqual(got.output.y, want.output.y, accuracy: 1e-9, note)
            XCTAssertEqual(got.output.width, want.output.width, accuracy: 1e-9, note)
            XCTAssertEqual(got.output.height, want.output.height, accuracy: 1e-9, note)
        }
    }

    func testTheProtocolCarriesPlaylistsAndTheNewCommands() throws {
        for r in [ControlRequest.next(nil), .next("DP-1"), .prev(nil), .prev("HDMI-A-1")] {
            XCTAssertEqual(try ControlRequest.parse(r.json.serialized).get(), r)
        }
        var e = OutputEntry(selector: .all, video: "/v/dir")
        e.interval = 90
        e.loops = 4
        e.shuffle = true
        e.transition = .fade(1.5)
        XCTAssertEqual(try ControlRequest.parse(ControlRequest.set(e).json.serialized).get(), .set(e))
        // A set with only a transition is a set of something (the app says what it needs).
        XCTAssertNoThrow(try ControlRequest.parse(#"{"cmd":"set","output":"*","transition":"none"}"#).get())
        XCTAssertThrowsError(try ControlRequest.parse(#"{"cmd":"set","output":"*","loops":"x"}"#).get())
        let p = PlaylistStatus(source: "/v/dir", position: 2, count: 5, nextSwitch: 12.04)
        XCTAssertEqual(p.line, "playlist 2/5, next in 12.0 s")
        XCTAssertEqual(PlaylistStatus(source: "/v/l.m3u", position: 1, count: 1).line, "playlist 1/1")
        let s = OutputStatus(name: "DP-1", video: "/v/dir/b.mp4", mode: .fill, state: .playing, playlist: p)
        let back = OutputStatus(json: try JSON.parse(s.json.serialized))
        XCTAssertEqual(back?.playlist?.source, "/v/dir")
        XCTAssertEqual(back?.playlist?.position, 2)
        XCTAssertEqual(back?.playlist?.count, 5)
        XCTAssertEqual(back?.playlist?.nextSwitch ?? 0, 12.0, accuracy: 1e-9)
        XCTAssertTrue(s.line.contains(", playlist 2/5, next in 12.0 s"), s.line)
        let ev = StateEvent(output: "DP-1", state: .playing, video: "/v/dir/b.mp4", playlist: p).json
        XCTAssertEqual(ev["playlist"]?["position"]?.number, 2)
        XCTAssertNil(StateEvent(output: "DP-1", state: .playing, video: "/v/a.mp4").json["playlist"])
    }
}

/// The settings layers in one place (SettingsLayers), and what a hand-over takes.
final class SettingsLayersTests: XCTestCase {
    func testEntriesAreConfigThenCommandLineThenOverrides() {
        var cli = Options()
        cli.entries = [OutputEntry(selector: .all, video: "/v/cli.mp4")]
        var layers = SettingsLayers(config: [OutputEntry(selector: .named("DP-1"), video: "/v/config.mp4")], commandLine: cli)
        _ = layers.overrides.add(OutputEntry(selector: .named("DP-1"), video: "/v/set.mp4"), over: layers.entries)
        XCTAssertEqual(layers.entries.map(\.video), ["/v/config.mp4", "/v/cli.mp4", "/v/set.mp4"])
        XCTAssertEqual(layers.base.map(\.video), ["/v/config.mp4", "/v/cli.mp4"], "a state file's base: no overrides")
    }

    func testAHandOverTakesEntriesConfigAndPauseRulesOnly() {
        var running = Options()
        running.cacheMB = 64
        running.entries = [OutputEntry(selector: .all, video: "/v/a.mp4")]
        var incoming = Options()
        incoming.cacheMB = 0
        incoming.noConfig = true
        incoming.pauseOnFullscreen = false
        incoming.pauseOnBattery = true
        let entries = [OutputEntry(selector: .all, video: "/v/b.mp4")]
        running.adoptHandOver(incoming, entries: entries, configPath: "/c/config")
        XCTAssertEqual(running.entries, entries)
        XCTAssertEqual(running.configPath, "/c/config")
        XCTAssertTrue(running.noConfig)
        XCTAssertEqual(running.pauseOnFullscreen, false)
        XCTAssertEqual(running.pauseOnBattery, true)
        XCTAssertEqual(running.cacheMB, 64, "a process-wide option stays (unappliable refuses the hand-over instead)")
    }
}
