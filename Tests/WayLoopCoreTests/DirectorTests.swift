// The director's rules, one table row per behaviour the README promises: which decoders run
// (needed, kept for a switch back, stopped, the --keep-recent and --cache-mb bounds), what an
// output draws (switch when ready, fade from a picture on screen, keep the old video when the
// new one fails, the last picture of a broken video, a fallback video or colour, no surface),
// when a request is answered, what --release-after and memory pressure give back, when the
// process stops because nothing can play, and a playlist run's switches. No compositor.
import WayLoopCore
import XCTest

private func settings(_ video: String, fallback: Fallback? = nil, transition: Transition = .standard,
                      playlist: String? = nil) -> OutputSettings {
    var s = OutputSettings(video: video, fallback: fallback, transition: transition)
    s.playlist = playlist
    return s
}

private func head(_ id: UInt32 = 1, target: OutputSettings?, drawn: OutputSettings? = nil, surface: Bool = true,
                  configure: (inout HeadView) -> Void = { _ in }) -> HeadView {
    var h = HeadView(id: id, target: target, drawn: drawn)
    h.hasSurface = surface
    h.sinkReady = surface
    h.configured = surface
    h.canTakeFrame = surface
    h.presented = drawn?.video
    configure(&h)
    return h
}

private let missing = VideoError.notFound("/v/missing.mp4")
private let broken = VideoError.decodeFailed("/v/a.mp4", reason: "garbage")

private func playing(frame: Bool = true, bytes: Int = 0) -> VideoFacts {
    var v = VideoFacts.ready
    v.hasFrame = frame
    v.heldBytes = bytes
    return v
}

private func failedVideo(_ e: VideoError) -> VideoFacts { VideoFacts(failure: e) }

final class DirectorTests: XCTestCase {
    // MARK: What each output draws

    /// A workspace's colour as the target: at once, without a fade, on the same surface; the
    /// video under it is not needed (kept ready by syncVideos, as any video switched from).
    func testAColourAsTheTarget() {
        let c = RGB(red: 0x20, green: 0x30, blue: 0x40), d = RGB(red: 1, green: 2, blue: 3)
        let a = settings("/v/a.mp4")
        var colour = a
        colour.solid = c
        var nothingElse = settings("")
        nothingElse.solid = c
        typealias Row = (what: String, head: HeadView, want: [HeadEffect])
        let rows: [Row] = [
            ("from a video: the colour at once, the video no longer drawn",
             head(target: colour, drawn: a),
             [.setDrawn(nil), .setSolid(c), .invalidate, .updatePause, .switchedToColour(c, announce: true), .markPlaying]),
            ("during a fade: the fade ends",
             head(target: colour, drawn: a) { $0.fadeFrom = settings("/v/old.mp4") },
             [.cancelFade, .setDrawn(nil), .setSolid(c), .invalidate, .updatePause, .switchedToColour(c, announce: true), .markPlaying]),
            ("a --transition for the switch is used up", head(target: colour, drawn: a) { $0.nextTransition = Transition.none },
             [.consumeTransition, .setDrawn(nil), .setSolid(c), .invalidate, .updatePause, .switchedToColour(c, announce: true), .markPlaying]),
            ("already shown: nothing but the state", head(target: colour) { $0.solid = c }, [.markPlaying]),
            ("another colour", head(target: colour) { $0.solid = d },
             [.setSolid(c), .invalidate, .updatePause, .switchedToColour(c, announce: true), .markPlaying]),
            ("a new output: a surface for it, no announcement", head(target: colour, surface: false),
             [.setSolid(c), .invalidate, .updatePause, .switchedToColour(c, announce: false), .markPlaying, .ensureSurface]),
            ("an output with only the colour", head(target: nothingElse, surface: false),
             [.setSolid(c), .invalidate, .updatePause, .switchedToColour(c, announce: false), .markPlaying, .ensureSurface]),
        ]
        for r in rows {
            XCTAssertEqual(Director.reconcile(r.head, World(heads: [r.head], videos: ["/v/a.mp4": playing()])), r.want, r.what)
        }
        // Back to the video from the colour: drawn at once when ready (a cut: no picture of
        // video to fade from), with no black frame.
        let back = head(target: a) { $0.solid = c }
        XCTAssertEqual(Director.reconcile(back, World(heads: [back], videos: ["/v/a.mp4": playing()])),
                       [.consumeTransition, .cancelFade, .setDrawn(a), .setSolid(nil), .invalidate, .updatePause,
                        .switched(to: "/v/a.mp4", announce: false), .markPlaying])
        // The colour needs no decoder: the video under it is kept for the way back.
        let shown = head(target: colour) { $0.solid = c }
        XCTAssertEqual(Director.needed(World(heads: [shown], videos: ["/v/a.mp4": playing()])), [])
        XCTAssertEqual(Director.syncVideos(World(heads: [shown], videos: ["/v/a.mp4": playing()]), playlistItems: [], started: true,
                                           keepRecent: 3, cacheBudget: 1 << 30), [.keep("/v/a.mp4")])
        XCTAssertEqual(Director.needed(World(heads: [head(target: nothingElse)], videos: [:])), [], "no \"\" to open")
    }

    func testReconcileTable() {
        let a = settings("/v/a.mp4"), b = settings("/v/b.mp4")
        let noFade = settings("/v/b.mp4", transition: .none)
        let bWithFallbackVideo = settings("/v/b.mp4", fallback: .video("/v/f.mp4"))
        let bWithColour = settings("/v/b.mp4", fallback: .color(RGB(red: 1, green: 2, blue: 3)))
        var dimmed = a
        dimmed.dim = 0.5
        typealias Row = (what: String, head: HeadView, videos: [String: VideoFacts], want: [HeadEffect])
        let rows: [Row] = [
            ("no entry names a video for it: the surface goes, the player unloads",
             head(target: nil, drawn: a), ["/v/a.mp4": playing()], [.dropSurface, .setDrawn(nil), .setSolid(nil), .event(.unload)]),
            ("nothing assigned and nothing shown: only the state machine hears it",
             head(target: nil, surface: false), [:], [.event(.unload)]),
            ("a new output: its video is opening, it shows nothing yet (no black frame)",
             head(target: a, surface: false), ["/v/a.mp4": .opening], [.event(.load)]),
            ("its video is ready: it is drawn, the surface is made",
             head(target: a, surface: false), ["/v/a.mp4": playing()],
             [.consumeTransition, .cancelFade, .setDrawn(a), .setSolid(nil), .invalidate,
              .updatePause, .switched(to: "/v/a.mp4", announce: false), .markPlaying, .ensureSurface]),
            ("a switch waits for the new video: the old one plays on meanwhile",
             head(target: b, drawn: a), ["/v/a.mp4": playing(), "/v/b.mp4": .opening], [.markPlaying]),
            ("the new video is ready: it fades in over the picture on screen",
             head(target: b, drawn: a), ["/v/a.mp4": playing(), "/v/b.mp4": playing()],
             [.consumeTransition, .startFade(from: a, seconds: 0.5), .setDrawn(b), .setSolid(nil), .invalidate, .updatePause,
              .switched(to: "/v/b.mp4", announce: true), .markPlaying]),
            ("--transition none cuts",
             head(target: noFade, drawn: a), ["/v/a.mp4": playing(), "/v/b.mp4": playing()],
             [.consumeTransition, .cancelFade, .setDrawn(noFade), .setSolid(nil), .invalidate, .updatePause,
              .switched(to: "/v/b.mp4", announce: true), .markPlaying]),
            ("ctl set --transition none: the one-switch transition wins over the settings'",
             head(target: b, drawn: a) { $0.nextTransition = Transition.none }, ["/v/a.mp4": playing(), "/v/b.mp4": playing()],
             [.consumeTransition, .cancelFade, .setDrawn(b), .setSolid(nil), .invalidate, .updatePause,
              .switched(to: "/v/b.mp4", announce: true), .markPlaying]),
            ("paused: a switch cuts (a still mix would stay on screen)",
             head(target: b, drawn: a) { $0.drawPaused = true }, ["/v/a.mp4": playing(), "/v/b.mp4": playing()],
             [.consumeTransition, .cancelFade, .setDrawn(b), .setSolid(nil), .invalidate, .updatePause,
              .switched(to: "/v/b.mp4", announce: true), .markPlaying]),
            ("no picture of the old video on screen: nothing to fade from",
             head(target: b, drawn: a), ["/v/a.mp4": playing(frame: false), "/v/b.mp4": playing()],
             [.consumeTransition, .cancelFade, .setDrawn(b), .setSolid(nil), .invalidate, .updatePause,
              .switched(to: "/v/b.mp4", announce: true), .markPlaying]),
            ("new settings for the video it plays (dim): drawn again, no switch",
             head(target: dimmed, drawn: a), ["/v/a.mp4": playing()], [.setDrawn(dimmed), .invalidate, .updatePause, .markPlaying]),
            ("the same video asked for again: a one-switch transition is not kept",
             head(target: a, drawn: a) { $0.nextTransition = .fade(2) }, ["/v/a.mp4": playing()], [.consumeTransition, .markPlaying]),
            ("ctl set to a file that fails: the old video plays on",
             head(target: b, drawn: a), ["/v/a.mp4": playing(), "/v/b.mp4": failedVideo(missing)], []),
            ("the video on screen breaks: its last picture stays, the state says so",
             head(target: a, drawn: a), ["/v/a.mp4": failedVideo(broken)],
             [.event(.fail(.lastPictureKept(broken)))]),
            ("a bare output whose video cannot be played fails and shows nothing",
             head(target: b, surface: false), ["/v/b.mp4": failedVideo(missing)],
             [.event(.fail(missing)), .cancelFade, .dropSurface, .setSolid(nil)]),
            ("its fallback video plays instead (once ready)",
             head(target: bWithFallbackVideo, surface: false), ["/v/b.mp4": failedVideo(missing), "/v/f.mp4": playing()],
             {
                 var f = bWithFallbackVideo
                 f.video = "/v/f.mp4"
                 return [.event(.fail(missing)), .consumeTransition, .cancelFade, .setDrawn(f), .setSolid(nil),
                         .invalidate, .updatePause, .switched(to: "/v/f.mp4", announce: false), .ensureSurface]
             }()),
            ("its fallback colour shows",
             head(target: bWithColour, surface: false), ["/v/b.mp4": failedVideo(missing)],
             [.event(.fail(missing)), .cancelFade, .setSolid(RGB(red: 1, green: 2, blue: 3)), .invalidate, .ensureSurface]),
            ("the fallback colour already shows: not drawn again",
             head(target: bWithColour) { $0.solid = RGB(red: 1, green: 2, blue: 3) }, ["/v/b.mp4": failedVideo(missing)],
             [.event(.fail(missing)), .cancelFade]),
            ("the fallback colour shows and the video is fixed: it opens, the colour stays until it is ready",
             head(target: bWithColour) { $0.solid = RGB(red: 1, green: 2, blue: 3) }, ["/v/b.mp4": .opening], []),
            ("its surface went (a draw failed): it comes back while the ready video is drawn",
             head(target: a, drawn: a, surface: false), ["/v/a.mp4": playing()], [.markPlaying, .ensureSurface]),
            ("a colour and no surface: the surface is made for the colour",
             head(target: bWithColour, surface: false) { $0.solid = RGB(red: 1, green: 2, blue: 3) }, ["/v/b.mp4": .opening],
             [.ensureSurface]),
        ]
        for r in rows {
            XCTAssertEqual(Director.reconcile(r.head, World(heads: [r.head], videos: r.videos)), r.want, r.what)
        }
    }

    // MARK: Which decoders run

    func testNeededVideos() {
        let a = settings("/v/a.mp4"), b = settings("/v/b.mp4", fallback: .video("/v/f.mp4"))
        let rows: [(what: String, heads: [HeadView], videos: [String: VideoFacts], preloads: Set<String>, want: Set<String>)] = [
            ("targets and what is drawn", [head(target: b, drawn: a)], [:], [], ["/v/a.mp4", "/v/b.mp4"]),
            ("a failed target needs its fallback video", [head(target: b)], ["/v/b.mp4": failedVideo(missing)], [], ["/v/f.mp4"]),
            ("the video fading out", [head(target: b, drawn: b) { $0.fadeFrom = a }], [:], [], ["/v/a.mp4", "/v/b.mp4"]),
            ("a playlist's next video opened ahead (not when it failed)", [head(target: a)], ["/v/x.mp4": failedVideo(missing)],
             ["/v/n.mp4", "/v/x.mp4"], ["/v/a.mp4", "/v/n.mp4"]),
        ]
        for r in rows {
            XCTAssertEqual(Director.needed(World(heads: r.heads, videos: r.videos, preloads: r.preloads)), r.want, r.what)
        }
    }

    func testSyncVideosTable() {
        let a = settings("/v/a.mp4")
        let heads = [head(target: a, drawn: a)]
        typealias Row = (what: String, videos: [String: VideoFacts], recent: [String], items: Set<String>, started: Bool,
                         keep: Int, budget: Int, want: [VideoEffect])
        var released = VideoFacts.ready
        released.released = true
        var checked = VideoFacts()
        checked.checked = true
        let rows: [Row] = [
            ("a needed video opens", [:], [], [], true, 3, 1 << 30, [.open("/v/a.mp4", check: false)]),
            ("a playlist's video is checked first (once)", [:], [], ["/v/a.mp4"], true, 3, 1 << 30, [.open("/v/a.mp4", check: true)]),
            ("... and not checked again", ["/v/a.mp4": checked], [], ["/v/a.mp4"], true, 3, 1 << 30, [.open("/v/a.mp4", check: false)]),
            ("a failed one is not opened again", ["/v/a.mp4": failedVideo(missing)], [], [], true, 3, 1 << 30, []),
            ("one nobody shows is kept for a switch back", ["/v/a.mp4": .ready, "/v/old.mp4": .ready], [], [], true, 3, 1 << 30,
             [.keep("/v/old.mp4")]),
            ("already kept: nothing to do", ["/v/a.mp4": .ready, "/v/old.mp4": keptReady()], ["/v/old.mp4"], [], true, 3, 1 << 30, []),
            ("--keep-recent 0: stopped", ["/v/a.mp4": .ready, "/v/old.mp4": .ready], [], [], true, 0, 1 << 30,
             [.stop("/v/old.mp4", overBudget: false)]),
            ("a released one is not kept", ["/v/a.mp4": .ready, "/v/old.mp4": released], [], [], true, 3, 1 << 30,
             [.stop("/v/old.mp4", overBudget: false)]),
            ("at start-up a video still opening is left to finish its check", ["/v/a.mp4": .ready, "/v/c.mp4": .opening], [], [], false,
             3, 1 << 30, []),
            ("once something started, an unneeded opening video stops", ["/v/a.mp4": .ready, "/v/c.mp4": .opening], [], [], true, 3,
             1 << 30, [.stop("/v/c.mp4", overBudget: false)]),
            ("a kept one wanted again", ["/v/a.mp4": keptReady()], ["/v/a.mp4"], [], true, 3, 1 << 30, [.wantedAgain("/v/a.mp4")]),
            ("beyond --keep-recent the oldest goes",
             ["/v/a.mp4": .ready, "/v/o1.mp4": keptReady(), "/v/o2.mp4": keptReady(), "/v/new.mp4": .ready], ["/v/o1.mp4", "/v/o2.mp4"],
             [], true, 2, 1 << 30, [.keep("/v/new.mp4"), .stop("/v/o1.mp4", overBudget: true)]),
            ("beyond --cache-mb the oldest goes",
             ["/v/a.mp4": .ready, "/v/o1.mp4": keptReady(bytes: 600), "/v/o2.mp4": keptReady(bytes: 600)], ["/v/o1.mp4", "/v/o2.mp4"],
             [], true, 3, 1000, [.stop("/v/o1.mp4", overBudget: true)]),
        ]
        for r in rows {
            let w = World(heads: heads, videos: r.videos, recent: r.recent)
            XCTAssertEqual(Director.syncVideos(w, playlistItems: r.items, started: r.started, keepRecent: r.keep, cacheBudget: r.budget),
                           r.want, r.what)
        }
    }

    private func keptReady(bytes: Int = 0) -> VideoFacts {
        var v = playing(frame: true, bytes: bytes)
        v.recent = true
        return v
    }

    // MARK: Replies

    func testReplyOutcomeTable() {
        let a = settings("/v/a.mp4"), b = settings("/v/b.mp4")
        let ok = JSON.object([("ok", .bool(true))])
        let list = settings("/v/l/1.mp4", playlist: "/v/l")
        typealias Row = (what: String, heads: [HeadView], videos: [String: VideoFacts], reply: PendingReply, want: ReplyOutcome)
        let rows: [Row] = [
            ("the new video is opening: wait", [head(target: b, drawn: a)], ["/v/b.mp4": .opening],
             PendingReply(client: 1, waiting: ["/v/b.mp4"], success: ok), .wait),
            ("ready but not on screen yet: wait", [head(target: b, drawn: b) { $0.presented = "/v/a.mp4" }], ["/v/b.mp4": playing()],
             PendingReply(client: 1, waiting: ["/v/b.mp4"], success: ok), .wait),
            ("on screen: answered", [head(target: b, drawn: b)], ["/v/b.mp4": playing()],
             PendingReply(client: 1, waiting: ["/v/b.mp4"], success: ok), .succeeded),
            ("an output not presented is not waited for", [head(target: b, drawn: b) { $0.presented = nil; $0.hidden = true }],
             ["/v/b.mp4": playing()], PendingReply(client: 1, waiting: ["/v/b.mp4"], success: ok), .succeeded),
            ("the video failed: the error", [head(target: b, drawn: a)], ["/v/b.mp4": failedVideo(missing)],
             PendingReply(client: 1, waiting: ["/v/b.mp4"], success: ok, undoTag: 3), .failed([missing])),
            ("replaced before it was shown: superseded", [head(target: a, drawn: a)], ["/v/a.mp4": playing()],
             PendingReply(client: 1, waiting: ["/v/b.mp4"], success: ok), .superseded),
            ("a playlist: waited for by the video its output plays", [head(target: list, drawn: a)], [:],
             PendingReply(client: 1, waiting: [], playlists: ["/v/l"], success: ok), .wait),
            ("a playlist's video on screen: answered", [head(target: list, drawn: list)], ["/v/l/1.mp4": playing()],
             PendingReply(client: 1, waiting: [], playlists: ["/v/l"], success: ok), .succeeded),
        ]
        for r in rows {
            XCTAssertEqual(Director.outcome(r.reply, World(heads: r.heads, videos: r.videos), playlistError: { _ in nil }), r.want, r.what)
        }
        // A playlist none of whose videos can play is an error, said by the shell's reason.
        let none = VideoError.noVideos("/v/l", directory: true, reason: "none of its videos can be played")
        XCTAssertEqual(Director.outcome(PendingReply(client: 1, waiting: [], playlists: ["/v/l"], success: ok),
                                        World(heads: [head(target: settings("/v/l/1.mp4", playlist: "/v/l"))],
                                              videos: ["/v/l/1.mp4": failedVideo(missing)]),
                                        playlistError: { $0 == "/v/l" ? none : nil }), .failed([none]))
    }

    // MARK: Giving back

    func testWhatCtlSetWaitsFor() {
        let rows: [(what: String, video: String?, playlist: Bool, fallback: String?, ready: Bool, want: Set<String>)] = [
            ("a video: until it is on screen", "/v/b.mp4", false, nil, false, ["/v/b.mp4"]),
            ("a playlist: its run is weighed instead", "/v/list", true, nil, false, []),
            ("a fallback video not open yet: until it is", "/v/b.mp4", false, "/v/f.mp4", false, ["/v/b.mp4", "/v/f.mp4"]),
            ("a fallback video already open: not waited for", "/v/b.mp4", false, "/v/f.mp4", true, ["/v/b.mp4"]),
            ("new settings only (--dim): nothing to wait for", nil, false, nil, false, []),
        ]
        for r in rows {
            XCTAssertEqual(Director.setWaitsFor(video: r.video, videoIsPlaylist: r.playlist, fallback: r.fallback, fallbackReady: r.ready),
                           r.want, r.what)
        }
    }

    func testReleaseAfterTable() {
        let a = settings("/v/a.mp4")
        var released = VideoFacts.ready
        released.released = true
        var kept = VideoFacts.ready
        kept.recent = true
        let rows: [(what: String, head: HeadView, video: VideoFacts, preload: Bool, want: Bool)] = [
            ("seen: kept", head(target: a, drawn: a), .ready, false, false),
            ("its output is not presented: released", head(target: a, drawn: a) { $0.canTakeFrame = false; $0.hidden = true }, .ready, false, true),
            ("covered or paused: released", head(target: a, drawn: a) { $0.canTakeFrame = false; $0.drawPaused = true }, .ready, false, true),
            ("already released", head(target: a, drawn: a) { $0.canTakeFrame = false }, released, false, false),
            ("still opening", head(target: a, drawn: a) { $0.canTakeFrame = false }, .opening, false, false),
            ("kept for a switch back", head(target: nil, surface: false), kept, false, false),
            ("opened ahead of a playlist switch", head(target: nil, surface: false), .ready, true, false),
            ("nobody shows it", head(target: nil, surface: false), .ready, false, true),
        ]
        for r in rows {
            let w = World(heads: [r.head], videos: ["/v/a.mp4": r.video], preloads: r.preload ? ["/v/a.mp4"] : [])
            XCTAssertEqual(Director.mayRelease("/v/a.mp4", w), r.want, r.what)
        }
    }

    func testMemoryPressureTable() {
        let a = settings("/v/a.mp4")
        var replaying = VideoFacts.ready
        replaying.replaying = true
        var kept = VideoFacts.ready
        kept.recent = true
        let rows: [(what: String, head: HeadView, video: VideoFacts, want: PressurePlan.Action)] = [
            ("on screen, decoding: kept", head(target: a, drawn: a), .ready, .keep),
            ("on screen, replaying its loop cache: gives it up at the next loop", head(target: a, drawn: a), replaying, .giveUpCache),
            ("covered by a fullscreen window: released", head(target: a, drawn: a) { $0.covered = true }, replaying, .release),
            ("paused by the user but on screen: kept", head(target: a, drawn: a) { $0.drawPaused = true; $0.canTakeFrame = false },
             .ready, .keep),
            ("kept for a switch back: forgotten first", head(target: nil, surface: false), kept, .forget),
            ("still opening: left alone", head(target: nil, surface: false), .opening, .keep),
        ]
        for r in rows {
            XCTAssertEqual(Director.pressure(["/v/a.mp4"], World(heads: [r.head], videos: ["/v/a.mp4": r.video])), [r.want], r.what)
        }
    }

    // MARK: The end

    func testNothingCanPlayTable() {
        let rows: [(what: String, started: Bool, failed: Set<String>, colour: Bool, want: Bool)] = [
            ("every video failed, no fallback colour: exit 5", false, ["a", "b"], false, true),
            ("one can still play", false, ["a"], false, false),
            ("a fallback colour stands in", false, ["a", "b"], true, false),
            ("something played once: failures never end the process", true, ["a", "b"], false, false),
        ]
        for r in rows {
            XCTAssertEqual(Director.nothingCanPlay(started: r.started, videos: ["a", "b"], unplayable: r.failed.contains,
                                                   hasFallbackColor: r.colour), r.want, r.what)
        }
    }

    // MARK: Playlists

    func testPlaylistRunAdvanceTable() {
        let key = PlaylistRun.Key(source: "/v/l", shuffle: false, interval: 10, loops: nil)
        let items = ["/v/l/1.mp4", "/v/l/2.mp4", "/v/l/3.mp4"]
        let s = 1_000_000_000 as Nanos
        // The clock starts when the video is on screen, counts only seen time, preloads 5 s ahead,
        // switches at the interval once the next video is ready.
        let run = PlaylistRun(key: key, items: items, seed: 1)
        let on = PlaylistRun.Seen(drawn: true, watched: true, ready: true, framePass: 0)
        XCTAssertEqual(run.advance(now: 0, seen: on, failed: { _ in false }, ready: { _ in false }), .init())
        XCTAssertEqual(run.remaining, 10)
        var covered = on
        covered.watched = false
        _ = run.advance(now: 20 * s, seen: covered, failed: { _ in false }, ready: { _ in false })
        XCTAssertEqual(run.remaining, 10, "covered time does not count")
        var a = run.advance(now: 26 * s, seen: on, failed: { _ in false }, ready: { _ in false })
        XCTAssertEqual(a, .init(moved: false, preloadChanged: true, skipped: nil))
        XCTAssertEqual(run.preload, "/v/l/2.mp4")
        a = run.advance(now: 31 * s, seen: on, failed: { _ in false }, ready: { _ in false })
        XCTAssertFalse(a.moved, "the next video is not ready: the old one plays on")
        a = run.advance(now: 32 * s, seen: on, failed: { _ in false }, ready: { _ in true })
        XCTAssertTrue(a.moved)
        XCTAssertEqual(run.playlist.current, "/v/l/2.mp4")
        XCTAssertNil(run.preload)
        XCTAssertNil(run.remaining, "the new video's clock starts when it is on screen")

        // A failed current video is skipped once, with its name.
        let skip = PlaylistRun(key: key, items: items, seed: 1)
        let failed: (String) -> Bool = { $0 == "/v/l/1.mp4" }
        XCTAssertEqual(skip.advance(now: 0, seen: nil, failed: failed, ready: { _ in true }),
                       .init(moved: true, preloadChanged: false, skipped: "/v/l/1.mp4"))
        XCTAssertEqual(skip.playlist.current, "/v/l/2.mp4")

        // --loops 2: due when the next frame starts pass 2 and its time has come; preload in the last pass.
        let loops = PlaylistRun(key: .init(source: "/v/l", shuffle: false, interval: nil, loops: 2), items: items, seed: 1)
        XCTAssertEqual(loops.advance(now: 0, seen: .init(drawn: true, watched: true, ready: true, framePass: 0, nextPass: 0),
                                     failed: { _ in false }, ready: { _ in true }), .init())
        XCTAssertEqual(loops.advance(now: s, seen: .init(drawn: true, watched: true, ready: true, framePass: 1, nextPass: 1),
                                     failed: { _ in false }, ready: { _ in true }), .init(moved: false, preloadChanged: true))
        XCTAssertEqual(loops.advance(now: 2 * s, seen: .init(drawn: true, watched: true, ready: true, framePass: 1, nextPass: 2, nextIsDue: false),
                                     failed: { _ in false }, ready: { _ in true }), .init())
        XCTAssertTrue(loops.advance(now: 3 * s, seen: .init(drawn: true, watched: true, ready: true, framePass: 1, nextPass: 2, nextIsDue: true),
                                    failed: { _ in false }, ready: { _ in true }).moved)

        // One video in the list: it plays on, its clock starts again.
        let one = PlaylistRun(key: key, items: ["/v/l/1.mp4"], seed: 1)
        _ = one.advance(now: 0, seen: on, failed: { _ in false }, ready: { _ in true })
        XCTAssertFalse(one.advance(now: 11 * s, seen: on, failed: { _ in false }, ready: { _ in true }).moved)
        XCTAssertEqual(one.remaining, 10)
        XCTAssertTrue(PlaylistRun.allFailed("/v/l", runs: [one], failed: { _ in true }))
        XCTAssertFalse(PlaylistRun.allFailed("/v/l", runs: [one], failed: { _ in false }))
        XCTAssertFalse(PlaylistRun.allFailed("/v/other", runs: [one], failed: { _ in true }))
    }

    // MARK: The table

    func testVideoTableKeepsOneRecordPerFile() {
        var t = VideoTable<Int>()
        t.setClip("/a", 1)
        t.setFailure("/b", missing)
        t.keep("/a")
        t.setClip("/c", 3)
        t.keep("/c")
        XCTAssertEqual(t.recent, ["/a", "/c"])
        t.keep("/a")
        XCTAssertEqual(t.recent, ["/a", "/c"], "a kept video keeps its place")
        t.setClip("/a", nil)
        XCTAssertEqual(t.recent, ["/c"], "a stopped video is not kept")
        t.changed("/d", due: 5)
        XCTAssertEqual(t.nextChangeDue, 5)
        XCTAssertEqual(t.takeSettledChanges(now: 4), [])
        XCTAssertEqual(t.takeSettledChanges(now: 5), ["/d"])
        XCTAssertNil(t.nextChangeDue)
        XCTAssertEqual(t.count, 2, "/a and /d hold nothing any more: forgotten")
        t.forget(failuresExcept: [])
        XCTAssertEqual(t.count, 1)
        t["/e"].isPlaylist = true
        t["/e"].checked = true
        t.forget(kindsExcept: [], checksExcept: [])
        XCTAssertEqual(t.count, 1)
        t.unkeep("/c")
        XCTAssertEqual(t.failures.count, 0)
        XCTAssertEqual(t.open.map(\.path), ["/c"])
    }
}

final class TimerListTests: XCTestCase {
    func testTheTimeoutAndTheDispatchComeFromOneList() {
        let timers = TimerList()
        var release: Nanos? = 50, power: Nanos? = 20
        var log: [String] = []
        timers.add("release", due: { _ in release }, fire: { _ in log.append("release"); release = nil })
        timers.add("power", due: { _ in power }, fire: { now in log.append("power"); power = now + 100 })
        timers.add("frames", due: { _ in 3_000 })
        let rows: [(now: Nanos, soonest: Nanos?, fired: [String])] = [
            (0, 20, []),
            (20, 50, ["power"]),
            (50, 120, ["release"]),
            (119, 120, []),
            (120, 220, ["power"]),
            (220, 320, ["power"]),
        ]
        for r in rows {
            XCTAssertEqual(timers.fire(now: r.now), r.fired, "at \(r.now)")
            XCTAssertEqual(timers.soonest(now: r.now), r.soonest, "at \(r.now)")
        }
        XCTAssertEqual(log, ["power", "release", "power", "power"])
        XCTAssertEqual(timers.names, ["release", "power", "frames"])
        // A wake-only deadline wakes the loop and does nothing itself.
        power = nil
        XCTAssertEqual(timers.soonest(now: 2_999), 3_000)
        XCTAssertEqual(timers.fire(now: 5_000), [])
    }
}

final class SpanAssignTests: XCTestCase {
    func testOutputsShowingTheSameVideoInASpanModeShareOneCanvas() {
        var span = OutputSettings(video: "/v/a.mp4")
        span.mode = .span
        var spanFit = span
        spanFit.mode = .spanFit
        let left = Rect(x: 0, y: 0, width: 1920, height: 1080), right = Rect(x: 1920, y: 0, width: 1920, height: 1080)
        let below = Rect(x: 0, y: 1080, width: 1280, height: 720)
        let canvas = Rect(x: 0, y: 0, width: 3840, height: 1080)
        let rows: [(what: String, outputs: [(key: Int, target: OutputSettings?, rect: Rect)], want: [Int: SpanView])] = [
            ("two side by side", [(1, span, left), (2, span, right)],
             [1: SpanView(canvas: canvas, output: left), 2: SpanView(canvas: canvas, output: right)]),
            ("another mode is another canvas", [(1, span, left), (2, spanFit, right)],
             [1: SpanView(canvas: left, output: left), 2: SpanView(canvas: right, output: right)]),
            ("an output that does not span has no view", [(1, span, left), (2, OutputSettings(video: "/v/a.mp4"), right), (3, nil, below)],
             [1: SpanView(canvas: left, output: left)]),
            ("an L-shape: the bounding box", [(1, span, left), (3, span, below)],
             [1: SpanView(canvas: Rect(x: 0, y: 0, width: 1920, height: 1800), output: left),
              3: SpanView(canvas: Rect(x: 0, y: 0, width: 1920, height: 1800), output: below)]),
        ]
        for r in rows { XCTAssertEqual(Span.assign(r.outputs), r.want, r.what) }
    }

    func testAnOutputOfASpanNeedsTheWholeCanvasAtItsDensity() {
        let half = SpanView(canvas: Rect(x: 0, y: 0, width: 3840, height: 1080), output: Rect(x: 0, y: 0, width: 1920, height: 1080))
        XCTAssertEqual(Span.neededSize(buffer: Size(width: 1920, height: 1080), span: nil), Size(width: 1920, height: 1080))
        XCTAssertEqual(Span.neededSize(buffer: Size(width: 1920, height: 1080), span: half), Size(width: 3840, height: 1080))
        // Scale 2: twice the pixels of its logical rectangle.
        XCTAssertEqual(Span.neededSize(buffer: Size(width: 3840, height: 2160), span: half), Size(width: 7680, height: 2160))
        XCTAssertEqual(Span.neededSize(buffer: Size(width: 1001, height: 11),
                                       span: SpanView(canvas: Rect(x: 0, y: 0, width: 3, height: 1), output: Rect(x: 0, y: 0, width: 2, height: 1))),
                       Size(width: 1502, height: 11), "rounded up")
    }
}

final class OverridesTests: XCTestCase {
    func testCtlSetOverridesAreTaggedAndBounded() {
        var o = Overrides()
        let dp1 = OutputEntry(selector: .named("DP-1"), video: "/v/a.mp4")
        let everyOutput = OutputEntry(selector: .all, video: "/v/b.mp4")
        let t0 = o.add(dp1, over: [])
        // `*` also overrides the entries that name one output.
        let t1 = o.add(everyOutput, over: [OutputEntry(selector: .named("HDMI-A-1"), video: "/v/c.mp4"), dp1])
        XCTAssertEqual(o.entries.map(\.selector), [.named("DP-1"), .all, .named("HDMI-A-1"), .named("DP-1")])
        XCTAssertEqual(o.entries.map(\.video), ["/v/a.mp4", "/v/b.mp4", "/v/b.mp4", "/v/b.mp4"])
        XCTAssertNotEqual(t0, t1)
        // The first DP-1 override is shadowed by the later one: forgotten.
        XCTAssertTrue(o.compact())
        XCTAssertEqual(o.entries.count, 3)
        XCTAssertFalse(o.compact())
        // A failed switch takes back its own override only.
        o.remove(tag: t1)
        XCTAssertEqual(o.entries.count, 0)
        _ = o.add(dp1, over: [])
        o.removeAll()
        XCTAssertTrue(o.entries.isEmpty)
    }

    func testPauseRulesTable() {
        var noFullscreenPause = OutputSettings(video: "/v/a.mp4")
        noFullscreenPause.pauseOnFullscreen = false
        var onBatteryPause = OutputSettings(video: "/v/a.mp4")
        onBatteryPause.pauseOnBattery = true
        let rows: [(what: String, s: OutputSettings?, layer: Layer, fullscreen: Bool, battery: Bool, want: (Bool, Bool))] = [
            ("a fullscreen window pauses by default", OutputSettings(video: "/v/a.mp4"), .background, true, false, (true, false)),
            ("no settings yet: the default", nil, .background, true, true, (true, false)),
            ("pause-on-fullscreen = no", noFullscreenPause, .background, true, false, (false, false)),
            ("the overlay layer is never covered", OutputSettings(video: "/v/a.mp4"), .overlay, true, false, (false, false)),
            ("the top layer is", OutputSettings(video: "/v/a.mp4"), .top, true, false, (true, false)),
            ("on battery without the rule: plays", OutputSettings(video: "/v/a.mp4"), .background, false, true, (false, false)),
            ("--pause-on-battery on battery", onBatteryPause, .background, false, true, (false, true)),
            ("--pause-on-battery on mains", onBatteryPause, .background, false, false, (false, false)),
        ]
        for r in rows {
            let facts = ScreenFacts(windows: [ScreenWindow(id: "1", appID: "foot", output: "DP-1", fullscreen: r.fullscreen)])
            let got = PauseRules.reasons(r.s, output: "DP-1", layer: r.layer, facts: facts, source: .foreignToplevel, outputs: ["DP-1"],
                                         onBattery: r.battery)
            XCTAssertTrue((got.rule == .fullscreen) == r.want.0 && got.battery == r.want.1, r.what)
            XCTAssertTrue(got.rule == nil || got.rule == .fullscreen, r.what)
        }
    }
}

/// What a settled change of a watched file does (FileChange), one row per case.
final class FileChangeTests: XCTestCase {
    func testActionsTable() {
        typealias F = FileChange.Facts
        let rows: [(what: String, facts: F, want: [FileChange.Action])] = [
            ("the config file: a reload, nothing else", F(isConfig: true, open: true, failed: true), [.reloadConfig]),
            ("a video in use: it opens again", F(open: true), [.reopen]),
            ("a video that had failed: it is tried again", F(failed: true), [.retry]),
            ("a video that failed while open (its last picture shows): opened again, then checked", F(open: true, failed: true), [.reopen, .retry]),
            ("a playlist directory whose items changed: the playlists reconcile, nothing is reopened",
             F(playlistChanged: true, isPlaylistDirectory: true, open: true), [.reconcile]),
            ("a playlist list file that is also open as a video", F(playlistChanged: true, open: true), [.reconcile, .reopen]),
            ("a file nothing uses any more", F(), []),
        ]
        for r in rows { XCTAssertEqual(FileChange.actions(r.facts), r.want, r.what) }
    }
}

/// Whether a config file read again is applied (ConfigReload), one row per outcome.
final class ConfigReloadTests: XCTestCase {
    func testVerdictTable() {
        let a = OutputEntry(selector: .all, video: "/v/a.mp4")
        var gl = OutputEntry(selector: .all)
        gl.renderer = .gl
        let bad = ConfigError(file: "/c/config", line: 3, reason: "unknown key 'colour'")
        let missing = VideoError.notFound("/v/a.mp4")
        let cli = Options()
        typealias V = ConfigReload.Verdict
        let rows: [(what: String, loaded: Result<[OutputEntry], ConfigError>, errors: [VideoError], want: V)] = [
            ("a good file: applied", .success([a]), [], .apply([a], rendererNotice: nil)),
            ("a file that does not parse: refused, what plays is kept", .failure(bad), [],
             .refused(.config("\(bad)"), log: "\(bad); keeping what plays", isError: true)),
            ("nothing names a video any more: refused", .success([OutputEntry(selector: .named("DP-1"), dim: 0.5)]), [],
             .refused(.config("\(UsageError.noVideo); keeping what plays"), log: "\(UsageError.noVideo); keeping what plays", isError: true)),
            ("a video that cannot be opened: refused, with the file's own line logged already", .success([a]), [missing],
             .refused(.video([missing], "; keeping what plays"), log: "configuration not applied: a video cannot be opened; keeping what plays",
                      isError: false)),
            ("another renderer: applied, said to take effect at the next start", .success([gl, a]), [],
             .apply([gl, a], rendererNotice: "renderer = gl takes effect at the next start")),
        ]
        for r in rows {
            XCTAssertEqual(ConfigReload.verdict(loaded: r.loaded, commandLine: cli, running: [a]) { _ in r.errors }, r.want, r.what)
        }
    }
}

/// Which pictures several outputs share (Director.sharedPictures), decided once per draw pass.
final class SharedPicturesTests: XCTestCase {
    func testSharedPicturesTable() {
        let a1080 = SharedPicture(video: "/v/a.mp4", width: 1920, height: 1080)
        let a720 = SharedPicture(video: "/v/a.mp4", width: 1280, height: 720)
        let b1080 = SharedPicture(video: "/v/b.mp4", width: 1920, height: 1080)
        let rows: [(what: String, shown: [SharedPicture?], want: Set<SharedPicture>)] = [
            ("one output: nothing to share", [a1080], []),
            ("two outputs, one video, one size: shared", [a1080, a1080], [a1080]),
            ("one video at two sizes: each converted for its own", [a1080, a720], []),
            ("two videos at one size: nothing shared", [a1080, b1080], []),
            ("three outputs, two alike: those two", [a1080, b1080, a1080], [a1080]),
            ("an output with no video (a colour, no buffers) counts for nothing", [a1080, nil, nil], []),
            ("two pairs: both", [a720, b1080, a720, b1080], [a720, b1080]),
        ]
        for r in rows { XCTAssertEqual(Director.sharedPictures(r.shown), r.want, r.what) }
    }
}

final class FrameTraceLineTests: XCTestCase {
    func testTheVideoTagAndTheWeight() {
        XCTAssertEqual(FrameTraceLine.videoTag("/v/a b.mp4").count, 16)
        XCTAssertNotEqual(FrameTraceLine.videoTag("/v/a.mp4"), FrameTraceLine.videoTag("/v/b.mp4"))
        XCTAssertEqual(FrameTraceLine.videoTag(""), "cbf29ce484222325", "FNV-1a 64's offset basis")
        let rows: [(Double, String)] = [(1, "1"), (1.5, "1"), (0.9996, "1"), (0.5, "0.500"), (0.05, "0.050"), (0.0004, "0.000"),
                                        (0, "0.000"), (-1, "0.000"), (0.123456, "0.123")]
        for (w, text) in rows { XCTAssertEqual(FrameTraceLine.weight(w), text, "\(w)") }
    }
}

/// `--keep-recent`'s one rule (the wallpaper's Director and a host's VideoView): the oldest go
/// while more than N are kept or what they hold is over the budget.
final class RecentVideosTests: XCTestCase {
    func testOverflowTable() {
        let held = ["a": 10, "b": 20, "c": 30]
        let table: [(String, [String], Int, Int, [String])] = [
            ("within both", ["a", "b"], 2, 100, []),
            ("one too many: the oldest", ["a", "b", "c"], 2, 100, ["a"]),
            ("none kept", ["a", "b"], 0, 100, ["a", "b"]),
            ("a negative count keeps none", ["a"], -1, 100, ["a"]),
            ("over the budget: the oldest until within", ["a", "b", "c"], 5, 35, ["a", "b"]),
            ("the budget alone can empty it", ["c"], 5, 10, ["c"]),
            ("nothing recent", [], 2, 0, []),
        ]
        for (name, recent, keep, budget, gone) in table {
            XCTAssertEqual(RecentVideos.overflow(recent, keep: keep, budget: budget, heldBytes: { held[$0] ?? 0 }), gone, name)
        }
    }
}
