// Playlists: a directory or a playlist file (.m3u/.txt) named where a video goes plays its
// videos in turn, switching after --interval or after --loops passes, in order or shuffled.
// The outputs whose settings name the same playlist (and the same order, interval and loops)
// share one run (PlaylistRun, WayLoopCore: the cursor and when to switch). The next video is
// opened ahead so that the switch lands on time; a video that fails is skipped with its one
// error line; a watched directory's changes apply at the next switch. Main thread only.
import WayLoopCore

extension App {
    /// The settings an output's entries ask for, with a playlist resolved to the video it plays now.
    func targetSettings(_ o: Output) -> OutputSettings? {
        guard var s = options.settings(forOutput: o.info.name, description: o.info.description) else { return nil }
        guard !videos.failed(s.video), playlistKind(s.video) else { return s }
        let source = PlaylistSource.canonical(s.video)
        let key = PlaylistRun.Key(source: source, shuffle: s.shuffle, interval: s.interval, loops: s.loops)
        guard let run = playlists[key] ?? startRun(key, for: o, named: s.video) else { return s }
        s.playlist = source
        s.video = run.playlist.current ?? s.video
        return s
    }

    /// A new run of a playlist (its items read now); nil when it names nothing playable.
    private func startRun(_ key: PlaylistRun.Key, for o: Output, named: String) -> PlaylistRun? {
        switch PlaylistSource.items(key.source, log: log.scoped("playlist")) {
        case .failure(let e):
            videos.setFailure(named, e)
            log.scoped("video").error("\(e)")
            return nil
        case .success(let items):
            let run = PlaylistRun(key: key, items: items, seed: UInt64(truncatingIfNeeded: Sys.now()))
            // Its interval, loops or order changed (`ctl set --interval`): it goes on from the
            // video this output plays, not from the first.
            if let old = heads.values.first(where: { $0.output === o }).flatMap({ self.run(of: $0) }), old.key.source == key.source,
               let playing = old.playlist.current {
                run.carry(from: old, playing: playing)
            }
            if let c = run.playlist.current, videos.failed(c) { run.playlist.nextPlayable(videos.failed) }
            playlists[key] = run
            log.notice("playlist '\(key.source)': \(items.count) video(s)\(key.shuffle ? ", shuffled" : "")"
                + (key.interval.map { ", switching every \(DurationText.format($0))" } ?? ""))
            return run
        }
    }

    /// Whether `path` names a playlist (remembered: settings are recomputed often).
    func playlistKind(_ path: String) -> Bool {
        if let k = videos[path].isPlaylist { return k }
        let k = PlaylistSource.isPlaylist(path)
        videos[path].isPlaylist = k
        return k
    }

    /// The run an output's target plays from.
    func run(of h: Head) -> PlaylistRun? {
        guard let t = h.target, let source = t.playlist else { return nil }
        return playlists[PlaylistRun.Key(source: source, shuffle: t.shuffle, interval: t.interval, loops: t.loops)]
    }

    /// Runs no output plays from any more go (their preloaded video with them).
    func pruneRuns() {
        let used = Set(heads.values.compactMap { run(of: $0).map { ObjectIdentifier($0) } })
        playlists = playlists.filter { used.contains(ObjectIdentifier($0.value)) }
        videos.forget(kindsExcept: Set(options.videos), checksExcept: playlistItems)
    }

    /// Nothing of `path` can ever be shown: it failed, or it is a playlist all of whose videos did.
    func isUnplayable(_ path: String) -> Bool {
        videos.failed(path)
            || playlistKind(path) && PlaylistRun.allFailed(PlaylistSource.canonical(path), runs: Array(playlists.values), failed: videos.failed)
    }

    /// Why a playlist a request switched to can play nothing (nil: some video of it can).
    func playlistError(_ source: String) -> VideoError? {
        isUnplayable(source) ? .noVideos(source, directory: PlaylistSource.isDirectory(source), reason: "none of its videos can be played") : nil
    }

    /// Every video a playlist in use names (their failures are kept, their files watched).
    var playlistItems: Set<String> { Set(playlists.values.flatMap(\.playlist.items)) }

    /// Videos opened ahead of a playlist switch.
    var preloads: Set<String> { Set(playlists.values.compactMap(\.preload).filter { !videos.failed($0) }) }

    /// Once per pass of the loop, before the reconcile and the draw: each run that an output
    /// plays from looks at its video on screen and may open the next one ahead or switch.
    func advancePlaylists(now: Nanos) {
        var moved = false
        for run in playlists.values {
            let shown = heads.values.filter { self.run(of: $0) === run }
            guard !shown.isEmpty, let current = run.playlist.current else { continue }
            let seen = videos.clip(current).map { v in
                PlaylistRun.Seen(drawn: shown.contains { $0.drawn?.video == current },
                                 // Seen: neither paused (a fullscreen window counts) nor unpresented.
                                 watched: shown.contains { $0.drawn?.video == current && !$0.drawPaused && !$0.player.pauseReasons.contains(.hidden) },
                                 ready: v.isReady, framePass: v.current?.pass, nextPass: v.nextPass,
                                 nextIsDue: (v.nextDeadline ?? .max) <= now, still: v.isStill)
            }
            let step = run.advance(now: now, seen: seen, failed: videos.failed, ready: { self.videos.clip($0)?.isReady == true })
            // (debug: the failure's own error line is the one line a user sees)
            if let s = step.skipped { log.debug("playlist '\(run.key.source)': skipping '\(s)'") }
            if step.preloadChanged { needsReconcile = true }
            moved = moved || step.moved
        }
        if moved {
            recomputeTargets()
            needsReconcile = true
        }
    }

    /// Where an output is in its playlist, for `status` and the events.
    func playlistStatus(_ h: Head) -> PlaylistStatus? {
        guard let r = run(of: h), let p = r.playlist.position else { return nil }
        return PlaylistStatus(source: r.key.source, position: p + 1, count: r.playlist.count, nextSwitch: r.remaining)
    }

    /// A watched playlist changed (a video added to or removed from its directory, the file
    /// edited): the new list applies from the next switch.
    func playlistChanged(_ source: String) {
        for r in playlists.values where r.key.source == source {
            switch PlaylistSource.items(source, log: log.scoped("playlist")) {
            case .failure(let e):
                log.notice("playlist '\(source)' changed: \(e); playing on from the list it had")
            case .success(let items):
                // New videos are checked when they come up; one that failed before is tried again.
                let old = Set(r.playlist.items)
                for item in Set(items) where !old.contains(item) {
                    videos[item].checked = false
                    videos.setFailure(item, nil)
                }
                r.playlist.replaceItems(items)
                r.skipped = []
                r.preload = nil
                log.notice("playlist '\(source)' changed: \(items.count) video(s), from the next switch")
            }
        }
    }
}
