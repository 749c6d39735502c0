// One wl_shm buffer: memfd memory (sealed against resizing, since the compositor maps it),
// mapped here and wrapped in a wl_buffer. The pool has one spare row above the picture and at
// least one spare pixel at the end of every row, outside what the compositor reads: a crop
// that starts between two chroma samples converts from the sample before it and spills one
// pixel there (see ShmConverter). `busy` from attach until wl_buffer.release: the shm
// sink never writes into a buffer the compositor may still read. Main thread only.
import CSystem
import Glibc
import WayLoopCore

final class ShmBuffer {
    let size: Size
    let stride: Int
    let bytes: Int
    /// The picture's first pixel (a spare row and a spare pixel into the mapping).
    let data: UnsafeMutableRawPointer
    private let mapping: UnsafeMutableRawPointer
    private let buffer: ShmPoolBuffer
    /// Attached and committed, not yet released by the compositor.
    private(set) var busy = false
    /// What the buffer holds outside the picture: the bars painted (picture rectangle and
    /// colour), so that fit and center paint them once per buffer, not per frame.
    var bars: (rect: PixelRect, colour: RGB)?
    /// The frame serial converted into it, and that frame's colour (0: none; for ShmPictures,
    /// which converts only what changed since).
    var holds: (serial: UInt64, colour: FrameColour?) = (0, nil)
    /// Called on every release (the sink waiting for a free buffer draws again).
    var onRelease: (() -> Void)?

    /// `format`: 4 bytes per pixel.
    init(shm: ShmGlobal, size: Size, format: ShmFormat) throws(SinkError) {
        self.size = size
        // Rows on 64-byte boundaries (libswscale's SIMD writes aligned rows fastest), with at
        // least one spare pixel each.
        stride = (size.width * 4 + 4 + 63) & ~63
        let (rows, overflow) = stride.multipliedReportingOverflow(by: size.height + 1)
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
        // The pool goes at the end of this scope: the buffer made from it stays valid.
        guard let pool = ShmPool(shm, fd: fd, size: bytes) else {
            munmap(p, bytes)
            throw SinkError("wl_shm.create_pool failed")
        }
        guard let buf = pool.makeBuffer(offset: Self.lead(stride), size: size, stride: stride, format: format) else {
            munmap(p, bytes)
            throw SinkError("wl_shm_pool.create_buffer failed")
        }
        mapping = p
        data = p + Self.lead(stride)
        buffer = buf
        buf.onRelease = { [unowned self] in self.released() }
    }

    /// The proxy first (no release can arrive for a freed object), then the memory: the
    /// compositor has its own mapping of the pool, so what it shows stays valid.
    deinit {
        buffer.destroy()
        munmap(mapping, bytes)
    }

    /// Attaches to `surface` with `damage` (buffer pixels; nil: the whole buffer; the caller commits).
    func attach(to surface: LayerSurface, damage: [PixelRect]? = nil) {
        buffer.attach(to: surface.surface, damage: damage)
        busy = true
    }

    /// Fills the whole buffer with one opaque colour (little-endian XRGB/ARGB: B, G, R, A).
    func fill(_ c: RGB) {
        let pixel = UInt32(0xff00_0000) | UInt32(c.red) << 16 | UInt32(c.green) << 8 | UInt32(c.blue)
        let n = (bytes - Self.lead(stride)) / 4
        data.bindMemory(to: UInt32.self, capacity: n).update(repeating: pixel, count: n)
        holds = (0, nil)
    }

    /// Where the picture starts in the mapping: after a spare row and a spare pixel (so that
    /// the pixel before the first row's first is inside the mapping too).
    private static func lead(_ stride: Int) -> Int { stride + 4 }

    private func released() {
        busy = false
        onRelease?()
    }
}
