// The GLES sink: one wl_egl_window and EGL window surface per output, drawn by the shared
// GLRenderer from the video's textures (uploaded once per frame for every output that shows
// it). Main thread only, the shared EGL context current.
import CWayland
import WayLoopCore

final class GLSink: Sink {
    let kind = RendererKind.gl
    private let device: GLDevice
    private var window: EGLWindow?
    private var eglSurface: EGLSurface?

    init(device: GLDevice) { self.device = device }

    /// The EGL surface before the window it was made on (the window goes after this body).
    deinit {
        if let eglSurface { device.egl.destroySurface(eglSurface) }
    }

    func canDraw(_ picture: Picture?, settings: OutputSettings?, on surface: LayerSurface) -> Bool { eglSurface != nil }

    func resize(_ surface: LayerSurface) throws(SinkError) {
        let b = surface.bufferSize
        if let window {
            window.resize(b)
            return
        }
        guard let w = EGLWindow(surface: surface.surface, size: b) else {
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
