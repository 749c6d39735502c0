// End-to-end harness: real compositors (scripts/compositor), real clips (scripts/make-clips),
// the real wayloop binary. Nothing here is skipped: a missing tool or binary is a failure.
import Foundation
import WayLoopCore
import WayLoopTestSupport
import XCTest

/// A compositor started by scripts/compositor, shared by the tests of one class.
final class Compositor: @unchecked Sendable {
    let dir: String
    let env: [String: String]
    let outputs: [String]

    /// What $WAYLOOP_COMPOSITOR may name: the compositor the suites that ask for a headless sway
    /// run on instead. Unset, empty or `sway`: Debian 12's sway 1.7. `phoc` (0.24) and `labwc`
    /// (0.5.3): the host's second and third wlroots compositors. The rest run from the Debian
    /// unstable (sid) and testing (trixie) chroots that scripts/chroots makes. Nested sways,
    /// weston and mutter stay what they are.
    static let headlessKinds: [String: (command: String, chroot: String?)] = [
        "": ("start-sway", nil), "sway": ("start-sway", nil), "phoc": ("start-phoc", nil), "labwc": ("start-labwc", nil),
        "sway-1.12": ("start-sway", "sid"), "labwc-0.20": ("start-labwc", "sid"), "wayfire-0.10": ("start-wayfire", "sid"),
        "sway-1.10": ("start-sway", "trixie"), "labwc-0.8": ("start-labwc", "trixie"), "phoc-0.46": ("start-phoc", "trixie"),
        "kwin-6": ("start-kwin", "trixie"),
        // only where a DRM render node exists: never run on this project's machines
        "hyprland-0.57": ("start-hyprland", "sid"),
    ]

    /// $WAYLOOP_COMPOSITOR as given ("" when unset).
    static var compositorName: String { ProcessInfo.processInfo.environment["WAYLOOP_COMPOSITOR"] ?? "" }

    /// This compositor is phoc (no swaymsg, no create_output).
    var isPhoc: Bool { kind == "start-phoc" }
    /// This compositor is labwc (no swaymsg, no create_output; wlr-randr sizes its outputs).
    var isLabwc: Bool { kind == "start-labwc" }
    /// No sway IPC here (phoc, labwc, Wayfire, KWin): no swaymsg, create_output, window rules or `cover`.
    var lacksSwayIPC: Bool { kind != "start-sway" && kind != "start-nested" }
    /// KWin: no screencopy (nor ext-image-copy-capture), so `shot` reads wayloop's own
    /// `ctl snapshot` of the output instead of the compositor's picture.
    var isKWin: Bool { kind == "start-kwin" }
    /// The chroot the compositor runs from (sid, trixie), nil for the host's.
    let chroot: String?
    let kind: String

    /// `named`: one of `headlessKinds` ("sway-1.12", "sway"), started whatever
    /// $WAYLOOP_COMPOSITOR says (for a test of what one compositor offers).
    init(kind requested: String, outputs sizes: [String] = [], extra: [String] = [], named: String? = nil) throws {
        var kind = requested
        var chroot: String?
        if requested == "start-sway" || named != nil {
            let name = named ?? Self.compositorName
            guard let k = Self.headlessKinds[name] else {
                let known = Self.headlessKinds.keys.filter { !$0.isEmpty }.sorted().joined(separator: ", ")
                throw HarnessError(named == nil ? "WAYLOOP_COMPOSITOR is '\(name)': it must be one of \(known) (or unset)"
                                                : "no compositor named '\(name)': it must be one of \(known)")
            }
            (kind, chroot) = k
        } else if let k = Self.headlessKinds[Self.compositorName], k.command == requested {
            // a suite that asks for that compositor by kind (KWinTests: start-kwin) gets the one named
            chroot = k.chroot
        }
        self.kind = kind
        self.chroot = chroot
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-e2e-\(UUID().uuidString.prefix(8))").path
        var argv = [Repo.path("scripts/compositor"), kind, dir]
        for s in sizes { argv += ["--output", s] }
        argv += extra
        var startEnv = ProcessInfo.processInfo.environment
        startEnv["COMPOSITOR_CHROOT"] = chroot
        let r = Shell.run(argv, env: startEnv, timeout: 60)
        guard r.status == 0 else { throw HarnessError("\(kind) failed: \(r.stderr)") }
        var e = ProcessInfo.processInfo.environment
        var outs: [String] = []
        let text = try String(contentsOfFile: dir + "/env", encoding: .utf8)
        for line in text.split(separator: "\n") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            let key = String(line[..<eq])
            var value = String(line[line.index(after: eq)...])
            if value.hasPrefix("'") && value.hasSuffix("'") { value = String(value.dropFirst().dropLast()) }
            e[key] = value
            if key == "OUTPUTS" { outs = value.split(separator: " ").map(String.init) }
        }
        // Never the user's own state file (a wayloop started with Shell.run writes here).
        e["XDG_STATE_HOME"] = dir + "/state"
        // Never the user's cache, and no fitted copies (a child at work beside what a test
        // measures) unless a test of them asks (FitTests).
        e["XDG_CACHE_HOME"] = dir + "/cache"
        e["WAYLOOP_FIT_MAKER"] = "none"
        // No hand-back of the library pages 20 s into playback (a one-off step of ~20 MB in RSS,
        // and code paths faulting back in after it) under the tests that read RSS for a leak,
        // unless a test of it asks (MemoryPressureTests).
        e["WAYLOOP_COLD_PAGES"] = "off"
        env = e
        outputs = outs
    }

    func stop() { Shell.run([Repo.path("scripts/compositor"), "stop", dir], timeout: 30) }

    func swaymsg(_ args: [String]) -> ShellResult { Shell.run(["swaymsg"] + args, env: env, timeout: 20) }

    /// A screenshot of one output: the compositor's (screencopy or ext-image-copy-capture, as
    /// grim finds), or on KWin, which offers neither, the running wayloop's own picture of it
    /// (`ctl snapshot`, its buffer at buffer size: what it hands the compositor).
    func shot(_ output: String) throws -> Image {
        if isKWin { return try snapshot(output) }
        let file = dir + "/shot-\(output)-\(UUID().uuidString.prefix(6)).ppm"
        let r = Shell.run([Repo.path("scripts/compositor"), "shot", dir, output, file], timeout: 30)
        guard r.status == 0 else { throw HarnessError("screenshot of \(output) failed: \(r.stderr)") }
        defer { try? FileManager.default.removeItem(atPath: file) }
        return try Image(ppm: Data(contentsOf: URL(fileURLWithPath: file)))
    }

    /// How `shot` reads this compositor's outputs, for the tests' lines.
    var shotSource: String { isKWin ? "wayloop's ctl snapshot (KWin offers no screen capture)" : "the compositor (grim)" }

    /// `wayloop ctl snapshot OUTPUT`: the picture the default instance on this display shows there.
    func snapshot(_ output: String) throws -> Image {
        let file = dir + "/snap-\(output)-\(UUID().uuidString.prefix(6)).png"
        let r = Shell.run([Repo.binary, "ctl", "snapshot", output, file], env: env, timeout: 30)
        guard r.status == 0 else { throw HarnessError("ctl snapshot of \(output) failed: \(r.stderr)") }
        defer { try? FileManager.default.removeItem(atPath: file) }
        return try Image(png: file)
    }

    /// A magenta window over the first output: fullscreen, or `maximized` as a user's own window
    /// (tiled on sway, within its gaps; maximized elsewhere).
    func cover(maximized: Bool = false) throws {
        let r = Shell.run([Repo.path("scripts/compositor"), "cover", dir] + (maximized ? ["--maximized"] : []), timeout: 30)
        guard r.status == 0 else { throw HarnessError("cover failed: \(r.stderr)") }
    }

    /// Gaps of `pixels` around tiled windows, where the compositor has them (`hasGaps`: sway).
    var hasGaps: Bool { kind == "start-sway" }
    func gaps(_ pixels: Int) throws {
        let r = Shell.run([Repo.path("scripts/compositor"), "gaps", dir, String(pixels)], timeout: 30)
        guard r.status == 0 else { throw HarnessError("gaps failed: \(r.stderr)") }
    }

    /// The compositor as a reader knows it: `sway 1.12 (sid chroot)`, `sway 1.7`.
    var label: String {
        let n = Compositor.compositorName
        return kind == "start-sway" && n.isEmpty ? "sway 1.7" : n.replacingOccurrences(of: "-", with: " ") + (chroot.map { " (\($0) chroot)" } ?? "")
    }

    func uncover() { Shell.run([Repo.path("scripts/compositor"), "uncover", dir], timeout: 30) }
}

/// A decoded binary PPM (P6, maxval 255).
struct Image {
    let width: Int, height: Int
    let pixels: [UInt8]

    init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A PNG's pixels, read by the ffmpeg CLI (a decoder independent of wayloop's).
    init(png: String) throws {
        let ppm = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-png-\(UUID().uuidString).ppm").path
        defer { try? FileManager.default.removeItem(atPath: ppm) }
        let r = Shell.run(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-i", png, "-f", "image2", "-c:v", "ppm", ppm],
                          timeout: 60)
        guard r.status == 0 else { throw HarnessError("ffmpeg cannot read \(png): \(r.stderr)") }
        try self.init(ppm: try Data(contentsOf: URL(fileURLWithPath: ppm)))
    }

    /// The part of the picture at (x, y), `w` x `h` pixels.
    func cropped(x: Int, y: Int, width w: Int, height h: Int) -> Image {
        var out: [UInt8] = []
        out.reserveCapacity(w * h * 3)
        for row in y..<(y + h) {
            let from = (row * width + x) * 3
            out += pixels[from..<(from + w * 3)]
        }
        return Image(width: w, height: h, pixels: out)
    }

    init(ppm data: Data) throws {
        let bytes = [UInt8](data)
        var fields: [String] = []
        var i = 0
        while fields.count < 4 && i < bytes.count {
            while i < bytes.count && (bytes[i] == 0x20 || bytes[i] == 0x0a || bytes[i] == 0x0d || bytes[i] == 0x09) { i += 1 }
            if i < bytes.count && bytes[i] == UInt8(ascii: "#") {
                while i < bytes.count && bytes[i] != 0x0a { i += 1 }
                continue
            }
            var s = ""
            while i < bytes.count && !(bytes[i] == 0x20 || bytes[i] == 0x0a || bytes[i] == 0x0d || bytes[i] == 0x09) {
                s.append(Character(UnicodeScalar(bytes[i])))
                i += 1
            }
            fields.append(s)
        }
        guard fields.count == 4, fields[0] == "P6", let w = Int(fields[1]), let h = Int(fields[2]), fields[3] == "255" else {
            throw HarnessError("not a P6 PPM: \(fields)")
        }
        i += 1
        guard bytes.count - i >= w * h * 3 else { throw HarnessError("short PPM") }
        width = w
        height = h
        pixels = Array(bytes[i..<(i + w * h * 3)])
    }

    func pixel(_ x: Int, _ y: Int) -> RGB8 {
        let o = (y * width + x) * 3
        return RGB8(pixels[o], pixels[o + 1], pixels[o + 2])
    }
}

struct RGB8: Equatable, CustomStringConvertible {
    var r: UInt8, g: UInt8, b: UInt8
    init(_ r: UInt8, _ g: UInt8, _ b: UInt8) {
        self.r = r
        self.g = g
        self.b = b
    }
    init?(hex: String) {
        guard hex.count == 6, let v = UInt32(hex, radix: 16) else { return nil }
        self.init(UInt8(v >> 16), UInt8((v >> 8) & 255), UInt8(v & 255))
    }
    func close(to o: RGB8, tolerance: Int) -> Bool {
        abs(Int(r) - Int(o.r)) <= tolerance && abs(Int(g) - Int(o.g)) <= tolerance && abs(Int(b) - Int(o.b)) <= tolerance
    }
    var description: String { String(format: "%02x%02x%02x", r, g, b) }
}

/// A running wayloop process; its stderr goes to a file read as it grows.
final class Wayloop: @unchecked Sendable {
    private let child: Child
    private let errFile: String
    /// What it was started with (ctl requests go with the same environment, user and binary).
    let args: [String]
    let env: [String: String]
    let user: String?
    let binary: String
    /// The state directory made for this process (removed with it), when the test named none.
    private let ownStateDir: String?
    /// The last `ctl status --json` a wait saw (or why there was none), for failure messages.
    private(set) var lastStatus = "no status asked for yet"

    /// $WAYLOOP_RENDERER (gl, shm or auto), nil when unset or empty.
    static var rendererFromEnvironment: String? {
        guard let r = ProcessInfo.processInfo.environment["WAYLOOP_RENDERER"], !r.isEmpty else { return nil }
        return r
    }

    /// Starts `binary args` (as `user` through runuser when given). With $WAYLOOP_RENDERER set,
    /// a daemon (not `ctl`) gets `--renderer $WAYLOOP_RENDERER` appended, unless `args` already
    /// name a renderer or `inheritRenderer` is false (tests of the renderer choice itself).
    init(_ args: [String], env: [String: String], user: String? = nil, binary: String = Repo.binary,
         inheritRenderer: Bool = true, stateHome: String? = nil) throws {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw HarnessError("no wayloop binary at \(binary): run `swift build -c release` (or set WAYLOOP_BIN)")
        }
        var args = args
        if inheritRenderer, let r = Self.rendererFromEnvironment, args.first != "ctl",
           !args.contains(where: { $0 == "--renderer" || $0.hasPrefix("--renderer=") }) {
            guard ["gl", "shm", "auto"].contains(r) else {
                throw HarnessError("WAYLOOP_RENDERER is '\(r)': it must be gl, shm or auto")
            }
            args += ["--renderer", r]
        }
        // A state directory of its own unless the test names one (tests of the restore do), so
        // that what one test chose with `ctl set` is never restored in the next.
        var env = env
        if let stateHome {
            env["XDG_STATE_HOME"] = stateHome
            ownStateDir = nil
        } else if args.first != "ctl" {
            let d = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-state-\(UUID().uuidString.prefix(8))").path
            env["XDG_STATE_HOME"] = d
            ownStateDir = d
        } else {
            ownStateDir = nil
        }
        // The machine's own memory pressure (PSI) must not change what a test asserts (under a
        // busy CI machine's pressure a hidden output's video was released and started again
        // from its first frame): a daemon reads a FIFO nobody writes to, unless the test names
        // one of its own (MemoryPressureTests, LibraryTests).
        if args.first != "ctl" && env["WAYLOOP_PRESSURE_FIFO"] == nil { env["WAYLOOP_PRESSURE_FIFO"] = Self.quietPressure }
        self.args = args
        self.env = env
        self.user = user
        self.binary = binary
        errFile = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-err-\(UUID().uuidString)").path
        let argv = (user.map { ["/usr/sbin/runuser", "-u", $0, "--"] } ?? []) + [binary] + args
        guard let c = Child(argv, env: env, stdout: "/dev/null", stderr: errFile) else {
            throw HarnessError("cannot start \(argv)")
        }
        child = c
    }
    /// A FIFO that nobody writes to, readable by every user a test runs wayloop as.
    private static let quietPressure: String = {
        let p = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-e2e-quiet-pressure-\(getpid())").path
        unlink(p)
        mkfifo(p, 0o666)
        chmod(p, 0o666)
        return p
    }()

    deinit {
        if child.isRunning {
            kill(child.pid, SIGKILL)
            _ = child.wait(timeout: 5)
        }
        try? FileManager.default.removeItem(atPath: errFile)
        if let d = ownStateDir { try? FileManager.default.removeItem(atPath: d) }
    }

    var isRunning: Bool { child.isRunning }
    var pid: pid_t { child.pid }
    var stderr: String { (try? String(contentsOfFile: errFile, encoding: .utf8)) ?? "" }
    var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }

    /// Waits until stderr contains `text` (or the process exits, or `timeout` passes). For
    /// messages that are the behaviour under test; states are waited for with `waitForState`.
    @discardableResult
    func waitFor(_ text: String, timeout: Double = 20) -> Bool {
        Wait.until(timeout: timeout) { self.stderr.contains(text) || !self.isRunning } && stderr.contains(text)
    }

    /// `ctl status --json` of this wayloop (same user and binary; `env` defaults to its own).
    func ctlStatus(env: [String: String]? = nil) throws -> [[String: Any]] {
        try Ctl.status(env: env ?? self.env, user: user, binary: binary)
    }

    /// Polls `ctl status --json` every 50 ms (bounded by `timeout`) until `condition` holds for
    /// the whole reply; false at once if the process exits. `lastStatus` keeps the last reply.
    @discardableResult
    func waitForStatus(timeout: Double = 20, env: [String: String]? = nil,
                       _ condition: ([[String: Any]]) throws -> Bool) rethrows -> Bool {
        let end = Date().addingTimeInterval(timeout)
        while true {
            guard isRunning else {
                lastStatus += " (then wayloop exited with \(child.exitStatus.map(String.init) ?? "?"))"
                return false
            }
            var outs: [[String: Any]]?
            do { outs = try ctlStatus(env: env) } catch { lastStatus = "\(error)" }
            if let outs {
                lastStatus = Ctl.describe(outs)
                if try condition(outs) { return true }
            }
            guard Date() < end else {
                lastStatus = "after \(timeout) s: " + lastStatus
                return false
            }
            usleep(50_000)
        }
    }

    /// Waits until `output` is in `state` (with `reason` when given; with `shown`, also once it
    /// has committed at least one picture: frames_shown > 0).
    @discardableResult
    func waitForState(_ output: String, state: String, reason: String? = nil, shown: Bool = false,
                      timeout: Double = 20, env: [String: String]? = nil) -> Bool {
        waitForStates([output], state: state, reason: reason, shown: shown, timeout: timeout, env: env)
    }

    /// `waitForState` for several outputs at once: every one of `outputs` in that state.
    @discardableResult
    func waitForStates(_ outputs: [String], state: String, reason: String? = nil, shown: Bool = false,
                       timeout: Double = 20, env: [String: String]? = nil) -> Bool {
        waitForStatus(timeout: timeout, env: env) { outs in
            outputs.allSatisfy { name in
                guard let o = outs.first(where: { $0["name"] as? String == name }) else { return false }
                return Ctl.matches(o, state: state, reason: reason, shown: shown)
            }
        }
    }

    /// Waits until `output`'s `decoder` field is `value` ("running" or "released"). Throws as
    /// soon as a status of that output has no `decoder` field at all (a binary without it)
    /// rather than waiting out the timeout.
    func waitForDecoder(_ output: String, _ value: String, timeout: Double = 10) throws -> Bool {
        try waitForStatus(timeout: timeout) { outs in
            guard let o = outs.first(where: { $0["name"] as? String == output }) else { return false }
            guard let d = o["decoder"] else {
                throw HarnessError("ctl status --json has no \"decoder\" field for \(output): \(Ctl.describe([o]))")
            }
            return d as? String == value
        }
    }

    /// Sends a signal and waits for the exit; returns the exit status (nil if it hung).
    func stop(signal: Int32 = SIGTERM, timeout: Double = 10) -> Int32? {
        if isRunning { kill(child.pid, signal) }
        return waitExit(timeout: timeout)
    }

    func waitExit(timeout: Double = 20) -> Int32? { child.wait(timeout: timeout) }

    var crashed: Bool { !isRunning && child.signalled }
}

/// A 1 s, 30 fps H.264 clip of one colour, for tests that tell videos apart by a screenshot.
enum SolidClip {
    /// Writes it to `path`; `colour` as ffmpeg takes it (0xRRGGBB), `size` WxH.
    static func make(_ path: String, colour: String, size: String) throws {
        let r = Shell.run(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi",
                           "-i", "color=c=\(colour):s=\(size):r=30:d=1", "-pix_fmt", "yuv420p", "-c:v", "libx264", path],
                          timeout: 60)
        guard r.status == 0 else { throw HarnessError("ffmpeg could not make \(path): \(r.stderr)") }
    }

    /// `make` for a class setUp, which cannot throw: a clip that cannot be made stops the run.
    static func makeAll(_ clips: [(name: String, colour: String)], size: String, in dir: String) {
        for c in clips {
            do { try make(dir + "/\(c.name).mp4", colour: c.colour, size: size) } catch { preconditionFailure("\(error)") }
        }
    }
}

/// `wayloop ctl` as a client of a running instance.
enum Ctl {
    /// The control socket of the instance (`--name NAME`, or the default one) on `env`'s display.
    static func socketPath(env: [String: String], name: String? = nil) -> String {
        "\(env["XDG_RUNTIME_DIR"] ?? "")/wayloop-\(name.map { $0 + "-" } ?? "")\(env["WAYLAND_DISPLAY"] ?? "").sock"
    }

    /// `ctl status --json`, decoded: one dictionary per output (the reply is
    /// `{"ok":true,"outputs":[{...},...]}`). Throws on any other exit or shape.
    static func status(env: [String: String], user: String? = nil, binary: String = Repo.binary) throws -> [[String: Any]] {
        guard let outs = try statusReply(env: env, user: user, binary: binary)["outputs"] as? [[String: Any]] else {
            throw HarnessError("ctl status --json: no outputs")
        }
        return outs
    }

    /// The whole `ctl status --json` reply (`outputs`, `recent`, `version`).
    static func statusReply(env: [String: String], user: String? = nil, binary: String = Repo.binary) throws -> [String: Any] {
        let argv = (user.map { ["/usr/sbin/runuser", "-u", $0, "--"] } ?? []) + [binary, "ctl", "status", "--json"]
        let r = Shell.run(argv, env: env, timeout: 10)
        guard r.status == 0 else {
            throw HarnessError("ctl status --json exited \(r.status): \(r.stderr.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        guard let obj = try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any],
              obj["ok"] as? Bool == true, obj["outputs"] is [[String: Any]] else {
            throw HarnessError("ctl status --json: not {\"ok\":true,\"outputs\":[...]}: \(r.stdout)")
        }
        return obj
    }

    static func matches(_ o: [String: Any], state: String, reason: String?, shown: Bool) -> Bool {
        guard o["state"] as? String == state else { return false }
        if let reason, o["reason"] as? String != reason { return false }
        if shown, (o["frames_shown"] as? Int ?? 0) <= 0 { return false }
        return true
    }

    /// The outputs as compact JSON, for messages.
    static func describe(_ outs: [[String: Any]]) -> String {
        guard let d = try? JSONSerialization.data(withJSONObject: outs, options: [.sortedKeys]) else { return "\(outs)" }
        return String(decoding: d, as: UTF8.self)
    }
}

/// Reads a --trace-frames file: `output pass index media-ns commit-ns presented-ns` per line.
enum TraceFile {
    struct Record {
        var output: String
        var pass: Int, index: Int
        var media: Int64, commit: Int64, presented: Int64
        /// How long wayloop's threads had waited for a CPU in all by the commit (0 in a trace
        /// without that field).
        var waited: Int64 = 0
        /// FrameTraceLine.videoTag of the committed picture's video, and its weight in a fade
        /// (nil, 1: a trace without those fields).
        var video: String?
        var weight: Double = 1
    }

    static func records(_ path: String) -> [Record] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: " ")
            guard [6, 7, 9].contains(f.count), let p = Int(f[1]), let i = Int(f[2]), let m = Int64(f[3]), let c = Int64(f[4]),
                  let t = Int64(f[5]) else { return nil }
            return Record(output: String(f[0]), pass: p, index: i, media: m, commit: c, presented: t,
                          waited: f.count >= 7 ? Int64(f[6]) ?? 0 : 0, video: f.count == 9 ? String(f[7]) : nil,
                          weight: f.count == 9 ? Double(f[8]) ?? 1 : 1)
        }
    }

    static func maxPass(_ path: String) -> Int { records(path).map(\.pass).max() ?? -1 }
}

/// WayLoop's own pacing in a frame trace, told apart from the compositor's and the machine's.
///
/// WayLoop commits a frame once it is due on its clock and the compositor has released the
/// commit before it (its frame callback). For each commit the trace has the frame's media time,
/// `commit` (the draw pass's time: when WayLoop decided, before it drew) and `presented` (when
/// the compositor released it: the frame callback's arrival where the compositor does not answer
/// wp_presentation, as headless sway 1.7; otherwise the presentation time, about then). How long
/// the compositor takes (presented − commit, its latency) is the compositor's and the machine's
/// load's: it is reported, never asserted. What WayLoop decides is when each frame is due: its
/// media time on a clock that starts at the first frame's commit and moves only where WayLoop
/// re-anchors it: at the first frame's presentation when that came after the frame's whole
/// duration (Clip.firstFramePresented), and at a draw that finds the frame on screen overstayed
/// by more than PlaybackClock.stallTolerance (the compositor held it back). `Pacing` follows that
/// clock through one output's trace as an interval [lo, hi] for each frame's due time (one point,
/// but where the trace cannot tell whether a re-anchor happened), and for each hold a → b says:
///   - `early`: lo(b) − b.commit, how long before b could have been due it was committed (≤ 0
///     when WayLoop is right: it never takes a frame before its time);
///   - `late`: b.commit − max(hi(b), a.presented), how long after b was due and the compositor
///     had released a WayLoop took to commit b: its own delay (waking up, its own work), less
///     the time wayloop's threads waited for a CPU in between (the trace's `waited`, summed over
///     its threads: an upper bound of what the machine's load took);
///   - `forced`: the compositor released a only when b may already have been due, so frames
///     left out between a and b were skipped because it held WayLoop back, not by WayLoop.
/// A new clock (a video's first frame: index 0 of pass 0, or media time going back) starts
/// over, and a frame committed again (a fade's step, a redraw) has no due time of its own: for
/// those holds (`newClock`, `redraw`) `late` is counted from the later of a's commit and
/// presentation. For a trace of one output whose videos no other output shows (another
/// output's draws move a shared clip's clock) and that each start from their first frame.
struct Pacing {
    struct Hold {
        let a: TraceFile.Record, b: TraceFile.Record
        /// Media time from a to b.
        let delay: Int64
        let newClock: Bool
        /// b is a again (a fade's step, a redraw): no due time of its own.
        let redraw: Bool
        /// When b was due (a point, or the range the trace leaves open).
        let dueLo: Int64, dueHi: Int64
        let early: Int64, late: Int64
        let forced: Bool
        /// The compositor released a after b was due.
        var heldBack: Bool { !newClock && !redraw && a.presented > dueHi }
        /// The compositor's latency (presented − commit) of a and of b, and how much it changed.
        var latencies: (Int64, Int64) { (a.presented - a.commit, b.presented - b.commit) }
        var latencyChange: Int64 { abs(latencies.1 - latencies.0) }
        var label: String { "\(a.pass).\(a.index) → \(b.pass).\(b.index)" }
    }

    let holds: [Hold]

    /// How late WayLoop may commit and still count as prompt: one refresh of sway's 60 Hz
    /// headless outputs (a presentation time may come up to one before its frame callback) and
    /// 3 ms for its own wake-up.
    static let tolerance: Int64 = 16_666_667 + 3_000_000

    /// How long wayloop's threads waited for a CPU between a's commit and b's (the trace's
    /// `waited` field): time the machine's load took, which `late` does not count as WayLoop's.
    static func starved(_ a: TraceFile.Record, _ b: TraceFile.Record) -> Int64 { max(0, b.waited - a.waited) }

    /// `records` of one output in commit order; `tolerance` is how late WayLoop may react and
    /// still count as prompt (it decides `forced`).
    init(_ records: [TraceFile.Record], tolerance: Int64, stall: Int64 = 250_000_000) {
        var out: [Hold] = []
        // The due time of the frame last committed, and the frame that started the clock (until
        // the clock has passed its first presentation).
        var start = records.first
        var lo = start?.commit ?? 0, hi = lo
        for (a, b) in zip(records, records.dropFirst()) {
            let delay = b.media - a.media
            if delay == 0 && b.pass == a.pass && b.index == a.index {
                // The same frame again (a fade's step, a redraw): the clock goes on.
                out.append(Hold(a: a, b: b, delay: 0, newClock: false, redraw: true, dueLo: lo, dueHi: hi, early: 0,
                                late: b.commit - max(a.commit, a.presented) - Pacing.starved(a, b), forced: false))
                continue
            }
            if delay <= 0 || (b.pass == 0 && b.index == 0) {
                out.append(Hold(a: a, b: b, delay: delay, newClock: true, redraw: false, dueLo: b.commit, dueHi: b.commit, early: 0,
                                late: b.commit - max(a.commit, a.presented) - Pacing.starved(a, b), forced: false))
                (lo, hi) = (b.commit, b.commit)
                start = b
                continue
            }
            let successor = b.pass == a.pass && b.index == a.index + 1
            if let s = start {
                // The clock's first frame presented after its whole duration: the clock
                // re-anchors there (known exactly when b is its successor, whose media time ends
                // that duration).
                if b.pass == s.pass && b.index == s.index + 1 {
                    if s.presented > s.commit + (b.media - s.media) { (lo, hi) = (s.presented, s.presented) }
                } else {
                    hi = max(hi, s.presented)
                }
                start = nil
            }
            lo += delay
            hi += delay
            out.append(Hold(a: a, b: b, delay: delay, newClock: false, redraw: false, dueLo: lo, dueHi: hi, early: lo - b.commit,
                            late: b.commit - max(hi, a.presented) - Pacing.starved(a, b), forced: a.presented >= lo - tolerance))
            // The draw that committed b re-anchored the clock if b (the frame after a) was
            // overdue by more than `stall` then: b was due at that draw.
            if b.commit > lo + stall {
                if successor && b.commit > hi + stall { (lo, hi) = (b.commit, b.commit) } else { hi = max(hi, b.commit) }
            }
            // b was committed, so it was due by then.
            hi = min(hi, b.commit)
            lo = min(lo, hi)
        }
        holds = out
    }

    /// The compositor's latency over the trace: the largest, and the largest change from one
    /// commit to the next, in ms (for the report).
    var latencyReport: String {
        let most = holds.map { max($0.latencies.0, $0.latencies.1) }.max() ?? 0
        let change = holds.map(\.latencyChange).max() ?? 0
        return "the compositor's latency (presented − commit) up to \(most / 1_000_000) ms, changing by up to \(change / 1_000_000) ms "
            + "between commits (in \(holds.filter(\.heldBack).count) of \(holds.count) holds it released a frame after the next was due)"
    }
}

enum Proc {
    /// VmRSS less RssShmem (the wl_shm buffers shared with the compositor) in kB, or -1.
    static func privateKB(_ pid: pid_t) -> Int {
        (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)).flatMap(ProcStatus.privateKB) ?? -1
    }

    /// RssAnon in kB (the heap and anonymous mappings), or -1.
    static func anonKB(_ pid: pid_t) -> Int {
        (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)).flatMap(ProcStatus.anonKB) ?? -1
    }

    /// RssAnon + RssShmem in kB (what the process made, its wl_shm buffers included; not the
    /// library pages, which come and go with the page cache), or -1.
    static func ownKB(_ pid: pid_t) -> Int {
        (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)).flatMap(ProcStatus.ownKB) ?? -1
    }

    /// Resident set size of a process in kB (VmRSS), or -1.
    static func rssKB(_ pid: pid_t) -> Int {
        guard let s = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return -1 }
        for line in s.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? -1
        }
        return -1
    }
}

extension Proc {
    /// µs in which some runnable task waited for a CPU since boot (/proc/pressure/cpu), or -1.
    static func cpuPressureMicros() -> Int {
        (try? String(contentsOfFile: "/proc/pressure/cpu", encoding: .utf8)).flatMap(ProcCPU.pressureSomeMicros) ?? -1
    }

    /// ns each thread of `pid` now alive has spent waiting on a run queue, by thread id (a
    /// thread's count ends with it: compare two readings thread by thread).
    static func runQueueWaitNanos(_ pid: pid_t) -> [String: Int] {
        guard let tids = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return [:] }
        var out: [String: Int] = [:]
        for tid in tids {
            out[tid] = (try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/schedstat", encoding: .utf8)).flatMap(ProcCPU.runQueueWaitNanos)
        }
        return out
    }

    /// ns the process's main thread has run on a CPU (the first field of its schedstat), or -1:
    /// what wayloop's own work costs, however long the machine's load kept it waiting.
    static func mainThreadCPUNanos(_ pid: pid_t) -> Int64 {
        guard let s = try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/schedstat", encoding: .utf8),
              let f = s.split(separator: " ").first, let ns = Int64(f) else { return -1 }
        return ns
    }

    /// Clock ticks the machine's CPUs were busy and in all since boot, and how many CPUs
    /// (/proc/stat), or nil.
    static func machineTicks() -> (busy: Int, all: Int, cpus: Int)? {
        (try? String(contentsOfFile: "/proc/stat", encoding: .utf8)).flatMap(ProcCPU.ticks)
    }
}

extension Proc {
    static let ticksPerSecond = Int(sysconf(Int32(_SC_CLK_TCK)))

    /// utime + stime of a process, in clock ticks (/proc/PID/stat fields 14 and 15).
    static func cpuTicks(_ pid: pid_t) -> Int {
        guard let s = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = s.lastIndex(of: ")") else { return -1 }
        let f = s[s.index(after: close)...].split(separator: " ")
        // After the command name: state is field 3, so utime (14) is index 11 here.
        guard f.count > 12, let u = Int(f[11]), let k = Int(f[12]) else { return -1 }
        return u + k
    }

    /// The processes whose parent is `pid` (from /proc/N/stat).
    static func children(of pid: pid_t) -> [pid_t] {
        let all = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return all.compactMap { pid_t($0) }.filter { p in
            guard let stat = try? String(contentsOfFile: "/proc/\(p)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            // pid (comm) state ppid …: comm may hold spaces and parentheses.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == pid
        }.sorted()
    }

    static func monotonicNanos() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}

/// A Unix socket where a compositor's would be that accepts and then never answers ("silent")
/// or answers random bytes ("garbage"): start-up must give up on it. It touches PATH.conn at
/// each connection. Stopped (killed, files removed) by `stop`.
final class FakeWayland {
    let path: String
    private let child: Child

    static func start(path: String, mode: String) throws -> FakeWayland { try FakeWayland(path: path, mode: mode) }

    private init(path: String, mode: String) throws {
        self.path = path
        let server = #"""
        import socket, sys, os, time
        path, mode = sys.argv[1], sys.argv[2]
        try: os.unlink(path)
        except FileNotFoundError: pass
        s = socket.socket(socket.AF_UNIX); s.bind(path); s.listen(16)
        open(path + ".ready", "w").close()
        conns = []
        s.settimeout(0.5)
        end = time.time() + 600
        while time.time() < end:
            try:
                c, _ = s.accept(); conns.append(c)
                open(path + ".conn", "w").close()
                if mode == "garbage": c.sendall(os.urandom(4096))
            except socket.timeout: pass
        """#
        guard let c = Child(["/usr/bin/python3", "-c", server, path, mode], env: ProcessInfo.processInfo.environment,
                            stdout: "/dev/null", stderr: "/dev/null") else { throw HarnessError("cannot start the \(mode) socket") }
        child = c
        guard Wait.until(timeout: 10, { FileManager.default.fileExists(atPath: path + ".ready") }) else {
            stop()
            throw HarnessError("the \(mode) socket at \(path) did not start")
        }
    }

    var connected: Bool { FileManager.default.fileExists(atPath: path + ".conn") }

    func stop() {
        kill(child.pid, SIGKILL)
        _ = child.wait(timeout: 5)
        for p in [path, path + ".ready", path + ".conn"] { unlink(p) }
    }
}

/// A fake /sys/class/power_supply tree ($WAYLOOP_POWER_SUPPLY_DIR): a discharging battery and
/// mains offline, until `mains(online: true)`. Removed when it goes.
final class FakePower {
    let dir: String

    init(tag: String) throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-power-\(tag)-\(getpid())").path
        try? FileManager.default.removeItem(atPath: dir)
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/BAT0", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: dir + "/AC", withIntermediateDirectories: true)
        try "Battery\n".write(toFile: dir + "/BAT0/type", atomically: true, encoding: .utf8)
        try "Discharging\n".write(toFile: dir + "/BAT0/status", atomically: true, encoding: .utf8)
        try "Mains\n".write(toFile: dir + "/AC/type", atomically: true, encoding: .utf8)
        try mains(online: false)
    }

    func mains(online: Bool) throws {
        try (online ? "1\n" : "0\n").write(toFile: dir + "/AC/online", atomically: true, encoding: .utf8)
    }

    deinit { try? FileManager.default.removeItem(atPath: dir) }
}

extension Ctl {
    /// The frames an output's video has decoded so far (its `costs.decoded` in ctl status);
    /// nil when the status does not say.
    static func decoded(_ output: [String: Any]?) -> Int? {
        (output?["costs"] as? [String: Any])?["decoded"] as? Int
    }
}

extension Wayloop {
    /// The output's frames converted and presented so far (`ctl status`'s costs; nil: no answer).
    func frameCounts(_ output: String) -> (converted: Int, presented: Int)? {
        guard let outs = try? ctlStatus(), let o = outs.first(where: { $0["name"] as? String == output }),
              let costs = o["costs"] as? [String: Any] else { return nil }
        return (costs["converted"] as? Int ?? -1, costs["presented"] as? Int ?? -1)
    }

    /// Checks that a paused output draws nothing: after half a second to settle, no frame
    /// converted or presented over two seconds. `why`: what paused it, for the failure lines.
    func assertDrawsNothing(_ output: String, while why: String, file: StaticString = #filePath, line: UInt = #line) {
        usleep(500_000)
        let before = frameCounts(output)
        usleep(2_000_000)
        let after = frameCounts(output)
        XCTAssertNotNil(before, "no costs in the status of \(output): \(lastStatus)", file: file, line: line)
        XCTAssertEqual(before?.converted, after?.converted, "frames converted \(why)", file: file, line: line)
        XCTAssertEqual(before?.presented, after?.presented, "frames presented \(why)", file: file, line: line)
    }
}

/// A directory a test user can reach, for a process of that user's (a checkout under a 0700
/// directory, mktemp's or /root, is out of its reach): DIR/bin/wayloop, a copy of the binary under
/// test, and the subdirectories asked for. `chown` to the user once everything is in it.
enum UserWorld {
    static func make(_ base: String, subdirectories: [String]) throws -> (base: String, binary: String) {
        let fm = FileManager.default
        for d in ["bin"] + subdirectories {
            try fm.createDirectory(atPath: base + "/" + d, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        }
        guard fm.isExecutableFile(atPath: Repo.binary) else {
            throw HarnessError("no wayloop binary at \(Repo.binary): run `swift build -c release` (or set WAYLOOP_BIN)")
        }
        try fm.copyItem(atPath: Repo.binary, toPath: base + "/bin/wayloop")
        return (base, base + "/bin/wayloop")
    }

    /// Runs FUNCTION of scripts/compositors/chroot.sh (chroot_quickshell, chroot_locker) for the
    /// chroot compositor in `dir` and `binary`: the wrappers it writes under DIR/tools.
    static func prepareChroot(_ function: String, dir: String, binary: String, env: [String: String]) throws {
        let lib = Repo.path("scripts/compositors")
        let r = Shell.run(["bash", "-c", ". \"$1/lib.sh\"; . \"$1/chroot.sh\"; \(function) \"$2\" \"$3\"", "bash", lib, dir, binary],
                          env: env, timeout: 60)
        guard r.status == 0 else { throw HarnessError("\(function) failed: \(r.stderr)") }
    }

    static func chown(_ base: String, to user: String) throws {
        let r = Shell.run(["chown", "-R", "\(user):\(user)", base], timeout: 30)
        guard r.status == 0 else { throw HarnessError("chown \(base) to \(user): \(r.stderr)") }
    }
}
