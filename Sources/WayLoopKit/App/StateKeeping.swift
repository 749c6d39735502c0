// What the state file keeps of this run (SavedState, WayLoopCore): the `ctl set` overrides,
// their outputs named by identity, and the playlists' places, on the base they were made on.
// Written by the StateWriter's thread, a second after the last change (SaveDebounce) and at
// exit. Main thread only.
import WayLoopCore

extension App {
    /// Changes whenever what the state file would say may have changed.
    var stateGeneration: Int { overrides.generation &* 1_000_003 &+ playlists.generation }

    /// The state as it is now.
    func currentState() -> SavedState {
        let connected = heads.values.filter(\.output.isDone).map { (name: $0.output.info.name, description: $0.output.info.description) }
        let named: [OutputEntry] = overrides.entries.map { e in
            // An override names its output by identity when the pattern finds exactly one.
            guard case .named(let p) = e.selector else { return e }
            let found = connected.filter { OutputMatch.matches(pattern: p, name: $0.name, description: $0.description) }
            guard found.count == 1 else { return e }
            var e = e
            e.selector = .named(OutputIdentity.of(name: found[0].name, description: found[0].description, others: connected))
            return e
        }
        return SavedState(base: SavedState.fingerprint(layers.base), overrides: named,
                          playlists: playlists.saved)
    }

    /// Hands what is unsaved to the writer (at exit: and waits until it is written).
    func saveStateNow(final: Bool) {
        guard let stateWriter else { return }
        let g = stateGeneration
        if g != saveClock.saved {
            let s = currentState()
            stateWriter.submit(s.isEmpty ? .remove : .write(s.text))
            saveClock.wrote(g)
        }
        if final { stateWriter.flush() }
    }

    /// `ctl forget`: nothing is saved of what is gone, until the next change.
    func forgetState() {
        playlists.forgetSaved()
        stateWriter?.submit(.remove)
        saveClock.wrote(stateGeneration)
    }
}
