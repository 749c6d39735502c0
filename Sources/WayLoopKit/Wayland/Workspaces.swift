// ext-workspace-v1: the workspaces, grouped per set of outputs, each with its name and whether it
// is active: which workspace each output shows, as ScreenFacts' workspaces (sway 1.12 and labwc
// 0.20 offer it; sway's IPC is read first where it answers). Only read: WayLoop never activates,
// creates or removes one. The state applies on the manager's `done`. Main thread only.
import CWayland
import WayLoopCore

protocol WorkspacesDelegate: AnyObject {
    func workspacesChanged()
}

/// ext_workspace_manager_v1 (from Registry.takeWorkspaces), its groups and its workspaces.
final class Workspaces: WaylandObject, ListenerTarget {
    weak var delegate: WorkspacesDelegate?
    private var groups: [ObjectIdentifier: WorkspaceGroup] = [:]
    fileprivate var workspaces: [OpaquePointer: WorkspaceHandle] = [:]
    /// Something changed since the last `done`.
    fileprivate var dirty = false

    init(manager: OpaquePointer) {
        // `stop` asks the compositor to finish; the proxy goes at once (the `finished` event is
        // then not needed: nothing more is read from it).
        super.init(manager, destructor: {
            ext_workspace_manager_v1_stop($0)
            wl_proxy_destroy($0)
        })
        ext_workspace_manager_v1_add_listener(manager, managerListener, listenerData)
    }

    deinit {
        for g in groups.values { g.destroy() }
        for w in workspaces.values { w.destroy() }
    }

    /// Each workspace on each output of its group (`name` names an output; others are left out).
    func facts(_ name: (OpaquePointer) -> String?) -> [ScreenWorkspace] {
        var out: [ScreenWorkspace] = []
        for g in groups.values.sorted(by: { $0.serial < $1.serial }) {
            for o in g.outputs {
                guard let n = name(o) else { continue }
                for w in g.members.compactMap({ workspaces[$0] }) {
                    out.append(ScreenWorkspace(name: w.name ?? w.id ?? "?", output: n, active: w.isActive))
                }
            }
        }
        return out
    }

    private var serials = 0

    fileprivate func addGroup(_ proxy: OpaquePointer) {
        serials += 1
        let g = WorkspaceGroup(proxy: proxy, owner: self, serial: serials)
        groups[ObjectIdentifier(g)] = g
        dirty = true
    }

    fileprivate func addWorkspace(_ proxy: OpaquePointer) {
        workspaces[proxy] = WorkspaceHandle(proxy: proxy, owner: self)
        dirty = true
    }

    fileprivate func removeGroup(_ g: WorkspaceGroup) {
        g.destroy()
        groups[ObjectIdentifier(g)] = nil
        dirty = true
    }

    fileprivate func removeWorkspace(_ proxy: OpaquePointer) {
        workspaces.removeValue(forKey: proxy)?.destroy()
        for g in groups.values { g.members.removeAll { $0 == proxy } }
        dirty = true
    }

    fileprivate func done() {
        guard dirty else { return }
        dirty = false
        delegate?.workspacesChanged()
    }

    fileprivate func finished() {
        for g in groups.values { g.destroy() }
        for w in workspaces.values { w.destroy() }
        groups.removeAll()
        workspaces.removeAll()
        delegate?.workspacesChanged()
    }
}

/// ext_workspace_group_handle_v1: the outputs a set of workspaces is shown on.
final class WorkspaceGroup: WaylandObject, ListenerTarget {
    private unowned let owner: Workspaces
    let serial: Int
    fileprivate(set) var outputs: [OpaquePointer] = []
    fileprivate var members: [OpaquePointer] = []

    fileprivate init(proxy: OpaquePointer, owner: Workspaces, serial: Int) {
        self.owner = owner
        self.serial = serial
        super.init(proxy, destructor: { ext_workspace_group_handle_v1_destroy($0) })
        ext_workspace_group_handle_v1_add_listener(proxy, groupListener, listenerData)
    }

    fileprivate func outputEnter(_ o: OpaquePointer?) {
        if let o, !outputs.contains(o) { outputs.append(o); owner.dirty = true }
    }

    fileprivate func outputLeave(_ o: OpaquePointer?) {
        outputs.removeAll { $0 == o }
        owner.dirty = true
    }

    fileprivate func workspaceEnter(_ w: OpaquePointer?) {
        if let w, !members.contains(w) { members.append(w); owner.dirty = true }
    }

    fileprivate func workspaceLeave(_ w: OpaquePointer?) {
        members.removeAll { $0 == w }
        owner.dirty = true
    }

    fileprivate func removed() { owner.removeGroup(self) }
}

/// ext_workspace_handle_v1: one workspace, its name and state.
final class WorkspaceHandle: WaylandObject, ListenerTarget {
    private unowned let owner: Workspaces
    private(set) var id: String?
    private(set) var name: String?
    private(set) var isActive = false

    fileprivate init(proxy: OpaquePointer, owner: Workspaces) {
        self.owner = owner
        super.init(proxy, destructor: { ext_workspace_handle_v1_destroy($0) })
        ext_workspace_handle_v1_add_listener(proxy, workspaceListener, listenerData)
    }

    fileprivate func set(id: UnsafePointer<CChar>?) { self.id = id.map { String(cString: $0) }; owner.dirty = true }
    fileprivate func set(name: UnsafePointer<CChar>?) { self.name = name.map { String(cString: $0) }; owner.dirty = true }
    fileprivate func set(state: UInt32) {
        isActive = state & EXT_WORKSPACE_HANDLE_V1_STATE_ACTIVE.rawValue != 0
        owner.dirty = true
    }

    fileprivate func removed() { owner.removeWorkspace(proxy) }
}

// MARK: Listeners (every slot filled: a nil slot aborts the process)

nonisolated(unsafe) private let managerListener = listenerTable(ext_workspace_manager_v1_listener(
    workspace_group: { data, _, g in if let g { Workspaces.from(data).addGroup(g) } },
    workspace: { data, _, w in if let w { Workspaces.from(data).addWorkspace(w) } },
    done: { data, _ in Workspaces.from(data).done() },
    finished: { data, _ in Workspaces.from(data).finished() }
))

nonisolated(unsafe) private let groupListener = listenerTable(ext_workspace_group_handle_v1_listener(
    capabilities: { _, _, _ in },
    output_enter: { data, _, o in WorkspaceGroup.from(data).outputEnter(o) },
    output_leave: { data, _, o in WorkspaceGroup.from(data).outputLeave(o) },
    workspace_enter: { data, _, w in WorkspaceGroup.from(data).workspaceEnter(w) },
    workspace_leave: { data, _, w in WorkspaceGroup.from(data).workspaceLeave(w) },
    removed: { data, _ in WorkspaceGroup.from(data).removed() }
))

nonisolated(unsafe) private let workspaceListener = listenerTable(ext_workspace_handle_v1_listener(
    id: { data, _, id in WorkspaceHandle.from(data).set(id: id) },
    name: { data, _, n in WorkspaceHandle.from(data).set(name: n) },
    coordinates: { _, _, _ in },
    state: { data, _, s in WorkspaceHandle.from(data).set(state: s) },
    capabilities: { _, _, _ in },
    removed: { data, _ in WorkspaceHandle.from(data).removed() }
))
