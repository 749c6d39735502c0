// Files that change under a running wayloop: a video replaced in place (renamed
// over, truncated and rewritten, deleted and recreated) is opened again and shown, and an
// edited config file is read again, without SIGHUP. One headless sway for the class.
import Foundation
import WayLoopTestSupport
import XCTest

final class FileChangeTests: CompositorTestCase {
    nonisolated(unsafe) static var dir = ""

    override class var outputSizes: [String] { ["320x240"] }

    override class func setUpFixtures(_: Compositor) {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("wayloop-files-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        SolidClip.makeAll([("red", "0xE01010"), ("blue", "0x1020E0")], size: "320x240", in: dir)
    }

    override class func tearDownFixtures() {
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// Waits until the output's centre is close to `want` (red or blue).
    private func waitColour(_ want: RGB8, timeout: Double = 10) throws -> Bool {
        let s = try compositor()
        var last = "no screenshot"
        let ok = Wait.until(timeout: timeout) {
            guard let img = try? s.shot(s.outputs[0]) else { return false }
            let p = img.pixel(img.width / 2, img.height / 2)
            last = "\(p)"
            return p.close(to: want, tolerance: 40)
        }
        if !ok { print("FileChangeTests: centre is \(last), wanted \(want)") }
        return ok
    }

    private let red = RGB8(0xE0, 0x10, 0x10), blue = RGB8(0x10, 0x20, 0xE0)

    private func copy(_ from: String, to: String) throws {
        try? FileManager.default.removeItem(atPath: to)
        try FileManager.default.copyItem(atPath: Self.dir + "/" + from, toPath: to)
    }

    func testAVideoReplacedInPlaceIsShown() throws {
        let wall = Self.dir + "/wall.mp4"
        try copy("red.mp4", to: wall)
        let w = try Wayloop(["--cache-mb", "0", wall], env: try compositor().env)
        defer { XCTAssertEqual(w.stop(), 0) }
        XCTAssertTrue(try waitColour(red), "red never shown: \(w.stderr)")
        // 1. Renamed over the file.
        try copy("blue.mp4", to: Self.dir + "/next.mp4")
        XCTAssertEqual(rename(Self.dir + "/next.mp4", wall), 0)
        XCTAssertTrue(try waitColour(blue), "a file renamed over the video was not picked up: \(w.stderr)")
        // 2. Truncated and rewritten in place.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.dir + "/red.mp4"))
        let h = try FileHandle(forWritingTo: URL(fileURLWithPath: wall))
        try h.truncate(atOffset: 0)
        try h.write(contentsOf: bytes)
        try h.close()
        XCTAssertTrue(try waitColour(red), "a truncated and rewritten video was not picked up: \(w.stderr)")
        // 3. Deleted, then made again.
        try FileManager.default.removeItem(atPath: wall)
        try copy("blue.mp4", to: wall)
        XCTAssertTrue(try waitColour(blue), "a deleted and recreated video was not picked up: \(w.stderr)")
        XCTAssertTrue(w.isRunning, w.stderr)
        XCTAssertEqual(w.stderrLines.filter { $0.contains("changed on disk") }.count >= 3, true, w.stderr)
    }

    /// A video that breaks while it plays (emptied, then filled with garbage) keeps its last
    /// picture on screen, `status` says why, and the file's next good version plays.
    func testABrokenVideoKeepsItsLastPicture() throws {
        let wall = Self.dir + "/broken.mp4"
        try copy("red.mp4", to: wall)
        let w = try Wayloop(["--cache-mb", "0", wall], env: try compositor().env)
        defer { XCTAssertEqual(w.stop(), 0) }
        let output = try compositor().outputs[0]
        XCTAssertTrue(try waitColour(red), "red never shown: \(w.stderr)")
        // Emptied in place (as `truncate -s 0` does): the next open fails ("empty"), the picture stays.
        func keptLastPicture() -> Bool {
            w.waitForStatus { outs in
                outs.contains { $0["name"] as? String == output && $0["state"] as? String == "failed"
                    && ($0["error"] as? String ?? "").contains("showing its last picture until the file changes") }
            }
        }
        let h = try FileHandle(forWritingTo: URL(fileURLWithPath: wall))
        try h.truncate(atOffset: 0)
        try h.close()
        XCTAssertTrue(keptLastPicture(), "\(w.lastStatus); \(w.stderr)")
        XCTAssertTrue(try waitColour(red, timeout: 2), "the last picture did not stay after the file was emptied")
        // Garbage written over it: still the last picture, still failed, never black.
        try Data((0..<65536).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 13) }).write(to: URL(fileURLWithPath: wall))
        XCTAssertTrue(w.waitFor("not a playable video"), w.stderr)
        XCTAssertTrue(keptLastPicture(), "\(w.lastStatus); \(w.stderr)")
        XCTAssertTrue(try waitColour(red, timeout: 2), "the last picture did not stay after garbage was written")
        // A good file again: it plays.
        try copy("blue.mp4", to: Self.dir + "/fixed.mp4")
        XCTAssertEqual(rename(Self.dir + "/fixed.mp4", wall), 0)
        XCTAssertTrue(w.waitForState(output, state: "playing"), "\(w.lastStatus); \(w.stderr)")
        XCTAssertTrue(try waitColour(blue), "the repaired file was not shown: \(w.stderr)")
        XCTAssertTrue(w.isRunning, w.stderr)
    }

    func testAnEditedConfigFileIsReadAgain() throws {
        let config = Self.dir + "/config"
        try "video = red.mp4\n".write(toFile: config, atomically: true, encoding: .utf8)
        let w = try Wayloop(["--config", config], env: try compositor().env)
        defer { XCTAssertEqual(w.stop(), 0) }
        XCTAssertTrue(try waitColour(red), "red never shown: \(w.stderr)")
        // An editor's save: a new file renamed over the old one.
        try "video = blue.mp4\n".write(toFile: config, atomically: true, encoding: .utf8)
        XCTAssertTrue(try waitColour(blue), "the edited config was not read again: \(w.stderr)")
        XCTAssertTrue(w.stderr.contains("the config file changed: reloading"), w.stderr)
        // A bad edit changes nothing and says where.
        try "video = blue.mp4\nspeed = 2\n".write(toFile: config, atomically: true, encoding: .utf8)
        XCTAssertTrue(w.waitFor("\(config):2: unknown key 'speed'"), w.stderr)
        XCTAssertTrue(try waitColour(blue, timeout: 2))
        XCTAssertTrue(w.isRunning, w.stderr)
    }
}
