// Wallpaper Engine's workshop items, pure: a `project.json` read into what WayLoop needs (its
// title, its file, its preview, its type), whether WayLoop plays it, and where Steam keeps the
// items (its library folders, from `libraryfolders.vdf`). The shell reads the files.

/// One Wallpaper Engine item: a folder `…/workshop/content/431960/ID/` with a `project.json`.
public struct WorkshopItem: Equatable, Sendable {
    /// Wallpaper Engine's Steam app id: its items are in `steamapps/workshop/content/431960`.
    public static let appID = "431960"
    /// The file in an item's folder that says what it is.
    public static let projectFile = "project.json"

    /// `"title"` (nil: none).
    public var title: String?
    /// `"file"`: the item's main file, relative to its folder (the video, for a video item).
    public var file: String?
    /// `"preview"`: a picture or GIF of it, relative to its folder.
    public var preview: String?
    /// `"type"`, lower case: `video`, `scene`, `web`, `application` (nil: none said).
    public var type: String?

    public init(title: String? = nil, file: String? = nil, preview: String? = nil, type: String? = nil) {
        self.title = title
        self.file = file
        self.preview = preview
        self.type = type
    }

    /// The item a `project.json`'s text describes, or why it cannot be read (one phrase).
    public static func parse(_ text: String) -> Result<WorkshopItem, WorkshopError> {
        let json: JSON
        do { json = try JSON.parse(text) } catch { return .failure(.invalid("its project.json is not valid JSON (\(error))")) }
        guard case .object = json else { return .failure(.invalid("its project.json is not a JSON object")) }
        func field(_ key: String) -> String? {
            guard let s = json[key]?.string?.trimmed, !s.isEmpty else { return nil }
            return s
        }
        return .success(WorkshopItem(title: field("title"), file: field("file"), preview: field("preview"), type: field("type")?.lowercased()))
    }

    /// What WayLoop makes of the item: the video file to play (relative to its folder), or why
    /// it plays nothing.
    public var verdict: Result<String, WorkshopError> {
        switch type {
        case "video"?:
            guard let f = file else { return .failure(.notPlayable("a video item whose project.json names no file")) }
            guard Self.isInside(f) else { return .failure(.notPlayable("its project.json names a file outside its folder ('\(f)')")) }
            return .success(f)
        case "scene"?: return .failure(.notPlayable("a scene item (drawn by Wallpaper Engine's own renderer): WayLoop plays video items"))
        case "web"?: return .failure(.notPlayable("a web item (an HTML page): WayLoop plays video items"))
        case "application"?: return .failure(.notPlayable("an application item (a Windows program): WayLoop plays video items"))
        case let t?: return .failure(.notPlayable("an item of type '\(t)': WayLoop plays video items"))
        case nil: return .failure(.notPlayable("its project.json says no type: WayLoop plays video items"))
        }
    }

    /// A path relative to the item's folder that stays inside it (no `..`, not absolute).
    public static func isInside(_ relative: String) -> Bool {
        !relative.hasPrefix("/") && !relative.split(separator: "/").contains("..")
    }

    /// An item ID as `wayloop ID` takes it: digits only (Steam's published file ids).
    public static func isID(_ s: String) -> Bool {
        !s.isEmpty && s.count <= 20 && s.allSatisfy { $0.isASCII && $0.isNumber }
    }
}

/// Why an item cannot be played or read: one phrase, said after its folder.
public enum WorkshopError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Its project.json cannot be read as one.
    case invalid(String)
    /// It is read, but it is not something WayLoop plays.
    case notPlayable(String)

    public var description: String {
        switch self {
        case .invalid(let s), .notPlayable(let s): return s
        }
    }
}

/// Where Steam keeps Wallpaper Engine's items.
public enum SteamLibraries {
    /// Steam's own folders, in the usual places: the native install (`~/.local/share/Steam`,
    /// through `~/.steam/steam` and `~/.steam/root`), Flatpak's and Snap's. Each may not exist.
    public static func roots(home: String?, xdgDataHome: String?) -> [String] {
        var out: [String] = []
        func add(_ p: String) { if !out.contains(p) { out.append(p) } }
        if let x = xdgDataHome, x.hasPrefix("/") { add(trimmed(x) + "/Steam") }
        guard let home, home.hasPrefix("/") else { return out }
        let h = trimmed(home)
        add(h + "/.local/share/Steam")
        add(h + "/.steam/steam")
        add(h + "/.steam/root")
        add(h + "/.var/app/com.valvesoftware.Steam/.local/share/Steam")
        add(h + "/snap/steam/common/.local/share/Steam")
        return out
    }

    /// The library folders `libraryfolders.vdf` names (its `"path"` values), in order. Steam
    /// writes it as nested `"key" "value"` pairs; only the paths matter here.
    public static func folders(vdf text: String) -> [String] {
        var out: [String] = []
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let fields = quoted(String(line))
            for k in fields.indices.dropLast() where fields[k].lowercased() == "path" && fields[k + 1].hasPrefix("/") {
                let p = trimmed(fields[k + 1])
                if !out.contains(p) { out.append(p) }
            }
        }
        return out
    }

    /// The workshop content folder of Wallpaper Engine in a Steam library folder.
    public static func workshopFolder(library: String) -> String {
        trimmed(library) + "/steamapps/workshop/content/" + WorkshopItem.appID
    }

    /// The `"…"` strings of a VDF line, with its `\\` and `\"` escapes undone.
    static func quoted(_ line: String) -> [String] {
        var out: [String] = []
        var current: String?
        var escaped = false
        for c in line {
            if var s = current {
                if escaped { s.append(c); escaped = false; current = s }
                else if c == "\\" { escaped = true }
                else if c == "\"" { out.append(s); current = nil }
                else { s.append(c); current = s }
            } else if c == "\"" {
                current = ""
            } else if c == "/" && out.isEmpty {
                break  // a // comment
            }
        }
        return out
    }

    static func trimmed(_ p: String) -> String {
        var p = p
        while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
        return p
    }
}
