// The `wayloop` command's own entry points: what its main.swift calls, beside Wallpaper (which
// Launch runs). The executable reaches WayLoopKit through these and the core's values only.
import Glibc
import WayLoopCore

/// The `wayloop` command's entry points: the process set-up, a run with the config file, state
/// file, instance lock and control socket around a ``Wallpaper``, and the `thumbnail` and
/// `decode` subcommands (`ctl` is the executable's own, on ``WallpaperControl``). A program that embeds a wallpaper needs none of them.
public enum WayLoopCommand {
    /// The command line, without the program name.
    public static var arguments: [String] { Array(Sys.arguments.dropFirst()) }

    /// Before anything opens a file: fds 0, 1 and 2 open (on /dev/null where closed), so that
    /// no lock file or socket becomes "stderr"; and a closed pipe costs a write's EPIPE, never
    /// the process (SIGPIPE).
    public static func prepareProcess() {
        Sys.ensureStandardDescriptors()
        signal(SIGPIPE, SIG_IGN)
    }

    /// Writes `text` to stdout (help, version).
    public static func print(_ text: String) { Sys.writeStdout(text) }

    /// Writes one line to stderr.
    public static func printError(_ line: String) { Sys.writeStderr(line) }

    /// `wayloop [OPTIONS] [VIDEO]…`: runs to the end (a signal, `ctl quit`, the compositor
    /// gone) or hands `arguments` to the instance already running on this display.
    public static func run(_ options: Options, arguments: [String]) -> ExitStatus {
        var options = options
        Sys.instanceName = options.name
        // Relative paths are this process's: absolute before anything (or a hand-over) uses them.
        let cwd = Sys.currentDirectory
        options.configPath = options.configPath.map { Paths.absolute($0, in: cwd, home: Sys.env("HOME")) }
        // Bare names (`wayloop ocean`): a file here, else one in the wayloop data directories.
        // A Wallpaper Engine item's folder: its video.
        options.entries = options.entries.map {
            $0.resolvingNames { Sys.findVideo($0, here: cwd) }.resolvingFolders { Workshop.resolvePath($0, here: cwd) }
        }
        let log = Logger(label: "main", level: options.logLevel, sink: { Sys.writeStderr($0) })
        return Launch.run(options: options, arguments: arguments, log: log)
    }

    /// `wayloop thumbnail …`: a still of a video as an output would show it.
    public static func thumbnail(_ command: ThumbnailCommand) -> ExitStatus { Thumbnail.run(command) }

    /// `wayloop decode …`: decodes as playback would, as fast as it can, and reports.
    public static func decode(_ command: DecodeCommand) -> ExitStatus { DecodeRun.run(command) }

    /// `wayloop prepare …`: fitted copies made by hand (at idle priority), or the cache listed
    /// or emptied.
    public static func prepare(_ command: PrepareCommand) -> ExitStatus { Prepare.run(command) }

    /// `wayloop list …`: the videos WayLoop can play, with their facts and previews
    /// (docs/list.md).
    public static func list(_ command: ListCommand) -> ExitStatus { LibraryList.run(command) }
}
