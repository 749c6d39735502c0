// The GLES device: EGL on the Wayland connection, one GLES 3 context and program shared by
// every output's GLSink, and each clip's textures (uploaded once per frame for all outputs).
// Main thread only, the shared EGL context current.
import CWayland
import WayLoopCore

/// What every GL sink shares: the EGL display and context, and the renderer (program, quad).
final class GLDevice: RenderDevice {
    static let kind = RendererKind.gl
    /// Two frame threads, by measurement (ffmpeg -threads N -f null, this machine): 1080p H.264
    /// 2.43 CPU-s and 1.45 s wall for 600 frames against 2.36 and 2.47 with one; 2160p 4.50
    /// against 4.22 CPU-s, 2.52 against 4.25 s wall: 3-7 % more CPU for decoding that keeps up
    /// while llvmpipe takes the other core. Frames queued: --queue-frames' default.
    static let decoderHints = DecoderHints(threads: 2, queueFrames: nil)

    /// Each clip's textures (by path), uploaded once per frame serial for every output.
    /// Declared first: textures, then the program, go while the context still exists.
    private var textures: [String: VideoTextures] = [:]
    private var uploaded: [String: UInt64] = [:]
    let renderer: GLRenderer
    let egl: EGL
    /// GL_RENDERER (for the log line and the auto choice).
    let name: String

    init(display: EGLWaylandDisplay, sharedWithHost: Bool = false) throws(GraphicsError) {
        let egl = try EGL(display: display, sharedWithHost: sharedWithHost)
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
            t.pictureOrientation = picture.orientation
            uploaded[picture.clip] = picture.serial
        }
        return t
    }

    /// GL_MAX_TEXTURE_SIZE; CPU planes only (a dmabuf would be an EGLImage import).
    /// Frames are compared only where EGL can use what changed (Mesa's software Wayland EGL
    /// offers neither swap with damage nor buffer age: measured, Mesa 22.3 llvmpipe).
    var limits: DeviceLimits {
        DeviceLimits(maxPictureSize: renderer.maxTextureSize, storage: [.cpu], usesDamage: egl.swapsWithDamage || egl.hasBufferAge)
    }

    func makeSink() -> Sink { GLSink(device: self) }

    /// A clip nobody shows any more: its textures go.
    func forget(clip: String) {
        textures[clip] = nil
        uploaded[clip] = nil
    }

    /// Textures live while their clip is shown: nothing to trim.
    func trim(before: Nanos) {}

    /// The clip's textures, turned for display, are `size`: one conversion into a framebuffer
    /// serves every output of that size (GLRenderer.draw, `shared`).
    func sharesConversion(clip: String, size: Size) -> Bool {
        guard let t = textures[clip] else { return false }
        return t.pictureOrientation.displaySize(t.size) == size
    }
}
