// The man pages (docs/man/*.scd) and the shell completions (completions/) against the real
// binary: the pages build with scdoc and render without a groff warning, their option lists
// agree with `wayloop --help`, every settings key is documented, and bash, zsh and fish load
// the completions and complete modes, ctl commands, options and (from a fake control socket)
// output names. No compositor; scdoc, groff, man, bash, zsh, fish and python3 must be there.
import Foundation
import WayLoopTestSupport
import XCTest

final class DocsTests: XCTestCase {
    static let pages = ["docs/man/wayloop.1.scd", "docs/man/wayloop-ctl.1.scd", "docs/man/wayloop.5.scd"]
    static let modes: Set<String> = ["fill", "fit", "stretch", "center", "tile", "span", "span-fit"]
    static let ctlCommands: Set<String> = ["status", "pause", "resume", "toggle", "next", "prev", "set", "forget", "snapshot", "reload", "quit", "subscribe"]
    /// What `wayloop ctl set OUTPUT -<TAB>` offers.
    static let ctlSetOptions: Set<String> = ["-w", "--workspace", "-m", "--mode", "-c", "--color", "--dim", "-f", "--fallback",
                                             "--transition", "--interval", "--loops", "--shuffle", "--no-shuffle", "--max-fps", "--battery-fps", "--scaling",
                                             "--hwdec", "--hwdec-device", "--fit", "--pause-when", "--pause-ignore"]
    static let hwdecModes: Set<String> = ["auto", "no", "vaapi", "vaapi-copy", "nvdec-copy"]
    /// What `--pause-when <TAB>` offers: `never` and the rules.
    static let pauseRules: Set<String> = ["hidden", "fullscreen", "fullscreen-anywhere", "maximized", "any-window", "never"]
    /// The subcommands `wayloop <TAB>` offers besides videos.
    static let subcommands: Set<String> = ["ctl", "thumbnail", "decode", "prepare", "list"]

    private var scratch = ""

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-docs-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: scratch)
    }

    // MARK: helpers

    private func read(_ relative: String) throws -> String {
        try String(contentsOfFile: Repo.path(relative), encoding: .utf8)
    }

    /// The text of `# NAME` up to the next top-level heading of an scdoc page.
    private func section(_ name: String, of text: String) -> String {
        let lines = text.components(separatedBy: "\n")
        guard let start = lines.firstIndex(of: "# \(name)") else { return "" }
        let rest = lines[(start + 1)...]
        let end = rest.firstIndex { $0.hasPrefix("# ") } ?? lines.endIndex
        return lines[(start + 1)..<end].joined(separator: "\n")
    }

    private func matches(_ pattern: String, in text: String, group: Int = 0) -> [String] {
        let re = try! NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines])
        return re.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: group), in: text).map { String(text[$0]) }
        }
    }

    /// The environment for the completions: the binary under test first on PATH, and a runtime
    /// directory of our own, so `wayloop ctl status` finds no instance (or our fake one).
    private func completionEnv() -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        let bin = URL(fileURLWithPath: Repo.binary).deletingLastPathComponent().path
        env["PATH"] = bin + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        env["XDG_RUNTIME_DIR"] = scratch
        env["WAYLAND_DISPLAY"] = "wayland-docs"
        env["XDG_DATA_HOME"] = scratch + "/data"
        env["XDG_DATA_DIRS"] = scratch + "/nodata"
        env["HOME"] = scratch
        env["TERM"] = "dumb"
        return env
    }

    /// `wayloop --help`: its long and short options (from the Options: block) and its ctl commands.
    private func help() throws -> (options: Set<String>, ctl: Set<String>) {
        let r = Shell.run([Repo.binary, "--help"], timeout: 10)
        XCTAssertEqual(r.status, 0, "wayloop --help: \(r.stderr)")
        let text = r.stdout
        guard let optStart = text.range(of: "\nOptions:\n") else { throw HarnessError("no Options: in --help") }
        let block = String(text[optStart.upperBound...]).components(separatedBy: "\n\n")[0]
        var options = Set<String>()
        for line in block.components(separatedBy: "\n") {
            // "  -o, --output NAME  ..." or "      --dim F  ..." (continuation lines start deeper).
            guard let m = matches(#"^ {2,6}((-[A-Za-z]), )?(--[a-z][a-z-]*)"#, in: line).first else { continue }
            options.formUnion(matches(#"--?[A-Za-z][a-z-]*"#, in: m))
        }
        // The usage lines of ctl: "wayloop ctl status [--json] | pause|resume|toggle [OUTPUT] | ..."
        // and the continuation line(s) that start with "|".
        var usage = ""
        var inCtl = false
        for line in text.components(separatedBy: "\n") {
            let t = line.trimmingCharacters(in: .whitespaces)
            if t.hasPrefix("wayloop ctl ") { inCtl = true; usage += " " + t.dropFirst("wayloop ctl ".count) }
            else if inCtl && t.hasPrefix("|") { usage += " " + t }
            else if inCtl { break }
        }
        let words = usage.replacingOccurrences(of: #"\[[^\]]*\]"#, with: " ", options: .regularExpression)
            .components(separatedBy: CharacterSet(charactersIn: " |"))
        let ctl = Set(words.filter { !$0.isEmpty && $0.allSatisfy { $0.isLowercase && $0.isLetter } })
        return (options, ctl)
    }

    /// The options of `wayloop SUB` (thumbnail, decode) from the usage line the binary prints when
    /// SUB has no arguments, with the long forms of -m and -c that the completions offer too.
    private func subcommandOptions(_ sub: String) -> Set<String> {
        let r = Shell.run([Repo.binary, sub], timeout: 10)
        XCTAssertEqual(r.status, 2, "wayloop \(sub) with no arguments: \(r.stderr)")
        guard let usage = matches(#"\((\#(sub) VIDEO[^)]*)\)"#, in: r.stderr, group: 1).first else {
            XCTFail("no usage line in `wayloop \(sub)`: \(r.stderr)")
            return []
        }
        var options = Set(matches(#"\[(--?[A-Za-z][a-z-]*)"#, in: usage, group: 1))
        if options.contains("-m") { options.insert("--mode") }
        if options.contains("-c") { options.insert("--color") }
        return options
    }

    /// The values `--hwdec` takes, from the binary's own complaint about a bad one.
    private func hwdecModes() -> Set<String> {
        let r = Shell.run([Repo.binary, "decode", "x.mp4", "--hwdec", "bogus"], timeout: 10)
        let list = matches(#"is not one of ([a-z, -]*[a-z])"#, in: r.stderr, group: 1).first ?? ""
        let modes = Set(list.components(separatedBy: ", ").filter { !$0.isEmpty })
        XCTAssertEqual(modes, Self.hwdecModes, "the --hwdec values the binary lists: \(r.stderr)")
        return modes
    }

    /// The words `--pause-when` takes, from the binary's own complaint about a bad one.
    private func pauseRules() -> Set<String> {
        var env = ProcessInfo.processInfo.environment
        env["XDG_RUNTIME_DIR"] = scratch
        env["WAYLAND_DISPLAY"] = "wayland-docs"
        let r = Shell.run([Repo.binary, "--no-config", "--pause-when", "bogus", scratch + "/x.mp4"], env: env, timeout: 20)
        XCTAssertEqual(r.status, 2, "a bad --pause-when: \(r.stderr)")
        let list = matches(#"is not (never), or one or more of ([a-z, -]*[a-z]), separated by commas"#, in: r.stderr, group: 2).first ?? ""
        let rules = Set(list.components(separatedBy: ", ").filter { !$0.isEmpty }).union(list.isEmpty ? [] : ["never"])
        XCTAssertEqual(rules, Self.pauseRules, "the --pause-when values the binary lists: \(r.stderr)")
        return rules
    }

    // MARK: (a) the pages build and render

    func testManPagesBuildWithScdocAndRenderWithoutWarnings() throws {
        for page in Self.pages {
            let out = scratch + "/" + URL(fileURLWithPath: page).deletingPathExtension().lastPathComponent
            let built = Shell.run(["sh", "-c", "scdoc < \"$1\" > \"$2\"", "sh", Repo.path(page), out], timeout: 30)
            XCTAssertEqual(built.status, 0, "scdoc \(page): \(built.stderr)")
            XCTAssertEqual(built.stderr, "", "scdoc \(page) said something")
            let roff = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
            XCTAssertTrue(roff.contains(".SH NAME"), "\(page): no NAME section in scdoc's output")

            // groff with every warning (-ww), tbl for scdoc's tables (-t), no output (-z).
            let groff = Shell.run(["groff", "-t", "-ww", "-z", "-man", out], timeout: 30)
            XCTAssertEqual(groff.status, 0, "groff \(page): \(groff.stderr)")
            XCTAssertEqual(groff.stderr, "", "groff warns about \(page)")

            // man-db 2.11: --warnings=all is passed on to groff as -wall.
            var env = ProcessInfo.processInfo.environment
            env["MANWIDTH"] = "80"
            env["MANPAGER"] = "cat"
            env["PAGER"] = "cat"
            env["MANROFFSEQ"] = ""
            let man = Shell.run(["man", "--warnings=all", "-l", out], env: env, timeout: 30)
            XCTAssertEqual(man.status, 0, "man -l \(page): \(man.stderr)")
            XCTAssertEqual(man.stderr, "", "man --warnings=all warns about \(page)")
            XCTAssertTrue(man.stdout.contains("NAME"), "man -l \(page) rendered nothing")
            for heading in ["SYNOPSIS", "DESCRIPTION", "SEE ALSO"] {
                XCTAssertTrue(man.stdout.contains(heading), "\(page) has no \(heading)")
            }
        }
        let one = try read("docs/man/wayloop.1.scd")
        for heading in ["OPTIONS", "MODES", "EXIT STATUS", "SIGNALS", "FILES", "ENVIRONMENT", "EXAMPLES"] {
            XCTAssertFalse(section(heading, of: one).isEmpty, "wayloop.1 has no \(heading)")
        }
        XCTAssertFalse(section("EXIT STATUS", of: try read("docs/man/wayloop-ctl.1.scd")).isEmpty)
    }

    // MARK: (b) the pages agree with --help and the settings table

    func testOptionsOfWayloop1AgreeWithHelp() throws {
        let helpOptions = try help().options
        XCTAssertGreaterThan(helpOptions.count, 20, "parsed too few options from --help: \(helpOptions.sorted())")
        XCTAssertTrue(helpOptions.isSuperset(of: ["--mode", "-m", "--no-fullscreen-pause", "--version", "-V"]))

        // Each option entry of OPTIONS is a line "*-o, --output* _NAME_" (its text indented by a tab).
        let options = section("OPTIONS", of: try read("docs/man/wayloop.1.scd"))
        var documented = Set<String>()
        for header in matches(#"^\*(-[^*]+)\*"#, in: options, group: 1) {
            documented.formUnion(matches(#"--?[A-Za-z][a-z-]*"#, in: header))
        }
        XCTAssertGreaterThan(documented.count, 20, "parsed too few options from wayloop.1: \(documented.sorted())")
        XCTAssertEqual(helpOptions.subtracting(documented).sorted(), [], "in --help, not in wayloop.1's OPTIONS")
        XCTAssertEqual(documented.subtracting(helpOptions).sorted(), [], "in wayloop.1's OPTIONS, not in --help")

        for mode in Self.modes {
            XCTAssertTrue(section("MODES", of: try read("docs/man/wayloop.1.scd")).contains("*\(mode)*"), "MODES lacks \(mode)")
        }
    }

    func testEveryCtlCommandOfHelpIsInWayloopCtl1() throws {
        let ctl = try help().ctl
        XCTAssertEqual(ctl, Self.ctlCommands, "the ctl commands parsed from --help's usage line")
        let page = try read("docs/man/wayloop-ctl.1.scd")
        let commands = section("COMMANDS", of: page)
        let synopsis = section("SYNOPSIS", of: page)
        for c in ctl {
            XCTAssertTrue(commands.contains("*\(c)*"), "wayloop-ctl.1 COMMANDS lacks \(c)")
            XCTAssertTrue(synopsis.contains("*\(c)*") || synopsis.contains("*wayloop ctl \(c)*"), "wayloop-ctl.1 SYNOPSIS lacks \(c)")
        }
        for flag in ["--json", "--waybar"] { XCTAssertTrue(commands.contains("*\(flag)*"), "COMMANDS lacks \(flag)") }
        for code in ["0", "1", "2", "3"] {
            XCTAssertTrue(section("EXIT STATUS", of: page).contains("*\(code)*"), "ctl EXIT STATUS lacks \(code)")
        }
    }

    func testEverySettingsKeyIsInWayloop5() throws {
        // The binary's own list: an unknown key is rejected with every key it knows.
        let config = scratch + "/config"
        try "no-such-key = 1\n".write(toFile: config, atomically: true, encoding: .utf8)
        var env = ProcessInfo.processInfo.environment
        env["XDG_RUNTIME_DIR"] = scratch
        env["WAYLAND_DISPLAY"] = "wayland-docs"
        let r = Shell.run([Repo.binary, "--config", config, scratch + "/x.mp4"], env: env, timeout: 20)
        XCTAssertEqual(r.status, 2, "a bad config key: \(r.stderr)")
        let listed = matches(#"unknown key 'no-such-key' \(([^)]*)\)"#, in: r.stderr, group: 1).first ?? ""
        var keys = Set(listed.components(separatedBy: ", ").filter { !$0.isEmpty })
        XCTAssertTrue(keys.isSuperset(of: ["video", "renderer", "mode"]), "the keys the binary lists: \(r.stderr)")

        // And the settings table itself, with its aliases (`colour`).
        let settings = try read("Sources/WayLoopCore/Settings/Settings.swift")
        let table = matches(#"EntrySetting\("([a-z-]+)""#, in: settings, group: 1)
        XCTAssertGreaterThanOrEqual(table.count, 6, "parsed too few settings from Settings.swift")
        keys.formUnion(table)
        for aliases in matches(#"aliases: \[([^\]]*)\]"#, in: settings, group: 1) {
            keys.formUnion(matches(#""([a-z-]+)""#, in: aliases, group: 1))
        }
        XCTAssertTrue(keys.contains("colour"))

        let page = try read("docs/man/wayloop.5.scd")
        let section = self.section("KEYS", of: page)
        for key in keys.sorted() {
            // A key with a placeholder (`workspace NAME`) is written `*workspace* _NAME_`.
            let words = key.split(separator: " ")
            let written = words.count == 2 ? "*\(words[0])* _\(words[1])_" : "*\(key)*"
            XCTAssertTrue(section.contains(written), "wayloop.5 KEYS lacks \(key) (as \(written))")
        }
        XCTAssertTrue(page.contains("$XDG_CONFIG_HOME/wayloop/config"))
        XCTAssertTrue(page.contains("[output"))
    }

    // MARK: (c) completions

    /// A stand-in for a running wayloop: answers every request on the control socket with a
    /// status of two outputs, so the completions' output names can be checked without one.
    private func fakeInstance() throws -> Child {
        let script = """
        import socket, sys, os
        path = sys.argv[1]
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(path); s.listen(8)
        reply = b'{"ok":true,"version":1,"outputs":[{"name":"DP-7","description":"Acme Screen 1","video":null,"mode":null,"state":"idle","reason":null,"position":null,"frames_shown":0,"frames_dropped":0},{"name":"HDMI-A-3","description":"","video":null,"mode":null,"state":"idle","reason":null,"position":null,"frames_shown":0,"frames_dropped":0}]}\\n'
        while True:
            c, _ = s.accept()
            try:
                c.settimeout(5); c.recv(65536); c.sendall(reply)
            except Exception:
                pass
            c.close()
        """
        let sock = scratch + "/wayloop-wayland-docs.sock"
        guard let child = Child(["/usr/bin/env", "python3", "-c", script, sock], env: ProcessInfo.processInfo.environment,
                                stdout: scratch + "/fake.out", stderr: scratch + "/fake.err") else {
            throw HarnessError("cannot start python3")
        }
        XCTAssertTrue(Wait.until(timeout: 10) { FileManager.default.fileExists(atPath: sock) }, "the fake control socket")
        return child
    }

    private func stop(_ child: Child) {
        kill(child.pid, SIGTERM)
        _ = child.wait(timeout: 5)
        try? FileManager.default.removeItem(atPath: scratch + "/wayloop-wayland-docs.sock")
    }

    /// Runs the bash completion for each command line (the word under the cursor last, maybe
    /// empty) and returns the candidates of each, one line of words per call.
    private func bash(_ lines: [[String]], extra: String = "") -> ShellResult {
        var script = """
        source "$1" || exit 9
        complete -p wayloop
        t() { COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
              COMPREPLY=(); _wayloop; printf 'R:%s\\n' "${COMPREPLY[*]}"; }

        """
        for words in lines { script += "t " + words.map { "'\($0)'" }.joined(separator: " ") + "\n" }
        script += extra
        return Shell.run(["bash", "--norc", "--noprofile", "-c", script, "bash", Repo.path("completions/wayloop.bash")],
                         env: completionEnv(), timeout: 30)
    }

    private func replies(_ r: ShellResult) -> [Set<String>] {
        r.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("R:") }
            .map { Set($0.dropFirst(2).components(separatedBy: " ").filter { !$0.isEmpty }) }
    }

    func testBashCompletion() throws {
        let r = bash([["wayloop", "-m", ""], ["wayloop", "ctl", ""], ["wayloop", "--renderer", ""],
                      ["wayloop", "--log-level", ""], ["wayloop", "-"], ["wayloop", "ctl", "status", "-"],
                      ["wayloop", "ctl", "subscribe", "-"], ["wayloop", "ctl", "set", "*", "-"],
                      ["wayloop", "ctl", "set", "*", "-m", "t"], ["wayloop", "-o", ""]])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "", "the completion printed errors (no wayloop runs: it must stay silent)")
        XCTAssertTrue(r.stdout.contains("complete -F _wayloop wayloop"), r.stdout)
        let got = replies(r)
        XCTAssertEqual(got.count, 10, r.stdout)
        guard got.count == 10 else { return }
        XCTAssertEqual(got[0], Self.modes, "wayloop -m <TAB>")
        XCTAssertEqual(got[1], Self.ctlCommands, "wayloop ctl <TAB>")
        XCTAssertEqual(got[2], ["auto", "gl", "shm"])
        XCTAssertEqual(got[3], ["error", "notice", "debug", "trace"])
        XCTAssertEqual(got[4], try help().options, "wayloop -<TAB>: every option of --help, nothing else")
        XCTAssertEqual(got[5], ["--json"])
        XCTAssertEqual(got[6], ["--waybar"])
        XCTAssertEqual(got[7], Self.ctlSetOptions)
        XCTAssertEqual(got[8], ["tile"])
        XCTAssertEqual(got[9], ["*"], "no wayloop runs: only '*'")

        // --hwdec and --hwdec-device (main, ctl set, thumbnail, decode), and the subcommands.
        let h = bash([["wayloop", "--hwdec", ""], ["wayloop", "ctl", "set", "*", "--hwdec", ""],
                      ["wayloop", "thumbnail", "x.mp4", "y.png", "--hwdec", ""], ["wayloop", "decode", "x.mp4", "--hwdec", ""],
                      ["wayloop", "thumbnail", "x.mp4", "y.png", "-"], ["wayloop", "decode", "-"], ["wayloop", "decode", "x.mp4", ""],
                      ["wayloop", "decode", "--hwdec", "no", "x.mp4", "--frames", ""],
                      ["wayloop", "--hwdec-device", ""], ["wayloop", "decode", "x.mp4", "--hwdec-device", ""], ["wayloop", ""]])
        XCTAssertEqual(h.stderr, "")
        let hw = replies(h)
        XCTAssertEqual(hw.count, 11, h.stdout)
        guard hw.count == 11 else { return }
        for i in 0..<4 { XCTAssertEqual(hw[i], hwdecModes(), "--hwdec <TAB> (\(i))") }
        XCTAssertEqual(hw[4], subcommandOptions("thumbnail"), "wayloop thumbnail VIDEO FILE -<TAB>")
        XCTAssertEqual(hw[5], subcommandOptions("decode"), "wayloop decode -<TAB>")
        XCTAssertEqual(hw[6], subcommandOptions("decode"), "wayloop decode VIDEO <TAB>: its options")
        XCTAssertEqual(hw[7], [], "wayloop decode ... --frames <TAB>: a number")
        for i in 8...9 { XCTAssertTrue(hw[i].allSatisfy { $0.hasPrefix("/dev/dri/renderD") }, "--hwdec-device <TAB>: \(hw[i])") }
        XCTAssertTrue(hw[10].isSuperset(of: Self.subcommands), "wayloop <TAB>: \(hw[10])")

        // Video files and names from the data directory.
        let data = scratch + "/data/wayloop"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        for f in ["ocean.mp4", "rain.webm"] { FileManager.default.createFile(atPath: data + "/" + f, contents: Data()) }
        for f in ["a.mkv", "b.txt", "c.MP4"] { FileManager.default.createFile(atPath: scratch + "/" + f, contents: Data()) }
        let v = bash([["wayloop", "oc"], ["wayloop", scratch + "/"], ["wayloop", "decode", "oc"], ["wayloop", "decode", "--json", scratch + "/"]])
        XCTAssertEqual(v.stderr, "")
        let vids = replies(v)
        XCTAssertEqual(vids.count, 4, v.stdout)
        guard vids.count == 4 else { return }
        XCTAssertEqual(vids[0], ["ocean"], v.stdout)
        XCTAssertEqual(vids[2], ["ocean"], "wayloop decode oc<TAB>: \(v.stdout)")
        for i in [1, 3] {
            let files = vids[i].filter { !$0.hasSuffix("/") && !$0.hasSuffix("data") && !$0.hasSuffix("nodata") }
            XCTAssertEqual(files.sorted(), [scratch + "/a.mkv", scratch + "/c.MP4"], "video files only: \(v.stdout.debugDescription)")
        }

        // Output names from the running instance.
        let fake = try fakeInstance()
        defer { stop(fake) }
        let o = bash([["wayloop", "-o", ""], ["wayloop", "ctl", "pause", ""], ["wayloop", "ctl", "set", "H"]])
        XCTAssertEqual(o.stderr, "")
        XCTAssertEqual(replies(o), [["DP-7", "HDMI-A-3", "*"], ["DP-7", "HDMI-A-3", "*"], ["HDMI-A-3"]], o.stdout)
    }

    private func fish(_ lines: [String]) -> ShellResult {
        var script = "source $argv[1]; or exit 9\n"
        for l in lines { script += "echo '== \(l)'; complete -C '\(l)'\n" }
        return Shell.run(["fish", "--no-config", "-c", script, Repo.path("completions/wayloop.fish")],
                         env: completionEnv(), timeout: 30)
    }

    /// fish's candidates per command line (the word before any tab).
    private func fishReplies(_ r: ShellResult) -> [String: Set<String>] {
        var out: [String: Set<String>] = [:]
        var current = ""
        for line in r.stdout.components(separatedBy: "\n") where !line.isEmpty {
            if line.hasPrefix("== ") { current = String(line.dropFirst(3)); out[current] = [] }
            else { out[current, default: []].insert(String(line.split(separator: "\t", maxSplits: 1).first ?? "")) }
        }
        return out
    }

    func testFishCompletion() throws {
        let r = fish(["wayloop -", "wayloop -m ", "wayloop --renderer ", "wayloop --log-level ", "wayloop ctl ",
                      "wayloop ctl status -", "wayloop ctl subscribe -", "wayloop ctl set DP-1 -", "wayloop -o ",
                      "wayloop --hwdec ", "wayloop ctl set DP-1 --hwdec ", "wayloop thumbnail x.mp4 y.png --hwdec ",
                      "wayloop decode x.mp4 --hwdec ", "wayloop thumbnail x.mp4 y.png -", "wayloop decode -",
                      "wayloop decode --json -", "wayloop --hwdec-device ", "wayloop decode x.mp4 --hwdec-device ", "wayloop "])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "", "fish printed errors")
        let got = fishReplies(r)
        let all = got["wayloop -"] ?? []
        XCTAssertTrue(all.contains("--mode"), "wayloop -<TAB> lacks --mode: \(all.sorted())")
        XCTAssertEqual(all, try help().options, "wayloop -<TAB>: every option of --help, nothing else")
        XCTAssertEqual(got["wayloop -m "], Self.modes)
        XCTAssertEqual(got["wayloop --renderer "], ["auto", "gl", "shm"])
        XCTAssertEqual(got["wayloop --log-level "], ["error", "notice", "debug", "trace"])
        XCTAssertEqual(got["wayloop ctl "], Self.ctlCommands)
        XCTAssertEqual(got["wayloop ctl status -"], ["--json"])
        XCTAssertEqual(got["wayloop ctl subscribe -"], ["--waybar"])
        XCTAssertEqual(got["wayloop ctl set DP-1 -"], Self.ctlSetOptions)
        XCTAssertEqual(got["wayloop -o "], ["*"], "no wayloop runs: only '*'")
        for l in ["wayloop --hwdec ", "wayloop ctl set DP-1 --hwdec ", "wayloop thumbnail x.mp4 y.png --hwdec ", "wayloop decode x.mp4 --hwdec "] {
            XCTAssertEqual(got[l], hwdecModes(), l)
        }
        XCTAssertEqual(got["wayloop thumbnail x.mp4 y.png -"], subcommandOptions("thumbnail"))
        XCTAssertEqual(got["wayloop decode -"], subcommandOptions("decode"))
        XCTAssertEqual(got["wayloop decode --json -"], subcommandOptions("decode"))
        for l in ["wayloop --hwdec-device ", "wayloop decode x.mp4 --hwdec-device "] {
            XCTAssertTrue((got[l] ?? []).allSatisfy { $0.hasPrefix("/dev/dri/renderD") }, "\(l): \(got[l] ?? [])")
        }
        XCTAssertTrue((got["wayloop "] ?? []).isSuperset(of: Self.subcommands), "wayloop <TAB>: \(got["wayloop "] ?? [])")

        let fake = try fakeInstance()
        defer { stop(fake) }
        let o = fish(["wayloop -o ", "wayloop ctl toggle "])
        XCTAssertEqual(o.stderr, "")
        XCTAssertEqual(fishReplies(o)["wayloop -o "], ["DP-7", "HDMI-A-3", "*"], o.stdout)
        XCTAssertEqual(fishReplies(o)["wayloop ctl toggle "], ["DP-7", "HDMI-A-3", "*"], o.stdout)
    }

    /// `--pause-when <TAB>` in bash, fish and zsh, for wayloop and for `ctl set`: never and the
    /// five rules, as the binary lists them; bash and fish go on after a comma (never stands
    /// alone); `--pause-ignore <TAB>` offers nothing (app_ids are typed).
    func testPauseWhenCompletionInEveryShell() throws {
        let want = pauseRules()
        let b = bash([["wayloop", "--pause-when", ""], ["wayloop", "ctl", "set", "*", "--pause-when", ""],
                      ["wayloop", "-o", "DP-1", "--pause-when", "hidden,f"], ["wayloop", "--pause-ignore", ""]])
        XCTAssertEqual(b.stderr, "")
        XCTAssertEqual(replies(b), [want, want, ["hidden,fullscreen", "hidden,fullscreen-anywhere"], []], "bash: \(b.stdout)")
        let f = fish(["wayloop --pause-when ", "wayloop ctl set DP-1 --pause-when ", "wayloop --pause-when hidden,f",
                      "wayloop --pause-ignore "])
        XCTAssertEqual(f.stderr, "", "fish printed errors")
        let got = fishReplies(f)
        XCTAssertEqual(got["wayloop --pause-when "], want, "fish")
        XCTAssertEqual(got["wayloop ctl set DP-1 --pause-when "], want, "fish")
        XCTAssertEqual(got["wayloop --pause-when hidden,f"], ["hidden,fullscreen", "hidden,fullscreen-anywhere"], "fish")
        XCTAssertEqual(got["wayloop --pause-ignore "], [], "fish")
        for line in ["wayloop --pause-when ", "wayloop ctl set DP-1 --pause-when "] {
            let z = zshWords(try zshComplete(line), after: line)
            XCTAssertTrue(z.isSuperset(of: want), "\(line)<TAB> in zsh: \(z.sorted())")
        }
    }

    /// `-w NAME VIDEO` in bash, fish and zsh: the name is typed (nothing offered), the video
    /// after it completes as `-i`'s does; `ctl set OUTPUT --workspace NAME` then a video.
    func testWorkspaceCompletionInEveryShell() throws {
        let data = scratch + "/data/wayloop"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        for f in ["ocean.mp4", "rain.webm"] { FileManager.default.createFile(atPath: data + "/" + f, contents: Data()) }
        let b = bash([["wayloop", "-w", ""], ["wayloop", "-w", "2", "oc"], ["wayloop", "-o", "DP-1", "--workspace", "3: web", "ra"],
                      ["wayloop", "ctl", "set", "*", "--workspace", ""], ["wayloop", "ctl", "set", "*", "-w", "2", "oc"]])
        XCTAssertEqual(b.stderr, "")
        XCTAssertEqual(replies(b), [[], ["ocean"], ["rain"], [], ["ocean"]], "bash: \(b.stdout)")
        let f = fish(["wayloop -w ", "wayloop -w 2 oc", "wayloop -o DP-1 --workspace \"3: web\" ra",
                      "wayloop ctl set DP-1 --workspace ", "wayloop ctl set DP-1 -w 2 oc"])
        XCTAssertEqual(f.stderr, "", "fish printed errors")
        let got = fishReplies(f)
        XCTAssertEqual(got["wayloop -w "], [], "fish: the name is typed")
        XCTAssertEqual(got["wayloop -w 2 oc"], ["ocean"], "fish")
        XCTAssertEqual(got["wayloop -o DP-1 --workspace \"3: web\" ra"], ["rain"], "fish")
        XCTAssertEqual(got["wayloop ctl set DP-1 --workspace "], [], "fish")
        XCTAssertEqual(got["wayloop ctl set DP-1 -w 2 oc"], ["ocean"], "fish")
        XCTAssertFalse(zshWords(try zshComplete("wayloop -w "), after: "wayloop -w ").contains("ocean"), "zsh offers videos for the name")
        for line in ["wayloop -w 2 ", "wayloop ctl set DP-1 --workspace 2 "] {
            let z = zshWords(try zshComplete(line), after: line)
            XCTAssertTrue(z.isSuperset(of: ["ocean", "rain"]), "\(line)<TAB> in zsh: \(z.sorted())")
        }
    }

    /// Types `line` and a TAB into an interactive zsh (zsh/zpty) with a clean ZDOTDIR and only
    /// our completions on fpath; returns what the terminal showed after the TAB.
    private func zshComplete(_ line: String) throws -> String {
        let script = scratch + "/complete.zsh"
        try """
        zmodload zsh/zpty || exit 9
        zpty z env ZDOTDIR=$ZDOTDIR TERM=dumb zsh -f -i
        zpty -w z "PS1='%% '; fpath=($1 \\$fpath); autoload -Uz compinit; compinit -u -D; LISTMAX=1000; unsetopt beep"
        zpty -w z "print -r -- __READ''Y__"
        out=''
        integer deadline=$(( SECONDS + 20 ))
        while [[ $out != *__READY__* ]] && (( SECONDS < deadline )); do
          zpty -r -t z chunk && out+=$chunk || sleep 0.05
        done
        [[ $out == *__READY__* ]] || { print "zsh did not start"; exit 8 }
        zpty -n -w z "$2"$'\\t'
        out=''
        integer quiet=0
        deadline=$(( SECONDS + 20 ))
        while (( quiet < 10 && SECONDS < deadline )); do
          if zpty -r -t z chunk; then out+=$chunk; quiet=0; else sleep 0.1; (( quiet++ )); fi
        done
        print -r -- "$out"
        zpty -d z
        """.write(toFile: script, atomically: true, encoding: .utf8)
        var env = completionEnv()
        let zdot = scratch + "/zdot"
        try FileManager.default.createDirectory(atPath: zdot, withIntermediateDirectories: true)
        env["ZDOTDIR"] = zdot
        let r = Shell.run(["zsh", "-f", script, Repo.path("completions"), line], env: env, timeout: 60)
        XCTAssertEqual(r.status, 0, "zsh/zpty: \(r.stdout) \(r.stderr)")
        return r.stdout.replacingOccurrences(of: "\r", with: "")
    }

    /// The words of a zsh completion listing (what follows the echoed command line).
    private func zshWords(_ out: String, after line: String) -> Set<String> {
        let listing = out.range(of: line).map { String(out[$0.upperBound...]) } ?? out
        return Set(listing.components(separatedBy: .whitespacesAndNewlines).filter { !$0.isEmpty })
    }

    /// `wayloop prepare -<TAB>` in bash, fish and zsh: the options of its usage line (what the
    /// binary prints without arguments), and --list and --clean, which go alone.
    func testPrepareCompletionInEveryShell() throws {
        let want = subcommandOptions("prepare").union(["--list", "--clean"])
        XCTAssertTrue(want.isSuperset(of: ["--size", "--max-fps", "--quality", "--always"]), "\(want.sorted())")
        let b = bash([["wayloop", "prepare", "-"], ["wayloop", "prepare", "x.mp4", "-"]])
        XCTAssertEqual(b.stderr, "")
        XCTAssertEqual(replies(b), [want, want], "bash: \(b.stdout)")
        let f = fish(["wayloop prepare -", "wayloop prepare x.mp4 -"])
        XCTAssertEqual(f.stderr, "", "fish printed errors")
        XCTAssertEqual(fishReplies(f)["wayloop prepare -"], want, "fish")
        XCTAssertEqual(fishReplies(f)["wayloop prepare x.mp4 -"], want, "fish")
        // Every option starts with "--": zsh inserts that much before it lists them.
        let z = zshWords(try zshComplete("wayloop prepare --"), after: "wayloop prepare --")
        XCTAssertTrue(z.isSuperset(of: want), "zsh: \(z.sorted())")
    }

    /// `wayloop list -<TAB>` in bash, fish and zsh: the options of its synopsis in --help.
    func testListCompletionInEveryShell() throws {
        let help = Shell.run([Repo.binary, "--help"], timeout: 10).stdout
        guard let synopsis = matches(#"wayloop (list \[PATH[^\n]*)"#, in: help, group: 1).first else { return XCTFail("no list synopsis: \(help)") }
        let want = Set(matches(#"\[(--[a-z-]+)\]"#, in: synopsis, group: 1))
        XCTAssertEqual(want, ["--json", "--previews", "--no-workshop"], synopsis)
        let b = bash([["wayloop", "list", "-"], ["wayloop", "list", "/tmp", "-"]])
        XCTAssertEqual(b.stderr, "")
        XCTAssertEqual(replies(b), [want, want], "bash: \(b.stdout)")
        let f = fish(["wayloop list -", "wayloop list /tmp -"])
        XCTAssertEqual(f.stderr, "", "fish printed errors")
        XCTAssertEqual(fishReplies(f)["wayloop list -"], want, "fish")
        let z = zshWords(try zshComplete("wayloop list --"), after: "wayloop list --")
        XCTAssertTrue(z.isSuperset(of: want), "zsh: \(z.sorted())")
    }

    func testZshCompletion() throws {
        let env = completionEnv().merging(["ZDOTDIR": scratch], uniquingKeysWith: { $1 })
        let r = Shell.run(["zsh", "-f", "-c", "fpath=(\"$1\" $fpath); autoload -Uz compinit; compinit -u -D; print -r -- \"$_comps[wayloop]\"",
                           "zsh", Repo.path("completions")], env: env, timeout: 30)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "_wayloop", "compinit did not pick up _wayloop: \(r.stderr)")

        let modes = zshWords(try zshComplete("wayloop -m "), after: "wayloop -m ")
        XCTAssertTrue(modes.isSuperset(of: Self.modes), "wayloop -m <TAB> in zsh: \(modes.sorted())")
        let ctl = zshWords(try zshComplete("wayloop ctl "), after: "wayloop ctl ")
        XCTAssertTrue(ctl.isSuperset(of: Self.ctlCommands), "wayloop ctl <TAB> in zsh: \(ctl.sorted())")
        let renderers = zshWords(try zshComplete("wayloop --renderer "), after: "wayloop --renderer ")
        XCTAssertTrue(renderers.isSuperset(of: ["auto", "gl", "shm"]), "\(renderers.sorted())")
        let options = zshWords(try zshComplete("wayloop -"), after: "wayloop -")
        let missing = try help().options.filter { !options.contains($0) }
        XCTAssertEqual(missing.sorted(), [], "wayloop -<TAB> in zsh lacks options of --help")
        XCTAssertTrue(try zshComplete("wayloop ctl status -").contains("wayloop ctl status --json"))
        XCTAssertTrue(try zshComplete("wayloop ctl subscribe -").contains("wayloop ctl subscribe --waybar"))
        let hwdecs = zshWords(try zshComplete("wayloop --hwdec "), after: "wayloop --hwdec ")
        XCTAssertTrue(hwdecs.isSuperset(of: hwdecModes()), "wayloop --hwdec <TAB> in zsh: \(hwdecs.sorted())")
        let setHwdecs = zshWords(try zshComplete("wayloop ctl set DP-1 --hwdec "), after: "wayloop ctl set DP-1 --hwdec ")
        XCTAssertTrue(setHwdecs.isSuperset(of: hwdecModes()), "wayloop ctl set DP-1 --hwdec <TAB> in zsh: \(setHwdecs.sorted())")
        let first = zshWords(try zshComplete("wayloop "), after: "wayloop ")
        XCTAssertTrue(first.isSuperset(of: Self.subcommands), "wayloop <TAB> in zsh: \(first.sorted())")
        for (sub, line) in [("thumbnail", "wayloop thumbnail x.mp4 y.png -"), ("decode", "wayloop decode x.mp4 -")] {
            let got = zshWords(try zshComplete(line), after: line)
            let lacking = subcommandOptions(sub).subtracting(got)
            XCTAssertEqual(lacking.sorted(), [], "\(line)<TAB> in zsh lacks options of `wayloop \(sub)`: \(got.sorted())")
            XCTAssertFalse(got.contains("--renderer"), "\(line)<TAB> in zsh offers wayloop's own options")
        }

        let fake = try fakeInstance()
        defer { stop(fake) }
        let outputs = zshWords(try zshComplete("wayloop -o "), after: "wayloop -o ")
        XCTAssertTrue(outputs.isSuperset(of: ["DP-7", "HDMI-A-3"]), "wayloop -o <TAB> in zsh: \(outputs.sorted())")
    }
}
