// Where a video lands on an output: one pure function shared by every renderer path
// (after mpv's video/out/aspect.c). The renderer draws `destination` (in output pixels, origin
// top-left) and samples the texture over `source` (normalised texture coordinates, origin top-left).

/// A size in pixels: a video's, an output's, a buffer's (`1920x1080` as text).
public struct Size: Equatable, Sendable, CustomStringConvertible {
    /// Pixels across and down.
    public var width: Int, height: Int
    /// The size `width`x`height`.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
    /// No pixels: a side is 0 or less.
    public var isEmpty: Bool { width <= 0 || height <= 0 }
    public var description: String { "\(width)x\(height)" }
}

public struct Rect: Equatable, Sendable, CustomStringConvertible {
    public var x: Double, y: Double, width: Double, height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
    public static let unit = Rect(x: 0, y: 0, width: 1, height: 1)
    public var description: String { "(\(x), \(y), \(width)x\(height))" }
}

/// An output's place in a span (`-m span`): the canvas all its outputs form and its own
/// rectangle on it, in layout (logical) coordinates.
public struct SpanView: Equatable, Sendable {
    public var canvas: Rect
    public var output: Rect
    public init(canvas: Rect, output: Rect) {
        self.canvas = canvas
        self.output = output
    }

    /// The same view in a picture's stored orientation (the shm renderer keeps buffers stored
    /// and lets the compositor turn them): the canvas turned with its sides swapped for a
    /// quarter turn, the output's rectangle mapped corner by corner (`Orientation.textureTransform`).
    public func stored(_ o: Orientation) -> SpanView {
        guard o != .upright else { return self }
        let turned = o.rotation % 180 != 0
        let cw = turned ? canvas.height : canvas.width, ch = turned ? canvas.width : canvas.height
        let u0 = (output.x - canvas.x) / canvas.width, v0 = (output.y - canvas.y) / canvas.height
        let u1 = u0 + output.width / canvas.width, v1 = v0 + output.height / canvas.height
        let a = o.textureCoordinate(u: u0, v: v0), b = o.textureCoordinate(u: u1, v: v1)
        let s0 = min(a.s, b.s), s1 = max(a.s, b.s), t0 = min(a.t, b.t), t1 = max(a.t, b.t)
        return SpanView(canvas: Rect(x: 0, y: 0, width: cw, height: ch),
                        output: Rect(x: s0 * cw, y: t0 * ch, width: (s1 - s0) * cw, height: (t1 - t0) * ch))
    }
}

public struct Placement: Equatable, Sendable {
    /// The part of the output covered by the picture, in output pixels.
    public var destination: Rect
    /// The part of the video shown there, in normalised texture coordinates (0...1).
    public var source: Rect
    /// True when `destination` does not cover the whole output (the rest is the background colour).
    public var hasBorders: Bool

    public init(destination: Rect, source: Rect, hasBorders: Bool) {
        self.destination = destination
        self.source = source
        self.hasBorders = hasBorders
    }

    /// Places a video of `video` pixels (display size, after rotation) on an output of `output`
    /// pixels (buffer size). Empty sizes give an empty destination. The span modes place it on
    /// `span`'s canvas and give this output its part (without one: fill or fit, alone).
    public static func compute(video: Size, output: Size, mode: ScaleMode, span: SpanView? = nil) -> Placement {
        if mode.isSpan, let span {
            return Span.placements(video: video, outputs: [span.output], buffers: [output], fit: mode == .spanFit,
                                   canvas: span.canvas)[0]
        }
        let mode = mode.single
        let ow = Double(output.width), oh = Double(output.height)
        let full = Rect(x: 0, y: 0, width: ow, height: oh)
        guard !video.isEmpty, !output.isEmpty else {
            return Placement(destination: Rect(x: 0, y: 0, width: 0, height: 0), source: .unit, hasBorders: true)
        }
        let vw = Double(video.width), vh = Double(video.height)
        switch mode {
        case .stretch:
            return Placement(destination: full, source: .unit, hasBorders: false)
        case .fill:
            // Scale so the video covers the output; crop the long axis symmetrically.
            let scale = max(ow / vw, oh / vh)
            let sw = min(1, ow / (vw * scale)), sh = min(1, oh / (vh * scale))
            let source = Rect(x: (1 - sw) / 2, y: (1 - sh) / 2, width: sw, height: sh)
            return Placement(destination: full, source: source, hasBorders: false)
        case .fit:
            let scale = min(ow / vw, oh / vh)
            let dw = vw * scale, dh = vh * scale
            let dest = Rect(x: (ow - dw) / 2, y: (oh - dh) / 2, width: dw, height: dh)
            return Placement(destination: dest, source: .unit, hasBorders: dw < ow || dh < oh)
        case .tile:
            // The source rectangle runs past 1: the renderer repeats the texture.
            return Placement(destination: full, source: Rect(x: 0, y: 0, width: ow / vw, height: oh / vh),
                             hasBorders: false)
        case .span, .spanFit:
            preconditionFailure("span modes are placed above")
        case .center:
            // 1:1 pixels: each axis is either cropped (video larger) or bordered (video smaller).
            let (dx, dw, sx, sw) = centerAxis(video: vw, output: ow)
            let (dy, dh, sy, sh) = centerAxis(video: vh, output: oh)
            return Placement(destination: Rect(x: dx, y: dy, width: dw, height: dh),
                             source: Rect(x: sx, y: sy, width: sw, height: sh),
                             hasBorders: dw < ow || dh < oh)
        }
    }

    private static func centerAxis(video: Double, output: Double) -> (Double, Double, Double, Double) {
        // Offsets are whole pixels so that texels land exactly on pixels (no blur).
        if video >= output {
            return (0, output, ((video - output) / 2).rounded(.down) / video, output / video)
        }
        return (((output - video) / 2).rounded(.down), video, 0, 1)
    }
}

/// The buffer a surface needs: logical size × integer scale (wl_output.scale, buffer_scale), or,
/// where the compositor offers wp_fractional_scale_v1 (with wp_viewporter), the exact fractional
/// size with a viewport mapping it back to the logical size.
public struct SurfaceGeometry: Equatable, Sendable {
    public var logical: Size
    public var integerScale: Int
    /// The preferred fractional scale in 120ths (wp_fractional_scale_v1), when known.
    public var scale120: Int?

    public init(logical: Size, integerScale: Int = 1, scale120: Int? = nil) {
        self.logical = logical
        self.integerScale = max(1, integerScale)
        self.scale120 = scale120
    }

    /// Physical pixels to render. Fractional: round(logical × scale), half away from zero, as
    /// fractional-scale-v1 describes.
    public var bufferSize: Size {
        if let f = scale120, f > 0 {
            func r(_ v: Int) -> Int { (v * f + 60) / 120 }
            return Size(width: r(logical.width), height: r(logical.height))
        }
        return Size(width: logical.width * integerScale, height: logical.height * integerScale)
    }

    /// wl_surface.set_buffer_scale: 1 with a viewport, else the integer scale.
    public var bufferScale: Int { usesViewport ? 1 : integerScale }

    /// A wp_viewport destination (the logical size) is needed.
    public var usesViewport: Bool { (scale120 ?? 0) > 0 }

    /// The scale the buffers are made at: the fractional one in use, else the integer one.
    public var scale: Double { usesViewport ? Double(scale120!) / 120 : Double(integerScale) }

    /// `scale` as a person reads it: "1.5", "1.25", "2" (at most three decimals, none trailing).
    public var scaleText: String {
        let thousandths = usesViewport ? (scale120! * 1000 + 60) / 120 : integerScale * 1000
        var text = String(thousandths / 1000)
        var frac = thousandths % 1000
        guard frac != 0 else { return text }
        var digits = 3
        while frac % 10 == 0 {
            frac /= 10
            digits -= 1
        }
        let f = String(frac)
        text += "." + String(repeating: "0", count: digits - f.count) + f
        return text
    }
}

/// Which fractional scale a surface draws at (wp_fractional_scale_v1), in 120ths. A compositor
/// may send a preferred scale before the surface is on its output: KWin 5.27 sends 120 before
/// the first configure and the output's 180 only once a buffer is shown, so the first frame
/// would be drawn at scale 1 and then again at 1.5. A layer surface lives on one output, whose
/// own scale (its mode over its xdg-output logical size) is the scale it will prefer: that is
/// drawn at until a preferred scale comes after a buffer was shown, and that one decides.
public struct FractionalScaleChoice: Equatable, Sendable {
    /// The output's own scale, when its logical size is known.
    public var output: Int?
    /// The last preferred scale before the surface showed a buffer, and the last one after.
    public var early: Int?
    public var late: Int?

    public init(output: Int? = nil, early: Int? = nil, late: Int? = nil) {
        self.output = output
        self.early = early
        self.late = late
    }

    /// The scale to draw at (nil: none known, integer scaling).
    public var scale120: Int? { late ?? output ?? early }

    /// A preferred_scale event, before or after the surface showed a buffer.
    public mutating func preferred(_ scale120: Int, shown: Bool) {
        guard scale120 > 0 else { return }
        if shown { late = scale120 } else { early = scale120 }
    }

    /// An output's scale in 120ths from its mode (as shown: turned a quarter, swapped) and its
    /// logical size; nil when either is unknown or they disagree on the shape by more than a
    /// pixel's rounding (a logical size the compositor rounded is still one scale).
    public static func outputScale120(physical: Size, logical: Size?) -> Int? {
        guard let logical, logical.width > 0, logical.height > 0, physical.width > 0, physical.height > 0 else { return nil }
        let sx = (physical.width * 120 + logical.width / 2) / logical.width
        let sy = (physical.height * 120 + logical.height / 2) / logical.height
        guard abs(sx - sy) <= 1 else { return nil }
        return sx
    }
}
