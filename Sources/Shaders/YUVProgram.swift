// GLSL ES 3.00 sources for the one program WayLoop draws with, as Swift string constants
// (SwiftPM resources would pull in Foundation and a bundle beside the binary).
//
// The vertex shader maps a unit quad onto the destination rectangle (in clip space) and onto
// the source rectangle (texture space): aspect-fill is a crop of the UV range, done here rather
// than by scaling pixels on the CPU. The fragment shader converts Y'CbCr to R'G'B' with the
// matrix and offset of the frame (see WayLoopCore.YUVConversion) and applies the dim.

public enum YUVProgram {
    /// Attribute 0: `corner`, the unit quad (0,0)-(1,1), origin top-left.
    public static let vertex = """
    #version 300 es
    layout(location = 0) in vec2 corner;
    uniform vec4 destination;   // x, y, width, height in clip space (y up)
    uniform vec4 source;        // x, y, width, height in display space (origin top-left)
    uniform mat3 orientation;   // display → stored texture coordinates (rotation, mirror)
    out vec2 uv;
    void main() {
        uv = (orientation * vec3(source.xy + corner * source.zw, 1.0)).xy;
        vec2 p = destination.xy + vec2(corner.x, 1.0 - corner.y) * destination.zw;
        gl_Position = vec4(p, 0.0, 1.0);
    }
    """

    /// Planar (3 textures: Y, Cb, Cr) or semi-planar (Y + interleaved CbCr in `planeU`.rg).
    public static let fragment = """
    #version 300 es
    precision highp float;
    in vec2 uv;
    uniform sampler2D planeY;
    uniform sampler2D planeU;
    uniform sampler2D planeV;
    uniform bool semiPlanar;
    uniform mat3 yuvToRgb;
    uniform vec3 yuvOffset;
    uniform float brightness;   // 1 - dim
    out vec4 color;
    void main() {
        float y = texture(planeY, uv).r;
        vec2 c = semiPlanar ? texture(planeU, uv).rg
                            : vec2(texture(planeU, uv).r, texture(planeV, uv).r);
        vec3 rgb = yuvToRgb * vec3(y, c) + yuvOffset;
        color = vec4(clamp(rgb, 0.0, 1.0) * brightness, 1.0);
    }
    """
}
