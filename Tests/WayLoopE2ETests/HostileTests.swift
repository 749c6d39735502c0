// The hostile suite: well over 80 bad files, options, config files, environments and
// control messages, each with the outcome it must have: an exit status and exactly one stderr
// line naming the thing and the reason, or playing on. Every case is bounded in time; a signal
// death, a hang or an error of more than one line is counted, and the suite prints
//   hostile suite: N cases, 0 signal deaths, 0 hangs, 0 multi-line errors, 0 unexpected outcomes
// One headless sway for the whole suite. Files are made in setUp (Swift and ffmpeg), never
// committed.
import Foundation
import WayLoopTestSupport
import XCTest

final class HostileTests: CompositorTestCase {
    nonisolated(unsafe) static var dir = ""

    override class var outputSizes: [String] { ["320x240"] }

    override class func setUpFixtures(_: Compositor) {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-hostile-\(getpid())").path
        try? FileManager.default.removeItem(atPath: dir)
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        HostileFiles.make(in: dir)
    }

    override class func tearDownFixtures() {
        Shell.run(["rm", "-rf", dir])
    }

    // MARK: The cases

    enum Expect {
        /// Exits with `status`, one stderr line containing every one of `mentions`.
        case fails(Int32, [String])
        /// Plays: the output reaches `playing` with a frame shown; `ctl quit` then exits 0, and
        /// nothing was logged at error level.
        case plays
        /// Plays on after the case's `action` (run once it plays); `check` on its status.
        case playsOn(action: (String) throws -> Void, check: String)
    }

    struct Case {
        let name: String
        var args: [String]
        var env: [String: String?] = [:]
        /// A shell line run instead of `exec "$WAYLOOP" "$@"` (fds closed, pipes…): it must exec
        /// wayloop with "$@" so that the status and signal seen are wayloop's.
        var shell: String?
        var timeout: Double = 15
        let expect: Expect
    }

    struct Tally {
        var cases = 0, deaths = 0, hangs = 0, multiLine = 0, unexpected = 0
        var failures: [String] = []
        var summary: String {
            "hostile suite: \(cases) cases, \(deaths) signal deaths, \(hangs) hangs, \(multiLine) multi-line errors, \(unexpected) unexpected outcomes"
        }
    }

    private var d: String { Self.dir }
    private var grid: String { Repo.clip("grid.mp4") }

    private func fileCases() -> [Case] {
        func f(_ name: String, _ expect: Expect) -> Case { Case(name: "file \(name)", args: [d + "/" + name], expect: expect) }
        func notVideo(_ name: String) -> Case { f(name, .fails(5, [name, "not a playable video"])) }
        func no(_ name: String, _ reason: String) -> Case { f(name, .fails(5, [name, reason])) }
        var c: [Case] = [
            no("missing.mp4", "no such file"),
            no("dir.mp4", "directory"),
            no("empty.mp4", "empty"),
            notVideo("text.mp4"),
            no("text.txt", "a playlist with no video to play"),
        ]
        // Truncated: moov at the end (cannot be opened), and moov first (what is there plays).
        for p in HostileFiles.cuts { c.append(notVideo("cut-end-\(p).mp4")) }
        c += [
            f("cut-start-1.mp4", .fails(5, ["cut-start-1.mp4", "not a playable video", "no streams"])),
            notVideo("cut-start-10.mp4"),
            // The first (and only) key frame is cut short: nothing decodes.
            f("cut-start-25.mp4", .fails(5, ["cut-start-25.mp4", "no frame could be decoded"])),
            f("cut-start-50.mp4", .fails(5, ["cut-start-50.mp4", "no frame could be decoded"])),
            f("cut-start-90.mp4", .plays),
        ]
        // Random bytes named as videos.
        for ext in HostileFiles.randomExtensions { c.append(f("random.\(ext)", .fails(5, ["random.\(ext)"]))) }
        c.append(f("random-1m.mp4", .fails(5, ["random-1m.mp4"])))
        // Corrupt headers and sample tables.
        c += [
            notVideo("zero-header.mp4"),
            f("bad-stsz.mp4", .fails(5, ["bad-stsz.mp4"])),
            f("bad-stco.mp4", .fails(5, ["bad-stco.mp4"])),
            f("bad-avcc.mp4", .fails(5, ["bad-avcc.mp4"])),
            f("huge-mdat.mp4", .plays),
            f("huge-moov.mp4", .plays),
            f("huge.y4m", .fails(5, ["huge.y4m", "Picture size 65535x65535 is invalid"])),
            f("big-short.y4m", .fails(5, ["big-short.y4m", "no frame could be decoded"])),
            f("huge.png", .fails(5, ["huge.png"])),
            f("no-frames.mp4", .fails(5, ["no-frames.mp4"])),
            f("one-frame.mp4", .plays),
            // Audio, subtitles and pictures named as videos.
            no("audio.m4a", "no video stream"),
            no("mp3-named.mp4", "no video stream"),
            no("wav-named.webm", "no video stream"),
            no("subtitles.mkv", "no video stream"),
            f("png-named.mp4", .plays),
            f("jpeg-named.mkv", .plays),
            f("animated.gif", .plays),
            f("unsupported.avi", .fails(5, ["unsupported.avi", "no decoder"])),
            // Not files.
            no("fifo.mp4", "not a regular file"),
            no("socket.mp4", "not a regular file"),
            // Links and names.
            no("loop-a.mp4", "symbolic links"),
            no("dangling.mp4", "no such file"),
            f("link.mp4", .plays),
            f("with space.mp4", .plays),
            f("new\nline.mp4", .plays),
            f("océan 🌊.mp4", .plays),
            f(HostileFiles.longName, .plays),
            no(HostileFiles.longName + "x", "too long"),
            no("grid.mp4/", "no such file"),
            no("grid.mp4/x.mp4", "no such file"),
        ]
        c.append(Case(name: "file dash name", args: ["--", d + "/-dash.mp4"], expect: .plays))
        c.append(Case(name: "file dash name, relative", args: ["--", "-dash.mp4"], shell: "cd \"$D\" && exec \"$WAYLOOP\" \"$@\"", expect: .plays))
        c.append(Case(name: "file path over PATH_MAX", args: [d + String(repeating: "/.", count: 2100) + "/grid.mp4"],
                      expect: .fails(5, ["too long"])))
        // Non-UTF-8 (Latin-1) names: bytes from argv to open(2), shown escaped.
        c.append(Case(name: "file latin-1 name", args: [d + "/caf\\xe9.mp4"], shell: HostileFiles.rawArgs, expect: .plays))
        c.append(Case(name: "file latin-1 missing", args: [d + "/nope\\xe9.mp4"], shell: HostileFiles.rawArgs,
                      expect: .fails(5, ["nope\\xe9.mp4", "no such file"])))
        // Kernel and device files.
        for dev in ["/dev/null", "/dev/zero", "/dev/urandom", "/dev/full"] {
            c.append(Case(name: "file \(dev)", args: [dev], expect: .fails(5, [dev, "a device"])))
        }
        for k in ["/proc/cpuinfo", "/proc/self/maps", "/proc/version", "/sys/kernel/mm/transparent_hugepage/enabled"]
            where FileManager.default.fileExists(atPath: k) {
            c.append(Case(name: "file \(k)", args: [k], expect: .fails(5, [k, "not a playable video"])))
        }
        // Files that change while they play: it plays on (the last picture stays).
        c.append(Case(name: "file emptied while playing", args: ["--cache-mb", "0", d + "/victim-1.mp4"], expect: .playsOn(action: { _ in
            // As `truncate -s 0` does: opened for writing, cut, closed.
            let h = try FileHandle(forWritingTo: URL(fileURLWithPath: self.d + "/victim-1.mp4"))
            try h.truncate(atOffset: 0)
            try h.close()
        }, check: "failed")))
        c.append(Case(name: "file deleted while playing", args: ["--cache-mb", "0", d + "/victim-2.mp4"], expect: .playsOn(action: { _ in
            try FileManager.default.removeItem(atPath: self.d + "/victim-2.mp4")
        }, check: "failed")))
        c.append(Case(name: "file overwritten with garbage while playing", args: ["--cache-mb", "0", d + "/victim-3.mp4"],
                      expect: .playsOn(action: { _ in
            try Data(repeating: 0xA5, count: 40_000).write(to: URL(fileURLWithPath: self.d + "/victim-3.mp4"))
        }, check: "failed")))
        return c
    }

    private func optionCases() -> [Case] {
        func usage(_ args: [String], _ mentions: [String]) -> Case {
            Case(name: "option \(args.joined(separator: " ").prefix(40))", args: args, expect: .fails(2, mentions))
        }
        return [
            usage(["--frobnicate", grid], ["--frobnicate", "usage"]),
            usage([grid, "-m"], ["-m"]),
            usage(["-m", "zoom", grid], ["zoom"]),
            usage(["-c", "+fffff", grid], ["+fffff"]),
            usage(["-c", "-00000", grid], ["-00000"]),
            usage(["-c", "12345g", grid], ["12345g"]),
            usage(["-c", "1234567", grid], ["1234567"]),
            usage(["-o", "", grid], ["-o"]),
            usage(["--dim", "2", grid], ["--dim", "2"]),
            usage(["--dim", "nan", grid], ["--dim", "nan"]),
            usage(["--dim", "-0.1", grid], ["--dim", "-0.1"]),
            usage(["--cache-mb", "-1", grid], ["--cache-mb", "-1"]),
            usage(["--cache-mb", "99999999999999999999", grid], ["--cache-mb"]),
            usage(["--release-after", "inf", grid], ["--release-after", "inf"]),
            usage(["--release-after", "-5", grid], ["--release-after"]),
            usage(["--renderer", "vulkan", grid], ["vulkan"]),
            usage(["--trace-frames", "/dev/full", grid], ["/dev/full"]),
            usage(["--trace-frames", "/nonexistent/dir/trace", grid], ["/nonexistent/dir/trace"]),
            usage(["--no-config"], ["no video"]),
            Case(name: "option a 100 KB video name", args: [d + "/" + String(repeating: "v", count: 100_000) + ".mp4"],
                 expect: .fails(5, ["too long"])),
            Case(name: "option --config missing", args: ["--config", d + "/no-config", grid], expect: .fails(2, ["no-config", "cannot read"])),
        ]
    }

    private func configCases() -> [Case] {
        func cfg(_ name: String, _ expect: Expect, video: Bool = true) -> Case {
            Case(name: "config \(name)", args: ["--config", d + "/config-" + name] + (video ? [grid] : []), expect: expect)
        }
        func bad(_ name: String, _ mentions: [String]) -> Case { cfg(name, .fails(2, ["config-" + name] + mentions)) }
        return [
            bad("unknown-key", [":1:", "unknown key 'speed'"]),
            bad("bad-mode", [":2:", "zoom"]),
            bad("no-equals", [":1:"]),
            bad("garbage", [":1:"]),
            bad("too-big", ["too large"]),
            bad("unterminated", [":1:"]),
            bad("renderer-in-section", [":2:", "renderer"]),
            cfg("dir", .fails(2, ["config-dir", "directory"])),
            cfg("fifo", .fails(2, ["config-fifo", "not a regular file"])),
            cfg("bom", .plays, video: false),
            cfg("crlf", .plays, video: false),
            cfg("latin-1", .plays, video: false),
            cfg("comments-only", .fails(2, ["no video"]), video: false),
            cfg("missing-video", .fails(5, ["nothing-here.mp4", "no such file"]), video: false),
        ]
    }

    private func environmentCases(_ env: [String: String]) -> [Case] {
        let runtime = env["XDG_RUNTIME_DIR"]!
        func e(_ name: String, _ vars: [String: String?], _ expect: Expect, timeout: Double = 15) -> Case {
            Case(name: "env \(name)", args: [grid], env: vars, timeout: timeout, expect: expect)
        }
        return [
            e("no XDG_RUNTIME_DIR", ["XDG_RUNTIME_DIR": nil], .fails(3, ["XDG_RUNTIME_DIR is not set"])),
            e("missing XDG_RUNTIME_DIR", ["XDG_RUNTIME_DIR": "/nonexistent/run"], .fails(3, ["XDG_RUNTIME_DIR='/nonexistent/run'"])),
            e("XDG_RUNTIME_DIR a file", ["XDG_RUNTIME_DIR": grid], .fails(3, ["XDG_RUNTIME_DIR", "not a directory"])),
            e("no WAYLAND_DISPLAY", ["WAYLAND_DISPLAY": nil], .fails(3, ["WAYLAND_DISPLAY"])),
            e("missing WAYLAND_DISPLAY", ["WAYLAND_DISPLAY": "wayland-nonexistent"], .fails(3, ["wayland-nonexistent"])),
            e("WAYLAND_DISPLAY a file", ["WAYLAND_DISPLAY": grid], .fails(3, ["grid.mp4"])),
            e("silent socket", ["WAYLAND_DISPLAY": runtime + "/hostile-silent"], .fails(3, ["hostile-silent"]), timeout: 12),
            e("garbage socket", ["WAYLAND_DISPLAY": runtime + "/hostile-garbage"], .fails(3, ["hostile-garbage"]), timeout: 12),
            e("no HOME", ["HOME": nil, "XDG_CONFIG_HOME": nil], .plays),
            e("XDG_CONFIG_HOME garbage", ["XDG_CONFIG_HOME": "/nonexistent/\u{1}cfg"], .plays),
            Case(name: "env stderr closed", args: [grid], shell: "exec 2>&-; exec \"$WAYLOOP\" \"$@\"", expect: .plays),
            Case(name: "env stdin and stdout closed", args: [grid], shell: "exec 0<&- 1>&-; exec \"$WAYLOOP\" \"$@\"", expect: .plays),
            Case(name: "env stderr /dev/full", args: [grid], shell: "exec 2>/dev/full; exec \"$WAYLOOP\" -v \"$@\"", expect: .plays),
            Case(name: "env stderr broken pipe", args: [grid],
                 shell: "exec 2> >(head -c 1 >/dev/null); exec \"$WAYLOOP\" -v \"$@\"", expect: .plays),
        ]
    }

    // MARK: Running

    func testTheHostileSuite() throws {
        let sway = try compositor()
        let output = sway.outputs[0]
        let servers = try HostileFiles.startSockets(runtime: sway.env["XDG_RUNTIME_DIR"]!)
        defer { servers.forEach { $0.stop() } }
        var tally = Tally()
        let all = fileCases() + optionCases() + configCases() + environmentCases(sway.env)
        for c in all { run(c, env: sway.env, output: output, tally: &tally) }
        runControlCases(env: sway.env, output: output, tally: &tally)
        print(tally.summary)
        for f in tally.failures { print("  " + f) }
        XCTAssertGreaterThanOrEqual(tally.cases, 80, "the suite shrank")
        XCTAssertEqual(tally.deaths, 0, tally.failures.joined(separator: "\n"))
        XCTAssertEqual(tally.hangs, 0, tally.failures.joined(separator: "\n"))
        XCTAssertEqual(tally.multiLine, 0, tally.failures.joined(separator: "\n"))
        XCTAssertEqual(tally.unexpected, 0, tally.failures.joined(separator: "\n"))
    }

    private func run(_ c: Case, env base: [String: String], output: String, tally: inout Tally) {
        tally.cases += 1
        var env = base
        env["D"] = d
        env["WAYLOOP"] = Repo.binary
        for (k, v) in c.env { env[k] = v }
        var args = c.args
        if let r = Wayloop.rendererFromEnvironment { args = ["--renderer", r] + args }
        let w: Wayloop
        do {
            w = try Wayloop(["-c", c.shell ?? "exec \"$WAYLOOP\" \"$@\"", "hostile"] + args, env: env,
                            binary: "/bin/bash", inheritRenderer: false)
        } catch {
            tally.unexpected += 1
            tally.failures.append("\(c.name): cannot start: \(error)")
            return
        }
        func fail(_ what: String) {
            tally.unexpected += 1
            tally.failures.append("\(c.name): \(what); stderr: \(w.stderr.debugDescription.prefix(600))")
        }
        /// The exit status, or nil after counting a hang or a signal death.
        func exited(within timeout: Double, _ what: String) -> Int32? {
            guard let code = w.waitExit(timeout: timeout) else {
                tally.hangs += 1
                tally.failures.append("\(c.name): still running \(timeout) s \(what); stderr: \(w.stderr.prefix(300))")
                return nil
            }
            guard !w.crashed else {
                tally.deaths += 1
                tally.failures.append("\(c.name): killed by signal \(code - 128); stderr: \(w.stderr.prefix(300))")
                return nil
            }
            return code
        }
        switch c.expect {
        case .fails(let status, let mentions):
            guard let code = exited(within: c.timeout, "after its start") else { return }
            let lines = w.stderrLines
            if lines.count != 1 {
                tally.multiLine += 1
                tally.failures.append("\(c.name): \(lines.count) stderr lines: \(lines.map { String($0.prefix(200)) })")
                return
            }
            if code != status { fail("exit \(code), expected \(status)") }
            let missing = mentions.filter { !lines[0].contains($0) }
            if !missing.isEmpty { fail("the line does not mention \(missing)") }
        case .plays, .playsOn:
            let playing = Self.waitFor(output, state: "playing", shown: true, timeout: c.timeout, env: base, while: w)
            if !playing.ok {
                if w.crashed {
                    tally.deaths += 1
                    tally.failures.append("\(c.name): killed by a signal; stderr: \(w.stderr.prefix(300))")
                } else if w.isRunning {
                    fail("running but not playing after \(c.timeout) s (\(playing.last))")
                } else {
                    fail("exited \(w.waitExit(timeout: 1).map(String.init) ?? "?") instead of playing")
                }
                _ = w.stop(signal: SIGKILL, timeout: 5)
                return
            }
            if case .playsOn(let action, let check) = c.expect {
                do { try action(output) } catch { fail("the action failed: \(error)") }
                let after = Self.waitFor(output, state: check, timeout: c.timeout, env: base, while: w)
                if !after.ok { fail("not \(check) after its file changed (\(after.last))") }
                if !w.isRunning { fail("stopped after its file changed") }
            }
            let quit = Shell.run([Repo.binary, "ctl", "quit"], env: base, timeout: 10)
            if quit.status != 0 { fail("ctl quit exited \(quit.status): \(quit.stderr)") }
            guard let code = exited(within: 10, "after ctl quit") else { return }
            if code != 0 { fail("exit \(code) after ctl quit") }
            let errors = w.stderrLines.filter { $0.contains(": error: ") }
            if case .plays = c.expect, !errors.isEmpty { fail("error lines while playing: \(errors)") }
        }
    }

    /// Polls `wayloop ctl status --json` (the real binary, whatever runs the case) until the
    /// output is in `state`; stops early when the process exits.
    static func waitFor(_ output: String, state: String, shown: Bool = false, timeout: Double, env: [String: String],
                        while w: Wayloop) -> (ok: Bool, last: String) {
        var last = "no status"
        let ok = Wait.until(timeout: timeout) {
            guard w.isRunning else { return true }
            do {
                let outs = try Ctl.status(env: env)
                last = Ctl.describe(outs)
                return outs.contains { $0["name"] as? String == output && Ctl.matches($0, state: state, reason: nil, shown: shown) }
            } catch {
                last = "\(error)"
                return false
            }
        }
        return (ok && w.isRunning, last)
    }

    // MARK: Control messages

    /// Against one playing wallpaper: bad `wayloop ctl` commands (exit status, one line) and raw
    /// socket lines (one JSON error reply each); after each, it still plays.
    private func runControlCases(env: [String: String], output: String, tally: inout Tally) {
        guard let w = try? Wayloop([grid], env: env), w.waitForState(output, state: "playing", shown: true) else {
            tally.cases += 1
            tally.unexpected += 1
            tally.failures.append("control: the wallpaper did not start")
            return
        }
        defer { _ = w.stop() }
        func check(_ name: String, _ body: () -> String?) {
            tally.cases += 1
            if let problem = body() {
                tally.unexpected += 1
                tally.failures.append("control \(name): \(problem)")
            }
            if w.crashed {
                tally.deaths += 1
                tally.failures.append("control \(name): the wallpaper died: \(w.stderr.suffix(300))")
            } else if !w.waitForState(output, state: "playing", timeout: 10) {
                tally.unexpected += 1
                tally.failures.append("control \(name): the wallpaper no longer plays (\(w.lastStatus))")
            }
        }
        let ctlCases: [(args: [String], status: Int32, mentions: [String])] = [
            (["frobnicate"], 2, ["frobnicate"]),
            (["pause", "NOPE-1"], 1, ["NOPE-1"]),
            (["set", "*", d + "/missing.mp4"], 1, ["missing.mp4", "no such file"]),
            (["set", "*", d + "/dir.mp4"], 1, ["dir.mp4", "directory"]),
            (["set", "*", "/dev/zero"], 1, ["/dev/zero", "a device"]),
            (["set", "*", d + "/text.mp4"], 1, ["text.mp4", "not a playable video"]),
            (["set", "*", d + "/nop\u{e9}.mp4"], 1, ["nop\u{e9}.mp4", "no such file"]),
            (["set", "*", "--mode", "zoom"], 2, ["zoom"]),
            (["set", "*", "--dim", "7"], 2, ["dim"]),
            (["set", "", grid], 1, ["output"]),
        ]
        for c in ctlCases {
            check("ctl \(c.args.joined(separator: " "))") {
                let r = Shell.run([Repo.binary, "ctl"] + c.args, env: env, timeout: 15)
                if r.crashed { return "ctl died" }
                let lines = r.stderr.split(separator: "\n")
                if lines.count != 1 {
                    tally.multiLine += 1
                    return "\(lines.count) stderr lines: \(lines)"
                }
                if r.status != c.status { return "exit \(r.status), expected \(c.status): \(r.stderr)" }
                let missing = c.mentions.filter { !r.stderr.contains($0) }
                return missing.isEmpty ? nil : "the line does not mention \(missing): \(r.stderr)"
            }
        }
        // Raw lines: each gets one {"ok":false,...} line back.
        let socket = Ctl.socketPath(env: env)
        let raw: [(String, String)] = [
            ("garbage bytes", "b'\\x00\\xff\\xfe garbage \\x1b[31m'"),
            ("invalid JSON", "b'{\"cmd\": \"status\"'"),
            ("cmd a number", "b'{\"cmd\": 5}'"),
            ("unknown cmd", "b'{\"cmd\": \"explode\"}'"),
            ("array", "b'[1, 2, 3]'"),
            ("deep nesting", "b'[' * 100000"),
            ("over the size limit", "b'{\"cmd\":\"status\",\"x\":\"' + b'a' * 70000 + b'\"}'"),
            ("video a number", "b'{\"cmd\":\"set\",\"output\":\"*\",\"video\":123}'"),
            ("dim a string", "b'{\"cmd\":\"set\",\"output\":\"*\",\"dim\":\"x\"}'"),
            ("huge number", "b'{\"cmd\":\"set\",\"output\":\"*\",\"dim\":1e999999}'"),
            ("invalid UTF-8 in a string", "b'{\"cmd\":\"pause\",\"output\":\"\\xff\\xfe\"}'"),
        ]
        for (name, expr) in raw {
            check("raw \(name)") {
                let script = """
                import json, socket, sys
                s = socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect(sys.argv[1])
                s.sendall(\(expr) + b'\\n')
                buf = b''
                while not buf.endswith(b'\\n'):
                    chunk = s.recv(65536)
                    if not chunk: break
                    buf += chunk
                lines = buf.splitlines()
                if len(lines) != 1: print('replies: %r' % lines[:3]); sys.exit(1)
                r = json.loads(lines[0])
                if r.get('ok') is not False or not r.get('error'): print('reply: %r' % r); sys.exit(1)
                """
                let r = Shell.run(["/usr/bin/python3", "-c", script, socket], timeout: 20)
                return r.status == 0 ? nil : "\(r.stdout)\(r.stderr)".trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }
    }
}

/// The files of the hostile suite.
enum HostileFiles {
    static let cuts = [1, 10, 25, 50, 90]
    static let randomExtensions = ["mp4", "mkv", "webm", "mov", "avi", "gif", "ts", "y4m"]
    /// A 255-byte name (the longest a file name can be).
    static let longName = String(repeating: "n", count: 251) + ".mp4"
    /// Expands `\xNN` in every argument (printf %b) before exec: argv bytes that are not UTF-8.
    static let rawArgs = #"a=(); for x in "$@"; do a+=("$(printf '%b' "$x")"); done; exec "$WAYLOOP" "${a[@]}""#

    static func make(in d: String) {
        let grid = Repo.clip("grid.mp4")
        func write(_ name: String, _ data: Data) { try? data.write(to: URL(fileURLWithPath: d + "/" + name)) }
        func ff(_ args: [String]) {
            let r = Shell.run(["ffmpeg", "-nostdin", "-v", "error", "-y"] + args, timeout: 60)
            precondition(r.status == 0, "ffmpeg \(args) failed: \(r.stderr)")
        }
        let fm = FileManager.default
        try? fm.createDirectory(atPath: d + "/dir.mp4", withIntermediateDirectories: true)
        write("empty.mp4", Data())
        write("text.mp4", Data("a few lines\nof plain text\n".utf8))
        write("text.txt", Data("a few lines\nof plain text\n".utf8))
        try? fm.copyItem(atPath: grid, toPath: d + "/grid.mp4")
        ff(["-i", grid, "-c", "copy", "-movflags", "+faststart", d + "/faststart.mp4"])
        let end = (try? Data(contentsOf: URL(fileURLWithPath: grid))) ?? Data()
        let start = (try? Data(contentsOf: URL(fileURLWithPath: d + "/faststart.mp4"))) ?? Data()
        for p in cuts {
            write("cut-end-\(p).mp4", end.prefix(end.count * p / 100))
            write("cut-start-\(p).mp4", start.prefix(start.count * p / 100))
        }
        var rng = SplitMix(seed: 12)
        for ext in randomExtensions { write("random.\(ext)", Data((0..<4096).map { _ in rng.byte() })) }
        write("random-1m.mp4", Data((0..<(1 << 20)).map { _ in rng.byte() }))
        // Corrupt headers: the first 64 bytes zeroed; boxes of the sample table filled with 0xFF.
        var z = start
        z.replaceSubrange(0..<64, with: Data(count: 64))
        write("zero-header.mp4", z)
        func smash(_ box: String, _ name: String, count: Int = 64) {
            var m = start
            if let r = m.range(of: Data(box.utf8)) { m.replaceSubrange(r.upperBound..<(r.upperBound + count), with: Data(repeating: 0xFF, count: count)) }
            write(name, m)
        }
        smash("stsz", "bad-stsz.mp4")
        smash("stco", "bad-stco.mp4")
        smash("avcC", "bad-avcc.mp4", count: 24)
        // Declared sizes far past the file's end.
        func hugeSize(_ box: String, _ name: String) {
            var m = start
            if let r = m.range(of: Data(box.utf8)) { m.replaceSubrange((r.lowerBound - 4)..<r.lowerBound, with: Data([0xFF, 0xFF, 0xFF, 0xF0])) }
            write(name, m)
        }
        hugeSize("mdat", "huge-mdat.mp4")
        hugeSize("moov", "huge-moov.mp4")
        write("huge.y4m", Data("YUV4MPEG2 W65535 H65535 F30:1 Ip A1:1 C420jpeg\nFRAME\n".utf8) + Data(count: 100))
        write("big-short.y4m", Data("YUV4MPEG2 W8192 H8192 F30:1 Ip A1:1 C420jpeg\nFRAME\n".utf8) + Data(count: 4096))
        ff(["-f", "lavfi", "-i", "color=c=red:s=64x64", "-frames:v", "1", d + "/small.png"])
        if var png = try? Data(contentsOf: URL(fileURLWithPath: d + "/small.png")), let r = png.range(of: Data("IHDR".utf8)) {
            png.replaceSubrange(r.upperBound..<(r.upperBound + 8), with: Data([0x00, 0x01, 0x86, 0xA0, 0x00, 0x01, 0x86, 0xA0]))
            write("huge.png", png)  // 100000 x 100000 (its CRC no longer matches either)
        }
        ff(["-f", "lavfi", "-i", "color=c=blue:s=320x240:r=30", "-frames:v", "0", "-c:v", "libx264", d + "/no-frames.mp4"])
        ff(["-f", "lavfi", "-i", "color=c=blue:s=320x240:r=30", "-frames:v", "1", "-c:v", "libx264", "-pix_fmt", "yuv420p", d + "/one-frame.mp4"])
        ff(["-f", "lavfi", "-i", "sine=f=440:d=1", "-c:a", "aac", d + "/audio.m4a"])
        ff(["-f", "lavfi", "-i", "sine=f=440:d=1", "-c:a", "libmp3lame", "-f", "mp3", d + "/mp3-named.mp4"])
        ff(["-f", "lavfi", "-i", "sine=f=440:d=1", "-f", "wav", d + "/wav-named.webm"])
        try? "1\n00:00:00,000 --> 00:00:01,000\nhello\n".write(toFile: d + "/sub.srt", atomically: true, encoding: .utf8)
        ff(["-i", d + "/sub.srt", "-c:s", "srt", d + "/subtitles.mkv"])
        ff(["-f", "lavfi", "-i", "testsrc2=s=320x240", "-frames:v", "1", "-f", "image2", "-c:v", "png", d + "/png-named.mp4"])
        ff(["-f", "lavfi", "-i", "testsrc2=s=320x240", "-frames:v", "1", "-f", "image2", "-c:v", "mjpeg", d + "/jpeg-named.mkv"])
        ff(["-f", "lavfi", "-i", "testsrc2=s=160x120:r=10", "-t", "1", d + "/animated.gif"])
        try? fm.copyItem(atPath: Repo.clip("unsupported.avi"), toPath: d + "/unsupported.avi")
        mkfifo(d + "/fifo.mp4", 0o600)
        Shell.run(["/usr/bin/python3", "-c", "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])", d + "/socket.mp4"])
        symlink(d + "/loop-b.mp4", d + "/loop-a.mp4")
        symlink(d + "/loop-a.mp4", d + "/loop-b.mp4")
        symlink(d + "/nowhere.mp4", d + "/dangling.mp4")
        symlink(grid, d + "/link.mp4")
        for name in ["with space.mp4", "new\nline.mp4", "océan 🌊.mp4", longName, "-dash.mp4", "victim-1.mp4", "victim-2.mp4", "victim-3.mp4"] {
            try? fm.copyItem(atPath: grid, toPath: d + "/" + name)
        }
        Shell.run(["/bin/bash", "-c", #"cp "$1" "$2/$(printf 'caf\xe9.mp4')""#, "cp", grid, d])
        // Config files.
        func config(_ name: String, _ text: String) { try? text.write(toFile: d + "/config-" + name, atomically: true, encoding: .utf8) }
        config("unknown-key", "speed = 2\n")
        config("bad-mode", "video = \(grid)\nmode = zoom\n")
        config("no-equals", "video\n")
        config("unterminated", "[output\nvideo = \(grid)\n")
        config("renderer-in-section", "[output HEADLESS-1]\nrenderer = shm\n")
        config("bom", "\u{feff}video = \(grid)\n")
        config("crlf", "# a Windows editor\r\nvideo = \(grid)\r\nmode = fit\r\n")
        config("comments-only", "# nothing\n\n   # here\n")
        config("missing-video", "video = \(d)/nothing-here.mp4\n")
        write("config-garbage", Data((0..<2048).map { _ in rng.byte() }))
        write("config-too-big", Data(repeating: UInt8(ascii: "#"), count: 2 << 20))
        try? fm.createDirectory(atPath: d + "/config-dir", withIntermediateDirectories: true)
        mkfifo(d + "/config-fifo", 0o600)
        var latin = Data("video = \(d)/caf".utf8)
        latin.append(0xE9)
        latin.append(contentsOf: Array(".mp4\n".utf8))
        write("config-latin-1", latin)
    }

    /// A socket that accepts and never answers, and one that answers garbage (start-up gives up).
    static func startSockets(runtime: String) throws -> [FakeWayland] {
        try ["silent", "garbage"].map { try FakeWayland.start(path: runtime + "/hostile-" + $0, mode: $0) }
    }
}

/// A small deterministic generator (the same files every run).
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }
}
