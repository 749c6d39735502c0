// A looping video in the host's own wl_surface: the UIKit-level form. The host owns the
// connection, the surface and its role (a layer surface, a toplevel, a subsurface), and its
// event loop; the library draws into the surface with either renderer, paced by frame
// callbacks on an event queue of its own, and is woken through one file descriptor. Its videos
// are the wallpaper's Player, and the view is one output to the same Director: the switch,
// keep-recent, the release of what is hidden and the pressure release are the wallpaper's own.
import CSystem
import CWayland
import Glibc
import WayLoopCore

/// A gapless looping video drawn into a `wl_surface` that your program made and owns.
///
/// Give it your `wl_display` and `wl_surface` (as C pointers), the surface's size in logical
/// pixels and its integer scale. Your event loop polls ``fileDescriptor`` beside your own
/// Wayland fd and calls ``dispatch()`` when it is readable and after each time you read the
/// display. The view needs no thread of its own: its decoder runs on one, and wakes the fd.
///
/// ```swift
/// let view = try VideoView(display: display, surface: surface, width: 1280, height: 720,
///                          video: "ocean")
/// // in your loop: poll([wl_display_get_fd(display), view.fileDescriptor]) …
/// view.dispatch()
/// ```
///
/// All of it from the thread that made it. Its proxies live on a `wl_event_queue` of its own,
/// so your dispatch never runs its listeners and its dispatch never runs yours. With the GL
/// renderer it makes its EGL context current only while it draws, then puts yours back.
public final class VideoView {
    /// What it shows now: loading, playing, paused (by ``pause()``, or hidden: the compositor
    /// stopped asking for frames) or failed.
    public private(set) var state: VideoPlayerState = .idle
    /// Called from ``dispatch()`` when ``state`` changes, with the same ``StateEvent`` as
    /// ``Wallpaper/onStateChange``: its `output` is ``VideoView/eventOutput``, its `video` the
    /// one it plays.
    public var onStateChange: ((StateEvent) -> Void)?
    /// The `output` of its ``StateEvent``s: a view belongs to no output of its own.
    public static let eventOutput = "view"
    /// The video it plays (resolved like ``Wallpaper/find(_:)``).
    public var video: String { drawn?.video ?? target.video }
    /// Why the last ``switchTo(video:)`` did not take, or why the video stopped (nil: none).
    public private(set) var lastError: VideoError?
    /// Which renderer draws: `gl` or `shm`, with the reason.
    public let rendererLine: String
    /// Frames committed to the surface so far.
    public var framesShown: Int { surface.framesShown }
    /// How many videos switched away from stay decoded ahead for a switch back, which then
    /// shows at once (0: none). With the one on screen, 2 makes the seeds' cache of three.
    /// Memory pressure empties it (``releaseMemory()``).
    public var keepRecent = 2 { didSet { trimRecent() } }
    /// The videos kept for a switch back, the most recent last.
    public var recentVideos: [String] { player.videos.recent }

    private var machine = PlayerStateMachine()
    /// The videos and their decoders (the wallpaper's Player).
    private let player: Player
    /// What the host asked for, and what is drawn: it lags `target` while a new video opens
    /// (the old one plays until the new one has a frame) and keeps the old one if it fails.
    private var target: OutputSettings
    private var drawn: OutputSettings?
    /// A video was ready once (the director stops what is not needed from then on).
    private var started = false
    private var needsReconcile = true
    /// Memory pressure from the kernel (PSI), or the tests' FIFO, looked at in each dispatch.
    private let pressure: PressureMonitor?
    private let wakeup: WakeupFD
    private let timer: Int32
    private let epoll: Int32
    private let limits = PictureLimits()
    private let log: Logger
    private var userPaused = false
    // Released in this order after deinit (Swift releases stored properties in declaration
    // order): what was made on the view's event queue goes before the queue itself.
    private let sink: Sink
    private let device: any RenderDevice
    private let surface: HostSurface
    private let connection: HostConnection

    /// Draws `video` into `surface` (a `wl_surface*` on `display`, a `wl_display*`), which is
    /// `width` x `height` logical pixels at integer `scale`. Throws when the video cannot be
    /// played or the connection lacks what the renderer needs.
    public init(display: OpaquePointer, surface host: OpaquePointer, width: Int, height: Int, scale: Int = 1,
                video: String, mode: ScaleMode = .fill, renderer: RendererRequest = .auto,
                logSink: Logger.Sink? = nil) throws(VideoViewError) {
        log = Logger(label: "view", level: .notice, sink: logSink ?? { Sys.writeStderr($0) })
        let path = Wallpaper.find(video) ?? video
        if let e = Preflight.check(path) { throw .video(e) }
        target = OutputSettings(video: path, mode: mode.single)
        target.transition = .none
        guard let c = HostConnection(display: display) else { throw .connection("cannot make an event queue on the display") }
        guard let w = WakeupFD() else { throw .connection("cannot make an eventfd: \(Sys.errnoText())") }
        let t = csys_timerfd_create(), e = csys_epoll_create()
        guard t >= 0, e >= 0 else { throw .connection("cannot make a timerfd or an epoll fd: \(Sys.errnoText())") }
        // The decoder's wakeup, the frame timer and the connection (the library's events may
        // be waiting in the socket while the host's loop sleeps).
        for fd in [w.fd, t, c.fd] where csys_epoll_add(e, fd) != 0 {
            throw .connection("cannot watch fd \(fd): \(Sys.errnoText())")
        }
        // Looked at in each dispatch, never added to the epoll fd: a PSI trigger's event is
        // consumed by the first poll that sees it, and the host's poll of the epoll fd would be
        // that poll.
        pressure = PressureMonitor.open(log: log.scoped("memory"))
        player = Player(wakeup: w, limits: limits, queueFrames: 4, cacheBudget: 64 << 20, log: log)
        connection = c
        wakeup = w
        timer = t
        epoll = e
        guard let s = HostSurface(host: host, queue: c.queue, size: Size(width: width, height: height), scale: scale) else {
            throw .connection("cannot wrap the surface")
        }
        self.surface = s
        let facts = RendererChoice.Environment(compositorHasDmabuf: c.hasDmabuf, hasRenderNode: Sys.hasRenderNode)
        let early = RendererChoice.beforeEGL(renderer, facts)
        let before = EGLCurrent.capture()
        do {
            let made = try RenderDevices.make(renderer, early: early, display: EGLWaylandDisplay(display), shm: c.shm.map(ShmGlobal.init),
                                              dmabuf: c.hasDmabuf, limits: limits, sharedWithHost: true)
            device = made.device
            rendererLine = made.line
        } catch {
            throw .connection("\(error)")
        }
        if let gl = device as? GLDevice { before.restore(releasing: gl.egl.display) }
        sink = device.makeSink()
        player.decoderThreads = type(of: device).decoderHints.threads
        player.forgetPictures = { [unowned self] in device.forget(clip: $0) }
        surface.onFrame = { [unowned self] in wakeup.signal() }
        av_quiet()
        reconcile()
        guard player.videos.clip(path) != nil else { throw .video(.unreadable(path, reason: "cannot start a decoder thread")) }
        if !Size(width: width, height: height).isEmpty { resizeSink() }
    }

    deinit {
        player.stopAll()
        device.releaseSurfaces()
        close(epoll)
        close(timer)
        connection.flush()
    }

    /// Poll it for reading beside your own fds; when it is readable, call ``dispatch()``.
    public var fileDescriptor: Int32 { epoll }

    /// Does what is due: the library's Wayland events, the decoder's news, the next frame when
    /// the compositor asked for one. Call it when ``fileDescriptor`` is readable and after your
    /// loop reads the Wayland display. It never blocks.
    public func dispatch() {
        if !connection.dispatchPending() {
            fail(.decodeFailed(video, reason: "the Wayland connection is gone"))
            return
        }
        wakeup.drain()
        _ = csys_timerfd_drain(timer)
        if let p = pressure, p.isReady {
            p.drain()
            player.releaseMemory(world(), now: Sys.now(), source: p.source)
        }
        pollClips()
        let now = Sys.now()
        player.releaseUnseen(world(), now: now, after: Self.releaseAfter)
        if needsReconcile { reconcile() }
        draw(now: now)
        armTimer()
        connection.flush()
    }

    /// The host resized its surface: `width` x `height` logical pixels at `scale`. The next
    /// frame fills it.
    public func resize(width: Int, height: Int, scale: Int = 1) {
        surface.resize(Size(width: width, height: height), scale: scale)
        resizeSink()
        wakeup.signal()
    }

    /// Stops drawing and holds the picture; the decoder stops once its queue is full.
    public func pause() {
        userPaused = true
        apply(.pause(.user))
        needsReconcile = true
    }

    /// Draws again from where it paused.
    public func resume() {
        userPaused = false
        apply(.resume(.user))
        surface.invalidate()
        needsReconcile = true
        wakeup.signal()
    }

    /// Switches to `video` without a black frame: the old one plays until the new one has a
    /// frame (at once for one of ``recentVideos``). Throws at once when it cannot be opened; a
    /// failure while decoding its first frame keeps the old one (``lastError`` says why).
    public func switchTo(video: String) throws(VideoError) {
        let path = Wallpaper.find(video) ?? video
        defer { wakeup.signal() }
        if path != drawn?.video, let e = Preflight.check(path) { throw e }
        // Tried afresh: a failure of before does not stand (the file may have changed).
        player.videos.setFailure(path, nil)
        target.video = path
        reconcile()
        if path != drawn?.video, player.videos.clip(path) == nil, !player.videos.failed(path) {
            throw .unreadable(path, reason: "cannot start a decoder thread")
        }
    }

    /// Gives back memory, as the seeds do on a memory warning (PressurePlan, the wallpaper's
    /// rule): the videos kept for a switch back go (a switch back opens them again), and the one
    /// on screen stops replaying its loop from memory (it decodes each pass again, from the next
    /// one, with no gap); hidden, it gives back its decoder until it is shown again. The view
    /// does this itself when the kernel reports memory pressure (PSI, looked at in each
    /// ``dispatch()``, acted on at most once in 10 s); call it on a signal of your own too.
    public func releaseMemory() { player.releaseMemory(world(), now: Sys.now(), source: "the host", always: true) }

    // MARK: Inside

    /// How long a hidden view keeps its decoder (the wallpaper's `--release-after` default).
    private static let releaseAfter = Nanos(Options().releaseAfter * 1e9)
    /// The recent videos' budget: the wallpaper's `--cache-mb` default.
    private static let recentBudget = Options().cacheMB << 20

    /// The view as the director sees an output.
    private var headView: HeadView {
        var v = HeadView(id: 0, target: target, drawn: drawn)
        let configured = !surface.bufferSize.isEmpty
        v.hasSurface = true
        v.sinkReady = configured
        v.configured = configured
        v.drawPaused = userPaused
        v.hidden = machine.pauseReasons.contains(.hidden)
        v.canTakeFrame = configured && !userPaused && !v.hidden
        v.presented = drawn?.video
        return v
    }

    private func world() -> World {
        World(heads: [headView], videos: player.videos.records.mapValues(VideoFacts.init(record:)), recent: player.videos.recent)
    }

    /// Decoders, the view, then decoders again (what the view let go), as the wallpaper's
    /// outputs are reconciled (Director).
    private func reconcile() {
        needsReconcile = false
        syncVideos()
        for effect in Director.reconcile(headView, world()) { run(effect) }
        syncVideos()
    }

    private func syncVideos() {
        let effects = Director.syncVideos(world(), playlistItems: [], started: started, keepRecent: keepRecent, cacheBudget: Self.recentBudget)
        let outputs = [(surface.bufferSize, target.mode)]
        _ = player.sync(effects, keepRecent: keepRecent, cacheMB: Self.recentBudget >> 20, spec: { _ in Player.Spec(outputs: outputs) })
    }

    /// One of the director's effects on the view. A view has no surface of its own to make or
    /// drop, no colour, no crossfade and no fullscreen or battery rules: those effects are the
    /// wallpaper's alone.
    private func run(_ effect: HeadEffect) {
        switch effect {
        case .event(let e): apply(e)
        case .setDrawn(let s):
            if s?.video != drawn?.video { surface.invalidate() }
            drawn = s
        case .switched:
            onStateChange?(StateEvent(output: Self.eventOutput, state: state, video: video))
        case .invalidate: surface.invalidate()
        case .markPlaying:
            if case .idle = state { apply(.load) } else if case .failed = state { apply(.load) }
            apply(.ready)
        case .dropSurface, .setSolid, .startFade, .cancelFade, .consumeTransition, .switchedToColour, .updatePause, .ensureSurface:
            break
        }
    }

    /// Keep-recent's bound changed: what is beyond it goes now.
    private func trimRecent() { reconcile() }

    /// The sink's buffers (or EGL window) for the surface's size now; a failure is one line.
    private func resizeSink() {
        do { try keepingHostEGL { () throws(SinkError) in try sink.resize(surface) } } catch {
            log.error("cannot make buffers of \(surface.bufferSize) for the surface: \(error)")
        }
    }

    /// Runs `body`, which may make the view's EGL context current, and makes the host's EGL
    /// state current again after.
    private func keepingHostEGL<E: Error>(_ body: () throws(E) -> Void) throws(E) {
        let before = EGLCurrent.capture()
        defer { if let gl = device as? GLDevice { before.restore(releasing: gl.egl.display) } }
        try body()
    }

    private func apply(_ event: PlayerEvent) {
        guard let new = machine.apply(event) else { return }
        state = new
        onStateChange?(StateEvent(output: Self.eventOutput, state: new, video: video))
    }

    private func fail(_ e: VideoError) {
        lastError = e
        apply(.fail(e))
    }

    /// The decoders' news: a video ready or failed. A failed switch keeps the old video (the
    /// target goes back to it); a failure of the video on screen stops the view.
    private func pollClips() {
        for news in player.poll() {
            needsReconcile = true
            switch news {
            case .ready:
                started = true
            case .failed(let path, let e):
                lastError = e
                if let d = drawn, d.video != path, path == target.video {
                    target.video = d.video
                } else if path == video {
                    fail(e)
                }
            }
        }
        if needsReconcile { reconcile() }
    }

    /// What the wallpaper's pure schedule needs to know of the view (the same Schedule a
    /// wallpaper's outputs are paced by); nil with no video ready.
    private func scheduleState(now: Nanos) -> Schedule.Output? {
        guard let c = drawnClip, c.isReady else { return nil }
        let video = Schedule.Video(released: c.isReleased, hasFrame: c.current != nil, frameIsNew: c.serial != shownSerial,
                                   nextDue: c.nextDeadline)
        return Schedule.Output(configured: !surface.bufferSize.isEmpty, needsRedraw: surface.needsRedraw,
                               awaitingFrame: surface.frameRequestedAt != nil, frameRequestedAt: surface.frameRequestedAt ?? 0,
                               hidden: machine.pauseReasons.contains(.hidden), paused: userPaused, sinkCanDraw: true,
                               content: .video(video))
    }

    /// The next frame, when the schedule says the surface is ready for one and something new
    /// is due; hidden once the compositor stopped asking for frames (Schedule.isHidden).
    private func draw(now: Nanos) {
        guard let state = scheduleState(now: now), let c = drawnClip, let settings = drawn else { return }
        let wasHidden = machine.pauseReasons.contains(.hidden)
        if Schedule.isHidden(awaitingFrame: state.awaitingFrame, requestedAt: state.frameRequestedAt, now: now) { apply(.pause(.hidden)) }
        if !state.awaitingFrame { apply(.resume(.hidden)) }
        if machine.pauseReasons.contains(.hidden) != wasHidden { needsReconcile = true }
        guard Schedule.mayDraw(state) else { return }
        let step = Schedule.videoStep(released: c.isReleased, paused: userPaused, hasFrame: c.current != nil)
        if step.restart { c.restart() }
        if step.advance { _ = c.advance(now: now) }
        guard let picture = c.picture,
              Schedule.worthCommit(needsRedraw: surface.needsRedraw, frameIsNew: c.serial != shownSerial, fadeStepDue: false) else { return }
        do {
            try keepingHostEGL { () throws(SinkError) in
                try sink.present(picture, settings: settings, on: surface, shared: false, fading: nil, note: nil)
            }
            surface.didDraw()
            shownSerial = c.serial
            c.lastDrawn = now
        } catch {
            if !error.isWaiting { log.error("\(error)") }
        }
    }
    private var shownSerial: UInt64 = 0
    /// The clip of the video drawn.
    private var drawnClip: Clip? { drawn.flatMap { player.videos.clip($0.video) } }

    /// Wakes the fd when the schedule says (Schedule.wake: the next frame's deadline, or the
    /// moment a pending frame callback would say the view is hidden); nothing when an event will.
    private func armTimer() {
        let now = Sys.now()
        var wait: Nanos = 0
        let due = [scheduleState(now: now).flatMap { Schedule.wake($0, now: now) },
                   player.nextRelease(world(), now: now, after: Self.releaseAfter)].compactMap { $0 }.min()
        if let due { wait = max(1_000_000, due - now) }
        _ = csys_timerfd_arm(timer, wait)
    }
}

/// Why a ``VideoView`` could not start.
public enum VideoViewError: Error, Sendable, CustomStringConvertible {
    /// The video cannot be played: not found, not a video, no decoder.
    case video(VideoError)
    /// The display or surface cannot take it: no event queue, no wl_shm, EGL refused.
    case connection(String)

    /// One line saying why.
    public var description: String {
        switch self {
        case .video(let e): return "\(e)"
        case .connection(let why): return why
        }
    }
}
