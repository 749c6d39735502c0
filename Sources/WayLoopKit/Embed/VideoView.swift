// A looping video in the host's own wl_surface: the UIKit-level form. The host owns the
// connection, the surface and its role (a layer surface, a toplevel, a subsurface), and its
// event loop; the library draws into the surface with either renderer, paced by frame
// callbacks on an event queue of its own, and is woken through one file descriptor.
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
    public private(set) var video: String
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
    public var recentVideos: [String] { recent.map(\.path) }

    private var player = PlayerStateMachine()
    private var settings: OutputSettings
    private var clip: Clip?
    /// A video switched to, shown once it has a frame (until then the old one plays on).
    private var incoming: Clip?
    /// Videos switched away from, kept ready (most recent last; at most `keepRecent`).
    private var recent: [Clip] = []
    /// Memory pressure from the kernel (PSI), or the tests' FIFO, looked at in each dispatch;
    /// when it was last acted on.
    private let pressure: PressureMonitor?
    private var lastPressure: Nanos = -PressurePlan.minInterval
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
        self.video = path
        settings = OutputSettings(video: path, mode: mode.single)
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
        surface.onFrame = { [unowned self] in wakeup.signal() }
        av_quiet()
        do { clip = try open(path) } catch { throw .video(error) }
        apply(.load)
        if !Size(width: width, height: height).isEmpty { resizeSink() }
    }

    deinit {
        clip?.stop()
        incoming?.stop()
        for c in recent { c.stop() }
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
            let now = Sys.now()
            if now - lastPressure >= PressurePlan.minInterval {
                lastPressure = now
                releaseMemory(source: p.source)
            }
        }
        pollClips()
        draw(now: Sys.now())
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
    }

    /// Draws again from where it paused.
    public func resume() {
        userPaused = false
        apply(.resume(.user))
        surface.invalidate()
        wakeup.signal()
    }

    /// Switches to `video` without a black frame: the old one plays until the new one has a
    /// frame. Throws at once when it cannot be opened; a failure while decoding its first frame
    /// keeps the old one (``lastError`` says why).
    public func switchTo(video: String) throws(VideoError) {
        let path = Wallpaper.find(video) ?? video
        // A switch under way is called off; one that was ready (a recent video) is kept again.
        if let n = incoming {
            if n.isReady && n.error == nil { recent.append(n); trimRecent() } else { n.stop() }
        }
        incoming = nil
        defer { wakeup.signal() }
        if path == self.video { return }
        // A recent one is ready: it shows at the next dispatch.
        if let i = recent.firstIndex(where: { $0.path == path }) {
            incoming = recent.remove(at: i)
            return
        }
        if let e = Preflight.check(path) { throw e }
        incoming = try open(path)
    }

    /// Gives back memory, as the seeds do on a memory warning (PressurePlan): the videos kept
    /// for a switch back go (a switch back opens them again), and the one on screen stops
    /// replaying its loop from memory (it decodes each pass again, from the next one, with no
    /// gap). The view does this itself when the kernel reports memory pressure (PSI, looked at in
    /// each ``dispatch()``, acted on at most once in 10 s); call it on a signal of your own too.
    public func releaseMemory() { releaseMemory(source: "the host") }

    private func releaseMemory(source: String) {
        // The clip on screen is never released here (it is seen, or about to be again).
        let clips = recent + [clip].compactMap { $0 }
        let plan = PressurePlan.actions(clips.map { c in
            PressurePlan.Clip(hidden: false, released: c.isReleased, replaying: c.isReplaying, recent: c !== clip, ready: c.isReady)
        })
        var dropped = 0, cacheMB = 0
        for (c, action) in zip(clips, plan) {
            switch action {
            case .forget, .release:
                c.stop()
                device.forget(clip: c.path)
                recent.removeAll { $0 === c }
                dropped += 1
            case .giveUpCache:
                cacheMB += c.cacheBytes >> 20
                c.giveUpLoopCache()
            case .keep: break
            }
        }
        _ = csys_malloc_trim()
        log.scoped("memory").notice("memory pressure (\(source)): dropped \(dropped) recent video(s), giving up the loop cache (\(cacheMB) MB) at the next loop")
    }

    // MARK: Inside

    private func open(_ path: String) throws(VideoError) -> Clip {
        guard let c = Clip(path: path, queueFrames: 4, cacheBudget: 64 << 20, wakeup: wakeup, limits: limits,
                           decoderThreads: type(of: device).decoderHints.threads,
                           outputs: [(surface.bufferSize, settings.mode)], log: log.scoped("video")) else {
            throw .unreadable(path, reason: "cannot start a decoder thread")
        }
        return c
    }

    /// The oldest recent videos beyond `keepRecent`, or beyond the budget a wallpaper's
    /// `--cache-mb` gives by default, stop and their pictures are forgotten: the wallpaper's
    /// rule (RecentVideos).
    private func trimRecent() {
        let held = Dictionary(recent.map { ($0.path, $0.heldBytes) }, uniquingKeysWith: +)
        let gone = Set(RecentVideos.overflow(recent.map(\.path), keep: keepRecent, budget: Self.recentBudget, heldBytes: { held[$0] ?? 0 }))
        for c in recent where gone.contains(c.path) {
            c.stop()
            device.forget(clip: c.path)
        }
        recent.removeAll { gone.contains($0.path) }
    }
    private static let recentBudget = Options().cacheMB << 20

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
        guard let new = player.apply(event) else { return }
        state = new
        onStateChange?(StateEvent(output: Self.eventOutput, state: new, video: video))
    }

    private func fail(_ e: VideoError) {
        lastError = e
        apply(.fail(e))
    }

    /// The decoders' news: a video ready or failed; an incoming one replaces the clip.
    private func pollClips() {
        if let c = clip, c.pollStatus() {
            if let e = c.error {
                log.error("\(e)")
                fail(e)
            } else if c.isReady {
                apply(.ready)
            }
        }
        guard let n = incoming, n.pollStatus() || n.isReady || n.error != nil else { return }
        if let e = n.error {
            log.error("\(e)")
            lastError = e
            n.stop()
            incoming = nil
        } else if n.isReady {
            if let old = clip { recent.append(old) }
            trimRecent()
            clip = n
            incoming = nil
            video = n.path
            settings.video = n.path
            surface.invalidate()
            apply(.load)
            apply(.ready)
        }
    }

    /// What the wallpaper's pure schedule needs to know of the view (the same Schedule a
    /// wallpaper's outputs are paced by); nil with no video ready.
    private func scheduleState(now: Nanos) -> Schedule.Output? {
        guard let c = clip, c.isReady else { return nil }
        let video = Schedule.Video(released: c.isReleased, hasFrame: c.current != nil, frameIsNew: c.serial != shownSerial,
                                   nextDue: c.nextDeadline)
        return Schedule.Output(configured: !surface.bufferSize.isEmpty, needsRedraw: surface.needsRedraw,
                               awaitingFrame: surface.frameRequestedAt != nil, frameRequestedAt: surface.frameRequestedAt ?? 0,
                               hidden: player.pauseReasons.contains(.hidden), paused: userPaused, sinkCanDraw: true,
                               content: .video(video))
    }

    /// The next frame, when the schedule says the surface is ready for one and something new
    /// is due; hidden once the compositor stopped asking for frames (Schedule.isHidden).
    private func draw(now: Nanos) {
        guard let state = scheduleState(now: now), let c = clip else { return }
        if Schedule.isHidden(awaitingFrame: state.awaitingFrame, requestedAt: state.frameRequestedAt, now: now) { apply(.pause(.hidden)) }
        if !state.awaitingFrame { apply(.resume(.hidden)) }
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

    /// Wakes the fd when the schedule says (Schedule.wake: the next frame's deadline, or the
    /// moment a pending frame callback would say the view is hidden); nothing when an event will.
    private func armTimer() {
        let now = Sys.now()
        var wait: Nanos = 0
        if let state = scheduleState(now: now), let due = Schedule.wake(state, now: now) {
            wait = max(1_000_000, due - now)
        }
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
