// The control protocol, pure: `wayloop ctl` arguments → a request, requests and replies as one
// JSON object per line, and a line splitter with a size limit. The shell owns the sockets.

/// One request to the running instance.
public enum ControlRequest: Equatable, Sendable {
    case status
    /// Pause, resume or toggle one output (by name or description), or every output (nil).
    case pause(String?)
    case resume(String?)
    case toggle(String?)
    /// The next or the previous video of the playlist one output (nil: every output) plays.
    case next(String?)
    case prev(String?)
    /// Show a video on an output (`*`: every output); the entry's selector says which.
    case set(OutputEntry)
    case reload
    case quit
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
    public var json: JSON {
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
            if let v = e.video { pairs.append(("video", .string(v))) }
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
    public static func parse(_ line: String) -> Result<ControlRequest, ControlError> {
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
            if let v = value["video"], v != .null {
                guard let s = v.string else { return .failure(.malformed("\"video\" must be a string")) }
                e.video = s
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
    public static let usage = "status [--json] | pause|resume|toggle|next|prev [OUTPUT] | set OUTPUT|'*' [VIDEO|DIR|PLAYLIST] [-m MODE] [-c RRGGBB] [--dim F] [-f RRGGBB|VIDEO] [--transition T] [--interval D] [--loops N] [--shuffle] [--max-fps N] [--battery-fps N] [--scaling S] [--hwdec H] [--hwdec-device D] | forget [OUTPUT] | snapshot [OUTPUT] FILE.png | reload | quit | subscribe [--waybar]"

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
            var i = 1
            func value(_ opt: String) throws(UsageError) -> String {
                i += 1
                guard i < rest.count else { throw .missingValue(option: opt) }
                return rest[i]
            }
            while i < rest.count {
                let a = rest[i]
                switch a {
                case _ where EntrySettings.switchFlag(a) != nil:
                    let (setting, v) = EntrySettings.switchFlag(a)!
                    _ = setting.set(v, in: &e)
                case _ where EntrySettings.flag(a) != nil:
                    let setting = EntrySettings.flag(a)!, v = try value(a)
                    guard setting.set(v, in: &e) else { throw .badValue(option: a, value: v, expected: setting.expected) }
                default:
                    if a.hasPrefix("-") && a.count > 1 { throw .unknownOption(a) }
                    if let v = e.video { throw .ctl("set takes one VIDEO (or directory, or playlist): '\(v)', not also '\(a)'") }
                    e.video = a
                }
                i += 1
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

/// Time spent on one stage of the frame path, and how many times it ran (`ctl status --json`'s
/// `costs`: totals since start, so that a reader takes two and divides the difference).
public struct StageCost: Equatable, Sendable {
    /// Time spent in all, in nanoseconds.
    public var nanos: Int64 = 0
    /// Times the stage ran.
    public var count = 0
    /// A cost of `nanos` nanoseconds over `count` runs.
    public init(nanos: Int64 = 0, count: Int = 0) {
        self.nanos = nanos
        self.count = count
    }
    /// Counts one more run that took `n` nanoseconds (a negative time counts as 0).
    public mutating func add(_ n: Int64) {
        nanos &+= max(0, n)
        count += 1
    }
}

/// One output's frame path, stage by stage: its video's decoding (the decoder thread's own CPU
/// time per decoded frame; libavcodec's frame threads, which GL uses, are not in it), the frame
/// comparison (damage), the conversion or drawing of a frame (shm: libswscale into the buffer,
/// once for the outputs sharing it; gl: the upload and draw calls), and the rest of a present up
/// to the commit (shm: attach, damage, the fade's mix; gl: the swap, where llvmpipe shades).
public struct FrameCosts: Equatable, Sendable {
    /// Decoding: the decoder thread's CPU time per decoded frame.
    public var decode = StageCost()
    /// Comparing each frame with the last (damage).
    public var compare = StageCost()
    /// Converting or drawing a frame.
    public var convert = StageCost()
    /// The rest of a present, up to the commit.
    public var present = StageCost()
    /// Every stage at zero.
    public init() {}

    /// `costs` in `ctl status --json`: each stage's milliseconds (two decimals) and count.
    public var json: JSON {
        func ms(_ c: StageCost) -> JSON { .number((Double(c.nanos) / 1e4).rounded() / 100) }
        return .object([("decode_ms", ms(decode)), ("decoded", .number(Double(decode.count))),
                        ("compare_ms", ms(compare)), ("compared", .number(Double(compare.count))),
                        ("convert_ms", ms(convert)), ("converted", .number(Double(convert.count))),
                        ("present_ms", ms(present)), ("presented", .number(Double(present.count)))])
    }

    /// Reads back what `json` wrote; nil when a stage is missing.
    public init?(json: JSON) {
        func stage(_ name: String, _ n: String) -> StageCost? {
            guard let ms = json[name + "_ms"]?.number, let c = json[n]?.number else { return nil }
            return StageCost(nanos: Int64((ms * 1e6).rounded()), count: Int(c))
        }
        guard let d = stage("decode", "decoded"), let c = stage("compare", "compared"), let v = stage("convert", "converted"),
              let p = stage("present", "presented") else { return nil }
        decode = d
        compare = c
        convert = v
        present = p
    }
}

/// One output as `status` reports it.
public struct OutputStatus: Equatable, Sendable {
    /// The version of `ctl status --json` (top-level `"version"`): fields are only added
    /// within a version; a change to an existing one gets a new version.
    public static let version = 1
    /// The output's connector name (`DP-1`).
    public var name: String
    /// The output's description from the compositor ("Make Model Serial"); empty when unknown.
    public var description: String
    /// The video it plays; nil: none.
    public var video: String?
    /// How the video is placed; nil: no video.
    public var mode: ScaleMode?
    /// Its player's state.
    public var state: PlayerState
    /// Seconds into the loop of the frame on screen.
    public var position: Double?
    /// Frames drawn on the output's surface so far.
    public var framesShown: Int
    /// Frames of its video skipped as late so far.
    public var framesDropped: Int
    /// What a failed output shows instead (a colour or a video), if anything.
    public var showing: String?
    /// What draws it: "gl" or "shm".
    public var renderer: String?
    /// The video's decoder: "running", or "released" (freed after --release-after hidden).
    public var decoder: String?
    /// How the video is decoded and why: "nvdec-copy (CUDA 0: NVIDIA H200)", "software (no
    /// VA-API device: no DRM render node in /dev/dri; nvdec-copy: no CUDA device: ...)".
    public var decode: String?
    /// Frames per second reaching the screen lately (nil: too few to say: paused, hidden).
    public var shownFps: Double?
    /// `decoding behind: 19 of 30 fps` while decoding cannot keep the clip's rate.
    public var pace: String?
    /// Where in its playlist the output is, when it plays one.
    public var playlist: PlaylistStatus?
    /// The frame-rate cap it draws at now (`--max-fps`, or `--battery-fps` on battery; nil: none).
    public var maxFps: Double?
    /// The share of its buffer the last commits damaged (DamageMeter; nil: nothing drawn yet).
    public var damaged: Double?
    /// Its frame path's costs so far (nil: no video).
    public var costs: FrameCosts?

    /// A status with the given fields; `decode`, `shownFps` and `pace` start nil.
    public init(name: String, description: String = "", video: String?, mode: ScaleMode?, state: PlayerState,
                position: Double? = nil, framesShown: Int = 0, framesDropped: Int = 0, showing: String? = nil,
                renderer: String? = nil, decoder: String? = nil, playlist: PlaylistStatus? = nil, maxFps: Double? = nil,
                damaged: Double? = nil, costs: FrameCosts? = nil) {
        self.costs = costs
        self.playlist = playlist
        self.damaged = damaged
        self.maxFps = maxFps
        self.name = name
        self.description = description
        self.video = video
        self.mode = mode
        self.state = state
        self.position = position
        self.framesShown = framesShown
        self.framesDropped = framesDropped
        self.showing = showing
        self.renderer = renderer
        self.decoder = decoder
    }

    /// Reads back what `json` wrote (the ctl client formats a status reply with it).
    public init?(json: JSON) {
        guard let name = json["name"]?.string, let stateName = json["state"]?.string else { return nil }
        let reason = json["reason"]?.string
        let state: PlayerState
        switch stateName {
        case "idle": state = .idle
        case "loading": state = .loading
        case "playing": state = .playing
        case "paused": state = .paused(reason.flatMap(PauseReason.init(rawValue:)) ?? .user)
        case "failed": state = .failed(reason.flatMap(FailureKind.init(rawValue:)) ?? .playbackFailed, json["error"]?.string ?? "")
        default: return nil
        }
        self.init(name: name, description: json["description"]?.string ?? "", video: json["video"]?.string,
                  mode: json["mode"]?.string.flatMap(ScaleMode.init(rawValue:)), state: state,
                  position: json["position"]?.number, framesShown: Int(json["frames_shown"]?.number ?? 0),
                  framesDropped: Int(json["frames_dropped"]?.number ?? 0), showing: json["showing"]?.string,
                  renderer: json["renderer"]?.string, decoder: json["decoder"]?.string, maxFps: json["max_fps"]?.number,
                  damaged: json["damaged"]?.number)
        decode = json["decode"]?.string
        shownFps = json["shown_fps"]?.number
        pace = json["pace"]?.string
        playlist = json["playlist"].flatMap(PlaylistStatus.init(json:))
        costs = json["costs"].flatMap(FrameCosts.init(json:))
    }

    /// The output's object in `ctl status --json`; nil fields are null or left out.
    public var json: JSON {
        var pairs: [(String, JSON)] = [("name", .string(name)), ("description", .string(description)),
                                       ("video", video.map { .string($0) } ?? .null),
                                       ("mode", mode.map { .string($0.rawValue) } ?? .null)]
        pairs += StateEvent.stateFields(state)
        pairs += [("position", position.map { .number(($0 * 1000).rounded() / 1000) } ?? .null),
                  ("frames_shown", .number(Double(framesShown))), ("frames_dropped", .number(Double(framesDropped)))]
        if let showing { pairs.append(("showing", .string(showing))) }
        if let renderer { pairs.append(("renderer", .string(renderer))) }
        if let decoder { pairs.append(("decoder", .string(decoder))) }
        if let decode { pairs.append(("decode", .string(decode))) }
        if let shownFps { pairs.append(("shown_fps", .number((shownFps * 10).rounded() / 10))) }
        if let pace { pairs.append(("pace", .string(pace))) }
        if let playlist { pairs.append(("playlist", playlist.json)) }
        if let maxFps { pairs.append(("max_fps", .number(maxFps))) }
        if let damaged { pairs.append(("damaged", .number((damaged * 1000).rounded() / 1000))) }
        if let costs { pairs.append(("costs", costs.json)) }
        return .object(pairs)
    }

    /// One line of `wayloop ctl status`.
    public var line: String {
        var s = "\(name): \(state)"
        if let video { s += ", \(video)" }
        if let mode { s += " (\(mode.rawValue))" }
        if let position { s += ", at \(String(oneDecimal: position)) s" }
        s += ", \(framesShown) frames shown, \(framesDropped) dropped"
        if let showing { s += ", showing \(showing) instead" }
        if let p = playlist { s += ", \(p.line)" }
        if let maxFps { s += ", at most \(FrameCap.text(maxFps)) fps" }
        if let renderer { s += " [\(renderer)]" }
        if let pace { s += ", \(pace)" }
        if let decode { s += ", decode: \(decode)" }
        return s
    }

}

extension OutputStatus {
    /// Which video an output's status names, and what it shows when that is not it: the target
    /// while it has failed (the state says why), else the video drawn (or, before any, the
    /// target); `showing` names the fallback colour on screen, or the old video kept because
    /// the switch to the target failed.
    public static func naming(drawn: String?, target: String?, targetFailed: Bool, state: PlayerState,
                              solid: RGB?) -> (video: String?, showing: String?) {
        let failedState: Bool = { if case .failed = state { return true }; return false }()
        var showing: String?
        if let c = solid {
            showing = "the colour \(c)"
        } else if let d = drawn, let t = target, d != t, targetFailed {
            showing = "'\(d)'"
        }
        return (failedState ? target : (drawn ?? target), showing)
    }

    /// Seconds into the clip of its frame `index` at `fps` (nil: no frame, or no rate).
    public static func position(frameIndex: Int?, fps: Double?) -> Double? {
        guard let i = frameIndex, let fps, fps > 0 else { return nil }
        return Double(i) / fps
    }
}

extension String {
    /// One decimal, rounded: 12.3 (`ctl status` seconds, the start-up line's milliseconds).
    init(oneDecimal x: Double) {
        let t = Int((x * 10).rounded())
        self = (t < 0 ? "-" : "") + "\(abs(t) / 10).\(abs(t) % 10)"
    }
}

/// An output's place in its playlist (`ctl status`, and the events of `subscribe`).
public struct PlaylistStatus: Equatable, Sendable {
    /// The directory or playlist file.
    public var source: String
    /// The 1-based position of the video playing.
    public var position: Int
    /// How many videos the playlist has.
    public var count: Int
    /// Seconds until the next switch (nil: it switches at the end of a pass, or never).
    public var nextSwitch: Double?
    /// An output's place: video `position` of `count` in `source`, the next switch `nextSwitch`
    /// seconds away (nil: at the end of a pass, or never).
    public init(source: String, position: Int, count: Int, nextSwitch: Double? = nil) {
        self.source = source
        self.position = position
        self.count = count
        self.nextSwitch = nextSwitch
    }

    init?(json: JSON) {
        guard let source = json["source"]?.string, let p = json["position"]?.number, let c = json["count"]?.number else { return nil }
        self.init(source: source, position: Int(p), count: Int(c), nextSwitch: json["next_switch_in"]?.number)
    }

    /// The `playlist` object of `ctl status --json` and of state events.
    public var json: JSON {
        .object([("source", .string(source)), ("position", .number(Double(position))), ("count", .number(Double(count))),
                 ("next_switch_in", nextSwitch.map { .number(($0 * 10).rounded() / 10) } ?? .null)])
    }

    /// "playlist 2/5, next in 12.0 s".
    public var line: String {
        "playlist \(position)/\(count)" + (nextSwitch.map { ", next in \(String(oneDecimal: $0)) s" } ?? "")
    }
}

/// A state change as published to subscribers (and logged at debug level).
public struct StateEvent: Equatable, Sendable {
    /// The output's connector name.
    public var output: String
    /// Its player's new state.
    public var state: PlayerState
    /// The video it plays; nil: none.
    public var video: String?
    /// Set when the output plays a playlist: every switch sends an event with the new position.
    public var playlist: PlaylistStatus?
    /// An event for `output`, now in `state` with `video`, and its playlist place if it plays one.
    public init(output: String, state: PlayerState, video: String?, playlist: PlaylistStatus? = nil) {
        self.output = output
        self.state = state
        self.video = video
        self.playlist = playlist
    }

    static func stateFields(_ state: PlayerState) -> [(String, JSON)] {
        var pairs: [(String, JSON)] = [("state", .string(state.name))]
        switch state {
        case .paused(let r): pairs.append(("reason", .string(r.rawValue)))
        case .failed(let k, let m): pairs += [("reason", .string(k.rawValue)), ("error", .string(m))]
        default: pairs.append(("reason", .null))
        }
        return pairs
    }

    /// The event as one line's object for subscribers: `"event": "state"`, the output, the state
    /// and its reason, the video and the playlist.
    public var json: JSON {
        .object([("event", .string("state")), ("output", .string(output))] + Self.stateFields(state)
                + [("video", video.map { .string($0) } ?? .null)] + (playlist.map { [("playlist", $0.json)] } ?? []))
    }
}

/// `wayloop ctl subscribe --waybar`: one line of waybar's custom-module JSON (`return-type:
/// json`) for the outputs as `status` reports them: `text` the video on screen (its file name
/// without extension, or "N videos"), `tooltip` one line per output, `class` and `alt` the
/// state that says most (failed, paused, loading, playing, idle). Waybar reads text and tooltip
/// as Pango markup: `&`, `<` and `>` are escaped.
public enum Waybar {
    public static func line(_ outputs: [OutputStatus]) -> JSON {
        func markup(_ s: String) -> String {
            var out = ""
            for c in s {
                switch c {
                case "&": out += "&amp;"
                case "<": out += "&lt;"
                case ">": out += "&gt;"
                default: out.append(c)
                }
            }
            return out
        }
        func title(_ path: String) -> String {
            let file = path.split(separator: "/").last.map(String.init) ?? path
            guard let dot = file.lastIndex(of: "."), dot != file.startIndex else { return file }
            return String(file[..<dot])
        }
        let order = ["failed", "paused", "loading", "playing", "idle"]
        let state = outputs.map(\.state.name).min { (order.firstIndex(of: $0) ?? 9) < (order.firstIndex(of: $1) ?? 9) } ?? "idle"
        var videos: [String] = []
        for o in outputs { if let v = o.video, !videos.contains(v) { videos.append(v) } }
        let text = videos.count == 1 ? title(videos[0]) : videos.isEmpty ? "" : "\(videos.count) videos"
        let tooltip = outputs.map { o in
            "\(o.name): \(o.state)" + (o.video.map { " - " + title($0) } ?? "") + (o.pace.map { ", \($0)" } ?? "")
                + (o.decode.map { " (decode: \($0))" } ?? "")
        }
        return .object([("text", .string(markup(LineText.escaped(text)))),
                        ("tooltip", .string(markup(tooltip.map(LineText.escaped).joined(separator: "\n")))),
                        ("class", .string(state)), ("alt", .string(state))])
    }
}
