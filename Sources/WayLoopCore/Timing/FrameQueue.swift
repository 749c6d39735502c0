// A bounded first-in first-out ring buffer. Not thread-safe by itself: the shell wraps one in a
// lock and shares it between a decoder thread (producer) and the main thread (consumer).

public struct BoundedQueue<Element> {
    // Read through inlinable accessors: the shell reads the queue every pass, specialized for
    // its frames rather than through generic metadata.
    @usableFromInline var storage: [Element?]
    @usableFromInline var head = 0
    public private(set) var count = 0 // shadows Collection.count: O(1)

    public init(capacity: Int) {
        precondition(capacity > 0, "a queue needs room for at least one element")
        storage = Array(repeating: nil, count: capacity)
    }

    @inlinable public var capacity: Int { storage.count }
    @inlinable public var isEmpty: Bool { count == 0 }
    public var isFull: Bool { count == storage.count }

    /// Appends at the tail; returns false (and keeps `element` out) when full.
    @discardableResult
    public mutating func push(_ element: Element) -> Bool {
        guard !isFull else { return false }
        storage[(head + count) % storage.count] = element
        count += 1
        return true
    }

    /// Removes and returns the head.
    public mutating func pop() -> Element? {
        guard count > 0 else { return nil }
        let e = storage[head]
        storage[head] = nil
        head = (head + 1) % storage.count
        count -= 1
        return e
    }

    @inlinable
    public func peek(_ offset: Int = 0) -> Element? {
        guard offset >= 0, offset < count else { return nil }
        return storage[(head + offset) % storage.count]
    }

}

/// Head-to-tail access without copying (index 0 is the head).
extension BoundedQueue: RandomAccessCollection {
    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { count }
    @inlinable
    public subscript(position: Int) -> Element {
        precondition(position >= 0 && position < count, "index out of range")
        return storage[(head + position) % storage.count]!
    }
}

/// The decoded queue is bounded in bytes as well as frames (eight 8192x8192 frames are
/// 800 MB), never below two frames, so that a huge picture still plays.
public enum QueueBudget {
    /// Bytes of decoded frames queued ahead of the screen per clip.
    public static let defaultBytes = 48 << 20

    /// `held`: frames the screen side has taken and not given back, `heldBytes` their bytes.
    /// The one on screen is free; any more (the next frame, taken while the old one is compared
    /// and given back; late frames, taken before they are released) take a place in the queue,
    /// in frames and in bytes (a clip's frames are one size: the extra ones are taken as
    /// `held - 1` of `held` equal shares). So the frames out of the decoder never pass what the
    /// queue admits plus the one on screen, however the two threads interleave: libavcodec's
    /// buffer pool, which keeps every buffer it ever made, reaches its size in the first second
    /// instead of whenever a preempted main thread first lets the decoder one frame further ahead.
    public static func admits(count: Int, held: Int = 0, heldBytes: Int = 0, capacity: Int, queuedBytes: Int, adding bytes: Int,
                              budget: Int = defaultBytes) -> Bool {
        let beyond = max(0, held - 1)
        let count = count + beyond
        if count >= capacity { return false }
        if count < 2 { return true }
        let extraBytes = beyond > 0 ? heldBytes - heldBytes / held : 0
        return queuedBytes + extraBytes + bytes <= budget
    }
}
