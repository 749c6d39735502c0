import WayLoopCore
import XCTest

final class PlayerStateTests: XCTestCase {
    /// A table of events and the state after each (nil: no transition published).
    func testTransitions() {
        var m = PlayerStateMachine()
        let table: [(PlayerEvent, PlayerState?)] = [
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
            (.fail(.playbackFailed, "decoder error"), .failed(.playbackFailed, "decoder error")),
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
        XCTAssertEqual(PlayerState.paused(.fullscreen).description, "paused (fullscreen)")
        XCTAssertEqual(PlayerState.failed(.resourceNotFound, "x").name, "failed")
        XCTAssertEqual(PlayerState.failed(.invalidResource, "not a video").description, "failed (invalid-resource: not a video)")
    }
}
