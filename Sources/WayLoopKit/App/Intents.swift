// What the control requests (and signals, reloads, hand-overs) may ask of the app: a few named
// intents, so that Requests never writes the app's state itself. Main thread only.
import WayLoopCore

extension App {
    /// The settings in force changed (an override, a reload, a playlist's step): every head's
    /// target is worked out again, and the loop reconciles once this pass.
    func settingsChanged() {
        recomputeTargets()
        needsReconcile = true
    }

    /// `ctl set`: an override over what is in force; its tag, to take it back if its video fails.
    func addOverride(_ entry: OutputEntry) -> Int {
        let tag = overrides.add(entry, over: options.entries)
        settingsChanged()
        return tag
    }

    /// A `ctl set` whose video failed takes back its own override (and only its own).
    func removeOverride(tag: Int) {
        overrides.remove(tag: tag)
        settingsChanged()
    }

    /// `ctl forget OUTPUT`: the overrides that name it go; how many.
    func forgetOverrides(where names: (String) -> Bool) -> Int {
        let n = overrides.remove(naming: names)
        settingsChanged()
        return n
    }

    /// `ctl forget`: every override goes, and the state file forgets them; how many.
    func forgetAllOverrides() -> Int {
        let n = overrides.entries.count
        overrides.removeAll()
        forgetState()
        settingsChanged()
        return n
    }

    /// A config file read again and accepted: it replaces the config layer, and the `ctl set`
    /// overrides go.
    func applyConfig(_ entries: [OutputEntry]) {
        configEntries = entries
        overrides.removeAll()
        settingsChanged()
    }

    /// A hand-over's command line, or the previous one put back when its reload failed.
    func setCommandLine(_ commandLine: Options) { self.commandLine = commandLine }

    /// Overrides that later ones shadow entirely are forgotten (nothing changes on screen).
    func compactOverrides() {
        if overrides.compact() { options.entries = layers.entries }
    }

    /// The loop ends after this pass (`ctl quit`, SIGINT, SIGTERM).
    func stop(_ status: ExitStatus) { exitStatus = status }
}
