// One record per video file: everything WayLoop knows about a file, in one place, keyed by its
// path (kept byte for byte: PathBytes). Whether its decoder runs (the shell's `Clip`, generic
// here so that the table is pure and table-tested), whether it failed and why, since when it
// is kept for a switch back, when a change on disk settles, whether the path names a playlist,
// and whether a playlist's video was checked before it first opened. Main thread only.

/// What is known about one video file.
public struct VideoRecord<Clip> {
    /// Its decoder while it is open.
    public var clip: Clip?
    /// It cannot be played, and why (nil: it can, as far as is known).
    public var failure: VideoError?
    /// No output shows it, but it is kept ready for a switch back (`--keep-recent`): the order
    /// in which it became so (the oldest goes first).
    public var recentOrder: Int?
    /// It changed on disk: acted on once this time has come (an editor or an encoder writes in
    /// several steps, so the change settles first).
    public var changeDue: Nanos?
    /// The path names a playlist (a directory, a .m3u/.txt file): remembered once looked at.
    public var isPlaylist: Bool?
    /// As a playlist's video: checked (Preflight) before its decoder first started.
    public var checked = false

    public init() {}

    /// Nothing is known: the record can go.
    var isEmpty: Bool {
        clip == nil && failure == nil && recentOrder == nil && changeDue == nil && isPlaylist == nil && !checked
    }
}

public struct VideoTable<Clip> {
    /// Every file the table knows something about.
    public private(set) var records: [String: VideoRecord<Clip>] = [:]
    private var recentCount = 0

    public init() {}

    /// The record of `path` (an empty one when nothing is known); setting an empty record forgets it.
    public subscript(path: String) -> VideoRecord<Clip> {
        get { records[path] ?? VideoRecord() }
        set { records[path] = newValue.isEmpty ? nil : newValue }
    }

    /// How many files the table knows something about (bounded: see `forget`).
    public var count: Int { records.count }

    /// The open videos, by path. (The accessors the loop asks every pass are inlinable, so
    /// that the shell gets them specialized for its `Clip`, not through generic metadata.)
    @inlinable
    public var open: [(path: String, clip: Clip)] {
        records.compactMap { r in r.value.clip.map { (r.key, $0) } }
    }

    @inlinable
    public func clip(_ path: String) -> Clip? { records[path]?.clip }
    @inlinable
    public func failure(_ path: String) -> VideoError? { records[path]?.failure }
    @inlinable
    public func failed(_ path: String) -> Bool { records[path]?.failure != nil }

    /// The files that cannot be played, and why.
    public var failures: [String: VideoError] { records.compactMapValues { $0.failure } }

    public mutating func setFailure(_ path: String, _ e: VideoError?) { self[path].failure = e }

    /// Its decoder started (or stopped: nil). A stopped video is not kept for a switch back.
    public mutating func setClip(_ path: String, _ clip: Clip?) {
        self[path].clip = clip
        if clip == nil { self[path].recentOrder = nil }
    }

    // MARK: Kept for a switch back

    /// The videos kept ready for a switch back, the oldest first.
    @inlinable
    public var recent: [String] {
        records.compactMap { r in r.value.recentOrder.map { (r.key, $0) } }.sorted { $0.1 < $1.1 }.map { $0.0 }
    }

    @inlinable
    public func isRecent(_ path: String) -> Bool { records[path]?.recentOrder != nil }

    /// Marks it kept (the newest); a video already kept keeps its place.
    public mutating func keep(_ path: String) {
        guard !isRecent(path) else { return }
        recentCount += 1
        self[path].recentOrder = recentCount
    }

    public mutating func unkeep(_ path: String) { self[path].recentOrder = nil }

    // MARK: Changes on disk

    public mutating func changed(_ path: String, due: Nanos) { self[path].changeDue = due }

    /// The changes that have settled by `now`, in path order; they are taken off the table.
    public mutating func takeSettledChanges(now: Nanos) -> [String] {
        let due = records.filter { ($0.value.changeDue ?? .max) <= now }.map { $0.key }.sorted()
        for p in due { self[p].changeDue = nil }
        return due
    }

    /// The soonest time a change settles (nil: none pending).
    @inlinable
    public var nextChangeDue: Nanos? { records.values.compactMap { $0.changeDue }.min() }

    // MARK: Bounds

    /// Forgets what nothing needs any more: failures and checks of files no entry or playlist
    /// names, and the playlist kind of paths no entry names (10 000 `ctl set`s of missing files
    /// must not grow the table).
    public mutating func forget(failuresExcept named: Set<String>) {
        for (p, r) in records where r.failure != nil && !named.contains(p) { self[p].failure = nil }
    }

    public mutating func forget(kindsExcept named: Set<String>, checksExcept items: Set<String>) {
        for (p, r) in records {
            if r.isPlaylist != nil && !named.contains(p) { self[p].isPlaylist = nil }
            if r.checked && !items.contains(p) { self[p].checked = false }
        }
    }
}
