// `wayloop list`'s rules: its command line, a directory's entries, workshop items and Steam's
// library folders, the facts cache's lines, names and titles, both output forms, the previews'
// sizes, frames, palette and cache bounds.
import WayLoopCore
import XCTest

final class LibraryListTests: XCTestCase {
    func testTheCommandLine() throws {
        let cases: [([String], ListCommand?)] = [
            ([], ListCommand()),
            (["--json"], ListCommand(json: true)),
            (["a", "--previews", "b"], ListCommand(paths: ["a", "b"], previews: true)),
            (["--no-workshop", "--json"], ListCommand(json: true, noWorkshop: true)),
            (["-"], ListCommand(paths: ["-"])),
            (["--bogus"], nil),
            ([""], nil),
        ]
        for (args, want) in cases {
            let got = try? ListCommand.parse(args)
            XCTAssertEqual(got, want, "\(args)")
        }
        XCTAssertEqual(try OptionParser.parse(["list", "--json"]), .list(ListCommand(json: true)))
        XCTAssertThrowsError(try OptionParser.parse(["list", "--size", "1x1"])) { e in
            XCTAssertEqual("\(e)", "unknown option '--size'")
        }
    }

    func testADirectorysEntriesAreItsVideosAndItsSubDirectories() {
        let entries: [LibraryEntries.Entry] = [
            .init("b.MP4", isDirectory: false), .init("a.webm", isDirectory: false), .init("notes.txt", isDirectory: false),
            .init(".hidden.mp4", isDirectory: false), .init("123", isDirectory: true), .init(".steam", isDirectory: true),
            .init("clip.mp4", isDirectory: true), .init("mp4", isDirectory: false), .init("Z.gif", isDirectory: false),
        ]
        let split = LibraryEntries.split(entries)
        XCTAssertEqual(split.videos, ["Z.gif", "a.webm", "b.MP4"])
        XCTAssertEqual(split.folders, ["123", "clip.mp4"])
        XCTAssertEqual(LibraryEntries.stem("/x/y/ocean.mp4"), "ocean")
        XCTAssertEqual(LibraryEntries.stem("/x/.mp4"), ".mp4")
        XCTAssertEqual(LibraryEntries.stem("a.b.mkv"), "a.b")
    }

    func testAWorkshopItemsProjectFile() {
        let cases: [(String, Result<String, WorkshopError>, String?)] = [
            (#"{"title":"Rain","file":"rain.mp4","preview":"preview.gif","type":"video"}"#, .success("rain.mp4"), "Rain"),
            (#"{"title":" Neon ","file":"sub/neon.webm","type":"Video"}"#, .success("sub/neon.webm"), "Neon"),
            (#"{"title":"Scene","file":"scene.json","type":"scene"}"#,
             .failure(.notPlayable("a scene item (drawn by Wallpaper Engine's own renderer): WayLoop plays video items")), "Scene"),
            (#"{"file":"index.html","type":"web"}"#, .failure(.notPlayable("a web item (an HTML page): WayLoop plays video items")), nil),
            (#"{"file":"x.exe","type":"application"}"#,
             .failure(.notPlayable("an application item (a Windows program): WayLoop plays video items")), nil),
            (#"{"file":"x.mp4","type":"preset"}"#, .failure(.notPlayable("an item of type 'preset': WayLoop plays video items")), nil),
            (#"{"file":"x.mp4"}"#, .failure(.notPlayable("its project.json says no type: WayLoop plays video items")), nil),
            (#"{"type":"video"}"#, .failure(.notPlayable("a video item whose project.json names no file")), nil),
            (#"{"type":"video","file":"../../etc/passwd"}"#,
             .failure(.notPlayable("its project.json names a file outside its folder ('../../etc/passwd')")), nil),
            (#"{"type":"video","file":"/etc/passwd"}"#,
             .failure(.notPlayable("its project.json names a file outside its folder ('/etc/passwd')")), nil),
        ]
        for (text, verdict, title) in cases {
            guard case .success(let item) = WorkshopItem.parse(text) else { return XCTFail("\(text) did not parse") }
            XCTAssertEqual(item.verdict, verdict, text)
            XCTAssertEqual(item.title, title, text)
        }
        for bad in ["{\"title\": ", "[1, 2]", "", "\"video\""] {
            guard case .failure(.invalid(let why)) = WorkshopItem.parse(bad) else { return XCTFail("\(bad) parsed") }
            XCTAssertTrue(why.hasPrefix("its project.json is not "), why)
        }
        XCTAssertTrue(WorkshopItem.isID("1234567890"))
        for s in ["", "12a", "ocean", "１２", "123456789012345678901"] { XCTAssertFalse(WorkshopItem.isID(s), s) }
    }

    func testSteamsLibraryFolders() {
        let vdf = """
        "libraryfolders"
        {
        \t"0"
        \t{
        \t\t"path"\t\t"/home/u/.local/share/Steam"
        \t\t"label"\t\t""
        \t\t"apps" { "431960"\t\t"12345" }
        \t}
        \t"1"
        \t{
        \t\t"path"\t\t"/mnt/games/Steam Library/"
        \t}
        \t"2" { "PATH" "/media/x\\\\y" }
        \t// "path" "/commented"
        \t"3" { "path" "relative/lib" }
        }
        """
        XCTAssertEqual(SteamLibraries.folders(vdf: vdf), ["/home/u/.local/share/Steam", "/mnt/games/Steam Library", "/media/x\\y"])
        XCTAssertEqual(SteamLibraries.folders(vdf: "garbage \"path\""), [])
        XCTAssertEqual(SteamLibraries.workshopFolder(library: "/l/"), "/l/steamapps/workshop/content/431960")
        XCTAssertEqual(SteamLibraries.roots(home: "/home/u/", xdgDataHome: nil), [
            "/home/u/.local/share/Steam", "/home/u/.steam/steam", "/home/u/.steam/root",
            "/home/u/.var/app/com.valvesoftware.Steam/.local/share/Steam", "/home/u/snap/steam/common/.local/share/Steam",
        ])
        XCTAssertEqual(SteamLibraries.roots(home: nil, xdgDataHome: "/d"), ["/d/Steam"])
        XCTAssertEqual(SteamLibraries.roots(home: "rel", xdgDataHome: "rel2"), [])
    }

    func testTheFactsCacheReadsBackWhatItWrote() {
        let stamp = FileStamp(path: "/v/a \"b\"\n.mp4", bytes: 1234, modified: 1_796_602_091_273_513_796, inode: 16_220_530)
        let facts = FileFacts(title: "T", duration: 8.5, size: Size(width: 1280, height: 720), codec: "h264", fps: 29.97, identity: "00ff")
        let bad = FileFacts(problem: "not a playable video file (moov atom not found)")
        for f in [facts, bad, FileFacts()] {
            let line = FactsIndex.line(stamp, f)
            XCTAssertFalse(line.contains("\n"))
            guard let back = FactsIndex.parse(line) else { return XCTFail(line) }
            XCTAssertEqual(back.0, stamp)
            XCTAssertEqual(back.1, f)
        }
        let other = FileStamp(path: "/v/b.mp4", bytes: 1, modified: 2, inode: 3)
        let text = FactsIndex.text([stamp: facts, other: bad]) + "not json\n{\"v\":2,\"path\":\"/x\"}\n"
        let entries = FactsIndex.entries(text)
        XCTAssertEqual(Set(entries.keys), [stamp.path, other.path])
        XCTAssertEqual(entries[other.path]?.1, bad)
        // The previews' key changes with any part of the stamp.
        var keys: Set<String> = [stamp.key]
        for s in [FileStamp(path: "/v/x", bytes: 1234, modified: stamp.modified, inode: stamp.inode),
                  FileStamp(path: stamp.path, bytes: 1235, modified: stamp.modified, inode: stamp.inode),
                  FileStamp(path: stamp.path, bytes: 1234, modified: stamp.modified + 1, inode: stamp.inode),
                  FileStamp(path: stamp.path, bytes: 1234, modified: stamp.modified, inode: 1)] {
            XCTAssertTrue(keys.insert(s.key).inserted)
            XCTAssertEqual(s.key.count, 16)
        }
    }

    func testTheNameAPickerPassesBackAndTheTitle() {
        let dirs = ["/d1", "/d2"]
        let files = ["/d1": ["ocean.mp4", "rain.webm"], "/d2": ["ocean.mkv", "waves.mp4", "waves.mkv"]]
        let resolve: (String) -> String? = { VideoLookup.resolve($0, in: dirs) { files[$0] ?? [] } }
        let cases: [(String, [String], String)] = [
            ("/d1/ocean.mp4", ["ocean", "ocean.mp4"], "ocean"),
            ("/d2/ocean.mkv", ["ocean", "ocean.mkv"], "ocean.mkv"),    // "ocean" is d1's
            ("/d2/waves.mp4", ["waves", "waves.mp4"], "waves"),
            ("/d2/waves.mkv", ["waves", "waves.mkv"], "waves.mkv"),    // "waves" is the .mp4
            ("/d1/rain.webm", ["rain", "rain.webm"], "rain"),
            ("/d3/x.mp4", ["x", "x.mp4"], "/d3/x.mp4"),
            ("/d1/ocean.mp4", ["list/x", ".."], "/d1/ocean.mp4"),
        ]
        for (path, candidates, want) in cases {
            XCTAssertEqual(ListedItem.name(for: path, candidates: candidates, resolve: resolve), want, path)
        }
        XCTAssertEqual(ListedItem.title(workshop: "Rain", tag: "tag", path: "/a/b.mp4"), "Rain")
        XCTAssertEqual(ListedItem.title(workshop: nil, tag: " Tagged ", path: "/a/b.mp4"), "Tagged")
        XCTAssertEqual(ListedItem.title(workshop: "", tag: "  ", path: "/a/b.c.mp4"), "b.c")
    }

    private var sample: [ListedItem] {
        [
            ListedItem(name: "ocean", path: "/h/.local/share/wayloop/ocean.mp4", source: .library, title: "ocean",
                       facts: FileFacts(duration: 12.5, size: Size(width: 1920, height: 1080), codec: "h264", fps: 29.97),
                       bytes: 10 << 20, fitted: true, thumbnail: "/c/k.png", preview: "/c/k.gif"),
            ListedItem(name: "/v/broken.mp4", path: "/v/broken.mp4", source: .directory, title: "broken",
                       facts: FileFacts(problem: "not a playable video file (moov atom not found)"), bytes: 100),
            ListedItem(name: "42", path: "/w/42", source: .workshop, title: "A scene",
                       facts: FileFacts(problem: "a scene item"), bytes: 0, preview: "/w/42/preview.jpg",
                       workshop: ("42", "scene", "/w/42")),
        ]
    }

    func testTheJSONForm() throws {
        let text = ListOutput.json(sample, errors: [ListError(path: "/p", error: "cannot read it: Permission denied")])
        XCTAssertTrue(text.hasSuffix("}\n"))
        let j = try JSON.parse(text)
        XCTAssertEqual(j["version"]?.number, 1)
        guard let items = j["items"]?.array, items.count == 3 else { return XCTFail(text) }
        let keys = ["name", "path", "source", "title", "playable", "reason", "duration", "width", "height", "codec", "fps",
                    "bytes", "fitted", "thumbnail", "preview", "workshop"]
        for i in items {
            guard case .object(let pairs) = i else { return XCTFail("\(i)") }
            XCTAssertEqual(pairs.map(\.0), keys)
        }
        XCTAssertEqual(items[0]["name"]?.string, "ocean")
        XCTAssertEqual(items[0]["playable"]?.bool, true)
        XCTAssertEqual(items[0]["reason"], .null)
        XCTAssertEqual(items[0]["fps"]?.number, 29.97)
        XCTAssertEqual(items[0]["width"]?.number, 1920)
        XCTAssertEqual(items[0]["fitted"]?.bool, true)
        XCTAssertEqual(items[0]["workshop"], .null)
        XCTAssertEqual(items[1]["playable"]?.bool, false)
        XCTAssertEqual(items[1]["reason"]?.string, "not a playable video file (moov atom not found)")
        XCTAssertEqual(items[1]["duration"], .null)
        XCTAssertEqual(items[2]["source"]?.string, "workshop")
        XCTAssertEqual(items[2]["workshop"]?["type"]?.string, "scene")
        XCTAssertEqual(items[2]["workshop"]?["id"]?.string, "42")
        XCTAssertEqual(j["errors"]?.array?.first?["error"]?.string, "cannot read it: Permission denied")
        XCTAssertEqual(ListOutput.json([], errors: []), "{\"version\":1,\"items\":[],\"errors\":[]}\n")
    }

    func testTheTextForm() {
        XCTAssertEqual(ListOutput.text(sample, home: "/h"), """
        ocean          1920x1080, h264, 29.97 fps, 12.5 s, 10.0 MiB, fitted copy cached  ~/.local/share/wayloop/ocean.mp4
        /v/broken.mp4  cannot be played: not a playable video file (moov atom not found)
        42             "A scene": cannot be played: a scene item  /w/42
        3 videos, 1 playable

        """)
        XCTAssertEqual(ListOutput.text([], home: nil), "no videos\n")
        XCTAssertEqual(ListOutput.durationText(200), "3 min 20 s")
        XCTAssertEqual(ListOutput.durationText(120.2), "2 min")
        XCTAssertEqual(ListOutput.durationText(8), "8 s")
        XCTAssertEqual(ListOutput.sizeText(1023), "1023 B")
        XCTAssertEqual(ListOutput.sizeText(3 << 30), "3.0 GiB")
        XCTAssertEqual(ListOutput.trimmedNumber(23.976), "23.98")
        XCTAssertEqual(ListOutput.trimmedNumber(30), "30")
    }

    func testThePreviewsSizesAndFrames() {
        let sizes: [(Size, Int, Size)] = [
            (Size(width: 1920, height: 1080), 240, Size(width: 240, height: 136)),
            (Size(width: 1080, height: 1920), 240, Size(width: 240, height: 428)),
            (Size(width: 3840, height: 2160), 320, Size(width: 320, height: 180)),
            (Size(width: 100, height: 51), 240, Size(width: 100, height: 52)),
            (Size(width: 1, height: 1), 240, Size(width: 2, height: 2)),
            (Size(width: 10000, height: 1), 240, Size(width: 240, height: 2)),
            (Size(width: 0, height: 5), 240, Size(width: 2, height: 2)),
        ]
        for (shown, width, want) in sizes { XCTAssertEqual(PreviewPlan.size(of: shown, width: width), want, "\(shown)") }
        // 30 fps in: every third frame; 10 fps in: every one; 3 s at most.
        func taken(_ fps: Double, _ seconds: Double) -> Int {
            var last: Int?, n = 0
            for k in 0..<Int(seconds * fps) { if let s = PreviewPlan.slot(at: Double(k) / fps, after: last) { last = s; n += 1 } }
            return n
        }
        XCTAssertEqual(taken(30, 10), 30)
        XCTAssertEqual(taken(29.97, 10), 30)
        XCTAssertEqual(taken(10, 10), 30)
        XCTAssertEqual(taken(5, 10), 15)
        XCTAssertEqual(taken(60, 1), 10)
        XCTAssertNil(PreviewPlan.slot(at: 3.0, after: nil))
        XCTAssertNil(PreviewPlan.slot(at: -0.1, after: nil))
    }

    func testThePreviewCacheDropsWhatNoFileHasThenTheLeastRecentlyUsed() {
        let entries: [(name: String, bytes: Int, used: Int)] = [
            ("aaaa.png", 10, 5), ("aaaa.gif", 100, 5), ("bbbb.png", 10, 1), ("bbbb.gif", 100, 1),
            ("gone.gif", 1, 9), ("cccc.gif", 50, 3), ("dddd.gif.tmp-77", 5, 0),
        ]
        let live: Set<String> = ["aaaa", "bbbb", "cccc"]
        XCTAssertEqual(Set(PreviewPlan.evictions(entries, live: live, maxBytes: 1000)), ["gone.gif", "dddd.gif.tmp-77"])
        XCTAssertEqual(PreviewPlan.evictions(entries, live: live, maxBytes: 200), ["gone.gif", "dddd.gif.tmp-77", "bbbb.gif"])
        XCTAssertEqual(PreviewPlan.evictions(entries, live: live, maxBytes: 0).count, entries.count)
    }

    func testThePaletteKeepsFewColoursExactlyAndMapsToTheNearest() {
        func pixels(_ colors: [RGB], each: Int) -> [UInt8] {
            colors.flatMap { c in (0..<each).flatMap { _ in [c.red, c.green, c.blue] } }
        }
        let few = [RGB(red: 255, green: 0, blue: 0), RGB(red: 0, green: 255, blue: 0), RGB(red: 0, green: 0, blue: 255),
                   RGB(red: 255, green: 255, blue: 255)]
        XCTAssertEqual(Set(Palette.medianCut(pixels(few, each: 7)).colors.map { [$0.red, $0.green, $0.blue] }),
                       Set(few.map { [$0.red, $0.green, $0.blue] }))
        XCTAssertEqual(Palette.medianCut([]).colors, [])
        // A grey ramp of 4096 shades into 16 entries: sorted, spread over the ramp, none far from a shade.
        var ramp: [UInt8] = []
        for k in 0..<4096 { let v = UInt8(k / 16); ramp += [v, v, v] }
        let p = Palette.medianCut(ramp, count: 16)
        XCTAssertEqual(p.colors.count, 16)
        let greys = p.colors.map { Int($0.red) }.sorted()
        XCTAssertLessThan(greys.first!, 16)
        XCTAssertGreaterThan(greys.last!, 239)
        for v in stride(from: 0, to: 256, by: 1) {
            let n = p.colors[p.nearest(RGB(red: UInt8(v), green: UInt8(v), blue: UInt8(v)))]
            XCTAssertLessThanOrEqual(abs(Int(n.red) - v), 12, "\(v) → \(n)")
        }
        var memo: [UInt32: UInt8] = [:]
        let pal = Palette(colors: [RGB(red: 0, green: 0, blue: 0), RGB(red: 200, green: 200, blue: 200)])
        XCTAssertEqual(pal.indices([10, 10, 10, 190, 180, 200, 100, 100, 101, 99, 99, 99], memo: &memo), [0, 1, 1, 0])
        XCTAssertEqual(memo.count, 4)
    }
}
