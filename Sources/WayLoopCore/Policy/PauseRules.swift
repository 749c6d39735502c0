// When a fullscreen window or the battery pauses an output. Pure.

/// The pause rules that follow an output's settings.
public enum PauseRules {
    /// What pauses `output`, drawing with `settings`, by the windows on screen (`facts`, from
    /// `source`; `outputs`: every output drawn on) and by the battery: its `--pause-when` rules
    /// (ScreenRules; default a fullscreen window on it; none on the overlay layer, which nothing
    /// covers), and `pause-on-battery` (default no).
    public static func reasons(_ settings: OutputSettings?, output: String, layer: Layer, facts: ScreenFacts, source: ScreenSource,
                               outputs: [String], onBattery: Bool) -> (rule: PauseReason?, battery: Bool) {
        let when = settings?.pauseRules ?? .standard
        let rule = layer == .overlay ? nil
            : ScreenRules.pause(output, when: when, ignore: settings?.pauseIgnore ?? [], facts: facts, source: source, outputs: outputs)
        return (rule.map(PauseReason.init(rule:)), (settings?.pauseOnBattery ?? false) && onBattery)
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
