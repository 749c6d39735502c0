// Where start-up goes, from exec to the first frame on screen (what a new user waits for after
// login): each step's time, written once as one debug line when that frame is presented. Pure:
// the shell passes the times (CLOCK_MONOTONIC; exec read back from /proc/self/stat).

public struct StartupTimeline: Sendable {
    public enum Step: String, CaseIterable, Sendable {
        /// The process runs Swift code (the dynamic loader and libraries before it).
        case main
        /// The config file read and every video checked (Preflight opens each).
        case checked
        /// The instance lock, the control socket and the Wayland connection.
        case connected
        /// The globals bound and the outputs described (the registry's roundtrips).
        case outputs
        /// The render device up (EGL and the shaders, or the shm device), the decoders started.
        case renderer
        /// The video opened and its first frame decoded (the decoder says ready after it).
        case decoded
        /// The first layer surface configured and its buffers made.
        case configured
        /// The first frame converted (or drawn) and committed.
        case committed
        /// The compositor presented it (its frame callback).
        case presented
    }

    /// When the process was executed (nil: unknown; times are then from `main`).
    public let exec: Nanos?
    public private(set) var marks: [Step: Nanos] = [:]

    public init(exec: Nanos?) { self.exec = exec }

    /// Notes that `step` happened at `t` (only its first time counts).
    public mutating func mark(_ step: Step, at t: Nanos) {
        if marks[step] == nil { marks[step] = t }
    }

    public var isComplete: Bool { marks[.presented] != nil }

    /// A draw pass configured a surface (when it began) or committed a picture (when that was
    /// done); nil: it did not. The first of each counts.
    public mutating func drew(configured: Nanos?, committed: Nanos?) {
        if let configured { mark(.configured, at: configured) }
        if let committed { mark(.committed, at: committed) }
    }

    /// A frame callback at `t`: once something was committed, the first frame is on screen;
    /// returns the line (nil: nothing committed yet).
    public mutating func presented(at t: Nanos) -> String? {
        guard marks[.committed] != nil else { return nil }
        mark(.presented, at: t)
        return line
    }

    /// "first frame on screen 48 ms after exec: main 6, checked 9, …, presented 48 (ms after exec)".
    public var line: String? {
        guard let end = marks[.presented], let origin = exec ?? marks[.main] else { return nil }
        let ms = { (t: Nanos) in String(oneDecimal: Double(t - origin) / 1e6) }
        let steps = Step.allCases.compactMap { s in marks[s].map { "\(s.rawValue) \(ms($0))" } }
        return "first frame on screen \(ms(end)) ms after \(exec == nil ? "main" : "exec"): " + steps.joined(separator: ", ")
            + " (ms after \(exec == nil ? "main" : "exec"))"
    }
}
