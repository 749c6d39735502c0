// One wl_shm buffer: memfd memory (sealed against resizing, since the compositor maps it),
// mapped here and wrapped in a wl_buffer. The pool has a spare row above the picture and below it, and at
// least one spare pixel at the end of every row, outside what the compositor reads: a crop
// that starts between two chroma samples converts from the sample before it and spills one
// pixel there (see ShmConverter). `busy` from attach until wl_buffer.release: the shm
// sink never writes into a buffer the compositor may still read. Main thread only.
import CSystem
import Glibc
import WayLoopCore

/// Memory the shm renderer's converter writes a picture into: a wl_shm buffer, or a still's
/// image (RGBImage), laid out alike (see ShmBuffer).
protocol PixelCanvas: AnyObject {
    var size: Size { get }
    var stride: Int { get }
    /// The first pixel of the picture (a spare row and a spare pixel into the memory).
    var data: UnsafeMutableRawPointer { get }
    /// The bars painted (picture rectangle and colour).
    var bars: (rect: PixelRect, colour: RGB)? { get set }
    func fill(_ c: RGB)
}

/// The layout both kinds of PixelCanvas share, and their colour fill.
enum CanvasLayout {
    /// Rows on 64-byte boundaries (libswscale's SIMD writes aligned rows fastest), with at
    /// least one spare pixel each.
    static func stride(width: Int) -> Int { (width * 4 + 4 + 63) & ~63 }
    /// Where the picture starts in the memory: after a spare row and a spare pixel (so that
    /// the pixel before the first row's first is inside it too).
    static func lead(_ stride: Int) -> Int { stride + 4 }
    /// One opaque colour as XRGB/ARGB memory holds it (little-endian: B, G, R, A).
    static func pixel(_ c: RGB) -> UInt32 { UInt32(0xff00_0000) | UInt32(c.red) << 16 | UInt32(c.green) << 8 | UInt32(c.blue) }
    /// `count` pixels from `data` set to one opaque colour.
    static func fill(_ data: UnsafeMutableRawPointer, count: Int, with c: RGB) {
        data.bindMemory(to: UInt32.self, capacity: count).update(repeating: pixel(c), count: count)
    }
}

final class ShmBuffer: PixelCanvas {
    let size: Size
    let stride: Int
    let bytes: Int
    /// The picture's first pixel (a spare row and a spare pixel into the mapping).
    let data: UnsafeMutableRawPointer
    private let mapping: UnsafeMutableRawPointer
    private let buffer: ShmPoolBuffer
    /// Kept for `view`: more wl_buffers over the same memory.
    private let pool: ShmPool
    private let format: ShmFormat
    /// Parts of the picture as wl_buffers of their own (a span's outputs each showing theirs of
    /// one converted canvas), made on first use; each busy from attach until its release.
    private var views: [(rect: PixelRect, buffer: ShmPoolBuffer, busy: Bool)] = []
    private var wholeBusy = false
    /// Attached and committed (the buffer or a view of it), not yet released by the compositor.
    var busy: Bool { wholeBusy || views.contains { $0.busy } }
    /// What the buffer holds outside the picture: the bars painted (picture rectangle and
    /// colour), so that fit and center paint them once per buffer, not per frame.
    var bars: (rect: PixelRect, colour: RGB)?
    /// The frame serial converted into it, and that frame's colour (0: none; for ShmPictures,
    /// which converts only what changed since).
    var holds: (serial: UInt64, colour: FrameColour?) = (0, nil)
    /// When a picture was last converted into it (ShmPictures frees a spare unwritten for a while).
    var lastWritten: Nanos = 0
    /// Called on every release (the sink waiting for a free buffer draws again).
    var onRelease: (() -> Void)?
    /// The leases of the surface frames it shows, kept until the compositor released it.
    var shown = ShownLeases()

    /// `format`: 4 bytes per pixel.
    init(shm: ShmGlobal, size: Size, format: ShmFormat) throws(SinkError) {
        self.size = size
        stride = CanvasLayout.stride(width: size.width)
        // A spare row above (the crop spill) and one below: a view's wl_buffer starts up to a
        // row in and must still have whole rows of stride in the pool (wl_shm's check).
        let (rows, overflow) = stride.multipliedReportingOverflow(by: size.height + 2)
        let b = rows + 4
        guard !overflow, rows > 0, b <= Int(Int32.max) else { throw SinkError("a \(size) shm buffer is too large") }
        bytes = b
        let fd = csys_memfd("wayloop-shm")
        guard fd >= 0 else { throw SinkError("memfd_create failed: \(Sys.errnoText())") }
        defer { close(fd) }
        guard ftruncate(fd, off_t(bytes)) == 0 else { throw SinkError("cannot size a \(bytes >> 20) MiB shm buffer: \(Sys.errnoText())") }
        _ = csys_seal_size(fd)
        guard let p = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), p != MAP_FAILED else {
            throw SinkError("cannot map a shm buffer: \(Sys.errnoText())")
        }
        // The pool is kept for views (its buffers stay valid without it too).
        guard let pool = ShmPool(shm, fd: fd, size: bytes) else {
            munmap(p, bytes)
            throw SinkError("wl_shm.create_pool failed")
        }
        guard let buf = pool.makeBuffer(offset: CanvasLayout.lead(stride), size: size, stride: stride, format: format) else {
            munmap(p, bytes)
            throw SinkError("wl_shm_pool.create_buffer failed")
        }
        mapping = p
        data = p + CanvasLayout.lead(stride)
        buffer = buf
        self.pool = pool
        self.format = format
        buf.onRelease = { [unowned self] in
            self.wholeBusy = false
            self.released()
        }
    }

    /// The proxies first (no release can arrive for a freed object), then the memory: the
    /// compositor has its own mapping of the pool, so what it shows stays valid.
    deinit {
        shown.letGo()
        buffer.destroy()
        for v in views { v.buffer.destroy() }
        munmap(mapping, bytes)
    }

    /// Attaches to `surface` with `damage` (buffer pixels; nil: the whole buffer; the caller
    /// commits). `view`: only that part of the picture, as a wl_buffer of its own (damage in
    /// its pixels).
    func attach(to surface: any SinkSurface, damage: [PixelRect]? = nil, view: PixelRect? = nil) throws(SinkError) {
        guard let view, view != PixelRect(x: 0, y: 0, width: size.width, height: size.height) else {
            buffer.attach(to: surface.surface, damage: damage)
            wholeBusy = true
            return
        }
        let i = try viewIndex(view)
        views[i].buffer.attach(to: surface.surface, damage: damage)
        views[i].busy = true
    }

    private func viewIndex(_ r: PixelRect) throws(SinkError) -> Int {
        if let i = views.firstIndex(where: { $0.rect == r }) { return i }
        guard r.x >= 0, r.y >= 0, r.width > 0, r.height > 0, r.x + r.width <= size.width, r.y + r.height <= size.height,
              let b = pool.makeBuffer(offset: CanvasLayout.lead(stride) + r.y * stride + r.x * 4, size: Size(width: r.width, height: r.height),
                                      stride: stride, format: format) else {
            throw SinkError("cannot make a \(r) view of a \(size) shm buffer")
        }
        // A span's outputs come and go: a handful of views at most, the unused ones dropped.
        if views.count >= 8, let free = views.firstIndex(where: { !$0.busy }) {
            views[free].buffer.destroy()
            views.remove(at: free)
        }
        let rect = r
        b.onRelease = { [unowned self] in
            if let j = self.views.firstIndex(where: { $0.rect == rect }) { self.views[j].busy = false }
            self.released()
        }
        views.append((r, b, false))
        return views.count - 1
    }

    /// Fills the whole buffer with one opaque colour (little-endian XRGB/ARGB: B, G, R, A).
    func fill(_ c: RGB) {
        CanvasLayout.fill(data, count: (bytes - CanvasLayout.lead(stride)) / 4, with: c)
        holds = (0, nil)
    }

    private func released() {
        if !busy { shown.letGo() }
        onRelease?()
    }
}
