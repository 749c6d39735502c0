// A Wallpaper's start: the config file, the first check of every video (before connecting), one
// instance per display (the lock, a hand-over to the running one, --replace), the control
// socket, signals and the Wayland connection, each as its configuration asks; then the App runs
// to the end. On the thread that runs the wallpaper.
import CSystem
import CWayland
import Glibc
import WayLoopCore

enum Launch {
    /// Runs `wallpaper` to the end and returns the exit status: the config file, the state file,
    /// the instance lock (or a hand-over) and the control socket, each as `configuration` asks.
    static func run(_ configuration: Wallpaper.Configuration, wallpaper: Wallpaper, signals: [Int32], log: Logger) -> ExitStatus {
        var startup = StartupTimeline(exec: configuration.timedFromExec ? Sys.execTime() : Sys.now())
        startup.mark(.main, at: Sys.now())
        var cli = configuration.options
        if !configuration.readsConfigFile { cli.noConfig = true }
        if configuration.controlSocket { Sys.instanceName = cli.name }
        let configEntries: [OutputEntry]
        switch loadConfig(cli) {
        case .failure(let e):
            log.scoped("config").error("\(e)")
            return .usage
        case .success(let c): configEntries = configuration.readsConfigFile ? withDefaultLoop(c, commandLine: cli.entries, log: log) : c
        }
        var options = cli
        options.entries = SettingsLayers(config: configEntries, commandLine: cli).entries
        let scope = configuration.controlSocket ? InstanceScope.choose(waylandSocket: Sys.env("WAYLAND_SOCKET"), name: cli.name) : .privateConnection
        let statePath = configuration.stateFile && scope == .display ? StateStore.path(instance: Sys.instanceName) : nil
        var restored = cli.noRestore ? nil : statePath.flatMap { restore(from: $0, base: options.entries, log: log) }
        if let r = restored, let path = statePath {
            let kept = checkRestored(r.overrides, log: log)
            restored?.overrides = kept
            options.entries += kept
            if !kept.isEmpty {
                log.scoped("state").notice("restoring \(kept.count) choice(s) of wayloop ctl set from '\(path)' "
                    + "(--no-restore starts without them; wayloop ctl forget drops them)")
            }
        }
        guard !options.videos.isEmpty else {
            log.error(configuration.readsConfigFile
                ? "usage: \(UsageError.noVideo), and no \(VideoLookup.defaultLoop) is installed in "
                    + "\(VideoLookup.places(Sys.videoDirectories, home: Sys.env("HOME"))) (see wayloop --help)"
                : "usage: \(UsageError.noVideo)")
            return .usage
        }
        var videos = VideoTable<Clip>()
        if !checkVideos(options, into: &videos, log: log) {
            wallpaper.noteVideoError(options.allVideos.lazy.compactMap { videos.failure($0) }.first)
            return .badVideo
        }
        startup.mark(.checked, at: Sys.now())
        var run = Wallpaper.Run(options: options, commandLine: cli, configEntries: configEntries, videos: videos,
                                startup: startup, log: log, signals: signals)
        if scope == .privateConnection {
            if configuration.controlSocket {
                log.debug("on a connection of its own (WAYLAND_SOCKET, as a screen locker hands its wallpaper program): "
                    + "no instance lock, control socket or state file")
            }
            return wallpaper.runApp(run)
        }
        // The Wayland socket lives in XDG_RUNTIME_DIR (unless WAYLAND_DISPLAY is a path): say so in
        // one line, before libwayland prints its own.
        if let problem = Sys.runtimeDirectoryProblem {
            log.scoped("wayland").error(problem)
            return .noCompositor
        }
        let lock: InstanceLock
        switch takeInstance(cli, handOver: configuration.handOver, log: log) {
        case .done(let status): return status
        case .taken(let l): lock = l
        }
        defer { lock.release() }
        // The socket exists from now on, so that a hand-over during start-up waits in its backlog.
        let server: ControlServer
        do { server = try ControlServer(path: ControlServer.defaultPath, log: log.scoped("control")) } catch {
            log.error("\(error)")
            return .failure
        }
        defer { server.shutdown() }
        run.control = server
        run.restored = restored
        run.stateWriter = statePath.map { StateWriter(path: $0, log: log.scoped("state")) }
        return wallpaper.runApp(run)
    }

    /// Checks every video an entry names (one error line each). False when none can play and
    /// no fallback colour can stand in: stop here, before connecting (or handing over).
    static func checkVideos(_ options: Options, into videos: inout VideoTable<Clip>, log: Logger) -> Bool {
        for path in options.allVideos {
            // A fallback is one video (what shows when the rest cannot): never a playlist.
            let check = options.videos.contains(path) ? PlaylistSource.preflight(path, table: &videos, log: log) : Preflight.check(path)
            if let e = check {
                // A video a config file named: where (as for every other error of the file).
                log.scoped("video").error(e.line(namedAt: options.origin(of: path), home: Sys.env("HOME")))
                videos.setFailure(path, e)
            }
        }
        return !(options.allVideos.allSatisfy(videos.failed) && !options.hasFallbackColor)
    }

    /// The state file's overrides and playlist places, when they were made on this base (the
    /// command line's and config file's entries); a changed base drops them, with one notice.
    private static func restore(from path: String, base: [OutputEntry], log: Logger) -> SavedState? {
        guard let saved = StateStore.load(path, log: log.scoped("state")) else { return nil }
        switch saved.decision(base: SavedState.fingerprint(base)) {
        case .restore(let s): return s
        case .baseChanged:
            log.scoped("state").notice("the command line or config file changed since '\(path)' was saved: "
                + "starting from them, without what wayloop ctl set chose before")
            unlink(Sys.cPath(path))
            return nil
        }
    }

    /// Restored overrides whose video (or fallback video) cannot be played any more are left
    /// out, one line each, as any missing video is skipped.
    private static func checkRestored(_ overrides: [OutputEntry], log: Logger) -> [OutputEntry] {
        var table = VideoTable<Clip>()
        return overrides.filter { e in
            var problems: [VideoError] = []
            if let v = e.video, let p = PlaylistSource.preflight(v, table: &table, log: log) { problems.append(p) }
            if case .video(let f)? = e.fallback, let p = Preflight.check(f) { problems.append(p) }
            for p in problems { log.scoped("state").notice("\(p); the choice of wayloop ctl set for '\(e.selector.text)' that named it is not restored") }
            return problems.isEmpty
        }
    }

    static func connect(log: Logger) -> WLDisplay? {
        guard let display = WLDisplay.connect() else {
            if let fd = getenv("WAYLAND_SOCKET").map({ String(cString: $0) }), !fd.isEmpty {
                log.scoped("wayland").error("cannot use the Wayland connection in WAYLAND_SOCKET=\(fd): \(Sys.errnoText())")
                return nil
            }
            let name = getenv("WAYLAND_DISPLAY").map { String(cString: $0) }
            log.scoped("wayland").error(name == nil
                ? "WAYLAND_DISPLAY is not set and wayland-0 did not answer: run wayloop inside a Wayland session"
                : "cannot connect to the Wayland compositor at WAYLAND_DISPLAY=\(name!): \(Sys.errnoText())")
            return nil
        }
        return display
    }

    /// This start holds the display's lock, or is done (handed over, or failed).
    private enum Instance {
        case taken(InstanceLock)
        case done(ExitStatus)
    }

    /// One instance per display: a second start hands its arguments over (so that
    /// `exec_always wayloop ...` in a sway config never stacks processes), or with --replace
    /// asks the running one to quit. The lock, or the exit status of this start.
    private static func takeInstance(_ cli: Options, handOver arguments: [String]?, log: Logger) -> Instance {
        // The holder may be starting (no socket yet) or stopping (socket gone, lock not yet):
        // try the lock and the socket in turn for a while.
        let deadline = Sys.now() + 5 * .nanosPerSecond
        while true {
            switch InstanceLock.acquire(log: log) {
            case .acquired(let l): return .taken(l)
            case .failed(let e):
                log.error("\(e)")
                return .done(.failure)
            case .held(let pid):
                if cli.replace {
                    if case .failure(let f) = WallpaperControl.quit() { log.debug("asking pid \(pid) to quit: \(f)") }
                    guard case .acquired(let l) = InstanceLock.acquire(waitSeconds: 10, log: log) else {
                        log.error("the wayloop running on this display (pid \(pid)) did not stop within 10 s; not replacing it")
                        return .done(.alreadyRunning)
                    }
                    log.notice("replaced the wayloop that ran on this display (pid \(pid))")
                    return .taken(l)
                }
                guard let arguments else {
                    log.error("another wallpaper (pid \(pid)) runs on this display\(cli.name.map { " as '\($0)'" } ?? ""); "
                        + "stop it, or ask it to quit first (options.replace, wayloop --replace)")
                    return .done(.alreadyRunning)
                }
                if let status = handOver(arguments, to: pid, log: log, final: Sys.now() >= deadline) { return .done(status) }
                usleep(50_000)
            }
        }
    }

    /// A second start: hand the arguments to the running instance and report its answer; nil
    /// when it did not answer (unless `final`: then that is the answer).
    private static func handOver(_ arguments: [String], to pid: String, log: Logger, final: Bool) -> ExitStatus? {
        switch WallpaperControl.handOver(args: arguments) {
        case .failure(let f):
            guard final else { return nil }
            log.error("another wayloop (pid \(pid)) runs on this display, but its control socket does not answer (\(f)); "
                + "stop it, or start with --replace")
            return .alreadyRunning
        case .success(let reply):
            guard reply["ok"]?.bool == true else {
                log.error(reply["error"]?.string ?? reply.serialized)
                switch reply["kind"]?.string {
                case "video": return .badVideo
                case "usage", "config": return .usage
                default: return .failure
                }
            }
            log.notice("handed over to the wayloop already running on this display (pid \(pid))")
            return .ok
        }
    }

    // MARK: The config file

    /// The config file a command line reads: `--config FILE`, else the default path; nil with
    /// `--no-config` (or no home to find the default in).
    static func configPath(_ cli: Options) -> String? {
        if cli.noConfig { return nil }
        return cli.configPath ?? ConfigFile.defaultPath(xdgConfigHome: Sys.env("XDG_CONFIG_HOME"), home: Sys.env("HOME"))
    }

    /// Nothing names a video (no argument, no `video` in the config file): the installed
    /// default loop plays on every output, below whatever the config file sets. Said in one notice.
    static func withDefaultLoop(_ config: [OutputEntry], commandLine: [OutputEntry], log: Logger) -> [OutputEntry] {
        guard !(config + commandLine).contains(where: { $0.video != nil }),
              let loop = VideoLookup.resolve(VideoLookup.defaultLoop, in: Sys.videoDirectories, entries: Sys.fileNames(in:)) else {
            return config
        }
        log.notice("no video given: playing the default loop '\(loop)'")
        return [OutputEntry(selector: .all, video: loop)] + config
    }

    /// The config file's entries: `--config FILE`, else the default path if it exists.
    static func loadConfig(_ cli: Options) -> Result<[OutputEntry], ConfigError> {
        let home = Sys.env("HOME")
        guard let path = configPath(cli) else { return .success([]) }
        switch Sys.readFile(path, limit: 1 << 20) {
        case .failure(let e):
            if e.code == ENOENT && cli.configPath == nil { return .success([]) }
            // readFile refuses what is not a regular file (a FIFO would block): EINVAL.
            let why = e.code == EINVAL ? "not a regular file" : e.code == EFBIG ? "too large (over 1 MiB)" : Sys.errnoText(e.code)
            return .failure(ConfigError(file: path, line: 0, reason: "cannot read it: \(why)"))
        case .success(let text):
            do {
                return .success(try ConfigFile.parse(text, path: path, home: home, find: { Sys.findVideo($0, here: $1) }))
            } catch { return .failure(error) }
        }
    }
}
