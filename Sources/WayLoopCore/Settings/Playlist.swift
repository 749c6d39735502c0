// Playlists, pure: durations for `--interval`-style options (`30s`, `10m`, `2h30m`), playlist
// files (.m3u/.m3u8/.txt: one path per line) parsed into absolute paths, and the cursor that says
// which video of a playlist plays and which comes next. The shell reads the files, runs the timer
// and preloads `upcoming`; everything here is deterministic (a seeded generator for shuffle).

/// A length of time written for people: `30s`, `10m`, `1h`, `1.5s`, `500ms`, `2h30m`, `1d`, `90`
/// (a bare number is seconds), parsed to seconds and formatted back for messages.
public enum DurationText {
    /// Seconds per unit, largest first: a compound duration names its units in this order, each once.
    static let units: [(name: String, seconds: Double)] = [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1), ("ms", 0.001)]

    /// The longest duration accepted: 7 days (anything longer is a typo, not a wallpaper interval).
    public static let maximum: Double = 7 * 86_400

    /// `30s`, `10m`, `1h`, `1.5s`, `500ms`, `2h30m`, `1d`, `90` (bare number = seconds) → seconds.
    /// nil for anything else, for 0 or negative, and for more than 7 days. Case-insensitive units,
    /// no spaces inside (surrounding spaces and tabs are ignored); numbers are plain decimals
    /// (`1.5`, not `.5`, `1e3`, `inf` or `nan`); a compound names its units largest first, each once.
    public static func parse(_ s: String) -> Double? {
        let text = Array(trimmed(s).unicodeScalars.map { lowerASCII($0) })
        guard !text.isEmpty else { return nil }
        var i = 0
        var total = 0.0
        var lastUnit = -1
        var parts = 0
        while i < text.count {
            let start = i
            while i < text.count, isDigit(text[i]) { i += 1 }
            guard i > start else { return nil }
            if i < text.count, text[i] == "." {
                i += 1
                let fraction = i
                while i < text.count, isDigit(text[i]) { i += 1 }
                guard i > fraction else { return nil }
            }
            guard let value = Double(String(String.UnicodeScalarView(text[start..<i]))), value.isFinite else { return nil }
            let unitStart = i
            while i < text.count, isLetter(text[i]) { i += 1 }
            let unitName = String(String.UnicodeScalarView(text[unitStart..<i]))
            parts += 1
            if unitName.isEmpty {
                // A bare number is the whole duration: `90`, not `1m30`.
                guard parts == 1, i == text.count else { return nil }
                total = value
                break
            }
            guard let u = units.firstIndex(where: { $0.name == unitName }), u > lastUnit else { return nil }
            lastUnit = u
            // Milliseconds divide (500 / 1000 is exactly 0.5; 500 × 0.001 is not).
            total += u == units.count - 1 ? value / 1000 : value * units[u].seconds
        }
        guard total.isFinite, total > 0, total <= maximum else { return nil }
        return total
    }

    /// Shortest readable form for messages: 0.5 → "0.5s", 90 → "1m30s", 3600 → "1h", 2 → "2s",
    /// 86400 → "1d". Rounded to milliseconds; `parse` reads every result back.
    public static func format(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "\(seconds)" }
        if seconds < 0 { return "-" + format(-seconds) }
        // Beyond ~285 000 years the millisecond count would not fit an Int64: no unit split.
        guard seconds < 9e12 else { return "\(seconds)s" }
        let total = Int64((seconds * 1000).rounded())
        if total == 0 { return seconds == 0 ? "0s" : "\(seconds)s" }
        let d = total / 86_400_000, h = total / 3_600_000 % 24, m = total / 60_000 % 60
        let s = total / 1000 % 60, ms = total % 1000
        var out = ""
        if d > 0 { out += "\(d)d" }
        if h > 0 { out += "\(h)h" }
        if m > 0 { out += "\(m)m" }
        if s > 0 || ms > 0 {
            out += "\(s)"
            if ms > 0 {
                var digits = String(ms)
                while digits.count < 3 { digits = "0" + digits }
                while digits.hasSuffix("0") { digits.removeLast() }
                out += "." + digits
            }
            out += "s"
        }
        return out
    }

    /// What a usage error says a duration should look like.
    public static let expected = "a duration like 30s, 10m, 1h or 500ms"

    static func trimmed(_ s: String) -> Substring {
        var t = Substring(s)
        while let f = t.first, f == " " || f == "\t" { t.removeFirst() }
        while let l = t.last, l == " " || l == "\t" { t.removeLast() }
        return t
    }

    static func isDigit(_ u: Unicode.Scalar) -> Bool { ("0"..."9").contains(u) }
    static func isLetter(_ u: Unicode.Scalar) -> Bool { ("a"..."z").contains(u) || ("A"..."Z").contains(u) }
    static func lowerASCII(_ u: Unicode.Scalar) -> Unicode.Scalar {
        ("A"..."Z").contains(u) ? Unicode.Scalar(u.value + 32) ?? u : u
    }
}

/// Playlist files: `.m3u`, `.m3u8` or `.txt`, one video path per line (what players and
/// `find ~/Videos -name '*.mp4' > list.txt` write).
public enum PlaylistFile {
    /// The extensions that make a path a playlist rather than a video, lower case.
    public static let extensions = ["m3u", "m3u8", "txt"]

    /// The path names a playlist file by its extension: .m3u, .m3u8, .txt (case-insensitive).
    /// Only the last path component counts, and it needs a name before the dot (`.txt` is not one).
    public static func isPlaylist(_ path: String) -> Bool {
        guard let name = path.split(separator: "/", omittingEmptySubsequences: false).last,
              let dot = name.lastIndex(of: "."), dot > name.startIndex else { return false }
        let ext = String(name[name.index(after: dot)...].unicodeScalars.map { Character(DurationText.lowerASCII($0)) })
        return extensions.contains(ext)
    }

    /// One path per line. Skips blank lines and lines starting with '#' (comments, #EXTM3U, #EXTINF:...),
    /// strips a UTF-8 BOM (U+FEFF) at the start, trailing "\r", and surrounding spaces/tabs.
    /// `file:///a%20b.mp4` (or `file://localhost/…`) → `/a b.mp4` (percent-decoding of %XX, bytes decoded
    /// as UTF-8; a bad escape or invalid UTF-8 keeps the path undecoded, `/a%zz.mp4`, as it may be a real name);
    /// other URL schemes (`http://…`, anything matching ^[a-zA-Z][a-zA-Z0-9+.-]*://, and `file://` URLs naming
    /// another host) are returned in `skipped` with their 1-based line number and trimmed text.
    /// Relative paths are made absolute against `directory` (the playlist's own directory), `~/x` against `home`
    /// (`Paths.absolute(_:in:home:)`). Duplicates are kept (a user may list one twice).
    public static func parse(_ text: String, directory: String, home: String?) -> (paths: [String], skipped: [(line: Int, text: String)]) {
        var paths: [String] = []
        var skipped: [(line: Int, text: String)] = []
        var scalars = Substring(text).unicodeScalars
        if scalars.first == "\u{FEFF}" { scalars.removeFirst() }
        // Split on scalars, not Characters: "\r\n" is one Character and would not match "\n".
        for (n, raw) in scalars.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = raw
            if line.last == "\r" { line.removeLast() }
            while let f = line.first, f == " " || f == "\t" { line.removeFirst() }
            while let l = line.last, l == " " || l == "\t" { line.removeLast() }
            guard let first = line.first, first != "#" else { continue }
            let entry = String(String.UnicodeScalarView(line))
            guard let scheme = urlScheme(entry) else {
                paths.append(Paths.absolute(entry, in: directory, home: home))
                continue
            }
            if scheme == "file", let path = filePath(entry) {
                paths.append(path)
            } else {
                skipped.append((line: n + 1, text: entry))
            }
        }
        return (paths, skipped)
    }

    /// The lower-cased scheme of `s` when it starts like a URL (`^[a-zA-Z][a-zA-Z0-9+.-]*://`).
    public static func urlScheme(_ s: String) -> String? {
        let u = Array(s.unicodeScalars)
        guard let first = u.first, DurationText.isLetter(first) else { return nil }
        var i = 1
        while i < u.count, DurationText.isLetter(u[i]) || DurationText.isDigit(u[i]) || u[i] == "+" || u[i] == "." || u[i] == "-" {
            i += 1
        }
        guard i + 3 <= u.count, u[i] == ":", u[i + 1] == "/", u[i + 2] == "/" else { return nil }
        return String(String.UnicodeScalarView(u[0..<i].map { DurationText.lowerASCII($0) }))
    }

    /// The local path of a `file://` URL (`file:///p` or `file://localhost/p`), percent-decoded;
    /// nil for another host.
    static func filePath(_ url: String) -> String? {
        let rest = Substring(url).unicodeScalars.dropFirst("file://".unicodeScalars.count)
        var path: Substring.UnicodeScalarView
        if rest.first == "/" {
            path = rest
        } else if String(String.UnicodeScalarView(rest.prefix(10).map { DurationText.lowerASCII($0) })) == "localhost/" {
            path = rest.dropFirst(9)
        } else {
            return nil
        }
        let raw = String(String.UnicodeScalarView(path))
        return percentDecoded(raw) ?? raw
    }

    /// `%XX` escapes replaced by their bytes and the result read as UTF-8; nil for a malformed
    /// escape or bytes that are not UTF-8.
    public static func percentDecoded(_ s: String) -> String? {
        let bytes = Array(s.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        func hex(_ b: UInt8) -> UInt8? {
            switch b {
            case 0x30...0x39: return b - 0x30
            case 0x41...0x46: return b - 0x41 + 10
            case 0x61...0x66: return b - 0x61 + 10
            default: return nil
            }
        }
        while i < bytes.count {
            if bytes[i] == 0x25 {
                guard i + 2 < bytes.count, let hi = hex(bytes[i + 1]), let lo = hex(bytes[i + 2]) else { return nil }
                out.append(hi << 4 | lo)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(validating: out, as: UTF8.self)
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny seeded generator, so a shuffle is the same on
/// every run with the same seed (tests) and needs no system randomness here (the shell seeds it).
public struct SplitMix64: RandomNumberGenerator, Equatable, Sendable {
    /// The whole state: equal states give equal sequences.
    public private(set) var state: UInt64
    /// Any seed is fine (0 included): the first output is already mixed.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in 0..<n (0 when n <= 0), without modulo bias (Lemire's multiply-and-reject),
    /// written out so the sequence does not depend on the standard library's algorithms.
    public mutating func below(_ n: Int) -> Int {
        guard n > 1 else { return 0 }
        let bound = UInt64(n)
        let threshold = (0 &- bound) % bound
        while true {
            let (high, low) = next().multipliedFullWidth(by: bound)
            if low >= threshold { return Int(high) }
        }
    }
}

/// Which video of a playlist plays, and which comes next: a pure cursor the app advances.
/// Items are paths (strings). Plain order: items in order, wrapping. Shuffle: each round is a
/// permutation of all items (never one repeated before all have played); a new round never starts
/// with the item that ended the previous one (when there are 2+ items). The order of the current
/// and the next round is decided ahead, so `upcoming` is always what `next()` will give (the app
/// preloads it). Randomness comes from a seeded `SplitMix64`, so tests are deterministic.
///
/// Items are tracked by index, so an item listed twice is two entries (played twice a round).
public struct Playlist: Equatable, Sendable {
    /// How many items `prev()` can go back through.
    public static let historyLimit = 100

    /// The list as last given (init or replaceItems), in its own order.
    public private(set) var items: [String]
    /// Random rounds instead of list order.
    public let shuffle: Bool

    private var rng: SplitMix64
    /// What plays: usually `items[playingIndex]`; after `replaceItems` removed it, only the string.
    private var playing: String?
    private var playingIndex: Int?
    /// Indices into `items`: what played before `current` (last = most recent), and what `prev()`
    /// went back from (last = the next to come again).
    private var history: [Int] = []
    private var forward: [Int] = []
    /// Plain order: the index the order continues with (after `current`, or after the slot a removed current stood in).
    private var plainNext = 0
    /// Shuffle: the rest of the current round, the whole next round, and the last item dealt from a round.
    private var round: [Int] = []
    private var nextRound: [Int] = []
    private var lastDealt: String?

    /// A cursor on `items`, on the first of them (plain) or the first of a shuffled round.
    public init(items: [String], shuffle: Bool, seed: UInt64) {
        self.items = items
        self.shuffle = shuffle
        rng = SplitMix64(seed: seed)
        start()
    }

    /// The item playing; nil only when items is empty. After `replaceItems` it may be an item no
    /// longer in `items` (it is still playing) until the next switch.
    public var current: String? { playing }

    /// 0-based index of `current` in `items` (for "2/5" in status), nil when empty or when
    /// `current` was removed from the list.
    public var position: Int? { playingIndex }

    /// How many items the list has.
    public var count: Int { items.count }

    /// What next() will return (nil when empty). With one item, that item.
    public var upcoming: String? {
        if let f = forward.last { return items[f] }
        guard !items.isEmpty else { return nil }
        if shuffle { return (round.first ?? nextRound.first).map { items[$0] } }
        return items[plainNext % items.count]
    }

    /// Moves on and returns the new current.
    @discardableResult public mutating func next() -> String? {
        if let i = playingIndex { remember(i) }
        return step()
    }

    /// Back to the item that played before the current one (a history of up to 100 items, browser-like:
    /// next() after prev() goes forward again through what was played, then continues the order). With no history:
    /// plain order → the item before the current (wrapping); shuffle → stays on current and returns it.
    @discardableResult public mutating func prev() -> String? {
        defer { if forward.count > Self.historyLimit { forward.removeFirst(forward.count - Self.historyLimit) } }
        if let h = history.popLast() {
            if let i = playingIndex { forward.append(i) }
            land(h)
            return playing
        }
        guard !shuffle, !items.isEmpty else { return playing }
        let n = items.count
        if let i = playingIndex {
            forward.append(i)
            land((i - 1 + n) % n)
        } else {
            // A removed current: the item before the slot it stood in.
            land((plainNext % n - 1 + n) % n)
        }
        return playing
    }

    /// The directory or playlist file changed: the new list applies from the next switch. `current` stays
    /// what it is (even if removed from the list: it is playing); what comes next is recomputed so that
    /// removed items never come up, new items come up within the current round (shuffle: added to the
    /// unplayed part of the round — and to the next round; plain: by their position in the new list,
    /// continuing after the current item's position — if current was removed, continue from where it stood,
    /// i.e. after the last surviving item before it). History entries that were removed are dropped.
    /// An item listed several times is matched occurrence by occurrence (the second `a` to the second `a`).
    /// With nothing playing (the list was empty), the cursor starts on the new list as `init` does.
    public mutating func replaceItems(_ new: [String]) {
        let old = items
        let slot = old.isEmpty ? 0 : plainNext % old.count
        // Old index → new index, k-th occurrence to k-th occurrence.
        var where_: [String: [Int]] = [:]
        for (j, s) in new.enumerated() { where_[s, default: []].append(j) }
        var seen: [String: Int] = [:]
        var map = [Int?](repeating: nil, count: old.count)
        var kept = [Bool](repeating: false, count: new.count)
        for (i, s) in old.enumerated() {
            let k = seen[s, default: 0]
            seen[s] = k + 1
            if let js = where_[s], k < js.count {
                map[i] = js[k]
                kept[js[k]] = true
            }
        }
        let added = new.indices.filter { !kept[$0] }

        items = new
        playingIndex = playingIndex.flatMap { map[$0] }
        history = history.compactMap { map[$0] }
        forward = forward.compactMap { map[$0] }
        guard !new.isEmpty else {
            round = []
            nextRound = []
            plainNext = 0
            return
        }
        guard playing != nil else {
            start()
            return
        }
        if shuffle {
            round = round.compactMap { map[$0] }
            nextRound = nextRound.compactMap { map[$0] }
            for a in added {
                round.insert(a, at: rng.below(round.count + 1))
                nextRound.insert(a, at: rng.below(nextRound.count + 1))
            }
            nextRound = avoidingStart(nextRound, with: round.last.map { items[$0] } ?? lastDealt)
        } else {
            // Continue after the last surviving item at or before the current one's slot.
            let n = old.count
            plainNext = 0
            if n > 0 {
                for back in 1...n {
                    if let j = map[((slot - back) % n + n) % n] {
                        plainNext = (j + 1) % new.count
                        break
                    }
                }
            }
        }
    }

    // MARK: - Saving

    /// The rest of the shuffled round, in the order it will play (empty in list order): with
    /// `current`, what a restart needs to go on where this left off.
    public var restOfRound: [String] { shuffle ? round.map { items[$0] } : [] }

    /// Goes on from a saved place: `current` plays (its first occurrence), then the saved rest
    /// of the round (items no longer listed are left out; new ones come in the next round).
    /// History starts empty. False (nothing changed) when `current` is no longer listed.
    @discardableResult
    public mutating func resume(at current: String, round saved: [String]) -> Bool {
        guard let i = items.firstIndex(of: current) else { return false }
        history = []
        forward = []
        land(i)
        if shuffle {
            // Occurrence by occurrence, without reusing an index (an item listed twice).
            var free = Array(items.indices)
            free.removeAll { $0 == i }
            round = []
            for s in saved {
                guard let k = free.firstIndex(where: { items[$0] == s }) else { continue }
                round.append(free.remove(at: k))
            }
            lastDealt = current
            nextRound = makeRound(avoiding: round.last.map { items[$0] } ?? current)
        }
        return true
    }

    // MARK: - Moving

    /// Moves on without recording history (next() records; nextPlayable records only the start).
    private mutating func step() -> String? {
        if let f = forward.popLast() {
            land(f)
            return playing
        }
        guard !items.isEmpty else {
            playing = nil
            playingIndex = nil
            return nil
        }
        if shuffle {
            if round.isEmpty {
                round = nextRound.count == items.count ? nextRound : makeRound(avoiding: lastDealt)
                nextRound = makeRound(avoiding: round.last.map { items[$0] })
            }
            let i = round.removeFirst()
            lastDealt = items[i]
            land(i)
        } else {
            land(plainNext % items.count)
        }
        return playing
    }

    private mutating func land(_ i: Int) {
        playing = items[i]
        playingIndex = i
        plainNext = (i + 1) % items.count
    }

    private mutating func remember(_ i: Int) {
        history.append(i)
        if history.count > Self.historyLimit { history.removeFirst(history.count - Self.historyLimit) }
    }

    /// On the first item of the order, with no history; nothing when the list is empty.
    private mutating func start() {
        history = []
        forward = []
        round = []
        nextRound = []
        lastDealt = nil
        playing = nil
        playingIndex = nil
        plainNext = 0
        guard !items.isEmpty else { return }
        if shuffle {
            nextRound = makeRound(avoiding: nil)
            _ = step()
        } else {
            land(0)
        }
    }

    /// A random permutation of all indices (Fisher–Yates), not starting with `avoiding` if it can.
    private mutating func makeRound(avoiding last: String?) -> [Int] {
        var r = Array(items.indices)
        var k = r.count - 1
        while k > 0 {
            r.swapAt(k, rng.below(k + 1))
            k -= 1
        }
        return avoidingStart(r, with: last)
    }

    /// A round that would start with `last` (the item ending the round before) swaps its first with
    /// a random other item that differs, when there is one.
    private mutating func avoidingStart(_ r: [Int], with last: String?) -> [Int] {
        guard let last, let first = r.first, items[first] == last else { return r }
        let others = r.indices.filter { items[r[$0]] != last }
        guard !others.isEmpty else { return r }
        var out = r
        out.swapAt(0, others[rng.below(others.count)])
        return out
    }
}

extension Playlist {
    /// Advances past items for which `failed` is true and returns the new current, or nil (cursor
    /// unchanged) when every item failed. Like next(), but the skipped items are not put into the
    /// history (prev() does not land on a failed one). It steps at most through the rest of the
    /// round and one whole round more (plain: `count` steps, which may come back to `current`).
    @discardableResult public mutating func nextPlayable(_ failed: (String) -> Bool) -> String? {
        guard items.contains(where: { !failed($0) }) else { return nil }
        var p = self
        if let i = p.playingIndex { p.remember(i) }
        for _ in 0..<(p.forward.count + 2 * p.items.count) {
            guard let c = p.step() else { return nil }
            if !failed(c) {
                self = p
                return c
            }
        }
        return nil
    }

    /// The item `nextPlayable` would land on, without moving (nil: none playable).
    public func upcomingPlayable(_ failed: (String) -> Bool) -> String? {
        var p = self
        return p.nextPlayable(failed)
    }
}
