/// How an output's solid colour (the fallback colour) reaches the screen. Where the compositor
/// offers wp_single_pixel_buffer_v1 and wp_viewporter, the colour is a 1x1 buffer the
/// compositor makes from four numbers and the viewport scales over the surface: nothing is
/// converted, drawn or swapped, and no buffer memory is shared. Elsewhere the renderer draws
/// it as it always has: a wl_shm buffer of the surface's size filled (shm), or a clear and a
/// swap (GL).
public enum SolidFill: String, Equatable, Sendable {
    /// A wp_single_pixel_buffer_v1 buffer scaled by the surface's wp_viewport.
    case singlePixel = "single-pixel"
    /// The renderer's own buffer of the surface's size.
    case rendered

    /// The path for a surface: a single-pixel buffer needs both globals (a 1x1 buffer shown
    /// without a viewport would cover one pixel), and `allowed` (WAYLOOP_SINGLE_PIXEL=off, for
    /// measuring the old path against it, says no).
    public static func choose(singlePixelBuffer: Bool, viewporter: Bool, allowed: Bool = true) -> SolidFill {
        singlePixelBuffer && viewporter && allowed ? .singlePixel : .rendered
    }

    /// create_u32_rgba_buffer's arguments for an opaque `colour`: each 8-bit channel spread over
    /// the full 32-bit range (0 → 0, 255 → 0xffffffff: the protocol's 0 % to 100 %), alpha
    /// full (so pre-multiplying changes nothing).
    public static func channels(_ colour: RGB) -> (r: UInt32, g: UInt32, b: UInt32, a: UInt32) {
        func spread(_ v: UInt8) -> UInt32 { UInt32(v) * 0x0101_0101 }
        return (spread(colour.red), spread(colour.green), spread(colour.blue), UInt32.max)
    }
}
