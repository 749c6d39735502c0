// A month, compressed: two outputs of a nested sway play a playlist of five videos
// (sizes and codecs mixed: H.264 at two sizes, MJPEG, VP9, HEVC) switching every 10 s with
// fades, a `ctl set` every minute (the playlist again with another dim), a hotplug every 5
// minutes (an output added for 20 s, then unplugged); a short run (CI's) plugs once at 10 s and
// sets every 50 s. Private RSS, anonymous RSS and fds are sampled every 2 s. Within one 10 s
// showing private RSS swings by ~20 MB (the showing clip's loop cache fills and is freed at the
// switch, the next video is opened ahead, fades hold two), and its level follows the video on
// screen (a 1280x720 loop cache is twelve times a 320x240 one): flat is judged per video, on
// windows that see every video (5-minute windows after a 5-minute warm-up; in a short run 50 s,
// one round, after 100 s). Each video's median private RSS in a later window, less its median
// in the first, is its growth; the window's growth is the median of its videos' (a leak raises
// them all; a window that happened to sample the large video more often, as a switch delayed
// by the machine's load makes it, raises none) and may not exceed 2 MB; and the fewest fds of each window (a leaked fd raises it; a state write or a memfd
// for a moment does not) must equal the first window's. Frames dropped are counted per output
// and must all fall near a switch, a set or a hotplug, or in a sample where the machine's load
// made wayloop or a sway wait a frame's time for a CPU (a drop with the machine quiet is WayLoop's).
// $WAYLOOP_SOAK_SECONDS sets the length (default 300, as CI runs it; 3600 by hand);
// $WAYLOOP_SOAK_OUT names a JSON file for the samples. Each sample also keeps the CPU pressure of
// the 2 s before it (/proc/pressure/cpu), how long wayloop's threads and the two sways' waited
// for a CPU and how many cores the machine kept busy, and how late a 2 ms sleep woke: a drop
// under another tenant's load is told from WayLoop's own.
import Foundation
import WayLoopTestSupport
import XCTest

final class MonthSoakTests: XCTestCase {
    static let clips: [(name: String, args: [String])] = [
        ("a-h264-640x360.mp4", ["-f", "lavfi", "-i", "testsrc2=s=640x360:r=30:d=2", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p"]),
        ("b-h264-1280x720.mp4", ["-f", "lavfi", "-i", "testsrc=s=1280x720:r=25:d=2", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p"]),
        ("c-mjpeg-480x270.avi", ["-f", "lavfi", "-i", "smptebars=s=480x270:r=24:d=2", "-c:v", "mjpeg", "-q:v", "4", "-pix_fmt", "yuvj420p"]),
        ("d-vp9-320x240.webm", ["-f", "lavfi", "-i", "mandelbrot=s=320x240:r=30", "-t", "2", "-c:v", "libvpx-vp9", "-deadline", "realtime", "-b:v", "500k"]),
        ("e-hevc-960x540.mp4", ["-f", "lavfi", "-i", "testsrc2=s=960x540:r=30:d=2", "-c:v", "libx265", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-x265-params", "log-level=error"]),
    ]

    static func seconds() throws -> Int {
        guard let s = ProcessInfo.processInfo.environment["WAYLOOP_SOAK_SECONDS"], !s.isEmpty else { return 300 }
        guard let n = Int(s), n >= 120 else { throw HarnessError("WAYLOOP_SOAK_SECONDS is '\(s)': it must be a whole number of seconds, at least 120") }
        return n
    }

    struct Sample {
        var t: Double
        var privateKB: Int
        var anonKB: Int
        var fds: [Int: String]
        var outputs: Int
        var dropped: [String: Int]
        var video: String
        /// Over the 2 s before this sample: ms in which some task on the machine waited for a
        /// CPU (/proc/pressure/cpu), ms wayloop's threads waited for one (those still alive at the
        /// sample: a decoder that ended at a switch takes its count with it), and the cores the
        /// machine kept busy (all its processes, ours included); -1 where /proc does not say.
        var pressureMs: Int
        var waitMs: Int
        /// ms the inner and outer sway's threads waited for a CPU in those 2 s (-1: unknown).
        var swayWaitMs: Int
        var busyCores: Double
        /// The longest a 2 ms sleep of the test's probe thread overslept in those 2 s. In a
        /// virtual machine a vCPU the host gives to another tenant shows no pressure inside: a
        /// late wake-up with no pressure is that.
        var oversleptMs: Int
        /// Cores wayloop, this test process (its sampling, the subscription) and the inner and
        /// outer sway used in those 2 s: whose cost grows over the hour, if any does.
        var wayloopCores: Double
        var testCores: Double
        var innerSwayCores: Double
        var outerSwayCores: Double
    }

    /// A thread that sleeps 2 ms at a time and keeps the longest oversleep since it was last read.
    final class WakeProbe: @unchecked Sendable {
        private let lock = NSLock()
        private var longest: Int64 = 0
        private var stopped = false
        init() {
            Thread.detachNewThread { [self] in
                while !lock.withLock({ stopped }) {
                    let t0 = Proc.monotonicNanos()
                    usleep(2000)
                    let late = Proc.monotonicNanos() - t0 - 2_000_000
                    lock.withLock { longest = max(longest, late) }
                }
            }
        }
        /// ms, and starts again.
        func take() -> Int { lock.withLock { defer { longest = 0 }; return Int(longest / 1_000_000) } }
        func stop() { lock.withLock { stopped = true } }
    }

    /// One window of steady samples: its median private and anonymous RSS (overall, and private
    /// per video on screen) and its fewest fds.
    struct Window {
        var from: Double
        var samples: Int
        var medianPrivateKB: Int
        var medianPrivateKBByVideo: [String: Int] = [:]
        var medianAnonKB: Int
        var fewestFds: Int
        var mostFds: Int
    }

    /// The windows of `length` s from `from` to `end`, each with at least half its samples
    /// (one every 2 s) steady.
    static func windows(_ steady: [Sample], from: Double, end: Double, length: Double) -> [Window] {
        func median(_ v: [Int]) -> Int { v.sorted()[v.count / 2] }
        var out: [Window] = []
        var w0 = from
        while w0 + length <= end + 1 {
            let xs = steady.filter { $0.t >= w0 && $0.t < w0 + length }
            if Double(xs.count) >= length / 4 {
                var w = Window(from: w0, samples: xs.count, medianPrivateKB: median(xs.map(\.privateKB)),
                               medianAnonKB: median(xs.map(\.anonKB)), fewestFds: xs.map(\.fds.count).min()!,
                               mostFds: xs.map(\.fds.count).max()!)
                // A video needs two samples in the window to have a median worth comparing.
                for (video, s) in Dictionary(grouping: xs, by: \.video) where s.count >= 2 {
                    w.medianPrivateKBByVideo[video] = median(s.map(\.privateKB))
                }
                out.append(w)
            }
            w0 += length
        }
        return out
    }

    /// A window's private RSS growth over `first`: the median, over the videos both sampled, of
    /// each one's median growth (nil: no video in common).
    static func growth(_ w: Window, over first: Window) -> Int? {
        let each = w.medianPrivateKBByVideo.compactMap { v, kb in first.medianPrivateKBByVideo[v].map { kb - $0 } }.sorted()
        return each.isEmpty ? nil : each[each.count / 2]
    }

    /// The growth measure on made-up windows: a window that sampled the large video more often
    /// grows by nothing; every video 3 MB up grows by 3 MB; one video up alone does not move
    /// the median of five.
    func testGrowthIsJudgedPerVideo() {
        func w(_ byVideo: [String: Int], overall: Int) -> Window {
            Window(from: 0, samples: 25, medianPrivateKB: overall, medianPrivateKBByVideo: byVideo, medianAnonKB: 0, fewestFds: 13, mostFds: 13)
        }
        let first = w(["a": 100_000, "b": 160_000, "c": 95_000, "d": 94_000, "e": 120_000], overall: 112_000)
        let mix = w(["a": 100_100, "b": 160_200, "c": 95_000, "d": 93_900, "e": 120_000], overall: 118_000)
        let leak = w(["a": 103_000, "b": 163_000, "c": 98_000, "d": 97_000, "e": 123_000], overall: 115_000)
        let one = w(["a": 100_000, "b": 170_000, "c": 95_000, "d": 94_000, "e": 120_000], overall: 114_000)
        XCTAssertEqual(Self.growth(mix, over: first), 0, "the mix of videos sampled moved the overall median by 6 MB")
        XCTAssertEqual(Self.growth(leak, over: first), 3000)
        XCTAssertEqual(Self.growth(one, over: first), 0)
        XCTAssertNil(Self.growth(w([:], overall: 0), over: first))
    }

    func testAMonthCompressed() throws {
        let total = try Self.seconds()
        // The warm-up: five minutes in a long run (its first hotplug, at 150 s, inside it). A
        // short one (CI's) plugs once at 10 s, then warms up for two rounds of the five videos
        // after the unplug (the first output ever added allocates what later ones reuse: see
        // HotplugSoakTests); its sets come every round (50 s), so each window holds one.
        let long = total >= 1800
        let warmUp = long ? 300.0 : 100.0, window = long ? 300.0 : 50.0
        let setEvery = long ? 60.0 : 50.0, plugEvery = long ? 300.0 : Double(total) * 10
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-month-\(getpid())").path
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir + "/videos", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for c in Self.clips {
            let r = Shell.run(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"] + c.args + ["-an", dir + "/videos/" + c.name], timeout: 120)
            guard r.status == 0 else { throw HarnessError("ffmpeg could not make \(c.name): \(r.stderr)") }
        }
        let sway = try NestedSway(outputs: ["480x270", "400x225"])
        defer { sway.stop() }
        let outs = sway.initialOutputs
        let w = try Wayloop(["--interval", "10s", dir + "/videos"], env: sway.env)
        defer { _ = w.stop() }
        XCTAssertTrue(w.waitForStates(outs, state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
        let sub = try Subscription(env: sway.env)

        var samples: [Sample] = []
        var lastPressure = Proc.cpuPressureMicros(), lastWait = Proc.runQueueWaitNanos(w.pid), lastTicks = Proc.machineTicks()
        /// Cores `pid` used since `ticks` at `lastOwn.at`, two decimals.
        func cores(_ pid: pid_t, _ ticks: Int) -> Double {
            let dt = Double(Proc.monotonicNanos() - lastOwn.at) / 1e9
            let now = Proc.cpuTicks(pid)
            guard ticks >= 0, now >= ticks, dt > 0 else { return -1 }
            return (Double(now - ticks) / Double(Proc.ticksPerSecond) / dt * 100).rounded() / 100
        }
        // The nested harness's env names both sways (COMPOSITOR_PID is the inner one).
        let innerPid = sway.env["COMPOSITOR_PID"].flatMap { pid_t($0) } ?? -1
        let outerPid = sway.env["OUTER_PID"].flatMap { pid_t($0) } ?? -1
        var lastOwn = (w: Proc.cpuTicks(w.pid), me: Proc.cpuTicks(getpid()), inner: Proc.cpuTicks(innerPid),
                       outer: Proc.cpuTicks(outerPid), at: Proc.monotonicNanos())
        /// The run-queue wait of the two sways' threads, by pid and thread id.
        func swayWaits() -> [String: Int] {
            var out: [String: Int] = [:]
            for pid in [innerPid, outerPid] where pid > 0 {
                for (tid, ns) in Proc.runQueueWaitNanos(pid) { out["\(pid)/\(tid)"] = ns }
            }
            return out
        }
        var lastSwayWait = swayWaits()
        let probe = WakeProbe()
        defer { probe.stop() }
        _ = probe.take()
        var events: [(t: Double, what: String)] = []
        let start = Date()
        func now() -> Double { Date().timeIntervalSince(start) }
        var nextSet = setEvery, nextPlug = long ? 150.0 : 10.0, unplugAt: Double?, plugged: String?, dimmed = false
        while now() < Double(total) {
            let t = now()
            if t >= nextSet {
                dimmed.toggle()
                let r = Shell.run([Repo.binary, "ctl", "set", "*", dir + "/videos", "--interval", "10s", "--dim", dimmed ? "0.1" : "0"],
                                  env: sway.env, timeout: 60)
                XCTAssertEqual(r.status, 0, "ctl set at \(Int(t)) s: \(r.stderr)")
                events.append((t, "set"))
                nextSet += setEvery
            }
            if t >= nextPlug, plugged == nil {
                plugged = try sway.addOutput("320x180")
                events.append((now(), "plug \(plugged!)"))
                unplugAt = now() + 20
                nextPlug += plugEvery
            }
            if let u = unplugAt, t >= u, let p = plugged {
                try sway.removeOutput(p)
                events.append((now(), "unplug \(p)"))
                plugged = nil
                unplugAt = nil
            }
            guard w.isRunning else { break }
            sub.poll()  // each switch event stamped within a sample of when it came
            let status = (try? w.ctlStatus()) ?? []
            var dropped: [String: Int] = [:]
            for o in status { if let n = o["name"] as? String { dropped[n] = o["frames_dropped"] as? Int ?? 0 } }
            let video = status.first { $0["name"] as? String == outs[0] }?["video"] as? String ?? ""
            let pressure = Proc.cpuPressureMicros(), wait = Proc.runQueueWaitNanos(w.pid), ticks = Proc.machineTicks()
            let waitNs = wait.reduce(0) { $0 + max(0, $1.value - (lastWait[$1.key] ?? 0)) }
            let swayWait = swayWaits()
            let swayWaitNs = swayWait.reduce(0) { $0 + max(0, $1.value - (lastSwayWait[$1.key] ?? 0)) }
            var busy = -1.0
            if let a = lastTicks, let b = ticks, b.all > a.all {
                busy = Double(b.busy - a.busy) / Double(b.all - a.all) * Double(b.cpus)
            }
            samples.append(Sample(t: now(), privateKB: Proc.privateKB(w.pid), anonKB: Proc.anonKB(w.pid), fds: HotplugSoakTests.fds(w.pid),
                                  outputs: status.count, dropped: dropped, video: (video as NSString).lastPathComponent,
                                  pressureMs: pressure >= 0 && lastPressure >= 0 ? (pressure - lastPressure) / 1000 : -1,
                                  waitMs: wait.isEmpty ? -1 : waitNs / 1_000_000, swayWaitMs: swayWait.isEmpty ? -1 : swayWaitNs / 1_000_000,
                                  busyCores: (busy * 100).rounded() / 100,
                                  oversleptMs: probe.take(), wayloopCores: cores(w.pid, lastOwn.w), testCores: cores(getpid(), lastOwn.me),
                                  innerSwayCores: cores(innerPid, lastOwn.inner), outerSwayCores: cores(outerPid, lastOwn.outer)))
            lastOwn = (Proc.cpuTicks(w.pid), Proc.cpuTicks(getpid()), Proc.cpuTicks(innerPid), Proc.cpuTicks(outerPid), Proc.monotonicNanos())
            (lastPressure, lastWait, lastTicks, lastSwayWait) = (pressure, wait, ticks, swayWait)
            usleep(2_000_000)
        }
        XCTAssertTrue(w.isRunning, "wayloop ended during the soak: \(w.stderr)")
        let switches = outs.flatMap { sub.switches($0).map { $0.at.timeIntervalSince(start) } }

        // Steady samples: the two outputs alone and 5 s clear of a hotplug (its buffers come and go).
        let plugs = events.filter { $0.what.hasPrefix("plug") || $0.what.hasPrefix("unplug") }.map(\.t)
        let steady = samples.filter { s in
            s.t >= warmUp && s.outputs == outs.count && !plugs.contains { s.t >= $0 - 1 && s.t <= $0 + 25 }
        }
        let windows = Self.windows(steady, from: warmUp, end: Double(total), length: window)
        XCTAssertGreaterThanOrEqual(windows.count, long ? 5 : 3, "too few windows of steady samples: \(windows)")
        guard let firstWindow = windows.first else { return }
        let growthKB = windows.map { Self.growth($0, over: firstWindow) ?? ($0.medianPrivateKB - firstWindow.medianPrivateKB) }
        let anonGrowthKB = windows.map { $0.medianAnonKB - firstWindow.medianAnonKB }
        // The fds above a window's fewest, when there were most: what a moment's extra fds were.
        var extraFds: [String] = []
        for win in windows where win.mostFds > win.fewestFds {
            let inWindow = steady.filter { $0.t >= win.from && $0.t < win.from + window }
            guard let least = inWindow.first(where: { $0.fds.count == win.fewestFds }),
                  let most = inWindow.first(where: { $0.fds.count == win.mostFds }) else { continue }
            let extra = most.fds.filter { least.fds[$0.key] != $0.value }.map { "\($0.key) → \($0.value)" }.sorted()
            extraFds.append("at \(Int(most.t)) s: \(extra.joined(separator: ", "))")
        }
        // Drops, and whether each fell near a switch, a set or a hotplug (3 s before to 1 s after
        // the sample that saw it: a sample every 2 s).
        var drops: [(t: Double, output: String, n: Int, near: Bool, pressureMs: Int, waitMs: Int, swayWaitMs: Int, busyCores: Double,
                     oversleptMs: Int)] = []
        for i in 1..<max(1, samples.count) {
            for (o, n) in samples[i].dropped {
                let d = n - (samples[i - 1].dropped[o] ?? n)
                guard d > 0 else { continue }
                let t = samples[i].t
                let near = (switches + events.map(\.t)).contains { $0 >= samples[i - 1].t - 3 && $0 <= t + 1 }
                drops.append((t, o, d, near, samples[i].pressureMs, samples[i].waitMs, samples[i].swayWaitMs, samples[i].busyCores,
                              samples[i].oversleptMs))
            }
        }
        let outside = drops.filter { !$0.near }
        // The machine's CPU pressure at the drops away from a switch against every sample's: a
        // drop when others kept the cores busy is told from one on a quiet machine.
        func median(_ v: [Int]) -> Int { v.isEmpty ? -1 : v.sorted()[v.count / 2] }
        let measured = samples.dropFirst().filter { $0.pressureMs >= 0 }
        let pressureSummary: [String: Any] = [
            "median_pressure_ms_per_sample": median(measured.map(\.pressureMs)),
            "median_pressure_ms_at_drops_away": median(outside.map(\.pressureMs)),
            "median_wayloop_wait_ms_per_sample": median(measured.map(\.waitMs).filter { $0 >= 0 }),
            "median_wayloop_wait_ms_at_drops_away": median(outside.map(\.waitMs).filter { $0 >= 0 }),
            "samples_over_200ms_pressure": measured.filter { $0.pressureMs > 200 }.count,
            "median_overslept_ms_per_sample": median(measured.map(\.oversleptMs)),
            "median_overslept_ms_at_drops_away": median(outside.map(\.oversleptMs)),
            "samples_overslept_over_50ms": measured.filter { $0.oversleptMs > 50 }.count,
            "drops_away_over_200ms_pressure": outside.filter { $0.pressureMs > 200 }.map(\.n).reduce(0, +),
        ]
        let rssAll = steady.map(\.privateKB)
        let awayText = outside.isEmpty ? "" : "; at the drops away: " + outside.map { d -> String in
            "\(Int(d.t)) s \(d.n) frames, pressure \(d.pressureMs) ms, wayloop waited \(d.waitMs) ms, the sways \(d.swayWaitMs) ms, \(d.busyCores) cores busy, "
                + "a 2 ms sleep overslept \(d.oversleptMs) ms"
        }.joined(separator: "; ")
        print("MonthSoakTests: \(total) s, \(samples.count) samples, \(switches.count) switches, \(events.filter { $0.what == "set" }.count) sets, "
            + "\(plugs.count / 2) hotplugs; steady private RSS \((rssAll.min() ?? 0) / 1024)-\((rssAll.max() ?? 0) / 1024) MB; "
            + "\(Int(window)) s windows from \(Int(warmUp)) s: median private RSS (kB) \(windows.map(\.medianPrivateKB)), "
            + "growth over the first by the videos' medians \(growthKB), "
            + "anonymous \(windows.map(\.medianAnonKB)); fewest fds \(windows.map(\.fewestFds)), most \(windows.map(\.mostFds))"
            + (extraFds.isEmpty ? "" : " (the extra ones: \(extraFds.joined(separator: "; ")))")
            + "; dropped \(drops.map(\.n).reduce(0, +)) (outside a switch: \(outside.map(\.n).reduce(0, +)))"
            + "; CPU pressure per 2 s sample: median \(median(measured.map(\.pressureMs))) ms, "
            + "\(measured.filter { $0.pressureMs > 200 }.count) samples over 200 ms; longest oversleep of a 2 ms sleep per sample: median "
            + "\(median(measured.map(\.oversleptMs))) ms, \(measured.filter { $0.oversleptMs > 50 }.count) samples over 50 ms" + awayText)

        if let out = ProcessInfo.processInfo.environment["WAYLOOP_SOAK_OUT"], !out.isEmpty {
            let json: [String: Any] = [
                "seconds": total, "warm_up_s": warmUp, "window_s": window, "outputs": outs, "clips": Self.clips.map(\.name),
                "command": "WAYLOOP_SOAK_SECONDS=\(total) WAYLOOP_SOAK_OUT=\(out) swift test --skip-build --filter WayLoopE2ETests.MonthSoakTests",
                "samples": samples.map { ["t": ($0.t * 10).rounded() / 10, "private_kb": $0.privateKB, "anon_kb": $0.anonKB, "fds": $0.fds.count,
                                          "outputs": $0.outputs, "video": $0.video, "dropped": $0.dropped,
                                          "cpu_pressure_ms": $0.pressureMs, "wayloop_wait_ms": $0.waitMs, "sway_wait_ms": $0.swayWaitMs,
                                          "busy_cores": $0.busyCores, "overslept_ms": $0.oversleptMs, "wayloop_cores": $0.wayloopCores,
                                          "test_cores": $0.testCores, "inner_sway_cores": $0.innerSwayCores,
                                          "outer_sway_cores": $0.outerSwayCores] as [String: Any] },
                "events": events.map { ["t": ($0.t * 10).rounded() / 10, "what": $0.what] as [String: Any] },
                "switches": switches.sorted().map { ($0 * 10).rounded() / 10 },
                "windows": windows.map { ["from_s": $0.from, "samples": $0.samples, "median_private_kb": $0.medianPrivateKB,
                                          "median_anon_kb": $0.medianAnonKB, "fewest_fds": $0.fewestFds, "most_fds": $0.mostFds] as [String: Any] },
                "growth_kb_per_window": growthKB, "anon_growth_kb_per_window": anonGrowthKB, "extra_fds": extraFds,
                "drops": drops.map { ["t": ($0.t * 10).rounded() / 10, "output": $0.output, "frames": $0.n, "near_a_switch": $0.near,
                                      "cpu_pressure_ms": $0.pressureMs, "wayloop_wait_ms": $0.waitMs, "sway_wait_ms": $0.swayWaitMs,
                                      "busy_cores": $0.busyCores,
                                      "overslept_ms": $0.oversleptMs] as [String: Any] },
                "pressure": pressureSummary,
            ]
            let data = try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys])
            try data.write(to: URL(fileURLWithPath: out))
        }
        for (win, g) in zip(windows, growthKB) {
            XCTAssertLessThanOrEqual(g, 2048, "private RSS: in the window from \(Int(win.from)) s the videos' medians are \(g) kB above "
                + "the first window's (median of the videos; per video \(win.medianPrivateKBByVideo.sorted { $0.key < $1.key }), "
                + "first \(firstWindow.medianPrivateKBByVideo.sorted { $0.key < $1.key }))")
        }
        for win in windows {
            XCTAssertEqual(win.fewestFds, firstWindow.fewestFds, "fds: the window from \(Int(win.from)) s never went below \(win.fewestFds) (the first: \(firstWindow.fewestFds))")
        }
        // A frame is dropped when it is committed after the next one was due: wayloop or a sway
        // ran a frame late (33 ms at 30 fps, the fastest of these clips). Where, in the 2 s of
        // the sample that saw the drop, neither wayloop's threads nor the two sways' waited a
        // frame's time for a CPU in all (their run queues: another process's load) and the probe
        // never overslept that long (a vCPU the host gave to another tenant), the machine cannot
        // have made them that late: such a drop is WayLoop's, and there must be none. A drop
        // under the machine's load is reported with its numbers above (and in the JSON).
        let frameMs = 33
        let own = outside.filter { $0.waitMs < frameMs && $0.swayWaitMs < frameMs && $0.oversleptMs < frameMs }
        print("MonthSoakTests: frames dropped away from a switch: \(outside.map(\.n).reduce(0, +)), \(own.map(\.n).reduce(0, +)) of them "
              + "where neither wayloop nor the sways waited \(frameMs) ms for a CPU and no 2 ms sleep overslept that long")
        XCTAssertEqual(own.map(\.n).reduce(0, +), 0, "frames dropped away from any switch while the machine kept nothing waiting a frame's time: \(own)")
        XCTAssertEqual(w.stop(), 0, w.stderr)
    }
}
