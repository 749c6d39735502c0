// The draw pass: each head draws (HeadDrawing.swift) when its frame callback fired and a new
// frame is due (or it was reconfigured), by the pure Schedule, and the app acts on what it
// reports. Main thread only.
import WayLoopCore

extension App {
    /// The clips `h` draws from.
    func clips(_ h: Head) -> HeadClips {
        HeadClips(drawn: h.drawn.flatMap { videos.clip($0.video) }, fading: h.fade.flatMap { videos.clip($0.from.video) })
    }

    /// Draws one head (HeadDrawing.swift) and acts on what it reports.
    func draw(_ h: Head, now: Nanos) {
        let report = h.draw(clips(h), now: now, trace: trace, shared: sharesPicture)
        if let path = report.restarted { log.debug("'\(path)': wanted again: decoder restarted") }
        if let failure = report.failure { log.error("\(h.name): \(failure)") }
        if report.hidden { apply(h, .pause(.hidden)) }
        startup?.drew(configured: report.resized ? now : nil, committed: report.committed ? Sys.now() : nil)
        if report.resized, let s = h.surface { log.debug("\(h.name): buffers \(s.bufferSize) for \(s.logicalSize) logical") }
        if report.resized || report.fadeEnded { needsReconcile = true }
    }

    /// Two or more outputs show `v` on buffers of a size the device can convert once for all
    /// (GL: the video's display size; the shm sink shares by its own key, whatever the size).
    private func sharesPicture(_ v: Clip, size: Size) -> Bool {
        guard device?.sharesConversion(clip: v.path, size: size) == true else { return false }
        return heads.values.filter { $0.surface?.bufferSize == size && $0.drawn?.video == v.path }.count >= 2
    }
}
