// The whole wallpaper as a library value: a looping video on the background layer of every
// output of a wlr-layer-shell compositor, from one configuration, until stop() or until the
// compositor goes. It is what the `wayloop` command runs (Launch adds the config file, the
// state file, the instance lock and the control socket around it).
import CSystem
import Glibc
import WayLoopCore

/// A looping video wallpaper on every output of a Wayland compositor with wlr-layer-shell
/// (sway, Hyprland, river, labwc, niri, KDE Plasma): gapless, decoded ahead, paused while hidden.
///
/// ```swift
/// import WayLoopKit
/// let wallpaper = Wallpaper(video: "ocean")
/// try wallpaper.run()
/// ```
///
/// ``run()`` connects to the compositor named by `WAYLAND_DISPLAY` and returns when ``stop()``
/// is called (from any thread) or the compositor goes away. State changes of each output arrive
/// through ``onStateChange`` on the thread that runs ``run()``, and through ``states()``.
public final class Wallpaper: @unchecked Sendable {
    /// What a wallpaper shows: per-output videos, scale modes, dim, fallback, playlists, layer
    /// and name, as `wayloop`'s command line and config file say them (``Options``).
    public struct Configuration: Sendable {
        /// Every setting; ``Options/entries`` say what each output shows.
        public var options: Options

        /// A configuration from options as ``OptionParser`` or code makes them. Bare video names
        /// (`"ocean"`) are looked up as ``Wallpaper/find(_:)`` does.
        public init(_ options: Options) {
            var o = options
            o.entries = o.entries.map { $0.resolvingNames { Wallpaper.find($0) }.resolvingFolders { Workshop.resolvePath($0, here: Sys.currentDirectory) } }
            self.options = o
        }

        /// Options whose names are resolved already (the command did it).
        init(resolved options: Options) { self.options = options }

        /// One video on every output. `video` is a path, or a name looked up like a bundled
        /// resource: `"ocean"` finds `ocean.mp4` here or in the wayloop data directories.
        public init(video: String, mode: ScaleMode = .fill) {
            var o = Options()
            // The library reads no config file unless its host asks for one.
            o.noConfig = true
            o.entries = [OutputEntry(selector: .all, video: video, mode: mode)]
            self.init(o)
        }
    }

    /// The configuration the wallpaper was made with.
    public let configuration: Configuration

    /// Called on the thread that runs ``run()`` each time an output's state changes (loading,
    /// playing, paused, failed) or it switches to another video. Set it before ``run()``.
    public var onStateChange: (@Sendable (StateEvent) -> Void)?

    /// Where log lines go (one line each, without a newline); stderr when nil.
    public var logSink: Logger.Sink?

    private let guardLock = ConditionLock()
    private var stopRequested = false
    private var wakeup: WakeupFD?
    private var streams: [Int: AsyncStream<StateEvent>.Continuation] = [:]
    private var nextStream = 0
    private var statusRequested = false
    private var statusAnswer: [OutputStatus]?
    private var lastError: String?

    /// A wallpaper that shows `configuration` once ``run()`` is called.
    public init(_ configuration: Configuration) {
        self.configuration = configuration
    }

    /// One video on every output (see ``Configuration/init(video:mode:)``).
    public convenience init(video: String, mode: ScaleMode = .fill) {
        self.init(Configuration(video: video, mode: mode))
    }

    /// The file a bare name stands for, like a bundled resource: `name` itself in the current
    /// directory, else `name`, `name.mp4`, `name.mkv` … in `$XDG_DATA_HOME/wayloop`, each of
    /// `$XDG_DATA_DIRS` with `/wayloop`, then the install prefix's `share/wayloop`, then a
    /// Wallpaper Engine workshop item whose ID it is (its video file). Nil when none has it; a
    /// path with a slash is returned as it is (a workshop item's folder: its video file).
    public static func find(_ name: String) -> String? {
        guard VideoLookup.isBareName(name) else { return Workshop.resolvePath(name, here: Sys.currentDirectory) }
        return Sys.findVideo(name, here: Sys.currentDirectory)
    }

    /// Shows the wallpaper until ``stop()`` or until the compositor goes away (then it returns
    /// normally). Throws when it cannot start: no video can play, no compositor, or one without
    /// wlr-layer-shell. Runs on the calling thread; call it once.
    public func run() throws(WallpaperError) {
        try run(handlingSignals: false)
    }

    /// For a program whose one job is the wallpaper: runs it, stops cleanly on SIGINT or
    /// SIGTERM, and exits the process with `wayloop`'s exit status (0 when it stopped well; the
    /// error line is already logged otherwise). Call it before starting any thread of your own:
    /// the two signals are blocked and read through a file descriptor.
    public func runAndExit() -> Never {
        do throws(WallpaperError) {
            try run(handlingSignals: true)
            exit(ExitStatus.ok.rawValue)
        } catch {
            exit(error.status.rawValue)
        }
    }

    private func run(handlingSignals: Bool) throws(WallpaperError) {
        let sink = logSink ?? { Sys.writeStderr($0) }
        let log = Logger(label: "main", level: configuration.options.logLevel, sink: { [weak self] line in
            if line.hasPrefix("wayloop: error: ") { self?.guardLock.withLock { self?.lastError = line } }
            sink(line)
        })
        let options = configuration.options
        guard !options.videos.isEmpty else {
            log.error("usage: \(UsageError.noVideo)")
            throw WallpaperError(status: .usage, line: guardLock.withLock { lastError } ?? "\(UsageError.noVideo)")
        }
        var startup = StartupTimeline(exec: Sys.now())
        startup.mark(.main, at: Sys.now())
        var videos = VideoTable<Clip>()
        if !Launch.checkVideos(options, into: &videos, log: log) {
            throw WallpaperError(status: .badVideo, line: guardLock.withLock { lastError } ?? "no video can be played")
        }
        let status = runApp(Run(options: options, commandLine: options, configEntries: [], videos: videos,
                                startup: startup, log: log, signals: handlingSignals ? [SIGINT, SIGTERM] : []))
        if let e = WallpaperError(status: status, line: guardLock.withLock { lastError }) { throw e }
    }

    /// Asks ``run()`` to return: the surfaces go, the decoders stop. Safe from any thread, and
    /// before ``run()`` (which then returns at once).
    public func stop() {
        guardLock.withLock {
            stopRequested = true
            wakeup?.signal()
        }
    }

    /// The state changes of every output from now on, as ``onStateChange`` sees them; the
    /// stream finishes when ``run()`` returns.
    public func states() -> AsyncStream<StateEvent> {
        AsyncStream { continuation in
            let id = guardLock.withLock { () -> Int in
                nextStream += 1
                streams[nextStream] = continuation
                return nextStream
            }
            continuation.onTermination = { [weak self] _ in
                self?.guardLock.withLock { _ = self?.streams.removeValue(forKey: id) }
            }
        }
    }

    /// What each connected output shows now, as `wayloop ctl status` says it; nil when the
    /// wallpaper is not running or did not answer within `timeout` seconds. From any thread but
    /// the one that runs ``run()`` (a callback there gets nil: ask from another thread).
    public func status(timeout: Double = 2) -> [OutputStatus]? {
        let deadline = Sys.now() + Nanos(timeout * 1e9)
        guardLock.withLock {
            statusRequested = true
            statusAnswer = nil
            wakeup?.signal()
        }
        while Sys.now() < deadline {
            if let a = guardLock.withLock({ statusAnswer }) { return a }
            if guardLock.withLock({ wakeup == nil }) { return nil }
            usleep(5_000)
        }
        guardLock.withLock { statusRequested = false }
        return nil
    }

    // MARK: Inside (main thread of the run)

    /// What one run needs; the `wayloop` command (Launch) adds its own parts.
    struct Run {
        var options: Options
        var commandLine: Options
        var configEntries: [OutputEntry]
        var videos: VideoTable<Clip>
        var startup: StartupTimeline
        var log: Logger
        /// The signals read through a signalfd: the command's SIGINT, SIGTERM, SIGHUP and SIGUSR1;
        /// SIGINT and SIGTERM for runAndExit(); none for a host, which keeps its own.
        var signals: [Int32]
        var control: ControlServer?
        var restored: SavedState?
        var stateWriter: StateWriter?
    }

    /// Connects and runs the app to the end; its exit status.
    func runApp(_ run: Run) -> ExitStatus {
        // Signals are blocked before any thread starts, so only the signalfd sees them.
        guard let signals = SignalFD(handling: run.signals),
              let wakeup = WakeupFD() else {
            run.log.error("cannot set up signal handling: \(Sys.errnoText())")
            return .failure
        }
        defer { signals.close() }
        guard let display = Launch.connect(log: run.log) else { return .noCompositor }
        defer { display.disconnect() }
        var startup = run.startup
        startup.mark(.connected, at: Sys.now())
        // Large blocks (decoded frames, buffers of outputs that come and go) always through
        // mmap, so freeing them returns the memory: glibc's moving threshold would otherwise
        // keep them in the heap after the first free, and RSS would creep up (measured).
        _ = csys_set_mmap_threshold(128 * 1024)
        let stopped = guardLock.withLock { () -> Bool in
            self.wakeup = wakeup
            return stopRequested
        }
        defer {
            let ended = guardLock.withLock { () -> [AsyncStream<StateEvent>.Continuation] in
                self.wakeup = nil
                defer { streams.removeAll() }
                return Array(streams.values)
            }
            for c in ended { c.finish() }
        }
        if stopped { return .ok }
        let app = App(options: run.options, commandLine: run.commandLine, configEntries: run.configEntries, log: run.log,
                      display: display, signals: signals, wakeup: wakeup, videos: run.videos, control: run.control,
                      startup: startup, restored: run.restored, stateWriter: run.stateWriter)
        app.owner = self
        return app.run()
    }

    /// An output's state changed (App.publish).
    func publish(_ event: StateEvent) {
        onStateChange?(event)
        for c in guardLock.withLock({ Array(streams.values) }) { c.yield(event) }
    }

    /// The wakeup fired: whether a stop was asked for, answering a status request on the way.
    func wakeupRequests(statuses: () -> [OutputStatus]) -> Bool {
        let (stop, wantsStatus) = guardLock.withLock { (stopRequested, statusRequested) }
        if wantsStatus {
            let s = statuses()
            guardLock.withLock {
                statusAnswer = s
                statusRequested = false
            }
        }
        return stop
    }
}

/// Why a ``Wallpaper`` could not start or stopped by failing, with the line `wayloop` prints.
public struct WallpaperError: Error, Sendable, CustomStringConvertible {
    /// The exit status `wayloop` gives for it.
    public let status: ExitStatus
    /// The error line (`wayloop: error: …`).
    public let description: String

    init(status: ExitStatus, line: String) {
        self.status = status
        description = line
    }

    /// Nil for a run that ended well (stopped, or the compositor went away).
    init?(status: ExitStatus, line: String?) {
        guard status != .ok else { return nil }
        self.init(status: status, line: line ?? "stopped with exit status \(status.rawValue)")
    }
}
