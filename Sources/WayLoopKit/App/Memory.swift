// Memory pressure (PressureMonitor: PSI, or the tests' FIFO): what is given back, as the
// director says (PressurePlan), and the one line that says so. Main thread only.
import CSystem
import WayLoopCore

extension App {
    /// The kernel (or a test) says memory is short: give back what the director says, trim the
    /// heap, and say so in one line (at most once per PressurePlan.minInterval).
    func memoryPressure(now: Nanos, source: String) {
        guard now - lastPressure >= PressurePlan.minInterval else { return }
        lastPressure = now
        let before = Sys.privateRSSKB()
        let open = videos.open
        var released = 0, caches = 0, cacheMB = 0, forgotten = 0
        for ((path, v), action) in zip(open, Director.pressure(open.map(\.path), world())) {
            switch action {
            case .forget:
                stopVideo(path)
                forgotten += 1
            case .release:
                v.release()
                released += 1
            case .giveUpCache:
                cacheMB += v.cacheBytes >> 20
                v.giveUpLoopCache()
                caches += 1
            case .keep: break
            }
        }
        device?.trim(before: now)
        _ = csys_malloc_trim()
        let after = Sys.privateRSSKB()
        log.scoped("memory").notice("memory pressure (\(source)): dropped \(forgotten) recent video(s), released \(released) video(s) nobody sees, "
            + "giving up \(caches) loop cache(s) (\(cacheMB) MB) at their next loop; private RSS \(before >> 10) → \(after >> 10) MB so far")
    }
}
