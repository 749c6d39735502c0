// What bars, service managers and scripts read: waybar lines, journal priorities, the status
// JSON's version.
import WayLoopCore
import XCTest

final class IntegrationTests: XCTestCase {
    func testWaybarLines() {
        let a = OutputStatus(name: "DP-1", video: "/v/ocean.mp4", mode: .fill, state: .playing)
        var b = OutputStatus(name: "HDMI-A-1", video: "/v/ocean.mp4", mode: .fit, state: .paused(.user))
        let cases: [([OutputStatus], text: String, cls: String, tooltip: String)] = [
            ([], "", "idle", ""),
            ([a], "ocean", "playing", "DP-1: playing - ocean"),
            ([a, b], "ocean", "paused", "DP-1: playing - ocean\nHDMI-A-1: paused (user) - ocean"),
        ]
        for c in cases {
            let j = Waybar.line(c.0)
            XCTAssertEqual(j["text"]?.string, c.text)
            XCTAssertEqual(j["class"]?.string, c.cls)
            XCTAssertEqual(j["alt"]?.string, c.cls)
            XCTAssertEqual(j["tooltip"]?.string, c.tooltip)
            // One line of JSON that parses back with the three keys waybar reads.
            let line = j.serialized
            XCTAssertFalse(line.contains("\n"))
            let back = try? JSON.parse(line)
            XCTAssertEqual(back, j, "not JSON: \(line)")
        }
        b.video = "/v/a&b <1>.webm"
        b.state = .failed(.reported(.resourceNotFound, "gone"))
        let j = Waybar.line([a, b])
        XCTAssertEqual(j["text"]?.string, "2 videos")
        XCTAssertEqual(j["class"]?.string, "failed", "failed says most")
        XCTAssertTrue(j["tooltip"]?.string?.contains("a&amp;b &lt;1&gt;") == true, "Pango markup is escaped: \(j)")
    }

    func testSubscribeTakesWaybar() throws {
        XCTAssertEqual(try CtlParser.parse(["subscribe", "--waybar"]), CtlCommand(request: .subscribe, waybar: true))
        XCTAssertEqual(try CtlParser.parse(["subscribe"]), CtlCommand(request: .subscribe))
        XCTAssertThrowsError(try CtlParser.parse(["subscribe", "--json"]))
        XCTAssertThrowsError(try CtlParser.parse(["subscribe", "x"]))
        XCTAssertEqual(OutputStatus.version, 1)
    }

    func testJournalPriorities() {
        let cases: [(String, String)] = [
            ("wayloop: error: video: 'x': no such file", "<3>"),
            ("wayloop: notice: main: playing 'x'", "<5>"),
            ("wayloop: debug: main: a → b", "<7>"),
            ("wayloop: trace: video: dropped 1", "<7>"),
            ("something else", "<6>"),
        ]
        for (line, p) in cases { XCTAssertEqual(Journal.prefixed(line), p + line) }
        XCTAssertTrue(Journal.names("2049:1234", device: 2049, inode: 1234))
        for v: String? in [nil, "", "2049", "2049:1235", "x:y", "2049:1234:5"] {
            XCTAssertFalse(Journal.names(v, device: 2049, inode: 1234), "\(v ?? "nil")")
        }
    }

    func testLayersAndInstanceNames() throws {
        func run(_ args: [String]) throws -> Options {
            guard case .run(let o) = try OptionParser.parse(args) else { throw HarnessLikeError() }
            return o
        }
        XCTAssertEqual(try run(["v.mp4"]).layer, .background)
        XCTAssertNil(try run(["v.mp4"]).name)
        XCTAssertEqual(try run(["--layer", "overlay", "v.mp4"]).layer, .overlay)
        XCTAssertEqual(try run(["--name", "saver", "v.mp4"]).name, "saver")
        for bad in [["--layer", "sideways"], ["--name", "a/b"], ["--name", ""], ["--name", ".."], ["--name", String(repeating: "x", count: 33)],
                    ["--name", "caf\u{e9}"]] {
            XCTAssertThrowsError(try OptionParser.parse(bad + ["v.mp4"]), "\(bad)")
        }
        for good in ["saver", "s.1", "A_b-2", String(repeating: "x", count: 32)] { XCTAssertTrue(InstanceName.isValid(good), good) }
        XCTAssertEqual(try CtlParser.parse(["--name", "saver", "quit"]), CtlCommand(request: .quit, name: "saver"))
        XCTAssertEqual(try CtlParser.parse(["--name=saver", "status", "--json"]), CtlCommand(request: .status, json: true, name: "saver"))
        XCTAssertThrowsError(try CtlParser.parse(["--name"]))
        XCTAssertThrowsError(try CtlParser.parse(["--name", "x/y", "quit"]))
        // A hand-over cannot move the surfaces to another layer.
        var running = Options(), incoming = Options()
        incoming.layer = .overlay
        incoming.given = ["--layer"]
        XCTAssertEqual(Options.unappliable(running: running, incoming: incoming), ["--layer (background, asked overlay)"])
        running.layer = .overlay
        XCTAssertEqual(Options.unappliable(running: running, incoming: incoming), [])
    }
}

private struct HarnessLikeError: Error {}

final class PressurePlanTests: XCTestCase {
    func testWhatIsGivenBack() {
        typealias C = PressurePlan.Clip
        let cases: [(C, PressurePlan.Action, String)] = [
            (C(hidden: true, released: false, replaying: false, ready: false), .keep, "still opening: left alone (a release would strand it)"),
            (C(hidden: true, released: false, replaying: true, recent: true), .forget, "kept for a switch back: the first to go"),
            (C(hidden: true, released: false, replaying: true), .release, "nobody sees it: decoder and frames go now"),
            (C(hidden: true, released: false, replaying: false), .release, "hidden and decoding"),
            (C(hidden: true, released: true, replaying: false), .keep, "already released"),
            (C(hidden: false, released: false, replaying: true), .giveUpCache, "on screen from memory: the cache goes at the next loop"),
            (C(hidden: false, released: false, replaying: false), .keep, "on screen and decoding: nothing to give"),
        ]
        XCTAssertEqual(PressurePlan.actions(cases.map(\.0)), cases.map(\.1))
        XCTAssertEqual(PressurePlan.actions([]), [])
        XCTAssertEqual(PressurePlan.minInterval, 10_000_000_000)
    }

    func testPrivateRSSFromProcStatus() {
        XCTAssertEqual(ProcStatus.privateKB("Name:\twayloop\nVmRSS:\t   64692 kB\nRssAnon:\t 50000 kB\nRssShmem:\t    2472 kB\n"), 62220)
        XCTAssertEqual(ProcStatus.privateKB("VmRSS: 100 kB\n"), 100, "no RssShmem line: nothing shared")
        XCTAssertNil(ProcStatus.privateKB("Name: x\n"))
    }

    func testAnonymousAndOwnRSSFromProcStatus() {
        let status = "Name:\twayloop\nVmRSS:\t   64692 kB\nRssAnon:\t   50000 kB\nRssFile:\t   12220 kB\nRssShmem:\t    2472 kB\n"
        XCTAssertEqual(ProcStatus.anonKB(status), 50000)
        XCTAssertEqual(ProcStatus.ownKB(status), 52472, "anonymous and shared memory, not the library pages")
        XCTAssertEqual(ProcStatus.ownKB("RssAnon: 7 kB\n"), 7, "no RssShmem line: nothing shared")
        XCTAssertNil(ProcStatus.anonKB("VmRSS: 100 kB\n"))
        XCTAssertNil(ProcStatus.ownKB("VmRSS: 100 kB\nRssShmem: 4 kB\n"))
    }
}

final class ProcCPUTests: XCTestCase {
    func testMachineCPUFromProc() {
        let psi = "some avg10=0.01 avg60=0.24 avg300=0.10 total=457003\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
        XCTAssertEqual(ProcCPU.pressureSomeMicros(psi), 457003, "the some line's total, not the full line's")
        XCTAssertNil(ProcCPU.pressureSomeMicros("full avg10=0.00 total=5\n"))
        XCTAssertNil(ProcCPU.pressureSomeMicros(""))
        XCTAssertEqual(ProcCPU.runQueueWaitNanos("27590319 2249719 101\n"), 2249719)
        XCTAssertNil(ProcCPU.runQueueWaitNanos("27590319\n"))
        let stat = "cpu  273 1 186 173062 29 2 10 5 0 0\ncpu0 100 0 90 86000 10 1 5 2 0 0\n"
        let t = ProcCPU.ticks(stat)
        XCTAssertEqual(t?.busy, 273 + 1 + 186 + 2 + 10 + 5, "user, nice, system, irq, softirq, steal: not idle or iowait")
        XCTAssertEqual(t?.all, 273 + 1 + 186 + 173062 + 29 + 2 + 10 + 5)
        XCTAssertEqual(t?.cpus, 1, "the cpuN lines, not the sum")
        XCTAssertEqual(ProcCPU.ticks("cpu  1 2 3 4 5 6 7 8\ncpu0 1 1 1 1 1 1 1 1\ncpu1 0 1 2 0 0 0 0 0\nintr 5\n")?.cpus, 2)
        XCTAssertNil(ProcCPU.ticks("cpu0 1 2 3 4 5 6 7 8\n"), "only the summed line")
        XCTAssertNil(ProcCPU.ticks("cpu  1 2 3\n"))
    }

    /// Who holds the lock file of another user (/proc/locks), for the message that says whether
    /// a stale file can go.
    func testLockHolderFromProcLocks() {
        let locks = """
        1: POSIX  ADVISORY  WRITE 812 00:19:4711 0 EOF
        2: FLOCK  ADVISORY  WRITE 1234 00:2d:99 0 EOF
        2: -> FLOCK  ADVISORY  WRITE 1300 00:2d:100 0 EOF
        3: OFDLCK ADVISORY  READ  -1 fd:01:55 0 EOF
        garbage
        """
        let cases: [(major: UInt32, minor: UInt32, inode: UInt64, want: Int32?, note: String)] = [
            (0, 0x2d, 99, 1234, "an flock, minor in hex"),
            (0, 45, 99, 1234, "0x2d is 45"),
            (0, 0x2d, 100, nil, "a waiter holds nothing"),
            (0, 0x19, 4711, 812, "a POSIX lock"),
            (0xfd, 1, 55, -1, "an OFD lock has no pid"),
            (0, 0x2d, 98, nil, "another inode"),
            (1, 0x2d, 99, nil, "another device"),
        ]
        for c in cases {
            XCTAssertEqual(ProcLocks.holder(major: c.major, minor: c.minor, inode: c.inode, in: locks), c.want, c.note)
        }
        XCTAssertNil(ProcLocks.holder(major: 0, minor: 0, inode: 1, in: ""), "no locks at all")
        // dev_t as glibc packs it: makedev(0xfd, 1), makedev(0, 45), makedev(259, 300000).
        XCTAssertTrue(ProcLocks.majorMinor(0xfd01) == (0xfd, 1))
        XCTAssertTrue(ProcLocks.majorMinor(0x2d) == (0, 45))
        XCTAssertTrue(ProcLocks.majorMinor(0x4931_03e0) == (259, 300_000), "\(ProcLocks.majorMinor(0x4931_03e0))")
    }
}
