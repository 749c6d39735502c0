// Command-line options: a declarative value and a pure parser (no C, no I/O).
//
// Vocabulary follows swaybg: `-o OUTPUT` scopes the options after it to that output until the
// next `-o`; `-i VIDEO` (or a bare positional VIDEO) names the video; `-m fill|fit|stretch|center`
// and `-c RRGGBB` as in swaybg.

/// How a video is placed on an output (swaybg's names).
public enum ScaleMode: String, Sendable, CaseIterable {
    /// Cover the whole output, centred, cropped on the long axis (iOS `resizeAspectFill`).
    case fill
    /// Show the whole video, centred, with bars in the background colour.
    case fit
    /// Cover the whole output, ignoring the aspect ratio.
    case stretch
    /// One video pixel per output pixel, centred, cropped or bordered.
    case center
    /// One video pixel per output pixel, repeated from the top-left corner.
    case tile
    /// One video across every output that shows it with this mode: their layout (logical
    /// positions and sizes) is one canvas, which the video covers (aspect-fill); each output
    /// shows its part.
    case span
    /// The same, with the whole video fitted onto the canvas (bars where it does not reach).
    case spanFit = "span-fit"

    /// One of the span modes.
    public var isSpan: Bool { self == .span || self == .spanFit }
    /// What the mode does on one output (and on a canvas): span is fill, span-fit is fit.
    public var single: ScaleMode {
        switch self {
        case .span: return .fill
        case .spanFit: return .fit
        default: return self
        }
    }
}

/// An sRGB colour with 8-bit channels.
public struct RGB: Equatable, Sendable, CustomStringConvertible {
    /// The red channel, 0 to 255.
    public var red: UInt8
    /// The green channel, 0 to 255.
    public var green: UInt8
    /// The blue channel, 0 to 255.
    public var blue: UInt8
    /// A colour from its three channels.
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }
    /// Black (000000): bars and borders when nothing says otherwise.
    public static let black = RGB(red: 0, green: 0, blue: 0)

    /// Parses `RRGGBB` or `#RRGGBB`.
    public init?(hex: String) {
        var s = Substring(hex)
        if s.hasPrefix("#") { s = s.dropFirst() }
        // Six hex digits exactly: UInt32(radix:) alone would take "+fffff" and "-00000".
        guard s.count == 6, s.allSatisfy(\.isHexDigit), let v = UInt32(s, radix: 16) else { return nil }
        self.init(red: UInt8(v >> 16), green: UInt8((v >> 8) & 0xff), blue: UInt8(v & 0xff))
    }
    public var description: String {
        let digits = Array("0123456789abcdef")
        return String([red, green, blue].flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }
}

/// What an output shows when its own video cannot be played.
public enum Fallback: Equatable, Sendable, CustomStringConvertible {
    /// A solid colour.
    case color(RGB)
    /// Another video file.
    case video(String)

    /// `RRGGBB`/`#RRGGBB` is a colour; anything else names a video file.
    public init(parsing s: String) {
        if let c = RGB(hex: s) { self = .color(c) } else { self = .video(s) }
    }
    /// The fallback video, if it is one.
    public var video: String? { if case .video(let v) = self { return v }; return nil }
    public var description: String {
        switch self {
        case .color(let c): return c.description
        case .video(let v): return v
        }
    }
}

/// Which outputs an entry applies to.
public enum OutputSelector: Hashable, Sendable {
    /// Every output (`*`, and the options before any `-o`).
    case all
    /// A connector name (`DP-1`) or an output description, matched like sway's `output` command.
    case named(String)
}

/// Everything the user said about one output selector. `nil` fields inherit from `*`, then defaults.
public struct OutputEntry: Equatable, Sendable {
    /// The outputs the entry applies to.
    public var selector: OutputSelector
    /// The workspace it applies to (`-w NAME VIDEO`, `workspace NAME = VIDEO`): only while
    /// the output shows that workspace; nil: whatever it shows.
    public var workspace: String?
    /// `-i VIDEO` or a bare VIDEO: a video file, a directory or a playlist file.
    public var video: String?
    /// A colour where the video goes: a workspace's entry that names `RRGGBB` or `#RRGGBB`
    /// (`-w 2 '#203040'`). It and `video` are one slot: the later entry's wins.
    public var solid: RGB?
    /// `-m`: how the video is placed on the output.
    public var mode: ScaleMode?
    /// `-c`: the colour of bars and borders.
    public var color: RGB?
    /// `--dim`: how much the picture is darkened, 0 to 1.
    public var dim: Double?
    /// `-f`: what the output shows when its video cannot be played.
    public var fallback: Fallback?
    /// Pause while a fullscreen window is on the output (`pause-on-fullscreen`).
    public var pauseOnFullscreen: Bool?
    /// Pause while running on battery (`pause-on-battery`).
    public var pauseOnBattery: Bool?
    /// `--pause-when`: what on screen pauses the output (PauseWhen).
    public var pauseWhen: PauseWhen?
    /// `--pause-ignore`: app_ids whose windows no pause rule counts.
    public var pauseIgnore: [String]?
    /// `renderer =` in the config file's top section (process-wide; never per output).
    public var renderer: RendererRequest?
    /// Playlists (a directory or a playlist file as the video): switch after this many
    /// seconds, or after this many passes of each video; in random order without repeats.
    public var interval: Double?
    /// `--loops`: a playlist switches after this many passes of each video.
    public var loops: Int?
    /// `--shuffle`: a playlist plays in random order without repeats.
    public var shuffle: Bool?
    /// How a switch to another video looks (default fade:0.5s).
    public var transition: Transition?
    /// `--max-fps`: frames per second at most (0: no cap), FrameCap.
    public var maxFps: Double?
    /// `--battery-fps`: the same cap, only while on battery (0: no cap).
    public var batteryFps: Double?
    /// `--scaling`: who scales a clip smaller than its output (CompositorScaling.Choice).
    public var scaling: CompositorScaling.Choice?
    /// `--hwdec`: how its video is decoded (HwdecMode).
    public var hwdec: HwdecMode?
    /// `--hwdec-device`: a DRM render node for VA-API or a CUDA device number for NVDEC.
    public var hwdecDevice: String?
    /// `--fit`: whether an oversized video plays from a fitted copy (FitMode).
    public var fit: FitMode?
    /// Where `video` was named, when a config file named it (`FILE:LINE`), for its errors. Not
    /// part of what the entry says: two entries that say the same are equal wherever they came from.
    public var videoOrigin: String? {
        get { origin.text }
        set { origin.text = newValue }
    }
    private var origin = Origin()
    /// An entry for `selector` with these settings; the others stay nil (inherited).
    public init(selector: OutputSelector, workspace: String? = nil, video: String? = nil, mode: ScaleMode? = nil,
                color: RGB? = nil, dim: Double? = nil, fallback: Fallback? = nil,
                pauseOnFullscreen: Bool? = nil, pauseOnBattery: Bool? = nil) {
        self.selector = selector
        self.workspace = workspace
        self.video = video
        self.mode = mode
        self.color = color
        self.dim = dim
        self.fallback = fallback
        self.pauseOnFullscreen = pauseOnFullscreen
        self.pauseOnBattery = pauseOnBattery
    }

    /// A workspace's entry for `value`: a colour (`RRGGBB`, `#RRGGBB`) or a video.
    public init(workspace: String, selector: OutputSelector, showing value: String) {
        self.init(selector: selector, workspace: workspace)
        if let c = RGB(hex: value) { solid = c } else { video = value }
    }

    /// Relative video paths made absolute against `directory` (and `~/` against `home`).
    public func resolvingPaths(in directory: String, home: String?) -> OutputEntry {
        var e = self
        e.video = video.map { Paths.absolute($0, in: directory, home: home) }
        if case .video(let v)? = fallback { e.fallback = .video(Paths.absolute(v, in: directory, home: home)) }
        return e
    }
}

/// A note that compares equal to any other (an entry's origin is not what it says).
struct Origin: Equatable, Sendable {
    var text: String?
    static func == (_: Origin, _: Origin) -> Bool { true }
}

public enum Paths {
    /// `path` made absolute: `~/x` under `home`, `x` under `directory`; lexical only.
    public static func absolute(_ path: String, in directory: String, home: String?) -> String {
        // `~/Videos/` (a completed directory) is `~/Videos`: one name for one directory.
        var path = path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        if path.hasPrefix("/") { return path }
        if let home, path == "~" || path.hasPrefix("~/") { return home + path.dropFirst() }
        let dir = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        return dir + "/" + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
    }
}

/// The resolved settings for one output.
public struct OutputSettings: Equatable, Sendable {
    public var video: String
    public var mode: ScaleMode
    public var color: RGB
    public var dim: Double
    public var fallback: Fallback?
    public var pauseOnFullscreen: Bool
    public var pauseOnBattery: Bool
    public var interval: Double?
    public var loops: Int?
    public var shuffle: Bool
    public var transition: Transition
    /// Frames per second at most, always and on battery (0: no cap): FrameCap.effective.
    public var maxFps: Double = 0
    public var batteryFps: Double = 0
    /// Who scales a clip smaller than the output (shm renderer).
    public var scaling: CompositorScaling.Choice = .auto
    /// How its video is decoded (hardware paths are checked at start), and on which device
    /// (nil: found by itself).
    public var hwdec: HwdecMode = .auto
    public var hwdecDevice: String?
    /// Whether an oversized video plays from a fitted copy here (FitMode.combined decides for
    /// a video several outputs show).
    public var fit: FitMode = .auto
    /// What on screen pauses it (`--pause-when`), and the app_ids no rule counts.
    public var pauseWhen = PauseWhen.standard
    public var pauseIgnore: [String] = []
    /// The rules in force: `pauseWhen`, less the fullscreen ones where `pause-on-fullscreen = no`
    /// or `--no-fullscreen-pause` says so.
    public var pauseRules: PauseWhen {
        pauseOnFullscreen ? pauseWhen : PauseWhen(pauseWhen.conditions.subtracting([.fullscreen, .fullscreenAnywhere]))
    }
    /// The playlist (directory or playlist file) `video` was taken from, when it was (set by
    /// the app: the entries name the playlist, the output plays one of its videos).
    public var playlist: String?
    /// Its part of the canvas, with a span mode (set by the app from the outputs' layout).
    public var span: SpanView?
    /// It shows this colour, not a video: the workspace it shows has a colour as its entry.
    /// `video` is then the output's own video ("" when it has none), kept ready for the way back.
    public var solid: RGB?
    public init(video: String, mode: ScaleMode = .fill, color: RGB = .black, dim: Double = 0,
                fallback: Fallback? = nil, pauseOnFullscreen: Bool = true, pauseOnBattery: Bool = false,
                interval: Double? = nil, loops: Int? = nil, shuffle: Bool = false, transition: Transition = .standard) {
        self.interval = interval
        self.loops = loops
        self.shuffle = shuffle
        self.transition = transition
        self.video = video
        self.mode = mode
        self.color = color
        self.dim = dim
        self.fallback = fallback
        self.pauseOnFullscreen = pauseOnFullscreen
        self.pauseOnBattery = pauseOnBattery
    }
}

/// What the command line asks for.
public enum Command: Equatable, Sendable {
    /// Run the wallpaper with these options.
    case run(Options)
    /// `wayloop ctl ...`: a request for the running instance.
    case ctl(CtlCommand)
    /// `wayloop thumbnail ...`: a still of a video as an output would show it, no compositor.
    case thumbnail(ThumbnailCommand)
    /// `wayloop decode ...`: decode a video as playback would, as fast as it can, and report.
    case decode(DecodeCommand)
    /// `wayloop prepare ...`: make fitted copies of videos by hand, list or empty the cache.
    case prepare(PrepareCommand)
    /// `wayloop list ...`: the videos WayLoop can play, with their facts and previews.
    case list(ListCommand)
    /// `-h`, `--help`: print the usage text.
    case help
    /// `-V`, `--version`: print the version.
    case version
}

/// What `wayloop [OPTIONS] [VIDEO]` asks for: the output entries and the process-wide options.
public struct Options: Equatable, Sendable {
    /// The output entries, in order: for one output a later entry overrides an earlier one, and a
    /// named entry beats `*`.
    public var entries: [OutputEntry] = []
    /// `--log-level`, `-v`: the most detailed level logged (default notice).
    public var logLevel: LogLevel = .notice
    /// Decoded frames the decoder may run ahead of presentation.
    public var queueFrames: Int = 8
    /// The loop cache's budget in MiB: a clip whose decoded frames all fit is decoded once and
    /// replayed from memory (0: off).
    public var cacheMB: Int = 128
    /// Write one line per presented frame to this file (for tests and tools); nil = off.
    public var traceFile: String?
    /// `--no-fullscreen-pause`: overrides every entry's fullscreen pause; nil: the entries
    /// (config file) decide, then the default.
    public var pauseOnFullscreen: Bool?
    /// `--pause-on-battery`: overrides every entry's battery pause; nil: the entries (config
    /// file) decide, then the default.
    public var pauseOnBattery: Bool?
    /// `--config FILE`; nil: `$XDG_CONFIG_HOME/wayloop/config` when it exists.
    public var configPath: String?
    /// `--no-config`: read no config file.
    public var noConfig = false
    /// `--no-restore`: start from the command line and config file, not from the state file.
    public var noRestore = false
    /// `--replace`: stop the instance running on this display and take over.
    public var replace = false
    /// Seconds without a presented frame after which a video's decoder and frames are released.
    public var releaseAfter: Double = 60
    /// `--renderer`; nil: the config file's `renderer =`, else auto.
    public var renderer: RendererRequest?
    /// `--layer`: where the surfaces go (default background).
    public var layer: Layer = .background
    /// `--name`: an independent instance (its own lock and socket); nil: the default one.
    public var name: String?
    /// `--fit-quality`: x264's constant rate factor for fitted copies (FitQuality).
    public var fitQuality = FitQuality.default
    /// `--fit-cache-max`: the fitted-copy cache's bound in bytes (least recently used out).
    public var fitCacheMax = FitCacheSize.default
    /// `--keep-recent N`: videos switched away from that stay ready (decoded ahead, loop cache
    /// kept) for an instant switch back, within the `--cache-mb` budget (0: none).
    public var keepRecent: Int = 3
    /// The process-wide options the command line named (a hand-over checks that it can apply them).
    public var given: Set<String> = []
    /// Every option at its default, and no entries.
    public init() {}

    /// The renderer asked for: the command line's, else the config file's, else auto.
    public func rendererRequest(config: [OutputEntry]) -> RendererRequest {
        renderer ?? config.lazy.compactMap(\.renderer).first ?? .auto
    }

    /// The settings for an output, or nil when no entry names a video for it (it gets no surface).
    /// Later entries override earlier ones; a named entry beats `*` whatever the order.
    /// `workspace`: the one the output shows (nil: not known); the entries for it (for every
    /// output, then for this one) come last, over the rest.
    public func settings(forOutput name: String, description: String = "", workspace: String? = nil) -> OutputSettings? {
        var merged = OutputEntry(selector: .all)
        func applies(_ e: OutputEntry) -> Bool {
            if case .named(let pattern) = e.selector {
                return OutputMatch.matches(pattern: pattern, name: name, description: description)
            }
            return true
        }
        // `*` before a named entry whatever the order, each in the order given.
        func layer(_ ws: String?) -> [OutputEntry] {
            let mine = entries.filter { $0.workspace == ws && applies($0) }
            return mine.filter { $0.selector == .all } + mine.filter { $0.selector != .all }
        }
        var solid: RGB?
        for e in layer(nil) + (workspace.map(layer) ?? []) {
            if let v = e.video {
                merged.video = v
                solid = nil
            }
            if let c = e.solid { solid = c }
            merged.mode = e.mode ?? merged.mode
            merged.color = e.color ?? merged.color
            merged.dim = e.dim ?? merged.dim
            merged.fallback = e.fallback ?? merged.fallback
            merged.pauseOnFullscreen = e.pauseOnFullscreen ?? merged.pauseOnFullscreen
            merged.pauseOnBattery = e.pauseOnBattery ?? merged.pauseOnBattery
            merged.pauseWhen = e.pauseWhen ?? merged.pauseWhen
            merged.pauseIgnore = e.pauseIgnore ?? merged.pauseIgnore
            merged.interval = e.interval ?? merged.interval
            merged.loops = e.loops ?? merged.loops
            merged.shuffle = e.shuffle ?? merged.shuffle
            merged.transition = e.transition ?? merged.transition
            merged.maxFps = e.maxFps ?? merged.maxFps
            merged.batteryFps = e.batteryFps ?? merged.batteryFps
            merged.scaling = e.scaling ?? merged.scaling
            merged.hwdec = e.hwdec ?? merged.hwdec
            merged.hwdecDevice = e.hwdecDevice ?? merged.hwdecDevice
            merged.fit = e.fit ?? merged.fit
        }
        guard merged.video != nil || solid != nil else { return nil }
        var s = OutputSettings(video: merged.video ?? "", mode: merged.mode ?? .fill,
                               color: merged.color ?? .black, dim: merged.dim ?? 0, fallback: merged.fallback,
                               pauseOnFullscreen: pauseOnFullscreen ?? merged.pauseOnFullscreen ?? true,
                               pauseOnBattery: pauseOnBattery ?? merged.pauseOnBattery ?? false,
                               interval: merged.interval, loops: merged.loops, shuffle: merged.shuffle ?? false,
                               transition: merged.transition ?? .standard)
        s.maxFps = merged.maxFps ?? 0
        s.batteryFps = merged.batteryFps ?? 0
        s.scaling = merged.scaling ?? .auto
        s.hwdec = merged.hwdec ?? .auto
        s.hwdecDevice = merged.hwdecDevice
        s.fit = merged.fit ?? .auto
        s.pauseWhen = merged.pauseWhen ?? .standard
        s.pauseIgnore = merged.pauseIgnore ?? []
        s.solid = solid
        return s
    }

    /// Some entry names a fallback.
    public var hasFallback: Bool { entries.contains { $0.fallback != nil } }

    /// Some entry names a fallback colour (always showable, unlike a fallback video).
    public var hasFallbackColor: Bool {
        entries.contains { if case .color? = $0.fallback { return true }; return false }
    }

    /// Where a config file named `video` (`FILE:LINE`; nil: the command line or `ctl set`).
    public func origin(of video: String) -> String? {
        entries.first { $0.video == video && $0.videoOrigin != nil }?.videoOrigin
    }

    /// Every video file a setting may need: the entries' videos and fallback videos.
    public var allVideos: [String] {
        var seen = videos
        for case .video(let v)? in entries.map(\.fallback) where !seen.contains(v) { seen.append(v) }
        return seen
    }

    /// Every distinct video any entry names, in first-mention order.
    public var videos: [String] {
        var seen: [String] = []
        for case let v? in entries.map(\.video) where !seen.contains(v) { seen.append(v) }
        return seen
    }

    /// The videos of the entries for no workspace in particular: what plays from the start
    /// (a workspace's video is opened when its output shows it).
    public var baseVideos: [String] {
        var seen: [String] = []
        for case let v? in entries.filter({ $0.workspace == nil }).map(\.video) where !seen.contains(v) { seen.append(v) }
        return seen
    }

    /// Some entry is for a workspace.
    public var hasWorkspaceEntries: Bool { entries.contains { $0.workspace != nil } }
}

extension Options {
    /// What a hand-over (a second `wayloop ARGS` on the same display) cannot apply to the running
    /// instance: each process-wide option `incoming` names with another value than `running`
    /// has, as "--cache-mb (128, asked 0)". Empty: everything applies.
    public static func unappliable(running: Options, incoming: Options) -> [String] {
        incoming.given.sorted().compactMap { name in
            guard let shown = processOption(name)?.shown else { return nil }
            let (have, want) = (shown(running), shown(incoming))
            return have != want ? "\(name) (\(have), asked \(want))" : nil
        }
    }
}

/// Output matching like sway's `output` command: the connector name, or the description
/// ("Make Model Serial"), compared exactly; the description also without the ` (NAME)` that
/// wlroots appends to it (OutputIdentity: what a state file names an output by).
public enum OutputMatch {
    public static func matches(pattern: String, name: String, description: String) -> Bool {
        if pattern == "*" { return true }
        return pattern == name || (!description.isEmpty && (pattern == description || pattern == OutputIdentity.stable(name: name, description: description)))
    }
}

/// A command line WayLoop cannot take; each case renders as one line saying what is wrong.
public enum UsageError: Error, Equatable, CustomStringConvertible {
    /// An option WayLoop does not know.
    case unknownOption(String)
    /// An option that takes a value came last, without one.
    case missingValue(option: String)
    /// An option's value is not one it takes; `expected` says what it should be.
    case badValue(option: String, value: String, expected: String)
    /// No video given: not on the command line, not in the config file.
    case noVideo
    /// A second video in one `-o` scope.
    case unexpectedArgument(String)
    /// `wayloop ctl` without a command, or with an unknown one.
    case ctl(String)
    /// `wayloop thumbnail` with the wrong arguments.
    case thumbnail(String)
    /// `wayloop decode` with the wrong arguments.
    case decode(String)
    /// `wayloop prepare` with the wrong arguments.
    case prepare(String)
    /// `wayloop list` with the wrong arguments.
    case list(String)

    public var description: String {
        switch self {
        case .unknownOption(let o): return "unknown option '\(o)'"
        case .missingValue(let o): return "option '\(o)' needs a value"
        case .badValue(let o, let v, let e): return "option '\(o)': '\(v)' is not \(e)"
        case .noVideo: return "no video given (wayloop VIDEO, -o OUTPUT -i VIDEO, or a video in the config file)"
        case .unexpectedArgument(let a): return "unexpected argument '\(a)' (one video per -o scope)"
        case .ctl(let m): return "ctl: \(m)"
        case .thumbnail(let m): return "thumbnail \(m)"
        case .decode(let m): return "decode \(m)"
        case .prepare(let m): return "prepare \(m)"
        case .list(let m): return "list: \(m)"
        }
    }
}

/// The command-line parser: `argv` to a `Command`.
public enum OptionParser {
    /// Parses `argv` without the program name.
    public static func parse(_ args: [String]) throws(UsageError) -> Command {
        var options = Options()
        var current = OutputEntry(selector: .all)
        var scoped = false
        var workspaceEntries: [OutputEntry] = []
        var c = ArgumentCursor(args)

        // A bare VIDEO is for every output without a more specific entry, wherever it stands.
        func positional(_ video: String) throws(UsageError) {
            if !scoped {
                if current.video != nil { throw .unexpectedArgument(video) }
                current.video = video
            } else {
                if options.entries.contains(where: { $0.selector == .all && $0.video != nil }) {
                    throw .unexpectedArgument(video)
                }
                options.entries.append(OutputEntry(selector: .all, video: video))
            }
        }
        func flush() {
            if scoped || current != OutputEntry(selector: .all) { options.entries.append(current) }
        }
        /// `ctl`, `thumbnail`, `decode`, `prepare` and `list` as the first argument: a subcommand of its own.
        func subcommand(_ name: String) throws(UsageError) -> Command? {
            let rest = Array(args.dropFirst())
            if let h = rest.first, h == "-h" || h == "--help" { return .help }
            switch name {
            case "thumbnail": return .thumbnail(try ThumbnailCommand.parse(rest))
            case "decode": return .decode(try DecodeCommand.parse(rest))
            case "prepare": return .prepare(try PrepareCommand.parse(rest))
            case "list": return .list(try ListCommand.parse(rest))
            case "ctl": return .ctl(try CtlParser.parse(rest))
            default: return nil
            }
        }

        while let arg = c.current {
            if c.index == 0, let command = try subcommand(arg) { return command }
            if let o = Options.processOption(arg) {
                if o.shown != nil { options.given.insert(o.name) }
                try o.apply(&c, arg, &options)
                c.advance()
                continue
            }
            switch arg {
            case "-h", "--help": return .help
            case "-V", "--version": return .version
            case "-o", "--output":
                let name = try c.value(of: arg)
                guard !name.isEmpty else { throw .badValue(option: arg, value: name, expected: "an output name (DP-1, \"Make Model Serial\") or '*'") }
                flush()
                current = OutputEntry(selector: name == "*" ? .all : .named(name))
                scoped = true
            case "-i", "--image", "--video":
                let v = try c.value(of: arg)
                if current.video != nil { throw .unexpectedArgument(v) }
                current.video = v
            case "-w", "--workspace":
                // `-w NAME VIDEO`: for the current -o scope, while its output shows workspace NAME.
                let name = try c.value(of: arg)
                guard let ws = WorkspaceName.parse(name) else { throw .badValue(option: arg, value: name, expected: WorkspaceName.expected) }
                let v = try c.value(of: arg + " " + name)
                guard !v.isEmpty else { throw .badValue(option: arg + " " + name, value: v, expected: "a video or a colour RRGGBB") }
                workspaceEntries.append(OutputEntry(workspace: ws, selector: current.selector, showing: v))
            case "--":
                for rest in c.rest() { try positional(rest) }
                continue
            default:
                if try c.applySetting(arg, to: &current) { break }
                if arg.hasPrefix("-") && arg.count > 1 { throw .unknownOption(arg) }
                try positional(arg)
            }
            c.advance()
        }
        flush()
        options.entries += workspaceEntries
        // No video here is fine when a config file names one: the app checks after loading it.
        return .run(options)
    }
}
