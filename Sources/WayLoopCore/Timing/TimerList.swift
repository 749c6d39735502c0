// Every deadline of the loop in one list (after foot's fdm timers and mako's event loop): each
// registers once, with how to find when it is due (from the state it watches, so nothing is
// re-armed by hand) and what to do then. The poll timeout and the dispatch both come from this
// list, so they can never disagree. Main thread only.

public final class TimerList {
    public struct Entry {
        public let name: String
        /// When it is due, given the time now (nil: not armed).
        let due: (Nanos) -> Nanos?
        /// What it does once due; nil for a deadline that only wakes the loop for a step every
        /// pass runs anyway (the draw pass, the playlists' clocks).
        let fire: ((Nanos) -> Void)?
    }

    private var entries: [Entry] = []

    public init() {}

    public func add(_ name: String, due: @escaping (Nanos) -> Nanos?, fire: ((Nanos) -> Void)? = nil) {
        entries.append(Entry(name: name, due: due, fire: fire))
    }

    /// The soonest deadline of any timer (nil: none armed).
    public func soonest(now: Nanos) -> Nanos? {
        entries.compactMap { $0.due(now) }.min()
    }

    /// Runs, in the order they were added, the timers due by `now` that have an action;
    /// returns their names.
    @discardableResult
    public func fire(now: Nanos) -> [String] {
        var fired: [String] = []
        for e in entries where e.fire != nil {
            guard let due = e.due(now), due <= now else { continue }
            fired.append(e.name)
            e.fire?(now)
        }
        return fired
    }

    public var names: [String] { entries.map(\.name) }
}
