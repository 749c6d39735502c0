// Hyprland's IPC, pure: where an instance's two sockets are, what to ask its request socket, the
// ScreenFacts its JSON replies say, and which lines of its event socket mean the facts must be
// asked again (the adapter re-asks on those: simple and robust). The shell connects, writes and
// reads; nothing here does I/O.
//
// Sources (github:hyprwm/Hyprland at tag v0.56.2 unless another tag is named; the wiki page
// https://wiki.hypr.land/IPC/):
//   sockets   $XDG_RUNTIME_DIR/hypr/SIG/.socket.sock and .socket2.sock since v0.40.0
//             (src/Compositor.cpp:192, :217; src/debug/HyprCtl.cpp:2331;
//             src/managers/EventManager.cpp:21); /tmp/hypr/SIG/ up to v0.39.1
//             (v0.39.1 src/debug/HyprCtl.cpp:1749, src/managers/EventManager.cpp:42). The move,
//             PR hyprwm/Hyprland#5788, tells consumers: use $XDG_RUNTIME_DIR/hypr where it exists,
//             else the old /tmp/hypr.
//   requests  one per connection, answered and closed (HyprCtl.cpp:2232-2319; wiki: "open the
//             socket immediately before writing requests and close it afterward"); flags before a
//             '/', 'j' for JSON (HyprCtl.cpp:2069-2096); `clients`, `workspaces`, `activewindow`
//             match exactly, so no trailing newline (HyprCtl.cpp:2004-2009, :2104-2108).
//   replies   monitors HyprCtl.cpp:223-311 (enabled ones only, :313-344); windows :376-456 (mapped
//             ones only, :458-485); workspaces :487-520 ("monitor" is "?" when on none);
//             activewindow :633-645 ("{}" when no window has focus).
//   events    "NAME>>DATA\n", DATA cut to 1024 bytes with its newlines made spaces
//             (src/managers/EventManager.cpp:126-130).

/// Hyprland's two IPC sockets and what is said on them.
public enum HyprlandIPC {
    /// One Hyprland instance's sockets.
    public struct Sockets: Equatable, Sendable {
        /// `.socket.sock`: one request per connection (`j/clients`), answered, then closed.
        public var requests: String
        /// `.socket2.sock`: a stream of event lines, `NAME>>DATA`.
        public var events: String

        public init(requests: String, events: String) {
            self.requests = requests
            self.events = events
        }

        /// The two sockets in an instance's directory.
        public init(directory: String) {
            self.init(requests: directory + "/.socket.sock", events: directory + "/.socket2.sock")
        }
    }

    /// Where the sockets of the instance `$HYPRLAND_INSTANCE_SIGNATURE` names may be, the likelier
    /// first: `$XDG_RUNTIME_DIR/hypr/SIG/` (Hyprland 0.40.0 and later), then `/tmp/hypr/SIG/`
    /// (0.39.1 and before). Use the first whose `.socket.sock` exists (Hyprland's own advice,
    /// PR #5788, is the first whose `hypr` folder exists: the same in practice). Empty when not
    /// under Hyprland (no signature, or one that is not a single path component).
    public static func socketCandidates(signature: String?, runtimeDirectory: String?) -> [Sockets] {
        guard let sig = signature, !sig.isEmpty, sig != ".", sig != "..", !sig.contains("/") else { return [] }
        var out: [Sockets] = []
        // Hyprland 0.40+ bails out when $XDG_RUNTIME_DIR is empty (Compositor.cpp:192-196); a
        // relative one is taken as none.
        if var dir = runtimeDirectory, dir.hasPrefix("/") {
            while dir.count > 1, dir.hasSuffix("/") { dir.removeLast() }
            out.append(Sockets(directory: (dir == "/" ? "" : dir) + "/hypr/" + sig))
        }
        out.append(Sockets(directory: "/tmp/hypr/" + sig))
        return out
    }

    // MARK: Requests

    /// The enabled monitors as JSON, each with its active and its shown special workspace.
    public static let monitorsRequest = "j/monitors"
    /// The workspaces as JSON, each with its monitor's name.
    public static let workspacesRequest = "j/workspaces"
    /// The mapped windows ("clients") as JSON.
    public static let clientsRequest = "j/clients"
    /// The window with the keyboard focus as JSON (`{}` when none has it).
    public static let activeWindowRequest = "j/activewindow"

    /// Why a reply cannot be read: the request it answers and one phrase.
    public struct ReplyError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The request it answers (`j/monitors`).
        public let request: String
        /// What is wrong with it.
        public let reason: String

        public init(request: String, reason: String) {
            self.request = request
            self.reason = reason
        }

        public var description: String { "Hyprland's reply to \(request) \(reason)" }
    }

    // MARK: Replies

    /// What the replies to the requests above say, as ScreenFacts; `activeWindow` (the reply to
    /// `j/activewindow`) names the focused window, else `focusHistoryID == 0` does: the most
    /// recently focused window (HyprCtl.cpp:377-384), which keeps 0 after the focus has gone to a
    /// layer surface or to no window, so ask `j/activewindow` too.
    ///
    /// - Workspaces: Hyprland's, in its order, each on its monitor; `active` is the regular
    ///   workspace its monitor shows (`activeWorkspace`), also when a special one is shown over
    ///   it. A special workspace (id -99…-2, name `special:NAME`: src/macros.hpp:22,
    ///   src/state/WorkspaceQueryCore.cpp:66-68, src/helpers/MiscFunctions.cpp:128-139) is listed
    ///   but never active.
    /// - A special workspace shown on a monitor (its `specialWorkspace`, id 0 when none:
    ///   src/output/Monitor.cpp:1764-1766) is drawn over the regular one, which stays drawn behind
    ///   it, dimmed (src/render/Renderer.cpp:1181-1214): both sets of windows are seen. Its
    ///   windows are reported with that monitor as their output and no workspace, so that
    ///   `windows(on:)` counts them for the monitor whichever workspace it shows; a special
    ///   workspace shown nowhere hides its windows (`minimized`, as a scratchpad does).
    /// - A window: `address` as id, `class` as appID, `title`, its workspace's name, its monitor
    ///   (`monitor` is the monitor's id, named here through `j/monitors`), `minimized` when
    ///   `hidden` (a group's other members, a swallowed window) or not `mapped`.
    /// - `fullscreen` is a number from 0.42.0 on, the mode Hyprland draws it in (`internal`;
    ///   `fullscreenClient` is what the client was told, which a fake fullscreen makes differ, so
    ///   it is not read): 0.42.0-0.55 a bit set, 1 maximized and 2 fullscreen (v0.42.0
    ///   src/desktop/Workspace.hpp:9-14), drawn as its highest bit (v0.42.0
    ///   src/Compositor.cpp:2303); from 0.56.0 0, 1 maximized, 2 fullscreen
    ///   (src/managers/fullscreen/FullscreenController.hpp:12-16). Up to 0.41.2 it is a bool,
    ///   with `fullscreenMode` 0 full and 1 maximized (v0.41.2 src/debug/HyprCtl.cpp:222-223,
    ///   :235; v0.41.2 src/desktop/Workspace.hpp:9-13).
    public static func facts(monitors: String, workspaces: String, clients: String,
                             activeWindow: String? = nil) -> Result<ScreenFacts, ReplyError> {
        do {
            let mons = try parseMonitors(monitors)
            let spaces = try parseWorkspaces(workspaces)
            let windows = try parseClients(clients)
            let focus = try activeWindow.map { text throws(ReplyError) in try parseActiveWindow(text) }
            return .success(assemble(mons, spaces, windows, focusedAddress: focus))
        } catch {
            return .failure(error)
        }
    }

    // MARK: Events

    /// The socket2 events after which the facts must be asked again: the active workspace of a
    /// monitor, the focus, a window's coming, going, workspace, monitor, fullscreen state, floating
    /// state, group, title or minimize request, a special workspace shown or hidden, workspaces
    /// made, destroyed, renamed or moved, monitors added or removed, the config reloaded. Each
    /// v1 event comes with its v2 twin (`workspace` and `workspacev2`, …): both are here, so a
    /// Hyprland that sends only one is followed; re-ask once per batch of lines read.
    public static let refreshEvents: Set<String> = [
        "workspace", "workspacev2",              // src/output/Monitor.cpp:1505-1506
        "focusedmon", "focusedmonv2",            // src/desktop/state/FocusState.cpp:287-288
        "activewindow", "activewindowv2",        // src/desktop/state/FocusState.cpp:209-210
        "fullscreen",                            // src/managers/fullscreen/FullscreenController.cpp:485
        "openwindow", "closewindow",             // src/desktop/view/Window.cpp:2369, :2574
        "movewindow", "movewindowv2",            // src/desktop/view/Window.cpp:579-580
        "changefloatingmode",                    // src/layout/LayoutManager.cpp:47-50
        "minimized",                             // src/protocols/ForeignToplevelWlr.cpp:126, :138 (a
                                                 // request Hyprland only reports; a script may act)
        "activespecial", "activespecialv2",      // src/output/Monitor.cpp:1567-1568, :1688-1689
        "monitoradded", "monitoraddedv2",        // src/output/Monitor.cpp:387-388
        "monitorremoved", "monitorremovedv2",    // src/output/Monitor.cpp:397-398
        "createworkspace", "createworkspacev2",  // src/desktop/Workspace.cpp:72-73
        "destroyworkspace", "destroyworkspacev2", // src/desktop/Workspace.cpp:81-82
        "renameworkspace", "changeworkspaceid",  // src/desktop/Workspace.cpp:543, :560
        "moveworkspace", "moveworkspacev2",      // src/state/WorkspacePlacementController.cpp:230-233
        "windowtitle", "windowtitlev2",          // src/desktop/view/Window.cpp:1452-1453
        "togglegroup", "moveintogroup", "moveoutofgroup", // src/desktop/view/Group.cpp:66, :82;
                                                 // src/config/shared/actions/ConfigActions.cpp:1320, :1341
        "configreloaded",                        // src/config/legacy/ConfigManager.cpp:1074
    ]

    /// The event's name: what precedes the first `>>` of a socket2 line (nil: no `>>`).
    public static func eventName(_ line: String) -> Substring? {
        var previous: Character?
        var index = line.startIndex
        while index < line.endIndex {
            let c = line[index]
            if c == ">", previous == ">" { return line[line.startIndex..<line.index(before: index)] }
            previous = c
            index = line.index(after: index)
        }
        return nil
    }

    /// Whether a socket2 line means the facts must be asked again (its name is in
    /// `refreshEvents`); lines of other events, and text that is no event line, do not.
    public static func isRelevant(eventLine: String) -> Bool {
        guard let name = eventName(eventLine) else { return false }
        return refreshEvents.contains(String(name))
    }

    // MARK: Reading the replies

    private struct Monitor {
        var id: Double
        var name: String
        var activeWorkspace: (id: Double, name: String)?
        var specialWorkspace: (id: Double, name: String)?
    }

    private struct Workspace {
        var id: Double
        var name: String
        var monitor: String?
    }

    private struct Client {
        var address: String
        var appID: String?
        var title: String?
        var workspace: (id: Double?, name: String)?
        var monitor: Double?
        var fullscreen: Bool
        var maximized: Bool
        var hidden: Bool
        var focusHistoryID: Double?
    }

    private static func parseList(_ text: String, _ request: String) throws(ReplyError) -> [[(String, JSON)]] {
        let json: JSON
        do { json = try JSON.parse(text) } catch { throw ReplyError(request: request, reason: "is not JSON (\(error))") }
        guard let items = json.array else { throw ReplyError(request: request, reason: "is not a JSON array") }
        var out: [[(String, JSON)]] = []
        for (i, item) in items.enumerated() {
            guard case .object(let pairs) = item else { throw ReplyError(request: request, reason: "has an item that is not an object (#\(i + 1))") }
            out.append(pairs)
        }
        return out
    }

    /// `{"id": N, "name": "…"}`, as a monitor's active workspace or a window's workspace says it.
    private static func reference(_ json: JSON?) -> (id: Double?, name: String)? {
        guard let json, let name = json["name"]?.string else { return nil }
        return (json["id"]?.number, name)
    }

    private static func parseMonitors(_ text: String) throws(ReplyError) -> [Monitor] {
        var out: [Monitor] = []
        for pairs in try parseList(text, monitorsRequest) {
            let m = JSON.object(pairs)
            guard let id = m["id"]?.number, let name = m["name"]?.string, !name.isEmpty else {
                throw ReplyError(request: monitorsRequest, reason: "has a monitor without an id and a name")
            }
            var mon = Monitor(id: id, name: name)
            // No active workspace: id 0, name "" (HyprCtl.cpp:279-280, Monitor.cpp:1760-1762).
            if let a = reference(m["activeWorkspace"]), let aid = a.id, !a.name.isEmpty { mon.activeWorkspace = (aid, a.name) }
            // Absent before the special workspace was reported; id 0 when none is shown.
            if let s = reference(m["specialWorkspace"]), let sid = s.id, sid != 0, !s.name.isEmpty { mon.specialWorkspace = (sid, s.name) }
            out.append(mon)
        }
        return out
    }

    private static func parseWorkspaces(_ text: String) throws(ReplyError) -> [Workspace] {
        var out: [Workspace] = []
        for pairs in try parseList(text, workspacesRequest) {
            let w = JSON.object(pairs)
            guard let id = w["id"]?.number, let name = w["name"]?.string else {
                throw ReplyError(request: workspacesRequest, reason: "has a workspace without an id and a name")
            }
            let monitor = w["monitor"]?.string
            out.append(Workspace(id: id, name: name, monitor: monitor == "?" || monitor == "" ? nil : monitor))
        }
        return out
    }

    private static func parseClients(_ text: String) throws(ReplyError) -> [Client] {
        var out: [Client] = []
        for pairs in try parseList(text, clientsRequest) {
            let c = JSON.object(pairs)
            guard let address = c["address"]?.string, !address.isEmpty else {
                throw ReplyError(request: clientsRequest, reason: "has a window without an address")
            }
            let mode = fullscreenMode(c["fullscreen"], legacyMode: c["fullscreenMode"]?.number)
            let hidden = c["hidden"]?.bool == true || c["mapped"]?.bool == false
            func text(_ key: String) -> String? {
                guard let s = c[key]?.string, !s.isEmpty else { return nil }
                return s
            }
            out.append(Client(address: address, appID: text("class"), title: text("title"), workspace: reference(c["workspace"]),
                              monitor: c["monitor"]?.number, fullscreen: mode == .fullscreen, maximized: mode == .maximized,
                              hidden: hidden, focusHistoryID: c["focusHistoryID"]?.number))
        }
        return out
    }

    /// The focused window's address, or "" when none has the focus (`{}`).
    private static func parseActiveWindow(_ text: String) throws(ReplyError) -> String {
        let json: JSON
        do { json = try JSON.parse(text) } catch { throw ReplyError(request: activeWindowRequest, reason: "is not JSON (\(error))") }
        guard case .object = json else { throw ReplyError(request: activeWindowRequest, reason: "is not a JSON object") }
        return json["address"]?.string ?? ""
    }

    private enum Drawn { case normal, maximized, fullscreen }

    /// How a window is drawn from its `fullscreen` (a number from 0.42.0 on, a bool before, with
    /// `fullscreenMode`).
    private static func fullscreenMode(_ value: JSON?, legacyMode: Double?) -> Drawn {
        switch value {
        case .bool(let on)?:
            guard on else { return .normal }
            return legacyMode == 1 ? .maximized : .fullscreen
        case .number(let n)?:
            guard n.isFinite, n >= 0, n < 256 else { return .normal }
            let bits = Int(n)
            if bits & 2 != 0 { return .fullscreen }
            if bits & 1 != 0 { return .maximized }
            return .normal
        default:
            return .normal
        }
    }

    private static func isSpecial(id: Double?, name: String) -> Bool {
        if let id { return id >= -99 && id <= -2 }
        return name.hasPrefix("special")
    }

    private static func assemble(_ monitors: [Monitor], _ spaces: [Workspace], _ clients: [Client],
                                 focusedAddress: String?) -> ScreenFacts {
        var facts = ScreenFacts()
        for ws in spaces {
            let shownBy = isSpecial(id: ws.id, name: ws.name) ? nil : monitors.first { $0.activeWorkspace?.id == ws.id }
            facts.workspaces.append(ScreenWorkspace(name: ws.name, output: shownBy?.name ?? ws.monitor, active: shownBy != nil))
        }
        // A monitor's active workspace missing from the workspaces reply (asked a moment apart).
        for m in monitors {
            guard let a = m.activeWorkspace, !spaces.contains(where: { $0.id == a.id }) else { continue }
            facts.workspaces.append(ScreenWorkspace(name: a.name, output: m.name, active: true))
        }
        for c in clients {
            let monitor = c.monitor.flatMap { id in monitors.first { $0.id == id }?.name }
            var window = ScreenWindow(id: c.address, appID: c.appID, title: c.title, output: monitor,
                                      fullscreen: c.fullscreen, maximized: c.maximized, minimized: c.hidden)
            if let focusedAddress {
                window.activated = c.address == focusedAddress
            } else {
                window.activated = c.focusHistoryID == 0
            }
            if let ws = c.workspace, !ws.name.isEmpty {
                if isSpecial(id: ws.id, name: ws.name) {
                    if let shownOn = monitors.first(where: { s in s.specialWorkspace.map { $0.name == ws.name } ?? false }) {
                        window.output = shownOn.name
                    } else {
                        window.workspace = ws.name
                        window.minimized = true
                    }
                } else {
                    window.workspace = ws.name
                }
            }
            facts.windows.append(window)
        }
        return facts
    }
}

/// Lines out of a byte stream read in pieces (Hyprland's socket2, niri's event stream): bytes in,
/// each complete line out (without its `\n`, empty lines skipped, invalid UTF-8 replaced), the
/// unfinished rest kept for the next read. A line longer than `limit` bytes is dropped whole and
/// counted, so a stream without newlines cannot grow it without bound.
public struct EventLines: Sendable {
    /// The longest line kept, in bytes.
    public let limit: Int
    /// How many lines were dropped for being longer than `limit`.
    public private(set) var dropped = 0
    private var pending: [UInt8] = []
    private var skipping = false

    public init(limit: Int = 16 << 20) {
        self.limit = max(1, limit)
    }

    /// The lines `bytes` completes.
    public mutating func append<Bytes: Sequence>(_ bytes: Bytes) -> [String] where Bytes.Element == UInt8 {
        var lines: [String] = []
        for b in bytes {
            if b == 0x0a {
                if !skipping, !pending.isEmpty { lines.append(String(decoding: pending, as: UTF8.self)) }
                pending.removeAll(keepingCapacity: true)
                skipping = false
            } else if !skipping {
                if pending.count == limit {
                    pending.removeAll()
                    skipping = true
                    dropped += 1
                } else {
                    pending.append(b)
                }
            }
        }
        return lines
    }
}
