// Wayland events as the app sees them. Listeners only record: an output's arrival, its
// settings, a closed surface, a frame callback; the loop reconciles and draws after dispatch
// (a decoder thread started or joined inside a listener would stall the compositor's events
// for the whole connection). Main thread only.
import WayLoopCore

extension App: RegistryDelegate {
    func outputAdded(_ o: Output) {
        o.delegate = self
        heads[o.globalName] = Head(output: o)
        if let m = registry?.xdgOutputManager { o.attachXdgOutput(manager: m) }
    }

    func globalRemoved(name: UInt32) {
        guard let h = heads[name] else { return }
        log.notice("\(h.name): output removed")
        apply(h, .unload)
        heads[name] = nil
        assignSpans()
        pruneRuns()
        needsReconcile = true
    }
}

extension App: OutputDelegate {
    func outputDone(_ output: Output, changed: Bool, first: Bool) {
        guard let h = heads[output.globalName] else { return }
        let i = output.info
        let previous = h.target
        h.target = targetSettings(output)
        // Its place in the layout may change every span canvas (and it is compared below).
        assignSpans()
        if first {
            let what = h.target.map { "'\($0.video)'" } ?? "nothing (no entry matches)"
            log.debug("\(h.name): \(i.modeSize) scale \(i.scale) (\(i.description)): for \(what)")
        } else if changed {
            log.debug("\(h.name): now \(i.modeSize) scale \(i.scale)")
            h.surface?.setScale(i.scale)
            h.surface?.setOutputScale120(i.scale120)
        }
        if previous != h.target && !first {
            // The name arrived late (xdg-output) or the entry now matching differs.
            log.debug("\(h.name): settings changed")
        }
        if first || previous != h.target { needsReconcile = true }
    }
}

extension App: LayerSurfaceDelegate {
    func layerSurfaceClosed(_ surface: LayerSurface) {
        log.debug("\(outputName(surface.outputID)): layer surface closed by the compositor")
        heads[surface.outputID]?.dropSurface()
    }

    func layerSurfacePreferredScale(_ surface: LayerSurface, scale120: Int, shown: Bool) {
        log.debug("\(outputName(surface.outputID)): preferred \(Double(scale120) / 120) from the compositor"
            + (shown ? "" : " (before its first buffer)"))
    }

    func layerSurfaceFrameDone(_ surface: LayerSurface, time: UInt32) {
        let now = Sys.now()
        trace?.frameDone(output: surface.outputID, at: now)
        guard let h = heads[surface.outputID] else { return }
        apply(h, .resume(.hidden))
        if let v = h.drawn.flatMap({ videos.clip($0.video) }) { v.firstFramePresented(at: now) }
        if let line = startup?.presented(at: now) { log.debug(line); startup = nil }
    }
}

extension App: ToplevelsDelegate {
    func fullscreenOutputsChanged() {
        for h in heads.values { updatePause(h) }
    }

    /// Recomputes the fullscreen and battery reasons of one output from its pause rules.
    func updatePause(_ h: Head) {
        let (fullscreen, battery) = PauseRules.reasons(h.drawn ?? h.target, layer: options.layer,
                                                       fullscreenWindow: toplevels?.hasFullscreen(on: h.output) == true, onBattery: onBattery)
        let before = h.player.pauseReasons
        apply(h, fullscreen ? .pause(.fullscreen) : .resume(.fullscreen))
        apply(h, battery ? .pause(.battery) : .resume(.battery))
        // One line a user wants to see when a rule pauses or resumes an output.
        let after = h.player.pauseReasons
        for r in [PauseReason.fullscreen, .battery] where before.contains(r) != after.contains(r) {
            log.notice("\(h.name): " + (after.contains(r) ? "paused (\(r.rawValue))" : "resumed (\(r.rawValue) rule)"))
        }
    }
}
