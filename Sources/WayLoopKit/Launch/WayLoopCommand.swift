// The `wayloop` command's own entry points: what its main.swift calls, beside Wallpaper (which
// Launch runs). The executable reaches WayLoopKit through these and the core's values only.
import Glibc
import WayLoopCore

/// The `wayloop` command's own entry points beside ``Wallpaper`` (which it runs, with the
/// config file, the state file, the control socket and the hand-over switched on): the process
/// set-up and the `thumbnail`, `decode`, `prepare` and `list` subcommands (`ctl` is the
/// executable's own, on ``WallpaperControl``). `package`: the executable reaches them; a program
/// that embeds a wallpaper needs none of them.
package enum WayLoopCommand {
    /// The command line, without the program name.
    package static var arguments: [String] { Array(Sys.arguments.dropFirst()) }

    /// Before anything opens a file: fds 0, 1 and 2 open (on /dev/null where closed), so that
    /// no lock file or socket becomes "stderr"; and a closed pipe costs a write's EPIPE, never
    /// the process (SIGPIPE).
    package static func prepareProcess() {
        Sys.ensureStandardDescriptors()
        signal(SIGPIPE, SIG_IGN)
    }

    /// Writes `text` to stdout (help, version).
    package static func print(_ text: String) { Sys.writeStdout(text) }

    /// Writes one line to stderr.
    package static func printError(_ line: String) { Sys.writeStderr(line) }

    /// `wayloop [OPTIONS] [VIDEO]…`: the wallpaper as the command runs it. Its run hands
    /// `arguments` to the instance already running on this display, if one is.
    package static func wallpaper(_ options: Options, arguments: [String]) -> Wallpaper {
        var configuration = Wallpaper.Configuration(options)
        configuration.readsConfigFile = true
        configuration.controlSocket = true
        configuration.stateFile = true
        configuration.handOver = arguments
        configuration.timedFromExec = true
        return Wallpaper(configuration)
    }

    /// `wayloop thumbnail …`: a still of a video as an output would show it.
    package static func thumbnail(_ command: ThumbnailCommand) -> ExitStatus { Thumbnail.run(command) }

    /// `wayloop decode …`: decodes as playback would, as fast as it can, and reports.
    package static func decode(_ command: DecodeCommand) -> ExitStatus { DecodeRun.run(command) }

    /// `wayloop prepare …`: fitted copies made by hand (at idle priority), or the cache listed
    /// or emptied.
    package static func prepare(_ command: PrepareCommand) -> ExitStatus { Prepare.run(command) }

    /// `wayloop list …`: the videos WayLoop can play, with their facts and previews
    /// (docs/list.md).
    package static func list(_ command: ListCommand) -> ExitStatus { LibraryList.run(command) }
}
