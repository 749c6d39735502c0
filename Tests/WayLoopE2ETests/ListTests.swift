// `wayloop list` end to end (docs/list.md): the real binary over directories the tests build,
// with the real clips: both forms, bad inputs (an unreadable directory, a broken project.json,
// files that cannot be played) each on one line with the rest still listed, previews made on
// demand and cleaned away with their file, the facts cache, and Wallpaper Engine items found in
// Steam's places and played by ID. No compositor, except where an item plays.
import Foundation
import WayLoopTestSupport
import XCTest

/// A scratch HOME with its XDG directories, and `wayloop list` run there.
struct ListScratch {
    let root: String
    var home: String { root + "/home" }
    var cache: String { root + "/cache" }
    var data: String { root + "/data" }

    init(_ name: String) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-\(name)-\(getpid())").path
        try? FileManager.default.removeItem(atPath: root)
        for d in [home, cache, data + "/wayloop"] { try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true) }
        // The unprivileged test user reads and writes all of it (the unreadable-directory case).
        _ = Shell.run(["chmod", "-R", "a+rwX", root], timeout: 10)
        _ = Shell.run(["chmod", "a+x", FileManager.default.temporaryDirectory.path], timeout: 10)
    }

    var env: [String: String] {
        var e = ProcessInfo.processInfo.environment
        e["HOME"] = home
        e["XDG_CACHE_HOME"] = cache
        e["XDG_DATA_HOME"] = data
        e["XDG_DATA_DIRS"] = root + "/none"
        return e
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }

    func list(_ args: [String], user: String? = nil, binary: String = Repo.binary, timeout: Double = 120) -> ShellResult {
        let argv = (user.map { ["/usr/sbin/runuser", "-u", $0, "--"] } ?? []) + [binary, "list"] + args
        return Shell.run(argv, env: env, timeout: timeout)
    }

    /// The JSON form, parsed; fails the test on anything else.
    func json(_ args: [String], status: Int32 = 0, user: String? = nil, binary: String = Repo.binary,
              file: StaticString = #filePath, line: UInt = #line) throws -> (doc: [String: Any], items: [[String: Any]], stderr: String) {
        let r = list(["--json"] + args, user: user, binary: binary)
        XCTAssertEqual(r.status, status, "list --json \(args): \(r.stderr)", file: file, line: line)
        guard let data = r.stdout.data(using: .utf8), let doc = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let items = doc["items"] as? [[String: Any]] else {
            throw HarnessError("list --json \(args) printed no JSON document: \(r.stdout) \(r.stderr)")
        }
        XCTAssertEqual(doc["version"] as? Int, 1, file: file, line: line)
        return (doc, items, r.stderr)
    }

    func copy(_ clip: String, to path: String) throws {
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Repo.clip(clip), toPath: path)
    }

    func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// A Wallpaper Engine item's folder under `content`: project.json and whatever files.
    func item(_ content: String, _ id: String, project: String, files: [String: String] = [:]) throws {
        let folder = content + "/" + id
        try write(project, to: folder + "/project.json")
        for (name, clip) in files { try copy(clip, to: folder + "/" + name) }
    }

    func byPath(_ items: [[String: Any]]) -> [String: [String: Any]] {
        var out: [String: [String: Any]] = [:]
        for i in items { if let p = i["path"] as? String { out[p] = i } }
        return out
    }
}

final class ListTests: XCTestCase {
    /// A directory of a playable clip, files that cannot be played and one that is no video,
    /// and an unreadable directory beside it: every video is listed, each problem in one line,
    /// and the listing's status says something could not be read.
    func testADirectoryListsEveryVideoAndEachProblemInOneLine() throws {
        let s = try ListScratch("list-dir")
        defer { s.remove() }
        let dir = s.root + "/videos"
        try s.copy("grid.mp4", to: dir + "/grid.mp4")
        try s.copy("truncated.mp4", to: dir + "/truncated.mp4")
        try s.copy("text.mp4", to: dir + "/text.mp4")
        try s.copy("unsupported.avi", to: dir + "/unsupported.avi")
        try s.copy("empty.mp4", to: dir + "/empty.mp4")
        try s.copy("audio-only.m4a", to: dir + "/audio.mkv")
        try s.write("not a video\n", to: dir + "/notes.txt")
        let locked = s.root + "/locked"
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: true)
        try s.copy("grid.mp4", to: locked + "/hidden.mp4")
        _ = Shell.run(["chmod", "-R", "a+rwX", s.root], timeout: 10)
        XCTAssertEqual(chmod(locked, 0), 0)
        defer { chmod(locked, 0o755) }
        // Root reads any directory: run as the unprivileged test user, from a binary it can reach.
        let user = getuid() == 0 ? "wayloop-test" : nil
        let binary = try reachableBinary(s)

        let (doc, items, stderr) = try s.json([dir, locked], status: 1, user: user, binary: binary)
        XCTAssertEqual(stderr, "", "the JSON form says its problems in the document")
        let byPath = s.byPath(items)
        XCTAssertEqual(items.compactMap { $0["path"] as? String }, ["audio.mkv", "empty.mp4", "grid.mp4", "text.mp4", "truncated.mp4",
                                                                   "unsupported.avi"].map { dir + "/" + $0 })
        let grid = try XCTUnwrap(byPath[dir + "/grid.mp4"])
        XCTAssertEqual(grid["playable"] as? Bool, true)
        XCTAssertTrue(grid["reason"] is NSNull)
        XCTAssertEqual(grid["width"] as? Int, 1280)
        XCTAssertEqual(grid["height"] as? Int, 720)
        XCTAssertEqual(grid["codec"] as? String, "h264")
        XCTAssertEqual(grid["fps"] as? Double, 30)
        XCTAssertEqual(try XCTUnwrap(grid["duration"] as? Double), 1, accuracy: 0.05)
        XCTAssertEqual(grid["source"] as? String, "directory")
        XCTAssertEqual(grid["name"] as? String, dir + "/grid.mp4")
        XCTAssertEqual(grid["fitted"] as? Bool, false)
        let reasons: [String: String] = [
            "truncated.mp4": "not a playable video file", "text.mp4": "not a playable video file",
            "unsupported.avi": "has no decoder in this FFmpeg build", "empty.mp4": "the file is empty",
            "audio.mkv": "has no video stream",
        ]
        for (name, reason) in reasons {
            let i = try XCTUnwrap(byPath[dir + "/" + name], name)
            XCTAssertEqual(i["playable"] as? Bool, false, name)
            let r = i["reason"] as? String ?? ""
            XCTAssertTrue(r.contains(reason), "\(name): \(r)")
            XCTAssertFalse(r.contains("\n") || r.contains(dir), "\(name): one line, without the path: \(r)")
        }
        let errors = try XCTUnwrap(doc["errors"] as? [[String: String]])
        XCTAssertEqual(errors.count, 1, "\(errors)")
        XCTAssertEqual(errors.first?["path"], locked)
        XCTAssertEqual(errors.first?["error"], "cannot read it: Permission denied")

        // The text form: a line per video, the count, and the unreadable directory on stderr.
        let t = s.list([dir, locked], user: user, binary: binary)
        XCTAssertEqual(t.status, 1, t.stderr)
        XCTAssertEqual(t.stderr, "wayloop: notice: list: '\(locked)': cannot read it: Permission denied\n")
        let lines = t.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 7, t.stdout)
        XCTAssertEqual(lines.last, "6 videos, 1 playable")
        XCTAssertTrue(lines.contains { $0.hasPrefix(dir + "/grid.mp4") && $0.contains("1280x720, h264, 30 fps, 1 s") }, t.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix(dir + "/text.mp4") && $0.contains("cannot be played: not a playable video file") }, t.stdout)

        // A bad command line: one line, status 2.
        let bad = s.list(["--size", "9"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertEqual(bad.stderr, "wayloop: error: usage: unknown option '--size' (see wayloop --help)\n")
        let gone = s.list([s.root + "/nothing-here"])
        XCTAssertEqual(gone.status, 1)
        XCTAssertEqual(gone.stderr, "wayloop: notice: list: '\(s.root)/nothing-here': no such file or directory\n")
        XCTAssertEqual(gone.stdout, "no videos\n")
    }

    /// With no path: the wayloop data directories, each video under the bare name `wayloop NAME`
    /// plays (the first directory's where two have one), and its title from the file's tag.
    func testTheDataDirectoriesAreListedByTheNamesThatPlayThem() throws {
        let s = try ListScratch("list-data")
        defer { s.remove() }
        let second = s.root + "/share"
        try s.copy("grid.mp4", to: s.data + "/wayloop/ocean.mp4")
        try s.copy("grid.mp4", to: second + "/wayloop/ocean.mp4")
        try s.copy("grid.mp4", to: second + "/wayloop/rain.mp4")
        // A title tag, written by ffmpeg (stream copy).
        let tagged = s.data + "/wayloop/tagged.mp4"
        let r = Shell.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", Repo.clip("grid.mp4"), "-c", "copy",
                           "-metadata", "title=Grid at dusk", tagged], timeout: 60)
        XCTAssertEqual(r.status, 0, r.stderr)
        var env = s.env
        env["XDG_DATA_DIRS"] = second
        let out = Shell.run([Repo.binary, "list", "--json", "--no-workshop"], env: env, timeout: 60)
        XCTAssertEqual(out.status, 0, out.stderr)
        let doc = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
        let items = try XCTUnwrap(doc["items"] as? [[String: Any]])
        let names = items.map { "\($0["name"] ?? "")=\($0["path"] ?? "")" }
        XCTAssertEqual(names, [
            "ocean=\(s.data)/wayloop/ocean.mp4", "tagged=\(tagged)",
            "\(second)/wayloop/ocean.mp4=\(second)/wayloop/ocean.mp4", "rain=\(second)/wayloop/rain.mp4",
        ])
        XCTAssertEqual(items.map { $0["source"] as? String }, Array(repeating: "library", count: 4))
        XCTAssertEqual(items[1]["title"] as? String, "Grid at dusk")
        XCTAssertEqual(items[0]["title"] as? String, "ocean")
        // The name plays what the listing says: `wayloop thumbnail NAME` takes it.
        let png = s.root + "/rain.png"
        let th = Shell.run([Repo.binary, "thumbnail", "rain", png], env: env, timeout: 60)
        XCTAssertEqual(th.status, 0, th.stderr)
    }

    /// `--previews` makes a PNG still and a looping GIF of the first seconds, at idle priority,
    /// once; a plain `list` names them without making anything; a file that changes gets new
    /// ones and a file that is gone takes its previews with it.
    func testPreviewsAreMadeOnDemandCachedAndCleanedAway() throws {
        let s = try ListScratch("list-previews")
        defer { s.remove() }
        let dir = s.root + "/v"
        try s.copy("grid.mp4", to: dir + "/grid.mp4")
        try s.copy("bench-1080p30.mp4", to: dir + "/long.mp4")
        try s.copy("truncated.mp4", to: dir + "/broken.mp4")

        let plain = try s.json([dir])
        XCTAssertTrue(plain.items.allSatisfy { $0["thumbnail"] is NSNull && $0["preview"] is NSNull }, "nothing made without --previews")
        XCTAssertFalse(FileManager.default.fileExists(atPath: s.cache + "/wayloop/previews"))

        let made = try s.json([dir, "--previews"])
        let byPath = s.byPath(made.items)
        let grid = try XCTUnwrap(byPath[dir + "/grid.mp4"])
        let thumb = try XCTUnwrap(grid["thumbnail"] as? String)
        let gif = try XCTUnwrap(grid["preview"] as? String)
        XCTAssertTrue(thumb.hasPrefix(s.cache + "/wayloop/previews/") && thumb.hasSuffix(".png"), thumb)
        XCTAssertEqual(gif, String(thumb.dropLast(4)) + ".gif")
        // The still is the clip's picture, aspect kept (the grid's cells where they belong).
        let img = try Image(png: thumb)
        XCTAssertEqual([img.width, img.height], [320, 180])
        let r = GridPicture.fillReport(img, cells: try GridPicture.colors())
        XCTAssertTrue(r.ok, r.report)
        // The GIF: 240 wide, 10 frames a second, at most 3 s; the 1 s grid gives its 10.
        func probe(_ f: String) -> [String: String] {
            let p = Shell.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                               "stream=codec_name,width,height,nb_read_frames,r_frame_rate", "-of", "default=nw=1", f], timeout: 60)
            var out: [String: String] = [:]
            for l in p.stdout.split(separator: "\n") { let kv = l.split(separator: "=", maxSplits: 1); if kv.count == 2 { out[String(kv[0])] = String(kv[1]) } }
            return out
        }
        XCTAssertEqual(probe(gif), ["codec_name": "gif", "width": "240", "height": "136", "nb_read_frames": "10", "r_frame_rate": "10/1"])
        let longGif = try XCTUnwrap(byPath[dir + "/long.mp4"]?["preview"] as? String)
        XCTAssertEqual(probe(longGif)["nb_read_frames"], "30", "a 20 s clip gives 3 s")
        XCTAssertTrue(byPath[dir + "/broken.mp4"]?["preview"] is NSNull)

        // Cached: a plain list names them, and nothing is made again (same files, same inodes).
        let before = try FileManager.default.attributesOfItem(atPath: gif)[.systemFileNumber] as? Int
        let again = s.byPath(try s.json([dir]).items)
        XCTAssertEqual(again[dir + "/grid.mp4"]?["preview"] as? String, gif)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: gif)[.systemFileNumber] as? Int, before)

        // Gone: its previews go at the next list; the others stay.
        try FileManager.default.removeItem(atPath: dir + "/grid.mp4")
        _ = try s.json([dir])
        XCTAssertFalse(FileManager.default.fileExists(atPath: gif))
        XCTAssertFalse(FileManager.default.fileExists(atPath: thumb))
        XCTAssertTrue(FileManager.default.fileExists(atPath: longGif))
    }

    /// The facts are read once per version of a file: a file whose bytes change behind an
    /// unchanged stat keeps its cached facts (proof that it was not opened again), and once its
    /// modification time moves it is read anew. A thousand files list from the cache.
    func testTheFactsCacheIsUsedUntilTheFileChanges() throws {
        let s = try ListScratch("list-facts")
        defer { s.remove() }
        let dir = s.root + "/many"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let grid = Repo.clip("grid.mp4")
        for k in 0..<1000 { try FileManager.default.linkItem(atPath: grid, toPath: dir + String(format: "/clip-%04d.mp4", k)) }
        let victim = dir + "/victim.mp4"
        try s.copy("grid.mp4", to: victim)
        XCTAssertEqual(try s.json([dir]).items.filter { $0["playable"] as? Bool == true }.count, 1001)
        let index = try String(contentsOfFile: s.cache + "/wayloop/library", encoding: .utf8)
        XCTAssertEqual(index.split(separator: "\n").count, 1001)

        // The victim's bytes replaced by garbage of the same size, its mtime put back.
        var st = stat()
        XCTAssertEqual(stat(victim, &st), 0)
        let size = Int(st.st_size)
        let fd = open(victim, O_WRONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        let garbage = [UInt8](repeating: 0x5a, count: size)
        XCTAssertEqual(garbage.withUnsafeBytes { pwrite(fd, $0.baseAddress, size, 0) }, size)
        close(fd)
        var times = [st.st_atim, st.st_mtim]
        XCTAssertEqual(utimensat(AT_FDCWD, victim, &times, 0), 0)
        let start = Date()
        let cached = s.byPath(try s.json([dir]).items)
        print("list of 1001 files from the facts cache (\(Repo.binary)): \(String(format: "%.3f", Date().timeIntervalSince(start))) s")
        XCTAssertEqual(cached[victim]?["playable"] as? Bool, true, "the cached facts stand while the stat is unchanged")

        // A new modification time: opened again, and now it says why it cannot be played.
        times[1].tv_sec += 1
        XCTAssertEqual(utimensat(AT_FDCWD, victim, &times, 0), 0)
        let fresh = s.byPath(try s.json([dir]).items)
        XCTAssertEqual(fresh[victim]?["playable"] as? Bool, false)
        XCTAssertEqual(fresh.count, 1001)
    }

    /// Wallpaper Engine items in Steam's usual place and in a second library folder that
    /// libraryfolders.vdf names: video items with their titles and own previews, the others
    /// listed as not playable with one reason each, a broken project.json too; `wayloop ID` and
    /// the item's folder both name the video.
    func testWorkshopItemsAreListedAndAVideoItemIsFoundByItsID() throws {
        let s = try ListScratch("list-workshop")
        defer { s.remove() }
        let steam = s.home + "/.local/share/Steam"
        let content = steam + "/steamapps/workshop/content/431960"
        let other = s.root + "/games/SteamLibrary"
        try s.write("\"libraryfolders\"\n{\n\t\"0\"\n\t{\n\t\t\"path\"\t\t\"\(steam)\"\n\t}\n\t\"1\"\n\t{\n\t\t\"path\"\t\t\"\(other)\"\n\t}\n}\n",
                    to: steam + "/steamapps/libraryfolders.vdf")
        try s.item(content, "1001", project: #"{"title":"Grid loop","file":"grid.mp4","preview":"preview.gif","type":"video"}"#,
                   files: ["grid.mp4": "grid.mp4", "preview.gif": "grid.mp4"])
        try s.item(content, "1002", project: #"{"title":"A scene","file":"scene.json","preview":"preview.jpg","type":"scene"}"#)
        try s.item(content, "1003", project: #"{"title":"Broken", "file": "#)
        try s.item(content, "1004", project: #"{"title":"Page","file":"index.html","type":"web"}"#)
        try s.item(content, "1005", project: #"{"title":"Missing","file":"gone.mp4","type":"video"}"#)
        try s.item(SteamLibraries_workshop(other), "2001", project: #"{"title":"Elsewhere","file":"v.webm","type":"Video"}"#,
                   files: ["v.webm": "grid.mp4"])
        let (doc, items, _) = try s.json([])
        XCTAssertEqual((doc["errors"] as? [Any])?.count, 0)
        var byID: [String: [String: Any]] = [:]
        for i in items { if let w = i["workshop"] as? [String: Any], let id = w["id"] as? String { byID[id] = i } }
        XCTAssertEqual(Set(byID.keys), ["1001", "1002", "1003", "1004", "1005", "2001"])
        let video = try XCTUnwrap(byID["1001"])
        XCTAssertEqual(video["name"] as? String, "1001")
        XCTAssertEqual(video["title"] as? String, "Grid loop")
        XCTAssertEqual(video["path"] as? String, content + "/1001/grid.mp4")
        XCTAssertEqual(video["playable"] as? Bool, true)
        XCTAssertEqual(video["preview"] as? String, content + "/1001/preview.gif")
        XCTAssertEqual((video["workshop"] as? [String: Any])?["type"] as? String, "video")
        XCTAssertEqual(byID["2001"]?["playable"] as? Bool, true)
        XCTAssertEqual(byID["2001"]?["path"] as? String, SteamLibraries_workshop(other) + "/2001/v.webm")
        let reasons: [String: String] = [
            "1002": "a scene item (drawn by Wallpaper Engine's own renderer): WayLoop plays video items",
            "1004": "a web item (an HTML page): WayLoop plays video items",
            "1005": "its project.json names 'gone.mp4', which is not in its folder",
        ]
        for (id, reason) in reasons {
            XCTAssertEqual(byID[id]?["playable"] as? Bool, false, id)
            XCTAssertEqual(byID[id]?["reason"] as? String, reason, id)
            XCTAssertEqual(byID[id]?["path"] as? String, content + "/" + id, id)
        }
        XCTAssertTrue((byID["1003"]?["reason"] as? String ?? "").hasPrefix("its project.json is not valid JSON"), "\(byID["1003"] ?? [:])")
        XCTAssertEqual(byID["1003"]?["title"] as? String, "1003")
        // --no-workshop leaves them out; a content folder given as a path lists its items.
        XCTAssertEqual(try s.json(["--no-workshop"]).items.count, 0)
        XCTAssertEqual(try s.json([content]).items.count, 5)
        XCTAssertEqual(try s.json([content + "/1001"]).items.first?["name"] as? String, "1001")

        // The ID and the folder name the video (thumbnail resolves names as the player does);
        // an item that plays nothing says why, in one line.
        for name in ["1001", content + "/1001", "2001"] {
            let r = Shell.run([Repo.binary, "thumbnail", name, s.root + "/t.png"], env: s.env, timeout: 60)
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
        }
        let scene = Shell.run([Repo.binary, "thumbnail", "1002", s.root + "/t.png"], env: s.env, timeout: 60)
        XCTAssertEqual(scene.status, 5)
        XCTAssertEqual(scene.stderr, "wayloop: error: video: '\(content)/1002': not a playable video file (a Wallpaper Engine item: "
            + "a scene item (drawn by Wallpaper Engine's own renderer): WayLoop plays video items)\n")
    }

    /// The binary copied where the unprivileged test user can run it (a checkout under /root is not).
    private func reachableBinary(_ s: ListScratch) throws -> String {
        let dir = s.root + "/bin"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try? FileManager.default.removeItem(atPath: dir + "/wayloop")
        try FileManager.default.copyItem(atPath: Repo.binary, toPath: dir + "/wayloop")
        return dir + "/wayloop"
    }
}

/// Wallpaper Engine's content folder in a Steam library (as SteamLibraries.workshopFolder says;
/// written out here so that the test does not take the rule from the code under test).
func SteamLibraries_workshop(_ library: String) -> String { library + "/steamapps/workshop/content/431960" }

/// A workshop item played: `wayloop ID` on a compositor, and `ctl set` of an item's folder.
final class WorkshopPlaybackTests: CompositorTestCase {
    override class var outputSizes: [String] { ["640x360"] }

    func testAVideoItemPlaysByItsIDAndByItsFolder() throws {
        let sway = try compositor()
        let s = try ListScratch("workshop-play")
        defer { s.remove() }
        let content = s.home + "/.local/share/Steam/steamapps/workshop/content/431960"
        try s.item(content, "3001", project: #"{"title":"Grid","file":"grid.mp4","type":"video"}"#, files: ["grid.mp4": "grid.mp4"])
        try s.item(content, "3002", project: #"{"title":"Bars","file":"b.mp4","type":"video"}"#, files: ["b.mp4": "grid.mp4"])
        try s.item(content, "3003", project: #"{"title":"Scene","type":"scene"}"#)
        var env = sway.env
        for k in ["HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_DATA_DIRS"] { env[k] = s.env[k] }
        let w = try Wayloop(["3001"], env: env)
        defer { _ = w.stop() }
        func first(_ key: String) -> String? {
            let outputs: [[String: Any]] = (try? w.ctlStatus()) ?? []
            return outputs.first?[key] as? String
        }
        XCTAssertTrue(Wait.until(timeout: 20) { first("state") == "playing" }, w.stderr)
        XCTAssertEqual(first("video"), content + "/3001/grid.mp4")
        let set = Shell.run([Repo.binary, "ctl", "set", "*", content + "/3002"], env: env, timeout: 30)
        XCTAssertEqual(set.status, 0, set.stderr)
        XCTAssertTrue(Wait.until(timeout: 20) { first("video") == content + "/3002/b.mp4" }, "\(first("video") ?? "none")")
        let scene = Shell.run([Repo.binary, "ctl", "set", "*", "3003"], env: env, timeout: 30)
        XCTAssertEqual(scene.status, 1)
        XCTAssertEqual(scene.stderr.split(separator: "\n").count, 1, scene.stderr)
        XCTAssertTrue(scene.stderr.contains("a Wallpaper Engine item: a scene item"), scene.stderr)
        XCTAssertEqual(first("video"), content + "/3002/b.mp4")
    }
}
