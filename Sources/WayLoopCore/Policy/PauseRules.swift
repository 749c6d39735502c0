// When a fullscreen window or the battery pauses an output. Pure.

/// The pause rules that follow an output's settings.
public enum PauseRules {
    /// Whether a fullscreen window and the battery pause an output drawing with `settings`:
    /// `pause-on-fullscreen` (default yes; on the overlay layer nothing covers it, a fullscreen
    /// window included) and `pause-on-battery` (default no).
    public static func reasons(_ settings: OutputSettings?, layer: Layer, fullscreenWindow: Bool,
                               onBattery: Bool) -> (fullscreen: Bool, battery: Bool) {
        ((settings?.pauseOnFullscreen ?? true) && layer != .overlay && fullscreenWindow, (settings?.pauseOnBattery ?? false) && onBattery)
    }

    /// Whether an output is paused by the user after `ctl pause`, `resume` or `toggle` (nil: not
    /// such a request); `pausedByUser`: whether it was before.
    public static func userPaused(after request: ControlRequest, pausedByUser: Bool) -> Bool? {
        switch request {
        case .pause: return true
        case .resume: return false
        case .toggle: return !pausedByUser
        default: return nil
        }
    }
}
