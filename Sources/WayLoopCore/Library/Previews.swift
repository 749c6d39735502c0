// A picker's previews, pure: their sizes, which frames a looping preview takes, the GIF's
// palette (median cut) and each pixel's entry in it, and which cached previews go. The shell
// decodes, places and encodes (WayLoopKit's PreviewMaker).

public enum PreviewPlan {
    /// The thumbnail's width at most (PNG).
    public static let thumbnailWidth = 320
    /// The animated preview's width at most (GIF).
    public static let previewWidth = 240
    /// The preview's length at most, seconds.
    public static let seconds = 3.0
    /// Its frames a second.
    public static let fps = 10.0
    /// The previews kept at most, bytes (least recently used out).
    public static let maxBytes = 256 << 20

    /// A picture of `shown` pixels scaled to `width` at most, aspect kept, each side even and at
    /// least 2 (a picture smaller than that stays its own size, rounded up to even).
    public static func size(of shown: Size, width: Int) -> Size {
        guard shown.width > 0, shown.height > 0 else { return Size(width: 2, height: 2) }
        func even(_ v: Int) -> Int { max(2, v + (v & 1)) }
        if shown.width <= width { return Size(width: even(shown.width), height: even(shown.height)) }
        let h = Int((Double(shown.height) * Double(width) / Double(shown.width)).rounded())
        return Size(width: even(width), height: even(h))
    }

    /// Whether the frame at `time` (seconds from the first) is taken, given the slot of the last
    /// taken one: one per 1/fps slot, the first frame at or after each, up to `seconds` (and a
    /// loop shorter than that once). Returns the slot taken, or nil.
    public static func slot(at time: Double, after last: Int?) -> Int? {
        guard time >= 0, time < seconds else { return nil }
        let s = Int((time * fps + 1e-6).rounded(.down))
        if let last, s <= last { return nil }
        return s
    }

    /// Previews to delete: those whose key no listed or cached file has (`live`), then the least
    /// recently used until the rest fit `maxBytes`. `entries`: name, bytes, last use.
    public static func evictions(_ entries: [(name: String, bytes: Int, used: Int)], live: Set<String>, maxBytes: Int) -> [String] {
        var gone: [String] = []
        var kept: [(name: String, bytes: Int, used: Int)] = []
        for e in entries {
            let key = e.name.split(separator: ".").first.map(String.init) ?? e.name
            if live.contains(key) { kept.append(e) } else { gone.append(e.name) }
        }
        kept.sort { ($0.used, $0.name) < ($1.used, $1.name) }
        var total = kept.reduce(0) { $0 + $1.bytes }
        for e in kept where total > maxBytes {
            gone.append(e.name)
            total -= e.bytes
        }
        return gone
    }
}

/// A GIF's palette of at most 256 colours, by median cut over the pixels of every frame, and
/// the nearest entry for each pixel.
public struct Palette: Equatable, Sendable {
    public let colors: [RGB]

    public init(colors: [RGB]) { self.colors = colors }

    /// The palette of packed RGB `pixels` (3 bytes each): the colours are gathered in 15-bit
    /// buckets (the sum of their exact values kept), boxes of buckets are split at the weighted
    /// median of their widest channel until there are `count` or none can be split, and each
    /// box's mean colour is an entry. A picture of `count` colours or fewer, each in a bucket of
    /// its own, gets them exactly.
    public static func medianCut(_ pixels: [UInt8], count: Int = 256, sampleStep: Int = 1) -> Palette {
        struct Bucket { var n = 0, r = 0, g = 0, b = 0 }
        var buckets: [Int: Bucket] = [:]
        let step = max(1, sampleStep) * 3
        var i = 0
        while i + 2 < pixels.count {
            let r = Int(pixels[i]), g = Int(pixels[i + 1]), b = Int(pixels[i + 2])
            let key = (r >> 3) << 10 | (g >> 3) << 5 | (b >> 3)
            var e = buckets[key] ?? Bucket()
            e.n += 1; e.r += r; e.g += g; e.b += b
            buckets[key] = e
            i += step
        }
        func mean(_ keys: [Int]) -> RGB {
            var n = 0, r = 0, g = 0, b = 0
            for k in keys { let e = buckets[k]!; n += e.n; r += e.r; g += e.g; b += e.b }
            return RGB(red: UInt8((r + n / 2) / n), green: UInt8((g + n / 2) / n), blue: UInt8((b + n / 2) / n))
        }
        let all = buckets.keys.sorted()
        if all.count <= count { return Palette(colors: all.map { mean([$0]) }) }
        func channel(_ k: Int, _ ch: Int) -> Int { (k >> (10 - 5 * ch)) & 31 }
        var boxes: [[Int]] = [all]
        while boxes.count < count {
            // The box with the widest channel range (ties: the most pixels) is split.
            var best = -1, bestRange = 0, bestChannel = 0, bestWeight = 0
            for (k, box) in boxes.enumerated() where box.count > 1 {
                let weight = box.reduce(0) { $0 + buckets[$1]!.n }
                for ch in 0..<3 {
                    var lo = 31, hi = 0
                    for c in box { let v = channel(c, ch); lo = min(lo, v); hi = max(hi, v) }
                    let r = hi - lo
                    if r > bestRange || (r == bestRange && r > 0 && weight > bestWeight) {
                        best = k; bestRange = r; bestChannel = ch; bestWeight = weight
                    }
                }
            }
            guard best >= 0, bestRange > 0 else { break }
            let sorted = boxes[best].sorted { (channel($0, bestChannel), $0) < (channel($1, bestChannel), $1) }
            let total = sorted.reduce(0) { $0 + buckets[$1]!.n }
            var acc = 0, cut = 1
            for (j, c) in sorted.enumerated() {
                acc += buckets[c]!.n
                if acc * 2 >= total { cut = min(max(1, j + 1), sorted.count - 1); break }
            }
            boxes[best] = Array(sorted[..<cut])
            boxes.append(Array(sorted[cut...]))
        }
        return Palette(colors: boxes.map(mean))
    }

    /// The entry nearest `c` (squared distance; the first of equals).
    public func nearest(_ c: RGB) -> Int {
        var best = 0, bestD = Int.max
        for (k, p) in colors.enumerated() {
            let dr = Int(p.red) - Int(c.red), dg = Int(p.green) - Int(c.green), db = Int(p.blue) - Int(c.blue)
            let d = dr * dr + dg * dg + db * db
            if d < bestD { best = k; bestD = d; if d == 0 { break } }
        }
        return best
    }

    /// Each pixel of packed RGB `pixels` as its entry's index; `memo` (keep it across the frames
    /// of one preview) remembers what each colour mapped to.
    public func indices(_ pixels: [UInt8], memo: inout [UInt32: UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: pixels.count / 3)
        for k in 0..<out.count {
            let r = pixels[3 * k], g = pixels[3 * k + 1], b = pixels[3 * k + 2]
            let key = UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
            if let m = memo[key] { out[k] = m; continue }
            let n = UInt8(nearest(RGB(red: r, green: g, blue: b)))
            memo[key] = n
            out[k] = n
        }
        return out
    }
}
