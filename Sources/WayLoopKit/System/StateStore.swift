// The state file ($XDG_STATE_HOME/wayloop/state, one per --name): read once at start (anything
// that is not a state file WayLoop wrote is set aside as `.bad`, with one notice), written on a
// thread of its own (a temporary file, fsync, rename, fsync of the directory), so that a slow
// or full disk never holds up a frame. A directory that cannot be written gets one notice, and
// playback goes on; the next write that works says so.
import Glibc
import WayLoopCore

enum StateStore {
    /// `$XDG_STATE_HOME/wayloop/state` (an absolute XDG_STATE_HOME only, as the spec says), else
    /// `~/.local/state/wayloop/state`; `state-NAME` for `--name NAME`. nil without either.
    static func path(instance: String?) -> String? {
        let base: String
        if let s = Sys.env("XDG_STATE_HOME"), s.hasPrefix("/") {
            base = s
        } else if let h = Sys.env("HOME"), h.hasPrefix("/") {
            base = h + "/.local/state"
        } else {
            return nil
        }
        return base + "/wayloop/" + (instance.map { "state-\($0)" } ?? "state")
    }

    /// The state a start restores from: nil when there is none, or none to trust (said once,
    /// and the file set aside as `FILE.bad`).
    static func load(_ path: String, log: Logger) -> SavedState? {
        let problem: String
        switch Sys.readFile(path, limit: SavedState.sizeLimit) {
        case .failure(let e):
            if e.code == ENOENT || e.code == ENOTDIR { return nil }
            problem = e.code == EISDIR ? "it is a directory" : e.code == EINVAL ? "it is not a regular file"
                : e.code == EFBIG ? "it is larger than \(SavedState.sizeLimit / 1024) KiB" : "cannot read it: \(Sys.errnoText(e.code))"
        case .success(let text):
            switch SavedState.parse(text) {
            case .success(let s): return s
            case .failure(let p): problem = p.description
            }
        }
        let bad = path + ".bad"
        // An older `.bad` (a file, or an empty directory) makes way for this one.
        if unlink(Sys.cPath(bad)) != 0 { rmdir(Sys.cPath(bad)) }
        let moved = rename(Sys.cPath(path), Sys.cPath(bad)) == 0
        log.notice("the state file '\(path)' is not used: \(problem); "
            + (moved ? "set aside as '\(bad)'" : "it could not be set aside (\(Sys.errnoText())) and is left as it is")
            + ", starting from the command line and config file")
        return nil
    }
}

/// Writes the state file on its own thread: the latest text wins (a write still going on is
/// followed by the newest one only). `flush` waits for the last one (at exit).
final class StateWriter: @unchecked Sendable {
    enum Job: Equatable {
        case write(String)
        case remove
    }

    let path: String
    private let log: Logger
    private let lock = ConditionLock()
    // Guarded by `lock`.
    private var job: Job?
    private var busy = false
    private var stopping = false
    /// Only the writer thread reads and writes this: a failure is said once, until a write works.
    private var failing = false
    private var thread: WorkerThread?

    init(path: String, log: Logger) {
        self.path = path
        self.log = log
    }

    func submit(_ j: Job) {
        if thread == nil { thread = WorkerThread { [self] in run() } }
        lock.withLock {
            job = j
            lock.broadcast()
        }
        // No thread (the process is out of them): written here, once, rather than never.
        if thread == nil { drain() }
    }

    /// Waits until what was submitted is written, then stops the thread.
    func flush() {
        lock.withLock {
            stopping = true
            lock.broadcast()
        }
        thread?.join()
        thread = nil
        drain()
    }

    private func run() {
        while true {
            let next: Job? = lock.withLock {
                while job == nil && !stopping { lock.wait() }
                let j = job
                job = nil
                busy = j != nil
                return j
            }
            guard let next else { return }
            perform(next)
            lock.withLock { busy = false }
        }
    }

    private func drain() {
        let j: Job? = lock.withLock {
            let j = job
            job = nil
            return j
        }
        if let j { perform(j) }
    }

    private func perform(_ j: Job) {
        let result: String?
        switch j {
        case .write(let text): result = Self.write(text, to: path)
        case .remove: result = unlink(Sys.cPath(path)) == 0 || errno == ENOENT ? nil : "cannot remove it: \(Sys.errnoText())"
        }
        if let why = result {
            if !failing { log.notice("cannot save the state to '\(path)': \(why); playing on (the choices made now will not survive a restart)") }
            failing = true
        } else if failing {
            failing = false
            log.notice("the state is saved to '\(path)' again")
        }
    }

    /// Atomically: a temporary file beside it, fsync, rename, fsync of the directory. nil, or why not.
    static func write(_ text: String, to path: String) -> String? {
        guard let slash = path.lastIndex(of: "/") else { return "not an absolute path" }
        let dir = String(path[..<slash])
        if let why = Sys.makeDirectories(dir) { return why }
        let failure = Sys.writeWhole(Array(text.utf8), to: path, mode: 0o600, sync: true)
        guard failure == 0 else { return Sys.errnoText(failure) }
        let d = open(Sys.cPath(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if d >= 0 {
            _ = fsync(d)
            close(d)
        }
        return nil
    }
}
