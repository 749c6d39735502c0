// The wallpaper's fitted copies (`--fit`): for each video it plays, what the rule says now
// (FitRule, from the outputs showing it and the cap in force), the copy in the cache or the
// `wayloop prepare --for-wallpaper` child making it (one at a time, at idle priority), and the
// switch to the copy at a loop seam (Clip.read(from:)). What to do is FitPlan's; this carries it
// out and keeps what status reports. Main thread only; nothing here blocks it: the stream's facts
// come from the decoder's own open, the cache key's read and lookup run on a worker (KeyLookup),
// the child's pipe is polled by the event loop (Fitting is a PollSource), and a stopped child is
// reaped by later looks (SIGKILL after 3 s), not waited for.
import CSystem
import Glibc
import WayLoopCore

final class Fitting: PollSource {
    /// One video's copy, as far as this run knows.
    struct Record {
        /// The clip's facts (the decoder's open: VideoInput.facts).
        var facts: FitRule.Clip?
        /// The key of the copy the verdict asks for, and the target and quality it was worked
        /// out for (the key is nil while its lookup runs).
        var key: FitCache.Key?
        var target: FitRule.Target?
        var quality: Int?
        /// The key's read and the cache's lookup, on a worker.
        var lookup: KeyLookup?
        /// The key's copy is in the cache, sound (looked up once per key, and after a child).
        var cached = false
        /// Its decode cost against the original's, measured while making it.
        var share: Double?
        /// This key's copy could not be made or played in this run (not tried again until the
        /// source changes), and what status says of it.
        var failedKey: String?
        var failure: String?
        /// Why the original plays, for status (nil: nothing worth saying).
        var note: String?
    }

    private(set) var records: [String: Record] = [:]
    private var child: PrepareChild?
    /// Children asked to stop (SIGTERM), reaped by later looks; SIGKILL at their deadline.
    private var stopping: [(child: PrepareChild, killAt: Nanos)] = []
    private let log: Logger
    /// Where copies are kept (nil: no cache directory: fitting is off, said once at debug).
    let cache: FitCache?
    /// The `wayloop` executable that makes copies (nil: none found: fitting is off).
    private let maker: String?

    init(log: Logger) {
        self.log = log
        cache = FitCache.standard()
        maker = Fitting.findMaker()
        if cache == nil { log.debug("no cache directory (neither XDG_CACHE_HOME nor HOME): no fitted copies") }
        if maker == nil { log.debug("no wayloop executable found to make fitted copies (this program is not wayloop, and none is on PATH)") }
    }

    /// `$WAYLOOP_FIT_MAKER` (`none`: no copies are made; the test harness sets it), else this
    /// program when it is `wayloop`, else the `wayloop` on PATH (a host embedding the library).
    private static func findMaker() -> String? {
        if let m = Sys.env("WAYLOOP_FIT_MAKER"), !m.isEmpty { return m == "none" ? nil : m }
        if let me = Sys.executablePath, me.split(separator: "/").last == "wayloop" { return me }
        for dir in (Sys.env("PATH") ?? "").split(separator: ":") where dir.hasPrefix("/") {
            let p = "\(dir)/wayloop"
            if access(Sys.cPath(p), X_OK) == 0 { return p }
        }
        return nil
    }

    /// When to look again: twice a second while something moves (a child at work, a video
    /// not ready or not looked at yet, a switch waiting for its seam), at once after a
    /// reconcile (outputs, settings, videos changed: `lookSoon`), and otherwise every 10 s
    /// while a video is open (a loop cache given up, a decode path settled); never with none.
    /// The child's reports come through the event loop (fill/handle); a child that has closed
    /// its pipe, or one being stopped, is reaped by the looks.
    func nextLook() -> Nanos? {
        guard anyOpen || child != nil || !stopping.isEmpty else { return nil }
        let reaping = child?.ended == true || !stopping.isEmpty
        return lastLook + (unsettled || reaping ? 500_000_000 : 10 * .nanosPerSecond)
    }
    private var lastLook: Nanos = 0
    private var unsettled = true

    /// Something the rule reads changed: look at the next turn of the loop.
    func lookSoon() {
        lastLook = 0
        anyOpen = true
    }
    /// A video was open at the last look (every open and stop of a video reconciles, and a
    /// reconcile asks for a look at once: `lookSoon`).
    private var anyOpen = true

    /// What the rule needs of a video, how it plays now, and what the outputs showing it need.
    struct Video {
        let path: String
        let clip: Clip
        let outputs: [(size: Size, mode: ScaleMode)]
        let mode: FitMode
    }

    /// Looks at every open video: reaps the children that ended, and carries out FitPlan.
    func look(_ videos: [Video], quality: Int, cacheMax: Int, now: Nanos) {
        lastLook = now
        anyOpen = !videos.isEmpty
        reapStopped(now: now)
        childEnded()
        for v in videos { lookAfter(v, quality: quality, cacheMax: cacheMax) }
        unsettled = videos.contains { v in
            let r = records[v.path]
            return v.clip.info == nil && v.clip.error == nil || r?.facts == nil && v.clip.error == nil || r?.lookup != nil
                || !v.clip.isReplaying && !v.clip.isReleased && v.clip.switchWaiting
        }
        // The child's video is gone (switched away, stopped): it is not needed any more.
        if let c = child, !videos.contains(where: { $0.path == c.video }) { stopChild("'\(c.video)' no longer plays") }
        let open = Set(videos.map(\.path))
        for p in records.keys where !open.contains(p) { records[p] = nil }
    }

    private func lookAfter(_ v: Video, quality: Int, cacheMax: Int) {
        var r = records[v.path] ?? Record()
        defer { records[v.path] = r }
        if let refused = v.clip.takeRefusedFile() {
            log.notice("'\(v.path)': its fitted copy would not play (\(refused.reason)): deleted; the original plays on")
            FitCache.remove(refused.file)
            r.failedKey = r.key?.fileName
            r.failure = "the copy would not play"
            r.cached = false
        }
        // No output shows it (kept ready for a switch back): it stays on the file it reads, and
        // no copy is made for it.
        if v.outputs.isEmpty {
            if child?.video == v.path { stopChild("no output shows '\(v.path)' any more") }
            return
        }
        // Nothing of fitting comes before the first frame: the source's facts, the cache key's
        // read and a child starting cost the start-up 150-200 ms here (a 1080p30 clip on a
        // 1280x720 output, scripts/bench's first-frame case).
        guard let cache, let info = v.clip.info, v.clip.error == nil, v.clip.hasPresented else { return }
        // The clip's first open is of its own file (a copy is read only from a later seam).
        if r.facts == nil { r.facts = info.facts }
        var facts = r.facts!
        facts.decodedForFree = v.clip.decodeState?.hardwarePath != nil
        let verdict = FitRule.verdict(facts, outputs: v.outputs, cap: v.clip.frameCap, mode: maker == nil ? .off : v.mode)
        if case .make(let target) = verdict {
            if r.target != target || r.quality != quality {
                r.target = target
                r.quality = quality
                r.key = nil
                r.cached = false
                r.share = nil
                // The key names the file by its absolute path, as `wayloop prepare` does.
                let source = Paths.absolute(v.path, in: Sys.currentDirectory, home: Sys.env("HOME"))
                r.lookup = KeyLookup(source: source, target: target, quality: quality, cache: cache, log: log)
            }
            if let lookup = r.lookup {
                // Reading the key (2 MiB of the source) and opening the copy take a worker's time.
                guard let answer = lookup.answer else { return }
                r.lookup = nil
                (r.key, r.cached, r.share) = (answer.key, answer.found != nil, answer.share)
            }
            r.note = r.failedKey != nil && r.failedKey == r.key?.fileName ? r.failure : nil
        } else if case .keep(let why) = verdict {
            r.lookup = nil
            let largest = v.outputs.map(\.size).max { $0.width * $0.height < $1.width * $1.height }
            r.note = maker == nil ? "no wayloop executable to make a copy" : why.text(clip: facts, on: largest, cap: v.clip.frameCap)
        }
        guard let key = r.key else { return }
        let copyPath = cache.path(key)
        var facts2 = FitPlan.Facts(verdict: verdict)
        facts2.cached = r.cached
        facts2.playing = v.clip.wantedFile.map { .copy(current: $0 == copyPath) } ?? .original
        if let c = child { facts2.making = c.video != v.path ? .other : c.key == key ? .this : .stale }
        facts2.failed = r.failedKey == key.fileName
        facts2.replaying = v.clip.isReplaying
        for action in FitPlan.actions(facts2) {
            switch action {
            case .useCopy:
                log.debug("'\(v.path)': playing its fitted copy \(key.size) from the next loop seam: \(copyPath)")
                v.clip.read(from: copyPath)
            case .useOriginal:
                log.debug("'\(v.path)': back to its own file from the next loop seam")
                v.clip.read(from: nil)
            case .stopMaking:
                stopChild("'\(v.path)' no longer needs the copy being made")
            case .make:
                guard case .make(let target) = verdict else { break }
                if !start(v, target: target, key: key, quality: quality, cacheMax: cacheMax, cache: cache) {
                    r.failedKey = key.fileName
                    r.failure = "the copy could not be made"
                }
            }
        }
    }

    /// Starts the child; false (said once) when it could not be started.
    private func start(_ v: Video, target: FitRule.Target, key: FitCache.Key, quality: Int, cacheMax: Int, cache: FitCache) -> Bool {
        guard let maker else { return false }
        cache.removeStaleParts()
        var args = [maker, "prepare", "--for-wallpaper", "--always", "--size", target.size.description, "--quality", "\(quality)",
                    "--fit-cache-max", "\(cacheMax >> 20)"]
        if target.keepEvery > 1, let cap = v.clip.frameCap { args += ["--max-fps", FrameCap.text(cap)] }
        args.append(key.source)
        guard let c = PrepareChild(argv: args, video: v.path, key: key, size: target.size) else {
            log.notice("'\(v.path)': cannot start '\(maker) prepare' (\(Sys.errnoText())): the original plays on")
            return false
        }
        child = c
        firstNotice(v, target: target, cache: cache)
        log.debug("'\(v.path)': making a fitted copy \(target.size) (pid \(c.pid)): \(args.joined(separator: " "))")
        return true
    }

    /// Once per user (a mark in the cache's parent directory): what it does, why, the saving
    /// expected and how to turn it off. Later copies are logged at debug only.
    private func firstNotice(_ v: Video, target: FitRule.Target, cache: FitCache) {
        let mark = cache.directory + "/../fit-noticed"
        guard access(Sys.cPath(mark), F_OK) != 0 else { return }
        let name = v.path.split(separator: "/").last.map(String.init) ?? v.path
        let info = v.clip.info.map { "\($0.width)x\($0.height) \($0.codec)" } ?? "it"
        log.notice("making a smaller copy of '\(name)' (\(info) → \(target.size) H.264, what the largest output showing it needs) "
            + "at idle priority: playing it should cost about \(String(oneDecimal: target.expectedCost * 100))% of the CPU decoding "
            + "the original does. It is a re-encode, kept in \(cache.directory); --fit off plays every file as it is "
            + "(this notice is shown once)")
        _ = Sys.makeDirectories(cache.directory)
        _ = Sys.writeWhole(Array("\(Sys.now())\n".utf8), to: mark, mode: 0o644, sync: false)
    }

    // MARK: The child's pipe, in the event loop

    func fill(_ fds: UnsafeMutablePointer<pollfd>, capacity: Int) -> Int {
        guard capacity > 0, let c = child, !c.ended else { return 0 }
        fds[0] = pollfd(fd: c.fd, events: Int16(POLLIN), revents: 0)
        return 1
    }

    func handle(_ fds: UnsafeMutablePointer<pollfd>, count: Int) {
        guard count > 0, fds[0].revents != 0, let c = child else { return }
        readChild(c)
        // The pipe closed: the child is ending; the next look (soon) reaps it.
        if fds[0].revents & Int16(POLLHUP | POLLERR) != 0 || c.ended {
            c.ended = true
            lookSoon()
        }
    }

    /// Reads what the child wrote.
    private func readChild(_ c: PrepareChild) {
        for line in c.readLines() {
            guard let report = FitReport(line: line) else {
                relay(line, from: c)
                continue
            }
            switch report {
            case .progress(let d, let left): c.done = d; c.secondsLeft = left
            case .waiting(let why):
                c.waiting = why
                log.debug("'\(c.video)': making its fitted copy waits: \(why)")
            case .goingOn: c.waiting = nil
            case .made(let path, let share, _):
                c.made = path
                records[c.video]?.share = share
            }
        }
    }

    /// When the child has ended: what came of it.
    private func childEnded() {
        guard let c = child else { return }
        readChild(c)
        guard let status = c.exitStatus() else { return }
        child = nil
        if let made = c.made, made == cache?.path(c.key) {
            records[c.video]?.cached = true
            log.debug("'\(c.video)': its fitted copy is ready: \(made)")
        } else {
            // Killed, it left its half-written file: gone now that it is.
            cache?.removeStaleParts()
            records[c.video]?.failedKey = c.key.fileName
            if !c.said {
                log.notice("'\(c.video)': no fitted copy (the maker ended with \(status)); the original plays on")
            }
            records[c.video]?.failure = "the copy could not be made"
        }
    }

    /// A line of the child's that is not a report: its errors and notices become one notice of
    /// the wallpaper's; the rest (what the copy cost and saves) is logged at debug.
    private func relay(_ line: String, from c: PrepareChild) {
        for prefix in ["wayloop: error: prepare: ", "wayloop: error: ", "wayloop: notice: prepare: ", "wayloop: notice: "] where line.hasPrefix(prefix) {
            let text = String(line.dropFirst(prefix.count))
            if prefix.contains("error") {
                c.said = true
                log.notice("'\(c.video)': no fitted copy: \(text); the original plays on")
            } else {
                log.notice("fitted copy: \(text)")
            }
            return
        }
        log.debug("fitted copy: \(line)")
    }

    /// Stops the child (SIGTERM: it deletes what it made so far, between two frames) without
    /// waiting: later looks reap it, and SIGKILL it after 3 s.
    func stopChild(_ why: String) {
        guard let c = child else { return }
        child = nil
        log.debug("stopping the fitted copy's maker (pid \(c.pid)): \(why)")
        if c.terminate() { stopping.append((c, Sys.now() + 3 * .nanosPerSecond)) }
    }

    /// Reaps the children asked to stop; SIGKILL for one past its deadline (its half-written
    /// file is removed once it is gone).
    private func reapStopped(now: Nanos) {
        stopping.removeAll { s in
            if s.child.exitStatus() != nil { return true }
            guard now >= s.killAt else { return false }
            log.debug("the fitted copy's maker (pid \(s.child.pid)) did not stop within 3 s: SIGKILL")
            s.child.kill()
            cache?.removeStaleParts()
            return true
        }
    }

    /// The wallpaper stops: the child and every child being stopped end before it returns
    /// (SIGTERM, up to 3 s, SIGKILL), so that none outlives a host's wallpaper as a zombie.
    func finish() {
        stopChild("the wallpaper stops")
        for s in stopping { s.child.stop() }
        stopping.removeAll()
        for (_, r) in records { r.lookup?.join() }
    }

    /// The file watcher saw `path` change: its copy (of the old contents: the one it reads,
    /// else the one in the cache) is deleted, and the child making one stopped; the rule looks
    /// again once it has opened again.
    func sourceChanged(_ path: String, reading: String?) {
        if child?.video == path { stopChild("'\(path)' changed on disk") }
        guard let r = records.removeValue(forKey: path) else { return }
        if let copy = reading ?? (r.cached ? r.key.flatMap { cache?.path($0) } : nil), FitCache.remove(copy) {
            log.notice("'\(path)' changed: its fitted copy is deleted (a new one is made if it is worth it)")
        }
    }

    /// For status: where `path` stands (nil: fitting has not looked at it).
    func status(_ path: String, clip: Clip?) -> FitStatus? {
        if let c = child, c.video == path {
            return FitStatus(stage: .preparing, note: c.waiting, size: c.size, done: c.done, secondsLeft: c.secondsLeft)
        }
        guard let r = records[path] else { return nil }
        let waiting = clip.map { !$0.switchWaiting ? nil : $0.switchNote } ?? nil
        if clip?.wantedFile != nil {
            return FitStatus(stage: .copy, note: waiting, size: r.target?.size, decodeShare: r.share)
        }
        return FitStatus(stage: .original, note: waiting ?? r.note)
    }

}

/// A copy's cache key (its identity reads the source's size, mtime, inode and a hash of its
/// first and last MiB) and the cache's lookup of it (which opens the copy), on a worker: tens
/// of milliseconds of I/O the main thread does not wait for. The main thread reads `answer`.
final class KeyLookup: @unchecked Sendable {
    struct Answer {
        var key: FitCache.Key?
        var found: String?
        var share: Double?
    }
    /// Where the worker leaves its answer: the worker holds it, not the lookup, so a lookup
    /// dropped while its worker reads (its video closed) never waits for the read.
    private final class Mailbox: @unchecked Sendable {
        let lock = ConditionLock()
        var result: Answer?
    }
    private let mailbox = Mailbox()
    private var worker: WorkerThread?

    init(source: String, target: FitRule.Target, quality: Int, cache: FitCache, log: Logger) {
        let work: @Sendable () -> Answer = {
            let key = try? FitCache.key(source: source, size: target.size, keepEvery: target.keepEvery, quality: quality)
            let found = key.flatMap { cache.lookup($0, notice: { log.notice($0) }) }
            return Answer(key: key, found: found, share: found.flatMap(FitCache.share(of:)))
        }
        let box = mailbox
        worker = WorkerThread {
            let a = work()
            box.lock.withLock { box.result = a }
        }
        // No thread to be had: on this one, as before.
        if worker == nil { mailbox.result = work() }
    }

    /// Dropped before its answer came: the worker finishes alone (detached), never joined here.
    deinit {
        if mailbox.lock.withLock({ mailbox.result == nil }) { worker?.detach() } else { worker?.join() }
    }

    /// The answer once the worker has it (then the worker is joined), nil while it works.
    var answer: Answer? {
        guard let a = mailbox.lock.withLock({ mailbox.result }) else { return nil }
        join()
        return a
    }

    func join() {
        worker?.join()
        worker = nil
    }
}

/// A `wayloop prepare --for-wallpaper` child: its output (stdout and stderr, one pipe, read
/// without blocking) and its end.
final class PrepareChild {
    let pid: pid_t
    let video: String
    let key: FitCache.Key
    let size: Size
    let fd: Int32
    private var pending: [UInt8] = []
    /// Its pipe closed (it is ending): no longer polled.
    var ended = false
    var done: Double?
    var secondsLeft: Double?
    var waiting: String?
    var made: String?
    /// It said why it failed (its error line became the notice).
    var said = false
    private var status: String?

    init?(argv: [String], video: String, key: FitCache.Key, size: Size) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return nil }
        for f in fds { _ = fcntl(f, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        var p: pid_t = 0
        let rc = posix_spawn(&p, argv[0], &actions, nil, cArgs, environ)
        close(fds[1])
        guard rc == 0 else {
            close(fds[0])
            errno = rc
            return nil
        }
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        pid = p
        fd = fds[0]
        self.video = video
        self.key = key
        self.size = size
    }

    deinit { close(fd) }

    /// The whole lines written since the last call.
    func readLines() -> [String] {
        var buf = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fd, &buf, buf.count)
            guard n > 0 else { break }
            pending += buf[0..<n]
        }
        var lines: [String] = []
        while let nl = pending.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: pending[..<nl], as: UTF8.self))
            pending.removeSubrange(...nl)
        }
        return lines
    }

    /// How it ended (`status 1`, `signal 9`), nil while it runs.
    func exitStatus() -> String? {
        if let status { return status }
        var st: Int32 = 0
        guard waitpid(pid, &st, WNOHANG) == pid else { return nil }
        status = st & 0x7f == 0 ? "status \((st >> 8) & 0xff)" : "signal \(st & 0x7f)"
        return status
    }

    /// SIGTERM, without waiting; false when it had ended already.
    func terminate() -> Bool {
        guard exitStatus() == nil else { return false }
        Glibc.kill(pid, SIGTERM)
        return true
    }

    /// SIGKILL, and the wait for it (at once).
    func kill() {
        guard exitStatus() == nil else { return }
        Glibc.kill(pid, SIGKILL)
        var st: Int32 = 0
        waitpid(pid, &st, 0)
        status = "signal 9"
    }

    /// SIGTERM, and a wait for it (it stops between two frames); SIGKILL after 3 s. Only where
    /// the wallpaper stops (Fitting.finish).
    func stop() {
        guard terminate() else { return }
        for _ in 0..<150 {
            if exitStatus() != nil { return }
            usleep(20_000)
        }
        kill()
    }
}

extension App {
    func fitStatus(_ video: String) -> FitStatus? { fitting.status(video, clip: videos.clip(video)) }
}
