// The app's control side: state machines and their events, `wayloop ctl` requests, runtime
// switches, config reloads and hand-overs. Main thread only (called from the event loop).
import Glibc
import WayLoopCore

extension ControlError {
    /// Videos that cannot be played, one reason after another.
    static func video(_ errors: [VideoError], _ suffix: String = "") -> ControlError {
        .video(errors.map(\.description).joined(separator: "; ") + suffix)
    }
}

extension App {
    // MARK: States

    /// Feeds an output's state machine; logs and publishes a transition.
    func apply(_ h: Head, _ event: PlayerEvent) {
        let old = h.player.state
        guard let new = h.player.apply(event) else { return }
        log.debug("\(h.name): \(old) → \(new)")
        // Paused mid-fade: the new picture alone (a still mix would stay), the old video let go.
        if h.drawPaused && h.fade != nil {
            h.fade = nil
            h.surface?.invalidate()
            needsReconcile = true
        }
        control?.publish(stateEvent(h).json)
    }

    /// The output draws its video: from idle or failed through loading to playing (or paused).
    func markPlaying(_ h: Head) {
        switch h.player.state {
        case .idle, .failed: apply(h, .load)
        default: break
        }
        apply(h, .ready)
    }

    func publishVideoChange(_ h: Head) {
        control?.publish(stateEvent(h).json)
    }

    func stateEvent(_ h: Head) -> StateEvent {
        StateEvent(output: h.name, state: h.player.state, video: h.drawn?.video ?? h.target?.video, playlist: playlistStatus(h))
    }

    func setUserPause(_ h: Head, _ paused: Bool) {
        apply(h, paused ? .pause(.user) : .resume(.user))
        if !paused { h.surface?.invalidate() }
    }

    // MARK: Configuration

    /// The entries in force: config file, command line, then `ctl set`.
    func recomputeTargets() {
        options.entries = configEntries + commandLine.entries + overrides.entries
        options.pauseOnFullscreen = commandLine.pauseOnFullscreen
        options.pauseOnBattery = commandLine.pauseOnBattery
        for h in heads.values where h.output.isDone {
            h.target = targetSettings(h.output)
        }
        assignSpans()
        pruneRuns()
    }

    /// Checks the files (one error line each) and forgets old failures, so that a file fixed
    /// since is tried again. Returns the files that failed now.
    func recheck(_ paths: [String], fallbacks: Set<String> = []) -> [VideoError] {
        var errors: [VideoError] = []
        for p in paths where videos.clip(p) == nil {
            videos.setFailure(p, nil)
            // A fallback is one video (what shows when the rest cannot): never a playlist.
            if let e = fallbacks.contains(p) ? Preflight.check(p) : PlaylistSource.preflight(p, table: &videos, log: log) {
                log.scoped("video").error("\(e)")
                videos.setFailure(p, e)
                errors.append(e)
            }
        }
        return errors
    }

    /// Reads the config file again (SIGHUP, `ctl reload`, a hand-over). A bad file changes
    /// nothing; a good one replaces the config layer and drops `ctl set` overrides.
    @discardableResult
    func reload(replyTo client: Int?, success: JSON = .object([("ok", .bool(true))])) -> Bool {
        let entries: [OutputEntry]
        switch Launch.loadConfig(commandLine) {
        case .failure(let e):
            log.scoped("config").error("\(e); keeping what plays")
            if let client { control?.reply(to: client, ControlError.config("\(e)").reply) }
            return false
        case .success(let c): entries = Launch.withDefaultLoop(c, commandLine: commandLine.entries, log: log)
        }
        let all = entries + commandLine.entries
        guard all.contains(where: { $0.video != nil }) else {
            let e = ControlError.config("\(UsageError.noVideo); keeping what plays")
            log.scoped("config").error("\(e)")
            if let client { control?.reply(to: client, e.reply) }
            return false
        }
        var probe = options
        probe.entries = all
        // A file that cannot be opened rejects the whole change: what plays is kept.
        let errors = recheck(probe.allVideos, fallbacks: Set(probe.allVideos).subtracting(probe.videos))
        if !errors.isEmpty {
            let e = ControlError.video(errors, "; keeping what plays")
            log.notice("configuration not applied: a video cannot be opened; keeping what plays")
            if let client { control?.reply(to: client, e.reply) }
            return false
        }
        let renderer = commandLine.rendererRequest(config: entries)
        if renderer != commandLine.rendererRequest(config: configEntries) {
            log.notice("renderer = \(renderer.rawValue) takes effect at the next start")
        }
        configEntries = entries
        overrides.removeAll()
        recomputeTargets()
        needsReconcile = true
        log.debug("configuration applied: \(options.entries.count) entr\(options.entries.count == 1 ? "y" : "ies")")
        if let client {
            // What the outputs now need and is not ready yet (a video for an output that is not
            // connected is never opened, so it is not waited for).
            let items = playlistItems
            let waiting = Director.needed(world()).filter { videos.clip($0)?.isReady != true && !items.contains($0) }
            pending.append(PendingReply(client: client, waiting: waiting, playlists: playlists.sources,
                                        success: success))
        }
        return true
    }

    /// Answers the held requests that the director says can be answered. A `ctl set` whose
    /// video failed takes its override back (the old video plays on, from the next reconcile).
    func resolvePending() {
        guard !pending.isEmpty else { return }
        let w = world()
        var undone = false
        pending = pending.filter { p in
            switch Director.outcome(p, w, playlistError: playlistError) {
            case .wait:
                return true
            case .failed(let errors):
                if let tag = p.undoTag {
                    overrides.remove(tag: tag)
                    undone = true
                }
                control?.reply(to: p.client, ControlError.video(errors).reply)
            case .superseded:
                control?.reply(to: p.client, ControlError.busy("superseded by a later change before it was shown").reply)
            case .succeeded:
                control?.reply(to: p.client, p.success)
            }
            return false
        }
        if undone {
            recomputeTargets()
            needsReconcile = true
        }
        if pending.isEmpty { forgetWhatNothingNeeds() }
    }

    /// Bounds what run-time requests leave behind (thousands of `ctl set`s must leave memory
    /// flat), once no reply is outstanding (a
    /// failed switch removes its own override, so overrides are only compacted when none can):
    /// overrides that later ones shadow entirely, and failures of files nothing names any more.
    func forgetWhatNothingNeeds() {
        if overrides.compact() { options.entries = configEntries + commandLine.entries + overrides.entries }
        videos.forget(failuresExcept: Set(options.allVideos).union(playlistItems))
    }

}
