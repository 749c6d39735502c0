// Letting the compositor scale: a clip smaller than its output is converted 1:1 into a buffer of
// the output's shape but the clip's pixel size, and wp_viewport's destination tells the compositor
// to scale that buffer onto the surface. Pure.

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

    /// The buffer to convert `video` (display size) into, so that the compositor scales it onto an
    /// output of `output` pixels and the picture lands where `mode` puts it: the picture 1:1 along
    /// the axis that decides its scale, the other axis cut (fill) or padded with bars (fit) as on
    /// the output. Nil when the client converts at the output's size: a picture not upscaled on
    /// both axes, and tile, center and the span modes (pixels 1:1 or one canvas).
    public static func buffer(video: Size, output: Size, mode: ScaleMode) -> Size? {
        guard !video.isEmpty, !output.isEmpty else { return nil }
        let sx = Double(output.width) / Double(video.width), sy = Double(output.height) / Double(video.height)
        guard sx > 1, sy > 1 else { return nil }
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
