// The connection to the compositor (wl_display) and the read protocol the loops drive:
// prepare_read → flush → poll → read_events or cancel_read → dispatch_pending. Main thread only.
import CWayland

/// The wl_display. A value, like a file descriptor: copies name the same connection, and
/// `disconnect()` ends it once, after every other proxy is gone.
struct WLDisplay {
    /// The C wl_display, for EGL (eglGetPlatformDisplay takes it).
    let proxy: OpaquePointer

    /// WAYLAND_DISPLAY (else wayland-0); nil with errno set when nothing answers.
    static func connect() -> WLDisplay? { wl_display_connect(nil).map(WLDisplay.init(proxy:)) }

    func disconnect() { wl_display_disconnect(proxy) }

    var fd: Int32 { wl_display_get_fd(proxy) }

    /// False while events are queued: dispatch them and try again.
    func prepareRead() -> Bool { wl_display_prepare_read(proxy) == 0 }

    /// After `prepareRead`: reads what arrived. False when the connection failed.
    func readEvents() -> Bool { wl_display_read_events(proxy) >= 0 }

    /// After `prepareRead`, when nothing is to be read.
    func cancelRead() { wl_display_cancel_read(proxy) }

    /// Runs the listeners of the queued events. False when the connection failed.
    @discardableResult
    func dispatchPending() -> Bool { wl_display_dispatch_pending(proxy) >= 0 }

    /// Sends what is buffered. False with errno set: EAGAIN when the socket is full (wait for
    /// POLLOUT), anything else when the connection failed.
    @discardableResult
    func flush() -> Bool { wl_display_flush(proxy) >= 0 }

    /// The errno that ended the connection (EPROTO: a protocol error), 0 while it is fine.
    var error: Int32 { wl_display_get_error(proxy) }

    /// The protocol error that ended the connection: its code, the interface and object id.
    var protocolError: (code: UInt32, interface: String, id: UInt32) {
        var iface: UnsafePointer<wl_interface>?
        var id: UInt32 = 0
        let code = wl_display_get_protocol_error(proxy, &iface, &id)
        return (code, iface.map { String(cString: $0.pointee.name) } ?? "?", id)
    }

    /// wl_display.sync: `done` runs once the compositor has handled every request before it.
    func sync(_ done: @escaping (UInt32) -> Void) -> WLCallback? {
        wl_display_sync(proxy).map { WLCallback($0, done: done) }
    }
}
