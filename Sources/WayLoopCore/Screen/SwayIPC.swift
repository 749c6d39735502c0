// sway's IPC (i3's protocol, sway-ipc(7)), pure: the message framing, the requests an adapter
// sends, and the screen from a `get_workspaces` and a `get_tree` reply. sway 1.7 through 1.12
// answer it the same way; the shell connects to $SWAYSOCK, subscribes, and asks again on every
// event that can change what is seen.

public enum SwayIPC {
    /// Every message starts with it, then the payload's length and the message type, each a
    /// 32-bit integer in the host's byte order.
    public static let magic: [UInt8] = Array("i3-ipc".utf8)
    public static let headerSize = 14

    /// The message types WayLoop sends.
    public enum Request: UInt32, Sendable {
        case getWorkspaces = 1
        case subscribe = 2
        case getTree = 4
    }

    /// The events it subscribes to: their names for `subscribe`, and their types (the high bit
    /// set) in replies.
    public static let events = ["workspace", "window", "output", "shutdown"]
    public static let eventBit: UInt32 = 0x8000_0000
    /// The shutdown event's type: sway is going away.
    public static let shutdownEvent: UInt32 = eventBit | 6

    /// A message: the header, then `payload`.
    public static func message(_ type: UInt32, _ payload: String = "") -> [UInt8] {
        let body = Array(payload.utf8)
        var out = magic
        for v in [UInt32(body.count), type] { withUnsafeBytes(of: v.littleEndian) { out += $0 } }
        return out + body
    }

    /// The subscription request for `events`.
    public static var subscribeMessage: [UInt8] {
        message(Request.subscribe.rawValue, "[" + events.map { "\"\($0)\"" }.joined(separator: ",") + "]")
    }

    /// The messages whole at the start of `buffer`: (type, payload) each, and how many bytes
    /// they took; nil when the buffer does not start with the magic (not sway's IPC).
    public static func split(_ buffer: [UInt8]) -> (messages: [(type: UInt32, payload: String)], used: Int)? {
        var out: [(type: UInt32, payload: String)] = []
        var i = 0
        while buffer.count - i >= headerSize {
            guard Array(buffer[i..<(i + 6)]) == magic else { return nil }
            func u32(_ at: Int) -> UInt32 {
                UInt32(buffer[at]) | UInt32(buffer[at + 1]) << 8 | UInt32(buffer[at + 2]) << 16 | UInt32(buffer[at + 3]) << 24
            }
            let length = Int(u32(i + 6)), type = u32(i + 10)
            guard buffer.count - i - headerSize >= length else { break }
            let start = i + headerSize
            out.append((type, String(decoding: buffer[start..<(start + length)], as: UTF8.self)))
            i = start + length
        }
        return (out, i)
    }

    /// The screen from `get_workspaces` (which workspace each output shows) and `get_tree` (the
    /// windows, each on its workspace and output). Windows in the scratchpad are hidden
    /// (minimized); `fullscreen_mode` 1 (the workspace) and 2 (global) are fullscreen; sway has
    /// no maximized state. Nil when either is not what sway sends.
    public static func facts(workspaces: String, tree: String) -> ScreenFacts? {
        guard let ws = try? JSON.parse(workspaces).array, let root = try? JSON.parse(tree), root["type"]?.string == "root" else { return nil }
        var out = ScreenFacts()
        for w in ws {
            guard let name = w["name"]?.string else { return nil }
            out.workspaces.append(ScreenWorkspace(name: name, output: w["output"]?.string, active: w["visible"]?.bool == true))
        }
        for output in root["nodes"]?.array ?? [] {
            let outputName = output["name"]?.string
            let isScratch = outputName == "__i3"
            for workspace in output["nodes"]?.array ?? [] where workspace["type"]?.string == "workspace" {
                let wsName = workspace["name"]?.string
                collect(workspace, into: &out.windows) { w in
                    w.workspace = isScratch ? nil : wsName
                    w.output = isScratch ? nil : outputName
                    w.minimized = isScratch
                }
            }
        }
        return out
    }

    /// The windows under `node` (its tiled and floating children, depth first): a node with an
    /// app_id or an X11 window, or a leaf container with a pid.
    private static func collect(_ node: JSON, into windows: inout [ScreenWindow], place: (inout ScreenWindow) -> Void) {
        for child in (node["nodes"]?.array ?? []) + (node["floating_nodes"]?.array ?? []) {
            let children = (child["nodes"]?.array?.count ?? 0) + (child["floating_nodes"]?.array?.count ?? 0)
            let appID = child["app_id"]?.string ?? child["window_properties"]?["class"]?.string
            let isWindow = appID != nil || child["window"]?.number != nil || (children == 0 && child["pid"]?.number != nil)
            if isWindow {
                var w = ScreenWindow(id: child["id"]?.number.map { String(Int64($0)) } ?? "?", appID: appID,
                                     title: child["name"]?.string,
                                     fullscreen: (child["fullscreen_mode"]?.number ?? 0) > 0,
                                     activated: child["focused"]?.bool == true)
                place(&w)
                windows.append(w)
            }
            if children > 0 { collect(child, into: &windows, place: place) }
        }
    }
}
