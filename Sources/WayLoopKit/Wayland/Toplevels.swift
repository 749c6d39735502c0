// wlr-foreign-toplevel-management: the windows, each with the outputs it is on, its app_id and
// its states (fullscreen, maximized, activated, minimized), as ScreenFacts for the pause rules
// (a fullscreen window pauses *that* output's wallpaper by default, whatever the compositor does
// with frame callbacks for covered surfaces). Double-buffered per handle (state applies on
// `done`). Main thread only.
import CWayland
import WayLoopCore

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

    /// The windows as ScreenFacts (no workspaces: this protocol has none), each on the outputs
    /// `name` names (one entry per output it is on).
    func facts(_ name: (OpaquePointer) -> String?) -> ScreenFacts {
        var out = ScreenFacts()
        for h in handles.values.sorted(by: { $0.serial < $1.serial }) {
            for o in h.outputs {
                guard let n = name(o) else { continue }
                out.windows.append(ScreenWindow(id: String(h.serial), appID: h.appID, output: n, fullscreen: h.isFullscreen,
                                                maximized: h.isMaximized, activated: h.isActivated, minimized: h.isMinimized))
            }
        }
        return out
    }

    private var serials = 0

    fileprivate func added(_ proxy: OpaquePointer) {
        serials += 1
        let h = ToplevelHandle(proxy: proxy, owner: self, serial: serials)
        handles[ObjectIdentifier(h)] = h
    }

    fileprivate func changed() { delegate?.fullscreenOutputsChanged() }

    fileprivate func closed(_ h: ToplevelHandle) {
        let wasShown = !h.outputs.isEmpty
        h.destroy()
        handles[ObjectIdentifier(h)] = nil
        if wasShown { changed() }
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
    /// Its number, in the order the compositor announced the windows.
    let serial: Int
    private(set) var outputs: [OpaquePointer] = []
    /// Fullscreen and not minimised.
    private(set) var isFullscreen = false
    private(set) var isMaximized = false
    private(set) var isActivated = false
    private(set) var isMinimized = false
    private(set) var appID: String?
    private var pending = (fullscreen: false, maximized: false, activated: false, minimized: false)
    private var pendingAppID: String?
    private var pendingOutputs: [OpaquePointer] = []

    fileprivate init(proxy: OpaquePointer, owner: Toplevels, serial: Int) {
        self.owner = owner
        self.serial = serial
        super.init(proxy, destructor: { zwlr_foreign_toplevel_handle_v1_destroy($0) })
        zwlr_foreign_toplevel_handle_v1_add_listener(proxy, handleListener, listenerData)
    }

    fileprivate func outputEnter(_ o: OpaquePointer?) {
        if let o, !pendingOutputs.contains(o) { pendingOutputs.append(o) }
    }

    fileprivate func outputLeave(_ o: OpaquePointer?) { pendingOutputs.removeAll { $0 == o } }

    fileprivate func appID(_ id: UnsafePointer<CChar>?) { pendingAppID = id.map { String(cString: $0) } }

    fileprivate func state(_ states: UnsafeMutablePointer<wl_array>?) {
        var s = (fullscreen: false, maximized: false, activated: false, minimized: false)
        if let a = states?.pointee, let data = a.data {
            let values = data.bindMemory(to: UInt32.self, capacity: a.size / 4)
            for i in 0..<(a.size / 4) {
                switch values[i] {
                case ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_FULLSCREEN.rawValue: s.fullscreen = true
                case ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_MAXIMIZED.rawValue: s.maximized = true
                case ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_ACTIVATED.rawValue: s.activated = true
                case ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_MINIMIZED.rawValue: s.minimized = true
                default: break
                }
            }
        }
        s.fullscreen = s.fullscreen && !s.minimized
        pending = s
    }

    fileprivate func done() {
        let now = (pending.fullscreen, pending.maximized, pending.activated, pending.minimized)
        let was = (isFullscreen, isMaximized, isActivated, isMinimized)
        let changed = now != was || pendingOutputs != outputs || pendingAppID != appID
        (isFullscreen, isMaximized, isActivated, isMinimized) = now
        outputs = pendingOutputs
        appID = pendingAppID
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
    app_id: { data, _, id in ToplevelHandle.from(data).appID(id) },
    output_enter: { data, _, output in ToplevelHandle.from(data).outputEnter(output) },
    output_leave: { data, _, output in ToplevelHandle.from(data).outputLeave(output) },
    state: { data, _, states in ToplevelHandle.from(data).state(states) },
    done: { data, _ in ToplevelHandle.from(data).done() },
    closed: { data, _ in ToplevelHandle.from(data).closed() },
    parent: { _, _, _ in }
))
