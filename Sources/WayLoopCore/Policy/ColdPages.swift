// Cold library pages: what wayloop hands back once it plays steadily. Debian's FFmpeg links about
// 140 shared libraries (encoders, network protocols, subtitle renderers, TLS, …) that a player of
// local video files never calls; the dynamic loader touches pages of every one of them at start-up
// (symbol tables for the lookups, relocations, constructors), and those pages stay resident and
// count in RSS: measured here at 1080p, 21 MB of the 33 MB of library pages were clean pages of
// the process's own. Once playback is steady, the referenced bits of every page are cleared, and a
// while later each library mapping none of whose pages was touched since is handed back to the
// kernel (madvise MADV_PAGEOUT: clean pages are dropped, and read again from the file should they
// ever be needed; pages other processes map too stay). Pure: the clock that decides when, and the
// choice of mappings from /proc/self/smaps; the shell (App) clears the bits and calls madvise.

/// One mapping of /proc/PID/smaps: its range, what it maps, and its pages in kB.
public struct Mapping: Equatable, Sendable {
    public var start: UInt
    public var end: UInt
    /// The mapped file's path ("" for anonymous memory, "[heap]" and the like for the kernel's names).
    public var path: String
    /// "r-xp" and the like.
    public var perms: String
    /// The mapped file's inode (0 for anonymous memory).
    public var inode: Int
    public var rssKB: Int
    public var referencedKB: Int
    public var anonymousKB: Int

    public init(start: UInt, end: UInt, path: String, perms: String = "r--p", inode: Int = 1, rssKB: Int, referencedKB: Int,
                anonymousKB: Int) {
        self.start = start
        self.end = end
        self.path = path
        self.perms = perms
        self.inode = inode
        self.rssKB = rssKB
        self.referencedKB = referencedKB
        self.anonymousKB = anonymousKB
    }
}

public enum ColdPages {
    /// The mappings of a /proc/PID/smaps text (malformed lines are skipped).
    public static func parse(_ smaps: String) -> [Mapping] {
        var out: [Mapping] = []
        for line in smaps.split(separator: "\n", omittingEmptySubsequences: true) {
            if let m = header(line) {
                out.append(m)
                continue
            }
            guard !out.isEmpty, let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon]
            let fields = line[line.index(after: colon)...].split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count == 2, fields[1] == "kB", let kb = Int(fields[0]) else { continue }
            switch key {
            case "Rss": out[out.count - 1].rssKB = kb
            case "Referenced": out[out.count - 1].referencedKB = kb
            case "Anonymous": out[out.count - 1].anonymousKB = kb
            default: break
            }
        }
        return out
    }

    /// "start-end perms offset dev inode [path]": a mapping's first line; nil for any other line.
    private static func header(_ line: Substring) -> Mapping? {
        let f = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
        guard f.count >= 5, let dash = f[0].firstIndex(of: "-"),
              let start = UInt(f[0][..<dash], radix: 16), let end = UInt(f[0][f[0].index(after: dash)...], radix: 16),
              end > start, f[1].count == 4, let inode = Int(f[4]) else { return nil }
        let path = f.count == 6 ? String(f[5]).trimmingLeadingSpaces() : ""
        return Mapping(start: start, end: end, path: path, perms: String(f[1]), inode: inode, rssKB: 0, referencedKB: 0, anonymousKB: 0)
    }

    /// What to hand back of a shared library's (a file whose name has ".so") or the `executable`'s
    /// own mappings with pages resident. Anonymous memory, the heap, the stacks and deleted files
    /// are never chosen.
    /// - `pageOut`: none of its pages referenced since the bits were cleared: reclaimed
    ///   (MADV_PAGEOUT), read from the file again should it ever be needed;
    /// - `unmap`: some referenced, read-only and holding no page of its own (no copy-on-write
    ///   page: every page is the file's): its page-table entries dropped (MADV_DONTNEED), so that
    ///   only the pages playback touches come back, from the page cache (a minor fault each),
    ///   and the rest stay there, for the kernel to reclaim when memory is short.
    /// Writable mappings and those with pages of their own (relocations) that were touched are left.
    public static func plan(_ maps: [Mapping], executable: String?) -> (pageOut: [Mapping], unmap: [Mapping]) {
        var pageOut: [Mapping] = [], unmap: [Mapping] = []
        for m in maps where m.path.hasPrefix("/") && (m.path == executable || isLibrary(m.path))
            && !m.path.hasSuffix(" (deleted)") && m.rssKB > 0 {
            if m.referencedKB == 0 {
                pageOut.append(m)
            } else if !m.perms.contains("w"), m.anonymousKB == 0 {
                unmap.append(m)
            }
        }
        return (pageOut, unmap)
    }

    /// Those of `chosen` that `current` (a fresh read of /proc/self/maps, which `parse` reads too)
    /// still holds as they were: the same range, permissions, file and inode. Read just before
    /// the pages are handed back, so that a library unloaded since smaps was read (and whatever
    /// was mapped in its place) is never touched.
    public static func stillMapped(_ chosen: [Mapping], in current: [Mapping]) -> [Mapping] {
        struct Key: Hashable { let start: UInt, end: UInt, perms: String, path: String, inode: Int }
        let now = Set(current.map { Key(start: $0.start, end: $0.end, perms: $0.perms, path: $0.path, inode: $0.inode) })
        return chosen.filter { now.contains(Key(start: $0.start, end: $0.end, perms: $0.perms, path: $0.path, inode: $0.inode)) }
    }

    /// libfoo.so, libfoo.so.1.2: a shared object by its file name.
    static func isLibrary(_ path: String) -> Bool {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return name.hasSuffix(".so") || name.contains(".so.")
    }
}

/// When to clear the referenced bits and when to hand the cold pages back: once, after playback
/// has been steady (something playing, frames presented) for a settling time and then for the
/// whole observation window; tried again later when it was not.
public struct ColdPageClock: Equatable, Sendable {
    public enum Phase: Equatable, Sendable {
        /// Waiting for playback to settle.
        case settling(until: Nanos)
        /// The bits were cleared at `since`, with `presented` frames presented so far.
        case observing(until: Nanos, presented: Int)
        /// Handed back (or switched off).
        case done
    }

    public enum Step: Equatable, Sendable {
        case none
        /// Clear every page's referenced bit (/proc/self/clear_refs).
        case clearReferences
        /// Hand back what was not referenced since.
        case handBack
    }

    public private(set) var phase: Phase
    public let settle: Nanos
    public let window: Nanos
    /// Frames per second presented over the window, at least, for it to count as steady.
    public static let minimumFps = 5.0

    /// `enabled`: false for `WAYLOOP_COLD_PAGES=off`.
    public init(start: Nanos, enabled: Bool = true, settle: Nanos = 10 * .nanosPerSecond, window: Nanos = 10 * .nanosPerSecond) {
        self.settle = settle
        self.window = window
        phase = enabled ? .settling(until: start + settle) : .done
    }

    /// When it must fire next (nil: never again).
    public var due: Nanos? {
        switch phase {
        case .settling(let t), .observing(let t, _): return t
        case .done: return nil
        }
    }

    /// At `now` (at or after `due`): with `presented` frames presented so far by every output,
    /// and whether one plays (not paused, not hidden): what to do.
    public mutating func fire(now: Nanos, presented: Int, playing: Bool) -> Step {
        switch phase {
        case .done:
            return .none
        case .settling(let t):
            guard now >= t else { return .none }
            guard playing else {
                phase = .settling(until: now + settle)
                return .none
            }
            phase = .observing(until: now + window, presented: presented)
            return .clearReferences
        case .observing(let t, let before):
            guard now >= t else { return .none }
            let seconds = Double(window) / Double(Nanos.nanosPerSecond)
            guard playing, Double(presented - before) >= Self.minimumFps * seconds else {
                // Paused or stalled meanwhile: what looked cold may be what playback needs.
                phase = .settling(until: now + settle)
                return .none
            }
            phase = .done
            return .handBack
        }
    }
}

private extension String {
    func trimmingLeadingSpaces() -> String { String(drop { $0 == " " }) }
}
