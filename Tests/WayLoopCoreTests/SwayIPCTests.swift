// sway's IPC adapter over replies captured from headless sway 1.7 (Debian 12) and sway 1.12 (Debian
// unstable), trimmed to the keys WayLoop reads: two outputs; workspace 1 on HEADLESS-1 with two
// tiled foot windows (term-b focused), workspace 3 there too, not shown, with a floating one;
// workspace 5 on HEADLESS-2 with a fullscreen one (game); a window in the scratchpad (web).
import WayLoopCore
import XCTest

final class SwayIPCTests: XCTestCase {
    static let captured: [(version: String, workspaces: String, tree: String)] = [
        ("1.7", #"[{"id":4,"name":"1","visible":true,"focused":true,"output":"HEADLESS-1"},{"id":13,"name":"3","visible":false,"focused":false,"output":"HEADLESS-1"},{"id":9,"name":"5","visible":true,"focused":false,"output":"HEADLESS-2"}]"#,
         #"{"id":1,"type":"root","focused":false,"name":"root","window":null,"nodes":[{"id":2147483647,"type":"output","focused":false,"name":"__i3","window":null,"nodes":[{"id":2147483646,"type":"workspace","focused":false,"name":"__i3_scratch","window":null,"nodes":[],"floating_nodes":[{"id":12,"type":"floating_con","focused":false,"name":"foot","window":null,"nodes":[],"floating_nodes":[],"fullscreen_mode":0,"pid":25623,"app_id":"web"}],"fullscreen_mode":1}],"floating_nodes":[],"fullscreen_mode":0},{"id":3,"type":"output","focused":false,"name":"HEADLESS-1","window":null,"nodes":[{"id":4,"type":"workspace","focused":false,"name":"1","window":null,"nodes":[{"id":7,"type":"con","focused":false,"name":"foot","window":null,"nodes":[],"floating_nodes":[],"fullscreen_mode":0,"pid":25566,"app_id":"term-a"},{"id":8,"type":"con","focused":true,"name":"foot","window":null,"nodes":[],"floating_nodes":[],"fullscreen_mode":0,"pid":25587,"app_id":"term-b"}],"floating_nodes":[],"fullscreen_mode":1},{"id":13,"type":"workspace","focused":false,"name":"3","window":null,"nodes":[],"floating_nodes":[{"id":14,"type":"floating_con","focused":false,"name":"foot","window":null,"nodes":[],"floating_nodes":[],"fullscreen_mode":0,"pid":25642,"app_id":"float"}],"fullscreen_mode":1}],"floating_nodes":[],"fullscreen_mode":0},{"id":5,"type":"output","focused":false,"name":"HEADLESS-2","window":null,"nodes":[{"id":9,"type":"workspace","focused":false,"name":"5","window":null,"nodes":[{"id":10,"type":"con","focused":false,"name":"foot","window":null,"nodes":[],"floating_nodes":[],"fullscreen_mode":1,"pid":25604,"app_id":"game"}],"floating_nodes":[],"fullscreen_mode":1}],"floating_nodes":[],"fullscreen_mode":0}],"floating_nodes":[],"fullscreen_mode":0}"#),
        ("1.12", #"[{"id":4,"name":"1","visible":true,"focused":true,"output":"HEADLESS-1"},{"id":13,"name":"3","visible":false,"focused":false,"output":"HEADLESS-1"},{"id":9,"name":"5","visible":true,"focused":false,"output":"HEADLESS-2"}]"#,
         #"{"id":1,"type":"root","focused":false,"name":"root","window":null,"nodes":[{"id":2147483647,"type":"output","focused":false,"name":"__i3","window":null,"nodes":[{"id":2147483646,"type":"workspace","focused":false,"name":"__i3_scratch","window":null,"nodes":[],"floating_nodes":[{"id":12,"type":"floating_con","focused":false,"name":"foot","window":null,"nodes":[],"floating_nodes":[],"fullscreen_mode":0,"pid":26151,"app_id":"web"}],"fullscreen_mode":1}],"floating_nodes":[],"fullscreen_mode":0},{"id":3,"type":"output","focused":false,"name":"HEADLESS-1","window":null,"nodes":[{"id":4,"type":"workspace","focused":false,"name":"1","window":null,"nodes":[{"id":7,"type":"con","focused":false,"name":"foot","window":null,"nodes":[],"floating_nodes":[],"fullscreen_mode":0,"pid":26005,"app_id":"term-a"},{"id":8,"type":"con","focused":true,"name":"foot","window":null,"nodes":[],"floating_nodes":[],"fullscreen_mode":0,"pid":26044,"app_id":"term-b"}],"floating_nodes":[],"fullscreen_mode":1},{"id":13,"type":"workspace","focused":false,"name":"3","window":null,"nodes":[],"floating_nodes":[{"id":14,"type":"floating_con","focused":false,"name":"foot","window":null,"nodes":[],"floating_nodes":[],"fullscreen_mode":0,"pid":26219,"app_id":"float"}],"fullscreen_mode":1}],"floating_nodes":[],"fullscreen_mode":0},{"id":5,"type":"output","focused":false,"name":"HEADLESS-2","window":null,"nodes":[{"id":9,"type":"workspace","focused":false,"name":"5","window":null,"nodes":[{"id":10,"type":"con","focused":false,"name":"foot","window":null,"nodes":[],"floating_nodes":[],"fullscreen_mode":1,"pid":26090,"app_id":"game"}],"floating_nodes":[],"fullscreen_mode":1}],"floating_nodes":[],"fullscreen_mode":0}],"floating_nodes":[],"fullscreen_mode":0}"#),
    ]

    func testTheScreenFromCapturedReplies() throws {
        for c in Self.captured {
            let f = try XCTUnwrap(SwayIPC.facts(workspaces: c.workspaces, tree: c.tree), c.version)
            XCTAssertEqual(f.workspaces, [
                ScreenWorkspace(name: "1", output: "HEADLESS-1", active: true),
                ScreenWorkspace(name: "3", output: "HEADLESS-1", active: false),
                ScreenWorkspace(name: "5", output: "HEADLESS-2", active: true),
            ], c.version)
            XCTAssertEqual(f.activeWorkspace(on: "HEADLESS-1"), "1")
            XCTAssertEqual(f.activeWorkspace(on: "HEADLESS-2"), "5")
            XCTAssertNil(f.activeWorkspace(on: "HEADLESS-3"))
            let byApp = Dictionary(uniqueKeysWithValues: f.windows.map { ($0.appID ?? "?", $0) })
            XCTAssertEqual(Set(byApp.keys), ["term-a", "term-b", "float", "game", "web"], c.version)
            XCTAssertEqual(byApp["term-b"]?.activated, true)
            XCTAssertEqual(byApp["term-a"]?.activated, false)
            XCTAssertEqual(byApp["game"]?.fullscreen, true)
            XCTAssertEqual(byApp["term-a"]?.fullscreen, false)
            XCTAssertEqual(byApp["float"]?.workspace, "3")
            XCTAssertEqual(byApp["web"]?.minimized, true, "the scratchpad is hidden")
            XCTAssertNil(byApp["web"]?.output)
            XCTAssertEqual(f.windows(on: "HEADLESS-1").compactMap(\.appID).sorted(), ["term-a", "term-b"], c.version)
            XCTAssertEqual(f.windows(on: "HEADLESS-2").compactMap(\.appID), ["game"], c.version)
        }
    }

    func testAnEmptyDesktopAndRepliesThatAreNotSways() {
        let tree = #"{"type":"root","nodes":[{"type":"output","name":"HEADLESS-1","nodes":[{"type":"workspace","name":"1","nodes":[],"floating_nodes":[]}]}]}"#
        let f = SwayIPC.facts(workspaces: #"[{"name":"1","visible":true,"output":"HEADLESS-1"}]"#, tree: tree)
        XCTAssertEqual(f, ScreenFacts(workspaces: [ScreenWorkspace(name: "1", output: "HEADLESS-1", active: true)]))
        XCTAssertEqual(f?.windows(on: "HEADLESS-1"), [])
        for (ws, t) in [("{}", tree), ("[]", "[]"), ("[]", #"{"type":"con"}"#), ("not json", tree), (#"[{"visible":true}]"#, tree)] {
            XCTAssertNil(SwayIPC.facts(workspaces: ws, tree: t), "\(ws) \(t)")
        }
    }

    func testTheFraming() throws {
        let m = SwayIPC.message(SwayIPC.Request.getTree.rawValue)
        XCTAssertEqual(m, Array("i3-ipc".utf8) + [0, 0, 0, 0, 4, 0, 0, 0])
        let sub = SwayIPC.subscribeMessage
        XCTAssertEqual(String(decoding: sub.dropFirst(14), as: UTF8.self), #"["workspace","window","output","shutdown"]"#)
        XCTAssertEqual(sub[6], UInt8(sub.count - 14))
        // Two replies and half of a third: the two, and where the third starts.
        let a = SwayIPC.message(1, "[]"), b = SwayIPC.message(SwayIPC.eventBit | 3, #"{"change":"new"}"#)
        let c = SwayIPC.message(4, "{}")
        let buffer = a + b + Array(c.prefix(15))
        let got = try XCTUnwrap(SwayIPC.split(buffer))
        XCTAssertEqual(got.messages.map(\.type), [1, SwayIPC.eventBit | 3])
        XCTAssertEqual(got.messages.map(\.payload), ["[]", #"{"change":"new"}"#])
        XCTAssertEqual(got.used, a.count + b.count)
        XCTAssertEqual(SwayIPC.split(Array(c.prefix(10)))?.used, 0)
        XCTAssertNil(SwayIPC.split(Array("HTTP/1.1 200 OK\r\n".utf8)))
    }
}
