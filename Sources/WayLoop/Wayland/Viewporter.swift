// viewporter: a wp_viewport maps a surface's buffer onto a logical size (the buffer is the exact
// fractional size, the viewport scales it back). Main thread only.
import CWayland

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
}
