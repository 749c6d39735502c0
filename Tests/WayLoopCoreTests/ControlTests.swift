import WayLoopCore
import XCTest

final class ControlTests: XCTestCase {
    private let grey = RGB(red: 0x20, green: 0x20, blue: 0x20)
    private let navy = RGB(red: 0x10, green: 0x20, blue: 0x30)

    // MARK: ControlRequest

    /// Every request, through one JSON line and back.
    func testEveryRequestRoundTrips() {
        let requests: [ControlRequest] = [
            .status,
            .pause(nil), .pause("DP-1"),
            .resume(nil), .resume("Dell Inc. DELL U2720Q 6JCXM63"),
            .toggle(nil), .toggle("HDMI-A-1"),
            .set(OutputEntry(selector: .all, video: "/v/a.mp4")),
            .set(OutputEntry(selector: .named("DP-1"), video: "/v/a \"quoted\"\\ é\n.mp4", mode: .tile,
                             color: navy, dim: 0.25, fallback: .color(grey))),
            .set(OutputEntry(selector: .named("Make Model Serial"), mode: .center)),
            .set(OutputEntry(selector: .all, color: .black)),
            .set(OutputEntry(selector: .all, dim: 0)),
            .set(OutputEntry(selector: .all, dim: 1)),
            .set(OutputEntry(selector: .all, dim: 0.1)),
            .set(OutputEntry(selector: .named("DP-2"), fallback: .video("/v/still.mp4"))),
            .reload,
            .forget(nil),
            .forget("Dell Inc. DELL U2720Q 1234"),
            .snapshot(output: nil, file: "/home/u/wall.png"),
            .quit,
            .subscribe,
            .handOver(args: ["-o", "DP-1", "-i", "a b.mp4", "--dim", "0.5", ""], cwd: "/home/u/Videos"),
            .handOver(args: [], cwd: "/"),
        ]
        var commands: Set<String> = []
        for r in requests {
            let line = r.json.serialized
            XCTAssertFalse(line.contains("\n"), "one line: \(line)")
            XCTAssertEqual(ControlRequest.parse(line), .success(r), line)
            if let cmd = r.json["cmd"]?.string { commands.insert(cmd) }
        }
        // The table covers every case of ControlRequest.
        XCTAssertEqual(commands, ["status", "pause", "resume", "toggle", "set", "reload", "forget", "snapshot", "quit", "subscribe", "args"])
    }

    /// The wire format itself, so that other clients (jq, socat) can be written against it.
    func testWireFormat() {
        let cases: [(ControlRequest, String)] = [
            (.status, #"{"cmd":"status"}"#),
            (.pause(nil), #"{"cmd":"pause"}"#),
            (.resume("DP-1"), #"{"cmd":"resume","output":"DP-1"}"#),
            (.toggle(nil), #"{"cmd":"toggle"}"#),
            (.set(OutputEntry(selector: .all, video: "/v/a.mp4")), #"{"cmd":"set","output":"*","video":"/v/a.mp4"}"#),
            (.set(OutputEntry(selector: .named("DP-1"), video: "/v/a.mp4", mode: .fit, color: navy, dim: 0.25,
                              fallback: .video("/v/b.mp4"))),
             #"{"cmd":"set","output":"DP-1","video":"/v/a.mp4","mode":"fit","color":"102030","dim":0.25,"fallback":"/v/b.mp4"}"#),
            (.set(OutputEntry(selector: .named("DP-1"), dim: 1, fallback: .color(grey))),
             #"{"cmd":"set","output":"DP-1","dim":1,"fallback":"202020"}"#),
            (.reload, #"{"cmd":"reload"}"#),
            (.forget("DP-1"), #"{"cmd":"forget","output":"DP-1"}"#),
            (.forget(nil), #"{"cmd":"forget"}"#),
            (.quit, #"{"cmd":"quit"}"#),
            (.subscribe, #"{"cmd":"subscribe"}"#),
            (.handOver(args: ["a.mp4"], cwd: "/home/u"), #"{"cmd":"args","args":["a.mp4"],"cwd":"/home/u"}"#),
        ]
        for (r, text) in cases {
            XCTAssertEqual(r.json.serialized, text)
        }
    }

    /// Hand-written requests: any key order, white space, extra keys, null output, #RRGGBB.
    func testParseAcceptsHandWrittenRequests() {
        let cases: [(String, ControlRequest)] = [
            ("  {\"cmd\" : \"status\"}  ", .status),
            (#"{"cmd":"status","id":7}"#, .status),
            (#"{"output":"DP-1","cmd":"pause"}"#, .pause("DP-1")),
            (#"{"cmd":"toggle","output":null}"#, .toggle(nil)),
            (##"{"cmd":"set","output":"DP-1","color":"#FF8000","dim":0}"##,
             .set(OutputEntry(selector: .named("DP-1"), color: RGB(red: 255, green: 128, blue: 0), dim: 0))),
            (#"{"mode":"stretch","cmd":"set","video":"\/v\/a.mp4","output":"*"}"#,
             .set(OutputEntry(selector: .all, video: "/v/a.mp4", mode: .stretch))),
            (##"{"cmd":"set","output":"*","fallback":"#202020"}"##, .set(OutputEntry(selector: .all, fallback: .color(grey)))),
            (#"{"cmd":"set","output":"*","fallback":"/v/still.mp4"}"#,
             .set(OutputEntry(selector: .all, fallback: .video("/v/still.mp4")))),
            (#"{"cmd":"args","args":[],"cwd":"/"}"#, .handOver(args: [], cwd: "/")),
        ]
        for (line, want) in cases {
            XCTAssertEqual(ControlRequest.parse(line), .success(want), line)
        }
    }

    /// Each malformed request fails with kind "malformed" and a reason naming the problem.
    func testMalformedRequests() {
        let cases: [(String, String)] = [
            ("", "invalid JSON"),
            ("hello", "invalid JSON"),
            (#"{"cmd":"status""#, "invalid JSON"),
            (#"{"cmd":"status"} {"cmd":"quit"}"#, "invalid JSON"),
            ("[1,2]", "a request is a JSON object"),
            (#""status""#, "a request is a JSON object"),
            ("null", "a request is a JSON object"),
            ("{}", #"the request has no "cmd" string"#),
            (#"{"output":"DP-1"}"#, #"the request has no "cmd" string"#),
            (#"{"cmd":3}"#, #"the request has no "cmd" string"#),
            (#"{"cmd":null}"#, #"the request has no "cmd" string"#),
            (#"{"cmd":"dance"}"#, "unknown command 'dance'"),
            (#"{"cmd":"STATUS"}"#, "unknown command 'STATUS'"),
            (#"{"cmd":""}"#, "unknown command ''"),
            (#"{"cmd":"pause","output":1}"#, #""output" must be a string"#),
            (#"{"cmd":"resume","output":["DP-1"]}"#, #""output" must be a string"#),
            (#"{"cmd":"set","video":"/v/a.mp4"}"#, #"set needs "output" (a name or "*")"#),
            (#"{"cmd":"set","output":"","video":"/v/a.mp4"}"#, #"set needs "output" (a name or "*")"#),
            (#"{"cmd":"set","output":null,"video":"/v/a.mp4"}"#, #"set needs "output" (a name or "*")"#),
            (#"{"cmd":"set","output":"*"}"#, #"set needs "video" or a setting to change"#),
            (#"{"cmd":"set","output":"*","video":"a.mp4"}"#, #""video" must be an absolute path"#),
            (#"{"cmd":"set","output":"*","video":"~/a.mp4"}"#, #""video" must be an absolute path"#),
            (#"{"cmd":"set","output":"DP-1","video":"./a.mp4","mode":"fit"}"#, #""video" must be an absolute path"#),
            (#"{"cmd":"set","output":"*","video":"/v/a.mp4","mode":"zoom"}"#, #""mode": 'zoom' is not one of fill, fit, stretch, center, tile, span, span-fit"#),
            (#"{"cmd":"set","output":"*","mode":"FIT"}"#, #""mode": 'FIT' is not one of"#),
            (#"{"cmd":"set","output":"*","mode":1}"#, #""mode": '1' is not one of"#),
            (#"{"cmd":"set","output":"*","mode":null}"#, #""mode": 'null' is not one of"#),
            (#"{"cmd":"set","output":"*","color":"red"}"#, #""color": 'red' is not a colour RRGGBB"#),
            (#"{"cmd":"set","output":"*","color":"fff"}"#, #""color": 'fff' is not a colour RRGGBB"#),
            (#"{"cmd":"set","output":"*","color":102030}"#, #""color": '102030' is not a colour RRGGBB"#),
            (#"{"cmd":"set","output":"*","dim":1.5}"#, #""dim": '1.5' is not a number from 0 to 1"#),
            (#"{"cmd":"set","output":"*","dim":-0.1}"#, #""dim": '-0.1' is not a number from 0 to 1"#),
            (#"{"cmd":"set","output":"*","dim":"0.5"}"#, #""dim": '"0.5"' is not a number from 0 to 1"#),
            (#"{"cmd":"set","output":"*","fallback":""}"#, #""fallback": '' is not a colour RRGGBB or a video file"#),
            (#"{"cmd":"set","output":"*","fallback":5}"#, #""fallback": '5' is not a colour RRGGBB or a video file"#),
            (#"{"cmd":"args","cwd":"/"}"#, #"args needs "args" (strings) and "cwd""#),
            (#"{"cmd":"args","args":["a.mp4"]}"#, #"args needs "args" (strings) and "cwd""#),
            (#"{"cmd":"args","args":"a.mp4","cwd":"/"}"#, #"args needs "args" (strings) and "cwd""#),
            (#"{"cmd":"args","args":[],"cwd":1}"#, #"args needs "args" (strings) and "cwd""#),
        ]
        for (line, reason) in cases {
            guard case .failure(let e) = ControlRequest.parse(line) else {
                XCTFail("accepted: \(line)")
                continue
            }
            guard case .malformed = e else {
                XCTFail("\(line): \(e) is not .malformed")
                continue
            }
            XCTAssertEqual(e.kind, "malformed", line)
            XCTAssertTrue(e.description.hasPrefix("malformed request: "), e.description)
            XCTAssertTrue(e.description.contains(reason), "\(line): '\(e.description)' lacks '\(reason)'")
            XCTAssertEqual(e.reply["kind"], .string("malformed"), line)
            XCTAssertEqual(e.reply["ok"], .bool(false), line)
        }
    }

    /// A field of the wrong type is an error even when the rest of the request would do,
    /// rather than being dropped without a word.
    func testWrongTypesAreNotSilentlyDropped() {
        let cases: [(String, String)] = [
            (#"{"cmd":"set","output":"*","video":5,"mode":"fit"}"#, #""video""#),
            (#"{"cmd":"args","args":["a.mp4",1],"cwd":"/"}"#, #""args""#),
        ]
        for (line, field) in cases {
            guard case .failure(let e) = ControlRequest.parse(line) else {
                XCTFail("accepted: \(line)")
                continue
            }
            XCTAssertEqual(e.kind, "malformed", line)
            XCTAssertTrue(e.description.contains(field), "\(line): '\(e.description)' does not name \(field)")
        }
    }

    func testErrorKindsDescriptionsAndReplies() {
        let cases: [(ControlError, String, String)] = [
            (.malformed("x"), "malformed", "malformed request: x"),
            (.tooLong(limit: 65536), "too-long", "request longer than 65536 bytes"),
            (.noSuchOutput("DP-9"), "no-such-output", "no output matches 'DP-9'"),
            (.usage("unknown option '-x'"), "usage", "unknown option '-x'"),
            (.config("/c/config:3: unknown key 'speed'"), "config", "/c/config:3: unknown key 'speed'"),
            (.video("'/v/a.mp4': no such file"), "video", "'/v/a.mp4': no such file"),
            (.refused("not your instance"), "refused", "not your instance"),
            (.busy("reloading"), "busy", "reloading"),
        ]
        for (e, kind, text) in cases {
            XCTAssertEqual(e.kind, kind)
            XCTAssertEqual(e.description, text)
            XCTAssertEqual("\(e)", text)
            XCTAssertEqual(e.reply, .object([("ok", .bool(false)), ("error", .string(text)), ("kind", .string(kind))]))
        }
        XCTAssertEqual(ControlError.noSuchOutput("a\"b").reply.serialized,
                       #"{"ok":false,"error":"no output matches 'a\"b'","kind":"no-such-output"}"#)
        XCTAssertEqual(Set(cases.map { $0.0.kind }).count, cases.count, "kinds are distinct")
    }

    // MARK: CtlParser

    private func set(_ e: OutputEntry) -> CtlCommand { CtlCommand(request: .set(e)) }

    /// Every form `CtlParser.usage` advertises parses to the right request.
    func testCtlAcceptsEveryUsageForm() throws {
        let cases: [([String], CtlCommand)] = [
            (["status"], CtlCommand(request: .status)),
            (["status", "--json"], CtlCommand(request: .status, json: true)),
            (["pause"], CtlCommand(request: .pause(nil))),
            (["pause", "*"], CtlCommand(request: .pause(nil))),
            (["pause", "DP-1"], CtlCommand(request: .pause("DP-1"))),
            (["resume"], CtlCommand(request: .resume(nil))),
            (["resume", "*"], CtlCommand(request: .resume(nil))),
            (["resume", "Dell Inc. DELL U2720Q 6JCXM63"], CtlCommand(request: .resume("Dell Inc. DELL U2720Q 6JCXM63"))),
            (["toggle"], CtlCommand(request: .toggle(nil))),
            (["toggle", "*"], CtlCommand(request: .toggle(nil))),
            (["toggle", "HDMI-A-1"], CtlCommand(request: .toggle("HDMI-A-1"))),
            (["set", "DP-1", "a.mp4"], set(OutputEntry(selector: .named("DP-1"), video: "a.mp4"))),
            (["set", "*", "/v/a.mp4"], set(OutputEntry(selector: .all, video: "/v/a.mp4"))),
            (["set", "*", "/v/a.mp4", "-m", "fit", "-c", "#102030", "--dim", "0.5"],
             set(OutputEntry(selector: .all, video: "/v/a.mp4", mode: .fit, color: navy, dim: 0.5))),
            (["set", "DP-1", "--mode", "tile", "--color", "102030", "a.mp4"],
             set(OutputEntry(selector: .named("DP-1"), video: "a.mp4", mode: .tile, color: navy))),
            (["set", "DP-1", "-m", "center"], set(OutputEntry(selector: .named("DP-1"), mode: .center))),
            (["set", "*", "--dim", "0"], set(OutputEntry(selector: .all, dim: 0))),
            (["set", "*", "--dim", "1"], set(OutputEntry(selector: .all, dim: 1))),
            (["set", "*", "-f", "202020"], set(OutputEntry(selector: .all, fallback: .color(grey)))),
            (["set", "*", "-f", "/v/still.mp4"], set(OutputEntry(selector: .all, fallback: .video("/v/still.mp4")))),
            (["set", "DP-1", "a.mp4", "--fallback", "still.mp4"],
             set(OutputEntry(selector: .named("DP-1"), video: "a.mp4", fallback: .video("still.mp4")))),
            (["next"], CtlCommand(request: .next(nil))),
            (["next", "DP-1"], CtlCommand(request: .next("DP-1"))),
            (["prev", "*"], CtlCommand(request: .prev(nil))),
            (["set", "*", "/v/b.mp4", "--transition", "fade:2s"], {
                var e = OutputEntry(selector: .all, video: "/v/b.mp4")
                e.transition = .fade(2)
                return set(e)
            }()),
            (["set", "DP-1", "/v/dir", "--interval", "10m", "--loops", "3", "--shuffle"], {
                var e = OutputEntry(selector: .named("DP-1"), video: "/v/dir")
                e.interval = 600
                e.loops = 3
                e.shuffle = true
                return set(e)
            }()),
            (["set", "*", "--transition", "none", "--no-shuffle"], {
                var e = OutputEntry(selector: .all)
                e.transition = Transition.none
                e.shuffle = false
                return set(e)
            }()),
            (["set", "HDMI-A-1", "--max-fps", "30", "--battery-fps", "off"], {
                var e = OutputEntry(selector: .named("HDMI-A-1"))
                e.maxFps = 30
                e.batteryFps = 0
                return set(e)
            }()),
            (["set", "*", "--scaling", "compositor"], {
                var e = OutputEntry(selector: .all)
                e.scaling = .compositor
                return set(e)
            }()),
            (["set", "DP-1", "--hwdec", "nvdec-copy", "--hwdec-device", "1"], {
                var e = OutputEntry(selector: .named("DP-1"))
                e.hwdec = .nvdecCopy
                e.hwdecDevice = "1"
                return set(e)
            }()),
            (["set", "DP-1", "--fit", "off"], {
                var e = OutputEntry(selector: .named("DP-1"))
                e.fit = .off
                return set(e)
            }()),
            (["set", "*", "--pause-when", "fullscreen-anywhere,any-window", "--pause-ignore", "mpv,firefox"], {
                var e = OutputEntry(selector: .all)
                e.pauseWhen = PauseWhen([.fullscreenAnywhere, .anyWindow])
                e.pauseIgnore = ["mpv", "firefox"]
                return set(e)
            }()),
            (["set", "DP-1", "--workspace", "2", "/v/b.mp4"], {
                var e = OutputEntry(selector: .named("DP-1"), video: "/v/b.mp4")
                e.workspace = "2"
                return set(e)
            }()),
            (["reload"], CtlCommand(request: .reload)),
            (["forget"], CtlCommand(request: .forget(nil))),
            (["forget", "*"], CtlCommand(request: .forget(nil))),
            (["forget", "DP-1"], CtlCommand(request: .forget("DP-1"))),
            (["snapshot", "DP-1", "a.png"], CtlCommand(request: .snapshot(output: "DP-1", file: "a.png"))),
            (["quit"], CtlCommand(request: .quit)),
            (["subscribe"], CtlCommand(request: .subscribe)),
            (["subscribe", "--waybar"], CtlCommand(request: .subscribe, waybar: true)),
        ]
        for (args, want) in cases {
            XCTAssertEqual(try CtlParser.parse(args), want, "\(args)")
        }

        // The table covers every command and option the usage line names.
        let usage = CtlParser.usage
        let commands = usage.components(separatedBy: " | ").flatMap {
            $0.split(separator: " ")[0].split(separator: "|").map(String.init)
        }
        XCTAssertEqual(commands, ["status", "pause", "resume", "toggle", "next", "prev", "set", "forget", "snapshot", "reload", "quit", "subscribe"])
        let tested = Set(cases.flatMap { $0.0 })
        for c in commands { XCTAssertTrue(tested.contains(c), "usage command '\(c)' untested") }
        let options = usage.split(separator: " ").filter { $0.hasPrefix("[-") }.map { String($0.dropFirst().filter { $0 != "]" }) }
        XCTAssertEqual(options, ["--json", "--workspace", "-m", "-c", "--dim", "-f", "--transition", "--interval", "--loops", "--shuffle", "--max-fps",
                                 "--battery-fps", "--scaling", "--hwdec", "--hwdec-device", "--fit", "--pause-when", "--pause-ignore", "--waybar"])
        for o in options { XCTAssertTrue(tested.contains(o), "usage option '\(o)' untested") }
    }

    /// Unknown commands, options and extra arguments are refused; nil: any UsageError will do.
    func testCtlRejects() {
        let usage = CtlParser.usage
        let cases: [([String], UsageError?)] = [
            ([], .ctl("no command (\(usage))")),
            (["dance"], .ctl("unknown command 'dance' (\(usage))")),
            (["--json"], .ctl("unknown command '--json' (\(usage))")),
            (["Status"], .ctl("unknown command 'Status' (\(usage))")),
            (["status", "--verbose"], .unknownOption("--verbose")),
            (["status", "DP-1"], nil),
            // ctl's own words (the player's "one video per -o scope" is not ctl's).
            (["pause", "DP-1", "DP-2"], .ctl("pause takes at most one OUTPUT (or '*'), not also 'DP-2'")),
            (["pause", "--all"], .unknownOption("--all")),
            (["resume", "-o"], .unknownOption("-o")),
            (["resume", "DP-1", "--json"], .ctl("resume takes at most one OUTPUT (or '*'), not also '--json'")),
            (["toggle", "*", "DP-1"], .ctl("toggle takes at most one OUTPUT (or '*'), not also 'DP-1'")),
            (["reload", "now"], .ctl("reload takes no argument, not also 'now'")),
            (["forget", "DP-1", "DP-2"], .ctl("forget takes at most one OUTPUT (or '*'), not also 'DP-2'")),
            (["quit", "-f"], .ctl("quit takes no argument, not also '-f'")),
            (["subscribe", "DP-1"], .ctl("subscribe takes only --waybar, not 'DP-1'")),
            (["set"], .ctl("set needs OUTPUT (or '*') and VIDEO")),
            (["set", "-m", "fit", "a.mp4"], .ctl("set needs OUTPUT (or '*') and VIDEO")),
            (["set", "DP-1"], .ctl("set needs VIDEO or a setting to change")),
            (["set", "DP-1", "a.mp4", "b.mp4"], .ctl("set takes one VIDEO (or directory, or playlist): 'a.mp4', not also 'b.mp4'")),
            (["set", "DP-1", "a.mp4", "--loop"], .unknownOption("--loop")),
            (["set", "DP-1", "a.mp4", "-o", "DP-2"], .unknownOption("-o")),
            (["set", "DP-1", "a.mp4", "-m"], .missingValue(option: "-m")),
            (["set", "DP-1", "a.mp4", "--dim"], .missingValue(option: "--dim")),
            (["set", "DP-1", "-f"], .missingValue(option: "-f")),
            (["set", "DP-1", "a.mp4", "-m", "zoom"],
             .badValue(option: "-m", value: "zoom", expected: "one of fill, fit, stretch, center, tile, span, span-fit")),
            (["set", "DP-1", "a.mp4", "--color", "red"], .badValue(option: "--color", value: "red", expected: "a colour RRGGBB")),
            (["set", "DP-1", "a.mp4", "--dim", "2"], .badValue(option: "--dim", value: "2", expected: "a number from 0 to 1")),
            (["set", "DP-1", "a.mp4", "--dim", "half"], .badValue(option: "--dim", value: "half", expected: "a number from 0 to 1")),
            (["set", "DP-1", "a.mp4", "-f", ""],
             .badValue(option: "-f", value: "", expected: "a colour RRGGBB or a video file")),
        ]
        for (args, want) in cases {
            XCTAssertThrowsError(try CtlParser.parse(args), "\(args)") { error in
                guard let e = error as? UsageError else { return XCTFail("\(args): \(error) is not a UsageError") }
                if let want { XCTAssertEqual(e, want, "\(args)") }
            }
        }
        XCTAssertEqual(UsageError.ctl("no command").description, "ctl: no command")
    }

    /// What `ctl` produces is what the server accepts, once the client has made paths absolute.
    func testCtlRequestsSurviveTheWire() throws {
        for args in [["status", "--json"], ["pause", "DP-1"], ["toggle"], ["set", "*", "/v/a.mp4", "-m", "fit", "--dim", "0.3"],
                     ["set", "DP-1", "-c", "ffffff", "-f", "/v/still.mp4"], ["reload"], ["quit"], ["subscribe"]] {
            let request = try CtlParser.parse(args).request
            XCTAssertEqual(ControlRequest.parse(request.json.serialized), .success(request), "\(args)")
        }
    }

    // MARK: LineSplitter

    private func feed(_ s: inout LineSplitter, _ text: String) -> [LineSplitter.Item] { s.feed(Array(text.utf8)) }

    func testLinesSplitAcrossFeeds() {
        var s = LineSplitter(limit: 1024)
        XCTAssertEqual(feed(&s, #"{"cmd":"#), [])
        XCTAssertEqual(feed(&s, "\"status\"}\n{\"cmd\""), [.line(#"{"cmd":"status"}"#)])
        XCTAssertEqual(feed(&s, ":\"quit\"}\n\n{\"cmd\":\"reload\"}\n"),
                       [.line(#"{"cmd":"quit"}"#), .line(""), .line(#"{"cmd":"reload"}"#)])
        XCTAssertEqual(feed(&s, "no newline yet"), [], "an incomplete line is held")
        XCTAssertEqual(feed(&s, ""), [])
        XCTAssertEqual(feed(&s, "\n"), [.line("no newline yet")])
    }

    /// Byte by byte, including a multi-byte UTF-8 character cut between feeds.
    func testByteAtATimeKeepsUTF8Whole() {
        var s = LineSplitter(limit: 64)
        var items: [LineSplitter.Item] = []
        for b in Array("pause é→DP-1\nquit\n".utf8) { items += s.feed([b]) }
        XCTAssertEqual(items, [.line("pause é→DP-1"), .line("quit")])
    }

    func testCRLF() {
        var s = LineSplitter(limit: 64)
        XCTAssertEqual(feed(&s, "a\r\nb\n\r\n"), [.line("a"), .line("b"), .line("")])
        XCTAssertEqual(feed(&s, "c\r"), [])
        XCTAssertEqual(feed(&s, "\n"), [.line("c")], "CR and LF in different feeds")
        XCTAssertEqual(feed(&s, "d\re\n"), [.line("d\re")], "only a CR before the LF goes")
        XCTAssertEqual(feed(&s, "f\r\r\n"), [.line("f\r")], "only one CR goes")
    }

    func testLimitIsInclusive() {
        var s = LineSplitter(limit: 8)
        XCTAssertEqual(feed(&s, "12345678\n"), [.line("12345678")])
        XCTAssertEqual(feed(&s, "123456789\n"), [.tooLong])
        XCTAssertEqual(feed(&s, "ok\n"), [.line("ok")])
    }

    /// An overlong line is reported once, as soon as it passes the limit; the rest of it up to
    /// its newline is dropped, and the next line comes through.
    func testOverlongLineIsReportedOnceAndTheNextLineSurvives() {
        var s = LineSplitter(limit: 8)
        XCTAssertEqual(feed(&s, "ok1\n0123456"), [.line("ok1")])
        XCTAssertEqual(feed(&s, "789"), [.tooLong], "reported before the newline arrives")
        XCTAssertEqual(feed(&s, String(repeating: "x", count: 100)), [], "reported only once")
        XCTAssertEqual(feed(&s, String(repeating: "y", count: 100)), [])
        XCTAssertEqual(feed(&s, "zz\nok2\nok3"), [.line("ok2")], "the tail is dropped, not a line")
        XCTAssertEqual(feed(&s, "\n"), [.line("ok3")])

        // All in one feed, twice over, and the splitter still works at full length afterwards.
        var t = LineSplitter(limit: 4)
        let text = "a\n" + String(repeating: "L", count: 50) + "\nb\n" + String(repeating: "M", count: 5) + "\r\n12345678\n1234\n"
        XCTAssertEqual(feed(&t, text), [.line("a"), .tooLong, .line("b"), .tooLong, .tooLong, .line("1234")])
    }

    // MARK: OutputStatus and StateEvent

    func testOutputStatusJSONAndLine() throws {
        let cases: [(OutputStatus, String, String)] = [
            (OutputStatus(name: "DP-1", description: "Dell Inc. DELL U2720Q 6JCXM63", video: "/v/a.mp4", mode: .fit,
                          state: .playing, position: 12.3456, framesShown: 740, framesDropped: 2),
             #"{"name":"DP-1","description":"Dell Inc. DELL U2720Q 6JCXM63","video":"/v/a.mp4","mode":"fit","state":"playing","reason":null,"position":12.346,"frames_shown":740,"frames_dropped":2}"#,
             "DP-1: playing, /v/a.mp4 (fit), at 12.3 s, 740 frames shown, 2 dropped"),
            (OutputStatus(name: "DP-1", video: "/v/a.mp4", mode: .fill, state: .paused(.fullscreen), position: 1.96),
             #"{"name":"DP-1","description":"","video":"/v/a.mp4","mode":"fill","state":"paused","reason":"fullscreen","position":1.96,"frames_shown":0,"frames_dropped":0}"#,
             "DP-1: paused (fullscreen), /v/a.mp4 (fill), at 2.0 s, 0 frames shown, 0 dropped"),
            (OutputStatus(name: "DP-2", video: "/v/a.mp4", mode: .tile, state: .paused(.user), position: 0),
             #"{"name":"DP-2","description":"","video":"/v/a.mp4","mode":"tile","state":"paused","reason":"user","position":0,"frames_shown":0,"frames_dropped":0}"#,
             "DP-2: paused (user), /v/a.mp4 (tile), at 0.0 s, 0 frames shown, 0 dropped"),
            (OutputStatus(name: "HDMI-A-1", video: "/v/x.mp4", mode: nil, state: .failed(.reported(.resourceNotFound, "no such file")),
                          framesShown: 3, showing: "202020"),
             #"{"name":"HDMI-A-1","description":"","video":"/v/x.mp4","mode":null,"state":"failed","reason":"resource-not-found","error":"no such file","position":null,"frames_shown":3,"frames_dropped":0,"showing":"202020"}"#,
             "HDMI-A-1: failed (resource-not-found: no such file), /v/x.mp4, 3 frames shown, 0 dropped, showing 202020 instead"),
            (OutputStatus(name: "DP-3", video: nil, mode: nil, state: .idle),
             #"{"name":"DP-3","description":"","video":null,"mode":null,"state":"idle","reason":null,"position":null,"frames_shown":0,"frames_dropped":0}"#,
             "DP-3: idle, 0 frames shown, 0 dropped"),
            (OutputStatus(name: "DP-4", video: "/v/a.mp4", mode: .center, state: .loading, position: 59.94),
             #"{"name":"DP-4","description":"","video":"/v/a.mp4","mode":"center","state":"loading","reason":null,"position":59.94,"frames_shown":0,"frames_dropped":0}"#,
             "DP-4: loading, /v/a.mp4 (center), at 59.9 s, 0 frames shown, 0 dropped"),
        ]
        for (status, json, line) in cases {
            XCTAssertEqual(status.json.serialized, json)
            XCTAssertEqual(status.line, line)
            // The ctl client reads the reply back: the same status, position to the millisecond.
            var want = status
            want.position = status.position.map { ($0 * 1000).rounded() / 1000 }
            XCTAssertEqual(OutputStatus(json: try JSON.parse(json)), want, json)
        }
    }

    func testOutputStatusFromJSONRejectsWhatItCannotRead() throws {
        for text in [#"{"state":"playing"}"#, #"{"name":"DP-1"}"#, #"{"name":"DP-1","state":"dancing"}"#,
                     #"{"name":1,"state":"idle"}"#, "[]", "null"] {
            XCTAssertNil(OutputStatus(json: try JSON.parse(text)), text)
        }
        // The least a reply may carry: a name and a state.
        XCTAssertEqual(OutputStatus(json: try JSON.parse(#"{"name":"DP-1","state":"idle"}"#)),
                       OutputStatus(name: "DP-1", video: nil, mode: nil, state: .idle))
    }

    func testStateEventJSON() throws {
        let cases: [(StateEvent, String)] = [
            (StateEvent(output: "DP-1", state: .idle, video: nil),
             #"{"event":"state","output":"DP-1","state":"idle","reason":null,"video":null}"#),
            (StateEvent(output: "DP-1", state: .loading, video: "/v/a.mp4"),
             #"{"event":"state","output":"DP-1","state":"loading","reason":null,"video":"/v/a.mp4"}"#),
            (StateEvent(output: "DP-1", state: .playing, video: "/v/a.mp4"),
             #"{"event":"state","output":"DP-1","state":"playing","reason":null,"video":"/v/a.mp4"}"#),
            (StateEvent(output: "DP-1", state: .paused(.user), video: "/v/a.mp4"),
             #"{"event":"state","output":"DP-1","state":"paused","reason":"user","video":"/v/a.mp4"}"#),
            (StateEvent(output: "DP-1", state: .paused(.battery), video: "/v/a.mp4"),
             #"{"event":"state","output":"DP-1","state":"paused","reason":"battery","video":"/v/a.mp4"}"#),
            (StateEvent(output: "DP-1", state: .paused(.hidden), video: "/v/a.mp4"),
             #"{"event":"state","output":"DP-1","state":"paused","reason":"hidden","video":"/v/a.mp4"}"#),
            (StateEvent(output: "HDMI-A-1", state: .failed(.reported(.invalidResource, "not a \"video\"")), video: "/v/b.txt"),
             #"{"event":"state","output":"HDMI-A-1","state":"failed","reason":"invalid-resource","error":"not a \"video\"","video":"/v/b.txt"}"#),
            (StateEvent(output: "HDMI-A-1", state: .failed(.reported(.playbackFailed, "decoder error")), video: "/v/b.mp4"),
             #"{"event":"state","output":"HDMI-A-1","state":"failed","reason":"playback-failed","error":"decoder error","video":"/v/b.mp4"}"#),
        ]
        for (event, text) in cases {
            XCTAssertEqual(event.json.serialized, text)
            let parsed = try JSON.parse(text)
            XCTAssertEqual(parsed["event"]?.string, "state")
            XCTAssertEqual(parsed["state"]?.string, event.state.name)
        }
    }
}

/// One table of settings drives the command line, the config file, `ctl set` and the control
/// protocol: the same bad value gets the same words in all four.
final class SettingsTableTests: XCTestCase {
    func testOneWordingEverywhere() throws {
        let cases: [(flag: String, key: String, bad: String)] = [
            ("-m", "mode", "zoom"), ("-c", "color", "red"), ("--dim", "dim", "2"), ("-f", "fallback", ""),
        ]
        for c in cases {
            let setting = try XCTUnwrap(EntrySettings.flag(c.flag))
            XCTAssertEqual(setting.key, c.key)
            let problem = setting.problem(c.bad)
            // The command line and ctl set.
            XCTAssertThrowsError(try OptionParser.parse([c.flag, c.bad, "v.mp4"])) {
                XCTAssertEqual("\($0)", "option '\(c.flag)': \(problem)")
            }
            XCTAssertThrowsError(try CtlParser.parse(["set", "*", c.flag, c.bad])) {
                XCTAssertEqual("\($0)", "option '\(c.flag)': \(problem)")
            }
            // The config file (an empty value is its own error there).
            if !c.bad.isEmpty {
                XCTAssertThrowsError(try ConfigFile.parse("\(c.key) = \(c.bad)\n", path: "/c", home: nil)) {
                    XCTAssertEqual("\($0)", "/c:1: \(c.key) \(problem)")
                }
            }
            // The control protocol (dim is a number there).
            let value = setting.numeric ? c.bad : "\"\(c.bad)\""
            guard case .failure(let e) = ControlRequest.parse(#"{"cmd":"set","output":"*","\#(c.key)":\#(value)}"#) else {
                return XCTFail("\(c.key) accepted")
            }
            XCTAssertEqual("\(e)", "malformed request: \"\(c.key)\": \(problem)")
        }
        // Every setting round-trips through its own text.
        var e = OutputEntry(selector: .all)
        for (s, v) in zip(EntrySettings.all, ["fit", "102030", "0.25", "/v/b.mp4", "no", "yes"]) {
            XCTAssertTrue(s.set(v, in: &e), s.key)
            XCTAssertEqual(s.value(in: e), v, s.key)
        }
        XCTAssertFalse(EntrySettings.mode.set("zoom", in: &e))
        XCTAssertEqual(e.mode, .fit, "a refused value leaves the entry as it was")
    }
}

/// How an output's status names what it shows (OutputStatus.naming, .position).
final class StatusNamingTests: XCTestCase {
    func testNaming() {
        let red = RGB(red: 255, green: 0, blue: 0)
        let failed = VideoPlayerState.failed(.reported(.resourceNotFound, "'/v/b.mp4': no such file"))
        let rows: [(what: String, drawn: String?, target: String?, targetFailed: Bool, state: VideoPlayerState, solid: RGB?,
                    video: String?, showing: String?)] = [
            ("playing its target", "/v/a.mp4", "/v/a.mp4", false, .playing, nil, "/v/a.mp4", nil),
            ("a switch under way: still the video drawn", "/v/a.mp4", "/v/b.mp4", false, .playing, nil, "/v/a.mp4", nil),
            ("a failed switch: the old video shows, and says so", "/v/a.mp4", "/v/b.mp4", true, .playing, nil, "/v/a.mp4", "'/v/a.mp4'"),
            ("a failed target on a bare output: the target, by name", nil, "/v/b.mp4", true, failed, nil, "/v/b.mp4", nil),
            ("the fallback colour", nil, "/v/b.mp4", true, failed, red, "/v/b.mp4", "the colour ff0000"),
            ("loading its first video", nil, "/v/a.mp4", false, .loading, nil, "/v/a.mp4", nil),
        ]
        for r in rows {
            let got = OutputStatus.naming(drawn: r.drawn, target: r.target, targetFailed: r.targetFailed, state: r.state, solid: r.solid)
            XCTAssertEqual(got.video, r.video, r.what)
            XCTAssertEqual(got.showing, r.showing, r.what)
        }
    }

    func testPosition() {
        XCTAssertEqual(OutputStatus.position(frameIndex: 45, fps: 30), 1.5)
        XCTAssertNil(OutputStatus.position(frameIndex: nil, fps: 30), "no frame yet")
        XCTAssertNil(OutputStatus.position(frameIndex: 3, fps: 0), "no rate")
    }
}

/// What `ctl pause`, `resume` and `toggle` do to an output's user pause (PauseRules.userPaused).
final class UserPauseTests: XCTestCase {
    func testTable() {
        let rows: [(request: ControlRequest, before: Bool, want: Bool?, what: String)] = [
            (.pause(nil), false, true, "pause a playing output"),
            (.pause("DP-1"), true, true, "pause stays paused"),
            (.resume(nil), true, false, "resume"),
            (.resume(nil), false, false, "resume a playing output: nothing changes"),
            (.toggle(nil), false, true, "toggle a playing output"),
            (.toggle(nil), true, false, "toggle a paused output"),
            (.status, false, nil, "not a pause request"),
        ]
        for r in rows { XCTAssertEqual(PauseRules.userPaused(after: r.request, pausedByUser: r.before), r.want, r.what) }
    }
}

/// An output's surface in `ctl status --json`: written and read back whole, absent until configured.
final class SurfaceStatusTests: XCTestCase {
    func testRoundTrip() {
        var s = OutputStatus(name: "Virtual-0", video: "/v/a.mp4", mode: .fill, state: .playing)
        XCTAssertNil(OutputStatus(json: s.json)?.surface, "no surface configured yet: no field")
        s.surface = SurfaceStatus(buffer: "1920x1080", logical: "1280x720", scale: 1.5, preferredScale: 1.5, resizes: 0)
        XCTAssertEqual(OutputStatus(json: s.json)?.surface, s.surface)
        XCTAssertEqual(s.json["surface"]?.serialized, #"{"buffer":"1920x1080","logical":"1280x720","scale":1.5,"preferred_scale":1.5,"resizes":0}"#)
        let integer = SurfaceStatus(buffer: "640x360", logical: "640x360", scale: 1)
        XCTAssertNil(integer.json["preferred_scale"], "no fractional scale said: no field")
    }
}
