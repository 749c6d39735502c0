// What the outside asks of a running wayloop: `wayloop ctl` requests, hand-overs, signals and
// config reloads. Each becomes a change of what the App is asked for (an override, a pause, a
// new config layer, a playlist step) and a reply, at once or held until the new picture is on
// screen (PendingReply, weighed by the director after each reconcile). Main thread only
// (called from the event loop).
import Glibc
import WayLoopCore

final class Requests: ControlServerDelegate {
    /// The app, through the intents it offers: Requests reads it and asks, never writes it.
    private unowned let app: any ControlledApp
    /// Requests answered once the videos they opened are on screen (or failed).
    private(set) var pending: [PendingReply] = []

    init(app: any ControlledApp) { self.app = app }

    func control(_ server: ControlServer, request: ControlRequest, from client: Int) {
        handle(request, from: client)
    }

    /// One request, from a client of the control socket (`client` ≥ 0) or from the wallpaper's
    /// host in-process (``Wallpaper/send(_:timeout:)``: a negative `client`); the reply goes
    /// back the way it came (App.reply), at once or once the new picture is on screen.
    func handle(_ request: ControlRequest, from client: Int) {
        let okReply = JSON.object([("ok", .bool(true))])
        func ok(_ message: String) -> JSON { .object([("ok", .bool(true)), ("message", .string(message))]) }
        app.log.debug("control: \(request.json.serialized)")
        switch request {
        case .status:
            // A stable interface: within a version, fields are only ever added.
            // `recent`: the videos kept ready for a switch back (--keep-recent), oldest first.
            app.reply(to: client, .object([("ok", .bool(true)), ("version", .number(Double(OutputStatus.version))),
                                              ("outputs", .array(statuses.map(\.json))),
                                              ("recent", .array(app.videos.recent.map { .string($0) }))]))

        case .pause(let pattern), .resume(let pattern), .toggle(let pattern):
            userPause(request, pattern, client: client)

        case .set(let entry):
            set(entry, client: client)

        case .next(let pattern):
            stepPlaylists(pattern, forward: true, client: client)

        case .prev(let pattern):
            stepPlaylists(pattern, forward: false, client: client)

        case .forget(let pattern):
            forget(pattern, client: client)

        case .snapshot(let pattern, let file):
            snapshot(pattern, file: file, client: client)

        case .reload:
            app.log.notice("reloading the config file (wayloop ctl reload)")
            reload(replyTo: client)

        case .quit:
            app.log.notice("stopping (wayloop ctl quit)")
            app.reply(to: client, ok("stopping"))
            app.stop(.ok)

        case .subscribe:
            guard client >= 0, let server = app.control else {
                app.reply(to: client, ControlError.refused("a host follows its own wallpaper through onStateChange or states(), not subscribe").reply)
                return
            }
            app.reply(to: client, okReply)
            server.subscribe(client)
            for h in matching(nil) { server.reply(to: client, app.stateEvent(h).json) }

        case .handOver(let args, let cwd):
            handOver(args: args, cwd: cwd, client: client)
        }
    }

    /// `ctl pause|resume|toggle [OUTPUT]`: the user's pause of the matched outputs.
    private func userPause(_ request: ControlRequest, _ pattern: String?, client: Int) {
        let matched = matching(pattern)
        if let pattern, matched.isEmpty {
            app.reply(to: client, ControlError.noSuchOutput(pattern).reply)
            return
        }
        var done: [String] = []
        for h in matched {
            guard let paused = PauseRules.userPaused(after: request, pausedByUser: h.player.pauseReasons.contains(.user)) else { continue }
            app.setUserPause(h, paused)
            done.append("\(h.name) \(paused ? "paused" : "resumed")")
        }
        app.reply(to: client, .object([("ok", .bool(true)),
                                                ("message", .string(done.isEmpty ? "no outputs" : done.joined(separator: ", ")))]))
    }

    /// `ctl set OUTPUT|* VIDEO ...`: a runtime override, applied once the video is ready.
    private func set(_ request: OutputEntry, client: Int) {
        if case .named(let pattern) = request.selector, matching(pattern).isEmpty {
            app.reply(to: client, ControlError.noSuchOutput(pattern).reply)
            return
        }
        // `--transition` is for this one switch: the settings keep their own.
        var entry = request
        let transition = entry.transition
        entry.transition = nil
        if transition != nil && entry.fieldsSet.isEmpty {
            app.reply(to: client, ControlError.usage("--transition is how a switch looks: name the VIDEO to switch to").reply)
            return
        }
        var paths: [String] = []
        if let v = entry.video { paths.append(v) }
        if case .video(let f)? = entry.fallback { paths.append(f) }
        let errors = recheck(paths, fallbacks: Set(entry.fallback?.video.map { [$0] } ?? []))
        if !errors.isEmpty {
            app.reply(to: client, ControlError.video(errors).reply)
            // Nothing names these files: their failures are not kept (10 000 sets to missing
            // files must not grow the memo).
            if pending.isEmpty { forgetWhatNothingNeeds() }
            return
        }
        let tag = app.addOverride(entry)
        let pattern: String? = { if case .named(let n) = entry.selector { return n }; return nil }()
        if let transition { app.setNextTransition(transition, for: matching(pattern)) }
        let what = entry.video.map { "'\($0)'" } ?? entry.solid.map { "the colour \($0)" } ?? "new settings"
        var target = pattern ?? "every output"
        if let ws = entry.workspace { target += ", workspace '\(ws)'" }
        app.log.notice("\(target): \(what) (wayloop ctl set)")
        let fallback = entry.fallback?.video
        var waiting = Director.setWaitsFor(video: entry.video, videoIsPlaylist: entry.video.map(app.playlistKind) ?? false,
                                           fallback: fallback, fallbackReady: fallback.flatMap { app.videos.clip($0)?.isReady } ?? false)
        var note = ""
        // A workspace no matched output shows now: its video opens when one does; the reply is now.
        if let ws = entry.workspace, !matching(pattern).contains(where: { $0.workspace == ws }) {
            waiting = []
            note = !app.knowsWorkspaces ? " (no workspaces are known here: the compositor says which workspace an output shows neither through sway's IPC nor ext-workspace-v1)"
                : " (shown when \(pattern ?? "an output") shows workspace '\(ws)')"
        }
        // If the new video fails, the override goes and the old video plays on.
        pending.append(PendingReply(client: client, waiting: waiting, playlists: Set(paths.filter(app.playlistKind).map(PlaylistSource.canonical)),
                                        success: .object([("ok", .bool(true)), ("message", .string("\(target): \(what)\(note)"))]), undoTag: tag))
    }

    /// `ctl forget [OUTPUT]`: the output (every output) shows what the command line and config
    /// file say again, and the state file forgets what `ctl set` chose for it (with no OUTPUT,
    /// the playlists' places too: they are saved again at their next switch).
    private func forget(_ pattern: String?, client: Int) {
        let heads = matching(pattern)
        let count: Int
        if let pattern {
            // A name, a description or an identity; an output that is not connected is
            // forgotten by what its overrides say.
            let infos = heads.map { (name: $0.output.info.name, description: $0.output.info.description) }
            count = app.forgetOverrides { n in
                n == pattern || infos.contains { OutputMatch.matches(pattern: n, name: $0.name, description: $0.description) }
            }
            if heads.isEmpty && count == 0 {
                app.reply(to: client, ControlError.noSuchOutput(pattern).reply)
                return
            }
        } else {
            count = app.forgetAllOverrides()
        }
        let who = pattern ?? "every output"
        app.log.notice("\(who): forgot \(count) choice(s) of wayloop ctl set (wayloop ctl forget)")
        server(reply: client, "\(who): back to the command line and config file" + (pattern == nil ? "; nothing saved" : ""))
    }

    /// `ctl snapshot [OUTPUT] FILE.png`: the picture the output shows now at its buffer size,
    /// converted as the shm renderer converts it (on gl too: the frame on screen, placed,
    /// coloured and dimmed alike, not read back from the GPU), written as a PNG.
    private func snapshot(_ pattern: String?, file: String, client: Int) {
        let heads = matching(pattern)
        guard let h = heads.first else {
            let e: ControlError = pattern.map { .noSuchOutput($0) } ?? .refused("no output is connected")
            app.reply(to: client, e.reply)
            return
        }
        guard heads.count == 1 else {
            app.reply(to: client, ControlError.usage("\(heads.count) outputs: name one (\(heads.map(\.name).joined(separator: ", ")))").reply)
            return
        }
        guard let size = h.surface?.bufferSize, !size.isEmpty else {
            app.reply(to: client, ControlError.refused("\(h.name) has no surface (no video for it, or not configured yet)").reply)
            return
        }
        let still: (pixels: [UInt8], size: Size)
        do {
            if let c = h.solid {
                still = Still.solid(c, size: size)
            } else if let s = h.drawn, let picture = app.videos.clip(s.video)?.picture {
                still = try Still.render(picture, output: size, mode: s.mode, color: s.color, dim: s.dim, span: s.span)
            } else {
                app.reply(to: client, ControlError.refused("\(h.name) shows no picture yet").reply)
                return
            }
            try Still.writePNG(still.pixels, size: still.size, to: file)
        } catch {
            app.reply(to: client, ControlError.refused("\(error)").reply)
            return
        }
        server(reply: client, "\(h.name): wrote '\(file)' (\(still.size))")
    }

    private func server(reply client: Int, _ message: String) {
        app.reply(to: client, .object([("ok", .bool(true)), ("message", .string(message))]))
    }

    /// A second `wayloop ARGS` on this display: its command line replaces ours.
    private func handOver(args: [String], cwd: String, client: Int) {
        let parsed: Options
        do {
            guard case .run(let o) = try OptionParser.parse(args) else {
                app.reply(to: client, ControlError.usage("nothing to hand over: \(args.joined(separator: " "))").reply)
                return
            }
            parsed = o
        } catch {
            app.reply(to: client, ControlError.usage("usage: \(error) (see wayloop --help)").reply)
            return
        }
        // What only a new process can change is refused by name, never dropped in silence.
        var inForce = app.options
        inForce.renderer = app.commandLine.rendererRequest(config: app.configEntries)
        inForce.queueFrames = app.queueFrames
        let refused = Options.unappliable(running: inForce, incoming: parsed)
        if !refused.isEmpty {
            let e = ControlError.usage("the running wayloop cannot change \(refused.joined(separator: ", ")); "
                + "start with --replace to restart it with them")
            app.log.notice("hand-over refused: \(e)")
            app.reply(to: client, e.reply)
            return
        }
        let previous = app.commandLine
        app.adoptHandOver(parsed, cwd: cwd)
        app.log.notice("arguments handed over by a new start: \(args.joined(separator: " "))")
        if !reload(replyTo: client, success: .object([("ok", .bool(true)), ("message", .string("handed over"))])) {
            app.setCommandLine(previous)
        } else {
            // If its videos fail, the command line before it comes back (as a `ctl set` whose
            // video fails takes its override back), even when nothing had played yet.
            handOverRestores[client] = previous
        }
    }

    /// The command line to put back for each hand-over whose reply is held.
    private var handOverRestores: [Int: Options] = [:]

    /// A held hand-over would put a command line back if its videos failed.
    var restoresPending: Bool { !handOverRestores.isEmpty }

    /// `ctl next|prev [OUTPUT]`: the runs of the matched outputs move one step; the reply comes
    /// once the new video is on screen.
    private func stepPlaylists(_ pattern: String?, forward: Bool, client: Int) {
        let matched = matching(pattern)
        if let pattern, matched.isEmpty {
            app.reply(to: client, ControlError.noSuchOutput(pattern).reply)
            return
        }
        var runs: [PlaylistRun] = []
        for h in matched { if let r = app.run(of: h), !runs.contains(where: { $0 === r }) { runs.append(r) } }
        guard !runs.isEmpty else {
            let who = pattern.map { "'\($0)' plays no playlist" } ?? "no output plays a playlist"
            app.reply(to: client, ControlError.refused("\(who) (name a directory or a playlist file as its video)").reply)
            return
        }
        for r in runs { r.step(forward: forward, failed: app.videos.failed) }
        app.settingsChanged()
        let names = matched.filter { h in runs.contains { $0 === app.run(of: h) } }
        let message = names.map { h in "\(h.name): '\(h.target?.video ?? "")'" + (app.playlistStatus(h).map { " (\($0.position)/\($0.count))" } ?? "") }
        pending.append(PendingReply(client: client, waiting: [], playlists: Set(runs.map(\.key.source)),
                                        success: .object([("ok", .bool(true)), ("message", .string(message.joined(separator: ", ")))])))
    }

    /// The heads of connected outputs, by name.
    private var connectedHeads: [Head] { app.heads.values.filter(\.output.isDone).sorted { $0.name < $1.name } }

    var statuses: [OutputStatus] {
        connectedHeads.map { h in
            let active = h.drawn, target = h.target
            let v = active.flatMap { app.videos.clip($0.video) }
            let state = h.player.state
            // A colour as the target (a workspace's entry): no video, and the colour as what it shows.
            let named = OutputStatus.naming(drawn: active?.video, target: target?.solid == nil ? target?.video : nil,
                                            targetFailed: target.map { app.videos.failed($0.video) } ?? false, state: state, solid: h.solid)
            var status = OutputStatus(name: h.name, description: h.output.info.description,
                                video: named.video, mode: (active ?? target)?.mode, state: state,
                                position: OutputStatus.position(frameIndex: v?.current?.index, fps: v?.info?.frameRate),
                                framesShown: h.surface?.framesShown ?? 0, framesDropped: v?.dropped ?? 0,
                                showing: named.showing, renderer: h.sink?.kind.rawValue ?? app.rendererKind?.rawValue,
                                decoder: v.map { $0.isReleased ? "released" : "running" }, playlist: app.playlistStatus(h),
                                maxFps: h.cap, damaged: h.sink?.damaged.share, costs: Self.costs(v, h.sink))
            status.decode = v?.decodeState?.text
            status.surfaces = v?.surfaceStats
            status.fit = active.flatMap { app.fitStatus($0.video) }
            status.surface = h.surface?.status
            status.workspace = h.workspace
            let now = Sys.now()
            status.shownFps = v?.shownFps(now: now)
            status.pace = v?.pace(now: now)
            return status
        }
    }

    /// An output's frame-path costs: its clip's decoding and comparing, its sink's converting
    /// and presenting (nil: no video).
    private static func costs(_ v: Clip?, _ sink: Sink?) -> FrameCosts? {
        guard let v else { return nil }
        var c = v.costs
        if let s = sink?.costs {
            c.convert = s.convert
            c.present = s.present
        }
        return c
    }

    /// The outputs a request names (nil: every output).
    private func matching(_ pattern: String?) -> [Head] {
        connectedHeads.filter { h in
            pattern.map { OutputMatch.matches(pattern: $0, name: h.output.info.name, description: h.output.info.description) } ?? true
        }
    }

    // MARK: Reloads and checks

    /// Checks the files, one error line each (the app's intent); the files that failed now.
    func recheck(_ paths: [String], fallbacks: Set<String> = [], origins: Options? = nil) -> [VideoError] {
        app.checkVideos(paths, fallbacks: fallbacks, origins: origins)
    }

    /// Reads the config file again (SIGHUP, `ctl reload`, a hand-over). A bad file changes
    /// nothing; a good one replaces the config layer and drops `ctl set` overrides.
    @discardableResult
    func reload(replyTo client: Int?, success: JSON = .object([("ok", .bool(true))])) -> Bool {
        let loaded = Launch.loadConfig(app.commandLine).map {
            Launch.withDefaultLoop($0, commandLine: app.commandLine.entries, log: app.log)
        }
        let verdict = ConfigReload.verdict(loaded: loaded, commandLine: app.commandLine, running: app.configEntries) { all in
            var probe = app.options
            probe.entries = all
            return recheck(probe.allVideos, fallbacks: Set(probe.allVideos).subtracting(probe.videos), origins: probe)
        }
        let entries: [OutputEntry]
        switch verdict {
        case .refused(let reply, let line, let isError):
            if isError { app.log.scoped("config").error(line) } else { app.log.notice(line) }
            if let client { app.reply(to: client, reply.reply) }
            return false
        case .apply(let e, let rendererNotice):
            if let rendererNotice { app.log.notice(rendererNotice) }
            entries = e
        }
        app.applyConfig(entries)
        app.log.debug("configuration applied: \(app.options.entries.count) entr\(app.options.entries.count == 1 ? "y" : "ies")")
        if let client {
            // What the outputs now need and is not ready yet (a video for an output that is not
            // connected is never opened, so it is not waited for).
            let items = app.playlistItems
            let waiting = Director.needed(app.world()).filter { app.videos.clip($0)?.isReady != true && !items.contains($0) }
            pending.append(PendingReply(client: client, waiting: waiting, playlists: app.playlists.sources,
                                        success: success))
        }
        return true
    }

    /// SIGINT and SIGTERM stop, SIGUSR1 toggles the pause like `ctl toggle`, SIGHUP reloads
    /// like `ctl reload`.
    func handleSignals() {
        for s in app.signals.read() {
            switch s {
            case SIGINT, SIGTERM:
                app.log.notice("stopping on signal \(s == SIGINT ? "SIGINT" : "SIGTERM")")
                app.stop(.ok)
            case SIGUSR1:
                // Like `wayloop ctl toggle`: pause everything, or resume if all is paused.
                let pause = app.heads.values.contains { !$0.player.pauseReasons.contains(.user) }
                for h in app.heads.values { app.setUserPause(h, pause) }
                app.log.notice(pause ? "paused (SIGUSR1)" : "resumed (SIGUSR1)")
            case SIGHUP:
                app.log.notice("reloading the config file (SIGHUP)")
                _ = reload(replyTo: nil)
            default:
                app.log.debug("ignoring signal \(s)")
            }
        }
    }

    // MARK: Held replies

    /// Answers the held requests that the director says can be answered. A `ctl set` whose
    /// video failed takes its override back (the old video plays on, from the next reconcile).
    func resolvePending() {
        guard !pending.isEmpty else { return }
        let w = app.world()
        pending = pending.filter { p in
            switch Director.outcome(p, w, playlistError: app.playlistError) {
            case .wait:
                return true
            case .failed(let errors):
                if let tag = p.undoTag { app.removeOverride(tag: tag) }
                if let previous = handOverRestores.removeValue(forKey: p.client) {
                    app.setCommandLine(previous)
                    app.log.notice("the handed-over videos cannot be played: back to the command line before")
                    _ = reload(replyTo: nil)
                }
                app.reply(to: p.client, ControlError.video(errors).reply)
            case .superseded:
                app.reply(to: p.client, ControlError.busy("superseded by a later change before it was shown").reply)
            case .succeeded:
                app.reply(to: p.client, p.success)
            }
            handOverRestores[p.client] = nil
            return false
        }
        if pending.isEmpty { forgetWhatNothingNeeds() }
    }

    /// Bounds what run-time requests leave behind, once no reply is outstanding.
    private func forgetWhatNothingNeeds() { app.forgetUnneeded(compacting: true) }
}
