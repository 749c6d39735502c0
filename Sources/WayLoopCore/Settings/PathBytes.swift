// Paths are bytes on Linux, Swift strings are Unicode: a file name that is not UTF-8 (Latin-1
// from an old archive) must still reach open(2) byte for byte. Arguments, the working directory,
// the environment, the config file and inotify names are decoded with `decode`, which keeps
// every byte: valid UTF-8 as its characters, every other byte b (0x80…0xFF) as the private-use
// character U+F700+b. `encode` gives the bytes back for the system calls, and messages show
// such a byte as `\xNN` (LineText.escaped). Lossless both ways: a name that really contains
// U+F780…U+F7FF has those characters' bytes kept as escapes too. Pure.

public enum PathBytes {
    static let base: UInt32 = 0xF700
    static let escapes: ClosedRange<UInt32> = 0xF780...0xF7FF

    /// The byte a character stands for, when it is one of the escapes.
    public static func escapedByte(_ u: Unicode.Scalar) -> UInt8? {
        escapes.contains(u.value) ? UInt8(u.value - base) : nil
    }

    public static func decode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        let b = Array(bytes)
        // The common case: valid UTF-8 with no character in the escape range.
        if let s = String(validating: b, as: UTF8.self), !s.unicodeScalars.contains(where: { escapes.contains($0.value) }) {
            return s
        }
        var out = String.UnicodeScalarView()
        var i = 0
        func escape(_ range: Range<Int>) {
            for k in range { out.append(Unicode.Scalar(base + UInt32(b[k]))!) }
        }
        while i < b.count {
            let n = sequenceLength(b, at: i)
            guard n > 0 else {
                escape(i..<(i + 1))
                i += 1
                continue
            }
            let scalar = String(decoding: b[i..<(i + n)], as: UTF8.self).unicodeScalars.first!
            if escapes.contains(scalar.value) { escape(i..<(i + n)) } else { out.append(scalar) }
            i += n
        }
        return String(out)
    }

    /// The length of the well-formed UTF-8 sequence at `i` (0: none starts there).
    private static func sequenceLength(_ b: [UInt8], at i: Int) -> Int {
        let c = b[i]
        if c < 0x80 { return 1 }
        let n: Int
        var lo: UInt8 = 0x80, hi: UInt8 = 0xBF
        switch c {
        case 0xC2...0xDF: n = 2
        case 0xE0: n = 3; lo = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: n = 3
        case 0xED: n = 3; hi = 0x9F  // no surrogates
        case 0xF0: n = 4; lo = 0x90
        case 0xF1...0xF3: n = 4
        case 0xF4: n = 4; hi = 0x8F
        default: return 0
        }
        guard i + n <= b.count else { return 0 }
        guard (lo...hi).contains(b[i + 1]) else { return 0 }
        for k in 2..<max(2, n) where !(0x80...0xBF).contains(b[i + k]) { return 0 }
        return n
    }

    /// The bytes `decode` read, for open(2) and friends.
    public static func encode(_ s: String) -> [UInt8] {
        guard s.unicodeScalars.contains(where: { escapes.contains($0.value) }) else { return Array(s.utf8) }
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        for u in s.unicodeScalars {
            if let byte = escapedByte(u) { out.append(byte) } else { out.append(contentsOf: String(u).utf8) }
        }
        return out
    }

    /// `encode` with the terminating NUL, for a C `const char *`.
    public static func cString(_ s: String) -> [CChar] {
        encode(s).map { CChar(bitPattern: $0) } + [0]
    }
}
