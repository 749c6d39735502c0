// wayloop: parse → run → exit status.
import Glibc
import WayLoopCore

// Before anything opens a file: fds 0, 1 and 2 open (on /dev/null where closed), so that no
// lock file or socket becomes "stderr"; and a closed pipe costs a write's EPIPE, never the
// process (SIGPIPE).
Sys.ensureStandardDescriptors()
signal(SIGPIPE, SIG_IGN)

let log: Logger
let status: ExitStatus
let arguments = Array(Sys.arguments.dropFirst())
switch Result(catching: { () throws(UsageError) -> Command in try OptionParser.parse(arguments) }) {
case .success(.help):
    Sys.writeStdout(Help.text)
    status = .ok
case .success(.version):
    Sys.writeStdout(Help.version)
    status = .ok
case .success(.run(var options)):
    Sys.instanceName = options.name
    // Relative paths are this process's: absolute before anything (or a hand-over) uses them.
    let cwd = Sys.currentDirectory
    options.configPath = options.configPath.map { Paths.absolute($0, in: cwd, home: Sys.env("HOME")) }
    // Bare names (`wayloop ocean`): a file here, else one in the wayloop data directories.
    options.entries = options.entries.map { $0.resolvingNames { Sys.findVideo($0, here: cwd) } }
    log = Logger(label: "main", level: options.logLevel, sink: { Sys.writeStderr($0) })
    status = Launch.run(options: options, arguments: arguments, log: log)
case .success(.thumbnail(let command)):
    status = Thumbnail.run(command)
case .success(.decode(let command)):
    status = DecodeRun.run(command)
case .success(.ctl(let command)):
    Sys.instanceName = command.name
    status = ExitStatus(rawValue: CtlClient.run(command)) ?? .failure
case .failure(let e):
    Sys.writeStderr("wayloop: error: usage: \(e) (see wayloop --help)")
    status = .usage
}
exit(status.rawValue)
