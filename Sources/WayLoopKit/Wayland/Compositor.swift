// wl_compositor and what it makes: surfaces and regions. Main thread only.
import CWayland

/// wl_compositor (bound from the registry).
final class WLCompositor: WaylandObject {
    init(_ proxy: OpaquePointer) { super.init(proxy, destructor: { wl_compositor_destroy($0) }) }

    func createSurface() -> WLSurface? { wl_compositor_create_surface(proxy).map(WLSurface.init) }

    /// A region to give a surface; destroy it after (the surface keeps a copy).
    func createRegion() -> WLRegion? { wl_compositor_create_region(proxy).map(WLRegion.init) }
}

/// wl_surface. Its double-buffered state applies with the next `commit`.
final class WLSurface: WaylandObject {
    init(_ proxy: OpaquePointer) { super.init(proxy, destructor: { wl_surface_destroy($0) }) }

    func setInputRegion(_ region: WLRegion) { wl_surface_set_input_region(proxy, region.proxy) }
    func setOpaqueRegion(_ region: WLRegion) { wl_surface_set_opaque_region(proxy, region.proxy) }
    func setBufferScale(_ scale: Int32) { wl_surface_set_buffer_scale(proxy, scale) }
    func setBufferTransform(_ transform: Int32) { wl_surface_set_buffer_transform(proxy, transform) }
    func commit() { wl_surface_commit(proxy) }

    /// wl_surface.frame: `done` runs when it is a good time to draw the next frame. Ask before
    /// the commit it is for.
    func frame(_ done: @escaping (UInt32) -> Void) -> WLCallback? {
        wl_surface_frame(proxy).map { WLCallback($0, done: done) }
    }
}

/// wl_region: made, given to a surface and destroyed at once.
final class WLRegion: WaylandObject {
    init(_ proxy: OpaquePointer) { super.init(proxy, destructor: { wl_region_destroy($0) }) }

    func add(x: Int32, y: Int32, width: Int32, height: Int32) { wl_region_add(proxy, x, y, width, height) }
}
