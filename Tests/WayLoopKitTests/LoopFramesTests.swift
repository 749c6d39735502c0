// WayLoopKit's frames-only API, in this process and through its public API alone: the gapless
// loop as leased frames, its memory given back on request, its typed errors.
import WayLoopKit
import WayLoopTestSupport
import XCTest

final class LoopFramesTests: XCTestCase {
    /// Takes `count` frames, releasing each; their (pass, index) in order.
    private func take(_ frames: LoopFrames, _ count: Int) throws -> [(pass: Int, index: Int)] {
        try (0..<count).map { _ in
            let f = try XCTUnwrap(frames.next(), "no frame: \(String(describing: frames.error))")
            defer { f.release() }
            return (f.pass, f.index)
        }
    }

    /// Every frame of the 30-frame grid clip, pass after pass, with no gap and none twice.
    func testFramesComePassAfterPassInOrder() throws {
        let frames = try LoopFrames(video: Repo.clip("grid.mp4"))
        XCTAssertEqual(frames.info.frameRate, 30, accuracy: 0.01)
        let got = try take(frames, 95)
        for (i, f) in got.enumerated() {
            XCTAssertEqual(f.pass, i / 30, "frame \(i): \(f)")
            XCTAssertEqual(f.index, i % 30, "frame \(i): \(f)")
        }
    }

    /// After a pass is decoded whole the loop replays from memory; releaseMemory() gives that
    /// cache up from the next pass, and the frames go on in order, decoded again.
    func testReleaseMemoryGivesUpTheLoopCacheWithNoGap() throws {
        let frames = try LoopFrames(video: Repo.clip("grid.mp4"), cacheMB: 64)
        var got = try take(frames, 75)
        XCTAssertGreaterThan(frames.cachedBytes, 0, "a 30-frame 640x360 loop fits 64 MiB: it is cached")
        frames.releaseMemory()
        got += try take(frames, 90)
        XCTAssertEqual(frames.cachedBytes, 0, "the cache was not given up")
        for (i, f) in got.enumerated() {
            XCTAssertTrue(f.pass == i / 30 && f.index == i % 30, "frame \(i) is \(f): a gap or a repeat around the release")
        }
    }

    /// The typed errors: not found, and a file that is not a video, each naming the file.
    func testErrorsNameTheFile() {
        XCTAssertThrowsError(try LoopFrames(video: "/nonexistent/clip.mp4")) { e in
            XCTAssertEqual(e as? VideoError, .notFound("/nonexistent/clip.mp4"))
            XCTAssertEqual((e as? VideoError)?.failureKind, .resourceNotFound)
        }
        let empty = Repo.clip("empty.mp4")
        XCTAssertThrowsError(try LoopFrames(video: empty)) { e in
            XCTAssertEqual(e as? VideoError, .empty(empty))
            XCTAssertEqual((e as? VideoError)?.failureKind, .invalidResource)
        }
    }
}
