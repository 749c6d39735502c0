// The whole wallpaper as a library value: a looping video on the background layer of every
// output of a wlr-layer-shell compositor, from one configuration, until stop() or until the
// compositor goes. It is what the `wayloop` command runs: the config file, the state file, the
// instance lock with its hand-over and the control socket are its configuration's options
// (Launch starts them in that order).
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

        /// Reads the config file below ``options`` (`options.configPath`, else
        /// `~/.config/wayloop/config`; none with `options.noConfig`), again on `reload` or
        /// SIGHUP and when the file changes, and plays the installed default loop when nothing
        /// names a video, as `wayloop` does. Off by default: a host's wallpaper reads no file the
        /// host did not ask for.
        public var readsConfigFile = false

        /// One wallpaper per display (and `options.name`), reached by `wayloop ctl` and
        /// ``WallpaperControl``: the instance lock and the control socket in
        /// `$XDG_RUNTIME_DIR`. Off by default. With it, a wallpaper given a connection of its own
        /// (`WAYLAND_SOCKET`, as a locker gives it, and no `options.name`) still takes neither.
        public var controlSocket = false

        /// With ``controlSocket``: what `wayloop ctl set` (or ``Wallpaper/set(_:timeout:)``) chose is kept
        /// in the state file and restored at the next start (not with `options.noRestore`).
        public var stateFile = false

        /// With ``controlSocket``, when another wallpaper already runs on this display: nil (the
        /// default) fails with ``ExitStatus/alreadyRunning``; arguments (a `wayloop` command line)
        /// are handed to it, as a second `wayloop ARGS` does, and ``Wallpaper/run()`` returns once
        /// it took them. `options.replace` asks it to quit instead.
        public var handOver: [String]?

        /// The start-up timeline counts from the process's exec (the command), not from run().
        package var timedFromExec = false

        /// A configuration from options as `wayloop`'s command line or code makes them. Bare
        /// video names (`"ocean"`) are looked up as ``Wallpaper/find(_:)`` does, and a relative
        /// `configPath` is made absolute, here, where the working directory is known.
        public init(_ options: Options) {
            var o = options
            let cwd = Sys.currentDirectory
            o.configPath = o.configPath.map { Paths.absolute($0, in: cwd, home: Sys.env("HOME")) }
            o.entries = o.entries.map { $0.resolvingNames { Wallpaper.find($0) }.resolvingFolders { Workshop.resolvePath($0, here: cwd) } }
            self.options = o
        }

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
    /// (``VideoView/onStateChange`` gets the same ``StateEvent``.)
    public var onStateChange: (@Sendable (StateEvent) -> Void)?

    /// Where log lines go (one line each, without a newline); stderr when nil.
    public var logSink: Logger.Sink?

    private let guardLock = ConditionLock()
    private var stopRequested = false
    private var wakeup: WakeupFD?
    private var streams: [Int: AsyncStream<StateEvent>.Continuation] = [:]
    private var nextStream = 0
    private var lastError: String?
    private var lastVideoError: VideoError?
    /// The host's own requests (send), waiting for the run's thread, and their replies.
    private var inbox: [(id: Int, request: ControlRequest)] = []
    private var answers: [Int: JSON] = [:]
    /// Requests whose caller stopped waiting (timed out): their late replies are dropped.
    private var abandoned = Set<Int>()
    private var nextRequest = 0

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

    /// For a program whose one job is the wallpaper: runs it, and exits the process with
    /// `wayloop`'s exit status (0 when it stopped well; the error line is already logged
    /// otherwise). SIGINT and SIGTERM stop it cleanly, SIGHUP reloads the config file (with
    /// ``Configuration/readsConfigFile``) and SIGUSR1 pauses or resumes every output. Call it
    /// before starting any thread of your own: the four signals are blocked and read through a
    /// file descriptor.
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
        let status = Launch.run(configuration, wallpaper: self, signals: handlingSignals ? [SIGINT, SIGTERM, SIGHUP, SIGUSR1] : [], log: log)
        let (line, video) = guardLock.withLock { (lastError, lastVideoError) }
        if let e = WallpaperError(status: status, line: line, video: video) { throw e }
    }

    /// Why no video could play (Launch, at the start; runApp, at the end of a run).
    func noteVideoError(_ e: VideoError?) {
        guard let e else { return }
        guardLock.withLock { lastVideoError = e }
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

    /// Asks the running wallpaper what `wayloop ctl` asks of one (``ControlRequest``: pause,
    /// resume, toggle, set, next, prev, forget, snapshot, reload, quit, status), in-process,
    /// and waits up to `timeout` seconds for the reply it would give on its control socket: a
    /// `set` is answered once its video is on screen, or refused when it failed (the old video
    /// plays on). Names and relative paths are resolved as ``WallpaperControl/resolved(_:)``
    /// does. From any thread but the one that runs ``run()``; `subscribe` is refused (follow
    /// ``onStateChange`` or ``states()``).
    @discardableResult
    public func send(_ request: ControlRequest, timeout: Double = 60) throws(WallpaperControl.Failure) -> WallpaperControl.Reply {
        let resolved: ControlRequest
        do throws(VideoError) { resolved = try WallpaperControl.resolved(request) } catch { throw .refused("\(error)") }
        let queued = guardLock.withLock { () -> Int? in
            guard let wakeup else { return nil }
            nextRequest += 1
            inbox.append((nextRequest, resolved))
            wakeup.signal()
            return nextRequest
        }
        guard let id = queued else { throw .notRunning("the wallpaper is not running") }
        let deadline = Sys.now() + Nanos(timeout * 1e9)
        while true {
            let (answer, running) = guardLock.withLock { (answers.removeValue(forKey: id), wakeup != nil) }
            if let answer { return try WallpaperControl.reply(answer) }
            if !running { throw .notRunning("the wallpaper stopped before it answered") }
            if Sys.now() >= deadline {
                guardLock.withLock {
                    let queued = inbox.contains { $0.id == id }
                    inbox.removeAll { $0.id == id }
                    // Handed to the run already: its reply, when it comes, is not kept.
                    if !queued && answers.removeValue(forKey: id) == nil { abandoned.insert(id) }
                }
                throw .io("no reply within \(timeout) s")
            }
            usleep(2_000)
        }
    }

    /// Pauses `output` (a name, a description's glob or an identity; nil: every output), as
    /// `wayloop ctl pause` does: the user's pause, which only ``resume(_:)`` ends.
    @discardableResult
    public func pause(_ output: String? = nil) throws(WallpaperControl.Failure) -> WallpaperControl.Reply {
        try send(.pause(output))
    }

    /// Ends the pause ``pause(_:)`` made on `output` (nil: every output).
    @discardableResult
    public func resume(_ output: String? = nil) throws(WallpaperControl.Failure) -> WallpaperControl.Reply {
        try send(.resume(output))
    }

    /// What `wayloop ctl set` sets: `entry`'s video, mode, colours, playlist settings … for the
    /// outputs its selector names, above the configuration (and kept in the state file with
    /// ``Configuration/stateFile``). Returns once the new video is on screen; throws
    /// ``WallpaperControl/Failure/refused(_:)`` with the reason when it cannot play (the old
    /// video plays on).
    @discardableResult
    public func set(_ entry: OutputEntry, timeout: Double = 60) throws(WallpaperControl.Failure) -> WallpaperControl.Reply {
        try send(.set(entry), timeout: timeout)
    }

    /// Switches `output` (nil: every output) to `video` (a path or a bare name, as
    /// ``find(_:)`` looks it up), with `transition` for this switch (nil: the configured one).
    /// The same as ``set(_:timeout:)`` with only the video.
    @discardableResult
    public func switchTo(video: String, on output: String? = nil, transition: Transition? = nil,
                         timeout: Double = 60) throws(WallpaperControl.Failure) -> WallpaperControl.Reply {
        var entry = OutputEntry(selector: output.map { .named($0) } ?? .all, video: video)
        entry.transition = transition
        return try set(entry, timeout: timeout)
    }

    /// What each connected output shows now, as `wayloop ctl status` says it; nil when the
    /// wallpaper is not running or did not answer within `timeout` seconds. From any thread but
    /// the one that runs ``run()`` (a callback there gets nil: ask from another thread).
    public func status(timeout: Double = 2) -> [OutputStatus]? {
        try? send(.status, timeout: timeout).outputs
    }

    // MARK: Inside (main thread of the run)

    /// What one run needs (Launch makes it from the configuration).
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
        let status = app.run()
        if status != .ok { noteVideoError(run.options.allVideos.lazy.compactMap { app.videos.failure($0) }.first) }
        return status
    }

    /// An output's state changed (App.publish).
    func publish(_ event: StateEvent) {
        onStateChange?(event)
        for c in guardLock.withLock({ Array(streams.values) }) { c.yield(event) }
    }

    /// The wakeup fired: whether a stop was asked for, handing the host's requests to `handle`
    /// (with their ids) on the way.
    func wakeupRequests(handle: (ControlRequest, Int) -> Void) -> Bool {
        let (stop, requests) = guardLock.withLock { () -> (Bool, [(id: Int, request: ControlRequest)]) in
            defer { inbox.removeAll() }
            return (stopRequested, inbox)
        }
        for r in requests { handle(r.request, r.id) }
        return stop
    }

    /// The reply to the host's request `id` (App.reply).
    func answer(_ id: Int, _ value: JSON) {
        guardLock.withLock {
            if abandoned.remove(id) == nil { answers[id] = value }
        }
    }
}

/// Why a ``Wallpaper`` could not start or stopped by failing, with the line `wayloop` prints.
public struct WallpaperError: Error, Sendable, CustomStringConvertible {
    /// The exit status `wayloop` gives for it.
    public let status: ExitStatus
    /// The error line (`wayloop: error: …`).
    public let description: String
    /// Why the video could not play, when that is why it stopped (``ExitStatus/badVideo``):
    /// the first video of the configuration that failed.
    public let video: VideoError?

    init(status: ExitStatus, line: String, video: VideoError? = nil) {
        self.status = status
        description = line
        self.video = video
    }

    /// Nil for a run that ended well (stopped, or the compositor went away).
    init?(status: ExitStatus, line: String?, video: VideoError?) {
        guard status != .ok else { return nil }
        self.init(status: status, line: line ?? video.map { "wayloop: error: \($0)" } ?? "stopped with exit status \(status.rawValue)",
                  video: status == .badVideo ? video : nil)
    }
}
