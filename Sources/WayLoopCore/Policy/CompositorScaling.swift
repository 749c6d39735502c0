// Letting the compositor scale: a clip smaller than its output is converted 1:1 into a buffer of
// the output's shape but the clip's pixel size, and wp_viewport's destination tells the compositor
// to scale that buffer onto the surface. Pure.

/// Who scales a clip smaller than its output on the shm renderer, and the buffer it is converted
/// into when the compositor scales it through wp_viewport.
public enum CompositorScaling {
    /// `--scaling`: who scales a clip smaller than its output on the shm renderer.
    public enum Choice: String, Sendable, CaseIterable {
        /// The compositor where it composites with a GPU (it offers linux-dmabuf: a filtered
        /// texture sample, free), the client elsewhere (a software compositor: wlroots 0.15's
        /// pixman renderer scales nearest-neighbour, measured 31.5 dB against a bilinear scale
        /// where libswscale's is 51.9).
        case auto
        /// libswscale, into a buffer of the output's size (bilinear).
        case client
        /// The compositor, through wp_viewport: the clip converted 1:1 (cheapest on any
        /// compositor; the compositor's own filter).
        case compositor

        /// What a `--scaling` value must be, as error messages say it.
        public static let expected = "one of auto, client, compositor"

        /// Whether the compositor scales, given whether it offers linux-dmabuf.
        public func compositorScales(dmabuf: Bool) -> Bool {
            switch self {
            case .auto: return dmabuf
            case .client: return false
            case .compositor: return true
            }
        }
    }

    /// A span drawn from one buffer: the canvas's picture converted once, 1:1, and each output's
    /// surface showing its part of it (wp_viewport's source rectangle), scaled by the compositor.
    package struct Canvas: Equatable, Sendable {
        /// The shared buffer's size in pixels (display orientation).
        package var buffer: Size
        /// How the picture lies in `buffer`: fill for span, fit for span-fit.
        package var mode: ScaleMode
        /// This output's part of the buffer, in buffer pixels (within it).
        package var source: Rect
    }

    /// The canvas buffer for an output of `output` pixels showing `span`'s part of a span (`mode`
    /// span or span-fit) of `video` (display size): the canvas as `buffer` would scale it (fill
    /// or fit on the canvas's shape). Nil when the client converts (not upscaled).
    package static func canvas(video: Size, span: SpanView, output: Size, mode: ScaleMode) -> Canvas? {
        guard mode.isSpan, span.canvas.width > 0, span.canvas.height > 0, span.output.width > 0, span.output.height > 0,
              !output.isEmpty else { return nil }
        // The canvas in this output's pixels.
        let kx = Double(output.width) / span.output.width, ky = Double(output.height) / span.output.height
        let pixels = Size(width: Int((span.canvas.width * kx).rounded()), height: Int((span.canvas.height * ky).rounded()))
        let single: ScaleMode = mode == .spanFit ? .fit : .fill
        guard let b = buffer(video: video, output: pixels, mode: single) else { return nil }
        let fx = Double(b.width) / span.canvas.width, fy = Double(b.height) / span.canvas.height
        let x = max(0, (span.output.x - span.canvas.x) * fx), y = max(0, (span.output.y - span.canvas.y) * fy)
        let source = Rect(x: x, y: y, width: min(Double(b.width) - x, span.output.width * fx),
                          height: min(Double(b.height) - y, span.output.height * fy))
        guard source.width > 0, source.height > 0 else { return nil }
        return Canvas(buffer: b, mode: single, source: source)
    }

    /// The buffer to convert `video` (display size) into, so that the compositor scales it onto an
    /// output of `output` pixels and the picture lands where `mode` puts it: the picture 1:1 along
    /// the axis that decides its scale, the other axis cut (fill) or padded with bars (fit) as on
    /// the output. Nil when the client converts at the output's size: a picture not upscaled
    /// (fill: by its larger factor, fit: its smaller, stretch: on both axes), and tile, center
    /// and the span modes (pixels 1:1 or one canvas).
    package static func buffer(video: Size, output: Size, mode: ScaleMode) -> Size? {
        guard !video.isEmpty, !output.isEmpty else { return nil }
        let sx = Double(output.width) / Double(video.width), sy = Double(output.height) / Double(video.height)
        // Upscaled: by the larger factor for fill, the smaller for fit, both for stretch.
        switch mode {
        case .fill: guard max(sx, sy) > 1 else { return nil }
        case .fit: guard min(sx, sy) > 1 else { return nil }
        default: guard sx > 1, sy > 1 else { return nil }
        }
        func byWidth() -> Size {
            Size(width: video.width, height: max(1, Int((Double(output.height) * Double(video.width) / Double(output.width)).rounded())))
        }
        func byHeight() -> Size {
            Size(width: max(1, Int((Double(output.width) * Double(video.height) / Double(output.height)).rounded())), height: video.height)
        }
        switch mode {
        case .fill: return sx >= sy ? byWidth() : byHeight()
        case .fit: return sx <= sy ? byWidth() : byHeight()
        case .stretch: return video
        default: return nil
        }
    }
}
