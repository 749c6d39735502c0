// `wayloop prepare`: fitted copies made by hand (at idle priority, one thread, with a progress
// bar on a terminal), the cache listed or emptied. The rule (FitRule) says whether a copy is
// worth it; `--always` makes one anyway where the copy would differ from the source at all.
import CFFmpeg
import CSystem
import Glibc
import WayLoopCore

enum Prepare {
    static func run(_ c: PrepareCommand) -> ExitStatus {
        av_quiet()
        guard let cache = FitCache.standard() else {
            Sys.writeStderr("wayloop: error: prepare: no cache directory (set XDG_CACHE_HOME or HOME)")
            return .failure
        }
        cache.removeStaleParts()
        switch c.action {
        case .list: return list(cache)
        case .clean:
            let gone = cache.clean()
            Sys.writeStdout("removed \(gone.count) fitted cop\(gone.count == 1 ? "y" : "ies") (\(megabytes(gone.reduce(0) { $0 + $1.bytes }))) from \(cache.directory)\n")
            return .ok
        case .make(let videos):
            idlePriority()
            // SIGINT and SIGTERM stop it between two frames: the half-made copy is deleted.
            let signals = SignalFD(handling: [SIGINT, SIGTERM])
            defer { signals?.close() }
            // A wallpaper's child ends with it (SIGTERM, the same clean stop).
            if c.forWallpaper && csys_die_with_parent(getppid()) != 0 { return .ok }
            let gate = FitGate(signals: signals, allowedOnBattery: c.onBattery, watchLoad: c.forWallpaper && Sys.env("WAYLOOP_FIT_IGNORE_LOAD") == nil,
                               report: c.forWallpaper)
            var status = ExitStatus.ok
            for v in videos where !gate.stopped {
                let s = make(v, c, cache: cache, stop: gate.proceed)
                if s != .ok && status == .ok { status = s }
            }
            return status
        }
    }

    private static func list(_ cache: FitCache) -> ExitStatus {
        let all = cache.entries()
        guard !all.isEmpty else {
            Sys.writeStdout("no fitted copies in \(cache.directory)\n")
            return .ok
        }
        for e in all.reversed() { Sys.writeStdout("\(megabytes(e.bytes))\t\(e.name)\n") }
        Sys.writeStdout("\(all.count) in \(cache.directory), \(megabytes(all.reduce(0) { $0 + $1.bytes })) in all\n")
        return .ok
    }

    /// SCHED_IDLE: the copy takes only CPU time nothing else wants.
    private static func idlePriority() {
        _ = csys_sched_idle()
    }

    private static func make(_ video: String, _ c: PrepareCommand, cache: FitCache, stop: @escaping () -> Bool) -> ExitStatus {
        let path = Paths.absolute(Wallpaper.find(video) ?? video, in: Sys.currentDirectory, home: Sys.env("HOME"))
        if let e = Preflight.check(path) {
            Sys.writeStderr("wayloop: error: prepare: \(e)")
            return .badVideo
        }
        let clip: FitRule.Clip
        do { clip = try facts(path) } catch {
            Sys.writeStderr("wayloop: error: prepare: \(error)")
            return .badVideo
        }
        var verdict = FitRule.verdict(clip, outputs: [(c.size, .fill)], cap: c.maxFps, mode: c.always ? .always : .auto)
        // A wallpaper's child is given the copy's own size (the wallpaper's rule worked it out
        // from every output showing the video): made exactly, so that its key is the one asked for.
        if c.forWallpaper, case .make(var t) = verdict {
            t.size = c.size
            verdict = .make(t)
        }
        guard case .make(let target) = verdict else {
            if case .keep(let why) = verdict { Sys.writeStdout("'\(path)': no copy made: \(why.text(clip: clip, on: c.size, cap: c.maxFps))\(why == .notWorthIt ? " (add --always to make one anyway)" : "")\n") }
            return .ok
        }
        do {
            let key = try FitCache.key(source: path, size: target.size, keepEvery: target.keepEvery, quality: c.quality)
            if let found = cache.lookup(key, notice: { Sys.writeStderr("wayloop: notice: \($0)") }) {
                Sys.writeStdout("'\(path)': already prepared: \(found)\n")
                if c.forWallpaper {
                    Sys.writeStdout(FitReport.made(path: found, share: FitCache.share(of: found) ?? target.expectedCost, cpuSeconds: 0).line + "\n")
                }
                return .ok
            }
            try cache.ensureDirectory()
            let bar = ProgressBar(label: (path.split(separator: "/").last.map(String.init) ?? path), lines: c.forWallpaper)
            let report = try FittedCopy.make(source: path, size: target.size, keepEvery: target.keepEvery, quality: c.quality,
                                             output: cache.path(key), tag: key.tag, progress: bar.show, stop: stop)
            bar.end()
            for e in cache.evict(toFit: c.cacheMax, keeping: cache.path(key)) {
                Sys.writeStdout("removed the least recently used copy \(e.name) (the cache holds at most \(FitCacheSize.text(c.cacheMax)))\n")
            }
            Sys.writeStdout("'\(path)': \(clip.size) → \(target.size)" + (target.keepEvery > 1 ? ", 1 frame in \(target.keepEvery)" : "")
                + ", \(report.framesWritten) frames, \(megabytes(report.bytes)), made in \(String(oneDecimal: report.cpuSeconds)) CPU-s; "
                + payback(report) + ": \(cache.path(key))\n")
            let share = report.sourceDecode > 0 ? Double(report.copyDecode) / Double(report.sourceDecode) : 1
            FitCache.writeShare(share, of: cache.path(key))
            if c.forWallpaper {
                Sys.writeStdout(FitReport.made(path: cache.path(key), share: share, cpuSeconds: report.cpuSeconds).line + "\n")
            }
            return .ok
        } catch {
            if error.stopped {
                Sys.writeStderr("wayloop: notice: prepare: stopped on a signal; nothing of '\(path)' is kept")
                return .ok
            }
            Sys.writeStderr("wayloop: error: prepare: \(error)")
            return .failure
        }
    }

    /// What the rule needs to know of the file at `path`.
    static func facts(_ path: String) throws(VideoError) -> FitRule.Clip {
        let input = try VideoInput.open(path)
        var f: UnsafeMutablePointer<AVFormatContext>? = input.format
        defer { avformat_close_input(&f) }
        return input.facts
    }

    /// What decoding a pass of the copy costs against the original, one thread, as measured
    /// while making it, and after how many passes the copy has paid for its making.
    private static func payback(_ r: FittedCopyReport) -> String {
        let original = Double(r.sourceDecode) / 1e6, copy = Double(r.copyDecode) / 1e6
        let saved = (original - copy) / 1000
        let share = original > 0 ? copy / original : 1
        let passes = saved > 0 ? " and pays for itself after \(Int((r.cpuSeconds / saved).rounded(.up))) passes" : "; it saves nothing"
        return "a pass decodes in \(String(oneDecimal: share * 100))% of the original's CPU (\(String(oneDecimal: copy)) against "
            + "\(String(oneDecimal: original)) ms, one thread)" + passes
    }

    private static func megabytes(_ bytes: Int) -> String { "\(String(oneDecimal: Double(bytes) / 1_048_576)) MiB" }
}

/// A progress bar on stderr when it is a terminal (nothing otherwise), or for a wallpaper's
/// child a FitReport line on stdout twice a second: the share done and the time left at the
/// pace so far.
final class ProgressBar {
    private let label: String
    private let started = Sys.now()
    private let lines: Bool
    private let shown: Bool
    private var lastDraw: Nanos = 0

    init(label: String, lines: Bool = false) {
        self.label = label
        self.lines = lines
        shown = lines || isatty(2) == 1
    }

    func show(_ done: Double) {
        guard shown else { return }
        let now = Sys.now()
        guard now - lastDraw >= (lines ? 500_000_000 : 200_000_000) || done >= 1 else { return }
        lastDraw = now
        let elapsed = Double(now - started) / 1e9
        let secondsLeft = done > 0.02 ? max(0, elapsed / done - elapsed) : nil
        if lines {
            Sys.writeStdout(FitReport.progress(min(1, done), secondsLeft: secondsLeft).line + "\n")
            return
        }
        let width = 30, filled = Int(done * Double(width))
        let left = secondsLeft.map { " \(Int($0.rounded())) s left" } ?? ""
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        Sys.writeStderrRaw("\r\(label) [\(bar)] \(Int(done * 100))%\(left)   ")
    }

    func end() { if shown && !lines { Sys.writeStderrRaw("\n") } }
}

/// Between two frames of a copy: a signal stops it; on battery, and for a wallpaper's child
/// while other programs keep the CPUs busy (FitPace), it waits, looking again every 200 ms,
/// and says so once each time it starts waiting and when it goes on. The power supplies and
/// the load are read once a second while it runs. By hand, the load does not hold it (the user
/// asked for it now, and idle priority already yields every CPU that anything else wants).
final class FitGate {
    private let signals: SignalFD?
    private let allowedOnBattery: Bool
    private let load: LoadWatch?
    private let report: Bool
    private(set) var stopped = false
    private var lastLook: Nanos = 0
    private var held: FitPace.Hold?

    init(signals: SignalFD?, allowedOnBattery: Bool, watchLoad: Bool, report: Bool) {
        self.signals = signals
        self.allowedOnBattery = allowedOnBattery
        load = watchLoad ? LoadWatch() : nil
        self.report = report
    }

    /// Whether to stop (true); waits first while it must.
    func proceed() -> Bool {
        while !stopped {
            if let s = signals, !s.read().isEmpty { stopped = true; break }
            let now = Sys.now()
            guard now - lastLook >= .nanosPerSecond || (held != nil && now - lastLook >= 200_000_000) else {
                if held == nil { return false }
                usleep(200_000)
                continue
            }
            lastLook = now
            let hold = FitPace.hold(onBattery: PowerSupply.onBattery(PowerMonitor.read()), allowedOnBattery: allowedOnBattery,
                                    othersBusy: load?.othersBusy())
            if hold != held && !(isBusy(hold) && isBusy(held)) {
                say(hold)
            }
            held = hold
            guard held != nil else { return false }
        }
        return true
    }

    private func isBusy(_ h: FitPace.Hold?) -> Bool { if case .cpuBusy? = h { return true }; return false }

    private func say(_ hold: FitPace.Hold?) {
        let why: String?
        switch hold {
        case .onBattery?: why = "on battery"
        case .cpuBusy(let p)?: why = "other programs keep \(Int(p)) % of the CPUs busy"
        case nil: why = nil
        }
        if report {
            Sys.writeStdout((why.map { FitReport.waiting($0) } ?? .goingOn).line + "\n")
        } else if hold == .onBattery {
            Sys.writeStderr("wayloop: notice: prepare: waiting while on battery (plug in, or --on-battery)")
        } else {
            Sys.writeStderr("wayloop: notice: prepare: " + (why.map { "waiting: \($0)" } ?? "going on"))
        }
    }
}

/// The load of everything but WayLoop: the CPUs' busy ticks between two looks, less this
/// process's and its parent's (the wallpaper) over the same time (FitPace.othersBusy).
final class LoadWatch {
    private var last: (busy: Int, all: Int, own: Int)?
    private let parent = getppid()

    /// Percent of all the CPUs others kept busy since the last call (nil the first time).
    func othersBusy() -> Double? {
        guard case .success(let stat) = Sys.readFile("/proc/stat", limit: 1 << 16), let t = ProcCPU.ticks(stat) else { return nil }
        var own = 0
        for pid in ["self", "\(parent)"] {
            if case .success(let text) = Sys.readFile("/proc/\(pid)/stat", limit: 4096) { own += ProcCPU.processTicks(text) ?? 0 }
        }
        defer { last = (t.busy, t.all, own) }
        guard let l = last else { return nil }
        return FitPace.othersBusy(before: (l.busy, l.all), after: (t.busy, t.all), ownTicks: own - l.own)
    }
}
