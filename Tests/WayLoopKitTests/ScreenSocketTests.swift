// HyprlandScreen's and NiriScreen's socket handling, polled as the App's loop polls them
// (poll(2) on what `fill` gives, then `handle`). The sockets are unix sockets that this test
// serves itself, on threads of its own, replaying transcripts:
//   Hyprland  the request socket answers each request by name, one per connection, reading it
//             in one read and closing after the reply (github:hyprwm/Hyprland v0.56.2
//             src/debug/HyprCtl.cpp:2232-2319). The event socket sends "NAME>>DATA\n" lines
//             (src/managers/EventManager.cpp:126-130) in chunks split mid-line. The replies are
//             written from HyprCtl.cpp's getMonitorData :223-311, getWorkspaceData :487-520,
//             getWindowData :376-456 and activewindow :633-645, the same fields as
//             Tests/WayLoopCoreTests/HyprlandIPCTests.swift, trimmed.
//   niri      the socket reads the "EventStream" line, answers {"Ok":"Handled"}, then sends the
//             state (WorkspacesChanged, then WindowsChanged: niri-ipc/src/state.rs
//             EventStreamState::replicate) and events, one JSON line each (github:niri-wm/niri
//             v26.04 src/ipc/server.rs:222-252, :496-497). Written as
//             Tests/WayLoopCoreTests/NiriIPCTests.swift writes them.
// These servers stand in for the socket protocol only: how the bytes are framed, split,
// answered and closed. Hyprland and niri themselves cannot run here, so WayLoop's Hyprland and
// niri support has not yet been run on those compositors. These tests show that the two classes
// follow the protocol as the sources above describe it, not that a real Hyprland or niri agrees.
// @testable: the two classes are internal to WayLoopKit (this target's other tests use its public
// API alone).
import Foundation
@testable import WayLoopKit
import WayLoopCore
import XCTest

final class ScreenSocketTests: XCTestCase {
    private var directory = ""
    private var servers: [TranscriptServer] = []

    override func setUp() {
        super.setUp()
        // Short and under /tmp: a sockaddr_un path holds 107 bytes, and Hyprland's is
        // DIR/hypr/SIGNATURE/.socket2.sock with a 63-byte signature.
        directory = "/tmp/wls\(getpid() % 100_000)-\(UInt16.random(in: 0...UInt16.max))"
        XCTAssertEqual(mkdir(directory, 0o700), 0)
    }

    override func tearDown() {
        for s in servers { s.stop() }
        servers = []
        try? FileManager.default.removeItem(atPath: directory)
        super.tearDown()
    }

    // MARK: Hyprland transcripts

    /// `j/monitors`: DP-1 (id 0) showing `dp1`, HDMI-A-1 (id 1) showing workspace 3.
    private func monitors(dp1: (Int, String) = (1, "1")) -> String {
        func monitor(_ id: Int, _ name: String, _ active: (Int, String), focused: Bool) -> String {
            #"{"id": \#(id), "name": "\#(name)", "description": "Dell Inc. DELL U2720Q", "width": 3840, "height": 2160, "#
                + #""x": \#(id * 2560), "y": 0, "#
                + #""activeWorkspace": {"id": \#(active.0), "name": "\#(active.1)"}, "specialWorkspace": {"id": 0, "name": ""}, "#
                + #""scale": 1.5, "transform": 0, "focused": \#(focused), "dpmsStatus": true, "disabled": false}"#
        }
        return "[" + monitor(0, "DP-1", dp1, focused: true) + ",\n" + monitor(1, "HDMI-A-1", (3, "3"), focused: false) + "]"
    }

    /// `j/workspaces`: 1 and 2 on DP-1, 3 on HDMI-A-1.
    private let workspaces = [(1, "DP-1", 0), (2, "DP-1", 0), (3, "HDMI-A-1", 1)].map { id, mon, monID in
        #"{"id": \#(id), "name": "\#(id)", "monitor": "\#(mon)", "monitorID": \#(monID), "windows": 1, "hasfullscreen": false, "#
            + #""lastwindow": "0x0", "lastwindowtitle": "", "ispersistent": false}"#
    }.joined(separator: ",\n").wrapped()

    /// A window as `j/clients` writes one.
    private func client(_ address: String, _ cls: String, _ title: String, workspace: Int, monitor: Int, fullscreen: Int = 0,
                        history: Int) -> String {
        #"{"address": "0x\#(address)", "mapped": true, "hidden": false, "at": [10, 40], "size": [1260, 1380], "#
            + #""workspace": {"id": \#(workspace), "name": "\#(workspace)"}, "floating": false, "monitor": \#(monitor), "#
            + #""class": "\#(cls)", "title": "\#(title)", "pid": 4242, "xwayland": false, "fullscreen": \#(fullscreen), "#
            + #""fullscreenClient": \#(fullscreen), "grouped": [], "focusHistoryID": \#(history)}"#
    }

    private var kitty: String { client("a1", "kitty", "~", workspace: 1, monitor: 0, history: 0) }
    private var firefox: String { client("b2", "firefox", "Big Buck Bunny", workspace: 3, monitor: 1, fullscreen: 2, history: 1) }
    private var code: String { client("c3", "code", "main.swift", workspace: 2, monitor: 0, history: 0) }

    /// Before: DP-1 shows 1 with kitty focused, HDMI-A-1 3 with a fullscreen firefox.
    private var before: [String: String] {
        ["j/monitors": monitors(), "j/workspaces": workspaces, "j/clients": [kitty, firefox].joined(separator: ",").wrapped(),
         "j/activewindow": kitty]
    }

    /// After: DP-1 shows 2, where code opened and has the focus.
    private var after: [String: String] {
        let kitty1 = client("a1", "kitty", "~", workspace: 1, monitor: 0, history: 1)
        let firefox2 = client("b2", "firefox", "Big Buck Bunny", workspace: 3, monitor: 1, fullscreen: 2, history: 2)
        return ["j/monitors": monitors(dp1: (2, "2")), "j/workspaces": workspaces,
                "j/clients": [kitty1, firefox2, code].joined(separator: ",").wrapped(), "j/activewindow": code]
    }

    /// What the pure adapter reads from `replies`: these tests test the sockets, not the reading.
    private func facts(_ replies: [String: String], file: StaticString = #filePath, line: UInt = #line) -> ScreenFacts? {
        let r = HyprlandIPC.facts(monitors: replies["j/monitors"] ?? "", workspaces: replies["j/workspaces"] ?? "",
                                  clients: replies["j/clients"] ?? "", activeWindow: replies["j/activewindow"])
        guard case .success(let f) = r else {
            XCTFail("the transcript does not read: \(r)", file: file, line: line)
            return nil
        }
        return f
    }

    private let signature = "0d0b6d49b8ab7b2e2b7e6b9f8d3c4e5f6a7b8c9d_1718000000_1804289383"

    /// The two sockets of a Hyprland instance under `directory`, serving `replies`, and the
    /// HyprlandScreen connected to them (with the event connection's server end).
    private func hyprland(_ replies: [String: String], log: Logger) throws -> (HyprlandScreen, FakeHyprland) {
        let dir = directory + "/hypr/" + signature
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let fake = FakeHyprland(replies: replies)
        servers.append(try TranscriptServer(path: dir + "/.socket.sock") { fake.answer($0) })
        let events = Accepted()
        servers.append(try TranscriptServer(path: dir + "/.socket2.sock") { events.put($0) })
        let screen = try XCTUnwrap(HyprlandScreen(signature: signature, runtimeDirectory: directory, log: log))
        fake.events = try XCTUnwrap(events.take(), "HyprlandScreen did not connect to the event socket")
        return (screen, fake)
    }

    // MARK: Hyprland

    /// No `.socket.sock` at any candidate place: no screen.
    func testHyprlandWithoutItsSocketsIsNone() {
        let log = CapturedLog()
        XCTAssertNil(HyprlandScreen(signature: signature + "-none", runtimeDirectory: directory, log: log.logger))
        XCTAssertEqual(log.lines.count, 1, "\(log.lines)")
        XCTAssertNil(HyprlandScreen(signature: "../escape", runtimeDirectory: directory, log: log.logger))
    }

    /// The facts are there when init returns, from the four requests, each on a connection of its
    /// own and without a newline (HyprCtl.cpp:2004-2009).
    func testHyprlandAsksTheFourRequestsAtTheStart() throws {
        let log = CapturedLog()
        let (screen, fake) = try hyprland(before, log: log.logger)
        XCTAssertEqual(fake.asked, ["j/monitors", "j/workspaces", "j/clients", "j/activewindow"])
        XCTAssertEqual(fake.connections, 4)
        XCTAssertEqual(screen.facts, facts(before))
        XCTAssertEqual(screen.facts?.activeWorkspace(on: "DP-1"), "1")
        XCTAssertEqual(screen.facts?.windows.first { $0.activated }?.id, "0xa1")
        XCTAssertEqual(log.lines, [])
    }

    /// Lines split mid-line are put back together; a relevant line asks the four requests again,
    /// once per batch of reads, and `changed` comes once the facts differ. Irrelevant lines ask
    /// nothing.
    func testHyprlandEventLinesInPiecesAskAgain() throws {
        let log = CapturedLog()
        let (screen, fake) = try hyprland(before, log: log.logger)
        var changes = 0
        screen.changed = { changes += 1 }

        // Events that change nothing seen (EventManager.cpp's format), in pieces.
        fake.send("activelayout>>AT Translated Set 2 keyboard,Eng")
        settle(screen)
        fake.send("lish (US)\nurg")
        settle(screen)
        fake.send("ent>>55d0c0a1b2c0\nscreencast>>1,0\n")
        settle(screen)
        XCTAssertEqual(fake.asked.count, 4, "an event that changes nothing seen asked again: \(fake.asked)")

        // `workspace>>2` split before and after its name, then its v2 twin: each complete line
        // that counts asks once.
        fake.set(after)
        fake.send("works")
        settle(screen)
        XCTAssertEqual(fake.asked.count, 4, "half a line was read as one")
        fake.send("pace>>2\nworkspa")
        XCTAssertTrue(pump(screen) { fake.asked.count == 8 }, "the completed line did not ask again: \(fake.asked)")
        XCTAssertEqual(changes, 1)
        XCTAssertEqual(screen.facts, facts(after))
        XCTAssertEqual(screen.facts?.activeWorkspace(on: "DP-1"), "2")
        fake.send("cev2>>2,2\n")
        XCTAssertTrue(pump(screen) { fake.asked.count == 12 })
        XCTAssertEqual(changes, 1, "the same facts again called changed")

        // Three lines that count, read in one batch: asked once.
        fake.set(before)
        fake.send("openwindow>>55d0c0a1b4e0,2,code,main.swift\nactivewindow>>code,main.swift\nactivewindowv2>>55d0c0a1b4e0\n")
        XCTAssertTrue(pump(screen) { changes == 2 })
        settle(screen)
        XCTAssertEqual(fake.asked.count, 16, "one batch asked more than once: \(fake.asked.suffix(8))")
        XCTAssertEqual(screen.facts, facts(before))
        XCTAssertEqual(log.lines, [])
    }

    /// A request not answered within its 500 ms keeps the old facts, with one debug line (not one
    /// per time); the next answered ask takes the new facts.
    func testHyprlandAnUnansweredRequestKeepsTheFacts() throws {
        let log = CapturedLog()
        let (screen, fake) = try hyprland(before, log: log.logger)
        var changes = 0
        screen.changed = { changes += 1 }
        var silent = after
        silent["j/clients"] = nil
        fake.set(silent)
        for n in [7, 10] {
            let started = Date()
            fake.send("workspace>>2\n")
            XCTAssertTrue(pump(screen) { fake.asked.count == n })
            settle(screen)
            XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.45, "gave up before its timeout")
        }
        XCTAssertEqual(fake.asked.suffix(3), ["j/monitors", "j/workspaces", "j/clients"], "asked on after one went unanswered")
        XCTAssertEqual(changes, 0)
        XCTAssertEqual(screen.facts, facts(before))
        XCTAssertTrue(screen.isOpen)
        XCTAssertEqual(log.lines.count, 1, "\(log.lines)")
        XCTAssertTrue(log.lines.first?.contains("j/clients: did not answer in time") == true, "\(log.lines)")

        fake.set(after)
        fake.send("workspacev2>>2,2\n")
        XCTAssertTrue(pump(screen) { changes == 1 })
        XCTAssertEqual(screen.facts, facts(after))
    }

    /// A reply that is not what Hyprland writes keeps the old facts, with one debug line.
    func testHyprlandAnUnreadableReplyKeepsTheFacts() throws {
        let log = CapturedLog()
        let (screen, fake) = try hyprland(before, log: log.logger)
        var changes = 0
        screen.changed = { changes += 1 }
        var bad = after
        bad["j/monitors"] = "unknown request"  // what an older Hyprland answers a request it lacks
        fake.set(bad)
        for n in [8, 12] {
            fake.send("focusedmon>>DP-1,2\n")
            XCTAssertTrue(pump(screen) { fake.asked.count == n })
        }
        XCTAssertEqual(changes, 0)
        XCTAssertEqual(screen.facts, facts(before))
        XCTAssertEqual(log.lines.count, 1, "\(log.lines)")
        XCTAssertTrue(log.lines.first?.contains("j/monitors is not JSON") == true, "\(log.lines)")
    }

    /// EOF on the event socket (Hyprland quit, or dropped a client that fell 64 events behind:
    /// EventManager.cpp:169-178): facts nil, `changed`, one debug line, nothing more to poll.
    func testHyprlandTheEventSocketClosing() throws {
        let log = CapturedLog()
        let (screen, fake) = try hyprland(before, log: log.logger)
        var changes = 0
        screen.changed = { changes += 1 }
        fake.closeEvents()
        XCTAssertTrue(pump(screen) { changes == 1 })
        XCTAssertNil(screen.facts)
        XCTAssertFalse(screen.isOpen)
        XCTAssertEqual(log.lines.count, 1, "\(log.lines)")
        XCTAssertTrue(log.lines.first?.contains("Hyprland's event socket closed the connection") == true, "\(log.lines)")
        XCTAssertEqual(polled(screen), 0)
    }

    /// An event line longer than the limit ends the source: a bounded buffer, one debug line.
    func testHyprlandALineOverTheLimitEnds() throws {
        let log = CapturedLog()
        let (screen, fake) = try hyprland(before, log: log.logger)
        var changes = 0
        screen.changed = { changes += 1 }
        let writer = fake.sendInBackground(String(repeating: "x", count: HyprlandScreen.limit + 1))
        XCTAssertTrue(pump(screen, seconds: 20) { changes == 1 })
        writer.wait()
        XCTAssertNil(screen.facts)
        XCTAssertEqual(log.lines.count, 1, "\(log.lines)")
        XCTAssertTrue(log.lines.first?.contains("a line over 4 MiB") == true, "\(log.lines)")
    }

    // MARK: niri transcripts

    private func niriWorkspace(_ id: Int, idx: Int, name: String? = nil, output: String, active: Bool, focused: Bool = false) -> String {
        #"{"id":\#(id),"idx":\#(idx),"name":\#(name.map { "\"\($0)\"" } ?? "null"),"output":"\#(output)","is_urgent":false,"#
            + #""is_active":\#(active),"is_focused":\#(focused),"active_window_id":null}"#
    }

    private func niriWindow(_ id: Int, title: String, appID: String, workspace: Int, focused: Bool = false) -> String {
        #"{"id":\#(id),"title":"\#(title)","app_id":"\#(appID)","pid":\#(4000 + id),"workspace_id":\#(workspace),"#
            + #""is_focused":\#(focused),"is_floating":false,"is_urgent":false,"layout":{"pos_in_scrolling_layout":[1,1],"#
            + #""tile_size":[1268.0,1402.0],"window_size":[1264,1398],"tile_pos_in_workspace_view":null,"#
            + #""window_offset_in_tile":[2.0,2.0]},"focus_timestamp":{"secs":1715,"nanos":250000000}}"#
    }

    /// The state niri sends first: DP-1 with workspaces 1 (active, focused) and 2, HDMI-A-1 with
    /// "chat"; Alacritty (focused) on 1, firefox on "chat"; then the other parts' events.
    private var niriState: [String] {
        [
            #"{"WorkspacesChanged":{"workspaces":["# + [
                niriWorkspace(1, idx: 1, output: "DP-1", active: true, focused: true),
                niriWorkspace(2, idx: 2, output: "DP-1", active: false),
                niriWorkspace(3, idx: 1, name: "chat", output: "HDMI-A-1", active: true),
            ].joined(separator: ",") + "]}}",
            #"{"WindowsChanged":{"windows":["# + [
                niriWindow(11, title: "~", appID: "Alacritty", workspace: 1, focused: true),
                niriWindow(12, title: "Matrix", appID: "firefox", workspace: 3),
            ].joined(separator: ",") + "]}}",
            #"{"KeyboardLayoutsChanged":{"keyboard_layouts":{"names":["English (US)","Russian"],"current_idx":0}}}"#,
            #"{"OverviewOpenedOrClosed":{"is_open":false}}"#,
            #"{"ConfigLoaded":{"failed":false}}"#,
        ]
    }

    /// What the pure reducer makes of `lines`.
    private func niriFacts(_ lines: [String]) throws -> ScreenFacts {
        var state = NiriState()
        for l in lines { try state.apply(l) }
        return state.facts
    }

    /// A NiriScreen connected to a socket under `directory`, and that connection's server end
    /// once it has read the request (recorded in `request`).
    private func niri(log: Logger) throws -> (NiriScreen, Peer) {
        let path = directory + "/niri.wayland-1.2211.sock"
        let accepted = Accepted()
        servers.append(try TranscriptServer(path: path) { fd in
            // niri reads the request line, then answers (server.rs:187-225).
            accepted.put(fd, request: readLine(fd))
        })
        let screen = try XCTUnwrap(NiriScreen(socket: path, log: log))
        let peer = try XCTUnwrap(accepted.take(), "NiriScreen did not connect")
        return (screen, peer)
    }

    // MARK: niri

    /// No socket there, or a path longer than a sockaddr_un holds (refused, not cut short to
    /// reach another socket): no screen, one debug line each.
    func testNiriWithoutItsSocketIsNone() {
        let log = CapturedLog()
        XCTAssertNil(NiriScreen(socket: directory + "/none.sock", log: log.logger))
        XCTAssertNil(NiriScreen(socket: directory + "/" + String(repeating: "n", count: 120) + ".sock", log: log.logger))
        XCTAssertEqual(log.lines.count, 2, "\(log.lines)")
        XCTAssertTrue(log.lines.last?.contains("too long for a unix socket") == true, "\(log.lines)")
    }

    /// The request line, the reply, the state in pieces: no facts until both full lists have
    /// come, then one `changed`; an event that changes what is seen, one that does not.
    func testNiriTheStreamInPieces() throws {
        let log = CapturedLog()
        let (screen, peer) = try niri(log: log.logger)
        XCTAssertEqual(peer.request, "\"EventStream\"\n")
        var changes = 0
        screen.changed = { changes += 1 }

        let workspaces = niriState[0], windows = niriState[1]
        let cut = workspaces.index(workspaces.startIndex, offsetBy: 40)
        peer.send(#"{"Ok":"Hand"#)
        settle(screen)
        peer.send(#"led"}"# + "\n" + String(workspaces[..<cut]))
        settle(screen)
        peer.send(String(workspaces[cut...]) + "\n")
        settle(screen)
        XCTAssertNil(screen.facts, "facts before the windows came")
        XCTAssertEqual(changes, 0)
        peer.send(windows + "\n" + niriState[2...].joined(separator: "\n") + "\n")
        XCTAssertTrue(pump(screen) { changes == 1 })
        XCTAssertEqual(screen.facts, try niriFacts(niriState))
        XCTAssertEqual(screen.facts?.activeWorkspace(on: "HDMI-A-1"), "chat")

        let switched = #"{"WorkspaceActivated":{"id":2,"focused":true}}"#
        peer.send(switched + "\n" + #"{"KeyboardLayoutSwitched":{"idx":1}}"# + "\n")
        XCTAssertTrue(pump(screen) { changes == 2 })
        XCTAssertEqual(screen.facts, try niriFacts(niriState + [switched]))
        XCTAssertEqual(screen.facts?.activeWorkspace(on: "DP-1"), "2")
        peer.send(#"{"KeyboardLayoutSwitched":{"idx":0}}"# + "\n" + #"{"OverviewOpenedOrClosed":{"is_open":true}}"# + "\n")
        settle(screen)
        XCTAssertEqual(changes, 2, "an event that changes nothing seen called changed")
        XCTAssertEqual(log.lines, [])
    }

    /// Malformed lines are skipped with one debug line in all; the stream goes on.
    func testNiriMalformedLinesAreSkipped() throws {
        let log = CapturedLog()
        let (screen, peer) = try niri(log: log.logger)
        var changes = 0
        screen.changed = { changes += 1 }
        peer.send(#"{"Ok":"Handled"}"# + "\n" + niriState.joined(separator: "\n") + "\n")
        XCTAssertTrue(pump(screen) { changes == 1 })
        peer.send("not json\n" + #"{"WindowClosed":{"id":"eleven"}}"# + "\n" + #"{"WindowClosed":{"id":11}}"# + "\n")
        XCTAssertTrue(pump(screen) { changes == 2 })
        XCTAssertEqual(screen.facts?.windows.map(\.id), ["12"])
        XCTAssertTrue(screen.isOpen)
        XCTAssertEqual(log.lines.count, 1, "\(log.lines)")
        XCTAssertTrue(log.lines.first?.contains("a line is not JSON") == true, "\(log.lines)")
    }

    /// A refusal (an older niri: `{"Err":…}`) ends the source with one debug line.
    func testNiriARefusalEnds() throws {
        let log = CapturedLog()
        let (screen, peer) = try niri(log: log.logger)
        var changes = 0
        screen.changed = { changes += 1 }
        peer.send(#"{"Err":"error parsing request: unknown variant `EventStream`"}"# + "\n")
        XCTAssertTrue(pump(screen) { changes == 1 })
        XCTAssertNil(screen.facts)
        XCTAssertFalse(screen.isOpen)
        XCTAssertEqual(log.lines.count, 1, "\(log.lines)")
        XCTAssertTrue(log.lines.first?.contains("niri refused the event stream") == true, "\(log.lines)")
    }

    /// EOF (niri quit): facts nil, `changed`, one debug line, nothing more to poll.
    func testNiriTheSocketClosing() throws {
        let log = CapturedLog()
        let (screen, peer) = try niri(log: log.logger)
        var changes = 0
        screen.changed = { changes += 1 }
        peer.send(#"{"Ok":"Handled"}"# + "\n" + niriState.joined(separator: "\n") + "\n")
        XCTAssertTrue(pump(screen) { changes == 1 })
        XCTAssertNotNil(screen.facts)
        peer.close()
        XCTAssertTrue(pump(screen) { changes == 2 })
        XCTAssertNil(screen.facts)
        XCTAssertEqual(log.lines.count, 1, "\(log.lines)")
        XCTAssertTrue(log.lines.first?.contains("niri's IPC closed the connection") == true, "\(log.lines)")
        XCTAssertEqual(polled(screen), 0)
    }

    /// A line longer than the limit ends the source: a bounded buffer, one debug line.
    func testNiriALineOverTheLimitEnds() throws {
        let log = CapturedLog()
        let (screen, peer) = try niri(log: log.logger)
        var changes = 0
        screen.changed = { changes += 1 }
        peer.send(#"{"Ok":"Handled"}"# + "\n")
        let writer = peer.sendInBackground(String(repeating: "x", count: NiriScreen.limit + 1))
        XCTAssertTrue(pump(screen, seconds: 20) { changes == 1 })
        writer.wait()
        XCTAssertFalse(screen.isOpen)
        XCTAssertEqual(log.lines.count, 1, "\(log.lines)")
        XCTAssertTrue(log.lines.first?.contains("a line over 4 MiB") == true, "\(log.lines)")
    }

    // MARK: Polling as the App does

    /// How many pollfds `source` fills now.
    private func polled(_ source: PollSource) -> Int {
        var fds = [pollfd](repeating: pollfd(), count: 4)
        return fds.withUnsafeMutableBufferPointer { b in b.baseAddress.map { source.fill($0, capacity: b.count) } ?? 0 }
    }

    /// Polls `source` as EventLoop.wait does (poll(2) on what `fill` gives, then `handle`) until
    /// `done` or `seconds` pass. Returns whether `done` came.
    @discardableResult
    private func pump(_ source: PollSource, seconds: Double = 5, until done: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        var fds = [pollfd](repeating: pollfd(), count: 4)
        while !done() {
            guard Date() < end else { return false }
            fds.withUnsafeMutableBufferPointer { b in
                guard let base = b.baseAddress else { return }
                let n = source.fill(base, capacity: b.count)
                if n > 0 && poll(base, nfds_t(n), 20) > 0 { source.handle(base, count: n) }
            }
            if polled(source) == 0 { return done() }
        }
        return true
    }

    /// Polls `source` for 150 ms, so that what was sent is read.
    private func settle(_ source: PollSource) {
        pump(source, seconds: 0.15) { false }
    }
}

// MARK: The stand-in servers

/// A unix socket listening at `path`, served on a thread of its own: each accepted connection
/// goes to `serve`, one at a time, as Hyprland's and niri's main loops take them.
final class TranscriptServer: @unchecked Sendable {
    let path: String
    private let listener: Int32
    private let lock = NSLock()
    private var stopping = false
    private let finished = DispatchSemaphore(value: 0)

    init(path: String, serve: @escaping @Sendable (Int32) -> Void) throws {
        self.path = path
        guard path.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
            throw NSError(domain: "TranscriptServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(path): too long for a unix socket"])
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var addr = ControlServer.address(path)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, bound == 0, listen(fd, 8) == 0 else {
            let why = String(cString: strerror(errno))
            if fd >= 0 { close(fd) }
            throw NSError(domain: "TranscriptServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(path): \(why)"])
        }
        listener = fd
        Thread { [self] in
            run(serve)
            finished.signal()
        }.start()
    }

    private var isStopping: Bool { lock.withLock { stopping } }

    private func run(_ serve: (Int32) -> Void) {
        while !isStopping {
            var p = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 20) > 0 else { continue }
            let fd = accept(listener, nil, nil)
            if fd >= 0 { serve(fd) }
        }
    }

    /// Stops accepting, waits for the thread, and removes the socket.
    func stop() {
        lock.withLock { stopping = true }
        finished.wait()
        close(listener)
        unlink(path)
    }
}

/// Hyprland's request socket as HyprCtl.cpp serves it (:2232-2319): wait up to 5 s for the
/// request, read it in one read of up to 1023 bytes, answer by name, close. A request with no
/// reply set is held open, unanswered, until the test ends. Also holds the server end of the
/// event connection.
final class FakeHyprland: @unchecked Sendable {
    private let lock = NSLock()
    private var replies: [String: String]
    private var askedSoFar: [String] = []
    private var held: [Int32] = []
    private var connectionCount = 0
    /// The server end of the event connection.
    var events: Peer?

    init(replies: [String: String]) { self.replies = replies }

    deinit {
        for fd in held { close(fd) }
        events?.close()
    }

    var asked: [String] { lock.withLock { askedSoFar } }
    var connections: Int { lock.withLock { connectionCount } }

    func set(_ replies: [String: String]) { lock.withLock { self.replies = replies } }

    /// Serves one request connection.
    func answer(_ fd: Int32) {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, 5000) > 0 else {
            close(fd)
            return
        }
        var buffer = [UInt8](repeating: 0, count: 1023)
        let n = read(fd, &buffer, buffer.count)
        let request = String(decoding: buffer.prefix(max(0, n)), as: UTF8.self)
        let reply: String? = lock.withLock {
            askedSoFar.append(request)
            connectionCount += 1
            return replies[request]
        }
        guard let reply else { return lock.withLock { held.append(fd) } }
        writeAll(fd, reply)
        close(fd)
    }

    func send(_ text: String) { events?.send(text) }
    func sendInBackground(_ text: String) -> DispatchGroup { events?.sendInBackground(text) ?? DispatchGroup() }
    func closeEvents() { events?.close() }
}

/// The server end of one connection, and what the client wrote first (niri's request line).
final class Peer: @unchecked Sendable {
    private let lock = NSLock()
    private var fd: Int32
    let request: String

    init(fd: Int32, request: String) {
        self.fd = fd
        self.request = request
    }

    deinit { close() }

    func send(_ text: String) { writeAll(lock.withLock { fd }, text) }

    /// Writes `text` from another thread (for more than the socket holds); wait on the group.
    func sendInBackground(_ text: String) -> DispatchGroup {
        let group = DispatchGroup()
        group.enter()
        Thread { [self] in
            send(text)
            group.leave()
        }.start()
        return group
    }

    func close() {
        lock.withLock {
            if fd >= 0 { Glibc.close(fd) }
            fd = -1
        }
    }
}

/// A connection accepted on the server's thread, handed to the test.
final class Accepted: @unchecked Sendable {
    private let lock = NSLock()
    private var peer: Peer?
    private let ready = DispatchSemaphore(value: 0)

    func put(_ fd: Int32, request: String = "") {
        lock.withLock { peer = Peer(fd: fd, request: request) }
        ready.signal()
    }

    /// The connection, within 5 s.
    func take() -> Peer? {
        guard ready.wait(timeout: .now() + 5) == .success else { return nil }
        return lock.withLock { peer }
    }
}

/// A Logger whose lines are kept.
final class CapturedLog: @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [String] = []
    var lines: [String] { lock.withLock { kept } }
    var logger: Logger { Logger(label: "screen", level: .debug) { [self] line in lock.withLock { kept.append(line) } } }
}

/// Writes all of `text` (blocking), ignoring a peer that has gone.
func writeAll(_ fd: Int32, _ text: String) {
    let bytes = Array(text.utf8)
    var done = 0
    while done < bytes.count && fd >= 0 {
        let n = bytes.withUnsafeBytes { raw in Glibc.send(fd, raw.baseAddress.map { $0 + done }, raw.count - done, Int32(MSG_NOSIGNAL)) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return }
        done += n
    }
}

/// Reads one line (through its "\n"), at most 1 KiB, waiting up to 5 s.
func readLine(_ fd: Int32) -> String {
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while line.count < 1024 {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, 5000) > 0, read(fd, &byte, 1) == 1 else { break }
        line.append(byte)
        if byte == 0x0a { break }
    }
    return String(decoding: line, as: UTF8.self)
}

private extension String {
    /// In brackets, as a reply list.
    func wrapped() -> String { "[" + self + "]" }
}
