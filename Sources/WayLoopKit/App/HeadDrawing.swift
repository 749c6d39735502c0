// One output's drawing: how the schedule sees it, and the draw itself (a configure applied, the
// video's next frame, a fade's step or the fallback colour committed). The app decides when
// (every pass, for every head; the pure Schedule says whether anything is due) and hears what
// happened in a DrawReport. Main thread only.
import WayLoopCore

/// What one head's draw tells the app.
struct DrawReport {
    /// Its buffers changed size (a new size may need frames decoded at another scale).
    var resized = false
    /// Its frame callbacks stopped for Schedule.hiddenAfter: it is not presented.
    var hidden = false
    /// A fade ended, or could not go on: the old video may be kept or stopped.
    var fadeEnded = false
    /// A released video's decoder was started again (its path).
    var restarted: String?
    /// It committed a picture (a frame, a fade's step or the colour).
    var committed = false
    /// Drawing failed for good: the surface is gone until the settings change; the line says why.
    var failure: String?
}

/// The clips a head draws from: the video it draws and the one fading out under it.
struct HeadClips {
    var drawn: Clip?
    var fading: Clip?
}

extension Head {
    /// What the schedule needs to know about it (nil: no surface).
    func scheduleState(_ c: HeadClips, now: Nanos) -> Schedule.Output? {
        guard let s = surface, let sink else { return nil }
        var content = Schedule.Content.nothing
        var picture: Picture?
        if solid != nil {
            content = .colour
        } else if let v = c.drawn, v.isReady {
            picture = v.picture
            let step = fadeStep(c)
            // Under a cap, the next frame worth a commit is the first of the next slot.
            let slotStart = FrameCap.nextStart(shownSlot: shownSlot, cap: cap).flatMap(v.wallTime(ofMedia:))
            content = .video(Schedule.Video(released: v.isReleased, hasFrame: v.current != nil,
                                            frameIsNew: isNew(v) || step.map { now >= $0 } == true,
                                            nextDue: [v.nextDeadline.map { max($0, slotStart ?? $0) }, step].compactMap { $0 }.min()))
        }
        return Schedule.Output(configured: s.isConfigured, needsRedraw: s.needsRedraw, awaitingFrame: s.awaitingFrame,
                               frameRequestedAt: s.frameRequestedAt, hidden: player.pauseReasons.contains(.hidden),
                               paused: drawPaused, sinkCanDraw: sink.canDraw(picture, settings: solid == nil ? drawn : nil, on: s),
                               content: content)
    }

    /// The clip's frame is not the one committed here, and is worth a commit under the cap.
    private func isNew(_ v: Clip) -> Bool {
        guard let s = surface, s.shownSerial != v.serial else { return false }
        return v.current.map { FrameCap.isNew(mediaTime: $0.mediaTime, shownSlot: shownSlot, cap: cap) } ?? true
    }

    /// When a fade's next step is due, like a new frame (nil: no fade that can draw).
    private func fadeStep(_ c: HeadClips) -> Nanos? {
        guard fade != nil, c.drawn?.current != nil, c.fading?.current != nil else { return nil }
        return lastFadeDraw + Transition.fadeStep
    }

    /// Applies a configure that came: the sink's buffers for the new size (a failure drops the
    /// surface). The first step of each head's draw, before the pass decides what is shared.
    func configure() -> DrawReport {
        var report = DrawReport()
        guard let s = surface, let sink, s.applyConfigure() else { return report }
        do { try sink.resize(s) } catch {
            report.failure = "\(error)"
            dropSurface()
            return report
        }
        s.sinkReady = true
        report.resized = true
        return report
    }

    /// What it shows now, as the pass weighs sharing (nil: no video, or no buffers).
    var shownPicture: SharedPicture? {
        guard let d = drawn, solid == nil, let size = surface?.bufferSize, !size.isEmpty else { return nil }
        return SharedPicture(video: d.video, width: size.width, height: size.height)
    }

    /// Notices that it stopped being presented, and draws when the schedule says so.
    /// `shared`: other outputs of that size show the clip, and the device converts it once.
    func draw(_ c: HeadClips, now: Nanos, trace: FrameTrace?, shared: Bool, report: inout DrawReport) {
        nextWake = nil
        guard let s = surface, sink != nil else { return }
        report.hidden = Schedule.isHidden(awaitingFrame: s.awaitingFrame, requestedAt: s.frameRequestedAt, now: now)
        guard let state = scheduleState(c, now: now) else { return }
        // The next wake-up from the same schedule: unchanged when nothing may draw now; after a
        // commit, when the frame callback would be late (the output hidden); and worked out
        // again only when it might have drawn and did not commit.
        guard Schedule.mayDraw(state) else {
            // Found hidden just now (the app pauses it): no wake-up, the frame callback will come.
            nextWake = report.hidden ? nil : Schedule.wake(state, now: now)
            return
        }
        defer {
            if report.committed, let s = surface, s.awaitingFrame {
                nextWake = s.frameRequestedAt + Schedule.hiddenAfter
            } else {
                nextWake = scheduleState(c, now: now).flatMap { Schedule.wake($0, now: now) }
            }
        }
        drawNow(c, on: s, now: now, trace: trace, shared: shared, report: &report)
    }

    private func drawNow(_ c: HeadClips, on s: LayerSurface, now: Nanos, trace: FrameTrace?, shared: Bool, report: inout DrawReport) {
        guard let sink else { return }
        do {
            if let colour = solid {
                guard s.needsRedraw else { return }
                try sink.present(colour: colour, on: s)
                s.didDraw(serial: 0)
                report.committed = true
                return
            }
            try drawVideo(c, on: s, sink: sink, now: now, trace: trace, shared: shared, report: &report)
        } catch {
            guard !error.isWaiting else { return }
            // Not a passing state (out of memory, a conversion libswscale refuses): drop the
            // surface rather than retry every pass; the next change of settings makes it again.
            report.failure = "\(error); its surface is removed until its settings change"
            dropSurface()
        }
    }

    private func drawVideo(_ c: HeadClips, on s: LayerSurface, sink: Sink, now: Nanos, trace: FrameTrace?,
                           shared: Bool, report: inout DrawReport) throws(SinkError) {
        guard let settings = drawn, let v = c.drawn, v.isReady else { return }
        let step = Schedule.videoStep(released: v.isReleased, paused: drawPaused, hasFrame: v.current != nil)
        if step.restart {
            report.restarted = settings.video
            v.restart()
        }
        if step.advance { _ = v.advance(now: now) }  // once per pass, however many outputs show it
        let fading = fadeLayer(c.fading, now: now, report: &report)
        let stepDue = fading != nil && now >= lastFadeDraw + Transition.fadeStep
        guard let frame = v.current, let picture = v.picture,
              Schedule.worthCommit(needsRedraw: s.needsRedraw, frameIsNew: isNew(v), fadeStepDue: stepDue) else { return }
        let note = trace.map { CommitNote(trace: $0, output: id, name: name, surface: s.wlSurface, frame: frame, video: settings.video,
                                          weight: fading?.weight ?? 1, at: now) }
        try sink.present(picture, settings: settings, on: s, shared: fading == nil && shared, fading: fading, note: note)
        s.didDraw(serial: v.serial)
        report.committed = true
        shownSlot = cap.map { FrameCap.slot(frame.mediaTime, fps: $0) }
        v.lastDrawn = now
        if fading != nil { lastFadeDraw = now }
        presentedVideo = settings.video
    }

    /// The picture fading out under the new video, and the new one's weight now; nil once the
    /// fade is over (or cannot go on: the old video is gone, or the output paused), which ends it.
    private func fadeLayer(_ old: Clip?, now: Nanos, report: inout DrawReport) -> FadeLayer? {
        guard let f = fade else { return nil }
        let start = f.start ?? now
        let weight = Transition.weight(elapsed: Double(now - start) / 1e9, duration: f.seconds)
        guard let old, Schedule.fadeGoesOn(weight: weight, paused: drawPaused, oldReady: old.isReady, oldReleased: old.isReleased) else {
            fade = nil
            // The new picture alone, at once (the last step was still a mix).
            surface?.invalidate()
            report.fadeEnded = true
            return nil
        }
        _ = old.advance(now: now)
        guard let picture = old.picture else { return nil }
        if f.start == nil { fade?.start = now }
        return FadeLayer(picture: picture, settings: f.from, weight: weight)
    }
}
