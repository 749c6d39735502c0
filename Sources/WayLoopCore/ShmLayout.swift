// Where the shm renderer's libswscale conversion reads and writes (issue 11): the Placement's
// normalised rectangles turned into whole pixels. Fill crops by moving the plane pointers (the
// luma crop is exact; subsampled chroma planes start at the sample at or before it, at most
// half a chroma sample off, as GL's bilinear chroma is); fit and center write into a sub-rectangle
// of the buffer, whose bars are painted once; tile converts one tile and copies it. Pure.

public struct PixelRect: Equatable, Sendable, CustomStringConvertible {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
    public var isEmpty: Bool { width <= 0 || height <= 0 }
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}

public struct ShmLayout: Equatable, Sendable {
    /// The part of the decoded picture converted (coded pixels).
    public var source: PixelRect
    /// Where it lands in the buffer (buffer pixels); for tile, the first tile (top-left).
    public var destination: PixelRect
    /// The rest of the buffer is the bar colour.
    public var hasBorders: Bool
    /// The destination tile is repeated over the whole buffer.
    public var tiled: Bool

    public init(source: PixelRect, destination: PixelRect, hasBorders: Bool, tiled: Bool) {
        self.source = source
        self.destination = destination
        self.hasBorders = hasBorders
        self.tiled = tiled
    }

    /// `video` is the coded size in the buffer's orientation (the compositor turns the buffer by
    /// wl_surface.set_buffer_transform) and `buffer` the buffer's size.
    public static func compute(video: Size, buffer: Size, mode: ScaleMode, span: SpanView? = nil) -> ShmLayout {
        guard !video.isEmpty, !buffer.isEmpty else {
            return ShmLayout(source: PixelRect(x: 0, y: 0, width: 0, height: 0),
                             destination: PixelRect(x: 0, y: 0, width: 0, height: 0), hasBorders: true, tiled: false)
        }
        if mode == .tile {
            // One tile at the top-left, clipped to the buffer; copies fill the rest.
            let w = min(video.width, buffer.width), h = min(video.height, buffer.height)
            return ShmLayout(source: PixelRect(x: 0, y: 0, width: w, height: h),
                             destination: PixelRect(x: 0, y: 0, width: w, height: h), hasBorders: false, tiled: true)
        }
        let p = Placement.compute(video: video, output: buffer, mode: mode, span: span)
        // Nothing of the video lands here (span-fit: an output beside the fitted video): all bars.
        if p.destination.width <= 0 || p.destination.height <= 0 {
            return ShmLayout(source: PixelRect(x: 0, y: 0, width: 0, height: 0),
                             destination: PixelRect(x: 0, y: 0, width: 0, height: 0), hasBorders: true, tiled: false)
        }
        func axis(_ start: Double, _ length: Double, of total: Int) -> (Int, Int) {
            let s = min(total - 1, max(0, Int((start * Double(total)).rounded())))
            let l = max(1, min(total - s, Int((length * Double(total)).rounded())))
            return (s, l)
        }
        let (sx, sw) = axis(p.source.x, p.source.width, of: video.width)
        let (sy, sh) = axis(p.source.y, p.source.height, of: video.height)
        // Destination edges rounded (not origin + rounded size), so that bars are symmetric.
        let dx = Int(p.destination.x.rounded()), dy = Int(p.destination.y.rounded())
        let dx2 = min(buffer.width, Int((p.destination.x + p.destination.width).rounded()))
        let dy2 = min(buffer.height, Int((p.destination.y + p.destination.height).rounded()))
        let dest = PixelRect(x: dx, y: dy, width: max(1, dx2 - dx), height: max(1, dy2 - dy))
        let borders = dest.x > 0 || dest.y > 0 || dest.width < buffer.width || dest.height < buffer.height
        return ShmLayout(source: PixelRect(x: sx, y: sy, width: sw, height: sh), destination: dest,
                         hasBorders: borders, tiled: false)
    }
}

/// wl_output.transform values for a buffer stored in the video's coded orientation: the
/// compositor turns it for display. `Orientation` turns the stored picture clockwise (after a
/// left-right mirror); wl_output transforms name the counter-clockwise turn of the buffer.
public enum BufferTransform {
    public static func forOrientation(_ o: Orientation) -> Int32 {
        // WL_OUTPUT_TRANSFORM_NORMAL 0, _90 1, _180 2, _270 3, _FLIPPED 4, _FLIPPED_90 5, ...
        let quarter = Int32(o.rotation / 90)
        return o.mirrored ? 4 + quarter : quarter
    }
}

/// The size a video is decoded at (issue 11, and issue 12's "frames follow the screen, not the
/// file"): the decoder scales each frame down to what the largest output showing it samples, so
/// that a 2160p clip on 1080p outputs costs the main thread a 1080p conversion (or upload) and
/// its memory a 1080p frame. Pure.
public enum DecodeScale {
    /// Scales above this are not worth a second conversion pass: decoded as they are.
    public static let threshold = 0.75

    /// The factor (≤ 1) for a video of `video` coded pixels, shown turned a quarter (`turned`)
    /// or not, on outputs of these buffer sizes and modes. 1 when no output says.
    public static func factor(video: Size, turned: Bool, outputs: [(size: Size, mode: ScaleMode)]) -> Double {
        let display = turned ? Size(width: video.height, height: video.width) : video
        guard !display.isEmpty, !outputs.isEmpty else { return 1 }
        var need = 0.0
        for (o, mode) in outputs where !o.isEmpty {
            let sx = Double(o.width) / Double(display.width), sy = Double(o.height) / Double(display.height)
            switch mode.single {
            case .fill, .stretch: need = max(need, sx, sy)
            case .fit: need = max(need, min(sx, sy))
            default: need = 1
            }
        }
        guard need > 0, need < threshold else { return 1 }
        return need
    }

    /// libavcodec's `lowres` for a decoder that has it (MJPEG, MPEG-1/2/4 part 2: the IDCT
    /// itself gives 1/2, 1/4 or 1/8 of the picture, so a full-size frame never exists): the
    /// largest n ≤ `maxLowres` whose 1/2ⁿ still holds every pixel the outputs need (`scale`).
    public static func lowres(scale: Double, maxLowres: Int) -> Int {
        guard scale > 0, scale < 1 else { return 0 }
        var n = 0
        while n < maxLowres && 1.0 / Double(1 << (n + 1)) >= scale { n += 1 }
        return n
    }

    /// What is left to scale a frame decoded at `lowres` by, to reach `scale` of the coded size
    /// (1: nothing worth a second pass).
    public static func remaining(scale: Double, lowres: Int) -> Double {
        let r = min(1, scale * Double(1 << lowres))
        return r >= threshold ? 1 : r
    }
}
