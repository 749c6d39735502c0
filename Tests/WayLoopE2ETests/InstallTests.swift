// Installed like a package: scripts/install into a DESTDIR gives exactly the committed
// manifest, the binary links no Swift library, the uninstall removes exactly what it put, the
// systemd user unit verifies, the installed binary plays the default loop with no arguments and
// bare names from the data directories, waybar lines and journal priorities; and the .deb
// installs (apt-get), plays, has its man page found by `man`, and removes without a trace.
// The static binary comes from `scripts/install` (scripts/test builds it first).
import Foundation
import WayLoopTestSupport
import XCTest

final class InstallTests: CompositorTestCase {
    override class var outputSizes: [String] { ["320x240"] }

    private var scratch = ""

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-install-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        // The compositor's user must reach the clips and the prefix below.
        chmod(scratch, 0o755)
    }

    override func tearDown() { Shell.run(["rm", "-rf", scratch]) }

    private func install(_ args: [String]) throws {
        let r = Shell.run([Repo.path("scripts/install"), "--no-build"] + args, timeout: 120)
        guard r.status == 0 else { throw HarnessError("scripts/install \(args) exited \(r.status): \(r.stderr)") }
    }

    private func files(under dir: String) -> [String] {
        let r = Shell.run(["find", dir, "-type", "f", "-printf", "%P\n"])
        return r.stdout.split(separator: "\n").map(String.init).sorted()
    }

    private var manifest: [String] {
        get throws {
            try String(contentsOfFile: Repo.path("packaging/install-manifest"), encoding: .utf8)
                .split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        }
    }

    func testAnInstallIntoADestdirIsExactlyTheManifest() throws {
        try install(["--destdir", scratch + "/stage", "--prefix", "/opt/wl"])
        let got = files(under: scratch + "/stage/opt/wl")
        XCTAssertEqual(got, (try manifest + ["share/wayloop/install-manifest"]).sorted(), "installed files against packaging/install-manifest")
        // The unit names the prefix, not the staging directory.
        let unit = try String(contentsOfFile: scratch + "/stage/opt/wl/share/systemd/user/wayloop.service", encoding: .utf8)
        XCTAssertTrue(unit.contains("ExecStart=/opt/wl/bin/wayloop\n"), unit)
        // Self-contained: no Swift library, and it runs with no Swift anywhere on its paths.
        let bin = scratch + "/stage/opt/wl/bin/wayloop"
        let ldd = Shell.run(["ldd", bin])
        XCTAssertEqual(ldd.status, 0, ldd.stderr)
        XCTAssertFalse(ldd.stdout.contains("libswift"), "links a Swift library: \(ldd.stdout)")
        XCTAssertFalse(ldd.stdout.contains("not found"), ldd.stdout)
        let v = Shell.run([bin, "--version"], env: ["PATH": "/usr/bin:/bin"])
        XCTAssertEqual(v.status, 0, v.stderr)
        XCTAssertTrue(v.stdout.hasPrefix("wayloop "), v.stdout)
    }

    func testTheUninstallRemovesExactlyWhatWasInstalled() throws {
        let prefix = scratch + "/prefix"
        // Someone else's files in the shared directories stay.
        try FileManager.default.createDirectory(atPath: prefix + "/share/man/man1", withIntermediateDirectories: true)
        try "other".write(toFile: prefix + "/share/man/man1/other.1", atomically: true, encoding: .utf8)
        try install(["--prefix", prefix])
        XCTAssertEqual(files(under: prefix).count, try manifest.count + 2)
        let r = Shell.run([Repo.path("scripts/install"), "--uninstall", "--prefix", prefix])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(files(under: prefix), ["share/man/man1/other.1"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: prefix + "/share/wayloop"), "share/wayloop stays")
        let again = Shell.run([Repo.path("scripts/install"), "--uninstall", "--prefix", prefix])
        XCTAssertNotEqual(again.status, 0, "a second uninstall has nothing to remove")
        XCTAssertEqual(again.stderr.split(separator: "\n").count, 1, again.stderr)
    }

    func testTheUserUnitVerifies() throws {
        let prefix = scratch + "/prefix"
        try install(["--prefix", prefix])
        let runtime = scratch + "/runtime"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var env = ProcessInfo.processInfo.environment
        env["XDG_RUNTIME_DIR"] = runtime
        env["MANPATH"] = prefix + "/share/man"  // Documentation=man:wayloop(1) is checked with man
        let r = Shell.run(["systemd-analyze", "--user", "verify", prefix + "/share/systemd/user/wayloop.service"], env: env, timeout: 60)
        XCTAssertEqual(r.status, 0, "systemd-analyze verify: \(r.stdout)\(r.stderr)")
        XCTAssertEqual(r.stderr, "", r.stderr)
        let unit = try String(contentsOfFile: prefix + "/share/systemd/user/wayloop.service", encoding: .utf8)
        for line in ["PartOf=graphical-session.target", "After=graphical-session.target", "ExecReload=/bin/kill -HUP $MAINPID",
                     "Restart=on-failure", "WantedBy=graphical-session.target"] {
            XCTAssertTrue(unit.contains(line + "\n"), "\(line) missing: \(unit)")
        }
    }

    /// The environment of an installed wayloop: no config, no data directories but its own prefix.
    private func installedEnv(_ sway: Compositor, dataHome: String? = nil) -> [String: String] {
        var env = sway.env
        env["XDG_CONFIG_HOME"] = scratch + "/config"
        env["XDG_DATA_HOME"] = dataHome ?? scratch + "/no-data"
        env["XDG_DATA_DIRS"] = scratch + "/no-dirs"
        env["PATH"] = "/usr/bin:/bin"
        return env
    }

    private func waitPlaying(_ w: Wayloop, _ output: String, video suffix: String) -> Bool {
        w.waitForStatus(timeout: 20) { outs in
            outs.contains { $0["name"] as? String == output && $0["state"] as? String == "playing"
                && ($0["video"] as? String ?? "").hasSuffix(suffix) && ($0["frames_shown"] as? Int ?? 0) > 0 }
        }
    }

    func testNoArgumentsPlayTheInstalledDefaultLoop() throws {
        let prefix = scratch + "/prefix"
        try install(["--prefix", prefix])
        let sway = try compositor()
        let w = try Wayloop([], env: installedEnv(sway), binary: prefix + "/bin/wayloop")
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(waitPlaying(w, sway.outputs[0], video: prefix + "/share/wayloop/default-loop.mp4"), "\(w.lastStatus); \(w.stderr)")
        XCTAssertEqual(w.stderrLines.filter { $0.contains("no video given: playing the default loop") }.count, 1, w.stderr)
        // Something is on screen: the loop's indigo, teal and violet, not black.
        let img = try sway.shot(sway.outputs[0])
        let p = img.pixel(img.width / 2, img.height / 2)
        XCTAssertGreaterThan(Int(p.r) + Int(p.g) + Int(p.b), 60, "the centre is \(p)")
    }

    func testBareNamesResolveInTheDataDirectories() throws {
        let prefix = scratch + "/prefix"
        try install(["--prefix", prefix])
        let data = scratch + "/data"
        try FileManager.default.createDirectory(atPath: data + "/wayloop", withIntermediateDirectories: true)
        chmod(scratch + "/data", 0o755)
        try FileManager.default.copyItem(atPath: Repo.clip("grid.mp4"), toPath: data + "/wayloop/ocean.mp4")
        let sway = try compositor()
        let env = installedEnv(sway, dataHome: data)
        let bin = prefix + "/bin/wayloop"
        // Not found: exit 5, one line listing where it looked.
        let missing = try Wayloop(["desert"], env: env, binary: bin)
        XCTAssertEqual(missing.waitExit(), 5)
        XCTAssertEqual(missing.stderrLines.count, 1, missing.stderr)
        for place in ["'desert': no such file", data + "/wayloop", scratch + "/no-dirs/wayloop", prefix + "/share/wayloop"] {
            XCTAssertTrue(missing.stderr.contains(place), "should mention \(place): \(missing.stderr)")
        }
        // Found: plays ~/.local/share/wayloop/ocean.mp4.
        let w = try Wayloop(["ocean"], env: env, binary: bin)
        defer { XCTAssertEqual(w.stop(), 0, w.stderr) }
        XCTAssertTrue(waitPlaying(w, sway.outputs[0], video: data + "/wayloop/ocean.mp4"), "\(w.lastStatus); \(w.stderr)")
        // On screen: the grid's cells (16 colours), not one flat colour.
        let img = try sway.shot(sway.outputs[0])
        var colours = Set<String>()
        for y in stride(from: 10, to: img.height, by: 20) {
            for x in stride(from: 10, to: img.width, by: 20) { colours.insert("\(img.pixel(x, y))") }
        }
        XCTAssertGreaterThanOrEqual(colours.count, 8, "the grid is not on screen: \(colours.prefix(5))")
        // The same lookup in `ctl set` (the default loop is a name too) and in the config file.
        let set = Shell.run([bin, "ctl", "set", "*", "default-loop"], env: env, timeout: 20)
        XCTAssertEqual(set.status, 0, set.stderr)
        XCTAssertTrue(waitPlaying(w, sway.outputs[0], video: "/share/wayloop/default-loop.mp4"), "\(w.lastStatus)")
        let bad = Shell.run([bin, "ctl", "set", "*", "desert"], env: env, timeout: 20)
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("'desert': no such file (looked for"), bad.stderr)
        try FileManager.default.createDirectory(atPath: scratch + "/config/wayloop", withIntermediateDirectories: true)
        try "video = ocean\n".write(toFile: scratch + "/config/wayloop/config", atomically: true, encoding: .utf8)
        let reload = Shell.run([bin, "ctl", "reload"], env: env, timeout: 20)
        XCTAssertEqual(reload.status, 0, reload.stderr)
        XCTAssertTrue(waitPlaying(w, sway.outputs[0], video: data + "/wayloop/ocean.mp4"), "\(w.lastStatus); \(w.stderr)")
    }

    func testWaybarLinesAndJournalPriorities() throws {
        let sway = try compositor()
        let log = scratch + "/journal"
        var env = sway.env
        env["LOG"] = log
        // stderr on a file that JOURNAL_STREAM names (as systemd sets it for a service).
        let script = #"exec 2>>"$LOG"; JOURNAL_STREAM=$(stat -c %d:%i "$LOG"); export JOURNAL_STREAM; exec "$@""#
        var argv = ["/bin/bash", "-c", script, "wl", Repo.binary, Repo.clip("grid.mp4")]
        if let r = Wayloop.rendererFromEnvironment { argv += ["--renderer", r] }
        let daemon = try XCTUnwrap(Child(argv, env: env, stdout: "/dev/null", stderr: "/dev/null"))
        defer {
            _ = Shell.run([Repo.binary, "ctl", "quit"], env: sway.env)
            XCTAssertEqual(daemon.wait(timeout: 10), 0)
        }
        XCTAssertTrue(Wait.until(timeout: 20) {
            ((try? Ctl.status(env: sway.env)) ?? []).contains { $0["state"] as? String == "playing" && ($0["frames_shown"] as? Int ?? 0) > 0 }
        }, "not playing: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        let lines = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
        XCTAssertGreaterThanOrEqual(lines.count, 3, "\(lines)")
        for l in lines { XCTAssertTrue(l.hasPrefix("<5>wayloop: notice: "), "no journal priority: \(l)") }
        // subscribe --waybar: one JSON line now and one per change, with text, tooltip and class.
        let out = scratch + "/waybar"
        let sub = try XCTUnwrap(Child([Repo.binary, "ctl", "subscribe", "--waybar"], env: sway.env, stdout: out, stderr: scratch + "/waybar.err"))
        defer { kill(sub.pid, SIGTERM); _ = sub.wait(timeout: 5) }
        func waybar() -> [[String: Any]] {
            ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
        XCTAssertTrue(Wait.until(timeout: 10) { waybar().count >= 1 }, "no waybar line")
        XCTAssertEqual(Shell.run([Repo.binary, "ctl", "pause"], env: sway.env).status, 0)
        XCTAssertTrue(Wait.until(timeout: 10) { waybar().contains { $0["class"] as? String == "paused" } }, "\(waybar())")
        XCTAssertEqual(Shell.run([Repo.binary, "ctl", "resume"], env: sway.env).status, 0)
        XCTAssertTrue(Wait.until(timeout: 10) { waybar().last?["class"] as? String == "playing" }, "\(waybar())")
        let raw = ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n")
        XCTAssertEqual(raw.count, waybar().count, "every line is JSON: \(raw)")
        for line in waybar() {
            XCTAssertEqual(line["text"] as? String, "grid", "\(line)")
            XCTAssertTrue((line["tooltip"] as? String ?? "").hasPrefix(sway.outputs[0] + ": "), "\(line)")
            XCTAssertNotNil(line["class"] as? String)
        }
        // The status JSON says its version.
        let s = Shell.run([Repo.binary, "ctl", "status", "--json"], env: sway.env)
        let obj = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(s.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(obj["version"] as? Int, 1, s.stdout)
    }

    /// The .deb: built with dpkg-deb, installed with apt-get (its Depends satisfied), the
    /// installed /usr/bin/wayloop plays the default loop with no arguments, `man wayloop` finds
    /// the page; `apt-get remove` leaves none of its files. Needs root (CI) or sudo -n.
    func testTheDebianPackageInstallsPlaysAndRemoves() throws {
        let sudo: [String] = getuid() == 0 ? [] : ["sudo", "-n"]
        if !sudo.isEmpty {
            XCTAssertEqual(Shell.run(["sudo", "-n", "true"]).status, 0,
                           "installing the .deb needs root or passwordless sudo (it is installed into this system and removed)")
        }
        let already = Shell.run(["dpkg-query", "-W", "-f=${Status}", "wayloop"])
        guard !already.stdout.contains("install ok installed") else {
            throw HarnessError("a wayloop package is installed on this machine already: remove it first (apt-get remove wayloop)")
        }
        let built = Shell.run([Repo.path("scripts/package-deb"), "--no-build", "--out", scratch], timeout: 300)
        XCTAssertEqual(built.status, 0, built.stderr)
        let deb = built.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(deb.hasSuffix("_amd64.deb") || deb.hasSuffix(".deb"), deb)
        let info = Shell.run(["dpkg-deb", "--field", deb, "Depends"])
        for lib in ["libavcodec", "libavformat", "libswscale", "libwayland-client0", "libegl1", "libgles2"] {
            XCTAssertTrue(info.stdout.contains(lib), "Depends lacks \(lib): \(info.stdout)")
        }
        let contents = Shell.run(["dpkg-deb", "--fsys-tarfile", deb]).status == 0
            ? Shell.run(["/bin/bash", "-c", "dpkg-deb --fsys-tarfile \"$0\" | tar -t", deb]).stdout : ""
        let paths = contents.split(separator: "\n").map { String($0.dropFirst()) }.filter { !$0.hasSuffix("/") }
        XCTAssertTrue(paths.contains("/usr/bin/wayloop"), "\(paths)")
        var apt = ProcessInfo.processInfo.environment
        apt["DEBIAN_FRONTEND"] = "noninteractive"
        let inst = Shell.run(sudo + ["apt-get", "install", "-y", "-q", deb], env: apt, timeout: 300)
        XCTAssertEqual(inst.status, 0, "apt-get install: \(inst.stdout.suffix(800))\(inst.stderr)")
        defer {
            let rm = Shell.run(sudo + ["apt-get", "remove", "-y", "-q", "wayloop"], env: apt, timeout: 300)
            XCTAssertEqual(rm.status, 0, "apt-get remove: \(rm.stderr)")
            let left = paths.filter { FileManager.default.fileExists(atPath: $0) }
            XCTAssertEqual(left, [], "files left after apt-get remove")
        }
        let man = Shell.run(["man", "-w", "wayloop"])
        XCTAssertEqual(man.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "/usr/share/man/man1/wayloop.1.gz", man.stderr)
        XCTAssertEqual(Shell.run(["man", "-w", "5", "wayloop"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines),
                       "/usr/share/man/man5/wayloop.5.gz")
        let sway = try compositor()
        var env = sway.env
        env["XDG_CONFIG_HOME"] = scratch + "/config"
        env["XDG_DATA_HOME"] = scratch + "/no-data"
        env["XDG_DATA_DIRS"] = nil  // the defaults: /usr/local/share:/usr/share
        let w = try Wayloop([], env: env, binary: "/usr/bin/wayloop")
        XCTAssertTrue(waitPlaying(w, sway.outputs[0], video: "/usr/share/wayloop/default-loop.mp4"), "\(w.lastStatus); \(w.stderr)")
        XCTAssertEqual(w.stop(), 0, w.stderr)
    }
}
