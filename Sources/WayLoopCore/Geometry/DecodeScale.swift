/// The size a video is decoded at (frames follow the screen, not the file): the decoder scales
/// each frame down to what the largest output showing it samples, so that a 2160p clip on
/// 1080p outputs costs the main thread a 1080p conversion (or upload) and its memory a 1080p
/// frame. Pure.
public enum DecodeScale {
    /// Scales above this are not worth a second conversion pass: decoded as they are.
    public static let threshold = 0.75

    /// The factor (≤ 1) for a video of `video` coded pixels, shown turned a quarter (`turned`)
    /// or not, on outputs of these buffer sizes and modes. 1 when no output says.
    public static func factor(video: Size, turned: Bool, outputs: [(size: Size, mode: ScaleMode)]) -> Double {
        let need = need(video: video, turned: turned, outputs: outputs)
        return need < threshold ? need : 1
    }

    /// The share (≤ 1) of the video's size that the outputs sample: the largest any of them
    /// needs by its mode (one video pixel per output pixel for center and tile). 1 when no
    /// output says.
    public static func need(video: Size, turned: Bool, outputs: [(size: Size, mode: ScaleMode)]) -> Double {
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
        return need > 0 ? min(need, 1) : 1
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
