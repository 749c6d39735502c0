import WayLoopCore
import XCTest

final class DurationTextTests: XCTestCase {
    func testParse() {
        let cases: [(String, Double?, String)] = [
            ("30s", 30, "seconds"),
            ("10m", 600, "minutes"),
            ("1h", 3600, "hours"),
            ("1d", 86_400, "days"),
            ("1.5s", 1.5, "a fraction"),
            ("1.25h", 4500, "a fraction of an hour"),
            ("500ms", 0.5, "milliseconds: exactly 0.5 (divided, not multiplied by 0.001)"),
            ("2h30m", 9000, "a compound"),
            ("10m30s", 630, "a compound"),
            ("1m500ms", 60.5, "minutes and milliseconds"),
            ("1d2h3m4s5ms", 93_784.005, "every unit, largest first"),
            ("90", 90, "a bare number is seconds"),
            ("0.5", 0.5, "a bare fraction"),
            ("01s", 1, "a leading zero"),
            ("1H", 3600, "units are case-insensitive"),
            ("500MS", 0.5, "MS"),
            ("2H30M", 9000, "upper-case compound"),
            ("7d", 604_800, "exactly the maximum"),
            ("168h", 604_800, "the maximum in hours"),
            (" 30s\t", 30, "surrounding spaces and tabs are ignored"),
            ("", nil, "empty"),
            ("   ", nil, "only spaces"),
            ("s", nil, "a unit without a number"),
            ("-1s", nil, "negative"),
            ("+1s", nil, "a sign"),
            ("0", nil, "zero"),
            ("0s", nil, "zero seconds"),
            ("0ms", nil, "zero milliseconds"),
            ("0h0m", nil, "a zero compound"),
            ("1x", nil, "an unknown unit"),
            ("1sec", nil, "a long unit name"),
            ("1sm", nil, "unit letters run together"),
            ("1 h", nil, "a space inside"),
            ("1h 30m", nil, "a space between parts"),
            ("8d", nil, "more than 7 days"),
            ("7d1s", nil, "just over 7 days"),
            ("604801", nil, "just over 7 days in seconds"),
            ("99999999999999999999999h", nil, "far too long"),
            ("nan", nil, "not a number"),
            ("inf", nil, "infinity"),
            ("1e3", nil, "exponent notation"),
            ("1e3s", nil, "exponent notation with a unit"),
            (".5s", nil, "no digit before the point"),
            ("1.s", nil, "no digit after the point"),
            ("1..5s", nil, "two points"),
            ("1,5s", nil, "a decimal comma"),
            ("30m2h", nil, "units out of order"),
            ("1h1h", nil, "a unit twice"),
            ("1m30", nil, "a bare number after a unit"),
            ("30s1", nil, "a trailing number"),
            ("1h-30m", nil, "a sign inside"),
            ("١s", nil, "a non-ASCII digit"),
        ]
        for (text, want, note) in cases {
            XCTAssertEqual(DurationText.parse(text), want, "\(text.debugDescription): \(note)")
        }
    }

    func testFormat() {
        let cases: [(Double, String, String)] = [
            (0.5, "0.5s", "under a second"),
            (90, "1m30s", "minutes and seconds"),
            (3600, "1h", "an hour, no zero parts"),
            (2, "2s", "seconds"),
            (0, "0s", "zero"),
            (0.25, "0.25s", "two decimals"),
            (0.001, "0.001s", "a millisecond"),
            (9000, "2h30m", "hours and minutes"),
            (3661.5, "1h1m1.5s", "every part below a day"),
            (86_400, "1d", "a day"),
            (604_800, "7d", "the maximum"),
            (90_061.5, "1d1h1m1.5s", "every part"),
            (59.9996, "1m", "rounded to milliseconds, carrying into minutes"),
            (1.0004, "1s", "rounded down to the millisecond"),
            (-2, "-2s", "negative (messages only)"),
            (0.0001, "0.0001s", "below a millisecond but not zero: shown as is"),
        ]
        for (seconds, want, note) in cases {
            XCTAssertEqual(DurationText.format(seconds), want, "\(seconds): \(note)")
        }
    }

    /// Whatever `format` writes, `parse` reads back (for durations `parse` accepts).
    func testFormatReadsBack() {
        for s in [0.5, 1, 1.5, 59, 60, 61, 90, 599.999, 3600, 3601, 9000, 86_399.999, 86_400, 123_456.789, 604_800] {
            let text = DurationText.format(s)
            guard let back = DurationText.parse(text) else { return XCTFail("\(s) → \(text) does not parse") }
            XCTAssertEqual(back, s, accuracy: 1e-9, text)
        }
    }
}

final class PlaylistFileTests: XCTestCase {
    func testIsPlaylist() {
        let cases: [(String, Bool, String)] = [
            ("/v/list.m3u", true, "m3u"),
            ("/v/list.m3u8", true, "m3u8"),
            ("list.txt", true, "txt, relative"),
            ("/v/LIST.M3U8", true, "upper case"),
            ("/v/List.TxT", true, "mixed case"),
            ("/v/loop.mp4", false, "a video"),
            ("/v/m3u", false, "no extension"),
            ("/v/.txt", false, "a hidden file with no name before the dot"),
            ("/v.m3u/loop.mp4", false, "only the last component counts"),
            ("/v/list.m3u/", false, "a trailing slash: a directory"),
            ("/v/list.m3u.mp4", false, "the last extension counts"),
            ("/v/list.m3u8x", false, "a longer extension"),
            ("", false, "empty"),
        ]
        for (path, want, note) in cases {
            XCTAssertEqual(PlaylistFile.isPlaylist(path), want, "\(path): \(note)")
        }
    }

    func testParse() {
        typealias Skip = (line: Int, text: String)
        let cases: [(text: String, paths: [String], skipped: [Skip], note: String)] = [
            ("a.mp4\nb.mp4\n", ["/p/a.mp4", "/p/b.mp4"], [], "relative to the playlist's directory"),
            ("a.mp4\nb.mp4", ["/p/a.mp4", "/p/b.mp4"], [], "no final newline"),
            ("/v/a.mp4\n~/b.mp4\n./c.mp4\n~\n", ["/v/a.mp4", "/home/me/b.mp4", "/p/c.mp4", "/home/me"], [],
             "absolute, home, ./ and ~ alone (Paths.absolute)"),
            ("#EXTM3U\n#EXTINF:123,Ocean\n/v/ocean.mp4\n# a comment\n#\n", ["/v/ocean.mp4"], [], "m3u headers and comments"),
            ("\u{FEFF}#EXTM3U\n/v/a.mp4\n", ["/v/a.mp4"], [], "a BOM before the header"),
            ("\u{FEFF}/v/a.mp4\n", ["/v/a.mp4"], [], "a BOM before a path"),
            ("/v/a.mp4\r\n/v/b.mp4\r\n", ["/v/a.mp4", "/v/b.mp4"], [], "CRLF line ends"),
            ("\n\n/v/a.mp4\n\n\n/v/b.mp4\n\n", ["/v/a.mp4", "/v/b.mp4"], [], "blank lines"),
            ("   \n\t\n \t \r\n/v/a.mp4", ["/v/a.mp4"], [], "lines of only spaces and tabs"),
            ("  /v/a b.mp4\t \n\t# indented comment\n", ["/v/a b.mp4"], [], "surrounding blanks go, inner spaces stay"),
            ("/v/a.mp4\n/v/a.mp4\n", ["/v/a.mp4", "/v/a.mp4"], [], "duplicates are kept"),
            ("file:///v/a%20b.mp4\n", ["/v/a b.mp4"], [], "file URL, %20"),
            ("FILE:///v/caf%C3%A9.mp4\n", ["/v/café.mp4"], [], "scheme case, UTF-8 escapes"),
            ("file://localhost/v/a.mp4\n", ["/v/a.mp4"], [], "file URL with localhost"),
            ("file:///v/100%zz.mp4\n", ["/v/100%zz.mp4"], [], "a bad escape: kept undecoded"),
            ("file:///v/a%2.mp4\n", ["/v/a%2.mp4"], [], "a short escape: kept undecoded"),
            ("file:///v/%FF.mp4\n", ["/v/%FF.mp4"], [], "not UTF-8: kept undecoded"),
            ("file:///v/plain.mp4", ["/v/plain.mp4"], [], "a file URL without escapes"),
            ("#EXTM3U\n/v/a.mp4\nhttp://example.com/b.mp4\n/v/c.mp4\n", ["/v/a.mp4", "/v/c.mp4"],
             [(3, "http://example.com/b.mp4")], "http skipped, with its line number"),
            ("  https://x/y  \r\nrtsp://cam/1\ngit+ssh://h/r\n", [], [(1, "https://x/y"), (2, "rtsp://cam/1"), (3, "git+ssh://h/r")],
             "other schemes, trimmed"),
            ("file://otherhost/v/a.mp4\n", [], [(1, "file://otherhost/v/a.mp4")], "a file URL on another host"),
            ("c:/v/a.mp4\n1http://x\n", ["/p/c:/v/a.mp4", "/p/1http://x"], [], "not URLs: no //, or a digit first"),
            ("\u{FEFF}", [], [], "only a BOM"),
            ("", [], [], "empty"),
        ]
        for c in cases {
            let r = PlaylistFile.parse(c.text, directory: "/p", home: "/home/me")
            XCTAssertEqual(r.paths, c.paths, c.note)
            XCTAssertEqual(r.skipped.map(\.line), c.skipped.map(\.line), c.note)
            XCTAssertEqual(r.skipped.map(\.text), c.skipped.map(\.text), c.note)
        }
    }

    func testDirectoryWithTrailingSlashAndNoHome() {
        let r = PlaylistFile.parse("a.mp4\n~/b.mp4\n", directory: "/p/", home: nil)
        XCTAssertEqual(r.paths, ["/p/a.mp4", "/p/~/b.mp4"], "without a home, ~ is an ordinary name")
    }
}

final class PlaylistTests: XCTestCase {
    private let abc = ["a", "b", "c"]

    /// Calls next() `n` times, checking each time that it gives what `upcoming` said.
    private func advance(_ p: inout Playlist, _ n: Int, file: StaticString = #filePath, line: UInt = #line) -> [String?] {
        (0..<n).map { _ in
            let u = p.upcoming
            let got = p.next()
            XCTAssertEqual(got, u, "upcoming is what next() gives", file: file, line: line)
            return got
        }
    }

    func testPlainOrderWraps() {
        var p = Playlist(items: ["a", "b", "c"], shuffle: false, seed: 1)
        XCTAssertEqual(p.current, "a")
        XCTAssertEqual(p.position, 0)
        XCTAssertEqual(p.count, 3)
        XCTAssertEqual(p.upcoming, "b")
        XCTAssertEqual(advance(&p, 5), ["b", "c", "a", "b", "c"])
        XCTAssertEqual(p.position, 2)
    }

    func testOneItem() {
        for shuffle in [false, true] {
            var p = Playlist(items: ["a"], shuffle: shuffle, seed: 7)
            XCTAssertEqual(p.current, "a")
            XCTAssertEqual(p.upcoming, "a", "with one item, that item")
            XCTAssertEqual(advance(&p, 3), ["a", "a", "a"])
            XCTAssertEqual(p.prev(), "a")
            XCTAssertEqual(p.position, 0)
        }
    }

    func testEmptyList() {
        for shuffle in [false, true] {
            var p = Playlist(items: [], shuffle: shuffle, seed: 1)
            XCTAssertNil(p.current)
            XCTAssertNil(p.position)
            XCTAssertNil(p.upcoming)
            XCTAssertEqual(p.count, 0)
            XCTAssertNil(p.next())
            XCTAssertNil(p.prev())
            XCTAssertNil(p.nextPlayable { _ in false })
            // Items arriving while nothing plays: the cursor starts on them, as init does.
            p.replaceItems(["x", "y"])
            XCTAssertNotNil(p.current)
            XCTAssertEqual(p, Playlist(items: ["x", "y"], shuffle: shuffle, seed: 1), "shuffle: \(shuffle)")
        }
    }

    func testSameSeedSameOrder() {
        let items = (0..<6).map { "v\($0)" }
        func run(_ seed: UInt64) -> [String?] {
            var p = Playlist(items: items, shuffle: true, seed: seed)
            return [p.current] + advance(&p, 30)
        }
        XCTAssertEqual(run(42), run(42))
        XCTAssertNotEqual(run(42), run(43))
    }

    /// Every round is a permutation of all items, and no round starts with the item that ended the
    /// round before: seeds 1...20, 2 to 7 items, 50 rounds each.
    func testShuffleRoundsArePermutations() {
        for seed: UInt64 in 1...20 {
            for n in 2...7 {
                let items = (0..<n).map { "v\($0)" }
                var p = Playlist(items: items, shuffle: true, seed: seed)
                let played = ([p.current] + advance(&p, 50 * n - 1)).compactMap { $0 }
                XCTAssertEqual(played.count, 50 * n)
                var last: String?
                for r in 0..<50 {
                    let round = Array(played[(r * n)..<((r + 1) * n)])
                    XCTAssertEqual(round.sorted(), items, "seed \(seed), \(n) items, round \(r): a permutation")
                    XCTAssertNotEqual(round.first, last, "seed \(seed), \(n) items, round \(r): starts with the last")
                    last = round.last
                }
            }
        }
    }

    func testShuffleIsNotPlainOrder() {
        // Over 20 seeds, some first round of 6 differs from the plain order (the generator is used).
        let items = (0..<6).map { "v\($0)" }
        let orders = (1...20 as ClosedRange<UInt64>).map { seed -> [String?] in
            var p = Playlist(items: items, shuffle: true, seed: seed)
            return [p.current] + advance(&p, 5)
        }
        XCTAssertTrue(orders.contains { $0 != items })
        XCTAssertGreaterThan(Set(orders.map { $0.compactMap { $0 }.joined(separator: ",") }).count, 10)
    }

    /// prev() walks back through what played, next() walks forward through it again and then
    /// continues the order; plain order without history goes to the item before.
    func testPlainHistory() {
        var p = Playlist(items: ["a", "b", "c", "d"], shuffle: false, seed: 1)
        let steps: [(op: String, want: String, upcoming: String, note: String)] = [
            ("next", "b", "c", "forward"),
            ("next", "c", "d", "forward"),
            ("prev", "b", "c", "back to what played"),
            ("prev", "a", "b", "back to the start of the history"),
            ("prev", "d", "a", "no history: the item before, wrapping"),
            ("next", "a", "b", "forward again through what prev left"),
            ("next", "b", "c", "..."),
            ("next", "c", "d", "back where prev started"),
            ("next", "d", "a", "then the order continues"),
            ("next", "a", "b", "wrapping"),
        ]
        for s in steps {
            let got = s.op == "next" ? p.next() : p.prev()
            XCTAssertEqual(got, s.want, s.note)
            XCTAssertEqual(p.current, s.want, s.note)
            XCTAssertEqual(p.upcoming, s.upcoming, s.note)
        }
    }

    func testShuffleHistory() {
        var p = Playlist(items: (0..<5).map { "v\($0)" }, shuffle: true, seed: 3)
        let first = p.current
        XCTAssertEqual(p.prev(), first, "shuffle without history stays on the current item")
        XCTAssertEqual(p.current, first)
        var untouched = p
        let played = [p.current] + advance(&p, 7)
        let reference = [untouched.current] + advance(&untouched, 12)
        XCTAssertEqual(played, Array(reference.prefix(8)), "prev() without history changed nothing")
        for k in stride(from: 6, through: 0, by: -1) {
            XCTAssertEqual(p.prev(), played[k], "back to step \(k)")
        }
        XCTAssertEqual(p.prev(), played[0], "history exhausted: stays")
        XCTAssertEqual(advance(&p, 12), Array(reference.dropFirst()), "forward through history, then the order as decided")
    }

    func testHistoryKeeps100() {
        var p = Playlist(items: (0..<7).map { "v\($0)" }, shuffle: true, seed: 9)
        let played = [p.current] + advance(&p, 150)
        for k in 0..<100 {
            XCTAssertEqual(p.prev(), played[149 - k])
        }
        XCTAssertEqual(p.current, played[50])
        XCTAssertEqual(p.prev(), played[50], "only 100 are kept: no further back")
    }

    // MARK: - replaceItems, plain order

    func testReplacePlain() {
        let cases: [(items: [String], nexts: Int, new: [String], current: String?, position: Int?, then: [String?], note: String)] = [
            (["a", "b", "c"], 0, ["a", "x", "b", "c"], "a", 0, ["x", "b", "c", "a"], "added right after the current"),
            (["a", "b", "c"], 1, ["x", "a", "b", "c"], "b", 2, ["c", "x", "a", "b"], "added before: comes up after the wrap"),
            (["a", "b", "c"], 0, ["a", "c"], "a", 0, ["c", "a"], "the next one removed"),
            (["a", "b", "c"], 1, ["a", "c"], "b", nil, ["c", "a", "c"], "the current removed: it stays, the order goes on"),
            (["a", "b", "c"], 1, ["a", "x", "c"], "b", nil, ["x", "c", "a"], "the current replaced: the new one at its slot"),
            (["a", "b", "c", "d"], 2, ["a", "d"], "c", nil, ["d", "a"], "the current and its predecessor removed"),
            (["a", "b", "c"], 0, ["b", "c"], "a", nil, ["b", "c", "b"], "the first, playing, removed"),
            (["a", "b"], 1, ["x", "y"], "b", nil, ["x", "y", "x"], "everything replaced: from the start"),
            (["a", "b"], 0, [], "a", nil, [nil, nil], "emptied: the current plays on, nothing comes"),
            (["a", "b", "a"], 2, ["a", "b", "a", "c"], "a", 2, ["c", "a", "b"], "a duplicate matched by occurrence"),
            (["a", "b", "c"], 1, ["c", "b", "a"], "b", 1, ["a", "c", "b"], "reordered: by the new positions"),
            (["a", "b", "c"], 0, ["a", "b", "c"], "a", 0, ["b", "c", "a"], "unchanged"),
        ]
        for c in cases {
            var p = Playlist(items: c.items, shuffle: false, seed: 1)
            _ = advance(&p, c.nexts)
            p.replaceItems(c.new)
            XCTAssertEqual(p.items, c.new, c.note)
            XCTAssertEqual(p.current, c.current, c.note)
            XCTAssertEqual(p.position, c.position, c.note)
            XCTAssertEqual(p.count, c.new.count, c.note)
            XCTAssertEqual(advance(&p, c.then.count), c.then, c.note)
        }
    }

    func testReplaceDropsRemovedHistory() {
        var p = Playlist(items: ["a", "b", "c", "d"], shuffle: false, seed: 1)
        _ = advance(&p, 2)
        p.replaceItems(["a", "c", "d"])
        XCTAssertEqual(p.prev(), "a", "b was removed from the history")
        XCTAssertEqual(p.upcoming, "c")
        // Removed from what prev() left ahead: forward skips it.
        var q = Playlist(items: ["a", "b", "c", "d"], shuffle: false, seed: 1)
        _ = advance(&q, 3)
        q.prev()
        q.prev()
        XCTAssertEqual(q.current, "b")
        q.replaceItems(["a", "b", "d"])
        XCTAssertEqual(advance(&q, 2), ["d", "a"], "c is gone from the way forward")
    }

    func testRemovedCurrentPrevPlain() {
        var p = Playlist(items: ["a", "b", "c"], shuffle: false, seed: 1)
        p.replaceItems(["b", "c"])
        XCTAssertEqual(p.current, "a")
        XCTAssertEqual(p.upcoming, "b")
        XCTAssertEqual(p.prev(), "c", "no history: the item before the slot a stood in")
        XCTAssertEqual(p.upcoming, "b", "a is not put back ahead")
    }

    func testEmptiedThenRefilled() {
        for shuffle in [false, true] {
            var p = Playlist(items: ["a", "b"], shuffle: shuffle, seed: 5)
            let playing = p.current
            p.replaceItems([])
            XCTAssertEqual(p.current, playing, "still playing")
            XCTAssertNil(p.position)
            XCTAssertNil(p.upcoming)
            XCTAssertEqual(p.prev(), playing, "nothing to go back to")
            XCTAssertNil(p.next(), "nothing comes")
            XCTAssertNil(p.current)
            p.replaceItems(["x"])
            XCTAssertEqual(p.current, "x", "a new list starts the cursor again")
            XCTAssertEqual(p.upcoming, "x")
        }
    }

    // MARK: - replaceItems, shuffle

    /// New items come up in the rest of the current round (each once, with the items not played
    /// yet), removed ones never; the next round is a permutation of the new list.
    func testReplaceShuffle() {
        let cases: [(items: Int, played: Int, new: (([String]) -> [String]), note: String)] = [
            (5, 2, { $0 + ["x", "y"] }, "two added mid-round"),
            (5, 4, { $0 + ["x"] }, "added on the round's last item"),
            (5, 0, { ["x"] + $0 }, "added on the round's first item"),
            (5, 2, { Array($0.dropFirst(2)) }, "two removed"),
            (6, 3, { $0.filter { $0 != "v1" && $0 != "v4" } + ["x"] }, "removed and added"),
            (3, 1, { _ in ["x", "y", "z"] }, "everything replaced"),
            (2, 0, { $0 + ["x", "y", "z", "w"] }, "many added to a short list"),
        ]
        for c in cases {
            for seed: UInt64 in 1...20 {
                let items = (0..<c.items).map { "v\($0)" }
                var p = Playlist(items: items, shuffle: true, seed: seed)
                let before = ([p.current] + advance(&p, c.played)).compactMap { $0 }
                let playing = p.current
                let new = c.new(items)
                p.replaceItems(new)
                let note = "\(c.note), seed \(seed)"
                XCTAssertEqual(p.current, playing, note)
                XCTAssertEqual(p.position, playing.flatMap { new.firstIndex(of: $0) }, note)
                // The rest of the round: what the new list has that this round did not play yet.
                let rest = new.filter { !before.contains($0) }
                let got = advance(&p, rest.count).compactMap { $0 }
                XCTAssertEqual(got.sorted(), rest.sorted(), "\(note): the rest of the round")
                let nextRound = advance(&p, new.count).compactMap { $0 }
                XCTAssertEqual(nextRound.sorted(), new.sorted(), "\(note): the next round")
                if new.count > 1 { XCTAssertNotEqual(nextRound.first, got.last ?? playing, "\(note): no repeat at the round change") }
            }
        }
    }

    func testReplaceShuffleRemovedCurrent() {
        for seed: UInt64 in 1...20 {
            var p = Playlist(items: ["a", "b", "c", "d"], shuffle: true, seed: seed)
            _ = advance(&p, 1)
            let playing = p.current ?? ""
            let new = ["a", "b", "c", "d"].filter { $0 != playing }
            p.replaceItems(new)
            XCTAssertEqual(p.current, playing)
            XCTAssertNil(p.position)
            let later = advance(&p, 30)
            XCTAssertFalse(later.contains(playing), "seed \(seed): a removed item never comes up")
            XCTAssertTrue(p.prev() != playing, "seed \(seed): nor through the history")
        }
    }

    /// `upcoming` is always what next() gives, whatever mix of next, prev and replaceItems came
    /// before; the current item is always in the list after a move, and `position` points at it.
    func testUpcomingIsAlwaysNext() {
        let pool = (0..<9).map { "v\($0)" }
        for shuffle in [false, true] {
            for seed: UInt64 in 1...20 {
                var ops = SplitMix64(seed: seed &* 1000 &+ 17)
                var p = Playlist(items: Array(pool.prefix(4)), shuffle: shuffle, seed: seed)
                for step in 0..<400 {
                    let note = "shuffle \(shuffle), seed \(seed), step \(step)"
                    switch ops.below(10) {
                    case 0..<5:
                        let u = p.upcoming
                        XCTAssertEqual(p.next(), u, note)
                        if !p.items.isEmpty { XCTAssertNotNil(p.position, note) }
                    case 5..<8:
                        p.prev()
                    default:
                        // A random sub-list of the pool, sometimes with a duplicate, sometimes empty.
                        var new = pool.filter { _ in ops.below(2) == 0 }
                        if ops.below(4) == 0, let d = new.first { new.append(d) }
                        if ops.below(8) == 0 { new = [] }
                        p.replaceItems(new)
                        XCTAssertEqual(p.items, new, note)
                    }
                    if let i = p.position {
                        XCTAssertEqual(p.items[i], p.current, note)
                    }
                    if let u = p.upcoming { XCTAssertTrue(p.items.contains(u), "\(note): upcoming is in the list") }
                    XCTAssertEqual(p.upcoming == nil, p.items.isEmpty, note)
                }
            }
        }
    }

    // MARK: - failing entries

    func testNextPlayable() {
        let cases: [(failed: Set<String>, want: String?, then: String?, note: String)] = [
            ([], "b", "c", "nothing failed: like next()"),
            (["b"], "c", "d", "one skipped"),
            (["b", "c"], "d", "a", "two skipped"),
            (["b", "c", "d"], "a", "b", "only the current plays: back to it"),
            (["a", "b", "c", "d"], nil, "b", "all failed: nil, cursor unchanged"),
        ]
        for c in cases {
            var p = Playlist(items: ["a", "b", "c", "d"], shuffle: false, seed: 1)
            let failed: (String) -> Bool = { c.failed.contains($0) }
            XCTAssertEqual(p.upcomingPlayable(failed), c.want, c.note)
            XCTAssertEqual(p.current, "a", "\(c.note): upcomingPlayable does not move")
            XCTAssertEqual(p.nextPlayable(failed), c.want, c.note)
            XCTAssertEqual(p.upcoming, c.then, c.note)
            if c.want != nil {
                XCTAssertEqual(p.prev(), "a", "\(c.note): skipped items are not in the history")
            } else {
                XCTAssertEqual(p, Playlist(items: ["a", "b", "c", "d"], shuffle: false, seed: 1), c.note)
            }
        }
    }

    func testNextPlayableShuffle() {
        let items = (0..<6).map { "v\($0)" }
        for seed: UInt64 in 1...20 {
            for failing in [["v0"], ["v1", "v2", "v3"], ["v0", "v1", "v2", "v3", "v4"], items] {
                var p = Playlist(items: items, shuffle: true, seed: seed)
                _ = advance(&p, Int(seed % 5))
                let start = p
                let failed: (String) -> Bool = { failing.contains($0) }
                let want = p.upcomingPlayable(failed)
                XCTAssertEqual(p, start)
                let got = p.nextPlayable(failed)
                XCTAssertEqual(got, want, "seed \(seed)")
                if failing.count == items.count {
                    XCTAssertNil(got)
                    XCTAssertEqual(p, start, "all failed: unchanged")
                } else {
                    XCTAssertNotNil(got, "seed \(seed), \(failing)")
                    XCTAssertFalse(got.map(failed) ?? true, "seed \(seed): lands on a playable item")
                    // Without failures the same steps are plain next() calls: it is the first
                    // playable item of the order.
                    var q = start
                    var expected: String?
                    for _ in 0..<(2 * items.count) {
                        if let n = q.next(), !failed(n) { expected = n; break }
                    }
                    XCTAssertEqual(got, expected, "seed \(seed)")
                }
            }
        }
    }

    func testAPlaylistWithNoVideoSaysItWasReadAsOneForItsExtension() {
        let txt = VideoError.noVideos("/home/me/hello.txt", directory: false, reason: "no file named in it").description
        XCTAssertEqual(txt, "'/home/me/hello.txt': a playlist with no video to play (no file named in it; read as a playlist because its name ends in .txt)")
        let dir = VideoError.noVideos("/home/me/loops", directory: true, reason: "no video file in it").description
        XCTAssertEqual(dir, "'/home/me/loops': a directory with no video to play (no video file in it)")
    }
}
