// One player: the videos a program plays, whatever shows them, and what is decided about them.
// One Clip per file (its decoder thread), opened and stopped as the director says (the switch's
// new video, the old one kept ready for a switch back within --keep-recent and the budget), the
// decoders' news, the release under memory pressure and the release of what nobody has seen.
// The wallpaper (App) plays one for all its outputs; a VideoView plays one in a host's surface.
// Both decide by the same director from a World of their own, and carry the decisions out here:
// a fix reaches both. Main thread only.
import CSystem
import WayLoopCore

final class Player {
    /// One record per video file: its decoder while it runs, its failure, whether it is kept
    /// for a switch back, a change on disk waiting to settle, whether it names a playlist.
    var videos: VideoTable<Clip>
    let wakeup: WakeupFD
    /// The render device's limits as the decoders read them (they start before it is up).
    let limits: PictureLimits
    private let log: Logger
    /// Decoded frames queued per video, the loop cache's budget per video, and libavcodec's
    /// frame threads per decoder (the device's hint).
    var queueFrames: Int
    var cacheBudget: Int
    var decoderThreads = 2
    /// Gives back what the render device keeps of a clip that stops (its textures, its buffers).
    var forgetPictures: (String) -> Void = { _ in }
    /// When memory pressure was last acted on (at most once per PressurePlan.minInterval).
    private var lastPressure: Nanos = -PressurePlan.minInterval

    init(videos: VideoTable<Clip> = VideoTable(), wakeup: WakeupFD, limits: PictureLimits, queueFrames: Int, cacheBudget: Int, log: Logger) {
        self.videos = videos
        self.wakeup = wakeup
        self.limits = limits
        self.queueFrames = queueFrames
        self.cacheBudget = cacheBudget
        self.log = log
    }

    /// How a video is decoded, and what the outputs showing it need (Clip's `outputs`).
    struct Spec {
        var hwdec: HwdecMode = .no
        var hwdecDevice: String?
        var outputs: [(size: Size, mode: ScaleMode)] = []
    }

    /// Starts `path`'s decoder; false when no thread could be had (one error line).
    @discardableResult
    func open(_ path: String, _ spec: Spec) -> Bool {
        guard let v = Clip(path: path, queueFrames: queueFrames, cacheBudget: cacheBudget, wakeup: wakeup, limits: limits,
                           decoderThreads: decoderThreads, hwdec: spec.hwdec, hwdecDevice: spec.hwdecDevice, outputs: spec.outputs,
                           log: log.scoped("video")) else {
            log.error("cannot start a decoder thread: \(Sys.errnoText())")
            return false
        }
        videos.setClip(path, v)
        return true
    }

    /// Stops a decoder (set, wake, join) and frees what the renderer kept of it.
    func stop(_ path: String) {
        guard let v = videos.clip(path) else { return }
        forgetPictures(path)
        v.stop()
        videos.setClip(path, nil)
        // Hand the pages its frames and decoder left free back to the system. Its chunks below
        // the mmap threshold (chroma planes, small videos' frames, packets, codec tables) were
        // freed inside glibc's heaps, where later allocations pinned the heaps' tops: private
        // RSS crept up by ~3 MB over a few minutes of switching, and flat with this (the month
        // soak, docs/performance.md). Once per stopped video, on the main thread, off the frame path.
        let started = Sys.now()
        _ = csys_malloc_trim()
        log.debug("'\(path)': freed memory handed back in \((Sys.now() - started) / 1000) µs")
    }

    /// Starts and stops decoders as the director says (Director.syncVideos), a playlist's
    /// video checked first. False when a decoder thread could not be had.
    func sync(_ effects: [VideoEffect], keepRecent: Int, cacheMB: Int, spec: (String) -> Spec) -> Bool {
        var ok = true
        for effect in effects {
            switch effect {
            case .open(let path, let check):
                // A FIFO or a device would block its decoder (and joining it, the main thread).
                if check {
                    videos[path].checked = true
                    if let e = Preflight.check(path) {
                        log.scoped("video").error("\(e) (in a playlist; skipped)")
                        videos.setFailure(path, e)
                        continue
                    }
                }
                if !open(path, spec(path)) { ok = false }
            case .wantedAgain(let path):
                videos.clip(path)?.lastDrawn = Sys.now()
                videos.unkeep(path)
            case .keep(let path):
                videos.keep(path)
                log.debug("'\(path)': no output shows it: kept ready for a switch back (--keep-recent)")
            case .stop(let path, let overBudget):
                log.debug(overBudget ? "'\(path)': dropped from the recent videos (--keep-recent \(keepRecent), --cache-mb \(cacheMB))"
                    : "'\(path)': no output shows it: decoder stopped")
                stop(path)
            }
        }
        return ok
    }

    /// What a decoder reported since the last look.
    enum News {
        /// It failed: its error was logged, its failure recorded and its decoder stopped.
        case failed(String, VideoError)
        /// Its first frame is decoded.
        case ready(String, VideoInfo)
    }

    /// The decoders' news: a failure is recorded (and the decoder stopped) here.
    func poll() -> [News] {
        var news: [News] = []
        for (path, v) in videos.open where v.pollStatus() {
            if let e = v.error {
                log.scoped("video").error("\(e)")
                videos.setFailure(path, e)
                stop(path)
                news.append(.failed(path, e))
            } else if let info = v.info {
                news.append(.ready(path, info))
            }
        }
        return news
    }

    /// The kernel (or a test, or a host) says memory is short: give back what the director
    /// says for `w` (recent videos go, unseen ones are released, loop caches given up), then
    /// `trim` (the device's spares) and the heap, and say so in one line. At most once per
    /// PressurePlan.minInterval (`always`: a host's own call): false when it was too soon.
    @discardableResult
    func releaseMemory(_ w: World, now: Nanos, source: String, always: Bool = false, trim: () -> Void = {}) -> Bool {
        guard always || now - lastPressure >= PressurePlan.minInterval else { return false }
        lastPressure = now
        let before = Sys.privateRSSKB()
        let open = videos.open
        var released = 0, caches = 0, cacheMB = 0, forgotten = 0
        for ((path, v), action) in zip(open, Director.pressure(open.map(\.path), w)) {
            switch action {
            case .forget:
                stop(path)
                forgotten += 1
            case .release:
                v.release()
                released += 1
            case .giveUpCache:
                cacheMB += v.cacheBytes >> 20
                v.giveUpLoopCache()
                caches += 1
            case .keep: break
            }
        }
        trim()
        _ = csys_malloc_trim()
        let after = Sys.privateRSSKB()
        log.scoped("memory").notice("memory pressure (\(source)): dropped \(forgotten) recent video(s), released \(released) video(s) nobody sees, "
            + "giving up \(caches) loop cache(s) (\(cacheMB) MB) at their next loop; private RSS \(before >> 10) → \(after >> 10) MB so far")
        return true
    }

    /// `--release-after`: a video nobody could see for `after` gives back its decoder and frames.
    func releaseUnseen(_ w: World, now: Nanos, after: Nanos) {
        for (path, v) in videos.open where Director.mayRelease(path, w) && now - v.lastDrawn >= after {
            v.release()
            log.debug("'\(path)': nothing presented for \(Double(after) / 1e9) s: decoder and frames released")
        }
    }

    /// When the next unseen video is due to be released (nil: none), for the loop's timer.
    func nextRelease(_ w: World, now: Nanos, after: Nanos) -> Nanos? {
        videos.open.filter { Director.mayRelease($0.path, w) }.map { max(now, $0.clip.lastDrawn + after) }.min()
    }

    /// Every decoder stops (the player ends).
    func stopAll() { for (path, _) in videos.open { stop(path) } }
}
