// The GLES sink: one wl_egl_window and EGL window surface per output, drawn by the shared
// GLRenderer from the video's textures (uploaded once per frame for every output that shows
// it). Main thread only, the shared EGL context current.
import CFFmpeg
import CWayland
import WayLoopCore

/// What every GL sink shares: the EGL display and context, and the renderer (program, quad).
final class GLDevice {
    /// Declared before `egl`: the program and buffers go while the context still exists.
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

    var canDraw: Bool { eglSurface != nil }

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

    func present(_ video: Video, frame: UnsafeMutablePointer<AVFrame>, settings: OutputSettings, on surface: LayerSurface,
                 shared: Bool, beforeCommit: () -> Void) throws(SinkError) {
        let s = try makeCurrent()
        if video.uploadedSerial != video.serial || video.textures == nil {
            if video.textures == nil { video.textures = VideoTextures() }
            device.renderer.upload(frame, into: video.textures!)
            video.uploadedSerial = video.serial
        }
        device.renderer.draw(video.textures!, orientation: video.info?.orientation ?? .upright, buffer: surface.bufferSize,
                             settings: settings, shared: shared)
        // Before eglSwapBuffers, which commits.
        surface.requestFrame()
        beforeCommit()
        try swap(s)
    }
}
