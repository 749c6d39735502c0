// What the 2026 compositors offer beyond sway 1.7, on sway 1.12 (Debian unstable's, from the
// chroot scripts/chroots makes), whatever $WAYLOOP_COMPOSITOR says: the fractional scale in use
// in the start notice and status, content-type-v1 and the fallback colour as a single-pixel
// buffer, and the same colour the renderer's way where single-pixel-buffer-v1 is absent (the
// host's sway 1.7) or turned off. What wayloop asks of the compositor is read from its own
// WAYLAND_DEBUG=client log; what reaches the screen, from grim.
import Foundation
import WayLoopTestSupport
import XCTest

final class NewerCompositorTests: XCTestCase {
    /// The fallback colour under test, and what create_u32_rgba_buffer says of it.
    private static let colour = "ff8000"
    private static let channels = "4294967295, 2155905152, 0, 4294967295"

    // MARK: The scale in use

    /// At scale 1.5 and 1.25 on a 1280x720 output, the buffer is the output's 1280x720 (for a
    /// logical 853x480 and 1024x576), the start notice and `ctl status` say the fractional scale
    /// (sway's wl_output says 2), and the screen holds FFmpeg's own 1280x720 picture.
    func testTheScaleInUseIsTheFractionalOne() throws {
        let sway = try Compositor(kind: "start-sway", outputs: ["1280x720"], named: "sway-1.12")
        defer { sway.stop() }
        let still = sway.dir + "/still.mp4"
        try ScaledReference.makeStill(still)
        let ref = try ScaledReference.rgb(of: still, width: 1280, height: 720, in: sway.dir)
        for (scale, logical) in [("1.5", "853x480"), ("1.25", "1024x576")] {
            let set = sway.swaymsg(["output", "HEADLESS-1", "scale", scale])
            XCTAssertEqual(set.status, 0, set.stderr)
            let w = try Wayloop([still], env: sway.env)
            XCTAssertTrue(w.waitForState("HEADLESS-1", state: "playing", shown: true), "\(w.lastStatus); \(w.stderr)")
            XCTAssertTrue(w.stderr.contains("HEADLESS-1 (1280x720, scale \(scale)): showing '\(still)'"), "scale \(scale): \(w.stderr)")
            let surface = try XCTUnwrap(try w.ctlStatus().first?["surface"] as? [String: Any], w.lastStatus)
            XCTAssertEqual(surface["scale"] as? Double, Double(scale), "\(surface)")
            XCTAssertEqual(surface["buffer"] as? String, "1280x720", "\(surface)")
            XCTAssertEqual(surface["logical"] as? String, logical, "\(surface)")
            // The still is drawn once: the first screenshot that holds it is the picture.
            var psnr = 0.0
            XCTAssertTrue(Wait.until(timeout: 10) {
                guard let shot = try? sway.shot("HEADLESS-1"), shot.width == 1280, shot.height == 720 else { return false }
                psnr = ScaledReference.psnr(shot.pixels, ref)
                return psnr > 30
            }, "scale \(scale): \((psnr * 10).rounded() / 10) dB against FFmpeg's 1280x720")
            print("NewerCompositorTests: sway 1.12 at scale \(scale): \((psnr * 10).rounded() / 10) dB against FFmpeg's 1280x720")
            XCTAssertEqual(w.stop(), 0, w.stderr)
        }
    }

    // MARK: Content type and the fallback colour

    /// sway 1.12 offers content-type-v1 and single-pixel-buffer-v1: the surface says `video`
    /// before its first commit, the colour is one create_u32_rgba_buffer and every buffer the
    /// surface is given is that one (no wl_shm pool, no EGL buffer), the screen shows the colour,
    /// wp_presentation is bound at version 2, and a video set later fills the screen again.
    func testContentTypeAndASinglePixelColourOnSway112() throws {
        let sway = try Compositor(kind: "start-sway", outputs: ["1280x720"], named: "sway-1.12")
        defer { sway.stop() }
        let w = try colourFallback(on: sway)
        let log = w.stderr
        XCTAssertTrue(log.contains("\"wp_presentation\", 2, new id"), "wp_presentation not bound at version 2")
        let surface = try XCTUnwrap(firstMatch(#"get_surface_content_type\(new id wp_content_type_v1@(\d+), (wl_surface@\d+)\)"#, in: log),
                                    "no content type asked for")
        let setType = try XCTUnwrap(log.range(of: "wp_content_type_v1@\(surface[0]).set_content_type(2)"),
                                    "the content type is not video (2)")
        let firstCommit = try XCTUnwrap(log.range(of: "\(surface[1]).commit()"))
        XCTAssertLessThan(setType.lowerBound, firstCommit.lowerBound, "set_content_type after the surface's first commit")
        let buffer = try XCTUnwrap(firstMatch(#"create_u32_rgba_buffer\(new id (wl_buffer@\d+), ([0-9, ]+)\)"#, in: log),
                                   "no single-pixel buffer made")
        XCTAssertEqual(buffer[1], Self.channels)
        let attached = matches(#"\#(surface[1])\.attach\((wl_buffer@\d+|nil)"#, in: log)
        XCTAssertFalse(attached.isEmpty, "nothing attached")
        XCTAssertEqual(Set(attached), [buffer[0]], "a buffer other than the single-pixel one was attached")
        XCTAssertFalse(log.contains(".create_pool("), "a wl_shm pool was made for the colour")
        try assertColourOnScreen(sway)
        // The video's own buffers again, over the whole surface.
        let still = sway.dir + "/still.mp4"
        try ScaledReference.makeStill(still)
        let ref = try ScaledReference.rgb(of: still, width: 1280, height: 720, in: sway.dir)
        let set = Shell.run([Repo.binary, "ctl", "set", "HEADLESS-1", still], env: sway.env, timeout: 20)
        XCTAssertEqual(set.status, 0, set.stderr)
        XCTAssertTrue(w.waitForState("HEADLESS-1", state: "playing", shown: true), "\(w.lastStatus)")
        var psnr = 0.0
        XCTAssertTrue(Wait.until(timeout: 10) {
            guard let shot = try? sway.shot("HEADLESS-1") else { return false }
            psnr = ScaledReference.psnr(shot.pixels, ref)
            return psnr > 30
        }, "the video after the colour: \((psnr * 10).rounded() / 10) dB against FFmpeg's 1280x720")
        XCTAssertEqual(w.stop(), 0)
        XCTAssertFalse(w.crashed)
    }

    /// WAYLOOP_SINGLE_PIXEL=off on sway 1.12: the renderer's own buffer again, the same colour.
    func testTheRenderersColourWhenSinglePixelIsOff() throws {
        let sway = try Compositor(kind: "start-sway", outputs: ["1280x720"], named: "sway-1.12")
        defer { sway.stop() }
        let w = try colourFallback(on: sway, env: ["WAYLOOP_SINGLE_PIXEL": "off"])
        XCTAssertFalse(w.stderr.contains("create_u32_rgba_buffer"), "a single-pixel buffer was made although turned off")
        XCTAssertTrue(w.stderr.contains("set_content_type(2)"), "the content type is not said")
        try assertColourOnScreen(sway)
        XCTAssertEqual(w.stop(), 0)
    }

    /// What is asked follows what is offered, one global without the other: KWin 6 offers
    /// content-type but no single-pixel buffers (the surface says `video`, the renderer draws the
    /// colour), labwc 0.20 single-pixel buffers but no content-type (a 1x1 buffer, no content
    /// type asked for).
    func testEachGlobalOnItsOwn() throws {
        let kwin = try Compositor(kind: "start-kwin", outputs: ["1280x720"], named: "kwin-6")
        defer { kwin.stop() }
        let k = try colourFallback(on: kwin)
        XCTAssertTrue(k.stderr.contains("set_content_type(2)"), "KWin 6: the content type is not said")
        XCTAssertFalse(k.stderr.contains("create_u32_rgba_buffer"), "KWin 6 offers no single-pixel buffers, yet one was asked for")
        XCTAssertTrue(k.stderr.contains(".create_pool("), "KWin 6: the renderer's own buffer was not made for the colour")
        XCTAssertEqual(k.stop(), 0)
        let labwc = try Compositor(kind: "start-labwc", outputs: ["1280x720"], named: "labwc-0.20")
        defer { labwc.stop() }
        let l = try colourFallback(on: labwc)
        XCTAssertFalse(l.stderr.contains("wp_content_type_manager_v1"), "labwc 0.20 offers no content type, yet it was bound")
        XCTAssertTrue(l.stderr.contains("create_u32_rgba_buffer"), "labwc 0.20: no single-pixel buffer for the colour")
        try assertColourOnScreen(labwc)
        XCTAssertEqual(l.stop(), 0)
    }

    /// The host's sway 1.7 offers neither global: nothing asked of them, wp_presentation bound
    /// at its version 1, and the colour drawn by the renderer as before.
    func testTheColourWithoutSinglePixelBuffersOnSway17() throws {
        let sway = try Compositor(kind: "start-sway", outputs: ["1280x720"], named: "sway")
        defer { sway.stop() }
        let w = try colourFallback(on: sway)
        let log = w.stderr
        XCTAssertFalse(log.contains("wp_single_pixel_buffer_manager_v1"), "sway 1.7 offers single-pixel buffers now: this test needs another compositor")
        XCTAssertFalse(log.contains("create_u32_rgba_buffer") || log.contains("get_surface_content_type"))
        XCTAssertTrue(log.contains("\"wp_presentation\", 1, new id"), "wp_presentation not bound at sway 1.7's version 1")
        XCTAssertFalse(matches(#"wl_surface@\d+\.attach\((wl_buffer@\d+)"#, in: log).isEmpty, "the renderer attached no buffer")
        try assertColourOnScreen(sway)
        XCTAssertEqual(w.stop(), 0)
    }

    // MARK: Helpers

    /// A wayloop whose only video is missing, with the fallback colour, logging its requests
    /// (WAYLAND_DEBUG=client), once the colour is committed.
    private func colourFallback(on sway: Compositor, env extra: [String: String] = [:]) throws -> Wayloop {
        let env = sway.env.merging(extra.merging(["WAYLAND_DEBUG": "client"]) { a, _ in a }) { _, b in b }
        let w = try Wayloop(["-f", Self.colour, sway.dir + "/missing.mp4"], env: env)
        XCTAssertTrue(w.waitForState(sway.outputs[0], state: "failed", shown: true), "\(w.lastStatus); \(w.stderr.suffix(3000))")
        XCTAssertTrue(w.stderr.contains("showing the fallback colour \(Self.colour)"), String(w.stderr.suffix(3000)))
        return w
    }

    /// The whole output shows the colour (corners, edges and centre: a 1x1 buffer not scaled
    /// over the surface would leave all but one pixel black).
    private func assertColourOnScreen(_ sway: Compositor, file: StaticString = #filePath, line: UInt = #line) throws {
        let want = RGB8(hex: Self.colour)!
        var seen = ""
        let ok = Wait.until(timeout: 10) {
            guard let shot = try? sway.shot(sway.outputs[0]) else { return false }
            let points = [(2, 2), (shot.width - 3, 2), (2, shot.height - 3), (shot.width - 3, shot.height - 3),
                          (shot.width / 2, shot.height / 2), (shot.width / 4, shot.height * 3 / 4)]
            seen = points.map { "\(shot.pixel($0.0, $0.1))" }.joined(separator: " ")
            return points.allSatisfy { shot.pixel($0.0, $0.1).close(to: want, tolerance: 2) }
        }
        XCTAssertTrue(ok, "not \(Self.colour) on screen: \(seen)", file: file, line: line)
    }

    /// The capture groups of `pattern`'s first match in `text`.
    private func firstMatch(_ pattern: String, in text: String) -> [String]? {
        guard let re = try? NSRegularExpression(pattern: pattern),
              let m = re.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) else { return nil }
        return (1..<m.numberOfRanges).compactMap { Range(m.range(at: $0), in: text).map { String(text[$0]) } }
    }

    /// The first capture group of every match of `pattern` in `text`.
    private func matches(_ pattern: String, in text: String) -> [String] {
        guard let re = try? NSRegularExpression(pattern: pattern) else { return [] }
        return re.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        }
    }
}
