// The shell: owns the Wayland connection, every proxy, EGL and GL (main thread), one Video per
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
    var egl: EGL?
    var renderer: Renderer?
    var outputs: [UInt32: Output] = [:]
    var wallpapers: [UInt32: Wallpaper] = [:]
    /// What each output's entries ask for (nil: no entry names a video for it).
    var targets: [UInt32: OutputSettings] = [:]
    /// What each output draws: settings whose video is ready. Lags `targets` while a new video
    /// opens (the old one keeps playing), and keeps the old one if the new one fails.
    var outputSettings: [UInt32: OutputSettings] = [:]
    /// Outputs that show a fallback colour (their video failed and nothing else plays there).
    var solid: [UInt32: RGB] = [:]
    /// Each output's state machine (idle, loading, playing, paused(reason), failed).
    var players: [UInt32: PlayerStateMachine] = [:]
    /// Running decoders, one per distinct file that an output shows or is about to show (or,
    /// at start-up, that the command line names, so that every file is checked first).
    var videos: [String: Video] = [:]
    /// Files that cannot be played, and why.
    var failedVideos: [String: VideoError] = [:]
    /// Requests answered once the videos they opened are ready or failed.
    var pending: [PendingReply] = []
    /// A video was ready once: from then on, failures never end the process.
    var started = false
    var toplevels: Toplevels?
    /// The last power-supply reading (only while an output pauses on battery), and when to look again.
    var onBattery = false
    var nextPowerCheck: Nanos = 0
    var releaseAfter: Nanos { Nanos(options.releaseAfter * 1e9) }
    var trace: FrameTrace?
    var exitStatus: ExitStatus?

    private init(options: Options, commandLine: Options, configEntries: [OutputEntry], log: Logger,
                 display: OpaquePointer, signals: SignalFD, wakeup: WakeupFD) {
        self.options = options
        self.commandLine = commandLine
        self.configEntries = configEntries
        self.log = log
        self.display = display
        self.signals = signals
        self.wakeup = wakeup
        loop = EventLoop(display: display, wakeupFD: wakeup.fd, signalFD: signals.fd)
    }

    /// Runs WayLoop to the end and returns the exit status. `arguments` (argv without the
    /// program name) are handed to an instance already running on this display.
    static func run(options cli: Options, arguments: [String], log: Logger) -> ExitStatus {
        let configEntries: [OutputEntry]
        switch loadConfig(cli) {
        case .failure(let e):
            log.scoped("config").error("\(e)")
            return .usage
        case .success(let c): configEntries = c
        }
        var options = cli
        options.entries = configEntries + cli.entries
        guard !options.videos.isEmpty else {
            log.error("usage: \(UsageError.noVideo) (see wayloop --help)")
            return .usage
        }
        // A video that cannot be played fails its outputs only; with none playable and no
        // fallback, stop here, before connecting (or handing over).
        var failed: [String: VideoError] = [:]
        for path in options.allVideos {
            if let e = Preflight.check(path) {
                log.scoped("video").error("\(e)")
                failed[path] = e
            }
        }
        if options.allVideos.allSatisfy({ failed[$0] != nil }) && !options.hasFallbackColor { return .badVideo }
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

    /// The config file's entries: `--config FILE`, else the default path if it exists.
    static func loadConfig(_ cli: Options) -> Result<[OutputEntry], ConfigError> {
        if cli.noConfig { return .success([]) }
        let home = Sys.env("HOME")
        guard let path = cli.configPath ?? ConfigFile.defaultPath(xdgConfigHome: Sys.env("XDG_CONFIG_HOME"), home: home) else {
            return .success([])
        }
        switch Sys.readFile(path, limit: 1 << 20) {
        case .failure(let e):
            if e.code == ENOENT && cli.configPath == nil { return .success([]) }
            return .failure(ConfigError(file: path, line: 0, reason: "cannot read it: \(Sys.errnoText(e.code))"))
        case .success(let text):
            do { return .success(try ConfigFile.parse(text, path: path, home: home)) } catch { return .failure(error) }
        }
    }

    // MARK: Start-up

    /// Binds globals, checks what is required, sets up EGL and starts the decoders.
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
        guard wl_display_roundtrip(display) >= 0 else {
            wlog.error("the compositor closed the connection during start-up")
            return .noCompositor
        }
        if let m = registry.xdgOutputManager { for o in outputs.values { o.attachXdgOutput(manager: m) } }
        guard wl_display_roundtrip(display) >= 0 else {
            wlog.error("the compositor closed the connection during start-up")
            return .noCompositor
        }
        guard registry.compositor != nil else {
            wlog.error("the compositor does not offer wl_compositor")
            return .missingProtocol
        }
        guard registry.layerShell != nil else {
            wlog.error("the compositor does not offer zwlr_layer_shell_v1 (wlr-layer-shell), which a wallpaper needs; "
                + "use a compositor that has it: sway, Hyprland, river, labwc, niri, Wayfire or KDE Plasma (not GNOME or Weston)")
            return .missingProtocol
        }
        for o in outputs.values { o.commitWithoutDone() }
        // Decoders start now, while EGL and the shaders come up (they overlap: ~90 ms here).
        av_quiet()
        for path in options.allVideos where failedVideos[path] == nil {
            guard startVideo(path) else { return .failure }
        }
        if let m = registry.toplevelManager {
            let t = Toplevels(manager: m)
            t.delegate = self
            toplevels = t
        }
        do {
            let egl = try EGL(wlDisplay: display)
            self.egl = egl
            // Surfaceless: compile the program before any output has a surface.
            guard eglMakeCurrent(egl.display, wlx_egl_no_surface(), wlx_egl_no_surface(), egl.context) == EGL_TRUE else {
                throw GraphicsError("EGL cannot make the context current without a surface")
            }
            let r = try Renderer()
            renderer = r
            for v in videos.values { v.maxTextureSize = r.maxTextureSize }
        } catch {
            log.scoped("egl").error("\(error)")
            return .failure
        }
        if let path = options.traceFile {
            guard let t = FrameTrace(path: path) else {
                log.error("cannot open the trace file '\(path)': \(Sys.errnoText())")
                return .usage
            }
            if let p = registry.presentation, registry.presentationClock == UInt32(CLOCK_MONOTONIC) { t.presentation = p }
            trace = t
        }
        for case .named(let pattern) in options.entries.map(\.selector) where !outputs.values.contains(where: {
            OutputMatch.matches(pattern: pattern, name: $0.info.name, description: $0.info.description)
        }) {
            log.notice("no output matches '\(pattern)' yet: it gets its video when it appears")
        }
        log.debug("\(outputs.count) output(s); layer-shell v\(registry.layerShellVersion)")
        reconcile()
        return nil
    }

    func startVideo(_ path: String) -> Bool {
        guard let v = Video(path: path, queueFrames: options.queueFrames, cacheBudget: options.cacheMB << 20, wakeup: wakeup,
                            maxTextureSize: renderer?.maxTextureSize, log: log.scoped("video")) else {
            log.error("cannot start a decoder thread: \(Sys.errnoText())")
            return false
        }
        videos[path] = v
        return true
    }

    /// The videos outputs show or are about to show: their active and target videos, and the
    /// fallback video of a target that failed.
    var neededVideos: Set<String> {
        var needed = Set(outputSettings.values.map(\.video))
        for (id, t) in targets where outputs[id] != nil {
            if failedVideos[t.video] == nil { needed.insert(t.video) } else if case .video(let f)? = t.fallback { needed.insert(f) }
        }
        return needed
    }

    /// Starts a decoder for every file an output shows or will show, and stops (set, wake,
    /// join) the decoder of a file that none needs any more (once it has been checked).
    func syncVideos() {
        let needed = neededVideos
        for path in needed where videos[path] == nil && failedVideos[path] == nil {
            if !startVideo(path) { exitStatus = .failure }
        }
        for (path, v) in videos where !needed.contains(path) && (v.info != nil || started) {
            log.debug("'\(path)': no output shows it: decoder stopped")
            v.textures = nil
            v.stop()
            videos[path] = nil
        }
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
            if exitStatus == nil { tick(now: Sys.now()) }
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
                let pause = outputs.keys.contains { players[$0]?.pauseReasons.contains(.user) != true }
                for id in outputs.keys { setUserPause(id, pause) }
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
                v.textures = nil
                v.stop()
                videos[v.path] = nil
            } else if let info = v.info {
                started = true
                log.notice("playing '\(v.path)' (\(info))")
            }
        }
        guard changed else { return }
        // Nothing can ever be shown: the error lines above said why.
        if !started && options.allVideos.allSatisfy({ failedVideos[$0] != nil }) && !options.hasFallbackColor {
            exitStatus = .badVideo
            return
        }
        reconcile()
        resolvePending()
    }

    private func settings(for outputID: UInt32) -> OutputSettings? { outputSettings[outputID] }

    /// Brings every output's drawn settings towards its target: switch to a video once it is
    /// ready (the old one plays until then, so no black frame), keep the old one if the new one
    /// failed, else show the fallback; updates the state machines. Starts and stops decoders.
    func reconcile() {
        syncVideos()
        for (id, o) in outputs where o.isDone {
            guard let target = targets[id] else {
                if outputSettings[id] != nil || solid[id] != nil || wallpapers[id] != nil {
                    wallpapers[id] = nil
                    outputSettings[id] = nil
                    solid[id] = nil
                }
                apply(id, .unload)
                continue
            }
            var want: OutputSettings? = target
            if let e = failedVideos[target.video] {
                want = nil
                if case .video(let f)? = target.fallback, failedVideos[f] == nil {
                    want = target
                    want!.video = f
                }
                // A switch that failed keeps the old video: only a bare output fails.
                if let active = outputSettings[id], failedVideos[active.video] == nil, active.video != want?.video {
                    continue
                }
                apply(id, .fail(e.failureKind, "\(e)"))
            }
            let previous = outputSettings[id]
            if let want {
                if previous?.video == want.video {
                    if previous != want {
                        outputSettings[id] = want
                        wallpapers[id]?.invalidate()
                        updatePause(id)
                    }
                } else if videos[want.video]?.isReady == true {
                    outputSettings[id] = want
                    solid[id] = nil
                    if previous != nil { log.notice("\(o.displayName): switched to '\(want.video)'") }
                    wallpapers[id]?.invalidate()
                    updatePause(id)
                    publishVideoChange(id)
                } else if previous == nil && solid[id] == nil && failedVideos[target.video] == nil {
                    apply(id, .load)
                }
            } else if case .failed = players[id]?.state {
                let colour: RGB? = { if case .color(let c)? = target.fallback { return c }; return nil }()
                if previous != nil { outputSettings[id] = nil }
                if let colour {
                    if solid[id] != colour {
                        solid[id] = colour
                        wallpapers[id]?.invalidate()
                    }
                } else {
                    wallpapers[id] = nil
                    solid[id] = nil
                }
            }
            if outputSettings[id] != nil, failedVideos[target.video] == nil { markPlaying(id) }
            ensureWallpaper(o)
        }
        syncVideos()
        resolvePending()
    }

    /// Creates the output's surface once it has something to show: a ready video or a colour.
    private func ensureWallpaper(_ o: Output) {
        let id = o.globalName
        guard wallpapers[id] == nil, let registry, let compositor = registry.compositor,
              let shell = registry.layerShell, let egl else { return }
        let what: String
        if let s = outputSettings[id], videos[s.video]?.isReady == true {
            what = "showing '\(s.video)' (\(s.mode.rawValue))"
        } else if let c = solid[id] {
            what = "showing the fallback colour \(c)"
        } else {
            return
        }
        guard let w = Wallpaper(outputID: id, compositor: compositor, layerShell: shell, output: o.proxy,
                                scale: o.info.scale, egl: egl, viewporter: registry.viewporter,
                                fractionalScale: registry.fractionalScale) else {
            log.error("\(o.displayName): cannot create a layer surface")
            return
        }
        w.delegate = self
        wallpapers[id] = w
        updatePause(id)
        log.notice("\(o.displayName) (\(o.info.modeSize), scale \(o.info.scale)): \(what)")
    }

    /// After this long without a frame callback, an output counts as hidden (not presented).
    private static let hiddenAfter: Nanos = 1_000_000_000

    /// Milliseconds until the next frame is due on an output that can take one; -1 = none.
    private func timeoutMs(now: Nanos) -> Int32 {
        var deadline: Nanos? = wantsPowerChecks ? nextPowerCheck : nil
        func soonest(_ d: Nanos) { deadline = min(deadline ?? d, d) }
        // One wake-up to release a video nobody has seen for a while (none while released).
        for v in videos.values where !v.isReleased && v.isReady && isHidden(v) {
            soonest(max(now, v.lastDrawn + releaseAfter))
        }
        for (id, w) in wallpapers {
            // A frame callback that does not come: the output is hidden (one wake-up to say so).
            if w.awaitingFrame {
                if players[id]?.pauseReasons.contains(.hidden) != true { soonest(w.frameRequestedAt + Self.hiddenAfter) }
                continue
            }
            guard w.isConfigured || w.needsRedraw, w.pauseReason == nil || w.needsRedraw else { continue }
            if solid[id] != nil && w.needsRedraw { return 0 }
            guard let v = settings(for: id).flatMap({ videos[$0.video] }) else { continue }
            // A released video restarts in the next tick; one with no frame yet waits for its
            // decoder's wake-up (or its first queued frame), never spins.
            if v.isReleased { return 0 }
            if v.current != nil && (w.needsRedraw || w.shownSerial != v.serial) { return 0 }
            if let d = v.nextDeadline { soonest(d) }
        }
        guard let deadline else { return -1 }
        let ms = (deadline - now + 999_999) / 1_000_000
        return Int32(clamping: max(0, ms))
    }

    private var wantsPowerChecks: Bool { outputSettings.values.contains { $0.pauseOnBattery } }

    /// Advances each video whose outputs can take a frame, then draws every output whose frame
    /// changed or that was reconfigured. An output waiting for its frame callback is skipped.
    private func tick(now: Nanos) {
        guard let egl, let renderer, let compositor = registry?.compositor else { return }
        if wantsPowerChecks && now >= nextPowerCheck {
            nextPowerCheck = now + 5 * .nanosPerSecond
            let battery = PowerSupply.onBattery(PowerMonitor.read())
            if battery != onBattery {
                onBattery = battery
                for id in wallpapers.keys { updatePause(id) }
            }
        }
        for v in videos.values where !v.isReleased && v.isReady && now - v.lastDrawn >= releaseAfter && isHidden(v) {
            v.release()
            log.debug("'\(v.path)': nothing presented for \(options.releaseAfter) s: decoder and frames released")
        }
        for (id, w) in wallpapers {
            do { try w.applyConfigure(compositor: compositor) } catch {
                log.error("\(outputName(id)): \(error)")
                wallpapers[id] = nil
                continue
            }
            if w.awaitingFrame && now - w.frameRequestedAt >= Self.hiddenAfter { apply(id, .pause(.hidden)) }
            if let colour = solid[id] {
                guard w.isConfigured, w.needsRedraw, !w.awaitingFrame, let surface = w.eglSurface else { continue }
                do { try egl.makeCurrent(surface) } catch {
                    log.error("\(outputName(id)): \(error)")
                    continue
                }
                renderer.clear(colour, buffer: w.bufferSize)
                if !egl.swap(surface) { log.error("\(outputName(id)): eglSwapBuffers failed (EGL error 0x\(String(eglGetError(), radix: 16)))") }
                w.didDraw(serial: 0)
                continue
            }
            // A paused output draws only when it must (a new size, another video or setting).
            guard w.isConfigured, !w.awaitingFrame, w.pauseReason == nil || w.needsRedraw,
                  let s = settings(for: id), let v = videos[s.video], v.isReady else {
                continue
            }
            if v.isReleased && (w.pauseReason == nil || v.current == nil) {
                log.debug("'\(v.path)': wanted again: decoder restarted")
                v.restart()
            }
            if w.pauseReason == nil || v.current == nil { _ = v.advance(now: now) }  // once per tick, however many outputs show it
            guard let frame = v.current, w.needsRedraw || w.shownSerial != v.serial, let surface = w.eglSurface else {
                continue
            }
            do { try egl.makeCurrent(surface) } catch {
                log.error("\(outputName(id)): \(error)")
                continue
            }
            if v.uploadedSerial != v.serial || v.textures == nil {
                if v.textures == nil { v.textures = VideoTextures() }
                renderer.upload(frame.payload.frame, into: v.textures!)
                v.uploadedSerial = v.serial
            }
            let orientation = v.info?.orientation ?? .upright
            renderer.draw(v.textures!, orientation: orientation, buffer: w.bufferSize, settings: s,
                          shared: sharesPicture(v, size: w.bufferSize, orientation: orientation))
            w.requestFrame()
            trace?.committing(output: id, name: outputName(id), surface: w.surface, frame: frame, at: now)
            if !egl.swap(surface) { log.error("\(outputName(id)): eglSwapBuffers failed (EGL error 0x\(String(eglGetError(), radix: 16)))") }
            w.didDraw(serial: v.serial)
            v.lastDrawn = now
        }
    }

    /// Two or more outputs show `v` on buffers of its display size: one conversion serves all.
    private func sharesPicture(_ v: Video, size: Size, orientation: Orientation) -> Bool {
        guard let t = v.textures, orientation.displaySize(t.size) == size else { return false }
        var n = 0
        for (id, w) in wallpapers where w.bufferSize == size && outputSettings[id]?.video == v.path { n += 1 }
        return n >= 2
    }

    /// No output showing `v` can take a frame: all hidden, covered or paused for a reason.
    private func isHidden(_ v: Video) -> Bool {
        !wallpapers.contains { $0.value.canTakeFrame && outputSettings[$0.key]?.video == v.path }
    }

    func outputName(_ id: UInt32) -> String { outputs[id]?.displayName ?? "output-\(id)" }

    // MARK: Teardown

    /// Children before parents: surfaces, textures, renderer, decoders, EGL, outputs, registry.
    private func teardown() {
        wallpapers.removeAll()
        if let egl { eglMakeCurrent(egl.display, wlx_egl_no_surface(), wlx_egl_no_surface(), egl.context) }
        for v in videos.values { v.textures = nil }
        renderer = nil
        for v in videos.values { v.stop() }
        videos.removeAll()
        outputSettings.removeAll()
        egl = nil
        trace = nil
        toplevels = nil
        outputs.removeAll()
        registry = nil
        wl_display_flush(display)
    }
}

// MARK: Wayland events

extension App: RegistryDelegate {
    func outputAdded(name: UInt32, proxy: OpaquePointer, version: UInt32) {
        let o = Output(globalName: name, proxy: proxy, version: version)
        o.delegate = self
        outputs[name] = o
        if let m = registry?.xdgOutputManager { o.attachXdgOutput(manager: m) }
    }

    func globalRemoved(name: UInt32) {
        guard let o = outputs[name] else { return }
        log.notice("\(o.displayName): output removed")
        apply(name, .unload)
        wallpapers[name] = nil
        outputSettings[name] = nil
        targets[name] = nil
        solid[name] = nil
        players[name] = nil
        outputs[name] = nil
        syncVideos()
    }
}

extension App: OutputDelegate {
    func outputDone(_ output: Output, changed: Bool, first: Bool) {
        let i = output.info
        let id = output.globalName
        let previous = targets[id]
        targets[id] = options.settings(forOutput: i.name, description: i.description)
        if first {
            let what = targets[id].map { "'\($0.video)'" } ?? "nothing (no entry matches)"
            log.debug("\(output.displayName): \(i.modeSize) scale \(i.scale) (\(i.description)): for \(what)")
        } else if changed {
            log.debug("\(output.displayName): now \(i.modeSize) scale \(i.scale)")
            wallpapers[id]?.setScale(i.scale)
        }
        if previous != targets[id] && !first {
            // The name arrived late (xdg-output) or the entry now matching differs.
            log.debug("\(output.displayName): settings changed")
        }
        if first || previous != targets[id], exitStatus == nil, registry?.layerShell != nil, egl != nil { reconcile() }
    }
}

extension App: WallpaperDelegate {
    func wallpaperClosed(_ wallpaper: Wallpaper) {
        log.debug("\(outputName(wallpaper.outputID)): layer surface closed by the compositor")
        wallpapers[wallpaper.outputID] = nil
    }

    func wallpaperFrameDone(_ wallpaper: Wallpaper, time: UInt32) {
        let now = Sys.now()
        trace?.frameDone(output: wallpaper.outputID, at: now)
        apply(wallpaper.outputID, .resume(.hidden))
        if let v = settings(for: wallpaper.outputID).flatMap({ videos[$0.video] }) { v.firstFramePresented(at: now) }
    }
}

extension App: ToplevelsDelegate {
    func fullscreenOutputsChanged() {
        for id in wallpapers.keys { updatePause(id) }
    }

    /// Recomputes the fullscreen and battery reasons of one output from its pause rules.
    func updatePause(_ id: UInt32) {
        guard let o = outputs[id] else { return }
        let s = outputSettings[id] ?? targets[id]
        let fullscreen = s?.pauseOnFullscreen ?? true && toplevels?.hasFullscreen(on: o.proxy) == true
        let battery = s?.pauseOnBattery ?? false && onBattery
        let before = players[id]?.pauseReasons ?? []
        apply(id, fullscreen ? .pause(.fullscreen) : .resume(.fullscreen))
        apply(id, battery ? .pause(.battery) : .resume(.battery))
        // One line a user wants to see when a rule pauses or resumes an output.
        let after = players[id]?.pauseReasons ?? []
        for r in [PauseReason.fullscreen, .battery] where before.contains(r) != after.contains(r) {
            log.notice("\(o.displayName): " + (after.contains(r) ? "paused (\(r.rawValue))" : "resumed (\(r.rawValue) rule)"))
        }
    }
}
