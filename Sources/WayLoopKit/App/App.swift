// The shell: owns the Wayland connection, every proxy, the render device (main thread), the
// player (one Clip per video file that runs, each with its decoder thread) and one Head per output.
// Listeners only record and set `needsReconcile`; once per pass of the loop the director
// (WayLoopCore) decides from a snapshot and the shell carries out its effects, then draws.
import CSystem
import CWayland
import Glibc
import WayLoopCore

final class App {
    /// What applies now: `entries` are `layers.entries`.
    var options: Options
    /// The config file's entries, the command line (as given at start or by the last
    /// hand-over), and `ctl set`'s overrides, each tagged with its request (a failed switch
    /// removes its own only).
    var layers: SettingsLayers
    var commandLine: Options {
        get { layers.commandLine }
        set { layers.commandLine = newValue }
    }
    var configEntries: [OutputEntry] {
        get { layers.config }
        set { layers.config = newValue }
    }
    var overrides: Overrides {
        get { layers.overrides }
        set { layers.overrides = newValue }
    }
    let log: Logger
    let display: WLDisplay
    let signals: SignalFD
    let wakeup: WakeupFD
    let loop: EventLoop
    let control: ControlServer?
    /// The library value this run belongs to: state events go to its host, and its stop() and
    /// status() requests arrive through the wakeup fd.
    weak var owner: Wallpaper?
    /// `wayloop ctl` requests, signals and reloads (the server's delegate; it holds it weakly).
    private(set) lazy var requests = Requests(app: self)
    var registry: Registry?
    /// What draws (GLES or wl_shm: RenderDevices.make); nil until it is up.
    var device: (any RenderDevice)?
    /// The device's limits as the decoders read them (they start before it is up).
    let pictureLimits = PictureLimits()
    var rendererKind: RendererKind? { device?.kind }
    /// One head per output, keyed by the wl_output's registry name.
    var heads: [UInt32: Head] = [:]
    /// The videos and their decoders, and what is done with them (Player): every output's.
    let player: Player
    /// The player's table: one record per video file.
    var videos: VideoTable<Clip> {
        get { player.videos }
        _modify { yield &player.videos }
    }
    /// A video was ready once: from then on, failures never end the process.
    var started = false
    /// The one way in: listeners and handlers set it, the loop reconciles once per pass.
    var needsReconcile = false
    /// Decoded frames queued per video: --queue-frames, or the device's hint when not given.
    var queueFrames: Int { player.queueFrames }
    /// The renderer choice, logged once when the first surface is made.
    var rendererLine: String?
    var toplevels: Toplevels?
    /// sway's IPC, where WayLoop runs under sway (ScreenSource.choose): workspaces and windows.
    var sway: SwayScreen?
    /// Hyprland's IPC, where WayLoop runs under Hyprland (ScreenSource.choose): workspaces and
    /// windows. Built from Hyprland's sources; not run on Hyprland (it cannot run here).
    var hyprland: HyprlandScreen?
    /// niri's IPC, where WayLoop runs under niri: workspaces and windows. Built from niri's
    /// sources; not run on niri (not packaged here).
    var niri: NiriScreen?
    /// ext-workspace-v1, where offered: which workspace each output shows (when sway's IPC does not say).
    var workspaces: Workspaces?
    /// The pause-rule conditions already said to be unknowable here (one notice each).
    var unknowableSaid: Set<PauseCondition> = []
    /// The last power-supply reading (only while an output pauses on battery), and when to look again.
    var onBattery = false
    var nextPowerCheck: Nanos = 0
    var releaseAfter: Nanos { Nanos(options.releaseAfter * 1e9) }
    var trace: FrameTrace?
    var exitStatus: ExitStatus?
    /// The files in use, watched for changes (acted on once they settle: `VideoRecord.changeDue`).
    let watcher: FileWatcher?
    /// Memory pressure (PSI, or the injected FIFO of the tests), and when it was last acted on.
    let pressure: PressureMonitor?
    /// When the library pages untouched during steady playback are handed back (ColdPages;
    /// `WAYLOOP_COLD_PAGES=off`: never).
    var coldPages = ColdPageClock(start: Sys.now(), enabled: Sys.env("WAYLOOP_COLD_PAGES") != "off")
    /// The thread that hands them back (joined when the app goes).
    var coldPagesWorker: WorkerThread?
    /// The playlist runs in use.
    let playlists: PlaylistRuns
    /// Where start-up time went, until the first frame is on screen (then one debug line).
    var startup: StartupTimeline?
    /// Every deadline of the loop, each registered once (registerTimers).
    let timers = TimerList()
    static let changeSettle: Nanos = 300_000_000
    /// Fitted copies (`--fit`): the rule, the child making one, the switch at a seam.
    let fitting: Fitting
    /// The state file's writer (nil: no state directory to write to), and when it writes next.
    let stateWriter: StateWriter?
    var saveClock = SaveDebounce(generation: 0)

    init(options: Options, commandLine: Options, configEntries: [OutputEntry], log: Logger,
         display: WLDisplay, signals: SignalFD, wakeup: WakeupFD, videos: VideoTable<Clip>, control: ControlServer?,
         startup: StartupTimeline, restored: SavedState?, stateWriter: StateWriter?) {
        self.startup = startup
        self.options = options
        layers = SettingsLayers(config: configEntries, commandLine: commandLine, overrides: Overrides(restoring: restored?.overrides ?? []))
        self.log = log
        self.display = display
        self.signals = signals
        self.wakeup = wakeup
        player = Player(videos: videos, wakeup: wakeup, limits: pictureLimits, queueFrames: options.queueFrames,
                        cacheBudget: options.cacheMB << 20, log: log)
        self.control = control
        playlists = PlaylistRuns(log: log, restoring: restored?.playlists ?? [])
        self.stateWriter = stateWriter
        watcher = FileWatcher()
        pressure = PressureMonitor.open(log: log.scoped("memory"))
        fitting = Fitting(log: log.scoped("fit"))
        loop = EventLoop(display: display)
        control?.delegate = requests
        player.forgetPictures = { [unowned self] in device?.forget(clip: $0) }
        registerSources()
        registerTimers()
        saveClock = SaveDebounce(generation: stateGeneration)
    }

    /// A reply to a client of the control socket, or (a negative client) to the host's own request.
    func reply(to client: Int, _ value: JSON) {
        if client < 0 { owner?.answer(-client, value) } else { control?.reply(to: client, value) }
    }

    /// Every fd the loop polls beside the Wayland connection, each with what to do when it is ready.
    private func registerSources() {
        if let control { loop.add(control) }
        // The fitted copy's maker reports through its pipe.
        loop.add(fitting)
        loop.add(fd: signals.fd) { [unowned self] in requests.handleSignals() }
        loop.add(fd: wakeup.fd) { [unowned self] in
            wakeup.drain()
            if owner?.wakeupRequests(handle: { requests.handle($0, from: -$1) }) == true { exitStatus = .ok }
            videosChanged()
        }
        if let watcher {
            loop.add(fd: watcher.fd) { [unowned self] in
                let due = Sys.now() + Self.changeSettle
                for p in watcher.changes() { videos.changed(p, due: due) }
            }
        }
        if let pressure {
            loop.add(fd: pressure.fd, events: pressure.events) { [unowned self] in
                pressure.drain()
                let now = Sys.now()
                player.releaseMemory(world(), now: now, source: pressure.source, trim: { device?.trim(before: now) })
            }
        }
    }

    /// Starts, runs the loop to the end, tears down; the exit status.
    func run() -> ExitStatus {
        let status = start() ?? mainLoop()
        teardown()
        return status
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
        // Two roundtrips: the globals, then the first events of the outputs bound in the first
        // (and their xdg-output names, when the manager came after them in the registry).
        if let status = startupRoundtrip() { return status }
        if let m = registry.xdgOutputManager { for h in heads.values { h.output.attachXdgOutput(manager: m) } }
        if let status = startupRoundtrip() { return status }
        startup?.mark(.outputs, at: Sys.now())
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
        player.decoderThreads = hints.threads
        if let n = hints.queueFrames, !options.given.contains("--queue-frames") { player.queueFrames = min(options.queueFrames, n) }
        // Decoders start now, while the renderer comes up (EGL and the shaders overlap: ~90 ms here).
        av_quiet()
        // A workspace's video opens when its output shows that workspace.
        let base = Set(options.baseVideos), named = Set(options.videos)
        for path in options.allVideos where (base.contains(path) || !named.contains(path)) && !videos.failed(path) && !playlistKind(path) {
            guard player.open(path, spec(path)) else { return .failure }
        }
        if let t = registry.takeToplevels() {
            t.delegate = self
            toplevels = t
        }
        if let w = registry.takeWorkspaces() {
            w.delegate = self
            workspaces = w
        }
        startScreenSource()
        // What the first roundtrips announced, before the delegates were set.
        screenChanged()
        if let status = startRenderer(request, early) ?? startTrace() { return status }
        startup?.mark(.renderer, at: Sys.now())
        for case .named(let pattern) in options.entries.map(\.selector) where !heads.values.contains(where: {
            OutputMatch.matches(pattern: pattern, name: $0.output.info.name, description: $0.output.info.description)
        }) {
            log.notice("no output matches '\(pattern)' yet: it gets its video when it appears")
        }
        log.debug("\(heads.count) output(s); layer-shell v\(registry.layerShellVersion)")
        needsReconcile = true
        return nil
    }

    /// `--trace-frames FILE`: the frame trace (FrameTrace.start).
    private func startTrace() -> ExitStatus? {
        guard let path = options.traceFile, let registry else { return nil }
        do { trace = try FrameTrace.start(path, registry: registry) } catch {
            log.error("cannot use the trace file '\(path)': \(error)")
            return .usage
        }
        return nil
    }

    /// Seconds a start-up roundtrip may take before the compositor counts as not answering.
    static let startupTimeout = 5.0

    /// One bounded roundtrip of start-up; an exit status when it did not come back.
    private func startupRoundtrip() -> ExitStatus? {
        let result = boundedRoundtrip(display, signals: signals, seconds: Self.startupTimeout)
        if let problem = result.problem(display, seconds: Self.startupTimeout) {
            log.scoped("wayland").error(problem)
            return .noCompositor
        }
        if result == .stopped { log.notice("stopping on a signal during start-up") }
        return result == .stopped ? .ok : nil
    }

    /// The renderer: shm where GL would be software, without touching EGL when the facts
    /// already say so; an EGL failure falls back to shm. One line says which and why.
    private func startRenderer(_ request: RendererRequest, _ early: RendererChoice.Decision?) -> ExitStatus? {
        guard let registry else { return .failure }
        do {
            let made = try RenderDevices.make(request, early: early, display: EGLWaylandDisplay(display),
                                              shm: registry.shm.map(ShmGlobal.init), dmabuf: registry.hasDmabuf, limits: pictureLimits)
            device = made.device
            // Said with the first surface: a start that fails on its video prints only its error.
            rendererLine = made.line
            return nil
        } catch {
            log.scoped("wayland").error("\(error)")
            return .missingProtocol
        }
    }

    /// How `path` is decoded and what the outputs showing it need, for its decoder.
    func spec(_ path: String) -> Player.Spec {
        let hwdec = hwdecShowing(path)
        return Player.Spec(hwdec: hwdec.mode, hwdecDevice: hwdec.device, outputs: outputsShowing(path))
    }

    // MARK: The loop

    /// One pass: wait (the sources are heard inside), fire the timers that are due, let the playlists move,
    /// reconcile once if anything asked for it, draw, answer the requests that can be.
    private func mainLoop() -> ExitStatus {
        while exitStatus == nil {
            guard loop.wait(timeoutMs: timeoutMs(now: Sys.now())) else {
                connectionLost()
                break
            }
            guard exitStatus == nil else { break }
            let now = Sys.now()
            fireTimers(now: now)
            advancePlaylists(now: now)
            if needsReconcile && exitStatus == nil { reconcile() }
            guard exitStatus == nil else { break }
            drawAll(now: now)
            // A reply waits for the new video's first frame on screen (it is, now, or an output
            // stopped being presented and is not waited for any more).
            requests.resolvePending()
            saveClock.observe(stateGeneration, now: now)
            device?.trim(before: now - 2 * .nanosPerSecond)
        }
        return exitStatus ?? .ok
    }

    private func connectionLost() {
        let (isProtocolError, line) = display.lostReason
        if isProtocolError { log.scoped("wayland").error(line) } else { log.scoped("wayland").notice(line) }
        exitStatus = isProtocolError ? .failure : .ok
    }

    /// A decoder reported: a video became ready (its outputs switch to it) or failed.
    func videosChanged() {
        let news = player.poll()
        for case .ready(let path, let info) in news {
            startup?.mark(.decoded, at: Sys.now())
            started = true
            log.notice("playing '\(path)' (\(info))")
        }
        guard !news.isEmpty else { return }
        // Nothing can ever be shown: the error lines above said why.
        if Director.nothingCanPlay(started: started, videos: options.allVideos, unplayable: isUnplayable,
                                   hasFallbackColor: options.hasFallbackColor) {
            // A hand-over's videos failed: its reply puts the command line before it back.
            if requests.restoresPending { requests.resolvePending() }
            if Director.nothingCanPlay(started: started, videos: options.allVideos, unplayable: isUnplayable,
                                       hasFallbackColor: options.hasFallbackColor) {
                exitStatus = .badVideo
                return
            }
        }
        needsReconcile = true
    }

    func outputName(_ id: UInt32) -> String { heads[id]?.name ?? "output-\(id)" }

    // MARK: Teardown

    /// Children before parents: surfaces and sinks, textures, renderer, decoders, EGL, outputs, registry.
    private func teardown() {
        fitting.finish()
        saveStateNow(final: true)
        for h in heads.values { h.dropSurface() }
        device?.releaseSurfaces()
        player.stopAll()
        device = nil
        trace = nil
        toplevels = nil
        heads.removeAll()
        registry = nil
        display.flush()
    }
}
