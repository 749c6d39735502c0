// The config file, pure: `$XDG_CONFIG_HOME/wayloop/config` parsed into output entries (the same
// values as the command line's -o scopes). The format (wayloop(5); docs/guide.md "Config file"):
//
//     # defaults for every output (the top section, before any [output] header)
//     video = ~/Videos/waves.mp4  # a video, a directory or a playlist file (.m3u, .m3u8, .txt)
//     mode = fill                 # fill | fit | stretch | center | tile | span | span-fit
//     color = 000000              # bars and borders: RRGGBB or #RRGGBB ("colour" works too)
//     dim = 0.2                   # 0 to 1
//     fallback = 202020           # a colour or a video, shown when the video cannot be played
//     pause-on-fullscreen = yes   # yes | no (also true/false, on/off, 1/0)
//     pause-on-battery = no
//     max-fps = 30                # at most 30 frames per second (0: no cap); battery-fps = 10
//     scaling = auto              # auto | client | compositor: who scales a smaller video
//     hwdec = auto                # auto | no | vaapi | vaapi-copy | nvdec-copy (hwdec-device = PATH|N)
//     fit = auto                  # auto | always | off: play an oversized video from a fitted copy
//     interval = 10m              # a playlist's switch: 30s, 10m, 2h30m, 500ms (or loops = N)
//     shuffle = yes
//     transition = fade:0.5s      # none | fade | fade:DURATION
//     renderer = auto             # auto | gl | shm (top section only: every output)
//
//     workspace 3 = ~/v/rain.mp4  # while an output shows workspace 3 (any section)
//
//     [output DP-1]               # a connector name, "Make Model Serial" in quotes, or *
//     video = left.mp4
//
// `key = value`, one a line; a value may be in double quotes. A `#` starts a comment at the start
// of a line or after a space or tab, outside quotes (`color = #RRGGBB` is a colour, and
// `clip#2.mp4` keeps its `#`). A key is set once per section, a section appears once ([*] is
// [output *]); a UTF-8 byte-order mark and CRLF line ends are accepted. Relative paths (`video`,
// a `fallback` video) are relative to the file's directory, `~/` is the home directory, and a
// bare name (no slash) is a file beside the config file or one in the wayloop data directories.

public struct ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    public let file: String
    public let line: Int
    public let reason: String
    public init(file: String, line: Int, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }
    public var description: String { line > 0 ? "\(file):\(line): \(reason)" : "\(file): \(reason)" }
}

public enum ConfigFile {
    /// The default path: `$XDG_CONFIG_HOME/wayloop/config`, else `$HOME/.config/wayloop/config`.
    public static func defaultPath(xdgConfigHome: String?, home: String?) -> String? {
        if let x = xdgConfigHome, x.hasPrefix("/") { return x + "/wayloop/config" }
        if let h = home, !h.isEmpty { return h + "/.config/wayloop/config" }
        return nil
    }

    /// Parses `text` read from `path`; entries in file order, the top section first.
    /// `find(name, directory)`: what a bare video name (no slash) stands for — a file beside the
    /// config file or one in the wayloop data directories (VideoLookup); nil keeps it bare, for
    /// the error to say where it looked. Without `find`, every path is relative to the file.
    public static func parse(_ text: String, path: String, home: String?,
                             find: ((String, String) -> String?)? = nil) throws(ConfigError) -> [OutputEntry] {
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        var entries: [OutputEntry] = []
        var workspaces: [OutputEntry] = []
        var current = OutputEntry(selector: .all)
        var seenKeys: Set<String> = []
        var seenSections: Set<String> = []
        var lineNumber = 0

        func fail(_ reason: String) -> ConfigError { ConfigError(file: path, line: lineNumber, reason: reason) }
        func locate(_ v: String) -> String {
            guard let find, VideoLookup.isBareName(v) else { return Paths.absolute(v, in: directory, home: home) }
            return find(v, directory) ?? v
        }

        // A UTF-8 byte-order mark (some Windows editors write one) is not part of the first key.
        let body = text.hasPrefix("\u{feff}") ? Substring(text.dropFirst()) : Substring(text)
        for raw in body.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            let line = stripComment(raw).trimmed
            if line.isEmpty { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else { throw fail("a section header ends with ']'") }
                let inner = String(line.dropFirst().dropLast()).trimmed
                let name: String
                if inner == "*" { name = "*" } else {
                    guard inner == "output" || inner.hasPrefix("output ") || inner.hasPrefix("output\t") else { throw fail("unknown section '[\(inner)]' (expected [output NAME])") }
                    var n = String(inner.dropFirst("output".count)).trimmed
                    if n.count >= 2 && n.hasPrefix("\"") && n.hasSuffix("\"") { n = String(n.dropFirst().dropLast()) }
                    guard !n.isEmpty else { throw fail("[output] needs a name: [output DP-1], [output \"Make Model Serial\"] or [output *]") }
                    name = n
                }
                guard !seenSections.contains(name) else { throw fail("a second section for output '\(name)'") }
                seenSections.insert(name)
                entries.append(current)
                current = OutputEntry(selector: name == "*" ? .all : .named(name))
                seenKeys = []
                continue
            }
            guard let eq = line.firstIndex(of: "=") else { throw fail("expected 'key = value' or '[output NAME]'") }
            let key = String(line[..<eq]).trimmed
            var value = String(line[line.index(after: eq)...]).trimmed
            if value.count >= 2 && value.hasPrefix("\"") && value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            guard !value.isEmpty else { throw fail("'\(key)' has no value") }
            guard !seenKeys.contains(key) else { throw fail("'\(key)' is set twice in this section") }
            seenKeys.insert(key)
            switch key {
            case "video":
                current.video = locate(value)
                current.videoOrigin = "\(path):\(lineNumber)"
            case _ where key.hasPrefix("workspace ") || key.hasPrefix("workspace\t"):
                // `workspace NAME = VIDEO`: this section's outputs, while they show workspace NAME.
                var n = String(key.dropFirst("workspace".count)).trimmed
                if n.count >= 2 && n.hasPrefix("\"") && n.hasSuffix("\"") { n = String(n.dropFirst().dropLast()) }
                guard let ws = WorkspaceName.parse(n) else { throw fail("'\(key)': \(WorkspaceName.expected) after 'workspace'") }
                var e = OutputEntry(workspace: ws, selector: current.selector, showing: value)
                if e.video != nil {
                    e.video = locate(value)
                    e.videoOrigin = "\(path):\(lineNumber)"
                }
                workspaces.append(e)
            case "renderer":
                guard current.selector == .all && entries.isEmpty else {
                    throw fail("renderer applies to every output: set it in the top section, before any [output] section")
                }
                guard let r = RendererRequest(rawValue: value) else { throw fail("renderer '\(value)' is not \(RendererRequest.expected)") }
                current.renderer = r
            case _ where EntrySettings.key(key) != nil:
                let setting = EntrySettings.key(key)!
                guard setting.set(value, in: &current) else { throw fail("\(key) \(setting.problem(value))") }
                // A fallback video is relative to this file, like `video`.
                if setting.key == "fallback", case .video(let v)? = current.fallback {
                    current.fallback = .video(locate(v))
                }
            default:
                let known = ["video", "workspace NAME"] + EntrySettings.all.map(\.key) + ["renderer"]
                throw fail("unknown key '\(key)' (\(known.joined(separator: ", ")))")
            }
        }
        entries.append(current)
        // The top section matters only when it says something.
        return entries.filter { $0 != OutputEntry(selector: .all) } + workspaces
    }

    /// Drops a `#` comment: a `#` outside double quotes at the start of the line or after
    /// whitespace, except `key = #RRGGBB` (a colour). `clip#2.mp4` keeps its `#`.
    private static func stripComment(_ line: Substring) -> Substring {
        var quoted = false
        var previous: Character = " "
        var afterEquals = false
        for i in line.indices {
            let c = line[i]
            if c == "\"" { quoted.toggle() }
            if c == "#" && !quoted && (previous == " " || previous == "\t") {
                let rest = line[line.index(after: i)...]
                let hex = rest.prefix(6)
                let isColour = afterEquals && hex.count == 6 && hex.allSatisfy(\.isHexDigit)
                    && (rest.count == 6 || rest.dropFirst(6).first == " " || rest.dropFirst(6).first == "\t")
                if !isColour { return line[..<i] }
            }
            if c == "=" { afterEquals = true } else if c != " " && c != "\t" { afterEquals = false }
            previous = c
        }
        return line
    }
}

extension StringProtocol {
    var trimmed: String {
        let ws: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        return String(drop(while: ws).reversed().drop(while: ws).reversed())
    }
}
