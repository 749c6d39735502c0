// What the control requests (and signals, reloads, hand-overs) may see of the app and ask of
// it: `ControlledApp` is all Requests holds, so the compiler keeps it from writing the app's
// state; every change goes through one of the named intents below. Main thread only.
import WayLoopCore

/// The app as the control requests see it: what they read, and the intents that change it.
protocol ControlledApp: AnyObject {
    var log: Logger { get }
    var control: ControlServer? { get }
    /// Answers a request: on the control socket (`client` ≥ 0) or to the host in-process.
    func reply(to client: Int, _ value: JSON)
    var signals: SignalFD { get }
    /// What applies now, the command line's layer, the config file's.
    var options: Options { get }
    var commandLine: Options { get }
    var configEntries: [OutputEntry] { get }
    var queueFrames: Int { get }
    var rendererKind: RendererKind? { get }
    var heads: [UInt32: Head] { get }
    var videos: VideoTable<Clip> { get }
    var playlists: PlaylistRuns { get }
    var playlistItems: Set<String> { get }
    func world() -> World
    func playlistKind(_ path: String) -> Bool
    func playlistStatus(_ h: Head) -> PlaylistStatus?
    func playlistError(_ source: String) -> VideoError?
    func run(of h: Head) -> PlaylistRun?
    func stateEvent(_ h: Head) -> StateEvent
    /// Where `video` stands with its fitted copy (`--fit`; nil: not looked at).
    func fitStatus(_ video: String) -> FitStatus?

    func settingsChanged()
    /// The compositor says which workspace each output shows (sway's IPC).
    var knowsWorkspaces: Bool { get }
    func addOverride(_ entry: OutputEntry) -> Int
    func removeOverride(tag: Int)
    func forgetOverrides(where names: (String) -> Bool) -> Int
    func forgetAllOverrides() -> Int
    func applyConfig(_ entries: [OutputEntry])
    func adoptHandOver(_ parsed: Options, cwd: String)
    func setCommandLine(_ commandLine: Options)
    func checkVideos(_ paths: [String], fallbacks: Set<String>, origins: Options?) -> [VideoError]
    func forgetUnneeded(compacting: Bool)
    func setUserPause(_ h: Head, _ paused: Bool)
    func setNextTransition(_ transition: Transition, for heads: [Head])
    func stop(_ status: ExitStatus)
}

extension App: ControlledApp {}

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

    /// A second start's command line replaces ours: its names and paths are resolved where it
    /// was started (`cwd`), and what it did not say is kept (`Options.adoptHandOver`).
    func adoptHandOver(_ parsed: Options, cwd: String) {
        let home = Sys.env("HOME")
        commandLine.adoptHandOver(parsed, entries: parsed.entries.map {
            $0.resolvingNames { Sys.findVideo($0, here: cwd) }.resolvingFolders { Workshop.resolvePath($0, here: cwd) }.resolvingPaths(in: cwd, home: home)
        },
                                  configPath: parsed.configPath.map { Paths.absolute($0, in: cwd, home: home) })
    }

    /// The previous command line put back when a hand-over's reload failed.
    func setCommandLine(_ commandLine: Options) { self.commandLine = commandLine }

    /// Checks the files (one error line each) and forgets their old failures, so that a file
    /// fixed since is tried again. Returns the files that failed now. `fallbacks` are single
    /// videos, never playlists; `origins`: the entries that named them, for the error line.
    func checkVideos(_ paths: [String], fallbacks: Set<String> = [], origins: Options? = nil) -> [VideoError] {
        var errors: [VideoError] = []
        for p in paths where videos.clip(p) == nil {
            videos.setFailure(p, nil)
            if let e = fallbacks.contains(p) ? Preflight.check(p) : PlaylistSource.preflight(p, table: &videos, log: log) {
                log.scoped("video").error(e.line(namedAt: origins?.origin(of: p), home: Sys.env("HOME")))
                videos.setFailure(p, e)
                errors.append(e)
            }
        }
        return errors
    }

    /// Bounds what run-time requests leave behind (thousands of `ctl set`s must leave memory
    /// flat): failures of files nothing names any more, and, when `compacting` (no reply is
    /// outstanding, so no failed switch can still take its own override back), the overrides
    /// that later ones shadow entirely (nothing changes on screen).
    func forgetUnneeded(compacting: Bool) {
        if compacting, overrides.compact() { options.entries = layers.entries }
        videos.forget(failuresExcept: Set(options.allVideos).union(playlistItems))
    }

    /// `ctl set --transition`: how these outputs' next switch looks (that switch only).
    func setNextTransition(_ transition: Transition, for heads: [Head]) {
        for h in heads { h.nextTransition = transition }
    }

    /// The loop ends after this pass (`ctl quit`, SIGINT, SIGTERM).
    func stop(_ status: ExitStatus) { exitStatus = status }
}
