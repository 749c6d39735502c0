// Stills for the tools around a wallpaper, pure: `wayloop thumbnail`'s command line, where its
// frame is taken in a loop, and how a picture stored in one orientation is read out as shown.
// The shell decodes, converts (the shm renderer's converter) and encodes the PNG.

/// `wayloop thumbnail VIDEO FILE.png [--size WxH] [--at TIME] [-m MODE] [-c RRGGBB] [--dim F] [--hwdec H]`.
public struct ThumbnailCommand: Equatable, Sendable {
    /// The video the still is taken from.
    public var video: String
    /// The PNG file written.
    public var file: String
    /// The output it is placed on (nil: the video's own size, as shown).
    public var size: Size?
    /// Seconds into the loop (taken modulo its length).
    public var at: Double = 0
    /// `-m`: how the picture is placed on the output (default fill).
    public var mode: ScaleMode = .fill
    /// `-c`: the colour of bars and borders (default black).
    public var color: RGB = RGB(red: 0, green: 0, blue: 0)
    /// `--dim`: how much the picture is darkened, 0 to 1 (default 0).
    public var dim: Double = 0
    /// How the frame is decoded (default software: one frame is not worth a device).
    public var hwdec: HwdecMode = .no
    /// `--hwdec-device`: a DRM render node for VA-API or a CUDA device number for NVDEC; nil:
    /// found automatically.
    public var hwdecDevice: String?

    /// A still of `video` written to `file`, every option at its default.
    public init(video: String, file: String) {
        self.video = video
        self.file = file
    }

    /// The command's synopsis, as its error messages quote it.
    public static let usage = "thumbnail VIDEO FILE.png [--size WxH] [--at TIME] [-m MODE] [-c RRGGBB] [--dim F] [--hwdec H] [--hwdec-device D]"
    /// The largest side a thumbnail may have (a PNG of 16384² is 1 GiB of pixels in memory).
    public static let maxSide = 16384

    /// `args` after `thumbnail`.
    public static func parse(_ args: [String]) throws(UsageError) -> ThumbnailCommand {
        var positional: [String] = []
        var c = ThumbnailCommand(video: "", file: "")
        var args = ArgumentCursor(args)
        while let a = args.current {
            switch a {
            case "--size":
                c.size = try args.value(of: a, expected: "a size WxH from 1x1 to \(maxSide)x\(maxSide)", parseSize)
            case "--at":
                c.at = try args.value(of: a, expected: DurationText.expected + " (or 0)") { $0 == "0" ? 0 : DurationText.parse($0) }
            case _ where ["-m", "--mode", "-c", "--color", "--dim", "--hwdec", "--hwdec-device"].contains(a):
                var e = OutputEntry(selector: .all)
                _ = try args.applySetting(a, to: &e)
                if let m = e.mode { c.mode = m }
                if let col = e.color { c.color = col }
                if let d = e.dim { c.dim = d }
                if let h = e.hwdec { c.hwdec = h }
                if let d = e.hwdecDevice { c.hwdecDevice = d }
            default:
                if a.hasPrefix("-") && a.count > 1 { throw .unknownOption(a) }
                guard positional.count < 2 else { throw .thumbnail("takes one VIDEO and one FILE.png, not also '\(a)'") }
                positional.append(a)
            }
            args.advance()
        }
        guard positional.count == 2, !positional[0].isEmpty, !positional[1].isEmpty else {
            throw .thumbnail("needs VIDEO and FILE.png (\(usage))")
        }
        if c.mode == .span || c.mode == .spanFit { throw .thumbnail("-m \(c.mode.rawValue) needs outputs to span: use one of fill, fit, stretch, center, tile") }
        c.video = positional[0]
        c.file = positional[1]
        return c
    }

    /// `1920x1080` → a size (each side 1 to maxSide).
    public static func parseSize(_ s: String) -> Size? {
        let parts = s.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let w = Int(parts[0]), let h = Int(parts[1]), (1...maxSide).contains(w), (1...maxSide).contains(h) else { return nil }
        return Size(width: w, height: h)
    }

    /// Where in a loop of `length` seconds (nil or 0: unknown, a still) the frame at `at` is.
    public static func time(_ at: Double, inLoopOf length: Double?) -> Double {
        guard let length, length > 0, at.isFinite else { return 0 }
        return at.truncatingRemainder(dividingBy: length)
    }
}

extension Orientation {
    /// The stored pixel shown at (`x`, `y`) of the picture as displayed (mirrored first, then
    /// turned clockwise): what the compositor's buffer transform does, done by hand for a PNG.
    public func storedPixel(x: Int, y: Int, stored: Size) -> (x: Int, y: Int) {
        let w = stored.width, h = stored.height
        var (sx, sy): (Int, Int)
        switch rotation {
        case 90: (sx, sy) = (y, h - 1 - x)
        case 180: (sx, sy) = (w - 1 - x, h - 1 - y)
        case 270: (sx, sy) = (w - 1 - y, x)
        default: (sx, sy) = (x, y)
        }
        if mirrored { sx = w - 1 - sx }
        return (sx, sy)
    }
}
