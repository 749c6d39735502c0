// The library's side of a host's Wayland connection: an event queue of its own, so that the
// host's dispatch never runs the library's listeners and the library's never runs the host's
// (as Mesa's EGL does on a client's display), the globals it needs bound on that queue, and
// the host's surface as a SinkSurface whose frame callbacks arrive on it. Host thread only.
import CWayland
import Glibc
import WayLoopCore

/// An event queue on the host's wl_display, with wl_shm (and whether linux-dmabuf is there)
/// bound through a registry on it.
final class HostConnection: ListenerTarget {
    /// The host's wl_display (not owned).
    let display: OpaquePointer
    let queue: OpaquePointer
    /// The display as a proxy wrapper on `queue`: what it makes (the registry) is on the queue.
    private let wrapper: OpaquePointer
    private var registry: OpaquePointer?
    private(set) var shm: OpaquePointer?
    private(set) var hasDmabuf = false

    init?(display: OpaquePointer) {
        self.display = display
        guard let q = wl_display_create_queue(display) else { return nil }
        guard let w = wl_proxy_create_wrapper(UnsafeMutableRawPointer(display)) else {
            wl_event_queue_destroy(q)
            return nil
        }
        queue = q
        wrapper = OpaquePointer(w)
        wl_proxy_set_queue(wrapper, q)
        guard let r = wl_display_get_registry(wrapper) else { return nil }
        registry = r
        wl_registry_add_listener(r, hostRegistryListener, listenerData)
        // The globals, on this queue alone (the host's events stay queued for the host).
        guard wl_display_roundtrip_queue(display, q) >= 0 else { return nil }
    }

    /// Proxies first (each made on the queue), then the queue.
    deinit {
        if let shm { wl_shm_destroy(shm) }
        if let registry { wl_registry_destroy(registry) }
        wl_proxy_wrapper_destroy(UnsafeMutableRawPointer(wrapper))
        wl_display_flush(display)
        wl_event_queue_destroy(queue)
    }

    /// The display's fd (the host's connection).
    var fd: Int32 { wl_display_get_fd(display) }

    /// Reads what the socket holds without blocking (the host may not have), then runs this
    /// queue's listeners. False when the connection is gone.
    func dispatchPending() -> Bool {
        while wl_display_prepare_read_queue(display, queue) != 0 {
            if wl_display_dispatch_queue_pending(display, queue) < 0 { return false }
        }
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        if poll(&p, 1, 0) > 0 {
            if wl_display_read_events(display) < 0 { return false }
        } else {
            wl_display_cancel_read(display)
        }
        return wl_display_dispatch_queue_pending(display, queue) >= 0
    }

    /// Sends what was asked (commits, frame callbacks).
    func flush() { _ = wl_display_flush(display) }

    fileprivate func global(name: UInt32, interface: String) {
        switch interface {
        case "wl_shm":
            shm = wl_registry_bind(registry, name, wlx_shm_interface(), 1).map { OpaquePointer($0) }
        case "zwp_linux_dmabuf_v1":
            hasDmabuf = true
        default:
            break
        }
    }
}

nonisolated(unsafe) private let hostRegistryListener = listenerTable(wl_registry_listener(
    global: { data, _, name, interface, _ in HostConnection.from(data).global(name: name, interface: eventString(interface)) },
    global_remove: { _, _, _ in }
))

/// The host's wl_surface as a sink draws on it: buffers of the size and scale the host gives,
/// frame callbacks on the library's queue (through a proxy wrapper of the surface).
final class HostSurface: SinkSurface {
    /// A wrapper of the host's wl_surface on the library's queue: requests go to the host's
    /// surface, and the frame callbacks it makes are on the library's queue.
    let surface: OpaquePointer
    private(set) var logicalSize: Size
    private(set) var scale: Int
    var bufferSize: Size { Size(width: logicalSize.width * scale, height: logicalSize.height * scale) }
    /// The host's surface may have a viewport of its own: the library never adds one.
    let scalesBuffers = false
    private(set) var needsRedraw = true
    private var frameCallback: WLCallback?
    /// When the pending frame callback was asked for (nil: none pending).
    private(set) var frameRequestedAt: Nanos?
    /// Frames committed.
    private(set) var framesShown = 0
    private var transform: Int32 = 0
    /// A frame callback fired (the host's loop then calls the view's dispatch, which draws).
    var onFrame: (() -> Void)?

    init?(host surface: OpaquePointer, queue: OpaquePointer, size: Size, scale: Int) {
        guard let w = wl_proxy_create_wrapper(UnsafeMutableRawPointer(surface)) else { return nil }
        self.surface = OpaquePointer(w)
        wl_proxy_set_queue(self.surface, queue)
        logicalSize = size
        self.scale = max(1, scale)
        wl_surface_set_buffer_scale(self.surface, Int32(self.scale))
    }

    deinit {
        frameCallback?.destroy()
        wl_proxy_wrapper_destroy(UnsafeMutableRawPointer(surface))
    }

    /// The host resized its surface (logical size, integer scale): the next draw fills it.
    func resize(_ size: Size, scale: Int) {
        logicalSize = size
        self.scale = max(1, scale)
        wl_surface_set_buffer_scale(surface, Int32(self.scale))
        needsRedraw = true
    }

    func setBufferTransform(_ t: Int32) {
        guard t != transform else { return }
        transform = t
        wl_surface_set_buffer_transform(surface, t)
    }

    /// Buffers are always `bufferSize` here (no viewport): nothing to set.
    func attaching(_ size: Size, source: Rect?) {}

    func requestFrame() {
        guard frameCallback == nil, let p = wl_surface_frame(surface) else { return }
        frameCallback = WLCallback(p) { [unowned self] _ in
            frameCallback = nil
            frameRequestedAt = nil
            onFrame?()
        }
        frameRequestedAt = Sys.now()
    }

    var awaitingFrame: Bool { frameCallback != nil }

    func invalidate() { needsRedraw = true }

    func didDraw() {
        needsRedraw = false
        framesShown += 1
    }
}
