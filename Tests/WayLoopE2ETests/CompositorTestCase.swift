// The base of the end-to-end classes whose tests share one compositor (scripts/compositor):
// started in the class's setUp, after the test clips, and stopped in its tearDown.
import Foundation
import WayLoopTestSupport
import XCTest

/// One compositor for the tests of a class. A subclass says what differs: the sizes of its
/// outputs, maybe the compositor, and what else it makes once for its tests (`setUpFixtures`,
/// undone by `tearDownFixtures`). A compositor or fixture that could not be made is kept and
/// thrown by every test that asks for the compositor (a failure, never a skip).
class CompositorTestCase: XCTestCase {
    /// The compositor's outputs, one `WxH` each. Every subclass says.
    class var outputSizes: [String] { preconditionFailure("\(self) must say its outputSizes") }

    /// The scripts/compositor command that starts it: a headless sway (which
    /// $WAYLOOP_COMPOSITOR may replace: Compositor).
    class var compositorKind: String { "start-sway" }

    /// What the class makes once the compositor runs (clips, a wayloop its tests watch). What it
    /// throws fails every test of the class.
    class func setUpFixtures(_ compositor: Compositor) throws {}

    /// Undoes `setUpFixtures` (also after it failed part way), before the compositor stops.
    class func tearDownFixtures() {}

    private struct Shared {
        var compositor: Compositor?
        var failure: String?
    }

    /// Per subclass: XCTest calls each class's setUp and tearDown around its own tests.
    nonisolated(unsafe) private static var shared: [ObjectIdentifier: Shared] = [:]

    override class func setUp() {
        super.setUp()
        _ = Repo.clips
        var s = Shared()
        do {
            let c = try Compositor(kind: compositorKind, outputs: outputSizes)
            s.compositor = c
            try setUpFixtures(c)
        } catch {
            s.failure = "\(error)"
        }
        CompositorTestCase.shared[ObjectIdentifier(self)] = s
    }

    override class func tearDown() {
        let s = CompositorTestCase.shared.removeValue(forKey: ObjectIdentifier(self))
        tearDownFixtures()
        s?.compositor?.stop()
        super.tearDown()
    }

    /// The class's compositor; throws why there is none.
    func compositor() throws -> Compositor {
        guard let s = CompositorTestCase.shared[ObjectIdentifier(type(of: self))] else {
            throw HarnessError("\(type(of: self)): no compositor (its class setUp did not run)")
        }
        if let failure = s.failure { throw HarnessError(failure) }
        return s.compositor!
    }
}
