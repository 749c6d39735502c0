// single-pixel-buffer-v1: a 1x1 wl_buffer of one colour, made by the compositor from four
// numbers (no memory shared, nothing converted); a wp_viewport scales it over a whole surface.
// Main thread only.
import CWayland
import WayLoopCore

/// wp_single_pixel_buffer_manager_v1 (bound from the registry).
final class SinglePixelBufferManager: WaylandObject {
    init(_ proxy: OpaquePointer) { super.init(proxy, destructor: { wp_single_pixel_buffer_manager_v1_destroy($0) }) }

    /// A 1x1 buffer of `colour`, opaque (its values as SolidFill.channels gives them).
    func buffer(_ colour: RGB) -> SinglePixelBuffer? {
        let c = SolidFill.channels(colour)
        return wp_single_pixel_buffer_manager_v1_create_u32_rgba_buffer(proxy, c.r, c.g, c.b, c.a)
            .map { SinglePixelBuffer($0, colour: colour) }
    }
}

/// One single-pixel wl_buffer. Its contents never change, so it may stay attached however long
/// the compositor holds it, and needs no release listener (events of a proxy without a
/// listener are dropped by libwayland).
final class SinglePixelBuffer: WaylandObject {
    let colour: RGB

    fileprivate init(_ proxy: OpaquePointer, colour: RGB) {
        self.colour = colour
        super.init(proxy, destructor: { wl_buffer_destroy($0) })
    }

    /// wl_surface.attach at 0, 0 and damage over all of it (the buffer's one pixel).
    func attach(to surface: WLSurface) {
        wl_surface_attach(surface.proxy, proxy, 0, 0)
        wl_surface_damage_buffer(surface.proxy, 0, 0, 1, 1)
    }
}
