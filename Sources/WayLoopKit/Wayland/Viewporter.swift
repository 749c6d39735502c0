// viewporter: a wp_viewport maps a surface's buffer onto a logical size (the buffer is the exact
// fractional size, the viewport scales it back). Main thread only.
import CWayland
import WayLoopCore

/// wp_viewporter (bound from the registry).
final class Viewporter: WaylandObject {
    init(_ proxy: OpaquePointer) { super.init(proxy, destructor: { wp_viewporter_destroy($0) }) }

    func viewport(for surface: WLSurface) -> Viewport? {
        wp_viewporter_get_viewport(proxy, surface.proxy).map(Viewport.init)
    }
}

/// wp_viewport of one surface.
final class Viewport: WaylandObject {
    init(_ proxy: OpaquePointer) { super.init(proxy, destructor: { wp_viewport_destroy($0) }) }

    /// The logical size the buffer is shown at; -1, -1 unsets it (the buffer's own size).
    func setDestination(width: Int32, height: Int32) { wp_viewport_set_destination(proxy, width, height) }

    /// The part of the buffer shown (buffer pixels after its transform, in 1/256ths: wl_fixed),
    /// kept inside a buffer of `size` whatever the rounding (outside is a protocol error); nil
    /// unsets it (the whole buffer).
    func setSource(_ r: Rect?, within size: Size) {
        guard let r else {
            let none = wl_fixed_from_int(-1)
            wp_viewport_set_source(proxy, none, none, none, none)
            return
        }
        let bw = Int32(size.width) * 256, bh = Int32(size.height) * 256
        let x = min(bw - 1, max(0, Int32((r.x * 256).rounded(.down)))), y = min(bh - 1, max(0, Int32((r.y * 256).rounded(.down))))
        let w = max(1, min(bw - x, Int32((r.width * 256).rounded(.down)))), h = max(1, min(bh - y, Int32((r.height * 256).rounded(.down))))
        wp_viewport_set_source(proxy, x, y, w, h)
    }
}
