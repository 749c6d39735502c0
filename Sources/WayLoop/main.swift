// wayloop: parse → run → exit status. WayLoopKit's first client: the wallpaper is its public
// `Wallpaper`, with the config file, state file, control socket and hand-over switched on; the
// parser, help and the other subcommands are the package's own (`package`, not public API).
import Glibc
import WayLoopCore
import WayLoopKit

WayLoopCommand.prepareProcess()
let arguments = WayLoopCommand.arguments
let status: ExitStatus
switch Result(catching: { () throws(UsageError) -> Command in try OptionParser.parse(arguments) }) {
case .success(.help):
    WayLoopCommand.print(Help.text)
    status = .ok
case .success(.version):
    WayLoopCommand.print(Help.version)
    status = .ok
case .success(.run(let options)):
    // SIGINT, SIGTERM, SIGHUP and SIGUSR1 are read through a signalfd; it exits with the status.
    WayLoopCommand.wallpaper(options, arguments: arguments).runAndExit()
case .success(.thumbnail(let command)):
    status = WayLoopCommand.thumbnail(command)
case .success(.decode(let command)):
    status = WayLoopCommand.decode(command)
case .success(.prepare(let command)):
    status = WayLoopCommand.prepare(command)
case .success(.list(let command)):
    status = WayLoopCommand.list(command)
case .success(.ctl(let command)):
    status = ExitStatus(rawValue: Ctl.run(command)) ?? .failure
case .failure(let e):
    WayLoopCommand.printError("wayloop: error: usage: \(e) (see wayloop --help)")
    status = .usage
}
exit(status.rawValue)
