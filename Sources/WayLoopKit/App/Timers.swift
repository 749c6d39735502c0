// The loop's deadlines. Every deadline (frames,
// release-after, the power check, regrowing a loop cache, a still playlist video, a change on
// disk settling, idle control connections) is one entry of the timer list, which gives both
// the poll timeout and what to do when it comes. Main thread only.
import WayLoopCore

extension App {
    /// Registers every deadline once (App.init).
    func registerTimers() {
        // Each head's draw worked the next wake-up out from the schedule it drew by (every
        // pass ends with the draw): not built again here.
        timers.add("frames", due: { [unowned self] _ in heads.values.compactMap(\.nextWake).min() })
        timers.add("release-after", due: { [unowned self] now in
            // One wake-up to release a video nobody has seen for a while (none while released; no
            // snapshot unless a video is hidden).
            let hidden = videos.open.filter { Director.isHidden($0.path, among: heads.values) }
            guard !hidden.isEmpty else { return nil }
            return player.nextRelease(world(), now: now, after: releaseAfter)
        }, fire: { [unowned self] now in releaseUnseen(now: now) })
        timers.add("power", due: { [unowned self] _ in wantsPowerChecks ? nextPowerCheck : nil },
                   fire: { [unowned self] now in checkPower(now: now) })
        timers.add("file-changes", due: { [unowned self] now in videos.nextChangeDue.map { max(now, $0) } },
                   fire: { [unowned self] now in applyFileChanges(now: now) })
        timers.add("idle-connections", due: { [unowned self] now in control?.nextExpiry.map { max(now, $0) } },
                   fire: { [unowned self] now in control?.expireIdle(now: now) })
        // Only for clips someone can see: a paused output must not restart from frame 0.
        timers.add("regrow", due: { [unowned self] now in
            videos.open.filter { !Director.isHidden($0.path, among: heads.values) }.compactMap { $0.clip.regrowDeadline(now: now) }.min()
        }, fire: { [unowned self] now in
            for (path, v) in videos.open where !Director.isHidden(path, among: heads.values) { v.regrowIfDue(now: now) }
        })
        // A still picture wakes nothing: the end of its interval or passes does (the playlists'
        // clocks run every pass).
        timers.add("playlist-still", due: { [unowned self] now in
            playlists.stillDeadline(now: now) { videos.clip($0)?.isStill == true }
        })
        timers.add("fit", due: { [unowned self] _ in fitting.nextLook() },
                   fire: { [unowned self] now in lookAfterCopies(now: now) })
        timers.add("cold-pages", due: { [unowned self] _ in coldPages.due },
                   fire: { [unowned self] now in handBackColdPages(now: now) })
        timers.add("save-state", due: { [unowned self] _ in stateWriter == nil ? nil : saveClock.due },
                   fire: { [unowned self] _ in saveStateNow(final: false) })
    }

    /// Milliseconds until the loop must wake: the soonest timer, or at once when a reconcile waits.
    func timeoutMs(now: Nanos) -> Int32 {
        if needsReconcile { return 0 }
        return Schedule.timeoutMs(until: timers.soonest(now: now), now: now)
    }

    func fireTimers(now: Nanos) { timers.fire(now: now) }

    private var wantsPowerChecks: Bool { heads.values.contains { $0.drawn.map { $0.pauseOnBattery || $0.batteryFps > 0 } == true } }

    private func checkPower(now: Nanos) {
        nextPowerCheck = now + 5 * .nanosPerSecond
        let battery = PowerSupply.onBattery(PowerMonitor.read())
        if battery != onBattery {
            onBattery = battery
            let screen = screenFacts()
        for h in heads.values { updatePause(h, screen: screen) }
            needsReconcile = true  // --battery-fps: the caps change
        }
    }

    /// `--fit`: each open video's copy (Fitting), from the outputs that show it now.
    func lookAfterCopies(now: Nanos) {
        let videos = videos.open.map { (path, clip) in
            Fitting.Video(path: path, clip: clip, outputs: outputsShowing(path),
                          mode: FitMode.combined(heads.values.compactMap { h in
                              [h.drawn ?? h.target, h.fade?.from].compactMap { $0 }.first { $0.video == path }?.fit
                          }))
        }
        fitting.look(videos, quality: options.fitQuality, cacheMax: options.fitCacheMax, now: now)
    }

    /// `--release-after`: a video nobody could see for that long gives back its decoder and frames.
    private func releaseUnseen(now: Nanos) { player.releaseUnseen(world(), now: now, after: releaseAfter) }
}
