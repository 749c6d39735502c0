// Where the shm renderer's libswscale conversion reads and writes: the Placement's
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
