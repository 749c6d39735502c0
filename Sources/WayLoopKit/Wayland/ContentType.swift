// content-type-v1: a surface tells the compositor what kind of picture it shows, so that it can
// present and scale it as such (a hint: nothing changes where the global is absent). Main
// thread only.
import CWayland

/// wp_content_type_manager_v1 (bound from the registry).
final class ContentTypeManager: WaylandObject {
    init(_ proxy: OpaquePointer) { super.init(proxy, destructor: { wp_content_type_manager_v1_destroy($0) }) }

    /// The surface's wp_content_type_v1 (one per surface: a second is a protocol error).
    func contentType(for surface: WLSurface) -> ContentType? {
        wp_content_type_manager_v1_get_surface_content_type(proxy, surface.proxy).map(ContentType.init)
    }
}

/// wp_content_type_v1 of one surface. Destroying it sets the type back to none (at the next
/// commit): it goes with its surface, just before it.
final class ContentType: WaylandObject {
    init(_ proxy: OpaquePointer) { super.init(proxy, destructor: { wp_content_type_v1_destroy($0) }) }

    /// Double-buffered: applies with the surface's next commit.
    func setVideo() { wp_content_type_v1_set_content_type(proxy, WP_CONTENT_TYPE_V1_TYPE_VIDEO.rawValue) }
}
