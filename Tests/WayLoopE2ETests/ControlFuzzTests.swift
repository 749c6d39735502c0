// Hardening of the control socket: scripts/fuzz-control against a playing instance
// leaves it alive, answering at the same cost as before, with the same descriptors and memory; thousands
// of `set` requests keep time and memory flat; idle connections are closed, subscribers and
// clients waiting on a reply are not. One headless sway for the class, a wayloop per test.
import Foundation
import WayLoopTestSupport
import XCTest

final class ControlFuzzTests: CompositorTestCase {
    override class var outputSizes: [String] { ["640x480"] }

    private var scratch: String!

    override func setUp() {
        super.setUp()
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-fuzz-\(UUID().uuidString.prefix(8))").path
        try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o755])
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: scratch)
        super.tearDown()
    }

    // MARK: Helpers

    /// sway's environment, with an empty config home of the test's own.
    private func env() throws -> [String: String] {
        var e = try compositor().env
        e["XDG_CONFIG_HOME"] = scratch + "/config"
        return e
    }

    private var socketPath: String { Ctl.socketPath(env: (try? env()) ?? [:]) }

    /// A wayloop playing grid.mp4, past its first loop (the loop cache is full, so its memory
    /// has settled), with its control socket up.
    private func start() throws -> Wayloop {
        let w = try Wayloop([Repo.clip("grid.mp4")], env: try env())
        XCTAssertTrue(w.waitForStatus { outs in
            outs.first.map { Ctl.matches($0, state: "playing", reason: nil, shown: true) && ($0["frames_shown"] as? Int ?? 0) >= 45 } ?? false
        }, "wayloop did not start playing (45 frames shown, past the 30-frame loop): \(w.lastStatus); \(w.stderr)")
        XCTAssertTrue(Wait.until(timeout: 10) { FileManager.default.fileExists(atPath: self.socketPath) }, "no socket at \(socketPath)")
        return w
    }

    /// The last lines of its stderr, for failure messages.
    private func tail(_ w: Wayloop, _ n: Int = 15) -> String { w.stderrLines.suffix(n).joined(separator: "\n") }

    private func fdCount(_ pid: pid_t) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    private func fds(_ pid: pid_t) -> String {
        let dir = "/proc/\(pid)/fd"
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted { Int($0) ?? 0 < Int($1) ?? 0 }
        return names.map { "\($0)→\((try? FileManager.default.destinationOfSymbolicLink(atPath: dir + "/" + $0)) ?? "?")" }
            .joined(separator: " ")
    }

    /// RSS without the shared-memory pixel buffers (VmRSS − RssShmem), in kB: the wl_shm ring
    /// (up to three 1.2 MB buffers per size and settings at 640x480) comes and goes with the
    /// compositor's releases and would hide or fake a 2 MB change. Both are in the messages.
    private func memory(_ pid: pid_t) -> String { "private \(Proc.privateKB(pid)) kB, VmRSS \(Proc.rssKB(pid)) kB" }

    /// Private RSS once two readings 300 ms apart agree within 256 kB (bounded: 10 s).
    private func settledKB(_ pid: pid_t) -> Int {
        var last = Proc.privateKB(pid)
        _ = Wait.until(timeout: 10) {
            usleep(300_000)
            let now = Proc.privateKB(pid)
            defer { last = now }
            return abs(now - last) < 256
        }
        return last
    }

    /// The median (the upper one of an even count) of `xs`; 0 for none.
    static func median<C: Collection>(_ xs: C) -> Double where C.Element == Double {
        let v = xs.sorted()
        return v.isEmpty ? 0 : v[v.count / 2]
    }

    /// `n` `status` round trips on one raw connection, with the video paused meanwhile (so that
    /// wayloop's main thread, which answers them, draws nothing then): the main thread's CPU
    /// time per request in ms (what an answer costs wayloop), and the round trips in ms (how
    /// soon they came back is the machine's load as much: for the report).
    private func statusCost(_ w: Wayloop, _ n: Int = 200) throws -> (cpuMS: Double, median: Double, all: [Double]) {
        let c = try SocketClient(path: socketPath)
        defer { c.close() }
        func request(_ line: String) throws -> [String: Any] {
            try c.send(line)
            let r = try c.readJSON(timeout: 5)
            guard r["ok"] as? Bool == true else { throw HarnessError("\(line) over a raw socket: \(r)") }
            return r
        }
        _ = try request(#"{"cmd":"pause"}"#)
        defer { _ = try? request(#"{"cmd":"resume"}"#) }
        var times: [Double] = []
        let cpu0 = Proc.mainThreadCPUNanos(w.pid)
        for _ in 0..<n {
            let t0 = Proc.monotonicNanos()
            _ = try request(#"{"cmd":"status"}"#)
            times.append(Double(Proc.monotonicNanos() - t0) / 1e6)
        }
        let cpu = Proc.mainThreadCPUNanos(w.pid) - cpu0
        guard cpu0 >= 0, cpu >= 0 else { throw HarnessError("cannot read the CPU time of pid \(w.pid)'s main thread") }
        return (Double(cpu) / 1e6 / Double(n), Self.median(times), times)
    }

    private func framesShown() throws -> Int { try Ctl.status(env: try env()).first?["frames_shown"] as? Int ?? -1 }

    /// Playing, and drawing: frames_shown moves on.
    private func assertStillPlays(_ w: Wayloop, _ when: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(w.isRunning, "\(when): wayloop is gone (crashed: \(w.crashed)): \(tail(w))", file: file, line: line)
        guard w.isRunning else { return }
        XCTAssertTrue(w.waitForState("HEADLESS-1", state: "playing", shown: true, timeout: 10),
                      "\(when): not playing: \(w.lastStatus)", file: file, line: line)
        let n = (try? framesShown()) ?? -1
        XCTAssertTrue(Wait.until(timeout: 5) { ((try? self.framesShown()) ?? -1) >= n + 10 },
                      "\(when): frames_shown stuck near \(n): \(w.lastStatus)", file: file, line: line)
    }

    // MARK: The fuzzer

    func testFuzzerLeavesItAliveAndLean() throws {
        let w = try start()
        defer { XCTAssertEqual(w.stop(), 0, tail(w)) }
        let environment = ProcessInfo.processInfo.environment
        let count = environment["WAYLOOP_FUZZ_COUNT"].flatMap(Int.init) ?? 30_000
        let seed = environment["WAYLOOP_FUZZ_SEED"].flatMap(Int.init) ?? Int.random(in: 0..<(1 << 31))
        let fdBefore = fdCount(w.pid), fdListBefore = fds(w.pid)
        let kbBefore = settledKB(w.pid)
        XCTAssertGreaterThan(kbBefore, 0, "cannot read the memory of pid \(w.pid)")
        let before = try statusCost(w)
        let droppedBefore = try Ctl.status(env: try env()).first?["frames_dropped"] as? Int ?? -1

        let t0 = Date()
        let r = Shell.run(["/usr/bin/python3", Repo.path("scripts/fuzz-control"), "--socket", socketPath,
                           "--count", "\(count)", "--seconds", "30", "--seed", "\(seed)", "-v"],
                          env: try env(), timeout: 90)
        let took = Date().timeIntervalSince(t0)
        let summary = r.stdout.split(separator: "\n").last.map(String.init) ?? ""
        let report = "seed \(seed), count \(count), \(String(format: "%.1f", took)) s: \(summary)\n\(r.stderr.suffix(3000))"
        print("fuzz-control: \(report)")
        XCTAssertEqual(r.status, 0, "fuzz-control failed (exit \(r.status)): \(report)\nwayloop: \(tail(w))")
        XCTAssertTrue(summary.hasPrefix("fuzz-control: ") && summary.hasSuffix(", 0 protocol violations"),
                      "no clean summary line: \(report)")
        XCTAssertFalse(w.crashed, "wayloop crashed under the fuzzer: \(tail(w, 30))")
        assertStillPlays(w, "after the fuzzer (\(summary))")
        guard w.isRunning else { return }

        // Every connection it opened is closed again.
        XCTAssertTrue(Wait.until(timeout: 5) { self.fdCount(w.pid) == fdBefore },
                      "\(fdCount(w.pid)) descriptors after the fuzzer, \(fdBefore) before:\nbefore: \(fdListBefore)\nafter:  \(fds(w.pid))")
        // Memory back within 2 MB (a short settle for what is freed late).
        var kbAfter = Proc.privateKB(w.pid)
        let lean = Wait.until(timeout: 10) {
            kbAfter = Proc.privateKB(w.pid)
            return kbAfter - kbBefore <= 2048
        }
        XCTAssertTrue(lean, "private RSS \(kbBefore) kB before the fuzzer, \(kbAfter) kB after (+\(kbAfter - kbBefore) kB; \(memory(w.pid)))")
        // As quick to answer as before: the CPU time wayloop spends on an answer (a ratio within
        // this run); the round trips, which the machine's load makes as long as it likes, are
        // reported.
        let after = try statusCost(w)
        let droppedAfter = try Ctl.status(env: try env()).first?["frames_dropped"] as? Int ?? -1
        print("status: \(String(format: "%.3f", before.cpuMS)) ms of wayloop's CPU per answer before, \(String(format: "%.3f", after.cpuMS)) ms after; "
              + "round trip median \(String(format: "%.2f", before.median)) ms before, \(String(format: "%.2f", after.median)) ms after; "
              + "fds \(fdBefore) → \(fdCount(w.pid)); private RSS \(kbBefore) → \(Proc.privateKB(w.pid)) kB; "
              + "frames dropped \(droppedBefore) → \(droppedAfter)")
        XCTAssertLessThanOrEqual(after.cpuMS, 3 * before.cpuMS + 0.05,
                                 "status costs wayloop \(after.cpuMS) ms of CPU per answer after the fuzzer, \(before.cpuMS) ms before "
                                 + "(round trips \(after.all.prefix(20)) vs \(before.all.prefix(20)))")
    }

    // MARK: Thousands of sets

    /// One connection, requests pipelined (300 in flight); prints a JSON summary: the time of each
    /// block of 1000 replies and the CPU time wayloop's main thread (which answers) spent on it, private RSS (VmRSS − RssShmem) at each 1000, the replies that were not
    /// as expected (settings: ok; missing: an error naming the file, in order).
    private static let pipeline = #"""
    import json, socket, sys, time
    path, pid, mode, n = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    off = int(sys.argv[5])  # the first file number (distinct files across calls)
    def rss():
        v = {}
        with open("/proc/%d/status" % pid) as f:
            for l in f:
                k = l.split(":")[0]
                if k in ("VmRSS", "RssShmem"):
                    v[k] = int(l.split()[1])
        return v.get("VmRSS", -1) - v.get("RssShmem", 0)
    def req(i):
        if mode == "settings":
            return {"cmd": "set", "output": "*", "dim": 0.1 if i % 2 == 0 else 0.2}
        return {"cmd": "set", "output": "*", "video": "/nonexistent/x-%d.mp4" % (i + off)}
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(path)
    lines = [(json.dumps(req(i), separators=(",", ":")) + "\n").encode() for i in range(n)]
    window, sent, got, buf = 300, 0, 0, b""
    def cpu():  # ns wayloop's main thread (which answers) has run
        with open("/proc/%d/task/%d/schedstat" % (pid, pid)) as f:
            return int(f.read().split()[0])
    t0 = time.monotonic()
    marks, cpus, rss_at, bad, err = [t0], [cpu()], {0: rss()}, [], None
    try:
        while got < n:
            if sent < n and sent - got < window:
                k = min(n - sent, window - (sent - got))
                s.sendall(b"".join(lines[sent:sent + k]))
                sent += k
            data = s.recv(65536)
            if not data:
                raise RuntimeError("the connection closed after %d replies" % got)
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                r = json.loads(line)
                if mode == "settings":
                    good = r.get("ok") is True
                else:
                    good = r.get("ok") is False and ("/nonexistent/x-%d.mp4'" % (got + off)) in str(r.get("error"))
                if not good and len(bad) < 5:
                    bad.append({"reply": got, "got": r})
                got += 1
                if got % 1000 == 0:
                    marks.append(time.monotonic())
                    cpus.append(cpu())
                    rss_at[str(got)] = rss()
    except Exception as e:
        err = "%s: %s" % (type(e).__name__, e)
    print(json.dumps({"replies": got, "error": err, "bad": bad, "seconds": round(time.monotonic() - t0, 3),
                      "blocks_ms": [round((b - a) * 1000, 1) for a, b in zip(marks, marks[1:])],
                      "blocks_cpu_ms": [round((b - a) / 1e6, 2) for a, b in zip(cpus, cpus[1:])], "rss_kb": rss_at}))
    """#

    private struct Pipelined {
        var replies: Int
        var error: String?
        var bad: String
        var seconds: Double
        var blocksMS: [Double]
        var blocksCPUMS: [Double]
        var rssKB: [String: Int]
        var raw: String
    }

    private func pipeline(_ w: Wayloop, mode: String, count: Int, first: Int = 0) throws -> Pipelined {
        let r = Shell.run(["/usr/bin/python3", "-c", Self.pipeline, socketPath, "\(w.pid)", mode, "\(count)", "\(first)"],
                          env: try env(), timeout: 120)
        guard r.status == 0, let obj = try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] else {
            throw HarnessError("the \(mode) pipeline failed (exit \(r.status)): \(r.stdout) \(r.stderr)")
        }
        let bad = (try? JSONSerialization.data(withJSONObject: obj["bad"] ?? [], options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) } ?? ""
        return Pipelined(replies: obj["replies"] as? Int ?? -1, error: obj["error"] as? String, bad: bad,
                         seconds: obj["seconds"] as? Double ?? -1, blocksMS: obj["blocks_ms"] as? [Double] ?? [],
                         blocksCPUMS: obj["blocks_cpu_ms"] as? [Double] ?? [],
                         rssKB: obj["rss_kb"] as? [String: Int] ?? [:], raw: r.stdout)
    }

    func testThousandsOfSetsStayFlat() throws {
        let w = try start()
        defer { XCTAssertEqual(w.stop(), 0, tail(w)) }

        // 20 000 settings-only sets: "the last thousand take 70x longer than the first (the
        // list of overrides grows without bound)".
        let sets = try pipeline(w, mode: "settings", count: 20_000)
        print("20 000 sets in \(sets.seconds) s; ms per 1000: \(sets.blocksMS); wayloop's CPU ms per 1000: \(sets.blocksCPUMS); "
              + "private RSS at 1000: \(sets.rssKB["1000"] ?? -1) kB, at 20 000: \(sets.rssKB["20000"] ?? -1) kB")
        XCTAssertNil(sets.error, "\(sets.raw)\n\(tail(w))")
        XCTAssertEqual(sets.replies, 20_000, "\(sets.raw)")
        XCTAssertEqual(sets.bad, "[]", "replies that were not ok: \(sets.bad)")
        XCTAssertEqual(sets.blocksCPUMS.count, 20, "\(sets.raw)")
        // What the answers cost wayloop (its main thread's CPU time, not the wall time, which is
        // the machine's load's as much): medians of five blocks of 1000 (a single block is ~20 ms:
        // one noisy moment is not a trend).
        let (first, last) = (Self.median(sets.blocksCPUMS.prefix(5)), Self.median(sets.blocksCPUMS.suffix(5)))
        XCTAssertLessThanOrEqual(last, 3 * first, "the last 5000 sets cost wayloop a median \(last) ms of CPU per 1000, the first 5000 \(first) ms: "
                                 + "\(sets.blocksCPUMS) (wall: \(sets.blocksMS))")
        let at1000 = try XCTUnwrap(sets.rssKB["1000"], sets.raw)
        XCTAssertGreaterThan(at1000, 0, "cannot read the memory of pid \(w.pid): \(sets.raw)")
        var end = Proc.privateKB(w.pid)
        let flat = Wait.until(timeout: 5) {
            end = Proc.privateKB(w.pid)
            return end - at1000 <= 2048
        }
        XCTAssertTrue(flat, "private RSS \(at1000) kB after 1000 sets, \(end) kB after 20 000 (+\(end - at1000) kB; \(memory(w.pid))): \(sets.rssKB)")
        XCTAssertTrue(w.waitForState("HEADLESS-1", state: "playing", timeout: 10), "\(w.lastStatus)")

        // 10 000 sets of distinct missing files, each an error: "grow RSS by 32 MB (the memo of
        // failed files grows without bound)".
        let base = settledKB(w.pid)
        XCTAssertGreaterThan(base, 0, "cannot read the memory of pid \(w.pid)")
        let missing = try pipeline(w, mode: "missing", count: 10_000)
        print("10 000 missing files in \(missing.seconds) s; ms per 1000: \(missing.blocksMS); wayloop's CPU ms per 1000: \(missing.blocksCPUMS); "
              + "private RSS \(base) kB before, \(missing.rssKB["10000"] ?? -1) kB at the end")
        XCTAssertNil(missing.error, "\(missing.raw)\n\(tail(w))")
        XCTAssertEqual(missing.replies, 10_000, "\(missing.raw)")
        XCTAssertEqual(missing.bad, "[]", "replies that were not an error naming the file: \(missing.bad)")
        var after = Proc.privateKB(w.pid)
        let flat2 = Wait.until(timeout: 5) {
            after = Proc.privateKB(w.pid)
            return after - base <= 2048
        }
        XCTAssertTrue(flat2, "private RSS \(base) kB before 10 000 missing files, \(after) kB after (+\(after - base) kB; \(memory(w.pid))): \(missing.rssKB)")
        let (mFirst, mLast) = (Self.median(missing.blocksCPUMS.prefix(5)), Self.median(missing.blocksCPUMS.suffix(5)))
        XCTAssertLessThanOrEqual(mLast, 3 * mFirst, "the last 5000 missing files cost wayloop a median \(mLast) ms of CPU per 1000, the first "
                                 + "\(mFirst) ms: \(missing.blocksCPUMS) (wall: \(missing.blocksMS))")
        // Another 10 000: the first batch may have grown the heap to its working size, this one
        // must add (almost) nothing: a memo of ~170 bytes per failed file would add 1.7 MB.
        let base2 = settledKB(w.pid)
        let again = try pipeline(w, mode: "missing", count: 10_000, first: 10_000)
        XCTAssertNil(again.error, "\(again.raw)\n\(tail(w))")
        XCTAssertEqual(again.replies, 10_000, "\(again.raw)")
        var after2 = Proc.privateKB(w.pid)
        let flat3 = Wait.until(timeout: 5) {
            after2 = Proc.privateKB(w.pid)
            return after2 - base2 <= 1024
        }
        XCTAssertTrue(flat3, "private RSS \(base2) kB before another 10 000 missing files, \(after2) kB after (+\(after2 - base2) kB): \(again.rssKB)")
        assertStillPlays(w, "after 20 000 failed sets")
        let s = try XCTUnwrap(try Ctl.status(env: try env()).first)
        XCTAssertEqual(s["video"] as? String, Repo.clip("grid.mp4"), "a failed set changed the video: \(Ctl.describe([s]))")
    }

    // MARK: Idle connections

    /// A connection that sends nothing, or half a line, is closed after 10 s; a subscriber is
    /// not, a client that keeps talking is not, and a client whose request the server has not
    /// answered yet (here: the server was stopped for 11 s) gets its reply, not a close.
    func testAConnectionThatSendsNothingIsClosed() throws {
        let w = try start()
        defer {
            kill(w.pid, SIGCONT)
            XCTAssertEqual(w.stop(), 0, tail(w))
        }
        let silent = try RawConn(socketPath)
        let half = try RawConn(socketPath)
        try half.send(#"{"cmd":"sta"#)
        let sub = try RawConn(socketPath)
        try sub.send(#"{"cmd":"subscribe"}"# + "\n")
        let subOK = try sub.json(timeout: 5)
        XCTAssertEqual(subOK["ok"] as? Bool, true, "subscribe: \(subOK)")
        let first = try sub.json(timeout: 5)
        XCTAssertEqual(first["event"] as? String, "state", "the subscriber's first event: \(first)")
        let talker = try RawConn(socketPath)
        let opened = Date()

        // Until both are closed (or 15 s: 10 s and a margin), the talker asks for the status
        // every 2 s and is answered every time.
        var silentClosed: Double?, halfClosed: Double?
        var talks = 0, lastTalk = Date.distantPast
        var talkerProblem: String?
        _ = Wait.until(timeout: 15) {
            let t = Date().timeIntervalSince(opened)
            if silentClosed == nil, silent.isClosed { silentClosed = t }
            if halfClosed == nil, half.isClosed { halfClosed = t }
            if talkerProblem == nil, Date().timeIntervalSince(lastTalk) >= 2 {
                do {
                    try talker.send(#"{"cmd":"status"}"# + "\n")
                    let r = try talker.json(timeout: 5)
                    if r["ok"] as? Bool != true { talkerProblem = "status got \(r)" }
                    talks += 1
                } catch {
                    talkerProblem = "\(error) after \(String(format: "%.1f", t)) s and \(talks) answered"
                }
                lastTalk = Date()
            }
            return silentClosed != nil && halfClosed != nil
        }
        let waited = Date().timeIntervalSince(opened)
        print("idle: silent closed after \(silentClosed.map { String(format: "%.1f s", $0) } ?? "never"), "
              + "half line after \(halfClosed.map { String(format: "%.1f s", $0) } ?? "never"); waited \(String(format: "%.1f", waited)) s")
        XCTAssertNotNil(silentClosed, "a connection that sent nothing was still open after \(String(format: "%.1f", waited)) s (idle ones are closed after 10 s)")
        XCTAssertNotNil(halfClosed, "a connection that sent half a line ('{\"cmd\":\"sta') was still open after \(String(format: "%.1f", waited)) s")
        XCTAssertNil(talkerProblem, "a client asking every 2 s was cut: \(talkerProblem ?? "")")
        XCTAssertFalse(talker.isClosed, "the talking client was closed")
        // The subscriber is still there, and still gets events.
        XCTAssertFalse(sub.isClosed, "the subscriber was closed after \(String(format: "%.1f", waited)) s without sending anything")
        let pause = Shell.run([Repo.binary, "ctl", "pause"], env: try env(), timeout: 20)
        XCTAssertEqual(pause.status, 0, pause.stderr)
        var event: [String: Any] = [:]
        do {
            repeat { event = try sub.json(timeout: 5) } while event["state"] as? String != "paused"
        } catch {
            XCTFail("the subscriber got no 'paused' event after \(String(format: "%.1f", waited)) s of silence: \(error)")
        }
        XCTAssertEqual(Shell.run([Repo.binary, "ctl", "resume"], env: try env(), timeout: 20).status, 0)
        [silent, half, talker, sub].forEach { $0.close() }

        // A request sent while the server could not read (stopped 11 s, as on a suspend or a
        // stall): after it goes on, that client is answered; the silent one next to it is closed.
        let silent2 = try RawConn(socketPath)
        let waiter = try RawConn(socketPath)
        try waiter.send(#"{"cmd":"status"}"# + "\n")
        XCTAssertEqual(try waiter.json(timeout: 5)["ok"] as? Bool, true)   // both accepted by now
        XCTAssertEqual(kill(w.pid, SIGSTOP), 0)
        try waiter.send(#"{"cmd":"status"}"# + "\n")
        // Time itself is the condition here: the server must have been unable to act for longer
        // than the idle time-out.
        let stopped = Date()
        _ = Wait.until(timeout: 12) { Date().timeIntervalSince(stopped) >= 11 }
        XCTAssertEqual(kill(w.pid, SIGCONT), 0)
        do {
            let r = try waiter.json(timeout: 5)
            XCTAssertEqual(r["ok"] as? Bool, true, "the waiting client got \(r)")
            XCTAssertNotNil(r["outputs"], "the waiting client got \(r)")
        } catch {
            XCTFail("a client waiting on a reply (sent while the server was stopped 11 s) was cut: \(error)")
        }
        let closed2 = Wait.until(timeout: 5) { silent2.isClosed }
        XCTAssertTrue(closed2, "a connection that sent nothing for \(String(format: "%.1f", Date().timeIntervalSince(stopped))) s (11 s of it with the server stopped) was still open 5 s after it went on")
        silent2.close()
        waiter.close()
        assertStillPlays(w, "after the idle connections")
    }
}

/// A raw control connection: bytes as given, replies line by line, and whether the server has
/// closed it.
private final class RawConn {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var eof = false
    private var closedHere = false

    struct Closed: Error, CustomStringConvertible {
        let why: String
        var description: String { "the server closed the connection (\(why))" }
    }

    init(_ path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            let b = Array(path.utf8)
            raw.copyBytes(from: b)
            raw[b.count] = 0
        }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else {
            let e = String(cString: strerror(errno))
            Glibc.close(fd)
            throw HarnessError("cannot connect to \(path): \(e)")
        }
    }

    deinit { close() }

    func close() {
        if !closedHere { Glibc.close(fd) }
        closedHere = true
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + off, $0.count - off, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Closed(why: "send: \(String(cString: strerror(errno)))") }
            off += n
        }
    }

    /// Reads what is there, waiting at most `ms`; false when nothing came.
    @discardableResult
    private func fill(ms: Int32) -> Bool {
        guard !eof else { return false }
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, ms) > 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &chunk, chunk.count, Int32(MSG_DONTWAIT))
        if n > 0 {
            buffer += chunk[0..<n]
            return true
        }
        if n == 0 || (errno != EAGAIN && errno != EINTR) { eof = true }
        return false
    }

    /// Closed by the server: EOF (or a reset) once what it sent has been read.
    var isClosed: Bool {
        while fill(ms: 0) {}
        return eof
    }

    /// The next line as a JSON object.
    func json(timeout: Double) throws -> [String: Any] {
        let end = Date().addingTimeInterval(timeout)
        while !buffer.contains(UInt8(ascii: "\n")) {
            if eof { throw Closed(why: "EOF" + (buffer.isEmpty ? "" : " after \(buffer.count) bytes of a line")) }
            guard Date() < end else { throw HarnessError("no reply within \(timeout) s") }
            fill(ms: 100)
        }
        let i = buffer.firstIndex(of: UInt8(ascii: "\n"))!
        let line = Data(buffer[..<i])
        buffer.removeSubrange(...i)
        guard let obj = try JSONSerialization.jsonObject(with: line) as? [String: Any] else {
            throw HarnessError("not a JSON object: \(String(decoding: line, as: UTF8.self))")
        }
        return obj
    }
}
