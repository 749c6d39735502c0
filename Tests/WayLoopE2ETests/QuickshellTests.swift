// WayLoop's door from the shells' wallpaper panels: the Quickshell picker of
// integrations/quickshell, run by Quickshell 0.3.2 (Debian unstable's, from the sid chroot that
// scripts/chroots makes) on headless sway 1.12 from the same chroot, driving the HOST's wayloop:
// the picker's `wayloop list --json --previews` and `wayloop ctl` run the host's binary inside the
// chroot through the host's loader and libraries (scripts/compositors/chroot.sh,
// chroot_quickshell), and talk to a wayloop daemon that runs on the host as the same user
// (wayloop-test: the control socket refuses other uids). Nothing is a stand-in: the real
// Quickshell runs the real wayloop. Always sway 1.12, whatever $WAYLOOP_COMPOSITOR says (the
// compositor and Quickshell come from the same chroot).
//
// What it shows: (a) the panel's grid holds the preview of a known clip (the grid clip, whose
// sixteen colours GridPicture knows, in their 4x4 order) in a screenshot of the panel's region;
// (b) a choice scripted through the panel's IpcHandler (`qs ipc call wayloop set OUTPUT NAME`)
// switches wayloop's video (`ctl status --json`), the panel's "what plays now" follows through
// its `ctl subscribe`, and pause and resume go through; (c) a wallpaper that fails to play (a
// `.mp4` of random bytes, listed as unplayable; a listed file deleted before it is chosen) puts
// wayloop's error line in the panel: read back through the IpcHandler and seen in the screenshot
// as the panel's error bar; and a video on screen broken on disk, which wayloop reports per
// output (status, the subscriber's event), shows in the panel the same way. Skipped, with the
// reason, only where the sid chroot (or its Quickshell) is not there.
import Foundation
import WayLoopTestSupport
import XCTest

final class QuickshellTests: XCTestCase {
    /// The panel's size (shell.qml reads WAYLOOP_PICKER_SIZE; the compositor centres it).
    private static let panelSize = (w: 880, h: 600)
    /// WayLoopPanel's error bar (errorColor) and the wallpaper's backdrop clip.
    private static let errorBar = RGB8(0xb0, 0x00, 0x20)
    private static let backdrop = RGB8(0x20, 0x40, 0x60)
    private static let testUser = "wayloop-test"

    /// Where the host's root is inside the chroot (chroot_quickshell's CHROOT_HOST_ROOT).
    private static let hostRoot = "/run/wayloop-host"

    func testThePickerShowsPreviewsSwitchesAndShowsErrors() throws {
        let t0 = Date()
        try skipUnlessTheChrootIsThere()
        guard getuid() == 0 else { throw HarnessError("QuickshellTests needs root (the chroot, its mounts, two users)") }

        let sway = try Compositor(kind: "start-sway", outputs: ["1280x720"], named: "sway-1.12")
        defer { sway.stop() }
        let output = try XCTUnwrap(sway.outputs.first, "sway 1.12 reported no output")

        // The picker's world, the test user's: the library (XDG_DATA_HOME/wayloop), the cache the
        // previews go to, copies of the binary under test and of the module that the test user can
        // reach (a checkout under a 0700 directory, mktemp's or /root, is out of its reach).
        let (base, binary) = try UserWorld.make(sway.dir + "/picker", subdirectories: ["data/wayloop", "cache", "nodata"])
        let library = base + "/data/wayloop"
        let fm = FileManager.default
        let module = base + "/quickshell"
        try fm.copyItem(atPath: URL(fileURLWithPath: Repo.path("integrations/quickshell")).resolvingSymlinksInPath().path, toPath: module)
        try fm.copyItem(atPath: Repo.clip("grid.mp4"), toPath: library + "/grid.mp4")
        try SolidClip.make(library + "/backdrop.mp4", colour: "0x" + Self.backdrop.description, size: "320x180")
        try SolidClip.make(library + "/gone.mp4", colour: "0x6040c0", size: "320x180")
        try Self.randomBytes(count: 48 * 1024).write(to: URL(fileURLWithPath: library + "/broken.mp4"))
        try UserWorld.chown(base, to: Self.testUser)

        var env = sway.env
        env["XDG_DATA_HOME"] = base + "/data"
        env["XDG_DATA_DIRS"] = base + "/nodata"  // the library alone: no system data directory
        env["XDG_CACHE_HOME"] = base + "/cache"
        env["XDG_CONFIG_HOME"] = "/nonexistent"

        // The wallpaper: the host's wayloop, as the test user, playing the backdrop.
        let w = try Wayloop([library + "/backdrop.mp4"], env: env, user: Self.testUser, binary: binary)
        defer { _ = w.stop() }
        XCTAssertTrue(w.waitForState(output, state: "playing", shown: true, timeout: 20), "the backdrop does not play: \(w.lastStatus); \(w.stderr)")

        // The host's wayloop inside the chroot, and qs there (chroot.sh).
        try UserWorld.prepareChroot("chroot_quickshell", dir: sway.dir, binary: binary, env: sway.env)
        let qs = sway.dir + "/tools/qs"
        let shellQML = Self.hostRoot + URL(fileURLWithPath: module + "/shell.qml").resolvingSymlinksInPath().path
        var qsEnv = env
        qsEnv["WAYLOOP_PICKER_SIZE"] = "\(Self.panelSize.w)x\(Self.panelSize.h)"
        // what the picker runs: the host's wayloop through the chroot's wrapper (also first on PATH)
        qsEnv["WAYLOOP_COMMAND"] = sway.dir + "/chroot-bin/wayloop"
        let qsOut = base + "/qs.out", qsErr = base + "/qs.err"
        print("QuickshellTests: sway 1.12, wayloop and the chroot's wrappers ready \(String(format: "%.1f", Date().timeIntervalSince(t0))) s after the start")
        guard let shell = Child([qs, "-p", shellQML], env: qsEnv, stdout: qsOut, stderr: qsErr) else {
            throw HarnessError("cannot start \(qs)")
        }
        defer {
            if shell.isRunning { kill(shell.pid, SIGTERM) }
            _ = shell.wait(timeout: 10)
        }
        func qsLog() -> String {
            let text = ((try? String(contentsOfFile: qsErr, encoding: .utf8)) ?? "") + ((try? String(contentsOfFile: qsOut, encoding: .utf8)) ?? "")
            // Quickshell colours its log: the escapes out, the last lines kept
            let plain = text.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
            return plain.split(separator: "\n").suffix(15).joined(separator: "\n")
        }
        func ipc(_ args: String...) -> ShellResult {
            Shell.run([qs, "ipc", "-p", shellQML, "call", "wayloop"] + args, env: qsEnv, timeout: 20)
        }
        func answer(_ args: String...) -> String? {
            let r = Shell.run([qs, "ipc", "-p", shellQML, "call", "wayloop"] + args, env: qsEnv, timeout: 20)
            return r.status == 0 ? r.stdout.trimmingCharacters(in: .whitespacesAndNewlines) : nil
        }

        // The panel lists the library at once (what the cache holds), then again with the
        // previews made (`list --previews`, at idle priority: on a machine kept busy that waits
        // for idle CPU, hence the long bound; here it takes a few seconds).
        var items: [[String: Any]] = []
        var lastItems = "no answer yet"
        func listedItems(_ done: ([[String: Any]]) -> Bool) -> Bool {
            guard shell.isRunning, let text = answer("getItems") else { return false }
            lastItems = text
            items = (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]]) ?? []
            return done(items)
        }
        func item(_ file: String) -> [String: Any]? {
            items.first { ($0["name"] as? String).map { $0 == file.replacingOccurrences(of: ".mp4", with: "") || $0.hasSuffix("/" + file) } ?? false }
        }
        let listedAtAll = Wait.until(timeout: 30) { listedItems { $0.count == 4 } || !shell.isRunning }
        XCTAssertTrue(shell.isRunning, "quickshell exited: \(qsLog())")
        XCTAssertTrue(listedAtAll, "the panel did not list the library's 4 videos within 30 s: \(lastItems); quickshell: \(qsLog())")
        print("QuickshellTests: the panel listed the library \(String(format: "%.1f", Date().timeIntervalSince(t0))) s after the start")
        let listed = listedAtAll && Wait.until(timeout: 90) {
            listedItems { _ in item("grid.mp4")?["preview"] is String } && answer("getBusy") == "idle" || !shell.isRunning
        }
        XCTAssertTrue(shell.isRunning, "quickshell exited: \(qsLog())")
        XCTAssertTrue(listed, "the panel's list has no preview of grid.mp4 within 90 s of `wayloop list --previews`: \(lastItems); quickshell: \(qsLog())")
        print("QuickshellTests: previews made \(String(format: "%.1f", Date().timeIntervalSince(t0))) s after the start")
        guard listed && shell.isRunning else { return }
        func name(_ file: String) throws -> String {
            try XCTUnwrap(item(file)?["name"] as? String, "no item for \(file) in \(lastItems)")
        }
        let broken = item("broken.mp4")
        XCTAssertEqual(broken?["playable"] as? Bool, false, "broken.mp4 (random bytes) is not listed as unplayable: \(lastItems)")
        XCTAssertFalse((broken?["reason"] as? String ?? "").isEmpty, "broken.mp4 is listed with no reason: \(lastItems)")

        // (a) The grid clip's preview in the panel's region of the screen.
        let cells = try GridPicture.colors()
        var report = "no screenshot yet"
        var firstShot: Image?
        let seen = Wait.until(timeout: 20) {
            guard let img = try? sway.shot(output) else { return false }
            let panel = Self.panelRegion(of: img)
            let r = Self.findGrid(in: panel, cells: cells)
            report = r.report
            firstShot = img
            return r.ok
        }
        XCTAssertTrue(seen, "(a) the grid clip's preview is not in the panel's region (\(Self.panelSize.w)x\(Self.panelSize.h), centred): \(report); quickshell: \(qsLog())")
        if let img = firstShot {
            let panel = Self.panelRegion(of: img)
            XCTAssertLessThan(Self.count(Self.errorBar, in: panel, tolerance: 12), 200, "(a) the error bar shows before anything failed: \(answer("getError") ?? "?")")
            // the wallpaper around the panel is the backdrop: the colours found were the panel's
            XCTAssertTrue(img.pixel(40, 360).close(to: Self.backdrop, tolerance: 24), "(a) the wallpaper beside the panel is \(img.pixel(40, 360)), not the backdrop \(Self.backdrop)")
            print("QuickshellTests: (a) \(report)")
            // WAYLOOP_KEEP_SHOTS=DIR keeps the screenshot (the README's picture of the panel).
            if let keep = ProcessInfo.processInfo.environment["WAYLOOP_KEEP_SHOTS"] {
                try? (Data("P6\n\(img.width) \(img.height)\n255\n".utf8) + Data(img.pixels))
                    .write(to: URL(fileURLWithPath: keep + "/quickshell-panel.ppm"))
            }
        }

        // (b) A scripted choice switches wayloop's video; what plays now follows.
        let gridName = try name("grid.mp4")
        let set = ipc("set", output, gridName)
        XCTAssertEqual(set.status, 0, "(b) qs ipc call wayloop set \(output) \(gridName): \(set.stderr)")
        XCTAssertTrue(w.waitForStatus(timeout: 20) { outs in
            outs.contains { $0["name"] as? String == output && ($0["video"] as? String ?? "").hasSuffix("/grid.mp4") && $0["state"] as? String == "playing" }
        }, "(b) `qs ipc call wayloop set \(output) \(gridName)` did not switch wayloop to grid.mp4: \(w.lastStatus); panel error: \(answer("getError") ?? "?")")
        var current = ""
        XCTAssertTrue(Wait.until(timeout: 15) {
            current = answer("getCurrent") ?? current
            return current.contains("\(output): playing") && current.contains("/grid.mp4")
        }, "(b) the panel's \"what plays now\" did not follow the switch: '\(current)'")
        XCTAssertEqual(answer("getError"), "", "(b) an error after a good switch")
        XCTAssertEqual(ipc("pause").status, 0)
        XCTAssertTrue(w.waitForState(output, state: "paused", reason: "user", timeout: 15), "(b) `qs ipc call wayloop pause`: \(w.lastStatus)")
        XCTAssertTrue(Wait.until(timeout: 15) {
            current = answer("getCurrent") ?? current
            return current.contains("\(output): paused")
        }, "(b) the panel does not say paused: '\(current)'")
        XCTAssertEqual(ipc("resume").status, 0)
        XCTAssertTrue(w.waitForState(output, state: "playing", timeout: 15), "(b) `qs ipc call wayloop resume`: \(w.lastStatus)")
        XCTAssertTrue(Wait.until(timeout: 15) {
            current = answer("getCurrent") ?? current
            return current.contains("\(output): playing")
        }, "(b) the panel does not say playing again: '\(current)'")

        // (c) A wallpaper that fails: wayloop's error line in the panel, and on the screen.
        let brokenName = try name("broken.mp4")
        XCTAssertEqual(ipc("set", output, brokenName).status, 0)
        var error = ""
        XCTAssertTrue(Wait.until(timeout: 20) {
            error = answer("getError") ?? ""
            return !error.isEmpty
        }, "(c) choosing broken.mp4 (random bytes) left the panel with no error; status: \(w.lastStatus)")
        XCTAssertTrue(error.contains("broken.mp4"), "(c) the panel's error does not name the file: '\(error)'")
        XCTAssertFalse(error.contains("\n"), "(c) the panel's error is more than one line: '\(error)'")
        print("QuickshellTests: (c) the panel says: \(error)")
        // the old video plays on
        XCTAssertTrue(w.waitForStatus(timeout: 10) { outs in
            outs.contains { $0["name"] as? String == output && ($0["video"] as? String ?? "").hasSuffix("/grid.mp4") && $0["state"] as? String == "playing" }
        }, "(c) the failed choice did not leave grid.mp4 playing: \(w.lastStatus)")
        var bar = 0
        XCTAssertTrue(Wait.until(timeout: 15) {
            guard let img = try? sway.shot(output) else { return false }
            bar = Self.count(Self.errorBar, in: Self.panelRegion(of: img), tolerance: 12)
            return bar >= 5000
        }, "(c) no error bar in the panel's region of the screen (\(bar) pixels of \(Self.errorBar)) while the panel says '\(error)'")

        // A listed file deleted before it is chosen: the error follows the latest failure.
        let goneName = try name("gone.mp4")
        try fm.removeItem(atPath: library + "/gone.mp4")
        XCTAssertEqual(ipc("set", output, goneName).status, 0)
        var error2 = ""
        XCTAssertTrue(Wait.until(timeout: 20) {
            error2 = answer("getError") ?? ""
            return !error2.isEmpty && error2 != error
        }, "(c) choosing gone.mp4 after it was deleted did not change the panel's error: '\(error2)'")
        XCTAssertTrue(error2.contains("gone"), "(c) the panel's error does not name the deleted file: '\(error2)'")
        print("QuickshellTests: (c) after a deleted file, the panel says: \(error2)")

        // The video on screen breaks (garbage renamed over it): wayloop says so per output
        // (status and the subscriber's event: failed, with its error), and the panel shows it.
        XCTAssertEqual(ipc("clearError").status, 0)
        XCTAssertEqual(answer("getError"), "", "(c) clearError left an error")
        try Self.randomBytes(count: 32 * 1024).write(to: URL(fileURLWithPath: library + "/grid.mp4.new"))
        XCTAssertEqual(rename(library + "/grid.mp4.new", library + "/grid.mp4"), 0)
        XCTAssertTrue(w.waitForState(output, state: "failed", timeout: 20), "(c) grid.mp4 broken on disk: \(w.lastStatus)")
        var error3 = ""
        XCTAssertTrue(Wait.until(timeout: 15) {
            error3 = answer("getError") ?? ""
            return error3.hasPrefix("\(output): ") && error3.contains("grid.mp4")
        }, "(c) the panel does not show the output's failure (\(w.lastStatus)): '\(error3)'")
        XCTAssertTrue(Wait.until(timeout: 15) {
            guard let img = try? sway.shot(output) else { return false }
            bar = Self.count(Self.errorBar, in: Self.panelRegion(of: img), tolerance: 12)
            return bar >= 5000
        }, "(c) no error bar on the screen (\(bar) pixels of \(Self.errorBar)) while the panel says '\(error3)'")
        print("QuickshellTests: (c) with the video on screen broken, the panel says: \(error3)")

        XCTAssertTrue(shell.isRunning, "quickshell exited: \(qsLog())")
        XCTAssertTrue(w.isRunning, "wayloop exited: \(w.stderr)")
        print("QuickshellTests: \(Shell.run([qs, "--version"], env: qsEnv, timeout: 20).stdout.trimmingCharacters(in: .whitespacesAndNewlines)) "
              + "on sway 1.12 (sid chroot), the host's \(Repo.binary): \(String(format: "%.1f", Date().timeIntervalSince(t0))) s")
    }

    // MARK: helpers

    /// The sid chroot with Quickshell, or a skip that says what is missing.
    private func skipUnlessTheChrootIsThere() throws {
        let check = Shell.run([Repo.path("scripts/chroots"), "check", "sid"], timeout: 30)
        guard check.status == 0 else {
            throw XCTSkip("the Debian unstable (sid) chroot is not ready (scripts/chroots makes it): \(check.stderr.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        let root = Shell.run([Repo.path("scripts/chroots"), "path", "sid"], timeout: 30).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard FileManager.default.isExecutableFile(atPath: root + "/usr/bin/qs") else {
            throw XCTSkip("the sid chroot at \(root) has no Quickshell (/usr/bin/qs): scripts/chroots installs quickshell and qt6-wayland there")
        }
    }

    /// Bytes no demuxer takes for a video (a fixed generator: the same file every run).
    private static func randomBytes(count: Int) -> Data {
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        var out = Data(capacity: count)
        for _ in 0..<count {
            x ^= x << 13
            x ^= x >> 7
            x ^= x << 17
            out.append(UInt8(truncatingIfNeeded: x >> 24))
        }
        return out
    }

    /// The panel's part of a screenshot: panelSize, centred (a layer surface with no anchors).
    private static func panelRegion(of img: Image) -> Image {
        let w = min(panelSize.w, img.width), h = min(panelSize.h, img.height)
        return img.cropped(x: (img.width - w) / 2, y: (img.height - h) / 2, width: w, height: h)
    }

    private static func count(_ colour: RGB8, in img: Image, tolerance: Int) -> Int {
        var n = 0
        for y in 0..<img.height {
            for x in 0..<img.width where img.pixel(x, y).close(to: colour, tolerance: tolerance) { n += 1 }
        }
        return n
    }

    /// The grid clip's picture somewhere in `img`: its sixteen colours each cover a patch, and
    /// where they are, sampled at the middle of each quarter, they are in the clip's 4x4 order.
    static func findGrid(in img: Image, cells: [[RGB8]]) -> (ok: Bool, report: String) {
        let colours = cells.flatMap { $0 }
        var counts = [Int](repeating: 0, count: colours.count)
        var columns = [Int](repeating: 0, count: img.width), rows = [Int](repeating: 0, count: img.height)
        for y in 0..<img.height {
            for x in 0..<img.width {
                let p = img.pixel(x, y)
                // every grid colour has channels 0 and 128 or 255: the panel's greys are not one
                guard max(p.r, p.g, p.b) - min(p.r, p.g, p.b) >= 64,
                      let i = colours.firstIndex(where: { p.close(to: $0, tolerance: 30) }) else { continue }
                counts[i] += 1
                columns[x] += 1
                rows[y] += 1
            }
        }
        let present = counts.filter { $0 >= 300 }.count
        // the picture's extent: the columns and rows that hold many of its pixels
        guard let x0 = columns.firstIndex(where: { $0 >= 20 }), let x1 = columns.lastIndex(where: { $0 >= 20 }),
              let y0 = rows.firstIndex(where: { $0 >= 20 }), let y1 = rows.lastIndex(where: { $0 >= 20 }),
              x1 - x0 >= 40, y1 - y0 >= 20 else {
            return (false, "\(present) of 16 grid colours over 300 pixels, no picture of them (pixels per colour \(counts))")
        }
        let (w, h) = (Double(x1 - x0 + 1), Double(y1 - y0 + 1))
        var wrong: [String] = []
        for r in 0..<4 {
            for c in 0..<4 {
                let x = x0 + Int((Double(c) + 0.5) * w / 4), y = y0 + Int((Double(r) + 0.5) * h / 4)
                let got = img.pixel(x, y)
                if !got.close(to: cells[r][c], tolerance: 40) { wrong.append("cell \(c),\(r) at (\(x),\(y)) is \(got), not \(cells[r][c])") }
            }
        }
        let aspect = w / h
        let ok = present >= 16 && wrong.isEmpty && abs(aspect - 16.0 / 9.0) < 0.25
        return (ok, "\(present) of 16 grid colours over 300 pixels; the picture at (\(x0),\(y0)) \(x1 - x0 + 1)x\(y1 - y0 + 1) in the panel "
                    + "(aspect \(String(format: "%.2f", aspect))); cells out of place: \(wrong.isEmpty ? "none" : wrong.prefix(4).joined(separator: "; "))")
    }
}
