// The shell: owns the Wayland connection, every proxy, EGL and GL (main thread), one Video per
// distinct file (each with its decoder thread) and one Wallpaper per output that has a video.
// Listeners only record; drawing happens in `tick`, after dispatch.
import CWayland
import Glibc
import WayLoopCore

final class App {
    private let options: Options
    private let log: Logger
    private let display: OpaquePointer
    private let signals: SignalFD
    private let wakeup: WakeupFD
    private let loop: EventLoop
    private var registry: Registry?
    private var egl: EGL?
    private var renderer: Renderer?
    private var outputs: [UInt32: Output] = [:]
    private var wallpapers: [UInt32: Wallpaper] = [:]
    /// Each output's resolved settings (nil: no entry names a video for it), fixed on `done`.
    private var outputSettings: [UInt32: OutputSettings] = [:]
    /// Running decoders, one per distinct file that an output shows (or, at start-up, that the
    /// command line names, so that every file is checked before anything is shown).
    private var videos: [String: Video] = [:]
    /// Files that cannot be played, and why. Their outputs get no surface.
    private var failedVideos: [String: VideoError] = [:]
    private var toplevels: Toplevels?
    /// The last power-supply reading (only with --pause-on-battery), and when to look again.
    private var onBattery = false
    private var nextPowerCheck: Nanos = 0
    private var releaseAfter: Nanos { Nanos(options.releaseAfter * 1e9) }
    /// SIGUSR1 toggles a pause of every video.
    private var userPaused = false
    private var trace: FrameTrace?
    private var exitStatus: ExitStatus?

    private init(options: Options, log: Logger, display: OpaquePointer, signals: SignalFD, wakeup: WakeupFD) {
        self.options = options
        self.log = log
        self.display = display
        self.signals = signals
        self.wakeup = wakeup
        loop = EventLoop(display: display, wakeupFD: wakeup.fd, signalFD: signals.fd)
    }

    /// Runs WayLoop to the end and returns the exit status.
    static func run(options: Options, log: Logger) -> ExitStatus {
        // A video that cannot be played fails its outputs only; with none playable, stop here,
        // before connecting.
        var failed: [String: VideoError] = [:]
        for path in options.videos {
            if let e = Preflight.check(path) {
                log.scoped("video").error("\(e)")
                failed[path] = e
            }
        }
        if failed.count == options.videos.count { return .badVideo }
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
        // One wallpaper per display: a second instance must not stack another surface on top.
        let lock: InstanceLock
        switch InstanceLock.acquire() {
        case .success(let l): lock = l
        case .failure(let e):
            log.error("\(e)")
            return .alreadyRunning
        }
        defer { lock.release() }
        // Large blocks (decoded frames, buffers of outputs that come and go) always through
        // mmap, so freeing them returns the memory: glibc's moving threshold would otherwise
        // keep them in the heap after the first free, and RSS would creep up (measured).
        _ = glibcMallopt(mallocMmapThreshold, 128 * 1024)
        let app = App(options: options, log: log, display: display, signals: signals, wakeup: wakeup)
        app.failedVideos = failed
        let status = app.start() ?? app.mainLoop()
        app.teardown()
        return status
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
        registry.wantsToplevels = options.pauseOnFullscreen
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
        for path in options.videos where failedVideos[path] == nil {
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
        return nil
    }

    private func startVideo(_ path: String) -> Bool {
        guard let v = Video(path: path, queueFrames: options.queueFrames, wakeup: wakeup,
                            maxTextureSize: renderer?.maxTextureSize, log: log.scoped("video")) else {
            log.error("cannot start a decoder thread: \(Sys.errnoText())")
            return false
        }
        v.paused = userPaused
        videos[path] = v
        return true
    }

    /// Starts a decoder for every file an output shows, and stops (set, wake, join) the decoder
    /// of a file that no output shows any more (once it has been checked at start-up).
    private func syncVideos() {
        let needed = Set(outputs.keys.compactMap { outputSettings[$0]?.video })
        for path in needed where videos[path] == nil && failedVideos[path] == nil {
            if !startVideo(path) { exitStatus = .failure }
        }
        for (path, v) in videos where !needed.contains(path) && v.info != nil {
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
                userPaused.toggle()
                for v in videos.values { v.paused = userPaused }
                log.notice(userPaused ? "paused (SIGUSR1)" : "resumed (SIGUSR1)")
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

    /// A decoder reported: a video became ready (give its outputs surfaces) or failed.
    private func videosChanged() {
        for v in videos.values where v.pollStatus() {
            if let e = v.error {
                log.scoped("video").error("\(e)")
                failedVideos[v.path] = e
                for id in wallpapers.keys where outputSettings[id]?.video == v.path { wallpapers[id] = nil }
                v.stop()
                videos[v.path] = nil
            } else if let info = v.info {
                log.notice("playing '\(v.path)' (\(info))")
                for o in outputs.values where o.isDone { ensureWallpaper(o) }
            }
        }
        // Nothing can ever be shown: the error lines above said why.
        if Set(failedVideos.keys).isSuperset(of: options.videos) { exitStatus = .badVideo }
        syncVideos()
    }

    private func settings(for outputID: UInt32) -> OutputSettings? { outputSettings[outputID] }

    /// Creates the output's surface once its settings name a video that is ready.
    private func ensureWallpaper(_ o: Output) {
        guard wallpapers[o.globalName] == nil, let s = settings(for: o.globalName),
              videos[s.video]?.isReady == true,
              let registry, let compositor = registry.compositor, let shell = registry.layerShell, let egl else { return }
        guard let w = Wallpaper(outputID: o.globalName, compositor: compositor, layerShell: shell, output: o.proxy,
                                scale: o.info.scale, egl: egl, viewporter: registry.viewporter,
                                fractionalScale: registry.fractionalScale) else {
            log.error("\(o.displayName): cannot create a layer surface")
            return
        }
        w.delegate = self
        wallpapers[o.globalName] = w
        updatePause(o.globalName)
        log.notice("\(o.displayName) (\(o.info.modeSize), scale \(o.info.scale)): showing '\(s.video)' (\(s.mode.rawValue))")
    }

    /// Milliseconds until the next frame is due on an output that can take one; -1 = none.
    private func timeoutMs(now: Nanos) -> Int32 {
        var deadline: Nanos? = options.pauseOnBattery ? nextPowerCheck : nil
        // One wake-up to release a video nobody has seen for a while (none while released).
        for v in videos.values where !v.isReleased && v.isReady && isHidden(v) {
            let d = max(now, v.lastDrawn + releaseAfter)
            deadline = min(deadline ?? d, d)
        }
        for (id, w) in wallpapers where (w.isConfigured || w.needsRedraw) && w.pauseReason == nil {
            guard !w.awaitingFrame, let v = settings(for: id).flatMap({ videos[$0.video] }),
                  !v.paused || w.needsRedraw else { continue }
            if w.needsRedraw || (v.current != nil && w.shownSerial != v.serial) { return 0 }
            if let d = v.nextDeadline { deadline = min(deadline ?? d, d) }
        }
        guard let deadline else { return -1 }
        let ms = (deadline - now + 999_999) / 1_000_000
        return Int32(clamping: max(0, ms))
    }

    /// Advances each video whose outputs can take a frame, then draws every output whose frame
    /// changed or that was reconfigured. An output waiting for its frame callback is skipped.
    private func tick(now: Nanos) {
        guard let egl, let renderer, let compositor = registry?.compositor else { return }
        if options.pauseOnBattery && now >= nextPowerCheck {
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
            guard w.canTakeFrame, let s = settings(for: id), let v = videos[s.video], v.isReady else {
                continue
            }
            if v.isReleased && !v.paused {
                log.debug("'\(v.path)': wanted again: decoder restarted")
                v.restart()
            }
            _ = v.advance(now: now)  // once per tick, however many outputs show it
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

    private func outputName(_ id: UInt32) -> String { outputs[id]?.displayName ?? "output-\(id)" }

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
        wallpapers[name] = nil
        outputSettings[name] = nil
        outputs[name] = nil
        syncVideos()
    }
}

extension App: OutputDelegate {
    func outputDone(_ output: Output, changed: Bool, first: Bool) {
        let i = output.info
        let previous = outputSettings[output.globalName]
        outputSettings[output.globalName] = options.settings(forOutput: i.name, description: i.description)
        if !first && previous != outputSettings[output.globalName] {
            // The name arrived late (xdg-output) or the entry now matching differs: start over.
            log.debug("\(output.displayName): settings changed")
            wallpapers[output.globalName] = nil
            if exitStatus == nil && egl != nil { syncVideos() }
            ensureWallpaper(output)
        }
        if first {
            let what = settings(for: output.globalName).map { "'\($0.video)'" } ?? "nothing (no entry matches)"
            log.debug("\(output.displayName): \(i.modeSize) scale \(i.scale) (\(i.description)): for \(what)")
            if let s = settings(for: output.globalName), let e = failedVideos[s.video] {
                // The error line named the file already; this says which output it leaves bare.
                log.debug("\(output.displayName): no wallpaper: \(e)")
            }
            if exitStatus == nil && registry?.layerShell != nil && egl != nil { syncVideos() }
            ensureWallpaper(output)
        } else if changed {
            log.debug("\(output.displayName): now \(i.modeSize) scale \(i.scale)")
            wallpapers[output.globalName]?.setScale(i.scale)
        }
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
        if let v = settings(for: wallpaper.outputID).flatMap({ videos[$0.video] }) { v.firstFramePresented(at: now) }
    }
}

extension App: ToplevelsDelegate {
    func fullscreenOutputsChanged() {
        for id in wallpapers.keys { updatePause(id) }
    }

    /// Recomputes one output's pause reason; logs the change.
    fileprivate func updatePause(_ id: UInt32) {
        guard let w = wallpapers[id], let o = outputs[id] else { return }
        var reason: String?
        if let t = toplevels, t.hasFullscreen(on: o.proxy) { reason = "fullscreen" }
        if reason == nil && onBattery { reason = "battery" }
        guard reason != w.pauseReason else { return }
        w.pauseReason = reason
        log.notice("\(o.displayName): " + (reason.map { "paused (\($0))" } ?? "resumed"))
    }
}

/// glibc's mallopt(3) and M_MMAP_THRESHOLD (<malloc.h>, which the Glibc module does not export).
@_silgen_name("mallopt")
private func glibcMallopt(_ param: Int32, _ value: Int32) -> Int32
private let mallocMmapThreshold: Int32 = -3
