// The GLES sink: one wl_egl_window and EGL window surface per output (made at its first draw),
// drawn by the shared GLRenderer from the video's textures (uploaded once per frame for every
// output that shows it). Main thread only, the shared EGL context current.
import CWayland
import WayLoopCore

final class GLSink: Sink {
    let kind = RendererKind.gl
    private let device: GLDevice
    /// Made at the first draw that needs them, not at the configure: a surface that only shows
    /// a single-pixel colour never has EGL buffers (Mesa's software path allocates one of the
    /// surface's size as soon as the EGL surface is made).
    private var window: EGLWindow?
    private var eglSurface: EGLSurface?
    /// A configure was applied: the surface's buffer size is known.
    private var configured = false
    /// The frame serials in the surface's buffers, the last swapped first (index age − 1, for
    /// EGL_EXT_buffer_age), all drawn with `drawnKey`; empty after a colour, a blend or a resize.
    private var swapped: [UInt64] = []
    private var drawnKey: (clip: String, settings: OutputSettings, size: Size)?
    private(set) var damaged = DamageMeter()
    /// GL: `convert` is the upload and the draw calls, `present` the swap (which commits; a
    /// software GL such as llvmpipe does its shading there).
    private(set) var costs = FrameCosts()
    private var drawStarted: Nanos = 0
    /// The leases of the surface frames the last swap showed, let go after the swap that
    /// replaced them.
    private var shown = ShownLeases()

    init(device: GLDevice) { self.device = device }

    /// The EGL surface before the window it was made on (the window goes after this body).
    deinit {
        shown.letGo()
        if let eglSurface { device.egl.destroySurface(eglSurface) }
    }

    func canDraw(_ picture: Picture?, settings: OutputSettings?, on surface: any SinkSurface) -> Bool { configured }

    func resize(_ surface: any SinkSurface) throws(SinkError) {
        forgetDrawn()
        configured = true
        window?.resize(surface.bufferSize)
    }

    /// The EGL surface, made on the first call, current.
    private func makeCurrent(_ surface: any SinkSurface) throws(SinkError) -> EGLSurface {
        if eglSurface == nil {
            guard let w = EGLWindow(surface: surface.surface, size: surface.bufferSize) else {
                throw SinkError("cannot create a wl_egl_window")
            }
            window = w
            do { eglSurface = try device.egl.createSurface(window: w) } catch { throw SinkError("\(error)") }
        }
        guard let eglSurface else { throw SinkError("no EGL surface yet") }
        do { try device.egl.makeCurrent(eglSurface) } catch { throw SinkError("\(error)") }
        return eglSurface
    }

    private func swap(_ s: EGLSurface) throws(SinkError) {
        guard device.egl.swap(s) else {
            throw SinkError("eglSwapBuffers failed (EGL error 0x\(String(eglGetError(), radix: 16)))")
        }
    }

    func present(colour: RGB, on surface: any SinkSurface) throws(SinkError) {
        if surface.attachSolid(colour) {
            // A single-pixel buffer in place of the EGL window's: no draw, no swap.
            wl_surface_commit(surface.surface)
        } else {
            let s = try makeCurrent(surface)
            device.renderer.clear(colour, buffer: surface.bufferSize)
            try swap(s)
        }
        damaged.record(nil, of: surface.bufferSize)
        forgetDrawn()
        shown.letGo()
    }

    private func forgetDrawn() {
        swapped.removeAll()
        drawnKey = nil
    }

    func present(_ picture: Picture, settings: OutputSettings, on surface: any SinkSurface, shared: Bool, fading: FadeLayer?,
                 note: CommitNote?) throws(SinkError) {
        drawStarted = Sys.threadCPU()
        let s = try makeCurrent(surface)
        // The EGL window's buffers are the surface's size: undo a single-pixel colour's viewport.
        surface.attaching(surface.bufferSize, source: nil)
        let t = try device.textures(for: picture)
        if let f = fading {
            // The old picture as it was, then the new one blended over it in the same pass.
            let old = try device.textures(for: f.picture)
            device.renderer.draw(old, orientation: f.picture.orientation, buffer: surface.bufferSize, settings: f.settings, shared: false)
            device.renderer.drawBlended(t, orientation: picture.orientation, buffer: surface.bufferSize, settings: settings,
                                        weight: f.weight)
            surface.requestFrame()
            note?.record()
            let swapping = drewUntilSwap()
            try swap(s)
            costs.present.add(Sys.threadCPU() - swapping)
            swapped(picture, f.picture)
            damaged.record(nil, of: surface.bufferSize)
            forgetDrawn()
            return
        }
        let size = surface.bufferSize
        // Where the picture lands, once for this present: the draw and its damage.
        let placement = Placement.compute(video: picture.orientation.displaySize(t.size), output: size, mode: settings.mode, span: settings.span)
        let damage = damage(picture, placement: placement, settings: settings, size: size, shared: shared, surface: s)
        if let redraw = damage.redraw { device.renderer.beginScissor(redraw, buffer: size) }
        device.renderer.draw(t, orientation: picture.orientation, buffer: size, settings: settings, shared: shared, placement: placement)
        if damage.redraw != nil { device.renderer.endScissor() }
        // Before eglSwapBuffers, which commits.
        surface.requestFrame()
        note?.record()
        // What the compositor is told: the rectangles only where EGL can say so.
        damaged.record(device.egl.swapsWithDamage ? damage.changed : nil, of: size)
        let swapping = drewUntilSwap()
        if let rects = damage.changed {
            guard device.egl.swap(s, damage: rects, height: size.height) else {
                throw SinkError("eglSwapBuffersWithDamage failed (EGL error 0x\(String(eglGetError(), radix: 16)))")
            }
        } else {
            try swap(s)
        }
        costs.present.add(Sys.threadCPU() - swapping)
        swapped(picture)
        if drawnKey.map({ $0.clip != picture.clip || $0.settings != settings || $0.size != size }) ?? true { swapped.removeAll() }
        drawnKey = (picture.clip, settings, size)
        swapped.insert(picture.serial, at: 0)
        if swapped.count > 4 { swapped.removeLast() }
    }
}

extension GLSink {
    /// A swap showed `pictures`: what the swap before showed is let go.
    private func swapped(_ pictures: Picture?...) {
        shown.letGo()
        for p in pictures { shown.hold(p) }
    }

    /// Counts the draw so far as its `convert` cost; returns when the swap starts.
    private func drewUntilSwap() -> Nanos {
        let now = Sys.threadCPU()
        costs.convert.add(now - drawStarted)
        return now
    }

    /// What this frame must draw and what the compositor is told changed, in buffer pixels
    /// (top-left origin). `redraw`: the back buffer holds an older frame of the same clip and
    /// settings (EGL_EXT_buffer_age), so only the part that changed since then is drawn (nil:
    /// all of it). `changed`: the part that differs from the frame swapped last (nil: all).
    /// Upright pictures only, not tiled; a shared picture is copied whole. Never empty: an
    /// unchanged frame still names one pixel, so that the compositor sends its frame callback.
    private func damage(_ picture: Picture, placement: Placement, settings: OutputSettings, size: Size, shared: Bool,
                        surface: EGLSurface) -> (redraw: PixelRect?, changed: [PixelRect]?) {
        guard let key = drawnKey, key.clip == picture.clip, key.settings == settings, key.size == size,
              picture.orientation == .upright, settings.mode != .tile, let last = swapped.first, last != picture.serial else {
            return (nil, nil)
        }
        func rects(since serial: UInt64) -> [PixelRect]? {
            guard case .rects(let boxes) = Damage.of(picture.changed(since: serial)) else { return nil }
            let r = boxes.compactMap { placement.outputRect(of: $0, picture: picture.size) }
            return r.isEmpty ? [PixelRect(x: 0, y: 0, width: 1, height: 1)] : r
        }
        let changed = rects(since: last)
        let age = device.egl.bufferAge(surface)
        guard !shared, age >= 1, age <= swapped.count, let old = rects(since: swapped[age - 1]) else { return (nil, changed) }
        return (old.dropFirst().reduce(old[0]) { $0.union($1) }, changed)
    }
}
