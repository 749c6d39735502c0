// Damage: which parts of a picture changed between two frames, so that the shm renderer converts
// only those and both renderers tell the compositor only those (wl_surface.damage_buffer,
// eglSwapBuffersWithDamage). The picture is cut into 64x64 luma tiles (with their chroma); a tile
// changed when any of its bytes did. Everything here is pure: the comparison reads two frames'
// planes through raw pointers and stops at the first difference in a tile, so a full-motion
// frame costs one short compare per tile and a still region one pass over its bytes.
import Glibc

/// The changed tiles of a picture of `picture` pixels (coded size), 64x64 luma pixels each, the
/// last column and row cut at the picture's edge.
public struct TileMask: Equatable, Sendable {
    public static let tile = 64
    public let picture: Size
    public let columns: Int
    public let rows: Int
    private var bits: [UInt64]
    public private(set) var count = 0

    /// No tile changed.
    public init(picture: Size) {
        self.picture = picture
        columns = max(0, (picture.width + Self.tile - 1) / Self.tile)
        rows = max(0, (picture.height + Self.tile - 1) / Self.tile)
        bits = [UInt64](repeating: 0, count: (columns * rows + 63) / 64)
    }

    public var isEmpty: Bool { count == 0 }
    public var tiles: Int { columns * rows }
    /// The share of the picture's tiles that changed.
    public var fraction: Double { tiles == 0 ? 1 : Double(count) / Double(tiles) }

    public subscript(column: Int, row: Int) -> Bool {
        let i = row * columns + column
        return bits[i >> 6] & (1 << UInt64(i & 63)) != 0
    }

    public mutating func insert(column: Int, row: Int) {
        let i = row * columns + column
        let bit: UInt64 = 1 << UInt64(i & 63)
        guard bits[i >> 6] & bit == 0 else { return }
        bits[i >> 6] |= bit
        count += 1
    }

    /// Adds `other`'s tiles; false (and unchanged) when the two are of different pictures.
    @discardableResult
    public mutating func formUnion(_ other: TileMask) -> Bool {
        guard other.picture == picture else { return false }
        var n = 0
        for i in bits.indices {
            bits[i] |= other.bits[i]
            n += bits[i].nonzeroBitCount
        }
        count = n
        return true
    }

    /// Tile (`column`, `row`) in picture pixels.
    public func rect(column: Int, row: Int) -> PixelRect {
        let x = column * Self.tile, y = row * Self.tile
        return PixelRect(x: x, y: y, width: min(Self.tile, picture.width - x), height: min(Self.tile, picture.height - y))
    }

    /// The changed tiles as runs along each tile row (each run one rectangle), in picture pixels:
    /// what the shm renderer converts (fewer, wider conversions than one per tile).
    public var runs: [PixelRect] {
        var out: [PixelRect] = []
        for r in 0..<rows {
            var c = 0
            while c < columns {
                guard self[c, r] else { c += 1; continue }
                let start = c
                while c < columns && self[c, r] { c += 1 }
                let a = rect(column: start, row: r), b = rect(column: c - 1, row: r)
                out.append(PixelRect(x: a.x, y: a.y, width: b.x + b.width - a.x, height: a.height))
            }
        }
        return out
    }

    /// A run of tiles in pieces of a power of two of whole tiles, the longest first, a cut tile
    /// at the picture's edge kept with the piece before it: what the shm renderer converts, in a
    /// handful of sizes (one libswscale context each) whatever the runs' lengths.
    public static func pieces(_ run: PixelRect) -> [PixelRect] {
        var out: [PixelRect] = []
        var x = run.x, left = run.width
        while left > 0 {
            var w = tile
            while w * 2 <= left { w *= 2 }
            if left - w < tile { w = left }
            out.append(PixelRect(x: x, y: run.y, width: w, height: run.height))
            x += w
            left -= w
        }
        return out
    }

    /// The changed area as at most `limit` rectangles covering every changed tile (what the
    /// compositor is told): the runs, runs of the same columns in consecutive rows merged into
    /// one box, then, while there are too many, the two neighbours (in top-to-bottom order)
    /// whose bounding box adds least merged (neighbours only: a frame's few hundred runs must
    /// not cost a cubic search).
    public func boxes(limit: Int = 8) -> [PixelRect] {
        var boxes: [PixelRect] = []
        for run in runs {
            if let i = boxes.lastIndex(where: { $0.x == run.x && $0.width == run.width && $0.y + $0.height == run.y }) {
                boxes[i].height += run.height
            } else {
                boxes.append(run)
            }
        }
        while boxes.count > max(1, limit) {
            var best = (0, Int.max)
            for i in 0..<(boxes.count - 1) {
                let extra = boxes[i].union(boxes[i + 1]).area - boxes[i].area - boxes[i + 1].area
                if extra < best.1 { best = (i, extra) }
            }
            boxes[best.0] = boxes[best.0].union(boxes[best.0 + 1])
            boxes.remove(at: best.0 + 1)
        }
        return boxes
    }
}

extension PixelRect {
    public var area: Int { max(0, width) * max(0, height) }

    /// The smallest rectangle holding both.
    public func union(_ o: PixelRect) -> PixelRect {
        let x0 = min(x, o.x), y0 = min(y, o.y)
        let x1 = max(x + width, o.x + o.width), y1 = max(y + height, o.y + o.height)
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The overlap (empty when none).
    public func intersection(_ o: PixelRect) -> PixelRect {
        let x0 = max(x, o.x), y0 = max(y, o.y)
        let x1 = min(x + width, o.x + o.width), y1 = min(y + height, o.y + o.height)
        return PixelRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }
}

/// How much of a frame is drawn: all of it, or only these rectangles.
public enum Damage: Equatable, Sendable {
    case full
    /// Picture (or buffer) pixels; never empty (an unchanged frame is not drawn at all).
    case rects([PixelRect])

    /// Past this share of changed tiles a frame is treated as a full one (one conversion and
    /// one damage rectangle are cheaper than many).
    public static let fullAbove = 0.5

    /// The damage for a mask of changed tiles (nil: unknown, so everything).
    public static func of(_ mask: TileMask?, limit: Int = 8) -> Damage {
        guard let mask, mask.fraction <= fullAbove else { return .full }
        let b = mask.boxes(limit: limit)
        return b.isEmpty ? .rects([]) : .rects(b)
    }
}

/// Frame-to-frame comparison, tile by tile.
public enum TileDiff {
    /// One plane: its first byte, its line size, and how many bytes one pixel of it takes on a
    /// row (1 for Y, Cb, Cr; 2 for NV12's interleaved CbCr).
    public struct Plane {
        public var data: UnsafeRawPointer
        public var lineSize: Int
        public var bytesPerSample: Int
        public init(data: UnsafeRawPointer, lineSize: Int, bytesPerSample: Int = 1) {
            self.data = data
            self.lineSize = lineSize
            self.bytesPerSample = bytesPerSample
        }
    }

    /// The tiles of a `size` picture that differ between `old` and `new` (the same layout: plane
    /// 0 luma, the others chroma subsampled by `chromaShift`). Stops and returns nil as soon as
    /// more than `Damage.fullAbove` of the tiles changed: such a frame is drawn whole anyway.
    ///
    /// Row by row through each band of tiles: a whole row compared at once (one long memcmp;
    /// most rows of a still region are equal); in a row that differs, each run of the band's
    /// tiles not yet known to have changed at once, and only a run that differs tile by tile.
    public static func changed(old: [Plane], new: [Plane], size: Size, chromaShiftX: Int, chromaShiftY: Int) -> TileMask? {
        guard old.count == new.count, !old.isEmpty, !size.isEmpty else { return nil }
        var mask = TileMask(picture: size)
        let limit = Int(Double(mask.tiles) * Damage.fullAbove)
        for band in 0..<mask.rows {
            var pending = mask.columns
            for p in old.indices where pending > 0 {
                let a = old[p], b = new[p]
                let sx = p > 0 ? chromaShiftX : 0, sy = p > 0 ? chromaShiftY : 0
                let bps = a.bytesPerSample
                let y0 = (band * TileMask.tile) >> sy
                let y1 = (min(size.height, (band + 1) * TileMask.tile) + (1 << sy) - 1) >> sy
                let rowBytes = ((size.width + (1 << sx) - 1) >> sx) * bps
                let tileBytes = (TileMask.tile >> sx) * bps
                var y = y0
                while y < y1 && pending > 0 {
                    let ra = a.data + y * a.lineSize, rb = b.data + y * b.lineSize
                    y += 1
                    if memcmp(ra, rb, rowBytes) == 0 { continue }
                    // Each run of tiles not yet changed at once (a still region is long and
                    // equal), and only a run that differs tile by tile.
                    var c = 0
                    while c < mask.columns {
                        guard !mask[c, band] else { c += 1; continue }
                        let start = c
                        while c < mask.columns && !mask[c, band] { c += 1 }
                        let off = start * tileBytes, n = min(c * tileBytes, rowBytes) - off
                        if memcmp(ra + off, rb + off, n) == 0 { continue }
                        for t in start..<c {
                            let o = t * tileBytes
                            if !same(ra + o, rb + o, min(tileBytes, rowBytes - o)) {
                                mask.insert(column: t, row: band)
                                pending -= 1
                                if mask.count > limit { return nil }
                            }
                        }
                    }
                }
            }
        }
        return mask
    }

    /// `n` bytes equal, compared inline a word at a time (a tile's row is 32 or 64 bytes: a
    /// call to memcmp for each costs more than the comparison).
    @inline(__always)
    private static func same(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ n: Int) -> Bool {
        var i = 0
        var diff: UInt64 = 0
        while i + 8 <= n {
            diff |= a.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ b.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < n {
            diff |= UInt64(a.load(fromByteOffset: i, as: UInt8.self) ^ b.load(fromByteOffset: i, as: UInt8.self))
            i += 1
        }
        return diff == 0
    }
}

/// When a clip compares its frames: always, until frames keep coming out full (most tiles
/// changed: the comparison found nothing to save); then it stops for a while and tries again,
/// waiting twice as long after each full try, up to `longest` frames (about a second): a
/// full-motion video pays for one comparison a second, and a still part that appears in it is
/// found within that second.
public struct ComparePolicy: Equatable, Sendable {
    /// Full frames in a row before the comparison pauses.
    public static let fullRun = 4
    public static let longest = 32
    private var fullInARow = 0
    private var pause = 0
    private var skipLeft = 0

    public init() {}

    /// Whether to compare the next frame (false: it counts as full).
    public mutating func shouldCompare() -> Bool {
        guard skipLeft > 0 else { return true }
        skipLeft -= 1
        return false
    }

    /// What the comparison found: `full` (most tiles changed) or not.
    public mutating func compared(full: Bool) {
        guard full else {
            fullInARow = 0
            pause = 0
            return
        }
        fullInARow += 1
        guard fullInARow >= Self.fullRun else { return }
        pause = min(Self.longest, max(Self.fullRun, pause * 2))
        skipLeft = pause
    }
}

/// A clip's recent damage: for each of its last frames on screen, the tiles that changed since
/// the frame before it (nil: unknown, e.g. the first frame, a new size). Asked how a buffer or a
/// surface holding an older frame is brought up to date. Serials are the clip's frame serials.
public struct DamageHistory: Sendable {
    /// How many frames back an answer can reach; older is a full frame.
    public static let depth = 8
    private var entries: [(serial: UInt64, previous: UInt64, mask: TileMask?)] = []

    public init() {}

    /// `serial` replaced `previous` on screen; `mask` is what changed between them.
    public mutating func record(serial: UInt64, previous: UInt64, mask: TileMask?) {
        if entries.count == Self.depth { entries.removeFirst() }
        entries.append((serial, previous, mask))
    }

    public mutating func reset() { entries.removeAll() }

    /// What changed from frame `from` to frame `to` (nil: unknown, so everything). `from == to`:
    /// nothing (an empty mask of the last known size), or nil when nothing is known.
    public func changed(from: UInt64, to: UInt64) -> TileMask? {
        guard from != 0, to != 0 else { return nil }
        var mask: TileMask?
        var at = to
        for e in entries.reversed() {
            if at == from { break }
            guard e.serial == at, let m = e.mask else { return nil }
            if mask == nil { mask = m } else if !mask!.formUnion(m) { return nil }
            at = e.previous
        }
        guard at == from else { return nil }
        if mask == nil, let last = entries.last?.mask { return TileMask(picture: last.picture) }
        return mask
    }
}

extension ShmLayout {
    /// Whether changed source rectangles can be converted on their own: one source pixel per
    /// buffer pixel (no filter reaching across a tile edge), one picture (not tiled), and the
    /// crop starting and ending on a chroma sample on both axes (no pixel pair spilling over).
    public func convertsRegions(chromaShiftX: Int, chromaShiftY: Int) -> Bool {
        let mx = (1 << chromaShiftX) - 1, my = (1 << chromaShiftY) - 1
        return !tiled && source.width == destination.width && source.height == destination.height
            && source.x & mx == 0 && source.y & my == 0 && source.width & mx == 0 && source.height & my == 0
    }

    /// Where picture rectangle `r` lands in the buffer: scaled like the source, widened by
    /// `margin` buffer pixels when scaled (the filter's reach), and clipped to the destination.
    /// Nil when nothing of it is on this buffer. Not for tile (every tile copies the first).
    public func bufferRect(of r: PixelRect) -> PixelRect? {
        let s = r.intersection(source)
        guard !s.isEmpty, !source.isEmpty else { return nil }
        let fx = Double(destination.width) / Double(source.width), fy = Double(destination.height) / Double(source.height)
        let scaled = destination.width != source.width || destination.height != source.height
        let margin = scaled ? 2.0 : 0
        let x0 = Double(destination.x) + Double(s.x - source.x) * fx - margin
        let y0 = Double(destination.y) + Double(s.y - source.y) * fy - margin
        let x1 = Double(destination.x) + Double(s.x + s.width - source.x) * fx + margin
        let y1 = Double(destination.y) + Double(s.y + s.height - source.y) * fy + margin
        let out = PixelRect(x: Int(x0.rounded(.down)), y: Int(y0.rounded(.down)),
                            width: Int(x1.rounded(.up)) - Int(x0.rounded(.down)), height: Int(y1.rounded(.up)) - Int(y0.rounded(.down)))
        let clipped = out.intersection(destination)
        return clipped.isEmpty ? nil : clipped
    }
}

extension Placement {
    /// Where rectangle `r` of an upright picture of `picture` pixels lands on the output: through
    /// the placement's source and destination, widened by 2 output pixels (bilinear filtering
    /// reaches one texel further) and clipped to the destination. Nil when none of it is shown.
    public func outputRect(of r: PixelRect, picture: Size) -> PixelRect? {
        guard !picture.isEmpty, source.width > 0, source.height > 0 else { return nil }
        let u0 = max(Double(r.x) / Double(picture.width), source.x)
        let u1 = min(Double(r.x + r.width) / Double(picture.width), source.x + source.width)
        let v0 = max(Double(r.y) / Double(picture.height), source.y)
        let v1 = min(Double(r.y + r.height) / Double(picture.height), source.y + source.height)
        guard u1 > u0, v1 > v0 else { return nil }
        let x0 = destination.x + (u0 - source.x) / source.width * destination.width - 2
        let x1 = destination.x + (u1 - source.x) / source.width * destination.width + 2
        let y0 = destination.y + (v0 - source.y) / source.height * destination.height - 2
        let y1 = destination.y + (v1 - source.y) / source.height * destination.height + 2
        let cx0 = max(x0, destination.x), cy0 = max(y0, destination.y)
        let cx1 = min(x1, destination.x + destination.width), cy1 = min(y1, destination.y + destination.height)
        let ix = Int(cx0.rounded(.down)), iy = Int(cy0.rounded(.down))
        let out = PixelRect(x: ix, y: iy, width: Int(cx1.rounded(.up)) - ix, height: Int(cy1.rounded(.up)) - iy)
        return out.isEmpty ? nil : out
    }
}

/// The share of an output's buffer its last commits told the compositor changed (1: every one
/// whole): `ctl status --json`'s `damaged`, which shows damage tracking at work.
public struct DamageMeter: Sendable {
    public static let window = 32
    private var shares: [Double] = []
    private var next = 0

    public init() {}

    /// One commit: `rects` damaged (nil: all) of a buffer of `size`.
    public mutating func record(_ rects: [PixelRect]?, of size: Size) {
        let area = Double(max(1, size.width * size.height))
        let share = rects.map { min(1, Double($0.reduce(0) { $0 + $1.area }) / area) } ?? 1
        if shares.count < Self.window { shares.append(share) } else { shares[next] = share }
        next = (next + 1) % Self.window
    }

    /// The mean share over the last `window` commits (nil: none yet).
    public var share: Double? { shares.isEmpty ? nil : shares.reduce(0, +) / Double(shares.count) }
}
