// FNV-1a, 64 bits: a fingerprint (the state file's base, a fitted copy's source), not a
// defence against anyone.

/// FNV-1a, 64 bits, fed bytes and text; its value as 16 hex digits.
public struct FNV1a: Sendable {
    private var h: UInt64 = 0xcbf2_9ce4_8422_2325
    public init() {}
    public mutating func add<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        for b in bytes {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01b3
        }
    }
    public mutating func add(_ text: String) { add(text.utf8) }
    /// 16 hex digits.
    public var hex: String {
        let s = String(h, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}
