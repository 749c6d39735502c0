// Bringing every output towards what its entries ask for: the shell's side of the director.
// It builds the snapshot (World), asks the director, and carries out the effects: decoders
// started and stopped, what each output draws, its surface made. Runs once per pass of the
// loop, when `needsReconcile` is set (listeners and handlers only set it). Main thread only.
import WayLoopCore

extension App {
    /// What the director decides from, now.
    func world() -> World {
        World(heads: heads.values.map(\.view), videos: videos.records.mapValues(VideoFacts.init(record:)), recent: videos.recent,
              preloads: preloads)
    }

    /// Decoders, then every connected output, then decoders again (what the outputs let go),
    /// the decode scales, the watched files and the held replies.
    func reconcile() {
        needsReconcile = false
        guard rendererKind != nil else { return }
        syncVideos()
        let w = world()
        for h in heads.values where h.output.isDone {
            for effect in Director.reconcile(h.view, w) { run(effect, on: h) }
        }
        syncVideos()
        updateDecodeScales()
        followHwdec()
        applyCaps()
        fitting.lookSoon()
        watcher?.watch(watchedFiles, directories: playlists.sources.filter(PlaylistSource.isDirectory))
        requests.resolvePending()
    }

    private func run(_ effect: HeadEffect, on h: Head) {
        switch effect {
        case .event(let e): apply(h, e)
        case .dropSurface: h.dropSurface()
        case .setDrawn(let s): h.drawn = s
        case .setSolid(let c): h.solid = c
        case .startFade(let from, let seconds): h.fade = Head.Fade(from: from, seconds: seconds, start: nil)
        case .cancelFade: h.fade = nil
        case .consumeTransition: h.nextTransition = nil
        case .switched(let video, let announce):
            if announce { log.notice("\(h.name): switched to '\(video)'") }
            publishVideoChange(h)
        case .switchedToColour(let colour, let announce):
            if announce { log.notice("\(h.name): switched to the colour \(colour)") }
            publishVideoChange(h)
        case .invalidate: h.surface?.invalidate()
        case .updatePause: updatePause(h)
        case .markPlaying: markPlaying(h)
        case .ensureSurface: ensureSurface(h)
        }
    }

    /// Starts and stops decoders as the director says (and checks a playlist's video first).
    func syncVideos() {
        let effects = Director.syncVideos(world(), playlistItems: playlistItems, started: started, keepRecent: options.keepRecent,
                                          cacheBudget: options.cacheMB << 20)
        player.cacheBudget = options.cacheMB << 20
        if !player.sync(effects, keepRecent: options.keepRecent, cacheMB: options.cacheMB, spec: spec) { exitStatus = .failure }
    }

    /// The files whose change matters: every video an entry names, and the config file.
    var watchedFiles: Set<String> {
        var files = Set((options.allVideos + videos.recent).filter { $0.hasPrefix("/") }).union(playlistItems)
        if let c = Launch.configPath(commandLine) { files.insert(c) }
        return files
    }

    /// Acts on the files that changed and settled: the config file reloads (like SIGHUP), a
    /// video in use is opened again (its outputs keep the last picture until the new one has a
    /// frame), a video that had failed is tried again.
    func applyFileChanges(now: Nanos) {
        let config = Launch.configPath(commandLine)
        for path in videos.takeSettledChanges(now: now) {
            // Checked again when it next comes up.
            videos[path].checked = false
            let isConfig = path == config
            let playlistChanged = !isConfig && playlists.changed(path, videos: &videos)
            let facts = FileChange.Facts(isConfig: isConfig, playlistChanged: playlistChanged,
                                         isPlaylistDirectory: playlistChanged && PlaylistSource.isDirectory(path),
                                         open: videos.clip(path) != nil, failed: videos.failed(path))
            for action in FileChange.actions(facts) {
                switch action {
                case .reloadConfig:
                    log.notice("the config file changed: reloading")
                    _ = requests.reload(replyTo: nil)
                case .reconcile:
                    needsReconcile = true
                case .reopen:
                    log.notice("'\(path)' changed on disk: opening it again")
                    fitting.sourceChanged(path, reading: videos.clip(path)?.wantedFile)
                    player.stop(path)
                    // Its outputs draw the new clip's first frame whatever its serial.
                    for h in heads.values where h.drawn?.video == path { h.surface?.invalidate() }
                    needsReconcile = true
                case .retry:
                    if requests.recheck([path]).isEmpty { needsReconcile = true }
                }
            }
        }
    }

    /// Tells each decoder the scale its frames are needed at: the largest output showing the
    /// video (its buffer size once configured, else the output's mode), by its mode.
    func updateDecodeScales() {
        for (path, v) in videos.open {
            guard let info = v.info else { continue }
            let outputs = outputsShowing(path)
            v.setDecodeScale(DecodeScale.factor(video: Size(width: info.width, height: info.height),
                                                turned: info.orientation.rotation % 180 != 0, outputs: outputs), outputs: outputs)
        }
    }

    /// `ctl set --hwdec`, a reload: a video whose outputs now ask to decode it another way
    /// opens again that way (its picture stays on screen until the first new frame).
    func followHwdec() {
        for (path, v) in videos.open where !v.isReleased && !outputsShowing(path).isEmpty {
            let want = hwdecShowing(path)
            guard want.mode != v.hwdec || want.device != v.hwdecDevice else { continue }
            log.debug("'\(path)': --hwdec \(want.mode.rawValue)\(want.device.map { " on \($0)" } ?? ""): decoding it again")
            v.reopen(hwdec: want.mode, device: want.device)
        }
    }

    /// `--max-fps`, `--battery-fps`: each output's cap now, and each clip's from the outputs
    /// that show it (Clip.follow; a video fading out is not capped).
    func applyCaps() {
        for h in heads.values { h.onBattery = onBattery }
        for (path, v) in videos.open { v.follow(caps: heads.values.filter { $0.shows(path) }.map { $0.drawn?.video == path ? $0.cap : nil }) }
    }

    /// The outputs that show or will show `path`, and what each needs of it (Head.need).
    func outputsShowing(_ path: String) -> [(size: Size, mode: ScaleMode)] { heads.values.compactMap { $0.need(of: path) } }

    /// How `path` is decoded. A video shown on several outputs is decoded once: an output's
    /// explicit `--hwdec` wins over auto (the first by output name), as does its device.
    /// `WAYLOOP_HWDEC` overrides every setting (for bisecting a bad picture).
    func hwdecShowing(_ path: String) -> (mode: HwdecMode, device: String?) {
        let settings = heads.values.sorted { $0.name < $1.name }
            .compactMap { h in [h.drawn ?? h.target, h.fade?.from].compactMap { $0 }.first { $0.video == path } }
        let forced = Sys.env("WAYLOOP_HWDEC").flatMap(HwdecMode.init(rawValue:))
        let mode = forced ?? settings.map(\.hwdec).first { $0 != .auto } ?? .auto
        return (mode, settings.lazy.compactMap(\.hwdecDevice).first)
    }

    /// Each span output's part of its canvas (Span.assign), recomputed whenever targets or the
    /// layout change.
    func assignSpans() {
        let connected = heads.values.filter(\.output.isDone)
        let views = Span.assign(connected.map { (key: $0.id, target: $0.target, rect: $0.output.info.logicalRect) })
        for h in connected {
            let view = views[h.id]
            if let view, h.drawn?.span != view { log.debug("\(h.name): \(view.output) of the span canvas \(view.canvas)") }
            h.target?.span = view
        }
    }

    /// Creates the output's surface and sink (the director asks once it has something to show).
    private func ensureSurface(_ h: Head) {
        guard h.surface == nil, let registry, let compositor = registry.compositor, let shell = registry.layerShell else { return }
        let what = h.drawn.map { "showing '\($0.video)' (\($0.mode.rawValue))" } ?? h.solid.map { "showing the fallback colour \($0)" } ?? ""
        guard let sink = device?.makeSink() else { return }
        guard h.makeSurface(compositor: compositor, layerShell: shell, registry: registry, layer: options.layer, sink: sink,
                            delegate: self) else {
            log.error("\(h.name): cannot create a layer surface")
            return
        }
        if let line = rendererLine {
            log.notice(line)
            rendererLine = nil
        }
        updatePause(h)
        // The scale its buffers are made at: a fractional one where the compositor prefers one.
        log.notice("\(h.name) (\(h.output.info.modeSize), scale \(h.surface?.scaleText ?? "\(h.output.info.scale)")): \(what)")
    }
}
