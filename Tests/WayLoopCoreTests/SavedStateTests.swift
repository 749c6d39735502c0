// What survives a restart: the state file's format read back exactly, everything else refused,
// the base's fingerprint, output identities, a playlist's place, and when the file is written.
import XCTest
@testable import WayLoopCore

final class SavedStateTests: XCTestCase {
    private func entry(_ sel: String, _ video: String? = nil, _ edit: (inout OutputEntry) -> Void = { _ in }) -> OutputEntry {
        var e = OutputEntry(selector: sel == "*" ? .all : .named(sel), video: video)
        edit(&e)
        return e
    }

    private var sample: SavedState {
        SavedState(base: SavedState.fingerprint([entry("*", "/v/a.mp4")]), overrides: [
            entry("Dell Inc. DELL U2720Q 5LQ", "/v/rain \"wet\".mp4") { $0.mode = .fit; $0.dim = 0.25; $0.fallback = .color(RGB(hex: "102030")!) },
            entry("*") { $0.maxFps = 30; $0.scaling = .compositor; $0.shuffle = true; $0.interval = 90 },
            entry("HDMI-A-1", "/v/dir") { $0.loops = 3; $0.fallback = .video("/v/still.png") },
        ], playlists: [
            SavedPlaylist(key: PlaylistRun.Key(source: "/v/dir", shuffle: true, interval: 10, loops: nil), current: "/v/dir/b.mp4",
                          round: ["/v/dir/c.mp4", "/v/dir/a.mp4"]),
            SavedPlaylist(key: PlaylistRun.Key(source: "/v/list.m3u", shuffle: false, interval: nil, loops: 2), current: "/v/x.mp4"),
        ])
    }

    func testWhatIsWrittenReadsBackTheSame() throws {
        let s = sample
        let text = s.text
        XCTAssertTrue(text.hasPrefix("{\n  \"wayloop-state\": 1,\n"), text)
        XCTAssertTrue(text.hasSuffix("}\n"))
        XCTAssertEqual(SavedState.parse(text), .success(s))
        // An empty state and one of each kind.
        for state in [SavedState(base: s.base), SavedState(base: s.base, overrides: [entry("DP-1", "/a.mp4")]),
                      SavedState(base: s.base, playlists: [s.playlists[1]])] {
            XCTAssertEqual(SavedState.parse(state.text), .success(state), state.text)
        }
        XCTAssertTrue(SavedState(base: s.base).isEmpty)
        XCTAssertFalse(s.isEmpty)
    }

    func testAnythingElseIsRefusedWithWhy() {
        let good = sample.text
        let base = sample.base
        let cases: [(String, String)] = [
            ("", "not a state file"),
            (String(good.prefix(good.count / 2)), "not a state file"),
            ("hello\nworld\n", "not a state file"),
            ("[]", "not a state file"),
            (#"{"overrides":[]}"#, "not a state file"),
            (#"{"wayloop-state":2,"base":"\#(base)","overrides":[],"playlists":[]}"#, "another version (2,"),
            (#"{"wayloop-state":"1","base":"\#(base)","overrides":[],"playlists":[]}"#, "another version"),
            (#"{"wayloop-state":1,"base":"xyz","overrides":[],"playlists":[]}"#, "\"base\" is not a fingerprint"),
            (#"{"wayloop-state":1,"base":"\#(base)","overrides":{},"playlists":[]}"#, "must be arrays"),
            (#"{"wayloop-state":1,"base":"\#(base)","overrides":[]}"#, "must be arrays"),
            (#"{"wayloop-state":1,"base":"\#(base)","overrides":[{"video":"/a.mp4"}],"playlists":[]}"#, "override 1: no \"output\""),
            (#"{"wayloop-state":1,"base":"\#(base)","overrides":[{"output":"DP-1","video":"a.mp4"}],"playlists":[]}"#, "absolute path"),
            (#"{"wayloop-state":1,"base":"\#(base)","overrides":[{"output":"DP-1","mode":"zoom"}],"playlists":[]}"#, "'zoom' is not one of"),
            (#"{"wayloop-state":1,"base":"\#(base)","overrides":[{"output":"DP-1","dim":0.5}],"playlists":[]}"#, "\"dim\" is not a string"),
            (#"{"wayloop-state":1,"base":"\#(base)","overrides":[{"output":"DP-1","rm":"-rf"}],"playlists":[]}"#, "unknown key \"rm\""),
            (#"{"wayloop-state":1,"base":"\#(base)","overrides":[{"output":"DP-1"}],"playlists":[]}"#, "it sets nothing"),
            (#"{"wayloop-state":1,"base":"\#(base)","overrides":[{"output":"DP-1","fallback":"b.mp4"}],"playlists":[]}"#, "\"fallback\" is not an absolute"),
            (#"{"wayloop-state":1,"base":"\#(base)","overrides":[],"playlists":[{"source":"/d","shuffle":true}]}"#, "playlist 1 is not one"),
            (#"{"wayloop-state":1,"base":"\#(base)","overrides":[],"playlists":[{"source":"/d","shuffle":true,"current":"/d/a","loops":0}]}"#, "playlist 1"),
            (#"{"wayloop-state":1,"base":"\#(base)","overrides":[],"playlists":[{"source":"/d","shuffle":true,"current":"/d/a","round":[1]}]}"#, "playlist 1"),
        ]
        for (text, why) in cases {
            guard case .failure(let p) = SavedState.parse(text) else { return XCTFail("accepted: \(text)") }
            XCTAssertTrue(p.description.contains(why), "\(text): \(p)")
        }
        // Too many items: not one WayLoop wrote.
        let many = "[" + Array(repeating: #"{"output":"DP-1","mode":"fit"}"#, count: SavedState.itemLimit + 1).joined(separator: ",") + "]"
        guard case .failure(.malformed) = SavedState.parse(#"{"wayloop-state":1,"base":"\#(base)","overrides":\#(many),"playlists":[]}"#) else {
            return XCTFail("accepted \(SavedState.itemLimit + 1) overrides")
        }
    }

    func testTheBaseChangesWithWhatTheEntriesSayOnly() {
        let a = [entry("*", "/v/a.mp4"), entry("DP-1", "/v/b.mp4") { $0.mode = .fit }]
        let fa = SavedState.fingerprint(a)
        XCTAssertEqual(fa.count, 16)
        XCTAssertEqual(fa, SavedState.fingerprint(a))
        // Where a config file named a video is not what it says.
        var named = a
        named[1].videoOrigin = "/home/u/.config/wayloop/config:3"
        XCTAssertEqual(SavedState.fingerprint(named), fa)
        // Everything an entry says is.
        let changed: [[OutputEntry]] = [
            [a[0]],
            [a[1], a[0]],
            [a[0], entry("DP-1", "/v/b.mp4") { $0.mode = .fill }],
            [a[0], entry("DP-2", "/v/b.mp4") { $0.mode = .fit }],
            [a[0], entry("DP-1", "/v/c.mp4") { $0.mode = .fit }],
            [a[0], entry("DP-1", "/v/b.mp4") { $0.mode = .fit; $0.dim = 0.1 }],
            [a[0], entry("DP-1", "/v/b.mp4") { $0.mode = .fit; $0.renderer = .shm }],
            // Fields run together must not collide: "/v/a" + "b" vs "/v/ab".
            [entry("*", "/v/ab.mp4"), a[1]],
            [],
        ]
        var seen: Set<String> = [fa]
        for c in changed { XCTAssertTrue(seen.insert(SavedState.fingerprint(c)).inserted, "\(c)") }
        XCTAssertEqual(sample.decision(base: sample.base), .restore(sample))
        XCTAssertEqual(sample.decision(base: fa), .baseChanged)
    }

    func testOutputsAreNamedByWhatStaysTheSame() {
        let dell = (name: "DP-1", description: "Dell Inc. DELL U2720Q 5LQ (DP-1)")
        let cases: [(name: String, description: String, others: [(name: String, description: String)], want: String)] = [
            // wlroots appends the connector: it is left out, so the monitor is found on DP-2 too.
            (dell.name, dell.description, [dell], "Dell Inc. DELL U2720Q 5LQ"),
            ("DP-2", "Dell Inc. DELL U2720Q 5LQ (DP-2)", [], "Dell Inc. DELL U2720Q 5LQ"),
            // A description without the connector, as it is.
            ("HEADLESS-1", "Headless output 1", [], "Headless output 1"),
            // None, or one that another connected output shares: the connector.
            ("HDMI-A-1", "", [], "HDMI-A-1"),
            ("HDMI-A-1", " (HDMI-A-1)", [], "HDMI-A-1"),
            ("DP-1", "Acme Panel (DP-1)", [(name: "DP-2", description: "Acme Panel (DP-2)")], "DP-1"),
            ("DP-1", "Acme Panel A (DP-1)", [(name: "DP-2", description: "Acme Panel B (DP-2)")], "Acme Panel A"),
        ]
        for c in cases {
            XCTAssertEqual(OutputIdentity.of(name: c.name, description: c.description, others: c.others), c.want, "\(c)")
        }
        // ... and an identity finds its output again, as names and descriptions do.
        XCTAssertTrue(OutputMatch.matches(pattern: "Dell Inc. DELL U2720Q 5LQ", name: "DP-2", description: "Dell Inc. DELL U2720Q 5LQ (DP-2)"))
        XCTAssertTrue(OutputMatch.matches(pattern: "Dell Inc. DELL U2720Q 5LQ (DP-2)", name: "DP-2", description: "Dell Inc. DELL U2720Q 5LQ (DP-2)"))
        XCTAssertTrue(OutputMatch.matches(pattern: "DP-2", name: "DP-2", description: "Dell Inc. DELL U2720Q 5LQ (DP-2)"))
        XCTAssertFalse(OutputMatch.matches(pattern: "Dell Inc. DELL", name: "DP-2", description: "Dell Inc. DELL U2720Q 5LQ (DP-2)"))
        XCTAssertFalse(OutputMatch.matches(pattern: "", name: "DP-2", description: ""))
    }

    func testAPlaylistGoesOnWhereItWas() {
        let items = ["/a", "/b", "/c", "/d", "/e"]
        // In order: from the saved video, then the ones after it.
        var plain = Playlist(items: items, shuffle: false, seed: 1)
        XCTAssertTrue(plain.resume(at: "/c", round: []))
        XCTAssertEqual(plain.current, "/c")
        XCTAssertEqual(plain.next(), "/d")
        XCTAssertEqual(plain.restOfRound, [])
        // Shuffled: the rest of the round as saved, then whole rounds.
        var a = Playlist(items: items, shuffle: true, seed: 7)
        a.next()
        let current = a.current!, rest = a.restOfRound
        XCTAssertEqual(rest.count, 3)
        var b = Playlist(items: items, shuffle: true, seed: 99)
        XCTAssertTrue(b.resume(at: current, round: rest))
        XCTAssertEqual(b.current, current)
        XCTAssertEqual(b.restOfRound, rest)
        var played = [current]
        for _ in rest { played.append(b.next()!) }
        XCTAssertEqual(Array(played.dropFirst()), rest)
        // The next round has every item, once.
        var round: [String] = []
        for _ in items { round.append(b.next()!) }
        XCTAssertEqual(round.sorted(), items)
        // Items gone from the list are left out of the round; a current no longer listed is not resumed.
        var c = Playlist(items: ["/a", "/b", "/c"], shuffle: true, seed: 3)
        XCTAssertTrue(c.resume(at: "/b", round: ["/gone", "/c", "/a"]))
        XCTAssertEqual(c.restOfRound, ["/c", "/a"])
        let before = c
        XCTAssertFalse(c.resume(at: "/gone", round: []))
        XCTAssertEqual(c, before)
        // An item listed twice is dealt twice, never three times.
        var d = Playlist(items: ["/a", "/a", "/b"], shuffle: true, seed: 3)
        XCTAssertTrue(d.resume(at: "/a", round: ["/a", "/a", "/b", "/b"]))
        XCTAssertEqual(d.restOfRound, ["/a", "/b"])
    }

    func testWritesWaitForQuietButNotForEver() {
        let s: Nanos = 1_000_000_000
        var d = SaveDebounce(generation: 5)
        XCTAssertNil(d.due)
        d.observe(5, now: 0)
        XCTAssertNil(d.due, "nothing changed")
        d.observe(6, now: 10 * s)
        XCTAssertEqual(d.due, 11 * s)
        // A burst: one write a second after its last change ...
        d.observe(7, now: 10 * s + s / 2)
        XCTAssertEqual(d.due, 11 * s + s / 2)
        // ... but never more than five seconds after its first.
        for i in 1...20 { d.observe(7 + i, now: 10 * s + Nanos(i) * s / 2) }
        XCTAssertEqual(d.due, 15 * s)
        d.wrote(27)
        XCTAssertNil(d.due)
        d.observe(27, now: 16 * s)
        XCTAssertNil(d.due)
        // Changed and changed back before the write: nothing to write.
        d.observe(28, now: 17 * s)
        d.observe(27, now: 17 * s)
        XCTAssertNil(d.due)
    }

    func testOverridesCountTheirChangesAndForgetByOutput() {
        var o = Overrides()
        let g0 = o.generation
        _ = o.add(entry("DP-1", "/a.mp4"), over: [])
        _ = o.add(entry("DP-2", "/b.mp4"), over: [])
        _ = o.add(entry("*") { $0.mode = .fit }, over: [entry("DP-1", "/c.mp4")])
        XCTAssertGreaterThan(o.generation, g0)
        let g1 = o.generation
        XCTAssertEqual(o.remove(naming: { $0 == "DP-1" }), 2, "its own, and the copy of '*' that names it")
        XCTAssertGreaterThan(o.generation, g1)
        XCTAssertEqual(o.entries.map(\.selector), [.named("DP-2"), .all])
        // Restored ones keep their order; later ones get tags of their own.
        var r = Overrides(restoring: [entry("A", "/a.mp4"), entry("B", "/b.mp4")])
        let t = r.add(entry("A", "/c.mp4"), over: r.entries)
        r.remove(tag: t)
        XCTAssertEqual(r.entries, [entry("A", "/a.mp4"), entry("B", "/b.mp4")])
    }
}
