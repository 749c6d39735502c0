import WayLoopCore
import XCTest

final class PlayerStateTests: XCTestCase {
    /// A table of events and the state after each (nil: no transition published).
    func testTransitions() {
        var m = PlayerStateMachine()
        let table: [(PlayerEvent, VideoPlayerState?)] = [
            (.pause(.hidden), nil),                 // idle: remembered, no change
            (.load, .loading),
            (.ready, .paused(.hidden)),             // ready while hidden
            (.resume(.hidden), .playing),
            (.pause(.battery), .paused(.battery)),
            (.pause(.user), .paused(.user)),        // user outranks battery
            (.pause(.hidden), nil),                 // still reported as user
            (.resume(.user), .paused(.battery)),
            (.resume(.battery), .paused(.hidden)),
            (.resume(.hidden), .playing),
            (.ready, nil),                          // a second ready changes nothing
            (.fail(.decodeFailed("/v/a.mp4", reason: "decoder error")), .failed(.decodeFailed("/v/a.mp4", reason: "decoder error"))),
            (.pause(.user), nil),                   // failed stays failed
            (.load, .loading),
            (.ready, .paused(.user)),
            (.unload, .idle),
        ]
        for (i, (event, want)) in table.enumerated() {
            XCTAssertEqual(m.apply(event), want, "step \(i): \(event)")
        }
        XCTAssertEqual(m.state, .idle)
    }

    func testNamesAndDescriptions() {
        XCTAssertEqual(VideoPlayerState.paused(.fullscreen).description, "paused (fullscreen)")
        XCTAssertEqual(VideoPlayerState.failed(.notFound("/v/x.mp4")).name, "failed")
        XCTAssertEqual(VideoPlayerState.failed(.notFound("/v/x.mp4")).description, "failed (resource-not-found: '/v/x.mp4': no such file)")
        XCTAssertEqual(VideoPlayerState.failed(.empty("/v/e.mp4")).description, "failed (invalid-resource: '/v/e.mp4': the file is empty)")
        XCTAssertEqual(VideoPlayerState.failed(.lastPictureKept(.decodeFailed("/v/b.mp4", reason: "EOF"))).description,
                       "failed (playback-failed: '/v/b.mp4': no frame could be decoded (EOF); showing its last picture until the file changes)")
        XCTAssertEqual(VideoPlayerState.failed(.reported(.invalidResource, "not a video")).description, "failed (invalid-resource: not a video)",
                       "a failure read back from a reply keeps its kind and line")
    }
}
