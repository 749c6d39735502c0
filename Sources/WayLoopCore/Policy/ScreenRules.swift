// The pause rules over what is on screen, pure: `--pause-when` and `--pause-ignore` (per output),
// which source of ScreenFacts to trust on which compositor and what each can know, and the
// reasons an output pauses for. The shell reads the sources (sway's IPC, Hyprland's, niri's,
// wlr-foreign-toplevel-management) and applies the reasons.

/// One condition of `--pause-when`.
public enum PauseCondition: String, CaseIterable, Sendable {
    /// The compositor stopped asking for frames (covered, off, another workspace).
    case hidden
    /// A fullscreen window on this output.
    case fullscreen
    /// A fullscreen window on any output (a game): every output pauses.
    case fullscreenAnywhere = "fullscreen-anywhere"
    /// A maximized window on this output.
    case maximized
    /// Any window on the workspace this output shows.
    case anyWindow = "any-window"
}

/// `--pause-when`: the conditions that pause an output (none: `never`).
public struct PauseWhen: Equatable, Sendable, CustomStringConvertible {
    public var conditions: Set<PauseCondition>

    public init(_ conditions: Set<PauseCondition>) { self.conditions = conditions }

    /// Today's rules, the default: hidden, and a fullscreen window on this output.
    public static let standard = PauseWhen([.hidden, .fullscreen])

    public static let expected = "never, or one or more of hidden, fullscreen, fullscreen-anywhere, maximized, any-window, "
        + "separated by commas"

    /// `hidden,fullscreen`, `any-window`, `never` (alone).
    public init?(parsing text: String) {
        let words = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmed }
        if words == ["never"] {
            conditions = []
            return
        }
        var set: Set<PauseCondition> = []
        for w in words {
            guard let c = PauseCondition(rawValue: w) else { return nil }
            set.insert(c)
        }
        guard !set.isEmpty else { return nil }
        conditions = set
    }

    public func contains(_ c: PauseCondition) -> Bool { conditions.contains(c) }

    /// In the order `PauseCondition` lists them; `never` when empty.
    public var description: String {
        conditions.isEmpty ? "never" : PauseCondition.allCases.filter(conditions.contains).map(\.rawValue).joined(separator: ",")
    }
}

/// `--pause-ignore`: app_ids whose windows no rule counts (a picture-in-picture player, a dock).
public enum PauseIgnore {
    public static let expected = "app_ids separated by commas"

    public static func parse(_ text: String) -> [String]? {
        let ids = text.split(separator: ",").map { String($0).trimmed }.filter { !$0.isEmpty }
        guard !ids.isEmpty, ids.allSatisfy({ $0.utf8.count <= 255 && !$0.contains("\0") }) else { return nil }
        return ids
    }
}

/// Where the facts of what is on screen come from.
public enum ScreenSource: String, Sendable {
    /// sway's IPC ($SWAYSOCK): workspaces, and each window's workspace, app_id, fullscreen.
    case swayIPC = "sway-ipc"
    /// Hyprland's IPC: workspaces, windows with fullscreen and maximized.
    case hyprlandIPC = "hyprland-ipc"
    /// niri's event stream: workspaces and windows; no fullscreen or maximized state.
    case niriIPC = "niri-ipc"
    /// wlr-foreign-toplevel-management: windows with their outputs and states; no workspaces.
    case foreignToplevel = "wlr-foreign-toplevel"
    /// Nothing but frame callbacks.
    case none

    /// What the source can say.
    public var knows: Set<PauseCondition> {
        switch self {
        case .swayIPC: return [.fullscreen, .fullscreenAnywhere, .anyWindow]
        case .hyprlandIPC: return [.fullscreen, .fullscreenAnywhere, .maximized, .anyWindow]
        case .niriIPC: return [.anyWindow]
        case .foreignToplevel: return [.fullscreen, .fullscreenAnywhere, .maximized, .anyWindow]
        case .none: return []
        }
    }

    /// Why a condition it does not know cannot be known here (for the one notice).
    public func whyNot(_ c: PauseCondition) -> String {
        switch (self, c) {
        case (.swayIPC, .maximized): return "sway has no maximized windows (a tiled window fills its space; any-window covers it)"
        case (.niriIPC, .fullscreen), (.niriIPC, .fullscreenAnywhere), (.niriIPC, .maximized):
            return "niri's IPC reports no fullscreen or maximized state"
        case (.none, _):
            return "the compositor offers neither an IPC WayLoop reads nor wlr-foreign-toplevel-management"
        default: return "\(rawValue) does not say"
        }
    }

    /// The source to read, in order of trust: the compositor's own IPC where its socket is in the
    /// environment, else wlr-foreign-toplevel-management where offered, else none.
    public static func choose(swaySocket: String?, hyprlandSignature: String?, niriSocket: String?, hasForeignToplevel: Bool) -> ScreenSource {
        if let s = hyprlandSignature, !s.isEmpty { return .hyprlandIPC }
        if let s = niriSocket, !s.isEmpty { return .niriIPC }
        if let s = swaySocket, !s.isEmpty { return .swayIPC }
        return hasForeignToplevel ? .foreignToplevel : .none
    }

    /// Whether the compositor's frame callbacks say that a covered surface is hidden. Hyprland
    /// keeps asking for frames of a wallpaper under tiled windows; the wlroots scene graph (sway
    /// 1.10 and later, labwc 0.8 and later) stops asking.
    public var callbacksTellCovered: Bool { self != .hyprlandIPC }
}

/// Why a rule pauses an output.
public enum RulePause: String, Equatable, Sendable, CaseIterable {
    case fullscreen
    case fullscreenElsewhere = "fullscreen-elsewhere"
    case maximized
    case window
}

public enum ScreenRules {
    /// The rules that pause `output` given `facts` from `source`: the first that holds, in
    /// RulePause's order (nil: none). A window whose app_id is in `ignore` counts for none;
    /// `outputs`: every output WayLoop draws on (fullscreen-anywhere looks at them all).
    public static func pause(_ output: String, when: PauseWhen, ignore: [String], facts: ScreenFacts, source: ScreenSource,
                             outputs: [String]) -> RulePause? {
        let known = when.conditions.intersection(source.knows)
        guard !known.isEmpty else { return nil }
        func counted(_ ws: [ScreenWindow]) -> [ScreenWindow] { ws.filter { w in !(w.appID.map(ignore.contains) ?? false) } }
        let here = counted(facts.windows(on: output))
        if known.contains(.fullscreen) && here.contains(where: \.fullscreen) { return .fullscreen }
        if known.contains(.fullscreenAnywhere) {
            if here.contains(where: \.fullscreen) { return .fullscreen }
            if outputs.contains(where: { $0 != output && counted(facts.windows(on: $0)).contains(where: \.fullscreen) }) {
                return .fullscreenElsewhere
            }
        }
        if known.contains(.maximized) && here.contains(where: \.maximized) { return .maximized }
        if known.contains(.anyWindow) && !here.isEmpty { return .window }
        return nil
    }

    /// The conditions asked for that `source` cannot know, each with why (for one notice).
    public static func unknowable(_ when: PauseWhen, source: ScreenSource) -> [(PauseCondition, String)] {
        PauseCondition.allCases.filter { $0 != .hidden && when.contains($0) && !source.knows.contains($0) }.map { ($0, source.whyNot($0)) }
    }
}
