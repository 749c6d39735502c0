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
    /// The compositor said which fractional scale it prefers (in 120ths), and whether the
    /// surface had shown a buffer by then.
    func layerSurfacePreferredScale(_ surface: LayerSurface, scale120: Int, shown: Bool)
}

/// The zwlr_layer_surface_v1 and the objects of its wl_surface (viewport, fractional scale,
/// frame callback), destroyed children first.
final class LayerSurface: ListenerTarget {
    /// The registry name of the output this surface is on.
    let outputID: UInt32
    let wlSurface: WLSurface
    /// The raw wl_surface, for the sinks (buffer attach, commit, wl_egl_window_create).
    var surface: OpaquePointer { wlSurface.proxy }
    private let layerSurface: OpaquePointer
    weak var delegate: LayerSurfaceDelegate?
    private var frameCallback: WLCallback?
    private let compositor: WLCompositor

    /// Logical size (last configure), integer and fractional scale.
    private(set) var geometry = SurfaceGeometry(logical: Size(width: 0, height: 0))
    var logicalSize: Size { geometry.logical }
    var bufferSize: Size { geometry.bufferSize }
    /// wp_viewport (when the compositor offers wp_viewporter) and wp_fractional_scale_v1 (when
    /// it offers both).
    private var viewport: Viewport?
    private var fractional: FractionalScale?
    /// wp_content_type_v1 (where the compositor offers content-type-v1): says "video".
    private var contentType: ContentType?
    /// How the fallback colour is shown: a single-pixel buffer (with its manager) or the sink's.
    private let solidFill: SolidFill
    private let singlePixel: SinglePixelBufferManager?
    /// The single-pixel buffers attached last, the newest last: the one before it stays until
    /// a newer one has replaced it by a commit (a buffer destroyed while it is the surface's
    /// leaves the contents undefined).
    private var solidBuffers: [SinglePixelBuffer] = []
    /// With fractional scaling: the output's own scale and the compositor's preferred ones.
    private var scaleChoice = FractionalScaleChoice()
    /// The buffer attached when it is not `bufferSize`, or only part of it is shown: its size
    /// and the part (nil: all), which the compositor scales onto the surface (the viewport's
    /// source and destination); nil: a buffer of `bufferSize`, whole.
    private var attached: (size: Size, source: Rect?)?
    /// Buffers of any size can be shown over the whole surface (a viewport).
    var scalesBuffers: Bool { viewport != nil }
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
    /// Times the buffers changed size after the first configure applied (status).
    private(set) var resizes = 0
    private var appliedBufferSize: Size?
    /// What status says of the buffers now (nil: not configured yet).
    var status: SurfaceStatus? {
        guard let b = appliedBufferSize else { return nil }
        return SurfaceStatus(buffer: "\(b.width)x\(b.height)", logical: "\(logicalSize.width)x\(logicalSize.height)", scale: geometry.scale,
                             preferredScale: scaleChoice.late.map { Double($0) / 120 }, resizes: resizes)
    }
    /// wl_surface.set_buffer_transform last sent (the shm sink turns buffers this way).
    private var bufferTransform: Int32 = 0
    /// Ready for a new frame: configured and presented (its last frame callback fired).
    var canTakeFrame: Bool { isConfigured && !awaitingFrame }

    init?(outputID: UInt32, compositor: WLCompositor, layerShell: LayerShell, output: Output,
          scale: Int32, outputScale120: Int?, viewporter: Viewporter?, fractionalScale: FractionalScaleManager?,
          contentType contentTypes: ContentTypeManager? = nil, singlePixel: SinglePixelBufferManager? = nil,
          layer: Layer = .background) {
        self.outputID = outputID
        self.compositor = compositor
        guard let s = compositor.createSurface() else { return nil }
        guard let ls = layerShell.getLayerSurface(s, output: output, layer: layer, namespace: layer == .background ? "wallpaper" : "wayloop") else {
            s.destroy()
            return nil
        }
        wlSurface = s
        layerSurface = ls
        geometry.integerScale = Int(scale)
        viewport = viewporter?.viewport(for: s)
        solidFill = SolidFill.choose(singlePixelBuffer: singlePixel != nil, viewporter: viewport != nil, allowed: Self.singlePixelAllowed)
        self.singlePixel = solidFill == .singlePixel ? singlePixel : nil
        if viewport != nil, let fractionalScale {
            fractional = fractionalScale.fractionalScale(for: s) { [unowned self] in self.preferredScale($0) }
            scaleChoice.output = outputScale120
            geometry.scale120 = scaleChoice.scale120
        }
        // Before the first commit, so that the compositor knows it from the first picture on.
        contentType = contentTypes?.contentType(for: s)
        contentType?.setVideo()
        zwlr_layer_surface_v1_add_listener(ls, layerSurfaceListener, listenerData)
        // Size 0×0 with all four anchors: the compositor gives us the whole output.
        zwlr_layer_surface_v1_set_size(ls, 0, 0)
        zwlr_layer_surface_v1_set_anchor(ls, ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP.rawValue | ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM.rawValue
            | ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT.rawValue | ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT.rawValue)
        // -1: not moved by other surfaces' exclusive zones (panels), drawn under them.
        zwlr_layer_surface_v1_set_exclusive_zone(ls, -1)
        zwlr_layer_surface_v1_set_keyboard_interactivity(ls, ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_NONE.rawValue)
        // An empty input region: clicks go through to the desktop.
        if let region = compositor.createRegion() {
            s.setInputRegion(region)
            region.destroy()
        }
        // With fractional scaling the viewport sets the size; else the integer scale does.
        if fractional == nil { s.setBufferScale(scale) }
        s.commit()
    }

    /// Children first: frame callback, viewport objects, layer surface, wl_surface (the sink,
    /// which owns the buffers or the EGL window, is gone before this).
    deinit {
        frameCallback?.destroy()
        contentType?.destroy()
        fractional?.destroy()
        viewport?.destroy()
        zwlr_layer_surface_v1_destroy(layerSurface)
        wlSurface.destroy()
        for b in solidBuffers { b.destroy() }
    }

    /// WAYLOOP_SINGLE_PIXEL=off: the fallback colour the renderer's way even where a
    /// single-pixel buffer could show it (to measure one against the other).
    private static let singlePixelAllowed = Sys.env("WAYLOOP_SINGLE_PIXEL") != "off"

    /// The scale the buffers are made at, as the start notice says it ("1.5", "2").
    var scaleText: String { geometry.scaleText }

    /// The output's integer scale changed (wl_output.scale).
    func setScale(_ s: Int32) {
        guard Int(s) != geometry.integerScale else { return }
        geometry.integerScale = Int(s)
        geometryChanged()
    }

    /// The output's own scale changed (its mode or its xdg-output logical size).
    func setOutputScale120(_ scale120: Int?) {
        scaleChoice.output = scale120
        fractionalChanged()
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
        if let was = appliedBufferSize, was != bufferSize { resizes += 1 }
        appliedBufferSize = bufferSize
        attached = nil
        wlSurface.setBufferScale(Int32(geometry.bufferScale))
        if let viewport {
            // The buffer is the exact fractional size; the viewport maps it onto the logical size.
            if geometry.usesViewport {
                viewport.setDestination(width: Int32(logicalSize.width), height: Int32(logicalSize.height))
            } else {
                viewport.setDestination(width: -1, height: -1)
            }
        }
        // Opaque over the whole surface: the compositor can skip whatever lies beneath.
        if let region = compositor.createRegion() {
            region.add(x: 0, y: 0, width: Int32(logicalSize.width), height: Int32(logicalSize.height))
            wlSurface.setOpaqueRegion(region)
            region.destroy()
        }
        return true
    }

    /// The next buffer attached is `size` pixels (display orientation), of which `source` is
    /// shown (nil: all): when that is not a whole buffer of `bufferSize`, the viewport scales it
    /// onto the whole surface (buffer scale 1); back at that, the configure's own scale and
    /// viewport. Double-buffered, like the attach.
    func attaching(_ size: Size, source: Rect? = nil) {
        let scaled: (size: Size, source: Rect?)? = size != bufferSize || source != nil ? (size, source) : nil
        guard scaled?.size != attached?.size || scaled?.source != attached?.source, let viewport else { return }
        attached = scaled
        if let scaled {
            wlSurface.setBufferScale(1)
            viewport.setSource(scaled.source, within: scaled.size)
            viewport.setDestination(width: Int32(logicalSize.width), height: Int32(logicalSize.height))
        } else {
            viewport.setSource(nil, within: size)
            wlSurface.setBufferScale(Int32(geometry.bufferScale))
            if geometry.usesViewport {
                viewport.setDestination(width: Int32(logicalSize.width), height: Int32(logicalSize.height))
            } else {
                viewport.setDestination(width: -1, height: -1)
            }
        }
    }

    /// Attaches `colour` as a 1x1 single-pixel buffer that the viewport scales over the whole
    /// surface (upright, buffer scale 1), when this surface shows colours so
    /// (`SolidFill.singlePixel`); false: the sink draws it. The caller commits.
    func attachSolid(_ colour: RGB) -> Bool {
        guard let singlePixel else { return false }
        if solidBuffers.last?.colour != colour {
            guard let b = singlePixel.buffer(colour) else { return false }
            solidBuffers.append(b)
            // The one before last was replaced by an earlier commit: no surface has it now.
            while solidBuffers.count > 2 { solidBuffers.removeFirst().destroy() }
        }
        setBufferTransform(0)
        attaching(Size(width: 1, height: 1))
        solidBuffers.last!.attach(to: wlSurface)
        return true
    }

    /// wl_surface.set_buffer_transform (double-buffered: applies with the next commit).
    func setBufferTransform(_ t: Int32) {
        guard t != bufferTransform else { return }
        bufferTransform = t
        wlSurface.setBufferTransform(t)
    }

    /// Asks for a frame callback; must come before the commit (requested after, it would
    /// attach to the next commit and stall).
    func requestFrame() {
        guard frameCallback == nil, let cb = wlSurface.frame({ [unowned self] in self.frameDone(time: $0) }) else { return }
        frameCallback = cb
        frameRequestedAt = Sys.now()
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
            wlSurface.commit()
        }
    }

    fileprivate func closed() { delegate?.layerSurfaceClosed(self) }

    private func preferredScale(_ scale120: UInt32) {
        let shown = framesShown > 0
        scaleChoice.preferred(Int(scale120), shown: shown)
        delegate?.layerSurfacePreferredScale(self, scale120: Int(scale120), shown: shown)
        fractionalChanged()
    }

    private func fractionalChanged() {
        guard fractional != nil, geometry.scale120 != scaleChoice.scale120 else { return }
        geometry.scale120 = scaleChoice.scale120
        geometryChanged()
    }

    /// The frame callback fired (it has destroyed itself).
    private func frameDone(time: UInt32) {
        frameCallback = nil
        delegate?.layerSurfaceFrameDone(self, time: time)
    }
}

// MARK: Listener

nonisolated(unsafe) private let layerSurfaceListener = listenerTable(zwlr_layer_surface_v1_listener(
    configure: { data, _, serial, w, h in LayerSurface.from(data).configure(serial: serial, width: w, height: h) },
    closed: { data, _ in LayerSurface.from(data).closed() }
))
