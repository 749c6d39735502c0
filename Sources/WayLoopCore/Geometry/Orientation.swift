// How a stored picture is turned for display: the seeds honour AVAssetTrack.preferredTransform,
// WayLoop honours the stream's display matrix (rotation in quarter turns, and a mirror).

/// How a stored picture is turned for display: clockwise quarter turns, and a mirror.
public struct Orientation: Equatable, Sendable, CustomStringConvertible {
    /// Clockwise quarter turns applied for display: 0, 90, 180 or 270 degrees.
    public var rotation: Int
    /// Mirrored left-right before rotating.
    public var mirrored: Bool

    /// Shown as stored: no turn, no mirror.
    public static let upright = Orientation(rotation: 0, mirrored: false)

    /// `rotation` clockwise degrees (a multiple of 90), brought into 0..<360; `mirrored` left-right
    /// before turning.
    public init(rotation: Int, mirrored: Bool = false) {
        self.rotation = ((rotation % 360) + 360) % 360
        self.mirrored = mirrored
    }

    /// From FFmpeg's `av_display_rotation_get` angle (counter-clockwise degrees, of the matrix
    /// with any mirror removed), rounded to the nearest quarter turn as ffmpeg's autorotate does.
    public init(displayMatrixDegrees degrees: Double, mirrored: Bool) {
        guard degrees.isFinite else {
            self.init(rotation: 0, mirrored: mirrored)
            return
        }
        let quarter = Int((-degrees / 90).rounded()) * 90
        self.init(rotation: quarter, mirrored: mirrored)
    }

    public var description: String { "\(rotation)°\(mirrored ? " mirrored" : "")" }

    /// The size the picture has on screen.
    public func displaySize(_ coded: Size) -> Size {
        rotation % 180 == 0 ? coded : Size(width: coded.height, height: coded.width)
    }

    /// The affine map from display texture coordinates (u, v), origin top-left of the upright
    /// picture, to stored texture coordinates (s, t), as a column-major 3×3 matrix for GLSL:
    /// (s, t, 1) = M · (u, v, 1).
    public var textureTransform: [Float] {
        // s = a·u + b·v + c ; t = d·u + e·v + f
        var (a, b, c, d, e, f): (Float, Float, Float, Float, Float, Float)
        switch rotation {
        case 90: (a, b, c, d, e, f) = (0, 1, 0, -1, 0, 1)     // display (u,v) ← stored (v, 1-u)
        case 180: (a, b, c, d, e, f) = (-1, 0, 1, 0, -1, 1)
        case 270: (a, b, c, d, e, f) = (0, -1, 1, 1, 0, 0)
        default: (a, b, c, d, e, f) = (1, 0, 0, 0, 1, 0)
        }
        if mirrored { (a, b, c) = (-a, -b, 1 - c) }
        return [a, d, 0, b, e, 0, c, f, 1]
    }

    /// Applies `textureTransform` on the CPU (tests).
    public func textureCoordinate(u: Double, v: Double) -> (s: Double, t: Double) {
        let m = textureTransform.map(Double.init)
        return (m[0] * u + m[3] * v + m[6], m[1] * u + m[4] * v + m[7])
    }
}
