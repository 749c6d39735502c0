// wlr-foreign-toplevel-management: which outputs have a fullscreen window on them, so that the
// wallpaper of *that* output (and only that one) pauses, whatever the compositor does with frame
// callbacks for covered surfaces. Double-buffered per handle (state applies on `done`).
// Main thread only.
import CWayland

protocol ToplevelsDelegate: AnyObject {
    func fullscreenOutputsChanged()
}

/// zwlr_foreign_toplevel_manager_v1 (from Registry.takeToplevels) and its window handles.
final class Toplevels: WaylandObject, ListenerTarget {
    weak var delegate: ToplevelsDelegate?
    private var handles: [ObjectIdentifier: ToplevelHandle] = [:]

    init(manager: OpaquePointer) {
        // `stop`, then the proxy goes (the manager has no destructor request).
        super.init(manager, destructor: {
            zwlr_foreign_toplevel_manager_v1_stop($0)
            wl_proxy_destroy($0)
        })
        zwlr_foreign_toplevel_manager_v1_add_listener(manager, managerListener, listenerData)
    }

    /// The handles first, then the manager.
    deinit { for h in handles.values { h.destroy() } }

    /// True when a fullscreen, not minimised window is on `output`.
    func hasFullscreen(on output: Output) -> Bool {
        handles.values.contains { $0.isFullscreen && $0.outputs.contains(output.proxy) }
    }

    fileprivate func added(_ proxy: OpaquePointer) {
        let h = ToplevelHandle(proxy: proxy, owner: self)
        handles[ObjectIdentifier(h)] = h
    }

    fileprivate func changed() { delegate?.fullscreenOutputsChanged() }

    fileprivate func closed(_ h: ToplevelHandle) {
        let wasFullscreen = h.isFullscreen
        h.destroy()
        handles[ObjectIdentifier(h)] = nil
        if wasFullscreen { changed() }
    }

    fileprivate func finished() {
        for h in handles.values { h.destroy() }
        handles.removeAll()
        changed()
    }
}

/// zwlr_foreign_toplevel_handle_v1: one window, double-buffered (its state applies on `done`).
final class ToplevelHandle: WaylandObject, ListenerTarget {
    private unowned let owner: Toplevels
    private(set) var outputs: [OpaquePointer] = []
    private(set) var isFullscreen = false
    private var pendingFullscreen = false
    private var pendingOutputs: [OpaquePointer] = []

    fileprivate init(proxy: OpaquePointer, owner: Toplevels) {
        self.owner = owner
        super.init(proxy, destructor: { zwlr_foreign_toplevel_handle_v1_destroy($0) })
        zwlr_foreign_toplevel_handle_v1_add_listener(proxy, handleListener, listenerData)
    }

    fileprivate func outputEnter(_ o: OpaquePointer?) {
        if let o, !pendingOutputs.contains(o) { pendingOutputs.append(o) }
    }

    fileprivate func outputLeave(_ o: OpaquePointer?) { pendingOutputs.removeAll { $0 == o } }

    fileprivate func state(_ states: UnsafeMutablePointer<wl_array>?) {
        var full = false, minimised = false
        if let a = states?.pointee, let data = a.data {
            let values = data.bindMemory(to: UInt32.self, capacity: a.size / 4)
            for i in 0..<(a.size / 4) {
                if values[i] == ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_FULLSCREEN.rawValue { full = true }
                if values[i] == ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_MINIMIZED.rawValue { minimised = true }
            }
        }
        pendingFullscreen = full && !minimised
    }

    fileprivate func done() {
        let changed = pendingFullscreen != isFullscreen || (pendingFullscreen && pendingOutputs != outputs)
        isFullscreen = pendingFullscreen
        outputs = pendingOutputs
        if changed { owner.changed() }
    }

    fileprivate func closed() { owner.closed(self) }
}

// MARK: Listeners (every slot filled: a nil slot aborts the process)

nonisolated(unsafe) private let managerListener = listenerTable(zwlr_foreign_toplevel_manager_v1_listener(
    toplevel: { data, _, handle in if let handle { Toplevels.from(data).added(handle) } },
    finished: { data, _ in Toplevels.from(data).finished() }
))

nonisolated(unsafe) private let handleListener = listenerTable(zwlr_foreign_toplevel_handle_v1_listener(
    title: { _, _, _ in },
    app_id: { _, _, _ in },
    output_enter: { data, _, output in ToplevelHandle.from(data).outputEnter(output) },
    output_leave: { data, _, output in ToplevelHandle.from(data).outputLeave(output) },
    state: { data, _, states in ToplevelHandle.from(data).state(states) },
    done: { data, _ in ToplevelHandle.from(data).done() },
    closed: { data, _ in ToplevelHandle.from(data).closed() },
    parent: { _, _, _ in }
))
