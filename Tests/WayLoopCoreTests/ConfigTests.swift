import WayLoopCore
import XCTest

final class ConfigTests: XCTestCase {
    private let path = "/home/u/.config/wayloop/config"
    private let home = "/home/u"
    private let grey = RGB(red: 0x20, green: 0x20, blue: 0x20)
    private let navy = RGB(red: 0x10, green: 0x20, blue: 0x30)

    private func parse(_ text: String, path: String? = nil) throws -> [OutputEntry] {
        try ConfigFile.parse(text, path: path ?? self.path, home: home)
    }

    // MARK: Parsing

    func testFullExample() throws {
        let text = """
            # defaults for every output
            video = ~/Videos/loop.mp4
            mode = fill                 # fill | fit | stretch | center | tile
            color = 000000              # bars and borders
            dim = 0.2                   # 0 to 1
            fallback = 202020           # a colour or a video
            pause-on-fullscreen = yes
            pause-on-battery = no

            [output DP-1]               # a connector name
            video = left.mp4
            mode = fit

            # a description in quotes; '#' inside quotes is not a comment
            [output "Dell Inc. DELL U2720Q 6JCXM63"]
            video = "./videos/my # video.mp4"   # quotes keep spaces and '#'
            colour = "#102030"
            fallback = ../still.mp4
            pause-on-battery = true

            \t[ output * ]\t
            dim=0.5
            """
        let entries = try parse(text)
        XCTAssertEqual(entries, [
            OutputEntry(selector: .all, video: "/home/u/Videos/loop.mp4", mode: .fill, color: .black, dim: 0.2,
                        fallback: .color(grey), pauseOnFullscreen: true, pauseOnBattery: false),
            OutputEntry(selector: .named("DP-1"), video: "/home/u/.config/wayloop/left.mp4", mode: .fit),
            OutputEntry(selector: .named("Dell Inc. DELL U2720Q 6JCXM63"),
                        video: "/home/u/.config/wayloop/videos/my # video.mp4", color: navy,
                        fallback: .video("/home/u/.config/wayloop/../still.mp4"), pauseOnBattery: true),
            OutputEntry(selector: .all, dim: 0.5),
        ])

        // And what each output gets from it: named beats `*`, the later `*` section overrides the top.
        var o = Options()
        o.entries = entries
        XCTAssertEqual(o.settings(forOutput: "DP-1"),
                       OutputSettings(video: "/home/u/.config/wayloop/left.mp4", mode: .fit, color: .black, dim: 0.5,
                                      fallback: .color(grey), pauseOnFullscreen: true, pauseOnBattery: false))
        XCTAssertEqual(o.settings(forOutput: "DP-2", description: "Dell Inc. DELL U2720Q 6JCXM63"),
                       OutputSettings(video: "/home/u/.config/wayloop/videos/my # video.mp4", mode: .fill, color: navy,
                                      dim: 0.5, fallback: .video("/home/u/.config/wayloop/../still.mp4"),
                                      pauseOnFullscreen: true, pauseOnBattery: true))
        XCTAssertEqual(o.settings(forOutput: "HDMI-A-1"),
                       OutputSettings(video: "/home/u/Videos/loop.mp4", mode: .fill, color: .black, dim: 0.5,
                                      fallback: .color(grey), pauseOnFullscreen: true, pauseOnBattery: false))
        XCTAssertEqual(o.allVideos, ["/home/u/Videos/loop.mp4", "/home/u/.config/wayloop/left.mp4",
                                     "/home/u/.config/wayloop/videos/my # video.mp4", "/home/u/.config/wayloop/../still.mp4"])
    }

    func testEmptyAndCommentOnlyFilesGiveNoEntries() throws {
        XCTAssertEqual(try parse(""), [])
        XCTAssertEqual(try parse("\n\n   \n"), [])
        XCTAssertEqual(try parse("# nothing here\n   # nor here\n"), [])
        XCTAssertEqual(try parse("[output *]\n# empty\n"), [], "an empty * section says nothing")
    }

    func testOnlyASectionNoTopSection() throws {
        XCTAssertEqual(try parse("[output HDMI-A-1]\nvideo = /v/a.mp4\n"),
                       [OutputEntry(selector: .named("HDMI-A-1"), video: "/v/a.mp4")])
    }

    func testWhitespace() throws {
        XCTAssertEqual(try parse("video = /v/a.mp4\n\n  mode\t=\tfit  \n\t[output DP-1]\ndim = 1\n"), [
            OutputEntry(selector: .all, video: "/v/a.mp4", mode: .fit),
            OutputEntry(selector: .named("DP-1"), dim: 1),
        ])
    }

    /// A file saved with CRLF line ends reads like one with LF, and errors count lines the same.
    func testCRLFLineEnds() throws {
        XCTAssertEqual(try parse("video = /v/a.mp4\r\n\r\n  mode\t=\tfit  \r\n[output DP-1]\r\ndim = 1\r\n"), [
            OutputEntry(selector: .all, video: "/v/a.mp4", mode: .fit),
            OutputEntry(selector: .named("DP-1"), dim: 1),
        ])
        XCTAssertThrowsError(try ConfigFile.parse("mode = fit\r\n\r\nbogus\r\n", path: "/c/config", home: home)) { error in
            XCTAssertEqual(error as? ConfigError,
                           ConfigError(file: "/c/config", line: 3, reason: "expected 'key = value' or '[output NAME]'"))
        }
    }

    /// `[output NAME]` needs the word `output` on its own: `[outputs DP-1]` is not `[output s DP-1]`.
    func testSectionKeywordIsAWholeWord() {
        for header in ["[outputs DP-1]", "[outputDP-1]"] {
            let inner = String(header.dropFirst().dropLast())
            XCTAssertThrowsError(try ConfigFile.parse("\(header)\nmode = fit", path: "/c/config", home: home), header) { error in
                XCTAssertEqual(error as? ConfigError, ConfigError(file: "/c/config", line: 1,
                                                                  reason: "unknown section '[\(inner)]' (expected [output NAME])"))
            }
        }
    }

    /// The same key may appear once in each section.
    func testSameKeyInDifferentSections() throws {
        XCTAssertEqual(try parse("mode = fit\n[output DP-1]\nmode = tile\n[output DP-2]\nmode = center\n"), [
            OutputEntry(selector: .all, mode: .fit),
            OutputEntry(selector: .named("DP-1"), mode: .tile),
            OutputEntry(selector: .named("DP-2"), mode: .center),
        ])
    }

    func testValues() throws {
        let cases: [(String, OutputEntry)] = [
            ("mode = stretch", OutputEntry(selector: .all, mode: .stretch)),
            ("color = ff8000", OutputEntry(selector: .all, color: RGB(red: 255, green: 128, blue: 0))),
            ("color = \"#FF8000\"", OutputEntry(selector: .all, color: RGB(red: 255, green: 128, blue: 0))),
            ("color = #FF8000", OutputEntry(selector: .all, color: RGB(red: 255, green: 128, blue: 0))),
            ("color = #FF8000   # orange", OutputEntry(selector: .all, color: RGB(red: 255, green: 128, blue: 0))),
            ("video = /v/clip#2.mp4", OutputEntry(selector: .all, video: "/v/clip#2.mp4")),
            ("colour = 102030", OutputEntry(selector: .all, color: navy)),
            ("dim = 0", OutputEntry(selector: .all, dim: 0)),
            ("dim = 1", OutputEntry(selector: .all, dim: 1)),
            ("dim = .25", OutputEntry(selector: .all, dim: 0.25)),
            ("fallback = \"#202020\"", OutputEntry(selector: .all, fallback: .color(grey))),
            ("fallback = /v/still.mp4", OutputEntry(selector: .all, fallback: .video("/v/still.mp4"))),
            ("fallback = ~/still.mp4", OutputEntry(selector: .all, fallback: .video("/home/u/still.mp4"))),
            ("fallback = still.mp4", OutputEntry(selector: .all, fallback: .video("/home/u/.config/wayloop/still.mp4"))),
            ("video = /abs/a.mp4", OutputEntry(selector: .all, video: "/abs/a.mp4")),
            ("video = sub/a.mp4", OutputEntry(selector: .all, video: "/home/u/.config/wayloop/sub/a.mp4")),
            ("video = \"a=b.mp4\"", OutputEntry(selector: .all, video: "/home/u/.config/wayloop/a=b.mp4")),
            ("video = a=b.mp4", OutputEntry(selector: .all, video: "/home/u/.config/wayloop/a=b.mp4")),
        ]
        for (line, want) in cases {
            XCTAssertEqual(try parse(line), [want], line)
        }
        for (word, value) in [("yes", true), ("YES", true), ("true", true), ("on", true), ("1", true),
                              ("no", false), ("No", false), ("false", false), ("off", false), ("0", false)] {
            XCTAssertEqual(try parse("pause-on-fullscreen = \(word)\npause-on-battery = \(word)"),
                           [OutputEntry(selector: .all, pauseOnFullscreen: value, pauseOnBattery: value)], word)
        }
    }

    /// Section headers: a name, a quoted description, `*`, with or without inner spaces.
    func testSectionHeaders() throws {
        let cases: [(String, OutputSelector)] = [
            ("[output DP-1]", .named("DP-1")),
            ("[ output  DP-1 ]", .named("DP-1")),
            ("[output \"DP-1\"]", .named("DP-1")),
            ("[output \"Make Model Serial\"]", .named("Make Model Serial")),
            ("[output Make Model Serial]", .named("Make Model Serial")),
            ("[output *]", .all),
            ("[*]", .all),
        ]
        for (header, selector) in cases {
            XCTAssertEqual(try parse("\(header)\nmode = fit"), [OutputEntry(selector: selector, mode: .fit)], header)
        }
    }

    /// The path's directory: relative paths in a file at the root, and a directory with a slash.
    func testPathsAreRelativeToTheFilesDirectory() throws {
        XCTAssertEqual(try parse("video = a.mp4", path: "/config"), [OutputEntry(selector: .all, video: "/a.mp4")])
        XCTAssertEqual(try parse("video = ./a.mp4", path: "/etc/xdg/wayloop/config"),
                       [OutputEntry(selector: .all, video: "/etc/xdg/wayloop/a.mp4")])
        XCTAssertEqual(try ConfigFile.parse("video = ~/a.mp4", path: "/c/config", home: "/root"),
                       [OutputEntry(selector: .all, video: "/root/a.mp4")])
    }

    /// Where each video was named, for its errors: FILE:LINE (not part of what an entry says).
    func testEntriesRememberWhereTheirVideoWasNamed() throws {
        let entries = try parse("mode = fit\nvideo = a.mp4\n\n[output DP-1]\n# left\nvideo = /v/b.mp4\n", path: "/c/config")
        XCTAssertEqual(entries.map(\.videoOrigin), ["/c/config:2", "/c/config:6"])
        var o = Options()
        o.entries = entries + [OutputEntry(selector: .named("DP-2"), video: "/v/c.mp4")]
        XCTAssertEqual(o.origin(of: "/v/b.mp4"), "/c/config:6")
        XCTAssertNil(o.origin(of: "/v/c.mp4"), "the command line's")
        XCTAssertEqual(entries[1], OutputEntry(selector: .named("DP-1"), video: "/v/b.mp4"), "equal wherever it came from")
    }

    // MARK: Errors

    /// Every error names the file and the line, and says why.
    func testErrors() {
        let p = "/c/config"
        let keys = "(video, workspace NAME, mode, color, dim, fallback, pause-on-fullscreen, pause-on-battery, pause-when, pause-ignore, interval, loops, shuffle, transition, max-fps, battery-fps, scaling, hwdec, hwdec-device, fit, renderer)"
        let cases: [(String, Int, String)] = [
            ("video = /v/a.mp4\nspeed = 2\n", 2, "unknown key 'speed' \(keys)"),
            ("Video = /v/a.mp4", 1, "unknown key 'Video' \(keys)"),
            ("= /v/a.mp4", 1, "unknown key '' \(keys)"),
            ("\n# comment\nmode = zoom", 3, "mode 'zoom' is not one of fill, fit, stretch, center, tile, span, span-fit"),
            ("mode = Fill", 1, "mode 'Fill' is not one of fill, fit, stretch, center, tile, span, span-fit"),
            ("color = red", 1, "color 'red' is not a colour RRGGBB"),
            ("colour = 12345", 1, "colour '12345' is not a colour RRGGBB"),
            ("dim = 1.5", 1, "dim '1.5' is not a number from 0 to 1"),
            ("dim = -0.5", 1, "dim '-0.5' is not a number from 0 to 1"),
            ("dim = half", 1, "dim 'half' is not a number from 0 to 1"),
            ("pause-on-battery = maybe", 1, "pause-on-battery 'maybe' is not yes or no"),
            ("[output DP-1]\npause-on-fullscreen = y", 2, "pause-on-fullscreen 'y' is not yes or no"),
            ("video =", 1, "'video' has no value"),
            ("video = \"\"", 1, "'video' has no value"),
            ("video =    # a comment", 1, "'video' has no value"),
            // An unquoted # after whitespace starts a comment unless a whole #RRGGBB follows '='.
            ("color = #1020", 1, "'color' has no value"),
            ("mode = fit\ndim = 0.1\nmode = fill", 3, "'mode' is set twice in this section"),
            ("[output DP-1]\nvideo = a.mp4\nvideo = b.mp4", 3, "'video' is set twice in this section"),
            ("[output DP-1]\nmode = fit\n\n[output DP-1]\n", 4, "a second section for output 'DP-1'"),
            ("[output DP-1]\n[output \"DP-1\"]", 2, "a second section for output 'DP-1'"),
            ("[output *]\nmode = fit\n[output *]", 3, "a second section for output '*'"),
            ("[output *]\n[*]", 2, "a second section for output '*'"),
            ("mode = fit\n[output DP-1", 2, "a section header ends with ']'"),
            ("[output DP-1] x", 1, "a section header ends with ']'"),
            ("[screen DP-1]", 1, "unknown section '[screen DP-1]' (expected [output NAME])"),
            ("[]", 1, "unknown section '[]' (expected [output NAME])"),
            ("[output]", 1, "[output] needs a name: [output DP-1], [output \"Make Model Serial\"] or [output *]"),
            ("[output \"\"]", 1, "[output] needs a name: [output DP-1], [output \"Make Model Serial\"] or [output *]"),
            ("video /v/a.mp4", 1, "expected 'key = value' or '[output NAME]'"),
        ]
        for (text, line, reason) in cases {
            XCTAssertThrowsError(try ConfigFile.parse(text, path: p, home: home), text) { error in
                guard let e = error as? ConfigError else { return XCTFail("\(text): \(error) is not a ConfigError") }
                XCTAssertEqual(e, ConfigError(file: p, line: line, reason: reason), text)
                XCTAssertEqual(e.description, "\(p):\(line): \(reason)", text)
            }
        }
    }

    // MARK: Paths

    func testDefaultPath() {
        let cases: [(String?, String?, String?)] = [
            ("/x/cfg", "/home/u", "/x/cfg/wayloop/config"),
            ("/x/cfg", nil, "/x/cfg/wayloop/config"),
            (nil, "/home/u", "/home/u/.config/wayloop/config"),
            ("", "/home/u", "/home/u/.config/wayloop/config"),
            ("relative/cfg", "/home/u", "/home/u/.config/wayloop/config"),  // XDG: relative values are ignored
            (nil, nil, nil),
            (nil, "", nil),
            ("relative", nil, nil),
        ]
        for (xdg, home, want) in cases {
            XCTAssertEqual(ConfigFile.defaultPath(xdgConfigHome: xdg, home: home), want, "\(String(describing: xdg)) \(String(describing: home))")
        }
    }

    func testAbsolutePaths() {
        let cases: [(String, String, String?, String)] = [
            ("/abs/a.mp4", "/d", "/h", "/abs/a.mp4"),
            ("~/a.mp4", "/d", "/h", "/h/a.mp4"),
            ("~", "/d", "/h", "/h"),
            ("a.mp4", "/d", "/h", "/d/a.mp4"),
            ("a.mp4", "/d/", "/h", "/d/a.mp4"),
            ("./a.mp4", "/d", "/h", "/d/a.mp4"),
            ("sub/a.mp4", "/d/e", nil, "/d/e/sub/a.mp4"),
            ("../a.mp4", "/d/e", nil, "/d/e/../a.mp4"),
            ("~user/a.mp4", "/d", "/h", "/d/~user/a.mp4"),
            ("a.mp4", "", "/h", "/a.mp4"),
            // A directory completed with its slash is the same directory (one playlist, one watch).
            ("/v/loops/", "/d", nil, "/v/loops"),
            ("loops//", "/d", nil, "/d/loops"),
            ("~/Videos/", "/d", "/h", "/h/Videos"),
            ("/", "/d", nil, "/"),
        ]
        for (path, dir, home, want) in cases {
            XCTAssertEqual(Paths.absolute(path, in: dir, home: home), want, "\(path) in \(dir)")
        }
    }

    func testResolvingAnEntrysPaths() {
        let e = OutputEntry(selector: .named("DP-1"), video: "a.mp4", mode: .fit, fallback: .video("~/b.mp4"))
        XCTAssertEqual(e.resolvingPaths(in: "/cwd", home: "/h"),
                       OutputEntry(selector: .named("DP-1"), video: "/cwd/a.mp4", mode: .fit, fallback: .video("/h/b.mp4")))
        let c = OutputEntry(selector: .all, fallback: .color(grey))
        XCTAssertEqual(c.resolvingPaths(in: "/cwd", home: "/h"), c, "a colour is not a path; no video stays no video")
    }

    // MARK: Config and command line together

    /// The app puts the config file's entries first, then the command line's: later entries
    /// override earlier ones, and a named entry beats `*` whatever the order.
    func testConfigThenCommandLine() throws {
        let config = try ConfigFile.parse("""
            video = /v/config.mp4
            mode = fit
            fallback = 202020
            pause-on-fullscreen = no
            [output DP-1]
            video = /v/dp1.mp4
            dim = 0.3
            fallback = /v/still.mp4
            pause-on-battery = yes
            """, path: "/c/config", home: home)

        func options(_ args: [String]) throws -> Options {
            guard case .run(var o) = try OptionParser.parse(args) else { throw NotARunCommand(args: args) }
            o.entries = config + o.entries
            return o
        }

        // Nothing on the command line: the config decides.
        var o = try options([])
        XCTAssertEqual(o.settings(forOutput: "HDMI-A-1"),
                       OutputSettings(video: "/v/config.mp4", mode: .fit, fallback: .color(grey),
                                      pauseOnFullscreen: false, pauseOnBattery: false))
        XCTAssertEqual(o.settings(forOutput: "DP-1"),
                       OutputSettings(video: "/v/dp1.mp4", mode: .fit, dim: 0.3, fallback: .video("/v/still.mp4"),
                                      pauseOnFullscreen: false, pauseOnBattery: true))

        // A bare video and -m override the config's `*`; the config's DP-1 still beats the later `*`.
        o = try options(["/v/cli.mp4", "-m", "center", "-f", "303030"])
        let dark = RGB(red: 0x30, green: 0x30, blue: 0x30)
        XCTAssertEqual(o.settings(forOutput: "HDMI-A-1"),
                       OutputSettings(video: "/v/cli.mp4", mode: .center, fallback: .color(dark),
                                      pauseOnFullscreen: false, pauseOnBattery: false))
        XCTAssertEqual(o.settings(forOutput: "DP-1"),
                       OutputSettings(video: "/v/dp1.mp4", mode: .center, dim: 0.3, fallback: .video("/v/still.mp4"),
                                      pauseOnFullscreen: false, pauseOnBattery: true))
        XCTAssertEqual(o.allVideos, ["/v/config.mp4", "/v/dp1.mp4", "/v/cli.mp4", "/v/still.mp4"])

        // -o DP-1 on the command line overrides the config's DP-1 key by key.
        o = try options(["-o", "DP-1", "-i", "/v/cli-dp1.mp4", "--dim", "0"])
        XCTAssertEqual(o.settings(forOutput: "DP-1"),
                       OutputSettings(video: "/v/cli-dp1.mp4", mode: .fit, dim: 0, fallback: .video("/v/still.mp4"),
                                      pauseOnFullscreen: false, pauseOnBattery: true))
        XCTAssertEqual(o.settings(forOutput: "HDMI-A-1")?.video, "/v/config.mp4")

        // The command line's pause flags override every entry.
        o = try options(["--pause-on-battery"])
        XCTAssertEqual(o.settings(forOutput: "HDMI-A-1")?.pauseOnBattery, true)
        XCTAssertEqual(o.settings(forOutput: "DP-1")?.pauseOnBattery, true)
        XCTAssertEqual(o.settings(forOutput: "DP-1")?.pauseOnFullscreen, false)
        o = try options(["--no-fullscreen-pause"])
        XCTAssertEqual(o.settings(forOutput: "DP-1")?.pauseOnFullscreen, false)
        XCTAssertEqual(o.settings(forOutput: "DP-1")?.pauseOnBattery, true, "the config's yes stands")
    }

    /// Pause rules: an output's entry overrides `*`, the command line overrides both, else defaults.
    func testPauseRuleResolution() throws {
        var o = Options()
        o.entries = [
            OutputEntry(selector: .all, video: "/v/a.mp4", pauseOnBattery: true),
            OutputEntry(selector: .named("DP-1"), pauseOnFullscreen: false, pauseOnBattery: false),
        ]
        XCTAssertEqual(o.settings(forOutput: "DP-1")?.pauseOnFullscreen, false)
        XCTAssertEqual(o.settings(forOutput: "DP-1")?.pauseOnBattery, false)
        XCTAssertEqual(o.settings(forOutput: "DP-2")?.pauseOnFullscreen, true, "default")
        XCTAssertEqual(o.settings(forOutput: "DP-2")?.pauseOnBattery, true)

        o.pauseOnFullscreen = true
        o.pauseOnBattery = false
        for name in ["DP-1", "DP-2"] {
            XCTAssertEqual(o.settings(forOutput: name)?.pauseOnFullscreen, true, name)
            XCTAssertEqual(o.settings(forOutput: name)?.pauseOnBattery, false, name)
        }
    }
}
