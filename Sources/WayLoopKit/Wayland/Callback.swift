// wl_callback: a one-shot event (a frame callback, a sync). Main thread only.
import CWayland

/// Fires `done` once; by then the callback has destroyed itself (the protocol destroys the
/// object with the event). Destroyed before it fires, it never does.
final class WLCallback: WaylandObject, ListenerTarget {
    private var onDone: ((UInt32) -> Void)?

    init(_ proxy: OpaquePointer, done: @escaping (UInt32) -> Void) {
        onDone = done
        super.init(proxy, destructor: { wl_callback_destroy($0) })
        wl_callback_add_listener(proxy, callbackListener, listenerData)
    }

    fileprivate func done(_ data: UInt32) {
        let handler = onDone
        onDone = nil
        destroy()
        // Last: the handler may drop the last reference to this object.
        handler?(data)
    }
}

// MARK: Listener

nonisolated(unsafe) private let callbackListener = listenerTable(wl_callback_listener(
    done: { data, _, value in WLCallback.from(data).done(value) }
))
