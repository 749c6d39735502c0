// The playlist runs in use (PlaylistRun, WayLoopCore), keyed by what their outputs' settings
// say (source, order, interval, loops): a run starts by reading its playlist, goes on from the
// video an output plays when only its settings change, and takes a changed directory or file
// from its next switch. Main thread only.
import WayLoopCore

final class PlaylistRuns {
    private(set) var runs: [PlaylistRun.Key: PlaylistRun] = [:]
    private let log: Logger
    /// Places the state file kept, taken up by the run of the same key when it starts.
    private(set) var restoring: [PlaylistRun.Key: SavedPlaylist] = [:]
    /// Counts runs started and ended (with their cursors' moves: `generation`).
    private var changes = 0

    init(log: Logger, restoring saved: [SavedPlaylist] = []) {
        self.log = log
        for p in saved { restoring[p.key] = p }
    }

    /// Changes with every run started or ended and every move of a cursor (the state file is
    /// saved again when it does).
    var generation: Int {
        var g = changes
        for r in runs.values.sorted(by: { $0.key.source < $1.key.source }) { g = g &* 1_000_003 &+ r.moves }
        return g
    }

    /// What the state file keeps: where each run is, and the places not taken up yet (an
    /// output that is not connected now).
    var saved: [SavedPlaylist] {
        let live = runs.values.compactMap(\.saved)
        let waiting = restoring.values.filter { runs[$0.key] == nil }
        return (live + waiting).sorted { ($0.key.source, $0.current) < ($1.key.source, $1.current) }
    }

    /// `ctl forget`: no place is kept for a run that is not playing.
    func forgetSaved() {
        restoring = [:]
        changes += 1
    }

    var all: [PlaylistRun] { Array(runs.values) }

    /// The run settings `t` play from.
    func run(of t: OutputSettings?) -> PlaylistRun? {
        guard let t, let source = t.playlist else { return nil }
        return runs[PlaylistRun.Key(source: source, shuffle: t.shuffle, interval: t.interval, loops: t.loops)]
    }

    /// `s`, whose video names a playlist, with the video its run plays now. A new run reads the
    /// playlist (a failure is recorded for the path `s` names); `old` is the run the output
    /// played from, so that a run with new settings (`ctl set --interval`) goes on from its video.
    func resolve(_ s: OutputSettings, old: PlaylistRun?, videos: inout VideoTable<Clip>) -> OutputSettings {
        let source = PlaylistSource.canonical(s.video)
        let key = PlaylistRun.Key(source: source, shuffle: s.shuffle, interval: s.interval, loops: s.loops)
        guard let run = runs[key] ?? start(key, old: old, named: s.video, videos: &videos) else { return s }
        var s = s
        s.playlist = source
        s.video = run.playlist.current ?? s.video
        return s
    }

    private func start(_ key: PlaylistRun.Key, old: PlaylistRun?, named: String, videos: inout VideoTable<Clip>) -> PlaylistRun? {
        switch PlaylistSource.items(key.source, log: log.scoped("playlist")) {
        case .failure(let e):
            videos.setFailure(named, e)
            log.scoped("video").error("\(e)")
            return nil
        case .success(let items):
            let run = PlaylistRun(key: key, items: items, seed: UInt64(truncatingIfNeeded: Sys.now()))
            if let old, old.key.source == key.source, let playing = old.playlist.current {
                run.carry(from: old, playing: playing)
            } else if let saved = restoring.removeValue(forKey: key) {
                // Where it was at the last stop (a video no longer listed: from the start).
                if run.playlist.resume(at: saved.current, round: saved.round) {
                    log.notice("playlist '\(key.source)': going on from '\(saved.current)', where the last run left it")
                }
            }
            changes += 1
            let failed = videos.failures
            if let c = run.playlist.current, failed[c] != nil { run.playlist.nextPlayable { failed[$0] != nil } }
            runs[key] = run
            log.notice("playlist '\(key.source)': \(items.count) video(s)\(key.shuffle ? ", shuffled" : "")"
                + (key.interval.map { ", switching every \(DurationText.format($0))" } ?? ""))
            return run
        }
    }

    /// Only the runs some output plays from stay (their preloaded video goes with the others).
    func keep(_ used: [PlaylistRun]) {
        let ids = Set(used.map(ObjectIdentifier.init))
        let before = runs.count
        runs = runs.filter { ids.contains(ObjectIdentifier($0.value)) }
        if runs.count != before { changes += 1 }
    }

    /// Every video a run names (their failures are kept, their files watched).
    var items: Set<String> { Set(runs.values.flatMap(\.playlist.items)) }

    var sources: Set<String> { Set(runs.values.map(\.key.source)) }

    /// Videos opened ahead of a switch.
    func preloads(failed: (String) -> Bool) -> Set<String> { Set(runs.values.compactMap(\.preload).filter { !failed($0) }) }

    /// When the loop must wake for a run whose video is a still picture (nothing else wakes it).
    func stillDeadline(now: Nanos, isStill: (String) -> Bool) -> Nanos? {
        runs.values.compactMap { run in run.playlist.current.flatMap { isStill($0) ? run.stillDeadline(now: now) : nil } }.min()
    }

    /// A watched playlist changed (a video added to or removed from its directory, the file
    /// edited): the new list applies from the next switch. New videos are checked when they
    /// come up; one that failed before is tried again. False when no run plays it.
    func changed(_ source: String, videos: inout VideoTable<Clip>) -> Bool {
        let mine = runs.values.filter { $0.key.source == source }
        for r in mine {
            switch PlaylistSource.items(source, log: log.scoped("playlist")) {
            case .failure(let e):
                log.notice("playlist '\(source)' changed: \(e); playing on from the list it had")
            case .success(let items):
                let old = Set(r.playlist.items)
                for item in Set(items) where !old.contains(item) {
                    videos[item].checked = false
                    videos.setFailure(item, nil)
                }
                r.playlist.replaceItems(items)
                changes += 1
                r.skipped = []
                r.preload = nil
                log.notice("playlist '\(source)' changed: \(items.count) video(s), from the next switch")
            }
        }
        return !mine.isEmpty
    }
}
