// The GLES sink: one wl_egl_window and EGL window surface per output, drawn by the shared
// GLRenderer from the video's textures (uploaded once per frame for every output that shows
// it). Main thread only, the shared EGL context current.
import CWayland
import WayLoopCore

/// What every GL sink shares: the EGL display and context, and the renderer (program, quad).
final class GLDevice {
    /// Each clip's textures (by path), uploaded once per frame serial for every output.
    /// Declared first: textures, then the program, go while the context still exists.
    private(set) var textures: [String: VideoTextures] = [:]
    private var uploaded: [String: UInt64] = [:]
    let renderer: GLRenderer
    let egl: EGL
    /// GL_RENDERER (for the log line and the auto choice).
    let name: String

    init(wlDisplay: OpaquePointer) throws(GraphicsError) {
        let egl = try EGL(wlDisplay: wlDisplay)
        // Surfaceless: compile the program before any output has a surface.
        guard eglMakeCurrent(egl.display, wlx_egl_no_surface(), wlx_egl_no_surface(), egl.context) == EGL_TRUE else {
            throw GraphicsError("EGL cannot make the context current without a surface")
        }
        name = glGetString(GLenum(GL_RENDERER)).map { String(cString: $0) } ?? "unknown"
        renderer = try GLRenderer()
        self.egl = egl
    }

    /// Before the textures and the context go: no surface current.
    func releaseSurfaces() {
        eglMakeCurrent(egl.display, wlx_egl_no_surface(), wlx_egl_no_surface(), egl.context)
    }

    /// The textures holding `picture`, uploading it if this serial is not up yet.
    func textures(for picture: Picture) throws(SinkError) -> VideoTextures {
        let t = textures[picture.clip] ?? VideoTextures()
        textures[picture.clip] = t
        if uploaded[picture.clip] != picture.serial {
            guard case .cpu(let planes) = picture.storage else { throw .unsupported(picture.storage.place, by: .gl) }
            renderer.upload(planes, into: t)
            uploaded[picture.clip] = picture.serial
        }
        return t
    }

    /// A clip nobody shows any more: its textures go.
    func forget(_ clip: String) {
        textures[clip] = nil
        uploaded[clip] = nil
    }
}

final class GLSink: Sink {
    let kind = RendererKind.gl
    private let device: GLDevice
    private var window: OpaquePointer?
    private var eglSurface: EGLSurface?

    init(device: GLDevice) { self.device = device }

    deinit {
        if let eglSurface { device.egl.destroySurface(eglSurface) }
        if let window { wl_egl_window_destroy(window) }
    }

    func canDraw(_ picture: Picture?, settings: OutputSettings?, on surface: LayerSurface) -> Bool { eglSurface != nil }

    func resize(_ surface: LayerSurface) throws(SinkError) {
        let b = surface.bufferSize
        if let window {
            wl_egl_window_resize(window, Int32(b.width), Int32(b.height), 0, 0)
            return
        }
        guard let w = wl_egl_window_create(surface.surface, Int32(b.width), Int32(b.height)) else {
            throw SinkError("cannot create a wl_egl_window")
        }
        window = w
        do { eglSurface = try device.egl.createSurface(window: w) } catch { throw SinkError("\(error)") }
    }

    private func makeCurrent() throws(SinkError) -> EGLSurface {
        guard let eglSurface else { throw SinkError("no EGL surface yet") }
        do { try device.egl.makeCurrent(eglSurface) } catch { throw SinkError("\(error)") }
        return eglSurface
    }

    private func swap(_ s: EGLSurface) throws(SinkError) {
        guard device.egl.swap(s) else {
            throw SinkError("eglSwapBuffers failed (EGL error 0x\(String(eglGetError(), radix: 16)))")
        }
    }

    func present(colour: RGB, on surface: LayerSurface) throws(SinkError) {
        let s = try makeCurrent()
        device.renderer.clear(colour, buffer: surface.bufferSize)
        try swap(s)
    }

    func present(_ picture: Picture, settings: OutputSettings, on surface: LayerSurface, shared: Bool, fading: FadeLayer?,
                 beforeCommit: () -> Void) throws(SinkError) {
        let s = try makeCurrent()
        let t = try device.textures(for: picture)
        if let f = fading {
            // The old picture as it was, then the new one blended over it in the same pass.
            let old = try device.textures(for: f.picture)
            device.renderer.draw(old, orientation: f.picture.orientation, buffer: surface.bufferSize, settings: f.settings, shared: false)
            device.renderer.drawBlended(t, orientation: picture.orientation, buffer: surface.bufferSize, settings: settings,
                                        weight: f.weight)
        } else {
            device.renderer.draw(t, orientation: picture.orientation, buffer: surface.bufferSize, settings: settings, shared: shared)
        }
        // Before eglSwapBuffers, which commits.
        surface.requestFrame()
        beforeCommit()
        try swap(s)
    }
}
