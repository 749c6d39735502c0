// One video across several outputs (`-m span`), pure: the outputs' logical rectangles (compositor
// layout coordinates, mixed scales already in logical units) form one canvas, the video is placed
// on the canvas once, and each output samples its own part. Every edge in video coordinates comes
// from one function of the canvas coordinate, so neighbours meet without a seam or an overlap.

/// Placement for `-m span`: one canvas from every output's logical rectangle, one video on it.
public enum Span {
    /// The bounding box of `outputs` (logical rects), nil when empty. Rects without area (zero or
    /// negative size, not finite: an output not laid out yet) are left out; nil when no rect has area.
    public static func canvas(_ outputs: [Rect]) -> Rect? {
        var box: (x0: Double, y0: Double, x1: Double, y1: Double)?
        for o in outputs where hasArea(o) {
            let (x1, y1) = (o.x + o.width, o.y + o.height)
            if let b = box {
                box = (min(b.x0, o.x), min(b.y0, o.y), max(b.x1, x1), max(b.y1, y1))
            } else {
                box = (o.x, o.y, x1, y1)
            }
        }
        return box.map { Rect(x: $0.x0, y: $0.y0, width: $0.x1 - $0.x0, height: $0.y1 - $0.y0) }
    }

    /// For each output rect (logical, in the same order as given), the part of the video it shows, in normalised
    /// video coordinates (0...1, origin top-left) — i.e. a `Placement` for that output with destination = the whole
    /// output buffer `buffers[i]` (pixels) and source = that part. The video (display size `video`, pixels) is
    /// aspect-FILLED onto the canvas (`fit: false`: cover the canvas, crop the long axis symmetrically) or FITTED
    /// (`fit: true`: whole video inside the canvas, centred; an output — or part of one — outside the video shows borders:
    /// destination is then the part of the output's buffer covered by the video, source the matching part, hasBorders true;
    /// an output entirely outside the video gets an empty destination (width/height 0), source `.unit`, and hasBorders true).
    /// Gaps between outputs are part of the canvas (the video continues "behind" the gap, as on a physical wall).
    /// Neighbours share an edge exactly: output A's source right edge (`x + width`) == output B's source left edge,
    /// bit for bit (each edge is computed from its canvas coordinate by one function, `videoEdge`, whose grid makes
    /// `x + width` give the right edge back exactly).
    /// An empty video, no outputs, an output without area or without a non-empty `buffers[i]` (missing entries
    /// included) give that output the empty placement, as `Placement.compute` does for empty sizes.
    /// `canvas`: the canvas when it is known already (one output of a span placed alone: the
    /// app keeps each output's view); nil: the bounding box of `outputs`.
    public static func placements(video: Size, outputs: [Rect], buffers: [Size], fit: Bool, canvas given: Rect? = nil) -> [Placement] {
        let empty = Placement(destination: Rect(x: 0, y: 0, width: 0, height: 0), source: .unit, hasBorders: true)
        guard !video.isEmpty, let c = given.flatMap({ hasArea($0) ? $0 : nil }) ?? canvas(outputs) else { return outputs.map { _ in empty } }
        let shown = videoRect(video: video, canvas: c, fit: fit)
        func u(_ x: Double) -> Double { videoEdge((x - shown.x) / shown.width) }
        func v(_ y: Double) -> Double { videoEdge((y - shown.y) / shown.height) }

        return outputs.enumerated().map { i, o in
            guard hasArea(o), i < buffers.count, !buffers[i].isEmpty else { return empty }
            let bw = Double(buffers[i].width), bh = Double(buffers[i].height)
            let right = o.x + o.width, bottom = o.y + o.height
            if !fit {
                // The video covers the whole canvas: the output shows its own rectangle of it.
                let (sx, sw) = span(u(o.x), u(right))
                let (sy, sh) = span(v(o.y), v(bottom))
                return Placement(destination: Rect(x: 0, y: 0, width: bw, height: bh),
                                 source: Rect(x: sx, y: sy, width: sw, height: sh), hasBorders: false)
            }
            // The part of the output the video covers, in canvas coordinates.
            let l = max(o.x, shown.x), r = min(right, shown.x + shown.width)
            let t = max(o.y, shown.y), b = min(bottom, shown.y + shown.height)
            guard l < r, t < b else { return empty }
            // Canvas → buffer pixels of this output; the output's own edges map exactly to 0 and the buffer size.
            func px(_ x: Double) -> Double { x == o.x ? 0 : x == right ? bw : (x - o.x) / o.width * bw }
            func py(_ y: Double) -> Double { y == o.y ? 0 : y == bottom ? bh : (y - o.y) / o.height * bh }
            let (dx, dw) = interval(px(l), px(r)), (dy, dh) = interval(py(t), py(b))
            let (sx, sw) = span(u(l), u(r)), (sy, sh) = span(v(t), v(b))
            return Placement(destination: Rect(x: dx, y: dy, width: dw, height: dh),
                             source: Rect(x: sx, y: sy, width: sw, height: sh),
                             hasBorders: l > o.x || r < right || t > o.y || b < bottom)
        }
    }

    /// Where the video lies on the canvas (canvas coordinates): scaled to cover it (fill) or to fit
    /// inside it, centred. The axis that decides the scale matches the canvas exactly (no rounding
    /// sliver of border or crop there). An empty video lies nowhere: a zero rect at the canvas origin.
    public static func videoRect(video: Size, canvas c: Rect, fit: Bool) -> Rect {
        guard !video.isEmpty else { return Rect(x: c.x, y: c.y, width: 0, height: 0) }
        let vw = Double(video.width), vh = Double(video.height)
        let rx = c.width / vw, ry = c.height / vh
        // Fill: the larger ratio decides; fit: the smaller one.
        let widthDecides = fit ? rx <= ry : rx >= ry
        if widthDecides {
            let h = vh * rx
            return Rect(x: c.x, y: rx == ry ? c.y : c.y + (c.height - h) / 2, width: c.width, height: rx == ry ? c.height : h)
        }
        let w = vw * ry
        return Rect(x: c.x + (c.width - w) / 2, y: c.y, width: w, height: c.height)
    }

    /// Video edges are snapped to multiples of 2⁻⁴⁰ (a millionth of a millionth; a texel of an 8K
    /// video is 2⁻¹³): on that grid `b - a` is exact and `a + (b - a)` gives `b` back bit for bit,
    /// which no nudging of the width alone can guarantee for arbitrary Doubles (ties to even).
    static let grid = 1_099_511_627_776.0

    /// A normalised video coordinate, clamped to 0...1 and snapped to the grid (exact operations:
    /// scaling by a power of two and rounding).
    public static func videoEdge(_ t: Double) -> Double {
        guard t.isFinite else { return t > 0 ? 1 : 0 }
        return (min(1, max(0, t)) * grid).rounded() / grid
    }

    /// `(a, b - a)` for two grid values: exact, so `x + width` is `b`.
    static func span(_ a: Double, _ b: Double) -> (Double, Double) { (a, b - a) }

    /// `(a, length)` with `a + length == b` where some length gives that (buffer pixels: best effort,
    /// an output's own edges are exact anyway).
    static func interval(_ a: Double, _ b: Double) -> (Double, Double) {
        var w = b - a
        var tries = 0
        while a + w != b, tries < 8 {
            w = a + w < b ? w.nextUp : w.nextDown
            tries += 1
        }
        return (a, w)
    }

    static func hasArea(_ r: Rect) -> Bool {
        r.x.isFinite && r.y.isFinite && r.width.isFinite && r.height.isFinite && r.width > 0 && r.height > 0
    }
}

extension Span {
    /// `-m span`: the outputs that show the same video with the same span mode form one canvas
    /// (the bounding box of their layout rectangles); each gets its part. `outputs`: each
    /// output's key, target and logical rectangle; the result holds a view for each output in
    /// a span (none for the others).
    public static func assign<Key: Hashable>(_ outputs: [(key: Key, target: OutputSettings?, rect: Rect)]) -> [Key: SpanView] {
        var groups: [String: [(key: Key, rect: Rect)]] = [:]
        for o in outputs {
            guard let t = o.target, t.mode.isSpan else { continue }
            groups[t.mode.rawValue + "\u{0}" + t.video, default: []].append((o.key, o.rect))
        }
        var views: [Key: SpanView] = [:]
        for group in groups.values {
            guard let canvas = canvas(group.map(\.rect)) else { continue }
            for o in group { views[o.key] = SpanView(canvas: canvas, output: o.rect) }
        }
        return views
    }

    /// The pixels an output needs of a video it shows: its buffer, or for a span the whole
    /// canvas at the output's density (rounded up).
    public static func neededSize(buffer: Size, span: SpanView?) -> Size {
        guard let span, span.output.width > 0, span.output.height > 0 else { return buffer }
        return Size(width: Int((Double(buffer.width) * span.canvas.width / span.output.width).rounded(.up)),
                    height: Int((Double(buffer.height) * span.canvas.height / span.output.height).rounded(.up)))
    }
}
