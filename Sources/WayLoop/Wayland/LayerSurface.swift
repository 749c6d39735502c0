// One output's wallpaper surface: a wl_surface given the background layer by wlr-layer-shell.
// It knows its geometry (configure, scale, fractional scale) and its frame callback; what is
// drawn on it and how is its sink's business (Sinks/). Listeners only record state; the app
// draws after dispatch. Main thread only.
import CWayland
import WayLoopCore

protocol LayerSurfaceDelegate: AnyObject {
    /// The compositor closed the layer surface (output gone or the shell withdrew it).
    func layerSurfaceClosed(_ surface: LayerSurface)
    /// A frame callback fired: the surface was presented (or is ready for a new frame).
    func layerSurfaceFrameDone(_ surface: LayerSurface, time: UInt32)
}

final class LayerSurface {
    /// The registry name of the output this surface is on.
    let outputID: UInt32
    let surface: OpaquePointer
    let layerSurface: OpaquePointer
    weak var delegate: LayerSurfaceDelegate?
    private var frameCallback: OpaquePointer?
    private let compositor: OpaquePointer

    /// Logical size (last configure), integer and fractional scale.
    private(set) var geometry = SurfaceGeometry(logical: Size(width: 0, height: 0))
    var logicalSize: Size { geometry.logical }
    var bufferSize: Size { geometry.bufferSize }
    /// wp_viewport + wp_fractional_scale_v1, when the compositor offers both.
    private var viewport: OpaquePointer?
    private var fractional: OpaquePointer?
    /// A configure arrived that has not been drawn yet.
    private(set) var needsRedraw = false
    /// A frame callback is pending: the compositor has not asked for the next frame yet.
    var awaitingFrame: Bool { frameCallback != nil }
    /// The video frame serial last committed on this surface.
    var shownSerial: UInt64 = 0
    /// A configure size is pending application (acked, buffer not yet resized).
    private var pendingConfigure = false
    /// The sink has buffers of the current size (set by the app after `applyConfigure`).
    var sinkReady = false
    var isConfigured: Bool { sinkReady && !logicalSize.isEmpty }
    /// When the pending frame callback was requested (to notice an output that stopped asking).
    private(set) var frameRequestedAt: Nanos = 0
    /// Frames committed on this surface.
    private(set) var framesShown = 0
    /// wl_surface.set_buffer_transform last sent (the shm sink turns buffers this way).
    private var bufferTransform: Int32 = 0
    /// Ready for a new frame: configured and presented (its last frame callback fired).
    var canTakeFrame: Bool { isConfigured && !awaitingFrame }

    init?(outputID: UInt32, compositor: OpaquePointer, layerShell: OpaquePointer, output: OpaquePointer,
          scale: Int32, viewporter: OpaquePointer?, fractionalScale: OpaquePointer?, layer: Layer = .background) {
        self.outputID = outputID
        self.compositor = compositor
        guard let s = wl_compositor_create_surface(compositor) else { return nil }
        guard let ls = zwlr_layer_shell_v1_get_layer_surface(
            layerShell, s, output, LayerSurface.wire(layer), layer == .background ? "wallpaper" : "wayloop") else {
            wl_surface_destroy(s)
            return nil
        }
        surface = s
        layerSurface = ls
        geometry.integerScale = Int(scale)
        if let viewporter, let fractionalScale {
            viewport = wp_viewporter_get_viewport(viewporter, s)
            fractional = wp_fractional_scale_manager_v1_get_fractional_scale(fractionalScale, s)
        }
        zwlr_layer_surface_v1_add_listener(ls, layerSurfaceListener, Unmanaged.passUnretained(self).toOpaque())
        // Size 0×0 with all four anchors: the compositor gives us the whole output.
        zwlr_layer_surface_v1_set_size(ls, 0, 0)
        zwlr_layer_surface_v1_set_anchor(ls, ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP.rawValue | ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM.rawValue
            | ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT.rawValue | ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT.rawValue)
        // -1: not moved by other surfaces' exclusive zones (panels), drawn under them.
        zwlr_layer_surface_v1_set_exclusive_zone(ls, -1)
        zwlr_layer_surface_v1_set_keyboard_interactivity(ls, ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_NONE.rawValue)
        // An empty input region: clicks go through to the desktop.
        if let region = wl_compositor_create_region(compositor) {
            wl_surface_set_input_region(s, region)
            wl_region_destroy(region)
        }
        if let fractional {
            wp_fractional_scale_v1_add_listener(fractional, fractionalListener, Unmanaged.passUnretained(self).toOpaque())
        } else {
            wl_surface_set_buffer_scale(s, scale)
        }
        wl_surface_commit(s)
    }

    static func wire(_ layer: Layer) -> UInt32 {
        switch layer {
        case .background: return ZWLR_LAYER_SHELL_V1_LAYER_BACKGROUND.rawValue
        case .bottom: return ZWLR_LAYER_SHELL_V1_LAYER_BOTTOM.rawValue
        case .top: return ZWLR_LAYER_SHELL_V1_LAYER_TOP.rawValue
        case .overlay: return ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY.rawValue
        }
    }

    /// Children first: frame callback, viewport objects, layer surface, wl_surface (the sink,
    /// which owns the buffers or the EGL window, is gone before this).
    deinit {
        if let frameCallback { wl_callback_destroy(frameCallback) }
        if let fractional { wp_fractional_scale_v1_destroy(fractional) }
        if let viewport { wp_viewport_destroy(viewport) }
        zwlr_layer_surface_v1_destroy(layerSurface)
        wl_surface_destroy(surface)
    }

    /// The output's integer scale changed (wl_output.scale).
    func setScale(_ s: Int32) {
        guard Int(s) != geometry.integerScale else { return }
        geometry.integerScale = Int(s)
        geometryChanged()
    }

    private func geometryChanged() {
        pendingConfigure = true
        needsRedraw = true
    }

    /// Applies an acked configure: scale, viewport and opaque region. Returns true when the
    /// buffer size may have changed (the sink resizes). Called by the app outside any listener.
    func applyConfigure() -> Bool {
        guard pendingConfigure, !logicalSize.isEmpty else { return false }
        pendingConfigure = false
        wl_surface_set_buffer_scale(surface, Int32(geometry.bufferScale))
        if let viewport {
            // The buffer is the exact fractional size; the viewport maps it onto the logical size.
            if geometry.usesViewport {
                wp_viewport_set_destination(viewport, Int32(logicalSize.width), Int32(logicalSize.height))
            } else {
                wp_viewport_set_destination(viewport, -1, -1)
            }
        }
        // Opaque over the whole surface: the compositor can skip whatever lies beneath.
        if let region = wl_compositor_create_region(compositor) {
            wl_region_add(region, 0, 0, Int32(logicalSize.width), Int32(logicalSize.height))
            wl_surface_set_opaque_region(surface, region)
            wl_region_destroy(region)
        }
        return true
    }

    /// wl_surface.set_buffer_transform (double-buffered: applies with the next commit).
    func setBufferTransform(_ t: Int32) {
        guard t != bufferTransform else { return }
        bufferTransform = t
        wl_surface_set_buffer_transform(surface, t)
    }

    /// Asks for a frame callback; must come before the commit (requested after, it would
    /// attach to the next commit and stall).
    func requestFrame() {
        guard frameCallback == nil, let cb = wl_surface_frame(surface) else { return }
        frameCallback = cb
        frameRequestedAt = Sys.now()
        wl_callback_add_listener(cb, frameListener, Unmanaged.passUnretained(self).toOpaque())
    }

    func didDraw(serial: UInt64) {
        shownSerial = serial
        needsRedraw = false
        framesShown += 1
    }

    /// Draw again at the next chance (another video or other settings on this surface).
    func invalidate() { needsRedraw = true }

    fileprivate func configure(serial: UInt32, width: UInt32, height: UInt32) {
        zwlr_layer_surface_v1_ack_configure(layerSurface, serial)
        let size = Size(width: Int(width), height: Int(height))
        if size != logicalSize || !sinkReady {
            geometry.logical = size
            geometryChanged()
        } else if !needsRedraw {
            // Same size, picture already up: acknowledging needs a commit, not a new frame.
            wl_surface_commit(surface)
        }
    }

    fileprivate func closed() { delegate?.layerSurfaceClosed(self) }

    fileprivate func preferredScale(_ scale120: UInt32) {
        guard geometry.scale120 != Int(scale120) else { return }
        geometry.scale120 = Int(scale120)
        geometryChanged()
    }

    fileprivate func frameDone(_ callback: OpaquePointer?, time: UInt32) {
        if let callback { wl_callback_destroy(callback) }
        frameCallback = nil
        delegate?.layerSurfaceFrameDone(self, time: time)
    }

    fileprivate static func from(_ data: UnsafeMutableRawPointer?) -> LayerSurface {
        Unmanaged<LayerSurface>.fromOpaque(data!).takeUnretainedValue()
    }
}

// MARK: Listeners

nonisolated(unsafe) private let layerSurfaceListener: UnsafeMutablePointer<zwlr_layer_surface_v1_listener> = {
    let p = UnsafeMutablePointer<zwlr_layer_surface_v1_listener>.allocate(capacity: 1)
    p.initialize(to: zwlr_layer_surface_v1_listener(
        configure: { data, _, serial, w, h in LayerSurface.from(data).configure(serial: serial, width: w, height: h) },
        closed: { data, _ in LayerSurface.from(data).closed() }
    ))
    return p
}()

nonisolated(unsafe) private let frameListener: UnsafeMutablePointer<wl_callback_listener> = {
    let p = UnsafeMutablePointer<wl_callback_listener>.allocate(capacity: 1)
    p.initialize(to: wl_callback_listener(
        done: { data, callback, time in LayerSurface.from(data).frameDone(callback, time: time) }
    ))
    return p
}()

nonisolated(unsafe) private let fractionalListener: UnsafeMutablePointer<wp_fractional_scale_v1_listener> = {
    let p = UnsafeMutablePointer<wp_fractional_scale_v1_listener>.allocate(capacity: 1)
    p.initialize(to: wp_fractional_scale_v1_listener(
        preferred_scale: { data, _, scale in LayerSurface.from(data).preferredScale(scale) }
    ))
    return p
}()
