// Playlists: a directory or a playlist file (.m3u/.txt) named where a video goes plays its
// videos in turn, switching after --interval or after --loops passes, in order or shuffled.
// The outputs whose settings name the same playlist share one run (PlaylistRuns; the cursor
// and when to switch are PlaylistRun's, in the core). The next video is opened ahead so that
// the switch lands on time; a video that fails is skipped with its one error line. Main thread only.
import WayLoopCore

extension App {
    /// The settings an output's entries ask for, with a playlist resolved to the video it plays now.
    func targetSettings(_ o: Output) -> OutputSettings? {
        let workspace = options.hasWorkspaceEntries ? screenFacts().0.activeWorkspace(on: o.info.name) : nil
        guard let s = options.settings(forOutput: o.info.name, description: o.info.description, workspace: workspace) else { return nil }
        guard s.solid == nil, !videos.failed(s.video), playlistKind(s.video) else { return s }
        return playlists.resolve(s, old: playlists.run(of: heads[o.globalName]?.target), videos: &videos)
    }

    /// Whether `path` names a playlist (remembered: settings are recomputed often).
    func playlistKind(_ path: String) -> Bool {
        if let k = videos[path].isPlaylist { return k }
        let k = PlaylistSource.isPlaylist(path)
        videos[path].isPlaylist = k
        return k
    }

    /// The run an output's target plays from.
    func run(of h: Head) -> PlaylistRun? { playlists.run(of: h.target) }

    /// Runs no output plays from any more go; so does what is remembered of paths and videos
    /// nothing names any more.
    func pruneRuns() {
        playlists.keep(heads.values.compactMap(run(of:)))
        videos.forget(kindsExcept: Set(options.videos), checksExcept: playlistItems)
    }

    /// Nothing of `path` can ever be shown: it failed, or it is a playlist all of whose videos did.
    func isUnplayable(_ path: String) -> Bool {
        videos.failed(path) || playlistKind(path) && PlaylistRun.allFailed(PlaylistSource.canonical(path), runs: playlists.all, failed: videos.failed)
    }

    /// Why a playlist a request switched to can play nothing (nil: some video of it can).
    func playlistError(_ source: String) -> VideoError? {
        isUnplayable(source) ? .noVideos(source, directory: PlaylistSource.isDirectory(source), reason: "none of its videos can be played") : nil
    }

    var playlistItems: Set<String> { playlists.items }

    var preloads: Set<String> { playlists.preloads(failed: videos.failed) }

    /// Once per pass of the loop, before the reconcile and the draw: each run that an output
    /// plays from looks at its video on screen and may open the next one ahead or switch.
    func advancePlaylists(now: Nanos) {
        var moved = false
        for run in playlists.all {
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
}
