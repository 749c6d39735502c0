// The shm sink: frames converted on the CPU straight into wl_shm buffers (ShmPictures), for
// machines where GL would only be software (measured: ~8x less CPU than shading the same frames
// in llvmpipe, and no Mesa driver loaded). Rotation and mirroring are the compositor's: the
// buffer keeps the video's stored orientation and wl_surface.set_buffer_transform says how to
// turn it. Main thread only.
import CSystem
import CWayland
import WayLoopCore

final class ShmSink: Sink {
    let kind = RendererKind.shm
    private let device: ShmDevice
    /// The solid fallback colour's buffers (drawn once; two, so that a new colour never
    /// overwrites the one the compositor still shows).
    private var colourBuffers: [ShmBuffer] = []
    /// Every buffer for this key was busy at this release count: wait for the next release,
    /// or for another key (a resize, other settings, another clip).
    private var blocked: (releases: UInt64, key: ShmPictures.Key, clip: String)?
    /// A crossfade's blended pictures (old and new converted as usual, then mixed into one of
    /// these); freed when the fade is over.
    private var fadeBuffers: [ShmBuffer] = []
    /// What the surface shows now (the last commit): the compositor is told only what changed
    /// since (nil: a colour, a blend, or nothing yet: the next commit damages everything).
    private var committed: (clip: String, key: ShmPictures.Key, serial: UInt64)?
    private(set) var damaged = DamageMeter()
    private(set) var costs = FrameCosts()

    init(device: ShmDevice) { self.device = device }

    func canDraw(_ picture: Picture?, settings: OutputSettings?, on surface: any SinkSurface) -> Bool {
        guard let b = blocked else { return true }
        guard b.releases == device.releases, let picture, let settings else { return true }
        return b.clip != picture.clip || b.key != Self.key(picture, settings, attachment(picture, settings, surface))
    }

    func resize(_ surface: any SinkSurface) throws(SinkError) {
        colourBuffers.removeAll { $0.size != surface.bufferSize && !$0.busy }
        blocked = nil
        committed = nil
    }

    /// The buffer's size in the picture's stored orientation (a quarter turn swaps its sides):
    /// the surface's, or a smaller one the compositor scales (`attachment`). A span's canvas
    /// buffer is one key for every output of the span: converted once.
    private static func key(_ picture: Picture, _ settings: OutputSettings, _ a: Attachment) -> ShmPictures.Key {
        let b = a.size
        let size = picture.orientation.rotation % 180 == 0 ? b : Size(width: b.height, height: b.width)
        return ShmPictures.Key(size: size, mode: a.mode ?? settings.mode, color: settings.color, dim: settings.dim,
                               span: a.mode == nil ? settings.span?.stored(picture.orientation) : nil)
    }

    /// The buffer attached as displayed: the surface's size, or with the compositor scaling
    /// (`--scaling`, and a viewport) the picture's own where it is upscaled; for a span, the
    /// canvas buffer, its mode on the canvas, and this output's part of it.
    private typealias Attachment = (size: Size, source: Rect?, mode: ScaleMode?)

    private func attachment(_ picture: Picture, _ settings: OutputSettings, _ surface: any SinkSurface) -> Attachment {
        let whole = (surface.bufferSize, nil as Rect?, nil as ScaleMode?)
        guard settings.scaling.compositorScales(dmabuf: device.dmabuf), surface.scalesBuffers else { return whole }
        let video = picture.orientation.displaySize(picture.size)
        if settings.mode.isSpan {
            // Upright only: a view is a part of the buffer's memory, which is stored turned.
            guard picture.orientation == .upright, let span = settings.span,
                  let c = CompositorScaling.canvas(video: video, span: span, output: surface.bufferSize, mode: settings.mode) else { return whole }
            return (c.buffer, c.source, c.mode)
        }
        guard let b = CompositorScaling.buffer(video: video, output: surface.bufferSize, mode: settings.mode) else { return whole }
        return (b, nil, nil)
    }

    func present(colour: RGB, on surface: any SinkSurface) throws(SinkError) {
        let size = surface.bufferSize
        if surface.attachSolid(colour) {
            // A single-pixel buffer: nothing filled, and no buffer of ours kept for it.
            colourBuffers.removeAll { !$0.busy }
            wl_surface_commit(surface.surface)
            damaged.record(nil, of: size)
            blocked = nil
            committed = nil
            return
        }
        colourBuffers.removeAll { $0.size != size && !$0.busy }
        let b: ShmBuffer
        if let free = colourBuffers.first(where: { !$0.busy && $0.size == size }) {
            b = free
        } else if colourBuffers.count < 2 {
            b = try device.makeBuffer(size)
            colourBuffers.append(b)
        } else {
            throw SinkError.waiting
        }
        b.fill(colour)
        surface.setBufferTransform(0)
        surface.attaching(size, source: nil)
        try b.attach(to: surface)
        wl_surface_commit(surface.surface)
        damaged.record(nil, of: size)
        blocked = nil
        committed = nil
    }

    func present(_ picture: Picture, settings: OutputSettings, on surface: any SinkSurface, shared: Bool, fading: FadeLayer?,
                 note: CommitNote?) throws(SinkError) {
        let started = Sys.threadCPU()
        let converted = costs.convert.nanos
        defer { costs.present.add(Sys.threadCPU() - started - (costs.convert.nanos - converted)) }
        // The buffer's geometry, once for this present: its key and this output's part of it.
        let attached = attachment(picture, settings, surface)
        let key = Self.key(picture, settings, attached)
        let now = Sys.now()
        guard var buffer = try device.buffer(for: key, picture: picture, now: now, cost: &costs.convert) else {
            blocked = (device.releases, key, picture.clip)
            throw SinkError.waiting
        }
        var blended = false
        // Buffers keep the video's stored orientation (the compositor turns them) and, with the
        // compositor scaling, a clip's own size: two videos stored differently or in buffers of
        // other sizes cannot be mixed pixel by pixel, so such a switch cuts.
        let oldKey = fading.map { Self.key($0.picture, $0.settings, attachment($0.picture, $0.settings, surface)) }
        if let f = fading, let oldKey, f.picture.orientation == picture.orientation, oldKey.size == key.size {
            guard let old = try device.buffer(for: oldKey, picture: f.picture, now: now, cost: &costs.convert),
                  let mixed = try fadeBuffer(key.size) else {
                // Draw again after a release (not at once: nothing frees a buffer meanwhile).
                blocked = (device.releases, key, picture.clip)
                throw SinkError.waiting
            }
            csys_blend(mixed.data.assumingMemoryBound(to: UInt8.self), old.data.assumingMemoryBound(to: UInt8.self),
                       buffer.data.assumingMemoryBound(to: UInt8.self), UInt(mixed.stride * mixed.size.height),
                       UInt32((f.weight * 256).rounded()))
            buffer = mixed
            blended = true
        } else {
            fadeBuffers.removeAll { !$0.busy }
        }
        blocked = nil
        colourBuffers.removeAll { !$0.busy }
        surface.setBufferTransform(BufferTransform.forOrientation(picture.orientation))
        // A span's canvas buffer: this output's part as a wl_buffer of its own over the same
        // memory (a viewport source rectangle would do it, but sway 1.7's software renderer
        // ignores a source's offset), scaled onto the surface by the viewport's destination.
        let view = attached.source.map { ShmSink.pixels($0, within: buffer.size) }
        // A redraw the surface asked for (a configure, other settings, a resume) damages all.
        let damage = blended || surface.needsRedraw ? nil : damage(picture, key: key).map { ShmSink.inView($0, view) }
        surface.attaching(view.map { Size(width: $0.width, height: $0.height) } ?? buffer.size, source: nil)
        try buffer.attach(to: surface, damage: damage, view: view)
        buffer.shown.hold(picture, fading?.picture)
        damaged.record(damage, of: view.map { Size(width: $0.width, height: $0.height) } ?? buffer.size)
        surface.requestFrame()
        note?.record()
        wl_surface_commit(surface.surface)
        committed = blended ? nil : (picture.clip, key, picture.serial)
    }
}

extension ShmSink {
    /// A part of a buffer in whole pixels (edges rounded), inside it.
    static func pixels(_ r: Rect, within size: Size) -> PixelRect {
        let x0 = max(0, min(size.width - 1, Int(r.x.rounded()))), y0 = max(0, min(size.height - 1, Int(r.y.rounded())))
        let x1 = max(x0 + 1, min(size.width, Int((r.x + r.width).rounded()))), y1 = max(y0 + 1, min(size.height, Int((r.y + r.height).rounded())))
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Buffer damage as a view's own (its pixels; one pixel when none of it is in the view).
    static func inView(_ rects: [PixelRect], _ view: PixelRect?) -> [PixelRect] {
        guard let view else { return rects }
        let mine = rects.map { $0.intersection(view) }.filter { !$0.isEmpty }
            .map { PixelRect(x: $0.x - view.x, y: $0.y - view.y, width: $0.width, height: $0.height) }
        return mine.isEmpty ? [PixelRect(x: 0, y: 0, width: 1, height: 1)] : mine
    }

    /// The buffer rectangles that differ from what the surface shows (nil: all of it): the
    /// changed tiles since the frame committed last, when that was this clip with this key.
    /// A redraw of the same frame (a configure, a lost buffer) is a full one. Never empty: an
    /// unchanged frame still damages one pixel, so that the compositor renders and sends the
    /// frame callback the schedule waits for.
    private func damage(_ picture: Picture, key: ShmPictures.Key) -> [PixelRect]? {
        guard let c = committed, c.clip == picture.clip, c.key == key, c.serial != picture.serial, key.mode != .tile,
              case .rects(let boxes) = Damage.of(picture.changed(since: c.serial)) else { return nil }
        let layout = device.layout(clip: picture.clip, key: key, video: picture.size)
        let rects = boxes.compactMap(layout.bufferRect(of:))
        return rects.isEmpty ? [PixelRect(x: 0, y: 0, width: 1, height: 1)] : rects
    }

    /// A free buffer of `size` for a blended picture: as many as a picture's ring (one shown,
    /// one released late, one to write).
    private func fadeBuffer(_ size: Size) throws(SinkError) -> ShmBuffer? {
        fadeBuffers.removeAll { $0.size != size && !$0.busy }
        if let b = fadeBuffers.first(where: { !$0.busy }) { return b }
        guard fadeBuffers.count < ShmPictures.ringLimit else { return nil }
        let b = try device.makeBuffer(size)
        fadeBuffers.append(b)
        return b
    }
}
