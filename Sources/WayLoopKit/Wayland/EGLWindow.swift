// The two Wayland objects EGL draws through: the connection as EGL's platform display
// (EGL_PLATFORM_WAYLAND_KHR) and one output's wl_egl_window (wayland-egl), on which its EGL
// window surface is made. The raw pointers stay here; the GLES device holds these types.
// Main thread only.
import CWayland
import WayLoopCore

/// The Wayland connection as EGL takes it. Not owned: the app connects and disconnects.
struct EGLWaylandDisplay {
    private let display: OpaquePointer

    init(_ display: OpaquePointer) { self.display = display }

    /// The EGL display of this connection (nil: EGL has none for it).
    func eglDisplay() -> EGLDisplay? {
        guard let d = eglGetPlatformDisplay(EGLenum(EGL_PLATFORM_WAYLAND_KHR), UnsafeMutableRawPointer(display), nil),
              d != wlx_egl_no_display() else { return nil }
        return d
    }
}

/// One surface's wl_egl_window, sized in buffer pixels. Destroyed at deinit, which must come
/// after the EGL surface made on it is destroyed.
final class EGLWindow {
    private let window: OpaquePointer

    /// On `surface` (a LayerSurface's wl_surface), after its first configure.
    init?(surface: OpaquePointer, size: Size) {
        guard let w = wl_egl_window_create(surface, Int32(size.width), Int32(size.height)) else { return nil }
        window = w
    }

    deinit { wl_egl_window_destroy(window) }

    func resize(_ size: Size) { wl_egl_window_resize(window, Int32(size.width), Int32(size.height), 0, 0) }

    /// eglCreateWindowSurface on this window (nil: EGL refused; eglGetError says why).
    func makeSurface(display: EGLDisplay, config: EGLConfig) -> EGLSurface? {
        guard let s = eglCreateWindowSurface(display, config, window, nil), s != wlx_egl_no_surface() else { return nil }
        return s
    }
}

extension EGLWaylandDisplay {
    init(_ display: WLDisplay) { self.init(display.proxy) }
}
