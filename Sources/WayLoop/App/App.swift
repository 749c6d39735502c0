// The shell: owns the Wayland connection, every proxy, EGL and GL (main thread), one Clip per
// distinct file (each with its decoder thread) and one Wallpaper per output that has a video.
// Listeners only record; drawing happens in `tick`, after dispatch.
import CSystem
import CWayland
import Glibc
import WayLoopCore

final class App {
    /// What applies now: `entries` = the config file's, then the command line's, then `ctl set`'s.
    var options: Options
    /// The command line as given at start or by the last hand-over (its entries are the middle layer).
    var commandLine: Options
    var configEntries: [OutputEntry] = []
    /// `ctl set` overrides, each tagged with its request (a failed switch removes its own only).
    var runtimeEntries: [(tag: Int, entry: OutputEntry)] = []
    var nextTag = 0
    let log: Logger
    let display: OpaquePointer
    let signals: SignalFD
    let wakeup: WakeupFD
    let loop: EventLoop
    var control: ControlServer?
    var registry: Registry?
    /// What draws (GLES or wl_shm: RenderDevices.make); nil until it is up.
    var device: (any RenderDevice)?
    /// The device's limits as the decoders read them (they start before it is up).
    let pictureLimits = PictureLimits()
    var rendererKind: RendererKind? { device?.kind }
    /// One head per output, keyed by the wl_output's registry name.
    var heads: [UInt32: Head] = [:]
    /// Running decoders, one per distinct file that an output shows or is about to show (or,
    /// at start-up, that the command line names, so that every file is checked first).
    var videos: [String: Clip] = [:]
    /// Files that cannot be played, and why.
    var failedVideos: [String: VideoError] = [:]
    /// Requests answered once the videos they opened are ready or failed.
    var pending: [PendingReply] = []
    /// A video was ready once: from then on, failures never end the process.
    var started = false
    /// Listeners record; the loop reconciles after dispatch (never inside a listener).
    var needsReconcile = false
    /// libavcodec frame threads per decoder: the device's hint (DecoderHints).
    var decoderThreads = 2
    /// Decoded frames queued per video: --queue-frames, or the device's hint when not given.
    lazy var queueFrames = options.queueFrames
    /// The renderer choice, logged once when the first surface is made.
    var rendererLine: String?
    var toplevels: Toplevels?
    /// The last power-supply reading (only while an output pauses on battery), and when to look again.
    var onBattery = false
    var nextPowerCheck: Nanos = 0
    var releaseAfter: Nanos { Nanos(options.releaseAfter * 1e9) }
    var trace: FrameTrace?
    var exitStatus: ExitStatus?
    /// The files in use, watched for changes; what changed and when to act (debounced: an
    /// editor or an encoder writes in several steps).
    let watcher: FileWatcher?
    /// Videos no output shows any more, kept ready for a switch back (`--keep-recent`), the
    /// most recent last.
    var recent: [String] = []
    /// Memory pressure (PSI, or the injected FIFO of the tests), and when it was last acted on.
    let pressure: PressureMonitor?
    var lastPressure: Nanos = -PressurePlan.minInterval
    var changed: [String: Nanos] = [:]
    /// Playlist runs, by what their outputs' settings say (source, order, interval, loops),
    /// and which named paths are playlists (directories, .m3u/.txt files).
    var playlists: [PlaylistRun.Key: PlaylistRun] = [:]
    var playlistPaths: [String: Bool] = [:]
    /// Playlist videos checked (Preflight) before their decoder first starts: they are checked
    /// one by one, as they come up, not all at once.
    var checkedItems: Set<String> = []
    static let changeSettle: Nanos = 300_000_000

    private init(options: Options, commandLine: Options, configEntries: [OutputEntry], log: Logger,
                 display: OpaquePointer, signals: SignalFD, wakeup: WakeupFD) {
        self.options = options
        self.commandLine = commandLine
        self.configEntries = configEntries
        self.log = log
        self.display = display
        self.signals = signals
        self.wakeup = wakeup
        watcher = FileWatcher()
        pressure = PressureMonitor.open(log: log.scoped("memory"))
        loop = EventLoop(display: display, wakeupFD: wakeup.fd, signalFD: signals.fd, filesFD: watcher?.fd ?? -1,
                         pressure: (pressure?.fd ?? -1, pressure?.events ?? 0))
    }

    /// Runs WayLoop to the end and returns the exit status. `arguments` (argv without the
    /// program name) are handed to an instance already running on this display.
    static func run(options cli: Options, arguments: [String], log: Logger) -> ExitStatus {
        let configEntries: [OutputEntry]
        switch loadConfig(cli) {
        case .failure(let e):
            log.scoped("config").error("\(e)")
            return .usage
        case .success(let c): configEntries = withDefaultLoop(c, commandLine: cli.entries, log: log)
        }
        var options = cli
        options.entries = configEntries + cli.entries
        guard !options.videos.isEmpty else {
            log.error("usage: \(UsageError.noVideo), and no \(VideoLookup.defaultLoop) is installed in "
                + "\(VideoLookup.places(Sys.videoDirectories, home: Sys.env("HOME"))) (see wayloop --help)")
            return .usage
        }
        // A video that cannot be played fails its outputs only; with none playable and no
        // fallback, stop here, before connecting (or handing over).
        var failed: [String: VideoError] = [:]
        for path in options.allVideos {
            let check = options.videos.contains(path) ? preflight(path, failed: &failed, isOpen: { _ in false }, log: log)
                : Preflight.check(path)
            if let e = check {
                log.scoped("video").error("\(e)")
                failed[path] = e
            }
        }
        if options.allVideos.allSatisfy({ failed[$0] != nil }) && !options.hasFallbackColor { return .badVideo }
        // The Wayland socket lives in XDG_RUNTIME_DIR (unless WAYLAND_DISPLAY is a path): say so in
        // one line, before libwayland prints its own.
        if let problem = Sys.runtimeDirectoryProblem {
            log.scoped("wayland").error(problem)
            return .noCompositor
        }
        // One instance per display: a second start hands its arguments over (so that
        // `exec_always wayloop ...` in a sway config never stacks processes).
        var taken: InstanceLock?
        // The holder may be starting (no socket yet) or stopping (socket gone, lock not yet):
        // try the lock and the socket in turn for a while.
        let deadline = Sys.now() + 5 * .nanosPerSecond
        while taken == nil {
            switch InstanceLock.acquire() {
            case .acquired(let l): taken = l
            case .failed(let e):
                log.error("\(e)")
                return .failure
            case .held(let pid):
                if cli.replace {
                    if case .failure(let f) = CtlClient.quit() { log.debug("asking pid \(pid) to quit: \(f)") }
                    guard case .acquired(let l) = InstanceLock.acquire(waitSeconds: 10) else {
                        log.error("the wayloop running on this display (pid \(pid)) did not stop within 10 s; not replacing it")
                        return .alreadyRunning
                    }
                    log.notice("replaced the wayloop that ran on this display (pid \(pid))")
                    taken = l
                } else if let status = handOver(arguments, to: pid, log: log, final: Sys.now() >= deadline) {
                    return status
                } else {
                    usleep(50_000)
                }
            }
        }
        let lock = taken!
        defer { lock.release() }
        // The socket exists from now on, so that a hand-over during start-up waits in its backlog.
        let server: ControlServer
        do { server = try ControlServer(path: ControlServer.defaultPath, log: log.scoped("control")) } catch {
            log.error("\(error)")
            return .failure
        }
        defer { server.shutdown() }
        // Signals are blocked before any thread starts, so only the signalfd sees them.
        guard let signals = SignalFD(), let wakeup = WakeupFD() else {
            log.error("cannot set up signal handling: \(Sys.errnoText())")
            return .failure
        }
        defer { signals.close() }
        guard let display = wl_display_connect(nil) else {
            let name = getenv("WAYLAND_DISPLAY").map { String(cString: $0) }
            log.scoped("wayland").error(name == nil
                ? "WAYLAND_DISPLAY is not set and wayland-0 did not answer: run wayloop inside a Wayland session"
                : "cannot connect to the Wayland compositor at WAYLAND_DISPLAY=\(name!): \(Sys.errnoText())")
            return .noCompositor
        }
        defer { wl_display_disconnect(display) }
        // Large blocks (decoded frames, buffers of outputs that come and go) always through
        // mmap, so freeing them returns the memory: glibc's moving threshold would otherwise
        // keep them in the heap after the first free, and RSS would creep up (measured).
        _ = csys_set_mmap_threshold(128 * 1024)
        let app = App(options: options, commandLine: cli, configEntries: configEntries, log: log,
                      display: display, signals: signals, wakeup: wakeup)
        app.failedVideos = failed
        app.control = server
        server.delegate = app
        app.loop.control = server
        let status = app.start() ?? app.mainLoop()
        app.teardown()
        return status
    }

    /// A second start: hand the arguments to the running instance and report its answer; nil
    /// when it did not answer (unless `final`: then that is the answer).
    private static func handOver(_ arguments: [String], to pid: String, log: Logger, final: Bool) -> ExitStatus? {
        switch CtlClient.handOver(args: arguments) {
        case .failure(let f):
            guard final else { return nil }
            log.error("another wayloop (pid \(pid)) runs on this display, but its control socket does not answer (\(f)); "
                + "stop it, or start with --replace")
            return .alreadyRunning
        case .success(let reply):
            guard reply["ok"]?.bool == true else {
                log.error(reply["error"]?.string ?? reply.serialized)
                switch reply["kind"]?.string {
                case "video": return .badVideo
                case "usage", "config": return .usage
                default: return .failure
                }
            }
            log.notice("handed over to the wayloop already running on this display (pid \(pid))")
            return .ok
        }
    }

    /// The config file a command line reads: `--config FILE`, else the default path; nil with
    /// `--no-config` (or no home to find the default in).
    static func configPath(_ cli: Options) -> String? {
        if cli.noConfig { return nil }
        return cli.configPath ?? ConfigFile.defaultPath(xdgConfigHome: Sys.env("XDG_CONFIG_HOME"), home: Sys.env("HOME"))
    }

    /// Nothing names a video (no argument, no `video` in the config file): the installed
    /// default loop plays on every output, below whatever the config file sets. Said in one notice.
    static func withDefaultLoop(_ config: [OutputEntry], commandLine: [OutputEntry], log: Logger) -> [OutputEntry] {
        guard !(config + commandLine).contains(where: { $0.video != nil }),
              let loop = VideoLookup.resolve(VideoLookup.defaultLoop, in: Sys.videoDirectories, entries: Sys.fileNames(in:)) else {
            return config
        }
        log.notice("no video given: playing the default loop '\(loop)'")
        return [OutputEntry(selector: .all, video: loop)] + config
    }

    /// The config file's entries: `--config FILE`, else the default path if it exists.
    static func loadConfig(_ cli: Options) -> Result<[OutputEntry], ConfigError> {
        let home = Sys.env("HOME")
        guard let path = configPath(cli) else { return .success([]) }
        switch Sys.readFile(path, limit: 1 << 20) {
        case .failure(let e):
            if e.code == ENOENT && cli.configPath == nil { return .success([]) }
            // readFile refuses what is not a regular file (a FIFO would block): EINVAL.
            let why = e.code == EINVAL ? "not a regular file" : e.code == EFBIG ? "too large (over 1 MiB)" : Sys.errnoText(e.code)
            return .failure(ConfigError(file: path, line: 0, reason: "cannot read it: \(why)"))
        case .success(let text):
            do {
                return .success(try ConfigFile.parse(text, path: path, home: home, find: { Sys.findVideo($0, here: $1) }))
            } catch { return .failure(error) }
        }
    }

    // MARK: Start-up

    /// Binds globals, checks what is required, chooses the renderer and starts the decoders.
    /// Returns an exit status when start-up fails.
    private func start() -> ExitStatus? {
        let wlog = log.scoped("wayland")
        guard let registry = Registry(display: display) else {
            wlog.error("cannot get the Wayland registry")
            return .noCompositor
        }
        self.registry = registry
        registry.delegate = self
        // Always: pause rules can change at run time (config reload, hand-over).
        registry.wantsToplevels = true
        // Two roundtrips: the globals, then the first events of the outputs bound in the first
        // (and their xdg-output names, when the manager came after them in the registry).
        if let status = startupRoundtrip() { return status }
        if let m = registry.xdgOutputManager { for h in heads.values { h.output.attachXdgOutput(manager: m) } }
        if let status = startupRoundtrip() { return status }
        guard registry.compositor != nil else {
            wlog.error("the compositor does not offer wl_compositor")
            return .missingProtocol
        }
        guard registry.layerShell != nil else {
            wlog.error("the compositor does not offer zwlr_layer_shell_v1 (wlr-layer-shell), which a wallpaper needs; "
                + "use a compositor that has it: sway, Hyprland, river, labwc, niri, Wayfire or KDE Plasma (not GNOME or Weston)")
            return .missingProtocol
        }
        for h in heads.values { h.output.commitWithoutDone() }
        // What can be decided without EGL is decided now: the decoders' thread count follows it.
        let request = commandLine.rendererRequest(config: configEntries)
        let facts = RendererChoice.Environment(compositorHasDmabuf: registry.hasDmabuf, hasRenderNode: Sys.hasRenderNode)
        let early = RendererChoice.beforeEGL(request, facts)
        let hints = RenderDevices.decoderHints(early)
        decoderThreads = hints.threads
        if let n = hints.queueFrames, !options.given.contains("--queue-frames") { queueFrames = min(options.queueFrames, n) }
        // Decoders start now, while the renderer comes up (EGL and the shaders overlap: ~90 ms here).
        av_quiet()
        for path in options.allVideos where failedVideos[path] == nil && !playlistKind(path) {
            guard startVideo(path) else { return .failure }
        }
        if let m = registry.toplevelManager {
            let t = Toplevels(manager: m)
            t.delegate = self
            toplevels = t
        }
        if let status = startRenderer(request, early) { return status }
        if let path = options.traceFile {
            let t: FrameTrace
            do { t = try FrameTrace(path: path) } catch {
                log.error("cannot use the trace file '\(path)': \(error)")
                return .usage
            }
            if let p = registry.presentation, registry.presentationClock == UInt32(CLOCK_MONOTONIC) { t.presentation = p }
            trace = t
        }
        for case .named(let pattern) in options.entries.map(\.selector) where !heads.values.contains(where: {
            OutputMatch.matches(pattern: pattern, name: $0.output.info.name, description: $0.output.info.description)
        }) {
            log.notice("no output matches '\(pattern)' yet: it gets its video when it appears")
        }
        log.debug("\(heads.count) output(s); layer-shell v\(registry.layerShellVersion)")
        reconcile()
        return nil
    }

    /// Seconds a start-up roundtrip may take before the compositor counts as not answering.
    static let startupTimeout = 5.0

    /// One bounded roundtrip of start-up; an exit status when it did not come back.
    private func startupRoundtrip() -> ExitStatus? {
        let name = Sys.env("WAYLAND_DISPLAY") ?? "wayland-0"
        switch boundedRoundtrip(display, signals: signals, seconds: Self.startupTimeout) {
        case .done: return nil
        case .stopped:
            log.notice("stopping on a signal during start-up")
            return .ok
        case .timedOut:
            log.scoped("wayland").error("the compositor at WAYLAND_DISPLAY=\(name) accepted the connection but did not answer "
                + "within \(Int(Self.startupTimeout)) s")
            return .noCompositor
        case .lost:
            if wl_display_get_error(display) == EPROTO {
                log.scoped("wayland").error("the compositor at WAYLAND_DISPLAY=\(name) sent a protocol error during start-up")
            } else {
                log.scoped("wayland").error("the connection to WAYLAND_DISPLAY=\(name) failed during start-up "
                    + "(\(Sys.errnoText(wl_display_get_error(display)))): is it a Wayland compositor?")
            }
            return .noCompositor
        }
    }

    /// The renderer: shm where GL would be software, without touching EGL when the facts
    /// already say so; an EGL failure falls back to shm. One line says which and why.
    private func startRenderer(_ request: RendererRequest, _ early: RendererChoice.Decision?) -> ExitStatus? {
        guard let registry else { return .failure }
        do {
            let made = try RenderDevices.make(request, early: early, display: EGLWaylandDisplay(display),
                                              shm: registry.shm.map(ShmGlobal.init), limits: pictureLimits)
            device = made.device
            // Said with the first surface: a start that fails on its video prints only its error.
            rendererLine = made.line
            return nil
        } catch {
            log.scoped("wayland").error("\(error)")
            return .missingProtocol
        }
    }

    func startVideo(_ path: String) -> Bool {
        guard let v = Clip(path: path, queueFrames: queueFrames, cacheBudget: options.cacheMB << 20, wakeup: wakeup,
                            limits: pictureLimits, decoderThreads: decoderThreads, outputs: outputsShowing(path),
                            log: log.scoped("video")) else {
            log.error("cannot start a decoder thread: \(Sys.errnoText())")
            return false
        }
        videos[path] = v
        return true
    }

    // MARK: The loop

    private func mainLoop() -> ExitStatus {
        while exitStatus == nil {
            let timeout = timeoutMs(now: Sys.now())
            guard let events = loop.wait(timeoutMs: timeout) else {
                connectionLost()
                break
            }
            if events.contains(.signal) { handleSignals() }
            if events.contains(.wakeup) {
                wakeup.drain()
                videosChanged()
            }
            if events.contains(.files), let watcher {
                let now = Sys.now()
                for p in watcher.changes() { changed[p] = now + Self.changeSettle }
            }
            if events.contains(.pressure), let pressure {
                pressure.drain()
                memoryPressure(now: Sys.now(), source: pressure.source)
            }
            if needsReconcile && exitStatus == nil { reconcile() }
            if exitStatus == nil {
                let now = Sys.now()
                advancePlaylists(now: now)
                tick(now: now)
            }
        }
        return exitStatus ?? .ok
    }

    private func handleSignals() {
        for s in signals.read() {
            switch s {
            case SIGINT, SIGTERM:
                log.notice("stopping on signal \(s == SIGINT ? "SIGINT" : "SIGTERM")")
                exitStatus = .ok
            case SIGUSR1:
                // Like `wayloop ctl toggle`: pause everything, or resume if all is paused.
                let pause = heads.values.contains { !$0.player.pauseReasons.contains(.user) }
                for h in heads.values { setUserPause(h, pause) }
                log.notice(pause ? "paused (SIGUSR1)" : "resumed (SIGUSR1)")
            case SIGHUP:
                log.notice("reloading the config file (SIGHUP)")
                _ = reload(replyTo: nil)
            default:
                log.debug("ignoring signal \(s)")
            }
        }
    }

    private func connectionLost() {
        let err = wl_display_get_error(display)
        if err == EPROTO {
            var iface: UnsafePointer<wl_interface>?
            var id: UInt32 = 0
            let code = wl_display_get_protocol_error(display, &iface, &id)
            let name = iface.map { String(cString: $0.pointee.name) } ?? "?"
            log.scoped("wayland").error("protocol error \(code) on \(name)#\(id): this is a WayLoop bug")
            exitStatus = .failure
        } else {
            log.scoped("wayland").notice("the compositor closed the connection; exiting")
            exitStatus = .ok
        }
    }

    /// A decoder reported: a video became ready (its outputs switch to it) or failed.
    private func videosChanged() {
        var changed = false
        for v in videos.values where v.pollStatus() {
            changed = true
            if let e = v.error {
                log.scoped("video").error("\(e)")
                failedVideos[v.path] = e
                stopVideo(v)
            } else if let info = v.info {
                started = true
                log.notice("playing '\(v.path)' (\(info))")
            }
        }
        guard changed else { return }
        // Nothing can ever be shown: the error lines above said why.
        if !started && options.allVideos.allSatisfy(isUnplayable) && !options.hasFallbackColor {
            exitStatus = .badVideo
            return
        }
        reconcile()
        resolvePending()
    }

    /// Stops a decoder (set, wake, join) and frees what the renderer kept of it.
    func stopVideo(_ v: Clip) {
        device?.forget(clip: v.path)
        v.stop()
        videos[v.path] = nil
    }

    func outputName(_ id: UInt32) -> String { heads[id]?.name ?? "output-\(id)" }

    // MARK: Teardown

    /// Children before parents: surfaces and sinks, textures, renderer, decoders, EGL, outputs, registry.
    private func teardown() {
        for h in heads.values { h.dropSurface() }
        device?.releaseSurfaces()
        for v in videos.values {
            device?.forget(clip: v.path)
            v.stop()
        }
        videos.removeAll()
        device = nil
        trace = nil
        toplevels = nil
        heads.removeAll()
        registry = nil
        wl_display_flush(display)
    }
}
