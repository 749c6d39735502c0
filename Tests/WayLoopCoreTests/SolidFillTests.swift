import WayLoopCore
import XCTest

/// How the fallback colour reaches the screen, from the globals each compositor offers (as
/// wayland-info listed them on the harness's compositors).
final class SolidFillTests: XCTestCase {
    func testThePathFromTheGlobalsOffered() {
        // (compositor, offers wp_single_pixel_buffer_manager_v1, offers wp_viewporter, allowed, path)
        let cases: [(String, Bool, Bool, Bool, SolidFill)] = [
            ("sway 1.12", true, true, true, .singlePixel),
            ("sway 1.10", true, true, true, .singlePixel),
            ("labwc 0.20", true, true, true, .singlePixel),
            ("Wayfire 0.10", true, true, true, .singlePixel),
            ("phoc 0.46", true, true, true, .singlePixel),
            ("KWin 6: no single-pixel buffers", false, true, true, .rendered),
            ("sway 1.7: no single-pixel buffers", false, true, true, .rendered),
            ("single-pixel without a viewporter: a 1x1 buffer would cover one pixel", true, false, true, .rendered),
            ("neither", false, false, true, .rendered),
            ("sway 1.12 with WAYLOOP_SINGLE_PIXEL=off", true, true, false, .rendered),
        ]
        for (name, single, viewporter, allowed, want) in cases {
            XCTAssertEqual(SolidFill.choose(singlePixelBuffer: single, viewporter: viewporter, allowed: allowed), want, name)
        }
    }

    /// create_u32_rgba_buffer takes each channel as a share of UInt32.max, pre-multiplied, and
    /// the colour is opaque: 8-bit channels spread over the full range, alpha full.
    func testTheBuffersChannels() {
        let cases: [(String, UInt32, UInt32, UInt32)] = [
            ("000000", 0, 0, 0),
            ("ffffff", 0xffff_ffff, 0xffff_ffff, 0xffff_ffff),
            ("ff8000", 0xffff_ffff, 0x8080_8080, 0),
            ("010203", 0x0101_0101, 0x0202_0202, 0x0303_0303),
            ("7f80fe", 0x7f7f_7f7f, 0x8080_8080, 0xfefe_fefe),
        ]
        for (hex, r, g, b) in cases {
            let c = SolidFill.channels(RGB(hex: hex)!)
            XCTAssertEqual([c.r, c.g, c.b, c.a], [r, g, b, UInt32.max], hex)
            // What a compositor reads back at 8 bits (the top byte) is the colour asked for.
            XCTAssertEqual(RGB(red: UInt8(c.r >> 24), green: UInt8(c.g >> 24), blue: UInt8(c.b >> 24)), RGB(hex: hex), hex)
        }
    }
}
