// wl_shm: shared-memory buffers, for the shm sink. Main thread only.
import CWayland

/// wl_shm (bound from the registry by every client that may need it; cheap). The sink makes its
/// pools from `proxy`.
final class WLShm: WaylandObject {
    init(_ proxy: OpaquePointer) { super.init(proxy, destructor: { wl_shm_destroy($0) }) }
}
