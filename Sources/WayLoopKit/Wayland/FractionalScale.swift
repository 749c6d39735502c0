// fractional-scale-v1: the scale the compositor prefers for a surface, in 120ths.
// Main thread only.
import CWayland

/// wp_fractional_scale_manager_v1 (bound from the registry).
final class FractionalScaleManager: WaylandObject {
    init(_ proxy: OpaquePointer) { super.init(proxy, destructor: { wp_fractional_scale_manager_v1_destroy($0) }) }

    /// The surface's wp_fractional_scale_v1; `preferred` gets each preferred scale (× 120).
    func fractionalScale(for surface: WLSurface, preferred: @escaping (UInt32) -> Void) -> FractionalScale? {
        wp_fractional_scale_manager_v1_get_fractional_scale(proxy, surface.proxy).map { FractionalScale($0, preferred: preferred) }
    }
}

/// wp_fractional_scale_v1 of one surface.
final class FractionalScale: WaylandObject, ListenerTarget {
    private let preferred: (UInt32) -> Void

    fileprivate init(_ proxy: OpaquePointer, preferred: @escaping (UInt32) -> Void) {
        self.preferred = preferred
        super.init(proxy, destructor: { wp_fractional_scale_v1_destroy($0) })
        wp_fractional_scale_v1_add_listener(proxy, fractionalListener, listenerData)
    }

    fileprivate func preferredScale(_ scale120: UInt32) { preferred(scale120) }
}

// MARK: Listener

nonisolated(unsafe) private let fractionalListener = listenerTable(wp_fractional_scale_v1_listener(
    preferred_scale: { data, _, scale in FractionalScale.from(data).preferredScale(scale) }
))
