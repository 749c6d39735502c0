// Y'CbCr → R'G'B' conversion coefficients for the shader, from the matrix, range and bit depth
// that a frame carries (ITU-R BT.601, BT.709, BT.2020 non-constant luminance).

public enum YUVMatrix: String, Sendable, CaseIterable {
    case bt601, bt709, bt2020

    /// (Kr, Kb) luma coefficients.
    var coefficients: (kr: Double, kb: Double) {
        switch self {
        case .bt601: return (0.299, 0.114)
        case .bt709: return (0.2126, 0.0722)
        case .bt2020: return (0.2627, 0.0593)
        }
    }

    /// The rule for a frame whose matrix is unspecified (documented in docs/guide.md, "Colour"): like mpv,
    /// HD and larger (width ≥ 1280 or height > 576) is BT.709, SD is BT.601.
    public static func guess(width: Int, height: Int) -> YUVMatrix {
        (width >= 1280 || height > 576) ? .bt709 : .bt601
    }
}

public enum YUVRange: String, Sendable {
    /// "TV"/"MPEG" range: Y' 16–235, Cb/Cr 16–240 at 8 bits. The rule for unspecified.
    case limited
    /// "PC"/"JPEG" range: 0–255.
    case full
}

/// rgb = matrix · sample + offset, where `sample` is the (Y, Cb, Cr) texture values normalised
/// to 0...1 as GL samples them. `matrix` is column-major (what glUniformMatrix3fv takes).
public struct YUVConversion: Equatable, Sendable {
    public var matrix: [Float]
    public var offset: [Float]

    public init(matrix: YUVMatrix, range: YUVRange, bitDepth: Int = 8) {
        let (kr, kb) = matrix.coefficients
        let kg = 1 - kr - kb
        let maxCode = Double((1 << bitDepth) - 1)
        let unit = Double(1 << (bitDepth - 8))
        // Normalised sample s → Y in 0...1 and Cb, Cr in -0.5...0.5: y = ys*s + yo, c = cs*s + co.
        let ys, yo, cs, co: Double
        switch range {
        case .limited:
            ys = maxCode / (219 * unit); yo = -16 * unit / (219 * unit)
            cs = maxCode / (224 * unit); co = -128 * unit / (224 * unit)
        case .full:
            ys = 1; yo = 0
            cs = 1; co = -Double(1 << (bitDepth - 1)) / maxCode
        }
        // R = Y + 2(1-Kr)Cr ; G = Y - 2Kb(1-Kb)/Kg Cb - 2Kr(1-Kr)/Kg Cr ; B = Y + 2(1-Kb)Cb
        let rCr = 2 * (1 - kr), bCb = 2 * (1 - kb)
        let gCb = -2 * kb * (1 - kb) / kg, gCr = -2 * kr * (1 - kr) / kg
        // Columns: the contribution of Y, then Cb, then Cr, to (R, G, B).
        let colY = [ys, ys, ys]
        let colCb = [0, gCb * cs, bCb * cs]
        let colCr = [rCr * cs, gCr * cs, 0]
        self.matrix = (colY + colCb + colCr).map { Float($0) }
        self.offset = (0..<3).map { row in
            Float(yo + (colCb[row] / cs) * co + (colCr[row] / cs) * co)
        }
    }

    /// Applies the conversion on the CPU (tests; never used per frame).
    public func apply(_ s: (Double, Double, Double)) -> (Double, Double, Double) {
        let m = matrix.map(Double.init), o = offset.map(Double.init)
        func row(_ r: Int) -> Double { m[r] * s.0 + m[3 + r] * s.1 + m[6 + r] * s.2 + o[r] }
        return (row(0), row(1), row(2))
    }
}
