import WayLoopCore
import XCTest

final class OptionsTests: XCTestCase {
    private func run(_ args: [String]) throws -> Options {
        guard case .run(let o) = try OptionParser.parse(args) else { throw NotARunCommand(args: args) }
        return o
    }

    func testPositionalVideoIsForEveryOutput() throws {
        let o = try run(["-m", "fit", "-c", "#102030", "--dim", "0.25", "v.mp4"])
        XCTAssertEqual(o.settings(forOutput: "DP-1"),
                       OutputSettings(video: "v.mp4", mode: .fit, color: RGB(red: 0x10, green: 0x20, blue: 0x30), dim: 0.25))
        XCTAssertEqual(o.videos, ["v.mp4"])
    }

    func testOutputScopes() throws {
        let o = try run(["-o", "DP-1", "-m", "stretch", "-i", "a.mp4", "-o", "*", "-i", "b.mp4", "-o", "Dell U2720 X1", "-i", "c.mp4"])
        XCTAssertEqual(o.settings(forOutput: "DP-1")?.video, "a.mp4")
        XCTAssertEqual(o.settings(forOutput: "DP-1")?.mode, .stretch)
        XCTAssertEqual(o.settings(forOutput: "HDMI-A-1")?.video, "b.mp4")
        XCTAssertEqual(o.settings(forOutput: "HDMI-A-1")?.mode, .fill)
        XCTAssertEqual(o.settings(forOutput: "DP-2", description: "Dell U2720 X1")?.video, "c.mp4")
        XCTAssertEqual(o.videos, ["a.mp4", "b.mp4", "c.mp4"])
    }

    func testAnOutputMatchingNothingGetsNoSurface() throws {
        let o = try run(["-o", "DP-1", "-i", "a.mp4"])
        XCTAssertNil(o.settings(forOutput: "HDMI-A-1"))
    }

    func testHelpVersionAndFlags() throws {
        XCTAssertEqual(try OptionParser.parse(["--help"]), .help)
        XCTAssertEqual(try OptionParser.parse(["v.mp4", "-V"]), .version)
        let o = try run(["-v", "--queue-frames", "4", "--trace-frames", "/tmp/t", "--", "-odd-name.mp4"])
        XCTAssertEqual(o.logLevel, .debug)
        XCTAssertEqual(o.queueFrames, 4)
        XCTAssertEqual(o.traceFile, "/tmp/t")
        XCTAssertEqual(o.videos, ["-odd-name.mp4"])
    }

    func testUsageErrorsNameTheOption() {
        let cases: [([String], UsageError)] = [
            (["--bogus", "v.mp4"], .unknownOption("--bogus")),
            (["v.mp4", "-m"], .missingValue(option: "-m")),
            (["-m", "zoom", "v.mp4"], .badValue(option: "-m", value: "zoom", expected: "one of fill, fit, stretch, center, tile, span, span-fit")),
            (["-c", "red", "v.mp4"], .badValue(option: "-c", value: "red", expected: "a colour RRGGBB")),
            (["--renderer", "vulkan", "v.mp4"], .badValue(option: "--renderer", value: "vulkan", expected: "one of auto, gl, shm")),
            (["--dim", "1.5", "v.mp4"], .badValue(option: "--dim", value: "1.5", expected: "a number from 0 to 1")),
            (["a.mp4", "b.mp4"], .unexpectedArgument("b.mp4")),
            (["a.mp4", "-i", "b.mp4"], .unexpectedArgument("b.mp4")),
            (["a.mp4", "-o", "DP-1", "-i", "b.mp4", "c.mp4"], .unexpectedArgument("c.mp4")),
            (["-f", "", "v.mp4"], .badValue(option: "-f", value: "", expected: "a colour RRGGBB or a video file")),
            (["v.mp4", "--fallback"], .missingValue(option: "--fallback")),
            (["v.mp4", "--config"], .missingValue(option: "--config")),
            (["--queue-frames", "1", "v.mp4"], .badValue(option: "--queue-frames", value: "1", expected: "a whole number from 2 to 120")),
            (["--release-after", "0", "v.mp4"],
             .badValue(option: "--release-after", value: "0", expected: "a number of seconds from 0.1 to 86400")),
            (["--log-level", "loud", "v.mp4"], .badValue(option: "--log-level", value: "loud", expected: "one of error, notice, debug, trace")),
            (["--config=x", "v.mp4"], .unknownOption("--config=x")),
            (["v.mp4", "ctl", "status"], .unexpectedArgument("ctl")),
            (["ctl"], .ctl("no command (\(CtlParser.usage))")),
            (["ctl", "dance"], .ctl("unknown command 'dance' (\(CtlParser.usage))")),
            (["ctl", "pause", "DP-1", "DP-2"], .ctl("pause takes at most one OUTPUT (or '*'), not also 'DP-2'")),
        ]
        for (args, expected) in cases {
            XCTAssertThrowsError(try OptionParser.parse(args), "\(args)") { error in
                XCTAssertEqual(error as? UsageError, expected, "\(args)")
                XCTAssertTrue("\(error)".contains(expected.description))
            }
        }
    }

    /// No video on the command line is fine: a config file may name it (the app checks later).
    func testNoVideoIsARunWithoutEntries() throws {
        let o = try run([])
        XCTAssertEqual(o, Options())
        XCTAssertEqual(o.entries, [])
        XCTAssertNil(o.settings(forOutput: "DP-1"))
        XCTAssertEqual(o.videos, [])

        let scoped = try run(["-o", "DP-1", "-m", "fit"])
        XCTAssertEqual(scoped.entries, [OutputEntry(selector: .named("DP-1"), mode: .fit)])
        XCTAssertNil(scoped.settings(forOutput: "DP-1"), "a mode without a video gives no surface")

        let unscoped = try run(["-m", "fit", "--dim", "0.5", "-f", "202020"])
        XCTAssertEqual(unscoped.entries, [OutputEntry(selector: .all, mode: .fit, dim: 0.5,
                                                      fallback: .color(RGB(red: 0x20, green: 0x20, blue: 0x20)))])

        XCTAssertEqual(try run(["-v"]).entries, [])
        XCTAssertEqual(try run(["--no-config", "--replace"]).entries, [])
    }

    func testDefaults() throws {
        let o = try run(["v.mp4"])
        XCTAssertNil(o.configPath)
        XCTAssertFalse(o.noConfig)
        XCTAssertFalse(o.replace)
        XCTAssertNil(o.pauseOnFullscreen, "nil: the config file, then the default, decide")
        XCTAssertNil(o.pauseOnBattery)
        XCTAssertEqual(o.logLevel, .notice)
        XCTAssertEqual(o.queueFrames, 8)
        XCTAssertEqual(o.releaseAfter, 60)
        XCTAssertEqual(o.settings(forOutput: "DP-1"), OutputSettings(video: "v.mp4"))
        XCTAssertEqual(o.settings(forOutput: "DP-1")?.pauseOnFullscreen, true)
        XCTAssertEqual(o.settings(forOutput: "DP-1")?.pauseOnBattery, false)
    }

    func testConfigReplaceAndPauseFlags() throws {
        let o = try run(["--config", "/etc/wayloop.conf", "--replace", "--no-fullscreen-pause", "--pause-on-battery",
                         "--release-after", "0.5", "v.mp4"])
        XCTAssertEqual(o.configPath, "/etc/wayloop.conf")
        XCTAssertFalse(o.noConfig)
        XCTAssertTrue(o.replace)
        XCTAssertEqual(o.pauseOnFullscreen, false)
        XCTAssertEqual(o.pauseOnBattery, true)
        XCTAssertEqual(o.releaseAfter, 0.5)
        XCTAssertEqual(o.settings(forOutput: "DP-1"),
                       OutputSettings(video: "v.mp4", pauseOnFullscreen: false, pauseOnBattery: true))
        XCTAssertEqual(o.videos, ["v.mp4"], "--config's value is not a video")

        let n = try run(["--no-config", "v.mp4"])
        XCTAssertTrue(n.noConfig)
        XCTAssertNil(n.configPath)
    }

    func testFallback() throws {
        let grey = RGB(red: 0x20, green: 0x20, blue: 0x20)
        let cases: [([String], String, Fallback?)] = [
            (["-f", "202020", "v.mp4"], "DP-1", .color(grey)),
            (["--fallback", "#202020", "v.mp4"], "DP-1", .color(grey)),
            (["-f", "still.mp4", "v.mp4"], "DP-1", .video("still.mp4")),
            (["v.mp4", "-o", "DP-1", "--fallback", "still.mp4"], "DP-1", .video("still.mp4")),
            (["v.mp4", "-o", "DP-1", "--fallback", "still.mp4"], "DP-2", nil),
            (["-f", "202020", "v.mp4", "-o", "DP-1", "-f", "/v/still.mp4"], "DP-1", .video("/v/still.mp4")),
            (["-f", "202020", "v.mp4", "-o", "DP-1", "-f", "/v/still.mp4"], "HDMI-A-1", .color(grey)),
            (["v.mp4"], "DP-1", nil),
        ]
        for (args, output, want) in cases {
            let o = try run(args)
            XCTAssertEqual(o.settings(forOutput: output)?.fallback, want, "\(args) on \(output)")
        }
        let o = try run(["-f", "a-still.mp4", "v.mp4", "-o", "DP-1", "-i", "w.mp4", "-f", "v.mp4"])
        XCTAssertEqual(o.videos, ["v.mp4", "w.mp4"])
        XCTAssertEqual(o.allVideos, ["v.mp4", "w.mp4", "a-still.mp4"], "fallback videos after, without repeats")
        XCTAssertTrue(o.hasFallback)
        XCTAssertTrue(try run(["v.mp4", "-o", "DP-1", "-f", "000000"]).hasFallback)
        XCTAssertFalse(try run(["v.mp4", "-o", "DP-1", "-m", "fit"]).hasFallback)
    }

    func testCtlAsFirstArgument() throws {
        let cases: [([String], CtlCommand)] = [
            (["ctl", "status"], CtlCommand(request: .status)),
            (["ctl", "status", "--json"], CtlCommand(request: .status, json: true)),
            (["ctl", "pause", "DP-1"], CtlCommand(request: .pause("DP-1"))),
            (["ctl", "toggle"], CtlCommand(request: .toggle(nil))),
            (["ctl", "set", "*", "v.mp4", "-m", "fit"],
             CtlCommand(request: .set(OutputEntry(selector: .all, video: "v.mp4", mode: .fit)))),
            (["ctl", "quit"], CtlCommand(request: .quit)),
            // Options after ctl belong to ctl, not to the wallpaper.
            (["ctl", "set", "DP-1", "--dim", "0.5"], CtlCommand(request: .set(OutputEntry(selector: .named("DP-1"), dim: 0.5)))),
        ]
        for (args, want) in cases {
            XCTAssertEqual(try OptionParser.parse(args), .ctl(want), "\(args)")
        }
        // Only as the first argument: after `--` it is a video's name.
        XCTAssertEqual(try run(["--", "ctl"]).videos, ["ctl"])
    }

    func testRGBParsesAndPrints() {
        XCTAssertEqual(RGB(hex: "ff8000"), RGB(red: 255, green: 128, blue: 0))
        XCTAssertEqual(RGB(hex: "#FF8000")?.description, "ff8000")
        XCTAssertNil(RGB(hex: "fff"))
        XCTAssertNil(RGB(hex: "gg0000"))
    }
}

/// Thrown (a test failure, never a skip) when arguments meant to run parse as something else.
struct NotARunCommand: Error {
    let args: [String]
}

final class HandOverTests: XCTestCase {
    private func run(_ args: [String]) throws -> Options {
        guard case .run(let o) = try OptionParser.parse(args) else { throw UsageError.noVideo }
        return o
    }

    /// A second start names process-wide options: those with another value cannot be applied.
    func testUnappliable() throws {
        let running = try run(["--cache-mb", "64", "--renderer", "shm", "a.mp4"])
        let cases: [([String], [String])] = [
            (["b.mp4"], []),
            (["--cache-mb", "64", "b.mp4"], []),
            (["--cache-mb", "0", "b.mp4"], ["--cache-mb (64, asked 0)"]),
            (["--release-after", "5", "--cache-mb", "0", "x.mp4"], ["--cache-mb (64, asked 0)", "--release-after (60.0, asked 5.0)"]),
            (["--renderer", "gl", "b.mp4"], ["--renderer (shm, asked gl)"]),
            (["--renderer", "shm", "b.mp4"], []),
            (["-v", "b.mp4"], ["--log-level (notice, asked debug)"]),
            (["--queue-frames", "4", "--trace-frames", "/t", "b.mp4"], ["--queue-frames (8, asked 4)", "--trace-frames (none, asked /t)"]),
            (["-m", "fit", "--dim", "0.3", "b.mp4"], []),
        ]
        for (args, want) in cases {
            XCTAssertEqual(Options.unappliable(running: running, incoming: try run(args)), want, "\(args)")
        }
        XCTAssertEqual(Options.unappliable(running: try run(["a.mp4"]), incoming: try run(["--renderer", "auto", "a.mp4"])), [])
    }
}

/// Hostile values: input that looks like what it is not.
final class HostileValueTests: XCTestCase {
    func testColoursAreSixHexDigits() {
        for bad in ["+fffff", "-00000", " fffff", "fffff ", "0x1234", "#+fffff", "ffffff0", ""] {
            XCTAssertNil(RGB(hex: bad), bad)
        }
        XCTAssertEqual(RGB(hex: "#A0b0C0"), RGB(red: 0xa0, green: 0xb0, blue: 0xc0))
        XCTAssertThrowsError(try OptionParser.parse(["-c", "+fffff", "v.mp4"])) {
            XCTAssertEqual("\($0)", "option '-c': '+fffff' is not a colour RRGGBB")
        }
    }

    func testAnEmptyOutputNameIsAUsageError() {
        XCTAssertThrowsError(try OptionParser.parse(["-o", "", "-i", "v.mp4"])) {
            XCTAssertTrue("\($0)".hasPrefix("option '-o': '' is not an output name"), "\($0)")
        }
    }

    func testAConfigFileMayStartWithAByteOrderMark() throws {
        let entries = try ConfigFile.parse("\u{feff}video = /v/a.mp4\nmode = fit\n", path: "/c/config", home: nil)
        XCTAssertEqual(entries, [OutputEntry(selector: .all, video: "/v/a.mp4", mode: .fit)])
        // Only at the very start: anywhere else it is part of a key.
        XCTAssertThrowsError(try ConfigFile.parse("video = /v/a.mp4\n\u{feff}mode = fit\n", path: "/c/config", home: nil))
    }
}

final class OverrideCompactionTests: XCTestCase {
    /// Dropping shadowed overrides never changes what an output gets, and bounds the list.
    func testShadowedEntriesGo() {
        let dp1 = OutputSelector.named("DP-1")
        var entries: [OutputEntry] = [OutputEntry(selector: .all, video: "/v/a.mp4")]
        for i in 0..<2000 {
            entries.append(i % 2 == 0 ? OutputEntry(selector: .all, mode: .fit) : OutputEntry(selector: .all, dim: Double(i % 10) / 10))
            entries.append(OutputEntry(selector: dp1, color: RGB(red: UInt8(i % 256), green: 0, blue: 0)))
        }
        entries.append(OutputEntry(selector: dp1, video: "/v/b.mp4", mode: .center))
        let keep = OutputEntry.unshadowed(entries)
        let kept = zip(entries, keep).filter(\.1).map(\.0)
        XCTAssertLessThanOrEqual(kept.count, 5, "\(kept)")
        var before = Options(), after = Options()
        before.entries = entries
        after.entries = kept
        for name in ["DP-1", "HDMI-A-1"] {
            XCTAssertEqual(before.settings(forOutput: name), after.settings(forOutput: name), name)
        }
        // An entry with a field nobody sets later stays; an empty one stays.
        XCTAssertEqual(OutputEntry.unshadowed([OutputEntry(selector: .all, video: "/a", mode: .fit),
                                               OutputEntry(selector: .all, mode: .fill),
                                               OutputEntry(selector: dp1)]), [true, true, true])
        XCTAssertEqual(OutputEntry.unshadowed([OutputEntry(selector: .all, mode: .fit), OutputEntry(selector: dp1, mode: .fill),
                                               OutputEntry(selector: .all, mode: .fill)]), [false, true, true])
    }
}

final class LineTextTests: XCTestCase {
    func testControlCharactersAreEscaped() {
        let cases: [(String, String)] = [
            ("'/v/a.mp4': no such file", "'/v/a.mp4': no such file"),
            ("'/v/a\nb.mp4': no such file", "'/v/a\\nb.mp4': no such file"),
            ("tab\there", "tab\\there"),
            ("cr\r", "cr\\r"),
            ("esc\u{1b}[31mred", "esc\\u{1b}[31mred"),
            ("del\u{7f}", "del\\u{7f}"),
            ("c1\u{85}", "c1\\u{85}"),
            ("café ✓ 日本", "café ✓ 日本"),
            ("", ""),
        ]
        for (raw, want) in cases {
            XCTAssertEqual(LineText.escaped(raw), want, raw.debugDescription)
            XCTAssertFalse(LineText.escaped(raw).contains("\n"))
        }
    }
}

/// The one argument cursor every parser uses, and the process-wide options table.
final class ArgumentCursorTests: XCTestCase {
    func testValuesAndErrors() throws {
        var c = ArgumentCursor(["--cache-mb", "64", "--dim"])
        XCTAssertEqual(c.current, "--cache-mb")
        XCTAssertEqual(try c.number(of: "--cache-mb", in: 0...4096), 64)
        c.advance()
        XCTAssertEqual(c.current, "--dim")
        XCTAssertThrowsError(try c.value(of: "--dim")) { XCTAssertEqual($0 as? UsageError, .missingValue(option: "--dim")) }
        var bad = ArgumentCursor(["--frames", "0"])
        XCTAssertThrowsError(try bad.number(of: "--frames", in: 1...10)) {
            XCTAssertEqual($0 as? UsageError, .badValue(option: "--frames", value: "0", expected: "a whole number from 1 to 10"))
        }
        var rest = ArgumentCursor(["--", "-a.mp4", "b.mp4"])
        XCTAssertEqual(Array(rest.rest()), ["-a.mp4", "b.mp4"])
        XCTAssertNil(rest.current, "past the end after the rest")
    }

    func testTheSettingsTableIsOneCall() throws {
        var c = ArgumentCursor(["--dim", "0.25", "--shuffle", "--nope"])
        var e = OutputEntry(selector: .all)
        XCTAssertTrue(try c.applySetting("--dim", to: &e))
        c.advance()
        XCTAssertTrue(try c.applySetting("--shuffle", to: &e))
        c.advance()
        XCTAssertFalse(try c.applySetting("--nope", to: &e), "not a setting: the caller decides")
        XCTAssertEqual(e.dim, 0.25)
        XCTAssertEqual(e.shuffle, true)
    }

    /// Every process-wide option of the table parses, is in --help, and the ones a running
    /// instance cannot change are refused by a hand-over when they differ.
    func testEveryProcessOptionParsesAndIsInTheHelp() throws {
        let samples: [String: String] = ["--config": "/c", "--keep-recent": "2", "--layer": "top", "--name": "two",
                                         "--log-level": "debug", "--queue-frames": "6", "--cache-mb": "32", "--trace-frames": "/t",
                                         "--renderer": "shm", "--release-after": "5"]
        let help = Help.text
        for flag in ["--config", "--no-config", "--no-restore", "--replace", "--no-fullscreen-pause", "--pause-on-battery",
                     "--keep-recent", "--layer", "--name", "--log-level", "-v", "--queue-frames", "--cache-mb", "--trace-frames",
                     "--renderer", "--release-after"] {
            XCTAssertTrue(help.contains(flag), "\(flag) is not in --help")
            let args = [flag] + (samples[flag].map { [$0] } ?? []) + ["v.mp4"]
            guard case .run = try OptionParser.parse(args) else { return XCTFail("\(args) did not parse as a run") }
        }
        guard case .run(let incoming) = try OptionParser.parse(["--cache-mb", "32", "--layer", "top", "--pause-on-battery", "v.mp4"]) else {
            return XCTFail("no run")
        }
        XCTAssertEqual(Options.unappliable(running: Options(), incoming: incoming), ["--cache-mb (128, asked 32)", "--layer (background, asked top)"],
                       "a pause rule is the hand-over's to take; the cache and the layer are not")
    }
}

final class InstanceScopeTests: XCTestCase {
    /// A screen locker's plugin gets a connected socket (WAYLAND_SOCKET): a connection of its
    /// own, unless `--name` asks for an instance.
    func testTheScopeOfAStart() {
        let rows: [(socket: String?, name: String?, want: InstanceScope)] = [
            (nil, nil, .display), ("", nil, .display), (nil, "saver", .display),
            ("5", nil, .privateConnection), ("5", "lock", .display),
        ]
        for r in rows { XCTAssertEqual(InstanceScope.choose(waylandSocket: r.socket, name: r.name), r.want, "\(r)") }
    }
}
