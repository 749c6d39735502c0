// The app's state machines and their events, the entries in force, and the held replies.
// Main thread only (called from the event loop).
import Glibc
import WayLoopCore

extension App {
    // MARK: States

    /// Feeds an output's state machine; logs and publishes a transition.
    func apply(_ h: Head, _ event: PlayerEvent) {
        let old = h.player.state
        guard let new = h.player.apply(event) else { return }
        log.debug("\(h.name): \(old) → \(new)")
        // Paused mid-fade: the new picture alone (a still mix would stay), the old video let go.
        if h.drawPaused && h.fade != nil {
            h.fade = nil
            h.surface?.invalidate()
            needsReconcile = true
        }
        publish(h)
    }

    /// The output draws its video: from idle or failed through loading to playing (or paused).
    func markPlaying(_ h: Head) {
        switch h.player.state {
        case .idle, .failed: apply(h, .load)
        default: break
        }
        apply(h, .ready)
    }

    func publishVideoChange(_ h: Head) {
        publish(h)
    }

    /// Tells the control socket's subscribers and the library's host of the output's state.
    private func publish(_ h: Head) {
        let event = stateEvent(h)
        control?.publish(event.json)
        owner?.publish(event)
    }

    func stateEvent(_ h: Head) -> StateEvent {
        let colour = h.target?.solid
        var e = StateEvent(output: h.name, state: h.player.state, video: colour != nil ? nil : h.drawn?.video ?? h.target?.video,
                           playlist: playlistStatus(h))
        e.workspace = h.workspace
        e.solid = colour
        return e
    }

    func setUserPause(_ h: Head, _ paused: Bool) {
        apply(h, paused ? .pause(.user) : .resume(.user))
        if !paused { h.surface?.invalidate() }
    }

    // MARK: Configuration

    /// The entries in force: config file, command line, then `ctl set`.
    func recomputeTargets() {
        options.entries = layers.entries
        options.pauseOnFullscreen = commandLine.pauseOnFullscreen
        options.pauseOnBattery = commandLine.pauseOnBattery
        for h in heads.values where h.output.isDone {
            h.target = targetSettings(h.output)
        }
        assignSpans()
        pruneRuns()
    }
}
