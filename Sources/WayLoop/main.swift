// wayloop: parse → run → exit status. WayLoopKit's first client, through its public API only.
import Glibc
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
    status = WayLoopCommand.run(options, arguments: arguments)
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
