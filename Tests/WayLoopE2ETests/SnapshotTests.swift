// Stills for theming tools and pickers: `wayloop thumbnail` and `wayloop ctl
// snapshot` against FFmpeg's own rendering of the same picture (PSNR): fill, fit with bars and
// dim, a clip stored on its side, the time in the loop; the snapshot against the screen too; and
// every bad input one line with a non-zero status. Run on both renderers (a snapshot is the
// frame on screen as the shm renderer converts it, whichever draws).
import Foundation
import WayLoopTestSupport
import XCTest

final class SnapshotTests: CompositorTestCase {
    nonisolated(unsafe) static var dir = ""
    nonisolated(unsafe) static var still = ""
    nonisolated(unsafe) static var rotated = ""
    static let output = (w: 640, h: 360)

    override class var outputSizes: [String] { ["\(output.w)x\(output.h)"] }

    override class func setUpFixtures(_: Compositor) {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-snapshot-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        still = dir + "/still-256x192.mp4"
        let r = Shell.run(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                           "testsrc2=s=256x192", "-frames:v", "1", "-c:v", "libx264", "-crf", "10", "-pix_fmt", "yuv420p",
                           "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv", still],
                          timeout: 60)
        precondition(r.status == 0, "ffmpeg could not make the still: \(r.stderr)")
        // A clip stored on its side (the display matrix phones write): the fidelity clips' rot90.
        let m = Shell.run([Repo.path("scripts/make-fidelity-clips"), FidelityTests.clipDir], timeout: 180)
        precondition(m.status == 0, "scripts/make-fidelity-clips failed: \(m.stderr)")
        rotated = FidelityTests.clipDir + "/rot90.mp4"
    }

    override class func tearDownFixtures() {
        try? FileManager.default.removeItem(atPath: dir)
    }

    private func file(_ name: String) -> String { Self.dir + "/\(name)" }

    /// FFmpeg's rendition of `video` on a w×h output: fill (scale to cover, centre crop) or fit
    /// (scale inside, bars of `bars`), the picture darkened by `dim`. ffmpeg turns a clip stored
    /// on its side itself (autorotate).
    private func reference(_ video: String, mode: String, w: Int, h: Int, bars: String = "000000", dim: Double = 0,
                           at: String = "0", matrix: String = "bt709") throws -> [UInt8] {
        let colour = "in_color_matrix=\(matrix):in_range=tv:out_range=pc"
        let place = mode == "fill"
            ? "scale=\(w):\(h):force_original_aspect_ratio=increase:flags=bilinear:\(colour),crop=\(w):\(h)"
            : "scale=\(w):\(h):force_original_aspect_ratio=decrease:flags=bilinear:\(colour)"
        let darken = dim > 0 ? ",format=rgb24,lutrgb=r=val*\(1 - dim):g=val*\(1 - dim):b=val*\(1 - dim)" : ""
        let pad = mode == "fit" ? ",pad=\(w):\(h):(ow-iw)/2:(oh-ih)/2:color=0x\(bars)" : ""
        let out = file("ref-\(UUID().uuidString.prefix(6)).rgb")
        let r = Shell.run(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-ss", at, "-i", video, "-vf",
                           "\(place)\(darken)\(pad),format=rgb24", "-frames:v", "1", "-f", "rawvideo", out], timeout: 60)
        guard r.status == 0 else { throw HarnessError("ffmpeg reference: \(r.stderr)") }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
    }

    /// A PNG's pixels (read by FFmpeg), checked to be w×h.
    private func pixels(_ png: String, w: Int, h: Int) throws -> [UInt8] {
        let probe = Shell.run(["ffprobe", "-v", "error", "-show_entries", "stream=width,height,codec_name", "-of", "csv=p=0", png], timeout: 30)
        XCTAssertEqual(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "png,\(w),\(h)", png)
        return try Image(png: png).pixels
    }

    private func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        var sse = 0.0
        for i in a.indices {
            let d = Double(Int(a[i]) - Int(b[i]))
            sse += d * d
        }
        return sse == 0 ? 99 : 10 * log10(255 * 255 * Double(a.count) / sse)
    }

    private func thumbnail(_ args: [String]) -> ShellResult {
        Shell.run([Repo.binary, "thumbnail"] + args, env: ProcessInfo.processInfo.environment, timeout: 60)
    }

    func testThumbnailsMatchFFmpeg() throws {
        let (w, h) = Self.output
        let cases: [(String, [String], [UInt8])] = [
            ("fill", [Self.still, "--size", "\(w)x\(h)"], try reference(Self.still, mode: "fill", w: w, h: h)),
            ("fit, bars and dim", [Self.still, "--size", "\(w)x\(h)", "-m", "fit", "-c", "202020", "--dim", "0.25"],
             try reference(Self.still, mode: "fit", w: w, h: h, bars: "202020", dim: 0.25)),
            ("stored on its side", [Self.rotated, "--size", "\(w)x\(h)"], try reference(Self.rotated, mode: "fill", w: w, h: h, matrix: "bt601")),
        ]
        for (what, args, ref) in cases {
            let png = file("thumb-\(what.filter(\.isLetter)).png")
            let r = thumbnail(args + [png])
            XCTAssertEqual(r.status, 0, "\(what): \(r.stderr)")
            XCTAssertEqual(r.stderr, "", what)
            let p = psnr(try pixels(png, w: w, h: h), ref)
            print("SnapshotTests: thumbnail \(what): \((p * 10).rounded() / 10) dB against FFmpeg")
            XCTAssertGreaterThan(p, 30, "\(what): not FFmpeg's picture")
        }
        // Without --size: the video's own size as shown (a clip on its side comes out upright).
        let own = file("own.png")
        XCTAssertEqual(thumbnail([Self.rotated, own]).status, 0)
        _ = try pixels(own, w: 240, h: 320)
        // --at: the frame at that time in the loop (grid.mp4: its centre box is white in frames
        // 0-9, black in 10-19; 1.2 s into its 1 s loop is 0.2 s).
        for (at, white) in [("0", true), ("0.5s", false), ("1.2s", true)] {
            let png = file("at-\(at).png")
            XCTAssertEqual(thumbnail([Repo.clip("grid.mp4"), png, "--at", at]).status, 0, at)
            let px = try pixels(png, w: 1280, h: 720)
            let o = (360 * 1280 + 640) * 3
            XCTAssertEqual(px[o] > 200, white, "--at \(at): centre \(px[o]) \(px[o + 1]) \(px[o + 2])")
            XCTAssertEqual(px[o] < 50, !white, "--at \(at)")
        }
    }

    /// One line and a non-zero status each; no file left behind.
    func testThumbnailErrorsAreOneLine() throws {
        let d = file("a-directory.png")
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        let cases: [([String], Int32, String)] = [
            ([file("missing.mp4"), file("x1.png")], 5, "no such file"),
            ([Repo.clip("text.mp4"), file("x2.png")], 5, "not a playable video file"),
            ([Repo.clip("truncated.mp4"), file("x3.png")], 5, "not a playable video file"),
            ([Self.still, "/nonexistent-dir/x.png"], 1, "No such file or directory"),
            ([Self.still, d], 1, "is a directory"),
            ([Self.still, file("x4.png"), "--size", "0x10"], 2, "'0x10' is not a size WxH"),
            ([Self.still, file("x5.png"), "--at", "soon"], 2, "'soon' is not a duration"),
            ([Self.still, file("x6.png"), "-m", "span"], 2, "needs outputs to span"),
            ([Self.still], 2, "needs VIDEO and FILE.png"),
            ([Self.still, file("x7.png"), "extra"], 2, "not also 'extra'"),
        ]
        for (args, status, text) in cases {
            let r = thumbnail(args)
            XCTAssertEqual(r.status, status, "\(args): \(r.stderr)")
            let lines = r.stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(text), "\(args): \(r.stderr)")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: Self.dir).filter { $0.hasPrefix("x") }
        XCTAssertEqual(left, [], "files left by failed thumbnails")
    }

    /// `ctl snapshot` writes what the output shows: FFmpeg's picture, and the screen's.
    func testCtlSnapshotIsThePictureOnScreen() throws {
        let sway = try compositor()
        let (w, h) = Self.output
        for (mode, args) in [("fill", [String]()), ("fit", ["-c", "202020", "--dim", "0.25"])] {
            let wl = try Wayloop(["-m", mode] + args + [Self.still], env: sway.env)
            XCTAssertTrue(wl.waitForState(sway.outputs[0], state: "playing", shown: true), "\(wl.lastStatus); \(wl.stderr)")
            let png = file("snap-\(mode).png")
            let r = Shell.run([Repo.binary, "ctl", "snapshot", png], env: sway.env, timeout: 30)
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stdout.contains("wrote '\(png)' (\(w)x\(h))"), r.stdout)
            let snap = try pixels(png, w: w, h: h)
            let ref = try reference(Self.still, mode: mode, w: w, h: h, bars: "202020", dim: mode == "fit" ? 0.25 : 0)
            var screen = 0.0
            _ = Wait.until(timeout: 10) {
                guard let img = try? sway.shot(sway.outputs[0]) else { return false }
                screen = psnr(snap, img.pixels)
                return screen > 30
            }
            let p = psnr(snap, ref)
            print("SnapshotTests: ctl snapshot -m \(mode) \(args.joined(separator: " ")): \((p * 10).rounded() / 10) dB against FFmpeg, "
                + "\((screen * 10).rounded() / 10) dB against the screen")
            XCTAssertGreaterThan(p, 30, "-m \(mode): not FFmpeg's picture")
            XCTAssertGreaterThan(screen, 30, "-m \(mode): not what the screen shows")
            // The output named, as in every ctl command.
            XCTAssertEqual(Shell.run([Repo.binary, "ctl", "snapshot", sway.outputs[0], png], env: sway.env, timeout: 30).status, 0)

            if mode == "fill" {
                let d = file("snap-dir.png")
                try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
                for (a, text) in [(["NOPE-9", file("y.png")], "no output matches 'NOPE-9'"),
                                  (["/nonexistent-dir/y.png"], "No such file or directory"),
                                  ([d], "is a directory"),
                                  ([String](), "snapshot needs FILE.png")] {
                    let e = Shell.run([Repo.binary, "ctl", "snapshot"] + a, env: sway.env, timeout: 30)
                    XCTAssertNotEqual(e.status, 0, "\(a)")
                    XCTAssertEqual(e.stderr.split(separator: "\n").count, 1, "\(a): \(e.stderr)")
                    XCTAssertTrue(e.stderr.contains(text), "\(a): \(e.stderr)")
                }
                XCTAssertFalse(FileManager.default.fileExists(atPath: file("y.png")))
            }
            XCTAssertEqual(wl.stop(), 0, wl.stderr)
        }
    }

    /// The user guide's theming recipe (docs/guide.md), as printed there, with `wal` a stand-in that keeps each
    /// image it is handed: the output's picture is handed over at start and again after a switch.
    func testTheReadmesThemeRecipeRunsOnEverySwitch() throws {
        let sway = try compositor()
        let output = sway.outputs[0]
        let readme = try String(contentsOfFile: Repo.path("docs/guide.md"), encoding: .utf8)
        guard let start = readme.range(of: "```sh\n#!/bin/sh\n# ~/.local/bin/wayloop-theme"),
              let end = readme.range(of: "```", range: readme.index(start.lowerBound, offsetBy: 5)..<readme.endIndex) else {
            return XCTFail("no wayloop-theme recipe in docs/guide.md")
        }
        let recipe = readme[readme.index(start.lowerBound, offsetBy: 6)..<end.lowerBound]
        XCTAssertTrue(recipe.contains("wal -q -n -i"), "the recipe no longer runs pywal: \(recipe)")
        let home = file("theme-home"), bin = file("theme-bin")
        try? FileManager.default.removeItem(atPath: home)
        try? FileManager.default.removeItem(atPath: bin)
        for d in [home + "/.cache", bin] { try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true) }
        let script = bin + "/wayloop-theme"
        try recipe.replacingOccurrences(of: "= DP-1 ]", with: "= \(output) ]").write(toFile: script, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: bin + "/wayloop", withDestinationPath: Repo.binary)
        try """
            #!/bin/sh
            # pywal's stand-in: keeps each image it is given as themed-N.png
            n=$(ls "$HOME"/themed-*.png 2>/dev/null | wc -l)
            while [ $# -gt 0 ]; do [ "$1" = -i ] && cp "$2" "$HOME/themed-$n.png"; shift; done
            """.write(toFile: bin + "/wal", atomically: true, encoding: .utf8)
        for f in [script, bin + "/wal"] { chmod(f, 0o755) }
        let red = file("theme-red.mp4"), blue = file("theme-blue.mp4")
        try SolidClip.make(red, colour: "0xff0000", size: "320x180")
        try SolidClip.make(blue, colour: "0x0000ff", size: "320x180")

        let wl = try Wayloop([red], env: sway.env)
        defer { _ = wl.stop() }
        XCTAssertTrue(wl.waitForState(output, state: "playing", shown: true), "\(wl.lastStatus); \(wl.stderr)")
        var env = sway.env
        env["HOME"] = home
        env["PATH"] = bin + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        guard let theme = Child(["/bin/sh", script], env: env, stdout: file("theme.out"), stderr: file("theme.err")) else {
            return XCTFail("cannot start the recipe")
        }
        defer { kill(theme.pid, SIGTERM); _ = theme.wait(timeout: 5) }
        let (w, h) = Self.output
        func themed(_ n: Int) -> String { home + "/themed-\(n).png" }
        func centre(_ png: String) -> [UInt8] {
            guard let px = try? pixels(png, w: w, h: h) else { return [] }
            let o = (h / 2 * w + w / 2) * 3
            return Array(px[o..<o + 3])
        }
        let err = { (try? String(contentsOfFile: self.file("theme.err"), encoding: .utf8)) ?? "" }
        XCTAssertTrue(Wait.until(timeout: 15) { FileManager.default.fileExists(atPath: themed(0)) },
                      "the recipe handed no picture over at start: \(err())")
        let first = centre(themed(0))
        XCTAssertTrue(first.count == 3 && first[0] > 200 && first[2] < 50, "not the red video: \(first)")
        let set = Shell.run([Repo.binary, "ctl", "set", output, blue], env: sway.env, timeout: 30)
        XCTAssertEqual(set.status, 0, set.stderr)
        XCTAssertTrue(Wait.until(timeout: 15) { FileManager.default.fileExists(atPath: themed(1)) },
                      "the recipe handed no picture over after the switch: \(err())")
        let second = centre(themed(1))
        XCTAssertTrue(second.count == 3 && second[2] > 200 && second[0] < 50, "not the blue video: \(second)")
        XCTAssertEqual(err(), "", "the recipe printed errors")
        XCTAssertEqual(wl.stop(), 0, wl.stderr)
    }
}
