// Whether a config file read again (SIGHUP, `ctl reload`, a change on disk, a hand-over) is
// applied: a file that cannot be read or parsed, one that leaves nothing to play, or one that
// names a video that cannot be opened changes nothing. Pure: the shell reads the file and
// checks the videos (the `videoErrors` it passes in).

extension ControlError {
    /// Videos that cannot be played, one reason after another.
    public static func video(_ errors: [VideoError], _ suffix: String = "") -> ControlError {
        .video(errors.map(\.description).joined(separator: "; ") + suffix)
    }
}

/// The rule for a config file read again.
public enum ConfigReload {
    /// What becomes of it.
    public enum Verdict: Equatable, Sendable {
        /// What plays is kept: the reply for whoever asked, and the log line (an error, or a
        /// notice when each video's own error line was logged already).
        case refused(ControlError, log: String, isError: Bool)
        /// The file's entries become the config layer; a notice when the renderer it asks for
        /// differs from the running one's (it takes effect at the next start).
        case apply([OutputEntry], rendererNotice: String?)
    }

    /// The verdict on `loaded` (the file's entries, the default loop added where nothing names
    /// a video), under the command line in force, against the config layer `running`.
    /// `videoErrors(all)` checks the videos the new layers name (asked only when the file passed).
    public static func verdict(loaded: Result<[OutputEntry], ConfigError>, commandLine: Options, running: [OutputEntry],
                               videoErrors: ([OutputEntry]) -> [VideoError]) -> Verdict {
        let entries: [OutputEntry]
        switch loaded {
        case .failure(let e): return .refused(.config("\(e)"), log: "\(e); keeping what plays", isError: true)
        case .success(let c): entries = c
        }
        let all = SettingsLayers(config: entries, commandLine: commandLine).entries
        guard all.contains(where: { $0.video != nil }) else {
            let e = ControlError.config("\(UsageError.noVideo); keeping what plays")
            return .refused(e, log: "\(e)", isError: true)
        }
        let errors = videoErrors(all)
        guard errors.isEmpty else {
            return .refused(.video(errors, "; keeping what plays"),
                            log: "configuration not applied: a video cannot be opened; keeping what plays", isError: false)
        }
        let renderer = commandLine.rendererRequest(config: entries)
        let notice = renderer != commandLine.rendererRequest(config: running)
            ? "renderer = \(renderer.rawValue) takes effect at the next start" : nil
        return .apply(entries, rendererNotice: notice)
    }
}
