// The control protocol, pure: `wayloop ctl` arguments → a request, requests and replies as one
// JSON object per line, and a line splitter with a size limit (what it answers: Status.swift).
// The shell owns the sockets.

/// One request to the running instance.
public enum ControlRequest: Equatable, Sendable {
    /// Each connected output's status.
    case status
    /// Pause one output (by name or description), or every output (nil).
    case pause(String?)
    /// Resume one output, or every output (nil).
    case resume(String?)
    /// Pause one output, or every output (nil), or resume it if the user paused it.
    case toggle(String?)
    /// The next video of the playlist one output (nil: every output) plays.
    case next(String?)
    /// The previous video of the playlist one output (nil: every output) plays.
    case prev(String?)
    /// Show a video on an output (`*`: every output); the entry's selector says which.
    case set(OutputEntry)
    /// Read the config file again.
    case reload
    /// Stop the wallpaper.
    case quit
    /// Each output's state now, then every change of state, as lines of events.
    case subscribe
    /// Drop the `ctl set` overrides of one output (nil: of every output, and the playlists'
    /// saved places): it shows what the command line and config file say, and the state file
    /// no longer remembers them.
    case forget(String?)
    /// Write the picture one output (nil: the only one) shows now as a PNG at `file` (absolute).
    case snapshot(output: String?, file: String)
    /// A second `wayloop ARGS` hands its arguments over; relative paths are relative to `cwd`.
    case handOver(args: [String], cwd: String)

    /// The request as one JSON line's object.
    package var json: JSON {
        func target(_ cmd: String, _ o: String?) -> JSON {
            .object([("cmd", .string(cmd))] + (o.map { [("output", .string($0))] } ?? []))
        }
        switch self {
        case .status: return .object([("cmd", .string("status"))])
        case .pause(let o): return target("pause", o)
        case .resume(let o): return target("resume", o)
        case .toggle(let o): return target("toggle", o)
        case .next(let o): return target("next", o)
        case .prev(let o): return target("prev", o)
        case .set(let e):
            var pairs: [(String, JSON)] = [("cmd", .string("set"))]
            switch e.selector {
            case .all: pairs.append(("output", .string("*")))
            case .named(let n): pairs.append(("output", .string(n)))
            }
            if let ws = e.workspace { pairs.append(("workspace", .string(ws))) }
            if let v = e.video { pairs.append(("video", .string(v))) }
            if let c = e.solid { pairs.append(("solid", .string(c.description))) }
            for setting in EntrySettings.runtime {
                guard let v = setting.value(in: e) else { continue }
                pairs.append((setting.key, setting.numeric ? .number(Double(v) ?? 0) : .string(v)))
            }
            return .object(pairs)
        case .reload: return .object([("cmd", .string("reload"))])
        case .forget(let o): return target("forget", o)
        case .snapshot(let o, let file):
            return .object([("cmd", .string("snapshot"))] + (o.map { [("output", .string($0))] } ?? []) + [("file", .string(file))])
        case .quit: return .object([("cmd", .string("quit"))])
        case .subscribe: return .object([("cmd", .string("subscribe"))])
        case .handOver(let args, let cwd):
            return .object([("cmd", .string("args")), ("args", .array(args.map { .string($0) })), ("cwd", .string(cwd))])
        }
    }

    /// Reads a request; the error is one line for the error reply.
    package static func parse(_ line: String) -> Result<ControlRequest, ControlError> {
        let value: JSON
        do { value = try JSON.parse(line) } catch { return .failure(.malformed("\(error)")) }
        guard case .object = value else { return .failure(.malformed("a request is a JSON object")) }
        guard let cmd = value["cmd"]?.string else { return .failure(.malformed("the request has no \"cmd\" string")) }
        let output = value["output"]?.string
        if let o = value["output"], output == nil, o != .null { return .failure(.malformed("\"output\" must be a string")) }
        switch cmd {
        case "status": return .success(.status)
        case "pause": return .success(.pause(output))
        case "resume": return .success(.resume(output))
        case "toggle": return .success(.toggle(output))
        case "next": return .success(.next(output))
        case "prev": return .success(.prev(output))
        case "reload": return .success(.reload)
        case "forget": return .success(.forget(output))
        case "snapshot":
            guard let file = value["file"]?.string, file.hasPrefix("/") else {
                return .failure(.malformed("snapshot needs \"file\" (an absolute path)"))
            }
            return .success(.snapshot(output: output, file: file))
        case "quit": return .success(.quit)
        case "subscribe": return .success(.subscribe)
        case "set":
            guard let output, !output.isEmpty else { return .failure(.malformed("set needs \"output\" (a name or \"*\")")) }
            var e = OutputEntry(selector: output == "*" ? .all : .named(output))
            if let w = value["workspace"], w != .null {
                guard let ws = w.string.flatMap(WorkspaceName.parse) else { return .failure(.malformed("\"workspace\": \(WorkspaceName.expected)")) }
                e.workspace = ws
            }
            if let v = value["video"], v != .null {
                guard let s = v.string else { return .failure(.malformed("\"video\" must be a string")) }
                e.video = s
            }
            if let v = value["solid"], v != .null {
                guard let c = v.string.flatMap(RGB.init(hex:)) else { return .failure(.malformed("\"solid\" must be a colour RRGGBB")) }
                guard e.workspace != nil else { return .failure(.malformed("\"solid\" is for a workspace's entry (with \"workspace\")")) }
                guard e.video == nil else { return .failure(.malformed("\"video\" and \"solid\" are one entry's two choices: name one")) }
                e.solid = c
            }
            for setting in EntrySettings.runtime {
                guard let field = value[setting.key] else { continue }
                // The protocol's types: a number for dim, strings for the rest.
                let text: String? = setting.numeric ? (field.number != nil ? field.serialized : nil) : field.string
                guard let text, setting.set(text, in: &e) else {
                    return .failure(.malformed("\"\(setting.key)\": \(setting.problem(text ?? field.serialized))"))
                }
            }
            if case .video(let v)? = e.fallback, !v.hasPrefix("/") {
                return .failure(.malformed("a \"fallback\" video must be an absolute path"))
            }
            guard !e.fieldsSet.isEmpty else {
                return .failure(.malformed("set needs \"video\" or a setting to change"))
            }
            if let v = e.video, !v.hasPrefix("/") { return .failure(.malformed("\"video\" must be an absolute path")) }
            return .success(.set(e))
        case "args":
            guard let items = value["args"]?.array, case let args = items.compactMap(\.string), args.count == items.count,
                  let cwd = value["cwd"]?.string else {
                return .failure(.malformed("args needs \"args\" (strings) and \"cwd\""))
            }
            return .success(.handOver(args: args, cwd: cwd))
        default:
            return .failure(.malformed("unknown command '\(cmd)'"))
        }
    }
}

/// Why a request failed: the kind travels in the reply so that clients can choose an exit status.
public enum ControlError: Error, Equatable, Sendable, CustomStringConvertible {
    case malformed(String)
    case tooLong(limit: Int)
    case noSuchOutput(String)
    case usage(String)
    case config(String)
    case video(String)
    case refused(String)
    case busy(String)

    public var kind: String {
        switch self {
        case .malformed: return "malformed"
        case .tooLong: return "too-long"
        case .noSuchOutput: return "no-such-output"
        case .usage: return "usage"
        case .config: return "config"
        case .video: return "video"
        case .refused: return "refused"
        case .busy: return "busy"
        }
    }

    public var description: String {
        switch self {
        case .malformed(let m): return "malformed request: \(m)"
        case .tooLong(let n): return "request longer than \(n) bytes"
        case .noSuchOutput(let o): return "no output matches '\(o)'"
        case .usage(let m), .config(let m), .video(let m), .refused(let m), .busy(let m): return m
        }
    }

    public var reply: JSON {
        .object([("ok", .bool(false)), ("error", .string(description)), ("kind", .string(kind))])
    }
}

/// `wayloop ctl ...` as parsed from the command line.
public struct CtlCommand: Equatable, Sendable {
    /// The request sent to the running instance.
    public var request: ControlRequest
    /// `status --json`: print the reply as it came.
    public var json = false
    /// `subscribe --waybar`: print waybar's custom-module JSON on each change (Waybar).
    public var waybar = false
    /// `ctl --name NAME`: talk to the instance started with `--name NAME`.
    public var name: String?
    /// A command sending `request`, with the client's own flags.
    public init(request: ControlRequest, json: Bool = false, waybar: Bool = false, name: String? = nil) {
        self.request = request
        self.json = json
        self.waybar = waybar
        self.name = name
    }
}

public enum CtlParser {
    public static let usage = "status [--json] | pause|resume|toggle|next|prev [OUTPUT] | set OUTPUT|'*' [--workspace NAME] [VIDEO|DIR|PLAYLIST] [-m MODE] [-c RRGGBB] [--dim F] [-f RRGGBB|VIDEO] [--transition T] [--interval D] [--loops N] [--shuffle] [--max-fps N] [--battery-fps N] [--scaling S] [--hwdec H] [--hwdec-device D] [--fit F] [--pause-when RULES] [--pause-ignore APP_IDS] | forget [OUTPUT] | snapshot [OUTPUT] FILE.png | reload | quit | subscribe [--waybar]"

    /// Parses the arguments after `ctl`. Video paths stay as given: the client makes them absolute.
    public static func parse(_ args: [String]) throws(UsageError) -> CtlCommand {
        // `--name NAME` first: the instance to talk to.
        if args.first == "--name" || args.first?.hasPrefix("--name=") == true {
            let inline = args.first!.hasPrefix("--name=") ? String(args.first!.dropFirst("--name=".count)) : nil
            guard let name = inline ?? (args.count > 1 ? args[1] : nil) else { throw .missingValue(option: "--name") }
            guard InstanceName.isValid(name) else { throw .badValue(option: "--name", value: name, expected: InstanceName.expected) }
            var c = try parse(Array(args.dropFirst(inline == nil ? 2 : 1)))
            c.name = name
            return c
        }
        guard let cmd = args.first else { throw .ctl("no command (\(usage))") }
        let rest = Array(args.dropFirst())
        // An extra argument, in ctl's words: what the command takes, and what was one too many.
        func noMore(_ a: ArraySlice<String>, takes: String) throws(UsageError) {
            if let x = a.first { throw .ctl("\(cmd) takes \(takes), not also '\(x)'") }
        }
        switch cmd {
        case "status":
            var json = false
            for a in rest {
                guard a == "--json" else { throw .unknownOption(a) }
                json = true
            }
            return CtlCommand(request: .status, json: json)
        case "pause", "resume", "toggle", "next", "prev", "forget":
            try noMore(rest.dropFirst(), takes: "at most one OUTPUT (or '*')")
            let o = rest.first == "*" ? nil : rest.first
            if let o, o.hasPrefix("-") { throw .unknownOption(o) }
            let request: ControlRequest
            switch cmd {
            case "pause": request = .pause(o)
            case "resume": request = .resume(o)
            case "toggle": request = .toggle(o)
            case "next": request = .next(o)
            case "forget": request = .forget(o)
            default: request = .prev(o)
            }
            return CtlCommand(request: request)
        case "subscribe":
            var waybar = false
            for a in rest {
                guard a == "--waybar" else {
                    throw a.hasPrefix("-") ? .unknownOption(a) : .ctl("subscribe takes only --waybar, not '\(a)'")
                }
                waybar = true
            }
            return CtlCommand(request: .subscribe, waybar: waybar)
        case "snapshot":
            try noMore(rest.dropFirst(2), takes: "[OUTPUT] FILE.png")
            if let o = rest.first(where: { $0.hasPrefix("-") && $0.count > 1 }) { throw .unknownOption(o) }
            switch rest.count {
            case 1: return CtlCommand(request: .snapshot(output: nil, file: rest[0]))
            case 2: return CtlCommand(request: .snapshot(output: rest[0] == "*" ? nil : rest[0], file: rest[1]))
            default: throw .ctl("snapshot needs FILE.png (and OUTPUT, with several outputs)")
            }
        case "reload", "quit":
            try noMore(rest[...], takes: "no argument")
            return CtlCommand(request: cmd == "reload" ? .reload : .quit)
        case "set":
            guard let output = rest.first, !output.hasPrefix("-") else { throw .ctl("set needs OUTPUT (or '*') and VIDEO") }
            var e = OutputEntry(selector: output == "*" ? .all : .named(output))
            var c = ArgumentCursor(Array(rest.dropFirst()))
            while let a = c.current {
                if a == "--workspace" || a == "-w" {
                    // `set OUTPUT --workspace NAME VIDEO`: while OUTPUT shows workspace NAME.
                    e.workspace = try c.value(of: a, expected: WorkspaceName.expected, WorkspaceName.parse)
                    c.advance()
                    continue
                }
                if try !c.applySetting(a, to: &e) {
                    if a.hasPrefix("-") && a.count > 1 { throw .unknownOption(a) }
                    if let v = e.video ?? e.solid?.description { throw .ctl("set takes one VIDEO (or directory, or playlist): '\(v)', not also '\(a)'") }
                    e.video = a
                }
                c.advance()
            }
            // A workspace's entry may be a colour (`set '*' --workspace 4 '#203040'`).
            if e.workspace != nil, let v = e.video, let c = RGB(hex: v) {
                e.video = nil
                e.solid = c
            }
            guard !e.fieldsSet.isEmpty else {
                throw .ctl("set needs VIDEO or a setting to change")
            }
            return CtlCommand(request: .set(e))
        default:
            throw .ctl("unknown command '\(cmd)' (\(usage))")
        }
    }
}

/// Splits a byte stream into lines, with a limit on a line's length. A line over the limit is
/// discarded up to its newline and reported once, so that the connection stays usable.
public struct LineSplitter: Sendable {
    public let limit: Int
    private var buffer: [UInt8] = []
    private var discarding = false

    public init(limit: Int) { self.limit = limit }

    public enum Item: Equatable, Sendable {
        case line(String)
        case tooLong
    }

    /// Feeds bytes; returns the complete lines (and overflows) in order.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) -> [Item] {
        var out: [Item] = []
        for b in bytes {
            if b == UInt8(ascii: "\n") {
                if discarding {
                    discarding = false
                } else {
                    if buffer.last == UInt8(ascii: "\r") { buffer.removeLast() }
                    out.append(.line(String(decoding: buffer, as: UTF8.self)))
                }
                buffer.removeAll(keepingCapacity: true)
            } else if !discarding {
                buffer.append(b)
                if buffer.count > limit {
                    out.append(.tooLong)
                    discarding = true
                    buffer.removeAll(keepingCapacity: false)
                }
            }
        }
        return out
    }

    public mutating func feed(_ bytes: [UInt8]) -> [Item] { bytes.withUnsafeBytes { feed($0) } }
}
