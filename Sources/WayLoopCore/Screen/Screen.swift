// What is on screen, as the compositor's own word says it, pure: the workspaces (which one each
// output shows) and the toplevel windows (where, and in what state). Each source (sway's IPC,
// Hyprland's, niri's, ext-workspace-v1, wlr-foreign-toplevel-management) is an adapter that only
// reads and reports this value; the director decides from it (ScreenRules).

/// A workspace as a source reports it.
public struct ScreenWorkspace: Equatable, Sendable {
    /// Its name (the compositor's: sway's `1`, `2: web`; Hyprland's name; niri's name, else its
    /// index on its output as text).
    public var name: String
    /// The output (connector name, `DP-1`) it is on; nil when the source does not say.
    public var output: String?
    /// It is the one its output shows now.
    public var active: Bool

    public init(name: String, output: String?, active: Bool) {
        self.name = name
        self.output = output
        self.active = active
    }
}

/// A toplevel window as a source reports it.
public struct ScreenWindow: Equatable, Sendable {
    /// The source's own id for it (sway's con_id, Hyprland's address, niri's id, a handle's
    /// number), unique within one source.
    public var id: String
    /// Its app_id (Wayland) or class (Xwayland).
    public var appID: String?
    public var title: String?
    /// The workspace it is on, by name (nil: the source does not say).
    public var workspace: String?
    /// The output it shows on (nil: the source does not say; then its workspace's output).
    public var output: String?
    public var fullscreen: Bool
    public var maximized: Bool
    /// It has the keyboard focus.
    public var activated: Bool
    /// Minimized, or hidden in a scratchpad or a group: not drawn.
    public var minimized: Bool

    public init(id: String, appID: String? = nil, title: String? = nil, workspace: String? = nil, output: String? = nil,
                fullscreen: Bool = false, maximized: Bool = false, activated: Bool = false, minimized: Bool = false) {
        self.id = id
        self.appID = appID
        self.title = title
        self.workspace = workspace
        self.output = output
        self.fullscreen = fullscreen
        self.maximized = maximized
        self.activated = activated
        self.minimized = minimized
    }
}

/// Everything one source knows of the screen at one moment.
public struct ScreenFacts: Equatable, Sendable {
    public var workspaces: [ScreenWorkspace]
    public var windows: [ScreenWindow]

    public init(workspaces: [ScreenWorkspace] = [], windows: [ScreenWindow] = []) {
        self.workspaces = workspaces
        self.windows = windows
    }

    /// The workspace `output` shows now (nil: the source does not say).
    public func activeWorkspace(on output: String) -> String? {
        workspaces.first { $0.output == output && $0.active }?.name
    }

    /// The windows drawn on `output` now: those on it (their own output, else their workspace's)
    /// and, where both are known, on the workspace it shows; not minimized.
    public func windows(on output: String) -> [ScreenWindow] {
        let active = activeWorkspace(on: output)
        return windows.filter { w in
            guard !w.minimized else { return false }
            let shownOn = w.output ?? w.workspace.flatMap { ws in workspaces.first { $0.name == ws }?.output }
            guard shownOn == output else { return false }
            guard let ws = w.workspace, let active else { return true }
            return ws == active
        }
    }
}

/// A workspace's name as `-w NAME`, `workspace NAME =` and `ctl set --workspace NAME` take it: the
/// compositor's own (sway's `1`, `2: web`; Hyprland's; ext-workspace's), compared as it is.
public enum WorkspaceName {
    public static let expected = "a workspace name (as the compositor names it: 1, 2: web)"

    /// The name, trimmed; nil when empty, over 255 bytes or with a control character.
    public static func parse(_ s: String) -> String? {
        let t = s.trimmed
        guard !t.isEmpty, t.utf8.count <= 255, !t.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else { return nil }
        return t
    }
}
