import WayLoopCore
import XCTest

final class VideoLookupTests: XCTestCase {
    func testDirectories() {
        let cases: [(dataHome: String?, home: String?, dirs: String?, prefix: String?, want: [String], note: String)] = [
            (nil, "/home/me", nil, "/usr/share/wayloop",
             ["/home/me/.local/share/wayloop", "/usr/local/share/wayloop", "/usr/share/wayloop"], "defaults; the prefix once"),
            ("/data", "/home/me", "/opt/share:/usr/share/", "/opt/wl/share/wayloop",
             ["/data/wayloop", "/opt/share/wayloop", "/usr/share/wayloop", "/opt/wl/share/wayloop"], "set, trailing slash"),
            ("relative", "/home/me", "rel:/usr/share", nil,
             ["/home/me/.local/share/wayloop", "/usr/share/wayloop"], "relative entries are ignored (XDG spec)"),
            (nil, nil, "", nil, ["/usr/local/share/wayloop", "/usr/share/wayloop"], "no home, empty XDG_DATA_DIRS"),
        ]
        for c in cases {
            XCTAssertEqual(VideoLookup.directories(xdgDataHome: c.dataHome, home: c.home, xdgDataDirs: c.dirs, prefixShare: c.prefix),
                           c.want, c.note)
        }
    }

    func testBareNames() {
        for s in ["ocean", "ocean.mp4", "-dash.mp4", "café"] { XCTAssertTrue(VideoLookup.isBareName(s), s) }
        for s in ["", ".", "..", "~", "./ocean", "/v/ocean", "~/ocean", "a/b"] { XCTAssertFalse(VideoLookup.isBareName(s), s) }
    }

    func testResolve() {
        let tree: [String: [String]] = [
            "/home/me/.local/share/wayloop": ["ocean.webm", "rain.txt", "rain.mkv", "notes"],
            "/usr/share/wayloop": ["ocean.mp4", "default-loop.mp4", "forest.zzz", "forest.a", "ocean"],
        ]
        let dirs = ["/home/me/.local/share/wayloop", "/nowhere", "/usr/share/wayloop"]
        let cases: [(String, String?, String)] = [
            ("ocean", "/home/me/.local/share/wayloop/ocean.webm", "the first directory with one wins"),
            ("rain", "/home/me/.local/share/wayloop/rain.mkv", "a known extension before any other"),
            ("forest", "/usr/share/wayloop/forest.a", "no known extension: the first other one, sorted"),
            ("default-loop.mp4", "/usr/share/wayloop/default-loop.mp4", "an exact name"),
            ("notes", "/home/me/.local/share/wayloop/notes", "an exact name without extension"),
            ("desert", nil, "nowhere"),
            ("ocean.", nil, "a trailing dot is no name of its own"),
        ]
        for (name, want, note) in cases {
            XCTAssertEqual(VideoLookup.resolve(name, in: dirs, entries: { tree[$0] ?? [] }), want, note)
        }
    }

    func testPlacesShowTheHomeAsTilde() {
        XCTAssertEqual(VideoLookup.places(["/home/me/.local/share/wayloop", "/usr/share/wayloop", "/home/meow/x"], home: "/home/me"),
                       "~/.local/share/wayloop, /usr/share/wayloop, /home/meow/x")
    }

    func testEntriesResolveBareNamesOnly() {
        var e = OutputEntry(selector: .all)
        e.video = "ocean"
        e.fallback = .video("rain")
        let r = e.resolvingNames { ["ocean": "/d/ocean.mp4"][$0] }
        XCTAssertEqual(r.video, "/d/ocean.mp4")
        XCTAssertEqual(r.fallback, .video("rain"), "unresolved: stays bare for the error")
        e.video = "./ocean"
        XCTAssertEqual(e.resolvingNames { _ in "/x" }.video, "./ocean", "a path is not a name")
    }

    func testTheConfigFileResolvesNames() throws {
        let text = "video = ocean\n[output DP-1]\nvideo = ./local.mp4\nfallback = rain\n"
        let entries = try ConfigFile.parse(text, path: "/cfg/wayloop/config", home: "/home/me",
                                           find: { name, dir in name == "ocean" ? "/d/ocean.mp4" : nil })
        XCTAssertEqual(entries.map(\.video), ["/d/ocean.mp4", "/cfg/wayloop/local.mp4"])
        XCTAssertEqual(entries[1].fallback, .video("rain"))
    }

    /// The error line of a video a config file named: a bare name was looked for beside the
    /// file first, and the places say so (a user met the list without it).
    func testErrorLineNamesTheConfigDirectoryFirst() {
        let missing = VideoError.nameNotFound("nothere.mp4", places: "~/.local/share/wayloop, /usr/share/wayloop")
        let cases: [(error: VideoError, origin: String?, want: String, note: String)] = [
            (missing, "/home/me/.config/wayloop/config:1",
             "'nothere.mp4': no such file (looked for 'nothere.mp4' and 'nothere.mp4.*' in ~/.config/wayloop, "
                + "~/.local/share/wayloop, /usr/share/wayloop) (named at /home/me/.config/wayloop/config:1)", "config beside home"),
            (missing, nil, missing.description, "the command line: the data directories only, no origin"),
            (.nameNotFound("a", places: ""), "/etc/wl.conf:3",
             "'a': no such file (looked for 'a' and 'a.*' in /etc) (named at /etc/wl.conf:3)", "no data directories"),
            (.nameNotFound("a", places: "/d"), "/wl.conf:2",
             "'a': no such file (looked for 'a' and 'a.*' in /, /d) (named at /wl.conf:2)", "a config at the root"),
            (.notFound("/x/a.mp4"), "/c/wl.conf:7", "'/x/a.mp4': no such file (named at /c/wl.conf:7)", "a path: only the origin"),
        ]
        for c in cases {
            XCTAssertEqual(c.error.line(namedAt: c.origin, home: "/home/me"), c.want, c.note)
        }
    }
}
