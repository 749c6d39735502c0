// Playlists (issue 14): a directory or a playlist file (.m3u/.txt) named where a video goes
// plays its videos in turn, switching after --interval or after --loops passes, in order or
// shuffled. The outputs whose settings name the same playlist (and the same order, interval and
// loops) share one run: one cursor, one decoder, switching together. The next video is opened
// ahead (its first frame decoded) so that the switch lands on time; a video that fails is
// skipped with its one error line; a watched directory's changes apply at the next switch.
// The order itself is the pure `Playlist` (WayLoopCore). Main thread only.
import Glibc
import WayLoopCore

final class PlaylistRun {
    struct Key: Hashable {
        var source: String
        var shuffle: Bool
        var interval: Double?
        var loops: Int?
    }
    let key: Key
    var playlist: Playlist
    /// The pass the current video was in when it came on screen.
    var startPass = 0
    /// Seconds the current video has been seen (an interval counts only those: a covered or
    /// paused wallpaper does not switch, and opens nothing), and when that was last added to
    /// (nil: the current video is not on screen yet; its clock starts when it is).
    var seen = 0.0
    var lastSeenTick: Nanos?
    /// The next video, opened ahead of the switch (nil: not yet due, or nothing else to play).
    var preload: String?
    /// Items already reported as skipped (one line each, until the list changes).
    var skipped: Set<String> = []

    init(key: Key, items: [String]) {
        self.key = key
        var seed = UInt64(truncatingIfNeeded: Sys.now())
        for b in key.source.utf8 { seed = (seed ^ UInt64(b)) &* 0x100_0000_01b3 }
        playlist = Playlist(items: items, shuffle: key.shuffle, seed: seed)
    }

    /// Passes of each video when no interval is set: once each with several, for ever with one.
    var loopsPerVideo: Int? { key.loops ?? (playlist.count > 1 ? 1 : nil) }

    /// Seconds to the next switch on an interval (nil: no interval, or not on screen yet).
    func remaining(now: Nanos) -> Double? {
        guard let interval = key.interval, lastSeenTick != nil else { return nil }
        return max(0, interval - seen)
    }

    /// A new video is on screen (or the clock starts again): nothing seen of it yet.
    func restart(at now: Nanos, pass: Int) {
        startPass = pass
        seen = 0
        lastSeenTick = now
    }

    /// Goes on from `playing` (in `old`'s list) and keeps how long it has been seen.
    func carry(from old: PlaylistRun, playing: String) {
        if !key.shuffle {
            for _ in 0..<playlist.count where playlist.current != playing { playlist.next() }
        }
        if playlist.current == playing {
            startPass = old.startPass
            seen = old.seen
            lastSeenTick = old.lastSeenTick
        }
    }

    /// The cursor moved: the new video's clock starts when it is on screen, and what was opened
    /// ahead for the old position is not needed any more.
    func moved() {
        lastSeenTick = nil
        preload = nil
    }
}

enum PlaylistSource {
    /// The most videos a playlist takes (a directory of 100 000 files must not stall the loop).
    static let maxItems = 10_000

    /// A directory, or a regular file named .m3u/.m3u8/.txt: a playlist, not a video.
    static func isPlaylist(_ path: String) -> Bool {
        var st = stat()
        guard stat(Sys.cPath(path), &st) == 0 else { return false }
        if (st.st_mode & S_IFMT) == S_IFDIR { return true }
        return (st.st_mode & S_IFMT) == S_IFREG && PlaylistFile.isPlaylist(path)
    }

    /// The one name of a playlist: absolute (against the working directory, `~/` expanded), no
    /// trailing slash. It keys the run, the watch and the replies that wait for it.
    static func canonical(_ path: String) -> String {
        Paths.absolute(path, in: Sys.currentDirectory, home: Sys.env("HOME"))
    }

    static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(Sys.cPath(path), &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// The videos a playlist names: a directory's video files (by extension, in name order), or
    /// a playlist file's lines, as absolute paths (they are watched). An error when it names
    /// none. `log` (nil: quiet) hears about lines that are not local files.
    static func items(_ source: String, log: Logger?) -> Result<[String], VideoError> {
        let home = Sys.env("HOME")
        var paths: [String]
        let source = canonical(source)
        if isDirectory(source) {
            let names = Sys.fileNames(in: source).filter { name in
                guard let dot = name.lastIndex(of: "."), !name.hasPrefix(".") else { return false }
                return VideoLookup.extensions.contains(name[name.index(after: dot)...].lowercased())
            }
            paths = names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { source == "/" ? "/" + $0 : source + "/" + $0 }
            if paths.isEmpty {
                return .failure(.noVideos(source, directory: true,
                                          reason: "no files named ." + VideoLookup.extensions.joined(separator: ", .") + " in it"))
            }
        } else {
            switch Sys.readFile(source, limit: 1 << 20) {
            case .failure(let e):
                return .failure(.unreadable(source, reason: e.code == EFBIG ? "too large for a playlist (over 1 MiB)" : Sys.errnoText(e.code)))
            case .success(let text):
                let parsed = PlaylistFile.parse(text, directory: FileWatcher.directory(source), home: home)
                for s in parsed.skipped { log?.notice("'\(source)' line \(s.line): '\(s.text)' is not a local file; skipped") }
                paths = parsed.paths
                if paths.isEmpty { return .failure(.noVideos(source, directory: false, reason: "no file named in it")) }
            }
        }
        if paths.count > maxItems {
            log?.notice("'\(source)': \(paths.count) videos; playing the first \(maxItems)")
            paths = Array(paths.prefix(maxItems))
        }
        return .success(paths)
    }
}

extension App {
    /// Checks what an entry names before it is used: a video file (Preflight), or a playlist
    /// that names at least one video that passes (its failing videos are logged and recorded).
    func preflight(_ path: String) -> VideoError? {
        App.preflight(path, failed: &failedVideos, isOpen: { self.videos[$0] != nil }, log: log)
    }

    /// Before the app exists too (start-up): `failed` records the playlist's failing videos.
    static func preflight(_ path: String, failed: inout [String: VideoError], isOpen: (String) -> Bool, log: Logger) -> VideoError? {
        guard PlaylistSource.isPlaylist(path) else { return Preflight.check(path) }
        switch PlaylistSource.items(path, log: nil) {
        case .failure(let e): return e
        case .success(let items):
            // Up to the first that can be opened (the rest are checked as they come up: a
            // directory of thousands must not be opened file by file on the main thread).
            var errors: [(String, VideoError)] = []
            var seen: Set<String> = []
            for item in items where seen.insert(item).inserted {
                if isOpen(item) { return report(errors) }
                guard let e = Preflight.check(item) else {
                    failed[item] = nil
                    return report(errors)
                }
                errors.append((item, e))
            }
            // Nothing playable: one line for the playlist (the first reason says what it holds).
            let first = errors.first.map { ": \($0.1)" } ?? ""
            return .noVideos(path, directory: PlaylistSource.isDirectory(path),
                             reason: "none of its \(items.count) video(s) can be opened\(first)")
        }
        // Some can: each one before it that cannot is skipped, with its line.
        func report(_ errors: [(String, VideoError)]) -> VideoError? {
            for (item, e) in errors {
                if failed[item] == nil { log.scoped("video").error("\(e) (in '\(path)'; skipped)") }
                failed[item] = e
            }
            return nil
        }
    }

    /// The settings an output's entries ask for, with a playlist resolved to the video it plays now.
    func targetSettings(_ o: Output) -> OutputSettings? {
        guard var s = options.settings(forOutput: o.info.name, description: o.info.description) else { return nil }
        guard failedVideos[s.video] == nil, playlistKind(s.video) else { return s }
        let source = PlaylistSource.canonical(s.video)
        let key = PlaylistRun.Key(source: source, shuffle: s.shuffle, interval: s.interval, loops: s.loops)
        let run: PlaylistRun
        if let r = playlists[key] { run = r } else {
            switch PlaylistSource.items(source, log: log.scoped("playlist")) {
            case .failure(let e):
                failedVideos[s.video] = e
                log.scoped("video").error("\(e)")
                return s
            case .success(let items):
                run = PlaylistRun(key: key, items: items)
                // Its interval, loops or order changed (`ctl set --interval`): it goes on from
                // the video this output plays, not from the first.
                if let old = heads.values.first(where: { $0.output === o }).flatMap({ self.run(of: $0) }), old.key.source == source,
                   let playing = old.playlist.current {
                    run.carry(from: old, playing: playing)
                }
                if let c = run.playlist.current, failedVideos[c] != nil { run.playlist.nextPlayable { self.failedVideos[$0] != nil } }
                playlists[key] = run
                log.notice("playlist '\(source)': \(items.count) video(s)\(s.shuffle ? ", shuffled" : "")"
                    + (s.interval.map { ", switching every \(DurationText.format($0))" } ?? ""))
            }
        }
        s.playlist = source
        s.video = run.playlist.current ?? s.video
        return s
    }

    /// Whether `path` names a playlist (remembered: settings are recomputed often).
    func playlistKind(_ path: String) -> Bool {
        if let k = playlistPaths[path] { return k }
        let k = PlaylistSource.isPlaylist(path)
        playlistPaths[path] = k
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
        playlistPaths = playlistPaths.filter { options.videos.contains($0.key) }
        checkedItems.formIntersection(playlistItems)
    }

    /// Nothing of `path` can ever be shown: it failed, or it is a playlist all of whose videos did.
    func isUnplayable(_ path: String) -> Bool {
        if failedVideos[path] != nil { return true }
        guard playlistKind(path) else { return false }
        let source = PlaylistSource.canonical(path)
        let runs = playlists.values.filter { $0.key.source == source }
        return !runs.isEmpty && runs.allSatisfy { $0.playlist.items.allSatisfy { failedVideos[$0] != nil } }
    }

    /// Every video a playlist in use names (their failures are kept, their files watched).
    var playlistItems: Set<String> { Set(playlists.values.flatMap(\.playlist.items)) }

    /// Videos opened ahead of a playlist switch.
    var preloads: Set<String> { Set(playlists.values.compactMap(\.preload).filter { failedVideos[$0] == nil }) }

    /// Once per pass of the loop, before drawing: starts each run's clock when its video is on
    /// screen, opens the next video ahead, and switches when the interval is over or the next
    /// frame would start a pass beyond --loops (on a frame boundary: that frame is never shown).
    func advancePlaylists(now: Nanos) {
        var switched = false
        for run in playlists.values {
            let shown = heads.values.filter { self.run(of: $0) === run }
            guard !shown.isEmpty, let current = run.playlist.current else { continue }
            let failed: (String) -> Bool = { self.failedVideos[$0] != nil }
            if failed(current) {
                // Its error line was said when it failed; the next playable one takes over.
                if let next = run.playlist.upcomingPlayable(failed), next != current {
                    // (debug: the failure's own error line is the one line a user sees)
                    if run.skipped.insert(current).inserted { log.debug("playlist '\(run.key.source)': skipping '\(current)'") }
                    run.playlist.nextPlayable(failed)
                    run.moved()
                    switched = true
                }
                continue
            }
            guard let v = videos[current], v.isReady, let frame = v.current,
                  shown.contains(where: { $0.drawn?.video == current }) else { continue }
            if run.lastSeenTick == nil || frame.pass < run.startPass { run.restart(at: now, pass: frame.pass) }
            // Seen: some output showing it is neither paused nor unpresented (covered by a
            // fullscreen window counts as paused).
            if shown.contains(where: { $0.drawn?.video == current && !$0.drawPaused && !$0.player.pauseReasons.contains(.hidden) }) {
                run.seen += Double(now - (run.lastSeenTick ?? now)) / 1e9
            }
            run.lastSeenTick = now
            let upcoming = run.playlist.upcomingPlayable(failed)
            let decision = PlaylistTiming.decide(interval: run.key.interval, loops: run.loopsPerVideo,
                                                 elapsed: run.seen,
                                                 passes: frame.pass - run.startPass, nextPass: v.nextPass.map { $0 - run.startPass },
                                                 nextIsDue: (v.nextDeadline ?? .max) <= now, still: v.isStill)
            let due = decision.due, lead = decision.preload
            let other = upcoming.flatMap { $0 == current ? nil : $0 }
            if run.preload != (lead ? other : nil) {
                run.preload = lead ? other : nil
                needsReconcile = true
            }
            guard due else { continue }
            guard let next = other else {
                // Nothing else can play (or the next entry is this same file again): the video
                // plays on, the cursor moves (a list with a file twice must not stop there)
                // and the clock starts again.
                if upcoming != nil && run.playlist.count > 1 { run.playlist.nextPlayable(failed) }
                run.restart(at: now, pass: frame.pass)
                continue
            }
            // Not open yet (a preload only just asked for): the old video plays on meanwhile.
            guard videos[next]?.isReady == true else { continue }
            run.playlist.nextPlayable(failed)
            run.moved()
            switched = true
        }
        if switched {
            recomputeTargets()
            reconcile()
        }
    }

    /// When the loop must wake for a playlist whose video will not wake it (a still picture:
    /// nothing more is decoded or drawn): the end of its interval, or of its passes.
    func playlistDeadline(now: Nanos) -> Nanos? {
        playlists.values.compactMap { run -> Nanos? in
            guard run.lastSeenTick != nil, let c = run.playlist.current, videos[c]?.isStill == true else { return nil }
            let length = run.key.interval ?? run.loopsPerVideo.map { Double($0) * PlaylistTiming.stillPass }
            return length.map { now + Nanos(max(0, $0 - run.seen) * 1e9) }
        }.min()
    }

    /// `ctl next|prev [OUTPUT]`: the runs of the matched outputs move one step; the reply comes
    /// once the new video is on screen.
    func stepPlaylists(_ pattern: String?, forward: Bool, client: Int) {
        let matched = matching(pattern)
        if let pattern, matched.isEmpty {
            control?.reply(to: client, ControlError.noSuchOutput(pattern).reply)
            return
        }
        var runs: [PlaylistRun] = []
        for h in matched { if let r = run(of: h), !runs.contains(where: { $0 === r }) { runs.append(r) } }
        guard !runs.isEmpty else {
            let who = pattern.map { "'\($0)' plays no playlist" } ?? "no output plays a playlist"
            control?.reply(to: client, ControlError.refused("\(who) (name a directory or a playlist file as its video)").reply)
            return
        }
        let failed: (String) -> Bool = { self.failedVideos[$0] != nil }
        for r in runs {
            if forward {
                r.playlist.nextPlayable(failed)
            } else {
                var steps = 0
                repeat { r.playlist.prev(); steps += 1 } while r.playlist.current.map(failed) == true && steps < r.playlist.count
            }
            r.moved()
        }
        recomputeTargets()
        reconcile()
        let names = matched.filter { h in runs.contains { $0 === run(of: h) } }
        let message = names.map { h in "\(h.name): '\(h.target?.video ?? "")'" + (playlistStatus(h).map { " (\($0.position)/\($0.count))" } ?? "") }
        pending.append(PendingReply(client: client, waiting: [], playlists: Set(runs.map(\.key.source)),
                                    success: .object([("ok", .bool(true)), ("message", .string(message.joined(separator: ", ")))])))
        resolvePending()
    }

    /// Where an output is in its playlist, for `status` and the events.
    func playlistStatus(_ h: Head) -> PlaylistStatus? {
        guard let r = run(of: h), let p = r.playlist.position else { return nil }
        return PlaylistStatus(source: r.key.source, position: p + 1, count: r.playlist.count, nextSwitch: r.remaining(now: Sys.now()))
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
                    checkedItems.remove(item)
                    failedVideos[item] = nil
                }
                r.playlist.replaceItems(items)
                r.skipped = []
                r.preload = nil
                log.notice("playlist '\(source)' changed: \(items.count) video(s), from the next switch")
            }
        }
    }
}
