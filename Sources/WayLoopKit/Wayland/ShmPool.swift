// wl_shm_pool and wl_buffer as the shm device uses them: a pool over a memfd, the buffers
// carved from it, and each buffer's release event. The raw pointers stay here; the shm device
// holds these types. Main thread only.
import CWayland
import WayLoopCore

/// The wl_shm global as the shm device takes it. Not owned: Registry binds and destroys it.
struct ShmGlobal {
    fileprivate let shm: OpaquePointer

    init(_ shm: OpaquePointer) { self.shm = shm }
}

/// The wl_shm pixel formats WayLoop writes: 4 bytes per pixel, both mandatory for every
/// compositor.
enum ShmFormat {
    case xrgb8888
    case argb8888

    fileprivate var code: UInt32 {
        switch self {
        case .xrgb8888: return WL_SHM_FORMAT_XRGB8888.rawValue
        case .argb8888: return WL_SHM_FORMAT_ARGB8888.rawValue
        }
    }
}

/// One wl_shm_pool over `fd` (the compositor maps it). Destroying the pool leaves its buffers
/// valid: it may go as soon as they are made.
final class ShmPool {
    private let pool: OpaquePointer

    init?(_ global: ShmGlobal, fd: Int32, size: Int) {
        guard let p = wl_shm_create_pool(global.shm, fd, Int32(size)) else { return nil }
        pool = p
    }

    deinit { wl_shm_pool_destroy(pool) }

    /// A buffer of `size` pixels at `offset` bytes into the pool, rows `stride` bytes apart.
    func makeBuffer(offset: Int, size: Size, stride: Int, format: ShmFormat) -> ShmPoolBuffer? {
        guard let b = wl_shm_pool_create_buffer(pool, Int32(offset), Int32(size.width), Int32(size.height), Int32(stride),
                                                format.code) else { return nil }
        return ShmPoolBuffer(b, size: size)
    }
}

/// A wl_buffer made from a pool. `onRelease` runs on every wl_buffer.release (the compositor no
/// longer reads it). `destroy` (or deinit) destroys the proxy: no release arrives after it.
final class ShmPoolBuffer {
    private var buffer: OpaquePointer?
    private let size: Size
    var onRelease: (() -> Void)?

    fileprivate init(_ buffer: OpaquePointer, size: Size) {
        self.buffer = buffer
        self.size = size
        wl_buffer_add_listener(buffer, bufferListener, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { destroy() }

    func destroy() {
        if let buffer { wl_buffer_destroy(buffer) }
        buffer = nil
    }

    /// Attaches to `surface` (a LayerSurface's wl_surface) with `damage` (buffer pixels; nil:
    /// the whole buffer); the caller commits.
    func attach(to surface: OpaquePointer, damage: [PixelRect]? = nil) {
        wl_surface_attach(surface, buffer, 0, 0)
        guard let damage else {
            wl_surface_damage_buffer(surface, 0, 0, Int32(size.width), Int32(size.height))
            return
        }
        for r in damage { wl_surface_damage_buffer(surface, Int32(r.x), Int32(r.y), Int32(r.width), Int32(r.height)) }
    }

    fileprivate static func from(_ data: UnsafeMutableRawPointer?) -> ShmPoolBuffer {
        Unmanaged<ShmPoolBuffer>.fromOpaque(data!).takeUnretainedValue()
    }
}

nonisolated(unsafe) private let bufferListener: UnsafeMutablePointer<wl_buffer_listener> = {
    let p = UnsafeMutablePointer<wl_buffer_listener>.allocate(capacity: 1)
    p.initialize(to: wl_buffer_listener(release: { data, _ in ShmPoolBuffer.from(data).onRelease?() }))
    return p
}()

extension ShmGlobal {
    init(_ shm: WLShm) { self.init(shm.proxy) }
}
