// The draw pass and the loop's deadlines. An output draws only when its frame callback fired
// and a new frame is due (or it was reconfigured), by the pure Schedule; every deadline (frames,
// release-after, the power check, regrowing a loop cache, a still playlist video, a change on
// disk settling, idle control connections) is one entry of the timer list, which gives both
// the poll timeout and what to do when it comes. Main thread only.
import WayLoopCore

extension App {
    /// Registers every deadline once (App.init).
    func registerTimers() {
        timers.add("frames", due: { [unowned self] now in
            heads.values.compactMap { scheduleState($0, now: now).flatMap { Schedule.wake($0, now: now) } }.min()
        })
        timers.add("release-after", due: { [unowned self] now in
            // One wake-up to release a video nobody has seen for a while (none while released).
            let w = world()
            return videos.open.filter { Director.mayRelease($0.path, w) }.map { max(now, $0.clip.lastDrawn + releaseAfter) }.min()
        }, fire: { [unowned self] now in releaseUnseen(now: now) })
        timers.add("power", due: { [unowned self] _ in wantsPowerChecks ? nextPowerCheck : nil },
                   fire: { [unowned self] now in checkPower(now: now) })
        timers.add("file-changes", due: { [unowned self] now in videos.nextChangeDue.map { max(now, $0) } },
                   fire: { [unowned self] now in applyFileChanges(now: now) })
        timers.add("idle-connections", due: { [unowned self] now in control?.nextExpiry.map { max(now, $0) } },
                   fire: { [unowned self] now in control?.expireIdle(now: now) })
        // Only for clips someone can see: a paused output must not restart from frame 0.
        timers.add("regrow", due: { [unowned self] now in
            let w = world()
            return videos.open.filter { !Director.isHidden($0.path, w) }.compactMap { $0.clip.regrowDeadline(now: now) }.min()
        }, fire: { [unowned self] now in
            let w = world()
            for (path, v) in videos.open where !Director.isHidden(path, w) { v.regrowIfDue(now: now) }
        })
        // A still picture wakes nothing: the end of its interval or passes does (the playlists'
        // clocks run every pass).
        timers.add("playlist-still", due: { [unowned self] now in
            playlists.values.compactMap { run in
                run.playlist.current.flatMap { videos.clip($0)?.isStill == true ? run.stillDeadline(now: now) : nil }
            }.min()
        })
    }

    /// Milliseconds until the loop must wake: the soonest timer, or at once when a reconcile waits.
    func timeoutMs(now: Nanos) -> Int32 {
        if needsReconcile { return 0 }
        return Schedule.timeoutMs(until: timers.soonest(now: now), now: now)
    }

    func fireTimers(now: Nanos) { timers.fire(now: now) }

    private var wantsPowerChecks: Bool { heads.values.contains { $0.drawn?.pauseOnBattery == true } }

    private func checkPower(now: Nanos) {
        nextPowerCheck = now + 5 * .nanosPerSecond
        let battery = PowerSupply.onBattery(PowerMonitor.read())
        if battery != onBattery {
            onBattery = battery
            for h in heads.values { updatePause(h) }
        }
    }

    /// `--release-after`: a video nobody could see for that long gives back its decoder and frames.
    private func releaseUnseen(now: Nanos) {
        let w = world()
        for (path, v) in videos.open where Director.mayRelease(path, w) && now - v.lastDrawn >= releaseAfter {
            v.release()
            log.debug("'\(path)': nothing presented for \(options.releaseAfter) s: decoder and frames released")
        }
    }

    /// What the schedule needs to know about one head (nil: no surface).
    private func scheduleState(_ h: Head, now: Nanos) -> Schedule.Output? {
        guard let s = h.surface, let sink = h.sink else { return nil }
        var content = Schedule.Content.nothing
        var picture: Picture?
        if h.solid != nil {
            content = .colour
        } else if let d = h.drawn, let v = videos.clip(d.video), v.isReady {
            picture = v.picture
            content = .video(Schedule.Video(released: v.isReleased, hasFrame: v.current != nil,
                                            frameIsNew: s.shownSerial != v.serial || fadeStepDue(h, now: now),
                                            nextDue: [v.nextDeadline, fadeStep(h)].compactMap { $0 }.min()))
        }
        return Schedule.Output(configured: s.isConfigured, needsRedraw: s.needsRedraw, awaitingFrame: s.awaitingFrame,
                               frameRequestedAt: s.frameRequestedAt, hidden: h.player.pauseReasons.contains(.hidden),
                               paused: h.drawPaused, sinkCanDraw: sink.canDraw(picture, settings: h.solid == nil ? h.drawn : nil, on: s),
                               content: content)
    }

    /// When a fade's next step is due, like a new frame (nil: no fade that can draw).
    private func fadeStep(_ h: Head) -> Nanos? {
        guard let f = h.fade, let d = h.drawn, videos.clip(d.video)?.current != nil, videos.clip(f.from.video)?.current != nil else {
            return nil
        }
        return h.lastFadeDraw + Transition.fadeStep
    }

    private func fadeStepDue(_ h: Head, now: Nanos) -> Bool { fadeStep(h).map { now >= $0 } == true }

    /// Applies a configure, notices an output that stopped being presented, and draws when
    /// the schedule says so: the video's next frame (advanced once per pass, however many
    /// outputs show it), a fade's step, or the fallback colour.
    func draw(_ h: Head, now: Nanos) {
        guard let s = h.surface, let sink = h.sink else { return }
        if s.applyConfigure() {
            do { try sink.resize(s) } catch {
                log.error("\(h.name): \(error)")
                h.dropSurface()
                return
            }
            s.sinkReady = true
            // A new size may need frames decoded at another scale.
            needsReconcile = true
        }
        if s.awaitingFrame && now - s.frameRequestedAt >= Schedule.hiddenAfter { apply(h, .pause(.hidden)) }
        guard let state = scheduleState(h, now: now), Schedule.mayDraw(state) else { return }
        do {
            if let colour = h.solid {
                guard s.needsRedraw else { return }
                try sink.present(colour: colour, on: s)
                s.didDraw(serial: 0)
                return
            }
            try drawVideo(h, on: s, sink: sink, now: now)
        } catch {
            guard !error.isWaiting else { return }
            // Not a passing state (out of memory, a conversion libswscale refuses): drop the
            // surface rather than retry every pass; the next change of settings makes it again.
            log.error("\(h.name): \(error); its surface is removed until its settings change")
            h.dropSurface()
        }
    }

    private func drawVideo(_ h: Head, on s: LayerSurface, sink: Sink, now: Nanos) throws(SinkError) {
        guard let settings = h.drawn, let v = videos.clip(settings.video), v.isReady else { return }
        if v.isReleased && (!h.drawPaused || v.current == nil) {
            log.debug("'\(settings.video)': wanted again: decoder restarted")
            v.restart()
        }
        if !h.drawPaused || v.current == nil { _ = v.advance(now: now) }  // once per pass, however many outputs show it
        let fading = fadeLayer(h, now: now)
        let stepDue = fading != nil && now >= h.lastFadeDraw + Transition.fadeStep
        guard let frame = v.current, let picture = v.picture, s.needsRedraw || s.shownSerial != v.serial || stepDue else { return }
        let shared = fading == nil && sharesPicture(v, size: s.bufferSize)
        try sink.present(picture, settings: settings, on: s, shared: shared, fading: fading) {
            trace?.committing(output: h.id, name: h.name, surface: s.wlSurface, frame: frame, at: now)
        }
        s.didDraw(serial: v.serial)
        v.lastDrawn = now
        if fading != nil { h.lastFadeDraw = now }
        h.presentedVideo = settings.video
    }

    /// The picture fading out under `h`'s new video, and the new one's weight now; nil once the
    /// fade is over (or cannot go on: the old video is gone, or the output paused), which ends it.
    private func fadeLayer(_ h: Head, now: Nanos) -> FadeLayer? {
        guard let f = h.fade else { return nil }
        let start = f.start ?? now
        let weight = Transition.weight(elapsed: Double(now - start) / 1e9, duration: f.seconds)
        guard weight < 1, !h.drawPaused, let old = videos.clip(f.from.video), old.isReady, !old.isReleased else {
            h.fade = nil
            // The new picture alone, at once (the last step was still a mix).
            h.surface?.invalidate()
            // The old video may be kept for a switch back, or stopped.
            needsReconcile = true
            return nil
        }
        _ = old.advance(now: now)
        guard let picture = old.picture else { return nil }
        if f.start == nil { h.fade?.start = now }
        return FadeLayer(picture: picture, settings: f.from, weight: weight)
    }

    /// Two or more outputs show `v` on buffers of a size the device can convert once for all
    /// (GL: the video's display size; the shm sink shares by its own key, whatever the size).
    private func sharesPicture(_ v: Clip, size: Size) -> Bool {
        guard device?.sharesConversion(clip: v.path, size: size) == true else { return false }
        return heads.values.filter { $0.surface?.bufferSize == size && $0.drawn?.video == v.path }.count >= 2
    }
}
