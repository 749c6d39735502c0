// What the running instance says of itself: each output's status (`ctl status`, text, JSON and
// waybar), the frame path's costs, playlist places and the state events of `subscribe`. Pure.

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
    package var json: JSON {
        func ms(_ c: StageCost) -> JSON { .number((Double(c.nanos) / 1e4).rounded() / 100) }
        return .object([("decode_ms", ms(decode)), ("decoded", .number(Double(decode.count))),
                        ("compare_ms", ms(compare)), ("compared", .number(Double(compare.count))),
                        ("convert_ms", ms(convert)), ("converted", .number(Double(convert.count))),
                        ("present_ms", ms(present)), ("presented", .number(Double(present.count)))])
    }

    /// Reads back what `json` wrote; nil when a stage is missing.
    package init?(json: JSON) {
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
    public var state: VideoPlayerState
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
    /// Its surface's buffers as drawn now: their size in pixels and the scale they were made
    /// at (1.5 for a fractional scale), and how many times their size changed after the first
    /// (nil: no surface configured yet).
    public var surface: SurfaceStatus?
    /// Where its video stands with a fitted copy (`--fit`; nil: no video open).
    public var fit: FitStatus?
    /// The workspace it shows, where the compositor says (sway's IPC; nil: not known).
    public var workspace: String?
    /// Its video's decoder surfaces, when a hardware path hands them on in place (nil: its
    /// frames are in memory of their own): the pool, the budget, and what the fake source's
    /// pool saw (SurfaceStats).
    public var surfaces: SurfaceStats?

    /// A status with the given fields; `decode`, `shownFps` and `pace` start nil.
    public init(name: String, description: String = "", video: String?, mode: ScaleMode?, state: VideoPlayerState,
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
    package init?(json: JSON) {
        guard let name = json["name"]?.string, let stateName = json["state"]?.string else { return nil }
        let reason = json["reason"]?.string
        let state: VideoPlayerState
        switch stateName {
        case "idle": state = .idle
        case "loading": state = .loading
        case "playing": state = .playing
        case "paused": state = .paused(reason.flatMap(PauseReason.init(rawValue:)) ?? .user)
        case "failed": state = .failed(.reported(reason.flatMap(FailureKind.init(rawValue:)) ?? .playbackFailed, json["error"]?.string ?? ""))
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
        surface = json["surface"].flatMap(SurfaceStatus.init(json:))
        fit = json["fit"].flatMap(FitStatus.init(json:))
        workspace = json["workspace"]?.string
        surfaces = json["surfaces"].flatMap(SurfaceStats.init(json:))
    }

    /// The output's object in `ctl status --json`; nil fields are null or left out.
    package var json: JSON {
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
        if let surface { pairs.append(("surface", surface.json)) }
        if let fit { pairs.append(("fit", fit.json)) }
        if let workspace { pairs.append(("workspace", .string(workspace))) }
        if let surfaces { pairs.append(("surfaces", surfaces.json)) }
        return .object(pairs)
    }

    /// One line of `wayloop ctl status`.
    public var line: String {
        var s = "\(name): \(state)"
        if let video { s += ", \(video)" }
        if let mode { s += " (\(mode.rawValue))" }
        if let workspace { s += ", workspace '\(workspace)'" }
        if let position { s += ", at \(String(oneDecimal: position)) s" }
        s += ", \(framesShown) frames shown, \(framesDropped) dropped"
        if let showing { s += video == nil ? ", showing \(showing)" : ", showing \(showing) instead" }
        if let p = playlist { s += ", \(p.line)" }
        if let maxFps { s += ", at most \(FrameCap.text(maxFps)) fps" }
        if let renderer { s += " [\(renderer)]" }
        if let pace { s += ", \(pace)" }
        if let decode { s += ", decode: \(decode)" }
        if let fit { s += ", fit: \(fit.text)" }
        return s
    }

}

/// What an output's video plays from (`--fit`), in `ctl status` (`fit`): its own file, a
/// fitted copy being made, or the copy.
public struct FitStatus: Equatable, Sendable {
    /// Where the video plays from.
    public enum Stage: String, Sendable {
        /// The video's own file (`note` says why, when there is a reason to say).
        case original
        /// A copy is being made (`done`, `secondsLeft`; `note`: why it waits, when it does).
        case preparing
        /// The copy plays, or will from the next seam.
        case copy
    }

    /// Where it plays from.
    public var stage: Stage
    /// Why, when there is a reason to say (why no copy is made, why making one waits).
    public var note: String?
    /// The copy's size (being made, or playing).
    public var size: Size?
    /// Preparing: the share done (0…1).
    public var done: Double?
    /// Preparing: the seconds left at the pace so far.
    public var secondsLeft: Double?
    /// The copy: its decode cost against the original's, as measured while making it.
    public var decodeShare: Double?

    /// A status with each field as named.
    public init(stage: Stage, note: String? = nil, size: Size? = nil, done: Double? = nil, secondsLeft: Double? = nil,
                decodeShare: Double? = nil) {
        self.stage = stage
        self.note = note
        self.size = size
        self.done = done
        self.secondsLeft = secondsLeft
        self.decodeShare = decodeShare
    }

    package var json: JSON {
        var pairs: [(String, JSON)] = [("stage", .string(stage.rawValue))]
        if let note { pairs.append(("note", .string(note))) }
        if let size { pairs.append(("size", .string(size.description))) }
        if let done { pairs.append(("done", .number((done * 1000).rounded() / 1000))) }
        if let secondsLeft { pairs.append(("seconds_left", .number(secondsLeft.rounded()))) }
        if let decodeShare { pairs.append(("decode_share", .number((decodeShare * 1000).rounded() / 1000))) }
        return .object(pairs)
    }

    package init?(json: JSON) {
        guard let stage = json["stage"]?.string.flatMap(Stage.init(rawValue:)) else { return nil }
        self.init(stage: stage, note: json["note"]?.string, size: json["size"]?.string.flatMap(ThumbnailCommand.parseSize),
                  done: json["done"]?.number, secondsLeft: json["seconds_left"]?.number, decodeShare: json["decode_share"]?.number)
    }

    /// `copy 640x360, decodes in 4.2% of the original's CPU`, `preparing 640x360: 42%, 12 s left`,
    /// `preparing 640x360: waiting: on battery`, `original (not worth a copy)`.
    public var text: String {
        switch stage {
        case .original:
            return "original" + (note.map { " (\($0))" } ?? "")
        case .preparing:
            var s = "preparing" + (size.map { " \($0)" } ?? "")
            if let note { return s + ": waiting: \(note)" }
            if let done { s += ": \(Int(done * 100))%" }
            if let left = secondsLeft { s += ", \(Int(left.rounded())) s left" }
            return s
        case .copy:
            return "copy" + (size.map { " \($0)" } ?? "")
                + (decodeShare.map { ", decodes in \(String(oneDecimal: $0 * 100))% of the original's CPU" } ?? "")
                + (note.map { " (\($0))" } ?? "")
        }
    }
}

/// An output's surface in `ctl status --json` (`surface`): what its buffers are now.
public struct SurfaceStatus: Equatable, Sendable {
    /// The buffers' size in pixels ("1920x1080").
    public var buffer: String
    /// The surface's logical size ("1280x720").
    public var logical: String
    /// The scale its buffers are made at: the output's integer scale, or a fractional one.
    public var scale: Double
    /// The fractional scale the compositor last preferred (nil: it said none).
    public var preferredScale: Double?
    /// How many times the buffers changed size after the first configure.
    public var resizes: Int

    /// A surface's status with the given fields.
    public init(buffer: String, logical: String, scale: Double, preferredScale: Double? = nil, resizes: Int = 0) {
        self.buffer = buffer
        self.logical = logical
        self.scale = scale
        self.preferredScale = preferredScale
        self.resizes = resizes
    }

    /// Reads back what `json` wrote.
    package init?(json: JSON) {
        guard let b = json["buffer"]?.string, let l = json["logical"]?.string, let s = json["scale"]?.number else { return nil }
        self.init(buffer: b, logical: l, scale: s, preferredScale: json["preferred_scale"]?.number,
                  resizes: Int(json["resizes"]?.number ?? 0))
    }

    /// Its object in `ctl status --json`.
    package var json: JSON {
        var pairs: [(String, JSON)] = [("buffer", .string(buffer)), ("logical", .string(logical)),
                                       ("scale", .number((scale * 1000).rounded() / 1000))]
        if let preferredScale { pairs.append(("preferred_scale", .number((preferredScale * 1000).rounded() / 1000))) }
        pairs.append(("resizes", .number(Double(resizes))))
        return .object(pairs)
    }
}

extension OutputStatus {
    /// Which video an output's status names, and what it shows when that is not it: the target
    /// while it has failed (the state says why), else the video drawn (or, before any, the
    /// target); `showing` names the fallback colour on screen, or the old video kept because
    /// the switch to the target failed.
    public static func naming(drawn: String?, target: String?, targetFailed: Bool, state: VideoPlayerState,
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
    public init(oneDecimal x: Double) {
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
    package var json: JSON {
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
    public var state: VideoPlayerState
    /// The video it plays; nil: none.
    public var video: String?
    /// Set when the output plays a playlist: every switch sends an event with the new position.
    public var playlist: PlaylistStatus?
    /// The workspace the output shows, where the compositor says (a switch of workspace that
    /// switches the video sends an event with it).
    public var workspace: String?
    /// The colour it shows in place of a video (a workspace's entry; `video` is then nil).
    public var solid: RGB?
    /// An event for `output`, now in `state` with `video`, and its playlist place if it plays one.
    public init(output: String, state: VideoPlayerState, video: String?, playlist: PlaylistStatus? = nil) {
        self.output = output
        self.state = state
        self.video = video
        self.playlist = playlist
    }

    static func stateFields(_ state: VideoPlayerState) -> [(String, JSON)] {
        var pairs: [(String, JSON)] = [("state", .string(state.name))]
        switch state {
        case .paused(let r): pairs.append(("reason", .string(r.rawValue)))
        case .failed(let e): pairs += [("reason", .string(e.failureKind.rawValue)), ("error", .string(e.description))]
        default: pairs.append(("reason", .null))
        }
        return pairs
    }

    /// The event as one line's object for subscribers: `"event": "state"`, the output, the state
    /// and its reason, the video and the playlist.
    package var json: JSON {
        .object([("event", .string("state")), ("output", .string(output))] + Self.stateFields(state)
                + [("video", video.map { .string($0) } ?? .null)] + (playlist.map { [("playlist", $0.json)] } ?? [])
                + (workspace.map { [("workspace", .string($0))] } ?? []) + (solid.map { [("solid", .string($0.description))] } ?? []))
    }
}

/// `wayloop ctl subscribe --waybar`: one line of waybar's custom-module JSON (`return-type:
/// json`) for the outputs as `status` reports them: `text` the video on screen (its file name
/// without extension, or "N videos"), `tooltip` one line per output, `class` and `alt` the
/// state that says most (failed, paused, loading, playing, idle). Waybar reads text and tooltip
/// as Pango markup: `&`, `<` and `>` are escaped.
public enum Waybar {
    /// The line for `outputs` (write it with `serialized`).
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
                + (o.decode.map { " (decode: \($0))" } ?? "") + (o.fit.map { ", fit: \($0.text)" } ?? "")
        }
        return .object([("text", .string(markup(LineText.escaped(text)))),
                        ("tooltip", .string(markup(tooltip.map(LineText.escaped).joined(separator: "\n")))),
                        ("class", .string(state)), ("alt", .string(state))])
    }
}
