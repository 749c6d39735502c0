// niri's IPC event stream, pure: the socket, the request, the first reply, and a reducer over
// the events that keeps what ScreenFacts needs, as niri-ipc's own EventStreamState applies them.
// The shell connects, writes the request and feeds each line read here (EventLines splits them).
//
// Sources (github:niri-wm/niri at tag v26.04; the wiki page docs/wiki/IPC.md, also
// https://github.com/niri-wm/niri/wiki/IPC):
//   socket    `$NIRI_SOCKET` (niri-ipc/src/socket.rs:12; niri-ipc/src/lib.rs:26).
//   request   a JSON Request on one line (lib.rs:27-28); `Request::EventStream` is a unit
//             variant, so `"EventStream"` (lib.rs:115); since niri 0.1.9 (IPC.md:13).
//   reply     `Reply = Result<Response, String>` (lib.rs:132), `Response::Handled` (lib.rs:139):
//             serde's `{"Ok":"Handled"}`, else `{"Err":"…"}`; one line (src/ipc/server.rs:223-225,
//             :447).
//   events    one JSON Event per line (server.rs:496-497), externally tagged:
//             `{"WorkspacesChanged":{"workspaces":[…]}}` (lib.rs:1571-); the full state first
//             (server.rs:249, "the complete current state up-front", IPC.md:18). New fields and
//             variants are added over time (IPC.md "Backwards Compatibility"): unknown ones are
//             ignored here.
//   state     niri-ipc/src/state.rs:125-238 (WorkspacesState and WindowsState `apply`); where it
//             panics on an id it does not know (state.rs:139, :158, :201, :230), this reducer
//             ignores the event: the stream is not always consistent (state.rs:27-32, IPC.md:21-23).
//   window    niri-ipc/src/lib.rs:1297-1337 (Window: id, title, app_id, workspace_id, is_focused,
//             is_floating, layout) and :1367-1393 (WindowLayout: sizes and positions only). niri
//             reports no fullscreen or maximized state: neither struct has one, and the server
//             fills the Window from the id, title, app_id, pid, workspace, focus, floating and
//             urgency alone (src/ipc/server.rs:515-531); unmerged PRs niri-wm/niri#2836 and #2270
//             would add it. So both are false here. niri has no minimize either.
//   workspace lib.rs:1408-1444 (id, idx on its output, name, output, is_active, is_focused,
//             active_window_id).

/// niri's IPC socket and its event stream.
public enum NiriIPC {
    /// The environment variable that holds the socket's path.
    public static let socketVariable = "NIRI_SOCKET"

    /// The socket's path from `$NIRI_SOCKET` (nil: unset or empty, not under niri).
    public static func socketPath(_ niriSocket: String?) -> String? {
        guard let p = niriSocket, !p.isEmpty else { return nil }
        return p
    }

    /// The request that turns the connection into an event stream: `"EventStream"`, a line.
    public static let eventStreamRequest = "\"EventStream\"\n"

    /// Whether niri's first reply (a line) accepts the event stream (`{"Ok":"Handled"}`), or why
    /// not (`{"Err":"…"}`, or anything else).
    public static func checkEventStreamReply(_ line: String) -> Result<Void, NiriIPCError> {
        let json: JSON
        do { json = try JSON.parse(line) } catch { return .failure(.malformed("its reply to EventStream is not JSON (\(error))")) }
        if json["Ok"]?.string == "Handled" { return .success(()) }
        if let why = json["Err"]?.string { return .failure(.refused(why)) }
        return .failure(.malformed("its reply to EventStream is not {\"Ok\":\"Handled\"}: \(clip(line))"))
    }

    /// A line as an error quotes it: its first 80 characters.
    static func clip(_ s: String) -> String {
        s.count > 80 ? String(s.prefix(80)) + "…" : s
    }
}

/// Why niri's event stream cannot be followed: one phrase.
public enum NiriIPCError: Error, Equatable, Sendable, CustomStringConvertible {
    /// niri answered the request with an error (its text): an older niri, say.
    case refused(String)
    /// A line is not what niri sends.
    case malformed(String)

    public var description: String {
        switch self {
        case .refused(let s): return "niri refused the event stream: \(s)"
        case .malformed(let s): return "niri's event stream: \(s)"
        }
    }
}

/// The workspaces and windows niri's event stream has told so far, and the ScreenFacts they make.
public struct NiriState: Equatable, Sendable {
    /// A workspace as niri reports it.
    public struct Workspace: Equatable, Sendable {
        /// niri's id for it, constant while it exists.
        public var id: UInt64
        /// Its position on its output, from 1.
        public var idx: Int
        /// Its name, when it has one.
        public var name: String?
        /// The output it is on (nil: none connected).
        public var output: String?
        /// Its output shows it.
        public var isActive: Bool
        /// It is the one focused workspace.
        public var isFocused: Bool
        /// The window active on it, if any.
        public var activeWindowID: UInt64?

        public init(id: UInt64, idx: Int, name: String? = nil, output: String? = nil, isActive: Bool = false,
                    isFocused: Bool = false, activeWindowID: UInt64? = nil) {
            self.id = id
            self.idx = idx
            self.name = name
            self.output = output
            self.isActive = isActive
            self.isFocused = isFocused
            self.activeWindowID = activeWindowID
        }
    }

    /// A toplevel window as niri reports it.
    public struct Window: Equatable, Sendable {
        /// niri's id for it, constant while it is open.
        public var id: UInt64
        public var title: String?
        public var appID: String?
        /// The workspace it is on, if any.
        public var workspaceID: UInt64?
        /// It has the keyboard focus (at most one window has).
        public var isFocused: Bool
        /// It floats rather than being in the scrolling layout.
        public var isFloating: Bool

        public init(id: UInt64, title: String? = nil, appID: String? = nil, workspaceID: UInt64? = nil,
                    isFocused: Bool = false, isFloating: Bool = false) {
            self.id = id
            self.title = title
            self.appID = appID
            self.workspaceID = workspaceID
            self.isFocused = isFocused
            self.isFloating = isFloating
        }
    }

    /// The workspaces, in the order niri listed them (then as they appeared).
    public private(set) var workspaces: [Workspace] = []
    /// The windows, in the order niri listed them (then as they opened).
    public private(set) var windows: [Window] = []

    public init() {}

    /// Applies one line of the event stream. Returns whether it may change `facts` (a workspace or
    /// window event this reducer keeps); an event it does not keep (keyboard layouts, urgency, the
    /// overview, casts, one newer than this reader) returns false. Throws when the line is not an
    /// event as niri writes one: not JSON, not a one-key object, or a known event of the wrong
    /// shape; the state is then unchanged.
    @discardableResult
    public mutating func apply(_ line: String) throws(NiriIPCError) -> Bool {
        let json: JSON
        do { json = try JSON.parse(line) } catch { throw .malformed("a line is not JSON (\(error)): \(NiriIPC.clip(line))") }
        switch json {
        case .string:
            return false  // a unit variant: none is kept
        case .object(let pairs) where pairs.count == 1:
            let (name, body) = pairs[0]
            guard Self.keptEvents.contains(name) else { return false }
            guard case .object = body else { throw .malformed("\(name) is not an object") }
            return try apply(name, body)
        default:
            throw .malformed("a line is not an event (an object of one key): \(NiriIPC.clip(line))")
        }
    }

    /// The events this reducer keeps (niri-ipc/src/state.rs:125-238, less urgency, focus
    /// timestamps and layouts, which ScreenFacts does not hold).
    static let keptEvents: Set<String> = [
        "WorkspacesChanged", "WorkspaceActivated", "WorkspaceActiveWindowChanged",
        "WindowsChanged", "WindowOpenedOrChanged", "WindowClosed", "WindowFocusChanged",
    ]

    private mutating func apply(_ name: String, _ body: JSON) throws(NiriIPCError) -> Bool {
        switch name {
        case "WorkspacesChanged":
            // Replaces them all (lib.rs:1573-1580; state.rs:127-129).
            guard let list = body["workspaces"]?.array else { throw .malformed("WorkspacesChanged has no workspaces array") }
            var next: [Workspace] = []
            for item in list { next.append(try Self.workspace(item)) }
            workspaces = next
            return true
        case "WorkspaceActivated":
            // Active on its output, the others there not; focused: the one focused (state.rs:137-151).
            let id = try Self.id(body["id"], "WorkspaceActivated's id")
            let focused = try Self.flag(body["focused"], "WorkspaceActivated's focused")
            guard let output = workspaces.first(where: { $0.id == id }).map(\.output) else { return false }
            for i in workspaces.indices {
                if workspaces[i].output == output { workspaces[i].isActive = workspaces[i].id == id }
                if focused { workspaces[i].isFocused = workspaces[i].id == id }
            }
            return true
        case "WorkspaceActiveWindowChanged":
            // state.rs:153-160; not part of ScreenFacts.
            let id = try Self.id(body["workspace_id"], "WorkspaceActiveWindowChanged's workspace_id")
            let window = try Self.optionalID(body["active_window_id"], "WorkspaceActiveWindowChanged's active_window_id")
            if let i = workspaces.firstIndex(where: { $0.id == id }) { workspaces[i].activeWindowID = window }
            return false
        case "WindowsChanged":
            // Replaces them all (lib.rs:1608-1614; state.rs:175-177).
            guard let list = body["windows"]?.array else { throw .malformed("WindowsChanged has no windows array") }
            var next: [Window] = []
            for item in list { next.append(try Self.window(item)) }
            windows = next
            return true
        case "WindowOpenedOrChanged":
            // Added or replaced; a focused one takes the focus from the others (state.rs:178-197).
            guard let item = body["window"] else { throw .malformed("WindowOpenedOrChanged has no window") }
            let w = try Self.window(item)
            if let i = windows.firstIndex(where: { $0.id == w.id }) { windows[i] = w } else { windows.append(w) }
            if w.isFocused { for i in windows.indices where windows[i].id != w.id { windows[i].isFocused = false } }
            return true
        case "WindowClosed":
            // state.rs:199-202.
            let id = try Self.id(body["id"], "WindowClosed's id")
            windows.removeAll { $0.id == id }
            return true
        case "WindowFocusChanged":
            // The one named (or none) has the focus (state.rs:203-207).
            let id = try Self.optionalID(body["id"], "WindowFocusChanged's id")
            for i in windows.indices { windows[i].isFocused = windows[i].id == id }
            return true
        default:
            return false
        }
    }

    /// The facts the stream has told: each workspace named by its name, else its index on its
    /// output as text (`1`), active where its output shows it; each window on its workspace (by
    /// that name) and that workspace's output, `activated` when focused. niri reports neither
    /// fullscreen nor maximized nor minimized (see the head of this file): those stay false.
    public var facts: ScreenFacts {
        var facts = ScreenFacts()
        for ws in workspaces {
            facts.workspaces.append(ScreenWorkspace(name: Self.name(of: ws), output: ws.output, active: ws.isActive))
        }
        for w in windows {
            let ws = w.workspaceID.flatMap { id in workspaces.first { $0.id == id } }
            facts.windows.append(ScreenWindow(id: String(w.id), appID: w.appID, title: w.title, workspace: ws.map(Self.name(of:)),
                                              output: ws?.output, activated: w.isFocused))
        }
        return facts
    }

    /// A workspace's name in ScreenFacts: its own, else its index.
    static func name(of ws: Workspace) -> String {
        if let n = ws.name, !n.isEmpty { return n }
        return String(ws.idx)
    }

    // MARK: Reading the JSON

    private static func workspace(_ json: JSON) throws(NiriIPCError) -> Workspace {
        guard case .object = json else { throw .malformed("a workspace is not an object") }
        let id = try id(json["id"], "a workspace's id")
        guard let idx = json["idx"]?.number, idx >= 0, idx <= 255, idx == idx.rounded() else {
            throw .malformed("workspace \(id) has no idx from 0 to 255")
        }
        return Workspace(id: id, idx: Int(idx), name: try text(json["name"], "workspace \(id)'s name"),
                         output: try text(json["output"], "workspace \(id)'s output"),
                         isActive: try flag(json["is_active"], "workspace \(id)'s is_active"),
                         isFocused: try flag(json["is_focused"], "workspace \(id)'s is_focused"),
                         activeWindowID: try optionalID(json["active_window_id"], "workspace \(id)'s active_window_id"))
    }

    private static func window(_ json: JSON) throws(NiriIPCError) -> Window {
        guard case .object = json else { throw .malformed("a window is not an object") }
        let id = try id(json["id"], "a window's id")
        return Window(id: id, title: try text(json["title"], "window \(id)'s title"),
                      appID: try text(json["app_id"], "window \(id)'s app_id"),
                      workspaceID: try optionalID(json["workspace_id"], "window \(id)'s workspace_id"),
                      isFocused: try flag(json["is_focused"], "window \(id)'s is_focused"),
                      isFloating: try flag(json["is_floating"], "window \(id)'s is_floating"))
    }

    /// A u64 id (exact up to 2^53: JSON numbers are read as Double).
    private static func id(_ json: JSON?, _ what: String) throws(NiriIPCError) -> UInt64 {
        guard let n = json?.number, n >= 0, n < 18_446_744_073_709_551_616, n == n.rounded() else { throw .malformed("\(what) is not an id") }
        return UInt64(n)
    }

    private static func optionalID(_ json: JSON?, _ what: String) throws(NiriIPCError) -> UInt64? {
        guard let json, json != .null else { return nil }
        return try id(json, what)
    }

    /// A string, or nil where it is null or absent (an older niri's).
    private static func text(_ json: JSON?, _ what: String) throws(NiriIPCError) -> String? {
        switch json {
        case nil, .null?: return nil
        case .string(let s)?: return s
        default: throw .malformed("\(what) is not a string")
        }
    }

    /// A bool, false where absent (`is_floating` is newer than the event stream: niri 25.01).
    private static func flag(_ json: JSON?, _ what: String) throws(NiriIPCError) -> Bool {
        switch json {
        case nil: return false
        case .bool(let b)?: return b
        default: throw .malformed("\(what) is not a bool")
        }
    }
}
