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

    /// The heads of connected outputs, by name.
    var connectedHeads: [Head] { heads.values.filter(\.output.isDone).sorted { $0.name < $1.name } }

    var statuses: [OutputStatus] {
        connectedHeads.map { h in
            let active = h.drawn, target = h.target
            let v = active.flatMap { videos.clip($0.video) }
            var position: Double?
            if let c = v?.current, let fps = v?.info?.frameRate, fps > 0 { position = Double(c.index) / fps }
            var showing: String?
            if let c = h.solid { showing = "the colour \(c)" } else if let a = active, let t = target, a.video != t.video,
                      videos.failed(t.video) { showing = "'\(a.video)'" }
            let state = h.player.state
            let failedTarget: Bool = { if case .failed = state { return true }; return false }()
            return OutputStatus(name: h.name, description: h.output.info.description,
                                video: failedTarget ? target?.video : (active?.video ?? target?.video),
                                mode: (active ?? target)?.mode, state: state, position: position,
                                framesShown: h.surface?.framesShown ?? 0, framesDropped: v?.dropped ?? 0,
                                showing: showing, renderer: h.sink?.kind.rawValue ?? rendererKind?.rawValue,
                                decoder: v.map { $0.isReleased ? "released" : "running" }, playlist: playlistStatus(h))
        }
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
            pending.append(PendingReply(client: client, waiting: waiting, playlists: Set(playlists.values.map(\.key.source)),
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

    /// The outputs a request names (nil: every output).
    func matching(_ pattern: String?) -> [Head] {
        connectedHeads.filter { h in
            pattern.map { OutputMatch.matches(pattern: $0, name: h.output.info.name, description: h.output.info.description) } ?? true
        }
    }
}

extension App: ControlServerDelegate {
    func control(_ server: ControlServer, request: ControlRequest, from client: Int) {
        let okReply = JSON.object([("ok", .bool(true))])
        func ok(_ message: String) -> JSON { .object([("ok", .bool(true)), ("message", .string(message))]) }
        log.debug("control: \(request.json.serialized)")
        switch request {
        case .status:
            // A stable interface: within a version, fields are only ever added.
            server.reply(to: client, .object([("ok", .bool(true)), ("version", .number(Double(OutputStatus.version))),
                                              ("outputs", .array(statuses.map(\.json)))]))

        case .pause(let pattern), .resume(let pattern), .toggle(let pattern):
            let matched = matching(pattern)
            if let pattern, matched.isEmpty {
                server.reply(to: client, ControlError.noSuchOutput(pattern).reply)
                return
            }
            var done: [String] = []
            for h in matched {
                let paused: Bool
                switch request {
                case .pause: paused = true
                case .resume: paused = false
                default: paused = !h.player.pauseReasons.contains(.user)
                }
                setUserPause(h, paused)
                done.append("\(h.name) \(paused ? "paused" : "resumed")")
            }
            server.reply(to: client, ok(done.isEmpty ? "no outputs" : done.joined(separator: ", ")))

        case .set(let entry):
            set(entry, client: client)

        case .next(let pattern):
            stepPlaylists(pattern, forward: true, client: client)

        case .prev(let pattern):
            stepPlaylists(pattern, forward: false, client: client)

        case .reload:
            log.notice("reloading the config file (wayloop ctl reload)")
            reload(replyTo: client)

        case .quit:
            log.notice("stopping (wayloop ctl quit)")
            server.reply(to: client, ok("stopping"))
            exitStatus = .ok

        case .subscribe:
            server.reply(to: client, okReply)
            server.subscribe(client)
            for h in matching(nil) { server.reply(to: client, stateEvent(h).json) }

        case .handOver(let args, let cwd):
            handOver(args: args, cwd: cwd, client: client)
        }
    }

    /// `ctl set OUTPUT|* VIDEO ...`: a runtime override, applied once the video is ready.
    private func set(_ request: OutputEntry, client: Int) {
        if case .named(let pattern) = request.selector, matching(pattern).isEmpty {
            control?.reply(to: client, ControlError.noSuchOutput(pattern).reply)
            return
        }
        // `--transition` is for this one switch: the settings keep their own.
        var entry = request
        let transition = entry.transition
        entry.transition = nil
        if transition != nil && entry.fieldsSet.isEmpty {
            control?.reply(to: client, ControlError.usage("--transition is how a switch looks: name the VIDEO to switch to").reply)
            return
        }
        var paths: [String] = []
        if let v = entry.video { paths.append(v) }
        if case .video(let f)? = entry.fallback { paths.append(f) }
        let errors = recheck(paths, fallbacks: Set(entry.fallback?.video.map { [$0] } ?? []))
        if !errors.isEmpty {
            control?.reply(to: client, ControlError.video(errors).reply)
            // Nothing names these files: their failures are not kept (10 000 sets to missing
            // files must not grow the memo).
            if pending.isEmpty { forgetWhatNothingNeeds() }
            return
        }
        let tag = overrides.add(entry, over: options.entries)
        let pattern: String? = { if case .named(let n) = entry.selector { return n }; return nil }()
        if let transition { for h in matching(pattern) { h.nextTransition = transition } }
        recomputeTargets()
        needsReconcile = true
        let what = entry.video.map { "'\($0)'" } ?? "new settings"
        let target = pattern ?? "every output"
        log.notice("\(target): \(what) (wayloop ctl set)")
        // A playlist is waited for by the video its outputs play when the reply is weighed.
        // The named video is waited for until it is on screen, ready or not (a recent one, or
        // one another output shows); a fallback only until it is open.
        var waiting = Set(entry.video.map { playlistKind($0) ? [] : [$0] } ?? [])
        if case .video(let f)? = entry.fallback, videos.clip(f)?.isReady != true { waiting.insert(f) }
        // If the new video fails, the override goes and the old video plays on.
        pending.append(PendingReply(client: client, waiting: waiting, playlists: Set(paths.filter(playlistKind).map(PlaylistSource.canonical)),
                                    success: .object([("ok", .bool(true)), ("message", .string("\(target): \(what)"))]), undoTag: tag))
    }

    /// A second `wayloop ARGS` on this display: its command line replaces ours.
    private func handOver(args: [String], cwd: String, client: Int) {
        let parsed: Options
        do {
            guard case .run(let o) = try OptionParser.parse(args) else {
                control?.reply(to: client, ControlError.usage("nothing to hand over: \(args.joined(separator: " "))").reply)
                return
            }
            parsed = o
        } catch {
            control?.reply(to: client, ControlError.usage("usage: \(error) (see wayloop --help)").reply)
            return
        }
        // What only a new process can change is refused by name, never dropped in silence.
        var inForce = options
        inForce.renderer = commandLine.rendererRequest(config: configEntries)
        inForce.queueFrames = queueFrames
        let refused = Options.unappliable(running: inForce, incoming: parsed)
        if !refused.isEmpty {
            let e = ControlError.usage("the running wayloop cannot change \(refused.joined(separator: ", ")); "
                + "start with --replace to restart it with them")
            log.notice("hand-over refused: \(e)")
            control?.reply(to: client, e.reply)
            return
        }
        let home = Sys.env("HOME")
        let previous = commandLine
        commandLine.entries = parsed.entries.map { $0.resolvingNames { Sys.findVideo($0, here: cwd) }.resolvingPaths(in: cwd, home: home) }
        commandLine.configPath = parsed.configPath.map { Paths.absolute($0, in: cwd, home: home) }
        commandLine.noConfig = parsed.noConfig
        commandLine.pauseOnFullscreen = parsed.pauseOnFullscreen
        commandLine.pauseOnBattery = parsed.pauseOnBattery
        log.notice("arguments handed over by a new start: \(args.joined(separator: " "))")
        if !reload(replyTo: client, success: .object([("ok", .bool(true)), ("message", .string("handed over"))])) {
            commandLine = previous
        }
    }
}
