// The library pages untouched during steady playback, handed back (ColdPages). What memory
// pressure gives back is the player's (Player.releaseMemory). Main thread only.
import CSystem
import WayLoopCore

extension App {
    /// Once playback is steady (ColdPageClock): every page's referenced bit cleared, then, on a
    /// thread of its own, the library pages playback did not touch since handed back to the
    /// kernel (ColdPages.plan), in one debug line. Where /proc/self/clear_refs cannot be written,
    /// nothing is handed back.
    func handBackColdPages(now: Nanos) {
        let presented = heads.values.reduce(0) { $0 + ($1.sink?.costs.present.count ?? 0) }
        let playing = heads.values.contains { $0.player.state == .playing }
        let log = log.scoped("memory")
        switch coldPages.fire(now: now, presented: presented, playing: playing) {
        case .none:
            break
        case .clearReferences:
            if csys_clear_refs() != 0 {
                log.debug("library pages: cannot clear the referenced bits (/proc/self/clear_refs: \(Sys.errnoText())); none handed back")
                coldPages = ColdPageClock(start: now, enabled: false)
            }
        case .handBack:
            // Off the main thread: reading smaps and the kernel's reclaim take tens of milliseconds
            // (126 ms once here), as long as four frames.
            let window = coldPages.window / .nanosPerSecond
            coldPagesWorker = WorkerThread { Self.handBack(window: window, log: log) }
        }
    }

    /// Reads /proc/self/smaps, hands back what ColdPages.plan chooses, and says so in one debug line.
    private nonisolated static func handBack(window: Nanos, log: Logger) {
        let start = Sys.now()
        guard case .success(let smaps) = Sys.readFile("/proc/self/smaps", limit: 16 << 20) else {
            log.debug("library pages: cannot read /proc/self/smaps; none handed back")
            return
        }
        let before = Sys.rssKB()
        var plan = ColdPages.plan(ColdPages.parse(smaps), executable: Sys.executablePath)
        // Reading smaps took milliseconds: only what is still mapped as it was then.
        guard case .success(let maps) = Sys.readFile("/proc/self/maps", limit: 4 << 20) else {
            log.debug("library pages: cannot read /proc/self/maps; none handed back")
            return
        }
        let current = ColdPages.parse(maps)
        plan = (ColdPages.stillMapped(plan.pageOut, in: current), ColdPages.stillMapped(plan.unmap, in: current))
        var refused = 0
        for m in plan.pageOut where csys_pageout(m.start, m.end - m.start) != 0 { refused += 1 }
        for m in plan.unmap where csys_unmap_pages(m.start, m.end - m.start) != 0 { refused += 1 }
        let mb = { (ms: [Mapping]) in ms.reduce(0) { $0 + $1.rssKB } >> 10 }
        log.debug("library pages: handed back those of \(Set(plan.pageOut.map(\.path)).count) libraries untouched in "
            + "\(window) s of playback (\(mb(plan.pageOut)) MB), unmapped the code of \(Set(plan.unmap.map(\.path)).count) "
            + "in use (\(mb(plan.unmap)) MB)\(refused > 0 ? ", \(refused) mapping(s) refused" : ""); "
            + "RSS \(before >> 10) → \(Sys.rssKB() >> 10) MB, in \((Sys.now() - start) / 1_000_000) ms")
    }
}
