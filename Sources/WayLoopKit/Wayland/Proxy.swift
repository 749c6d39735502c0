// What every typed Wayland object shares: its proxy, its destructor request (sent once), and the
// listener plumbing. libwayland keeps a listener table's pointer and the user data for the whole
// life of the proxy, so the tables are allocated once and never freed, and the user data is the
// Swift object that owns the proxy (it destroys the proxy before it dies). Main thread only.
import CWayland

/// One Wayland proxy owned by a Swift object. `destroy()` sends the destructor request once;
/// later calls, and the deinit after it, do nothing. Owners destroy their children before
/// their parents explicitly (the order is the protocol's business); deinit is only the backstop.
class WaylandObject {
    /// The C proxy: for the calls of the file that wraps it, and for the sinks that still take
    /// a raw proxy (wl_shm, the wl_display for EGL).
    let proxy: OpaquePointer
    private var destructor: ((OpaquePointer) -> Void)?

    init(_ proxy: OpaquePointer, destructor: @escaping (OpaquePointer) -> Void) {
        self.proxy = proxy
        self.destructor = destructor
    }

    deinit { destroy() }

    final var isDestroyed: Bool { destructor == nil }

    final func destroy() {
        guard let d = destructor else { return }
        destructor = nil
        d(proxy)
    }
}

/// An object that is the user data of its proxy's listener: passed unretained (it outlives its
/// proxy), recovered in the trampolines, which only forward.
protocol ListenerTarget: AnyObject {}

extension ListenerTarget {
    var listenerData: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static func from(_ data: UnsafeMutableRawPointer?) -> Self {
        Unmanaged<Self>.fromOpaque(data!).takeUnretainedValue()
    }
}

/// A listener table on the heap, for a `nonisolated(unsafe) private let` (allocated once, never
/// freed). Fill every slot: a nil one aborts the process when its event arrives.
func listenerTable<Table>(_ table: Table) -> UnsafeMutablePointer<Table> {
    let p = UnsafeMutablePointer<Table>.allocate(capacity: 1)
    p.initialize(to: table)
    return p
}

/// A C string from an event, "" for a null one.
func eventString(_ s: UnsafePointer<CChar>?) -> String { s.map { String(cString: $0) } ?? "" }
