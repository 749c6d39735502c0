// Hotplug soak: in a nested sway (scripts/compositor start-nested) with one output,
// wayloop plays the grid clip on every output while an output is added and unplugged again and
// again. After the soak wayloop is alive, the others still play, a newly added output shows the
// video, its fds are back where they were and its RSS has not grown by more than 2 MB.
// $WAYLOOP_HOTPLUG_CYCLES sets the number of measured cycles (default 100).
import Foundation
import WayLoopTestSupport
import XCTest

final class HotplugSoakTests: XCTestCase {
    nonisolated(unsafe) static var sway: NestedSway?
    nonisolated(unsafe) static var startError: String?

    /// WL-1 only, small: software rendering on 2 shared cores.
    static let base = ["640x360"]
    /// The size of the output added in each cycle: small, so a cycle costs the harness and the
    /// compositor little; what it exercises (a head, a layer surface, a sink, its buffers or EGL
    /// surface, the registry's global/global_remove) does not depend on the size.
    static let cycleSize = "320x180"
    /// Cycles before the baseline is taken (not counted in the measured ones). The first cycles
    /// allocate the heap's working size: the first added output makes wayloop create a head, a
    /// layer surface and a sink for it, converters (libswscale contexts) and buffers for the two
    /// sizes every cycle's output passes through (1280x720 at birth, then 320x180), a decode scale
    /// for a larger output than WL-1, malloc's thresholds move after the first large frees, and the
    /// first EGL window surface (gl) makes llvmpipe allocate what it keeps. Measured here: cycle 1
    /// is 4-10 MB above the rest and has one more fd; from cycle 2 RSS moves by at most ~150 kB.
    /// So 5 would do on this machine; 10 (about 4 s, several passes of the 1 s clip, so the loop
    /// cache is built) leaves margin for a slower or busier CI machine. Growth is measured from
    /// the settled RSS after cycle 10.
    static let warmUpCycles = 10
    static let rssGrowthLimitKB = 2048
    /// Every how many measured cycles the RSS/fd series gets a sample.
    static let sampleEvery = 10

    override class func setUp() {
        super.setUp()
        do {
            _ = Repo.clips
            let s = try NestedSway(outputs: base)
            sway = s
            guard s.initialOutputs == ["WL-1"] else {
                throw HarnessError("the nested sway has outputs \(s.initialOutputs), expected WL-1")
            }
        } catch {
            startError = "\(error)"
        }
    }

    override class func tearDown() {
        sway?.stop()
        super.tearDown()
    }

    private func ready() throws -> NestedSway {
        if let e = Self.startError { throw HarnessError(e) }
        return Self.sway!
    }

    /// $WAYLOOP_HOTPLUG_CYCLES (a positive integer), else 100. A bad value is a failure, not a default.
    static func cycleCount() throws -> Int {
        guard let s = ProcessInfo.processInfo.environment["WAYLOOP_HOTPLUG_CYCLES"], !s.isEmpty else { return 100 }
        guard let n = Int(s), n > 0 else { throw HarnessError("WAYLOOP_HOTPLUG_CYCLES is '\(s)': it must be a positive integer") }
        return n
    }

    // MARK: process measures

    /// The open fds of `pid` and what each points at (readlink of /proc/PID/fd/N).
    static func fds(_ pid: pid_t) -> [Int: String] {
        let dir = "/proc/\(pid)/fd"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return [:] }
        var out: [Int: String] = [:]
        for n in names {
            guard let fd = Int(n) else { continue }
            out[fd] = (try? FileManager.default.destinationOfSymbolicLink(atPath: dir + "/" + n)) ?? "?"
        }
        return out
    }

    /// What `now` has open that `base` had not (and the other way), by target kind, for messages:
    /// `memfd:…`, `socket:[…]`, `anon_inode:…` are grouped as `socket`, `memfd`, `anon_inode:[eventfd]`…
    static func fdDiff(_ base: [Int: String], _ now: [Int: String]) -> String {
        func kind(_ t: String) -> String {
            if t.hasPrefix("socket:") { return "socket" }
            if t.hasPrefix("/memfd:") || t.hasPrefix("memfd:") { return "memfd" }
            if t.hasPrefix("pipe:") { return "pipe" }
            return t
        }
        var counts: [String: Int] = [:]
        for t in now.values { counts[kind(t), default: 0] += 1 }
        for t in base.values { counts[kind(t), default: 0] -= 1 }
        let moved = counts.filter { $0.value != 0 }.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value > 0 ? "+" : "")\($0.value)" }
        return moved.isEmpty ? "same kinds as at baseline" : moved.joined(separator: ", ")
    }

    /// RssAnon / RssFile / RssShmem of a process in kB, for messages (what grew).
    static func rssParts(_ pid: pid_t) -> String {
        guard let s = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return "?" }
        return s.split(separator: "\n").filter { $0.hasPrefix("RssAnon:") || $0.hasPrefix("RssFile:") || $0.hasPrefix("RssShmem:") }
            .map { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).prefix(2).joined(separator: " ") }
            .joined(separator: ", ")
    }

    /// The fd count once no `ctl` connection is in flight: two reads 100 ms apart agree (a ctl
    /// that has exited may still have its socket open in wayloop until the next poll pass).
    static func settledFDs(_ pid: pid_t) -> [Int: String] {
        var last = fds(pid)
        _ = Wait.until(timeout: 3) {
            usleep(100_000)
            let now = fds(pid)
            defer { last = now }
            return now.count == last.count
        }
        return last
    }

    /// How long RSS must stay within `rssQuietKB` to count as settled: longer than the 2 s after
    /// which wayloop frees shm buffers no output has used (Draw.swift, `shm?.trim(before: now - 2 s)`).
    /// Every cycle reuses the same buffer sizes (320x180, and 1280x720, the size a WL-n output has
    /// before add-output resizes it: ~7.7 MB of shm), so right after a removal they are still held;
    /// a baseline taken then would hide a leak of that size behind their later release.
    static let rssQuietSeconds = 3.0
    /// With gl, RSS swings by 1128 kB once per pass of the 1 s clip even with no hotplug at all
    /// (~0.3 s high, ~0.6 s low: a block mapped and unmapped again), so "quiet" allows 1.5 MB and
    /// the settled value is the lowest reading of the quiet window, the same phase at baseline
    /// and at the end. The shm buffers' release (7.7 MB) is far outside it.
    static let rssQuietKB = 1536

    /// RSS once it has stayed within `rssQuietKB` of one reading for `rssQuietSeconds` (bounded
    /// by `timeout`): the lowest reading of that window. `settled` false if it kept moving (the
    /// value is then the lowest reading since the last move).
    static func settledRSS(_ pid: pid_t, timeout: Double = 15) -> (kb: Int, settled: Bool, waited: Double) {
        let start = Date()
        var anchor = Proc.rssKB(pid), since = Date(), low = anchor
        let ok = Wait.until(timeout: timeout) {
            let now = Proc.rssKB(pid)
            if abs(now - anchor) > rssQuietKB {
                (anchor, low, since) = (now, now, Date())
            } else {
                low = min(low, now)
            }
            return Date().timeIntervalSince(since) >= rssQuietSeconds
        }
        return (low, ok, Date().timeIntervalSince(start))
    }

    /// VmRSS and its RssShmem part in kB (-1 if unreadable).
    static func rss(_ pid: pid_t) -> (total: Int, shmem: Int) {
        guard let s = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return (-1, -1) }
        func field(_ key: String) -> Int {
            guard let line = s.split(separator: "\n").first(where: { $0.hasPrefix(key) }) else { return -1 }
            return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? -1
        }
        return (field("VmRSS:"), field("RssShmem:"))
    }

    /// One point of the series: taken right after a cycle's removal, so (unlike the settled
    /// baseline and end) the shm part still holds the buffers of the sizes the cycles reuse.
    struct Sample: CustomStringConvertible {
        var cycle: Int, rssKB: Int, shmemKB: Int, fds: Int, seconds: Double
        init(cycle: Int, pid: pid_t, seconds: Double) {
            let r = HotplugSoakTests.rss(pid)
            self.cycle = cycle
            rssKB = r.total
            shmemKB = r.shmem
            fds = HotplugSoakTests.fds(pid).count
            self.seconds = seconds
        }
        var description: String {
            String(format: "#%d: %d kB (shmem %d), %d fds, %.1f s", cycle, rssKB, shmemKB, fds, seconds)
        }
    }

    // MARK: the soak

    func testAddAndRemoveAnOutputRepeatedlyWhilePlaying() throws {
        let sway = try ready()
        let cycles = try Self.cycleCount()
        let grid = Repo.clip("grid.mp4")
        let w = try Wayloop([grid], env: sway.env)
        defer { _ = w.stop() }
        let first = GridPicture.waitFilled(sway, output: "WL-1", size: (640, 360), timeout: 15)
        guard first.ok else {
            return XCTFail("wayloop does not show the grid on WL-1: \(first.report); running \(w.isRunning); stderr: \(w.stderr)")
        }
        XCTAssertTrue(w.waitForState("WL-1", state: "playing", shown: true), "WL-1 is not playing: \(w.lastStatus)")

        func tail() -> String { w.stderrLines.suffix(15).joined(separator: "\n") }

        /// One cycle: add an output, wait until wayloop plays on it with a picture committed, unplug
        /// it, wait until wayloop no longer lists it. Throws with what it saw.
        func cycle(_ label: String) throws {
            let name = try sway.addOutput(Self.cycleSize)
            var removed = false
            defer { if !removed { try? sway.removeOutput(name) } }
            guard w.waitForState(name, state: "playing", shown: true, timeout: 10) else {
                throw HarnessError("\(label): the added output \(name) is not playing with a frame shown: \(w.lastStatus); "
                                   + "running \(w.isRunning); stderr tail:\n\(tail())")
            }
            try sway.removeOutput(name)
            removed = true
            guard w.waitForStatus(timeout: 10, { outs in !outs.contains { $0["name"] as? String == name } }) else {
                throw HarnessError("\(label): after \(name) was unplugged, wayloop still lists it or stopped answering: "
                                   + "\(w.lastStatus); running \(w.isRunning); stderr tail:\n\(tail())")
            }
        }

        var warm: [Sample] = []
        let warmStart = Date()
        for i in 1...Self.warmUpCycles {
            do { try cycle("warm-up cycle \(i)") } catch { return XCTFail("\(error); warm-up series: \(warm)") }
            warm.append(Sample(cycle: i, pid: w.pid, seconds: Date().timeIntervalSince(warmStart)))
        }
        let baseFDs = Self.settledFDs(w.pid)
        let baseSettle = Self.settledRSS(w.pid)
        let baseRSS = baseSettle.kb
        let baseParts = Self.rssParts(w.pid)
        XCTAssertTrue(baseSettle.settled, "wayloop's RSS did not settle after the warm-up (\(Self.rssQuietSeconds) s within "
                      + "\(Self.rssQuietKB) kB) in \(Int(baseSettle.waited)) s: last \(baseRSS) kB; warm-up: \(warm)")
        XCTAssertGreaterThan(baseRSS, 0, "no VmRSS for wayloop")
        XCTAssertFalse(baseFDs.isEmpty, "cannot read /proc/\(w.pid)/fd")
        let wl1Shown = (try? w.ctlStatus())?.first { $0["name"] as? String == "WL-1" }?["frames_shown"] as? Int ?? 0

        var series: [Sample] = []
        func seriesText() -> String {
            "warm-up (per cycle): \(warm.map { "\($0.rssKB) kB (shmem \($0.shmemKB))/\($0.fds) fds" }); baseline after "
                + "\(Self.warmUpCycles) warm-up cycles, settled: \(baseRSS) kB (\(baseParts)), \(baseFDs.count) fds; "
                + "every \(Self.sampleEvery) cycles, right after the removal: \(series)"
        }
        let start = Date()
        for i in 1...cycles {
            do { try cycle("cycle \(i) of \(cycles)") } catch { return XCTFail("\(error)\nseries: \(seriesText())") }
            if i % Self.sampleEvery == 0 || i == cycles {
                series.append(Sample(cycle: i, pid: w.pid, seconds: Date().timeIntervalSince(start)))
            }
        }
        let soak = Date().timeIntervalSince(start)

        XCTAssertTrue(w.isRunning, "wayloop exited during the soak: \(w.stderr)")
        guard w.isRunning else { return }

        // fds back where they were (a short settle: the last ctl connection closes on wayloop's next pass).
        var endFDs = Self.fds(w.pid)
        let fdsBack = Wait.until(timeout: 5) {
            endFDs = Self.fds(w.pid)
            return endFDs.count == baseFDs.count
        }
        // RSS after the same settle as the baseline (the unused buffers' 2 s grace is over).
        let endSettle = Self.settledRSS(w.pid)
        let endRSS = endSettle.kb
        let rssFlat = endSettle.settled && endRSS - baseRSS <= Self.rssGrowthLimitKB
        let endParts = Self.rssParts(w.pid)
        print(String(format: "HotplugSoakTests: %d cycles in %.1f s (%.2f s per cycle; %d warm-up cycles in %.1f s); ",
                     cycles, soak, soak / Double(cycles), Self.warmUpCycles, warm.last?.seconds ?? 0)
              + String(format: "settled in %.1f s / %.1f s; ", baseSettle.waited, endSettle.waited)
              + "RSS \(baseRSS) kB -> \(endRSS) kB (\(endRSS - baseRSS > 0 ? "+" : "")\(endRSS - baseRSS) kB; \(baseParts) -> \(endParts)), "
              + "fds \(baseFDs.count) -> \(endFDs.count); \(seriesText())")
        XCTAssertTrue(fdsBack, "wayloop has \(endFDs.count) fds after \(cycles) hotplug cycles, \(baseFDs.count) at baseline "
                      + "(\(Self.fdDiff(baseFDs, endFDs))); now: \(endFDs.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }); "
                      + "series: \(seriesText())")
        let moving = endSettle.settled ? "" : "kept moving for \(Int(endSettle.waited)) s and "
        XCTAssertTrue(rssFlat, "wayloop's RSS \(moving)grew by \(endRSS - baseRSS) kB over \(cycles) hotplug cycles (limit "
                      + "\(Self.rssGrowthLimitKB) kB): \(baseRSS) kB (\(baseParts)) -> \(endRSS) kB (\(endParts)); series: \(seriesText())")

        // WL-1 played on throughout: more frames shown, still the grid.
        let wl1Playing = w.waitForStatus(timeout: 5) { outs in
            guard let o = outs.first(where: { $0["name"] as? String == "WL-1" }) else { return false }
            return Ctl.matches(o, state: "playing", reason: nil, shown: true) && (o["frames_shown"] as? Int ?? 0) > wl1Shown
        }
        XCTAssertTrue(wl1Playing, "WL-1 is not playing on after the soak (frames shown at baseline \(wl1Shown)): \(w.lastStatus)")
        let wl1 = GridPicture.waitFilled(sway, output: "WL-1", size: (640, 360), timeout: 10)
        XCTAssertTrue(wl1.ok, "WL-1 no longer shows the grid after the soak: \(wl1.report)")

        // The newest output shows the video: playing, and a screenshot aspect-filled with the grid.
        // 800x600: a size (and aspect, cropped left and right) no output had before, so nothing
        // converted or sized for an earlier one is reused.
        let last = try sway.addOutput("800x600")
        defer { try? sway.removeOutput(last) }
        XCTAssertTrue(w.waitForState(last, state: "playing", shown: true, timeout: 10),
                      "the output \(last) added after the soak is not playing: \(w.lastStatus); stderr tail:\n\(tail())")
        let shot = GridPicture.waitFilled(sway, output: last, size: (800, 600), timeout: 10)
        XCTAssertTrue(shot.ok, "the output \(last) added after the soak does not show the grid: \(shot.report); stderr tail:\n\(tail())")

        // Nothing went wrong on the way: no error line, and still running.
        let errors = w.stderrLines.filter { $0.lowercased().contains("error") }
        XCTAssertTrue(errors.isEmpty, "wayloop logged \(errors.count) error line(s) during the soak: \(errors.prefix(10))")
        XCTAssertTrue(w.isRunning, "wayloop exited: \(w.stderr)")
        XCTAssertEqual(w.stop(), 0, "exit status after SIGTERM at the end of the soak: \(tail())")
    }
}
