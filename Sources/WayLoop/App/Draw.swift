// The draw pass and the poll timeout, both from the pure Schedule (WayLoopCore): an output
// draws only when its frame callback fired and a new frame is due (or it was reconfigured),
// and the loop wakes exactly when that can happen. Main thread only.
import WayLoopCore

extension App {
    /// What the schedule needs to know about one head (nil: no surface).
    private func scheduleState(_ h: Head, now: Nanos) -> Schedule.Output? {
        guard let s = h.surface, let sink = h.sink else { return nil }
        var content = Schedule.Content.nothing
        var picture: Picture?
        if h.solid != nil {
            content = .colour
        } else if let d = h.drawn, let v = videos[d.video], v.isReady {
            picture = v.picture
            // A fade's next step is due like a new frame.
            let canFade = h.fade.map { v.current != nil && videos[$0.from.video]?.current != nil } ?? false
            let step: Nanos? = canFade ? h.lastFadeDraw + Transition.fadeStep : nil
            content = .video(Schedule.Video(released: v.isReleased, hasFrame: v.current != nil,
                                            frameIsNew: s.shownSerial != v.serial || step.map { now >= $0 } == true,
                                            nextDue: [v.nextDeadline, step].compactMap { $0 }.min()))
        }
        return Schedule.Output(configured: s.isConfigured, needsRedraw: s.needsRedraw, awaitingFrame: s.awaitingFrame,
                               frameRequestedAt: s.frameRequestedAt, hidden: h.player.pauseReasons.contains(.hidden),
                               paused: h.drawPaused, sinkCanDraw: sink.canDraw(picture, settings: h.solid == nil ? h.drawn : nil, on: s),
                               content: content)
    }

    /// Milliseconds until the loop must wake: the soonest output, release or power check.
    func timeoutMs(now: Nanos) -> Int32 {
        var deadline: Nanos? = wantsPowerChecks ? nextPowerCheck : nil
        func soonest(_ d: Nanos?) { if let d { deadline = min(deadline ?? d, d) } }
        // One wake-up to release a video nobody has seen for a while (none while released).
        for v in videos.values where mayRelease(v) {
            soonest(max(now, v.lastDrawn + releaseAfter))
        }
        for h in heads.values { soonest(scheduleState(h, now: now).flatMap { Schedule.wake($0, now: now) }) }
        for due in changed.values { soonest(max(now, due)) }
        soonest(playlistDeadline(now: now))
        soonest(control?.nextExpiry.map { max(now, $0) })
        for v in videos.values where !isHidden(v) { soonest(v.regrowDeadline(now: now)) }
        if needsReconcile { return 0 }
        return Schedule.timeoutMs(until: deadline, now: now)
    }

    private var wantsPowerChecks: Bool { heads.values.contains { $0.drawn?.pauseOnBattery == true } }

    /// Advances each video whose outputs can take a frame, then draws every output whose frame
    /// changed or that was reconfigured. An output waiting for its frame callback is skipped.
    func tick(now: Nanos) {
        if wantsPowerChecks && now >= nextPowerCheck {
            nextPowerCheck = now + 5 * .nanosPerSecond
            let battery = PowerSupply.onBattery(PowerMonitor.read())
            if battery != onBattery {
                onBattery = battery
                for h in heads.values { updatePause(h) }
            }
        }
        for v in videos.values where mayRelease(v) && now - v.lastDrawn >= releaseAfter {
            v.release()
            log.debug("'\(v.path)': nothing presented for \(options.releaseAfter) s: decoder and frames released")
        }
        applyFileChanges(now: now)
        control?.expireIdle(now: now)
        // Only for clips someone can see: a paused output must not restart from frame 0.
        for v in videos.values where !isHidden(v) { v.regrowIfDue(now: now) }
        for h in heads.values { draw(h, now: now) }
        // A reply waits for the new video's first frame on screen (it is, now, or an output
        // stopped being presented and is not waited for any more).
        if !pending.isEmpty { resolvePending() }
        device?.trim(before: now - 2 * .nanosPerSecond)
    }

    private func draw(_ h: Head, now: Nanos) {
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
            guard let settings = h.drawn, let v = videos[settings.video], v.isReady else { return }
            if v.isReleased && (!h.drawPaused || v.current == nil) {
                log.debug("'\(v.path)': wanted again: decoder restarted")
                v.restart()
            }
            if !h.drawPaused || v.current == nil { _ = v.advance(now: now) }  // once per tick, however many outputs show it
            let fading = fadeLayer(h, now: now)
            let stepDue = fading != nil && now >= h.lastFadeDraw + Transition.fadeStep
            guard let frame = v.current, let picture = v.picture, s.needsRedraw || s.shownSerial != v.serial || stepDue else { return }
            let shared = fading == nil && sharesPicture(v, size: s.bufferSize)
            try sink.present(picture, settings: settings, on: s, shared: shared, fading: fading) {
                trace?.committing(output: h.id, name: h.name, surface: s.surface, frame: frame, at: now)
            }
            s.didDraw(serial: v.serial)
            v.lastDrawn = now
            if fading != nil { h.lastFadeDraw = now }
            h.presentedVideo = settings.video
        } catch {
            guard !error.isWaiting else { return }
            // Not a passing state (out of memory, a conversion libswscale refuses): drop the
            // surface rather than retry every pass; the next change of settings makes it again.
            log.error("\(h.name): \(error); its surface is removed until its settings change")
            h.dropSurface()
        }
    }

    /// The picture fading out under `h`'s new video, and the new one's weight now; nil once the
    /// fade is over (or cannot go on: the old video is gone, or the output paused), which ends it.
    private func fadeLayer(_ h: Head, now: Nanos) -> FadeLayer? {
        guard let f = h.fade else { return nil }
        let start = f.start ?? now
        let weight = Transition.weight(elapsed: Double(now - start) / 1e9, duration: f.seconds)
        guard weight < 1, !h.drawPaused, let old = videos[f.from.video], old.isReady, !old.isReleased else {
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

    /// `--release-after` applies: open, decoding, nobody can take its frames, and not kept for a
    /// switch back (`--keep-recent`).
    private func mayRelease(_ v: Clip) -> Bool {
        !v.isReleased && v.isReady && isHidden(v) && !recent.contains(v.path) && !preloads.contains(v.path)
    }

    /// Some output shows `v` now: it draws it and is neither covered by a fullscreen window nor
    /// unpresented (a frame callback outstanding, or a user pause, does not hide a picture).
    func isSeen(_ v: Clip) -> Bool {
        heads.values.contains { h in
            h.surface != nil && h.shows(v.path)
                && !h.player.pauseReasons.contains(.hidden) && !h.player.pauseReasons.contains(.fullscreen)
        }
    }

    /// No output showing `v` can take a frame: all hidden, covered or paused for a reason.
    func isHidden(_ v: Clip) -> Bool {
        !heads.values.contains { $0.canTakeFrame && $0.shows(v.path) }
    }
}
