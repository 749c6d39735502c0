// The draw pass: each head applies its configure, the pass decides once which pictures several
// outputs share, then each head draws (HeadDrawing.swift) when its frame callback fired and a
// new frame is due (or it was reconfigured), by the pure Schedule, and the app acts on what it
// reports. Main thread only.
import WayLoopCore

extension App {
    /// The clips `h` draws from.
    func clips(_ h: Head) -> HeadClips {
        HeadClips(drawn: h.drawn.flatMap { videos.clip($0.video) }, fading: h.fade.flatMap { videos.clip($0.from.video) })
    }

    /// Draws every head: configures first, then what is shared is decided once for the pass
    /// (Director.sharedPictures), then each head draws (HeadDrawing.swift) and the app acts on
    /// what it reports.
    func drawAll(now: Nanos) {
        let configured = heads.mapValues { $0.configure() }
        let shown = heads.mapValues(\.shownPicture)
        let shared = Director.sharedPictures(Array(shown.values))
        for (id, h) in heads {
            var report = configured[id] ?? DrawReport()
            let sharing = (shown[id] ?? nil).map { shared.contains($0) && device?.sharesConversion(clip: $0.video, size: Size(width: $0.width, height: $0.height)) == true } ?? false
            h.draw(clips(h), now: now, trace: trace, shared: sharing, report: &report)
            act(on: report, of: h, now: now)
        }
    }

    /// What one head's draw reported.
    private func act(on report: DrawReport, of h: Head, now: Nanos) {
        if let path = report.restarted { log.debug("'\(path)': wanted again: decoder restarted") }
        if let failure = report.failure { log.error("\(h.name): \(failure)") }
        if report.hidden { apply(h, .pause(.hidden)) }
        startup?.drew(configured: report.resized ? now : nil, committed: report.committed ? Sys.now() : nil)
        if report.resized, let s = h.surface { log.debug("\(h.name): buffers \(s.bufferSize) for \(s.logicalSize) logical") }
        if report.resized || report.fadeEnded { needsReconcile = true }
    }
}
