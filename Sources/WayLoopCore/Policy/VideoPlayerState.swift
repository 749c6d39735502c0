// The state of one output's player, as explicit states: idle → loading → playing
// ⇄ paused(reason), and → failed(error). Pure: the shell feeds events and publishes the
// transitions this returns (to the debug log, and as events to the control socket's subscribers).

/// Why a player is paused. Ordered as listed: when several hold, the first is reported.
public enum PauseReason: String, Sendable, CaseIterable, Comparable {
    /// The user asked (SIGUSR1, `wayloop ctl pause`). Listed first: it wins.
    case user
    /// A fullscreen window is on the output (`--pause-when fullscreen`, the default).
    case fullscreen
    /// A fullscreen window is on another output (`--pause-when fullscreen-anywhere`).
    case fullscreenElsewhere = "fullscreen-elsewhere"
    /// A maximized window is on the output (`--pause-when maximized`).
    case maximized
    /// A window is on the workspace the output shows (`--pause-when any-window`).
    case window
    /// Running on battery (--pause-on-battery).
    case battery
    /// The compositor stopped asking for frames (covered, off, hidden workspace).
    case hidden

    public static func < (a: PauseReason, b: PauseReason) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// Typed failures: missing, not playable, or failed while playing.
public enum FailureKind: String, Sendable {
    /// The video file is missing.
    case resourceNotFound = "resource-not-found"
    /// The video is there but cannot be played: unreadable, not a video, no decoder for it.
    case invalidResource = "invalid-resource"
    /// Decoding failed while playing.
    case playbackFailed = "playback-failed"
}

/// The state of one output's player: idle → loading → playing ⇄ paused(reason), and from any
/// state → failed(error).
public enum VideoPlayerState: Equatable, Sendable, CustomStringConvertible {
    /// No video assigned.
    case idle
    /// A video is being opened; its first frame is not ready yet.
    case loading
    /// Frames are drawn as the video plays.
    case playing
    /// Loaded but held, for the reason that comes first among those holding it.
    case paused(PauseReason)
    /// The video cannot be played: why (its `failureKind` says which of the three kinds, its
    /// description is the error line).
    case failed(VideoError)

    /// The state without its details, as `ctl status --json`'s `state` gives it.
    public var name: String {
        switch self {
        case .idle: return "idle"
        case .loading: return "loading"
        case .playing: return "playing"
        case .paused: return "paused"
        case .failed: return "failed"
        }
    }

    public var description: String {
        switch self {
        case .paused(let r): return "paused (\(r.rawValue))"
        case .failed(let e): return "failed (\(e.failureKind.rawValue): \(e))"
        default: return name
        }
    }
}

public enum PlayerEvent: Equatable, Sendable {
    /// A video was assigned and is being opened.
    case load
    /// Its first frame is ready.
    case ready
    case fail(VideoError)
    case pause(PauseReason)
    case resume(PauseReason)
    /// No video any more (output removed, video unassigned).
    case unload
}

public struct PlayerStateMachine: Equatable, Sendable {
    public private(set) var state: VideoPlayerState = .idle
    /// Every reason currently holding the player; the first by priority is reported.
    public private(set) var pauseReasons: Set<PauseReason> = []
    private var loaded = false

    public init() {}

    /// Applies an event; returns the new state when it changed.
    public mutating func apply(_ event: PlayerEvent) -> VideoPlayerState? {
        let old = state
        switch event {
        case .load:
            loaded = false
            state = .loading
        case .ready:
            guard state == .loading else { break }
            loaded = true
            state = settled()
        case .fail(let error):
            loaded = false
            state = .failed(error)
        case .pause(let r):
            pauseReasons.insert(r)
            if loaded { state = settled() }
        case .resume(let r):
            pauseReasons.remove(r)
            if loaded { state = settled() }
        case .unload:
            loaded = false
            state = .idle
        }
        return state == old ? nil : state
    }

    private func settled() -> VideoPlayerState {
        pauseReasons.min().map { .paused($0) } ?? .playing
    }
}

extension PauseReason {
    /// The reason a pause rule gives.
    public init(rule: RulePause) {
        switch rule {
        case .fullscreen: self = .fullscreen
        case .fullscreenElsewhere: self = .fullscreenElsewhere
        case .maximized: self = .maximized
        case .window: self = .window
        }
    }

    /// A window rule's reason (`--pause-when`): the output is covered, not merely paused.
    public var isWindowRule: Bool { [.fullscreen, .fullscreenElsewhere, .maximized, .window].contains(self) }
}
