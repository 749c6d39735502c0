// presentation-time: wp_presentation says on which clock it timestamps presented frames
// (feedback objects: FrameTrace). Main thread only.
import CWayland

/// wp_presentation (bound from the registry).
final class Presentation: WaylandObject, ListenerTarget {
    /// The clock_id event's clock; nil until it arrives.
    private(set) var clock: UInt32?

    init(_ proxy: OpaquePointer) {
        super.init(proxy, destructor: { wp_presentation_destroy($0) })
        wp_presentation_add_listener(proxy, presentationListener, listenerData)
    }

    fileprivate func clockID(_ id: UInt32) { clock = id }
}

// MARK: Listener

nonisolated(unsafe) private let presentationListener = listenerTable(wp_presentation_listener(
    clock_id: { data, _, id in Presentation.from(data).clockID(id) }
))
