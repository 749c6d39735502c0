// What the test targets that run programs share (no tests of its own): the repository's paths,
// the binary under test, commands run to completion or left running, and waiting on a condition.
import Foundation

public enum Repo {
    public static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    public static func path(_ p: String) -> String { root.appendingPathComponent(p).path }

    /// The binary under test: $WAYLOOP_BIN, else the release build.
    public static var binary: String {
        ProcessInfo.processInfo.environment["WAYLOOP_BIN"] ?? path(".build/release/wayloop")
    }

    /// Test clips, generated once per run into .build/e2e-clips.
    public static let clips: String = {
        let dir = path(".build/e2e-clips")
        let r = Shell.run([path("scripts/make-clips"), dir])
        precondition(r.status == 0, "scripts/make-clips failed: \(r.stderr)")
        return dir
    }()
    public static func clip(_ name: String) -> String { clips + "/" + name }
}

public struct ShellResult {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    public var crashed: Bool
}

public enum Shell {
    /// Runs a command to completion (bounded by `timeout` seconds). Output goes through files,
    /// not pipes: a script that leaves a daemon behind (the compositor) must not hold us up.
    @discardableResult
    public static func run(_ argv: [String], env: [String: String]? = nil, timeout: Double = 120) -> ShellResult {
        let tmp = FileManager.default.temporaryDirectory
        let out = tmp.appendingPathComponent("wayloop-sh-\(UUID().uuidString)").path
        let err = tmp.appendingPathComponent("wayloop-sh-\(UUID().uuidString)").path
        defer {
            try? FileManager.default.removeItem(atPath: out)
            try? FileManager.default.removeItem(atPath: err)
        }
        guard let child = Child(["/usr/bin/env"] + argv, env: env ?? ProcessInfo.processInfo.environment,
                                stdout: out, stderr: err) else {
            return ShellResult(status: -1, stdout: "", stderr: "cannot spawn \(argv)", crashed: false)
        }
        let status = child.wait(timeout: timeout) ?? -1
        return ShellResult(status: status, stdout: (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
                           stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "", crashed: child.signalled)
    }
}

/// A child process started with posix_spawn and reaped with waitpid (Foundation's Process
/// missed exits here), its output sent to files.
public final class Child: @unchecked Sendable {
    public let pid: pid_t
    public private(set) var exitStatus: Int32?
    public private(set) var signalled = false

    /// Starts `argv` with `env`, its output into the files `stdout` and `stderr`, its input from
    /// `stdin` (a FIFO the caller holds open, for one).
    public init?(_ argv: [String], env: [String: String], stdout: String, stderr: String, stdin: String = "/dev/null") {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let cArgs = argv.map { strdup($0) } + [nil]
        let cEnv = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            cArgs.forEach { free($0) }
            cEnv.forEach { free($0) }
        }
        var p: pid_t = 0
        guard posix_spawn(&p, argv[0], &actions, nil, cArgs, cEnv) == 0 else { return nil }
        pid = p
    }

    public var isRunning: Bool {
        if exitStatus != nil { return false }
        var st: Int32 = 0
        let r = waitpid(pid, &st, WNOHANG)
        guard r == pid else { return r == 0 }
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros: decode by hand.
        if st & 0x7f == 0 {
            exitStatus = (st >> 8) & 0xff
        } else {
            signalled = true
            exitStatus = 128 + (st & 0x7f)
        }
        return false
    }

    /// Waits for the exit; nil (after SIGKILL) if it did not come within `timeout` seconds.
    public func wait(timeout: Double) -> Int32? {
        if Wait.until(timeout: timeout, { !self.isRunning }) { return exitStatus }
        kill(pid, SIGKILL)
        _ = Wait.until(timeout: 5) { !self.isRunning }
        return nil
    }
}

public struct HarnessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}

public enum Wait {
    /// Polls `condition` every 20 ms until it holds or `timeout` seconds pass.
    @discardableResult
    public static func until(timeout: Double, _ condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }
}
