// EGL on the Wayland platform: one display, one GLES 3 context shared by every output's window
// surface (so a video's textures are uploaded once and drawn on each output). Main thread only.
import CWayland
import WayLoopCore

struct GraphicsError: Error, CustomStringConvertible {
    let what: String
    let code: EGLint
    init(_ what: String, code: EGLint = eglGetError()) {
        self.what = what
        self.code = code
    }
    var description: String {
        "\(what) (EGL error 0x\(String(code, radix: 16)))"
    }
}

/// The EGL state current on this thread, kept while the library draws on a host's thread and
/// put back after (a host with GL of its own finds its context as it left it).
struct EGLCurrent {
    private let display: EGLDisplay?
    private let draw: EGLSurface?
    private let read: EGLSurface?
    private let context: EGLContext?

    /// What is current now.
    static func capture() -> EGLCurrent {
        EGLCurrent(display: eglGetCurrentDisplay(), draw: eglGetCurrentSurface(EGL_DRAW), read: eglGetCurrentSurface(EGL_READ),
                   context: eglGetCurrentContext())
    }

    /// Makes it current again; with none before, `ours` lets go of the thread.
    func restore(releasing ours: EGLDisplay) {
        if let display, display != wlx_egl_no_display(), let context, context != wlx_egl_no_context() {
            eglMakeCurrent(display, draw ?? wlx_egl_no_surface(), read ?? wlx_egl_no_surface(), context)
        } else {
            eglMakeCurrent(ours, wlx_egl_no_surface(), wlx_egl_no_surface(), wlx_egl_no_context())
        }
    }
}

final class EGL {
    /// On a host's display and thread (the embedded view): the display is the host's too, so
    /// it is never terminated, and what is current is never assumed (the host may change it).
    let sharedWithHost: Bool
    let display: EGLDisplay
    let config: EGLConfig
    let context: EGLContext
    private var current: EGLSurface?
    /// eglSwapBuffersWithDamage (KHR or EXT), where offered: the compositor is told what changed.
    private let swapWithDamage: UnsafeMutableRawPointer?
    /// EGL_EXT_buffer_age: a back buffer's contents are known, so a frame redraws only what
    /// changed since the frame that buffer holds.
    let hasBufferAge: Bool
    var swapsWithDamage: Bool { swapWithDamage != nil }
    /// Which of the two are offered.
    var damageSupport: String {
        "swap with damage \(swapWithDamage == nil ? "no" : "yes"), buffer age \(hasBufferAge ? "yes" : "no")"
    }

    init(display wayland: EGLWaylandDisplay, sharedWithHost: Bool = false) throws(GraphicsError) {
        self.sharedWithHost = sharedWithHost
        guard let d = wayland.eglDisplay() else { throw GraphicsError("no EGL display for the Wayland connection") }
        var major: EGLint = 0, minor: EGLint = 0
        guard eglInitialize(d, &major, &minor) == EGL_TRUE else { throw GraphicsError("eglInitialize failed") }
        guard eglBindAPI(EGLenum(EGL_OPENGL_ES_API)) == EGL_TRUE else {
            eglTerminate(d)
            throw GraphicsError("EGL has no OpenGL ES")
        }
        // 8 bits per channel: a 10-bit buffer costs a software compositor ten times more. With
        // alpha (kept at 1) plus an opaque region: sway's pixman renderer composites XRGB buffers
        // far slower than ARGB ones (measured: ~14 ms more per frame, half the frame rate).
        let attributes: [EGLint] = [
            EGL_SURFACE_TYPE, EGL_WINDOW_BIT,
            EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT,
            EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8,
            EGL_NONE,
        ]
        var configs = [EGLConfig?](repeating: nil, count: 64)
        var count: EGLint = 0
        guard eglChooseConfig(d, attributes, &configs, EGLint(configs.count), &count) == EGL_TRUE, count > 0 else {
            eglTerminate(d)
            throw GraphicsError("no 8-bit RGBA EGL config with OpenGL ES 3")
        }
        // eglChooseConfig sorts deeper colour first: take an exact 8-8-8-8 one.
        let exact = configs[0..<Int(count)].first { c in
            [EGL_RED_SIZE, EGL_GREEN_SIZE, EGL_BLUE_SIZE, EGL_ALPHA_SIZE].allSatisfy { attr in
                var v: EGLint = 0
                eglGetConfigAttrib(d, c, attr, &v)
                return v == 8
            }
        }
        guard let chosen = (exact ?? configs[0]) else {
            eglTerminate(d)
            throw GraphicsError("no usable EGL config")
        }
        let contextAttributes: [EGLint] = [EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE]
        guard let ctx = eglCreateContext(d, chosen, wlx_egl_no_context(), contextAttributes),
              ctx != wlx_egl_no_context() else {
            eglTerminate(d)
            throw GraphicsError("cannot create an OpenGL ES 3 context")
        }
        display = d
        config = chosen
        context = ctx
        swapWithDamage = wlx_egl_swap_with_damage_proc(d)
        hasBufferAge = wlx_egl_has_buffer_age(d) != 0
    }

    deinit {
        if sharedWithHost {
            let before = EGLCurrent.capture()
            eglDestroyContext(display, context)
            before.restore(releasing: display)
            return
        }
        eglMakeCurrent(display, wlx_egl_no_surface(), wlx_egl_no_surface(), wlx_egl_no_context())
        eglDestroyContext(display, context)
        eglTerminate(display)
        eglReleaseThread()
    }

    func createSurface(window: EGLWindow) throws(GraphicsError) -> EGLSurface {
        guard let s = window.makeSurface(display: display, config: config) else {
            throw GraphicsError("cannot create an EGL window surface")
        }
        try makeCurrent(s)
        // Never block in eglSwapBuffers: pacing comes from frame callbacks.
        eglSwapInterval(display, 0)
        return s
    }

    func makeCurrent(_ surface: EGLSurface) throws(GraphicsError) {
        if current == surface && !sharedWithHost { return }
        guard eglMakeCurrent(display, surface, surface, context) == EGL_TRUE else {
            throw GraphicsError("eglMakeCurrent failed")
        }
        current = surface
    }

    func swap(_ surface: EGLSurface) -> Bool { eglSwapBuffers(display, surface) == EGL_TRUE }

    /// Swaps telling the compositor that only `damage` changed (top-left origin, in a buffer
    /// `height` pixels tall); a plain swap where the extension is missing.
    func swap(_ surface: EGLSurface, damage: [PixelRect], height: Int) -> Bool {
        guard let swapWithDamage, !damage.isEmpty else { return swap(surface) }
        var rects: [EGLint] = []
        rects.reserveCapacity(damage.count * 4)
        for r in damage { rects += [EGLint(r.x), EGLint(height - r.y - r.height), EGLint(r.width), EGLint(r.height)] }
        return wlx_egl_swap_with_damage(swapWithDamage, display, surface, rects, EGLint(damage.count)) == EGL_TRUE
    }

    /// The back buffer's age (0: unknown contents, or no EGL_EXT_buffer_age).
    func bufferAge(_ surface: EGLSurface) -> Int { hasBufferAge ? Int(wlx_egl_buffer_age(display, surface)) : 0 }

    func destroySurface(_ surface: EGLSurface) {
        if current == surface {
            eglMakeCurrent(display, wlx_egl_no_surface(), wlx_egl_no_surface(), context)
            current = nil
        }
        eglDestroySurface(display, surface)
    }
}
