import XCTest
@testable import WayLoopCore

final class ColdPagesTests: XCTestCase {
    /// A /proc/self/smaps excerpt as Linux 6.1 writes it (fields trimmed to those read, and a few others).
    private let smaps = """
        55d0c0000000-55d0c0200000 r--p 00000000 fe:01 1234                       /usr/bin/wayloop
        Size:               2048 kB
        Rss:                 900 kB
        Referenced:          300 kB
        Anonymous:             0 kB
        55d0c0200000-55d0c0a00000 r-xp 00200000 fe:01 1234                       /usr/bin/wayloop
        Size:               8192 kB
        Rss:                6000 kB
        Referenced:         1200 kB
        Anonymous:             0 kB
        7f0000000000-7f0000400000 r-xp 00000000 fe:01 99                         /usr/lib/x86_64-linux-gnu/libavcodec.so.59.37.100
        Rss:                9000 kB
        Pss:                9000 kB
        Referenced:         2000 kB
        Anonymous:             0 kB
        7f0000400000-7f0000500000 rw-p 00400000 fe:01 99                         /usr/lib/x86_64-linux-gnu/libavcodec.so.59.37.100
        Rss:                 600 kB
        Referenced:          100 kB
        Anonymous:           600 kB
        7f0000500000-7f0000510000 r--p 00500000 fe:01 99                         /usr/lib/x86_64-linux-gnu/libavcodec.so.59.37.100
        Rss:                  64 kB
        Referenced:           64 kB
        Anonymous:            64 kB
        7f1000000000-7f1000300000 r-xp 00000000 fe:01 77                         /usr/lib/x86_64-linux-gnu/librsvg-2.so.2.48.0
        Rss:                1500 kB
        Referenced:            0 kB
        Anonymous:             0 kB
        7f1000300000-7f1000310000 rw-p 00300000 fe:01 77                         /usr/lib/x86_64-linux-gnu/librsvg-2.so.2.48.0
        Rss:                  64 kB
        Referenced:            0 kB
        Anonymous:            64 kB
        7f2000000000-7f2000100000 r-xp 00000000 fe:01 78                         /usr/lib/x86_64-linux-gnu/libgone.so.1 (deleted)
        Rss:                 100 kB
        Referenced:            0 kB
        Anonymous:             0 kB
        7f3000000000-7f3000100000 r--p 00000000 fe:01 79                         /usr/share/fonts/DejaVuSans.ttf
        Rss:                 100 kB
        Referenced:            0 kB
        Anonymous:             0 kB
        7f4000000000-7f4000100000 r--s 00000000 00:01 80                         /memfd:wayland-shm (deleted)
        Rss:                8100 kB
        Referenced:            0 kB
        Anonymous:             0 kB
        7f5000000000-7f5002000000 rw-p 00000000 00:00 0 
        Rss:               26000 kB
        Referenced:         9000 kB
        Anonymous:         26000 kB
        7f6000000000-7f6000010000 r-xp 00000000 fe:01 81                         /usr/lib/x86_64-linux-gnu/libnever.so.3
        Rss:                   0 kB
        Referenced:            0 kB
        Anonymous:             0 kB
        7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]
        Rss:                 132 kB
        Referenced:            0 kB
        Anonymous:           132 kB
        VmFlags: rd wr mr mw me gd ac
        """

    func testParseReadsEveryMappingAndItsPages() {
        let maps = ColdPages.parse(smaps)
        XCTAssertEqual(maps.count, 13)
        XCTAssertEqual(maps[1], Mapping(start: 0x55d0c0200000, end: 0x55d0c0a00000, path: "/usr/bin/wayloop", perms: "r-xp",
                                        inode: 1234, rssKB: 6000, referencedKB: 1200, anonymousKB: 0))
        XCTAssertEqual(maps[2].path, "/usr/lib/x86_64-linux-gnu/libavcodec.so.59.37.100")
        XCTAssertEqual(maps[2].rssKB, 9000, "Pss is not Rss")
        XCTAssertEqual(maps[7].path, "/usr/lib/x86_64-linux-gnu/libgone.so.1 (deleted)")
        XCTAssertEqual(maps[10].path, "", "anonymous memory has no path")
        XCTAssertEqual(maps[10].anonymousKB, 26000)
        XCTAssertEqual(maps[12].path, "[stack]")
    }

    func testParseSkipsWhatItCannotRead() {
        let text = """
            garbage line
            Rss: 5 kB
            zz-7f0000001000 r-xp 00000000 fe:01 1 /lib/a.so
            7f0000001000-7f0000000000 r-xp 00000000 fe:01 1 /lib/b.so
            7f0000000000-7f0000001000 r-xp 00000000 fe:01 1 /lib/c.so
            Rss: lots kB
            Referenced: 4 MB
            Anonymous:
            Rss: 8 kB
            """
        let maps = ColdPages.parse(text)
        XCTAssertEqual(maps.map(\.path), ["/lib/c.so"], "a bad range, an end before the start: not mappings")
        XCTAssertEqual(maps.first?.rssKB, 8)
        XCTAssertEqual(maps.first?.referencedKB, 0)
        XCTAssertEqual(ColdPages.parse(""), [])
    }

    func testPlanPagesOutTheUntouchedAndUnmapsTheCodeInUse() {
        let plan = ColdPages.plan(ColdPages.parse(smaps), executable: "/usr/bin/wayloop")
        XCTAssertEqual(plan.pageOut.map(\.path), ["/usr/lib/x86_64-linux-gnu/librsvg-2.so.2.48.0",
                                                  "/usr/lib/x86_64-linux-gnu/librsvg-2.so.2.48.0"],
                       "every mapping of an untouched library, its data too; not a deleted file, a font, "
                       + "the wl_shm buffers, anonymous memory, the stack, or a mapping with nothing resident")
        XCTAssertEqual(plan.unmap.map(\.start), [0x55d0c0000000, 0x55d0c0200000, 0x7f0000000000],
                       "read-only mappings of the executable and of libraries in use; not libavcodec's data "
                       + "(writable) nor its relocations (read-only now, but pages of its own)")
    }

    func testPlanWithoutTheExecutableLeavesItsMappings() {
        let plan = ColdPages.plan(ColdPages.parse(smaps), executable: nil)
        XCTAssertFalse((plan.pageOut + plan.unmap).contains { $0.path == "/usr/bin/wayloop" })
        XCTAssertEqual(plan.unmap.count, 1)
    }

    func testOnlyWhatIsStillMappedAsItWas() {
        let chosen = ColdPages.plan(ColdPages.parse(smaps), executable: "/usr/bin/wayloop").unmap
        let maps = """
            55d0c0000000-55d0c0200000 r--p 00000000 fe:01 1234                       /usr/bin/wayloop
            55d0c0200000-55d0c0a00000 r-xp 00200000 fe:01 1234                       /usr/bin/wayloop
            7f0000000000-7f0000400000 rw-p 00000000 00:00 0 
            """
        XCTAssertEqual(ColdPages.stillMapped(chosen, in: ColdPages.parse(maps)).map(\.start), [0x55d0c0000000, 0x55d0c0200000],
                       "libavcodec's code unloaded and anonymous memory mapped in its place: left alone")
        let replaced = """
            55d0c0000000-55d0c0200000 r--p 00000000 fe:01 1235                       /usr/bin/wayloop
            55d0c0200000-55d0c0a00000 r-xp 00200000 fe:01 1234                       /usr/bin/other
            7f0000000000-7f0000400000 r--p 00000000 fe:01 99                         /usr/lib/x86_64-linux-gnu/libavcodec.so.59.37.100
            """
        XCTAssertEqual(ColdPages.stillMapped(chosen, in: ColdPages.parse(replaced)), [],
                       "another inode, another file, other permissions: none is the mapping chosen")
        XCTAssertEqual(ColdPages.stillMapped(chosen, in: ColdPages.parse(smaps)), chosen)
    }

    func testLibraryNames() {
        let table: [(String, Bool)] = [
            ("/usr/lib/libc.so.6", true), ("/usr/lib/libfoo.so", true), ("/usr/lib/libavcodec.so.59.37.100", true),
            ("/usr/bin/wayloop", false), ("/usr/share/fonts/a.ttf", false), ("/opt/so/wayloop", false),
            ("/usr/lib/libfoo.sock", false), ("[vdso]", false),
        ]
        for (path, want) in table { XCTAssertEqual(ColdPages.isLibrary(path), want, path) }
    }

    private let s: Nanos = .nanosPerSecond

    func testClockClearsAfterTheSettlingTimeAndHandsBackAfterASteadyWindow() {
        var c = ColdPageClock(start: 100 * s)
        XCTAssertEqual(c.due, 110 * s)
        XCTAssertEqual(c.fire(now: 105 * s, presented: 100, playing: true), .none, "early: nothing")
        XCTAssertEqual(c.fire(now: 110 * s, presented: 300, playing: true), .clearReferences)
        XCTAssertEqual(c.due, 120 * s)
        XCTAssertEqual(c.fire(now: 120 * s, presented: 350, playing: true), .handBack, "50 frames in 10 s: steady")
        XCTAssertNil(c.due, "once")
        XCTAssertEqual(c.fire(now: 200 * s, presented: 900, playing: true), .none)
    }

    func testClockWaitsWhileNothingPlays() {
        var c = ColdPageClock(start: 0)
        XCTAssertEqual(c.fire(now: 10 * s, presented: 0, playing: false), .none)
        XCTAssertEqual(c.due, 20 * s, "tried again a settling time later")
        XCTAssertEqual(c.fire(now: 20 * s, presented: 10, playing: true), .clearReferences)
    }

    func testClockStartsOverWhenPlaybackStalledOrPausedDuringTheWindow() {
        var c = ColdPageClock(start: 0)
        XCTAssertEqual(c.fire(now: 10 * s, presented: 300, playing: true), .clearReferences)
        XCTAssertEqual(c.fire(now: 20 * s, presented: 349, playing: true), .none, "49 frames in 10 s: under 5 fps")
        XCTAssertEqual(c.due, 30 * s)
        XCTAssertEqual(c.fire(now: 30 * s, presented: 400, playing: true), .clearReferences)
        XCTAssertEqual(c.fire(now: 40 * s, presented: 700, playing: false), .none, "paused at the end")
        XCTAssertEqual(c.fire(now: 50 * s, presented: 700, playing: true), .clearReferences)
        XCTAssertEqual(c.fire(now: 60 * s, presented: 1000, playing: true), .handBack)
    }

    func testClockSwitchedOff() {
        var c = ColdPageClock(start: 0, enabled: false)
        XCTAssertNil(c.due)
        XCTAssertEqual(c.fire(now: 100 * s, presented: 1000, playing: true), .none)
    }
}
