// wlr-foreign-toplevel-management: which outputs have a fullscreen window on them, so that the
// wallpaper of *that* output (and only that one) pauses, whatever the compositor does with frame
// callbacks for covered surfaces. Double-buffered per handle (state applies on `done`).
// Main thread only.
import CWayland

protocol ToplevelsDelegate: AnyObject {
    func fullscreenOutputsChanged()
}

final class Toplevels {
    private let manager: OpaquePointer
    weak var delegate: ToplevelsDelegate?
    private var handles: [ObjectIdentifier: ToplevelHandle] = [:]

    init(manager: OpaquePointer) {
        self.manager = manager
        zwlr_foreign_toplevel_manager_v1_add_listener(manager, managerListener, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        for h in handles.values { h.destroy() }
        zwlr_foreign_toplevel_manager_v1_stop(manager)
        wl_proxy_destroy(manager)
    }

    /// True when a fullscreen, not minimised window is on the output `proxy`.
    func hasFullscreen(on proxy: OpaquePointer) -> Bool {
        handles.values.contains { $0.isFullscreen && $0.outputs.contains(proxy) }
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

    fileprivate static func from(_ data: UnsafeMutableRawPointer?) -> Toplevels {
        Unmanaged<Toplevels>.fromOpaque(data!).takeUnretainedValue()
    }
}

final class ToplevelHandle {
    private var proxy: OpaquePointer?
    private unowned let owner: Toplevels
    private(set) var outputs: [OpaquePointer] = []
    private(set) var isFullscreen = false
    private var pendingFullscreen = false
    private var pendingOutputs: [OpaquePointer] = []

    fileprivate init(proxy: OpaquePointer, owner: Toplevels) {
        self.proxy = proxy
        self.owner = owner
        zwlr_foreign_toplevel_handle_v1_add_listener(proxy, handleListener, Unmanaged.passUnretained(self).toOpaque())
    }

    func destroy() {
        if let proxy { zwlr_foreign_toplevel_handle_v1_destroy(proxy) }
        proxy = nil
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

    fileprivate static func from(_ data: UnsafeMutableRawPointer?) -> ToplevelHandle {
        Unmanaged<ToplevelHandle>.fromOpaque(data!).takeUnretainedValue()
    }
}

// MARK: Listeners (every slot filled: a nil slot aborts the process)

nonisolated(unsafe) private let managerListener: UnsafeMutablePointer<zwlr_foreign_toplevel_manager_v1_listener> = {
    let p = UnsafeMutablePointer<zwlr_foreign_toplevel_manager_v1_listener>.allocate(capacity: 1)
    p.initialize(to: zwlr_foreign_toplevel_manager_v1_listener(
        toplevel: { data, _, handle in if let handle { Toplevels.from(data).added(handle) } },
        finished: { data, _ in Toplevels.from(data).finished() }
    ))
    return p
}()

nonisolated(unsafe) private let handleListener: UnsafeMutablePointer<zwlr_foreign_toplevel_handle_v1_listener> = {
    let p = UnsafeMutablePointer<zwlr_foreign_toplevel_handle_v1_listener>.allocate(capacity: 1)
    p.initialize(to: zwlr_foreign_toplevel_handle_v1_listener(
        title: { _, _, _ in },
        app_id: { _, _, _ in },
        output_enter: { data, _, output in ToplevelHandle.from(data).outputEnter(output) },
        output_leave: { data, _, output in ToplevelHandle.from(data).outputLeave(output) },
        state: { data, _, states in ToplevelHandle.from(data).state(states) },
        done: { data, _ in ToplevelHandle.from(data).done() },
        closed: { data, _ in ToplevelHandle.from(data).closed() },
        parent: { _, _, _ in }
    ))
    return p
}()
