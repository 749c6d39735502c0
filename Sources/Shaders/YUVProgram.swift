// GLSL ES 3.00 sources for the one program WayLoop draws with, as Swift string constants
// (SwiftPM resources would pull in Foundation and a bundle beside the binary).
//
// The vertex shader maps a unit quad onto the destination rectangle (in clip space) and onto
// the source rectangle (texture space): aspect-fill is a crop of the UV range, done here rather
// than by scaling pixels on the CPU. The fragment shader converts Y'CbCr to R'G'B' with the
// matrix and offset of the frame (see WayLoopCore.YUVConversion) and applies the dim.
// Shaped by measurement on Mesa llvmpipe, where texture fetches dominate: two fetches per pixel
// (Y, and Cb/Cr together), no branch, highp (mediump measured 35 % slower).

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

    /// Two textures: Y (R8) and CbCr interleaved (RG8: Cb in .r, Cr in .g). No branches and no
    /// clamp: llvmpipe evaluates both sides of a uniform branch, and the 8-bit target clamps.
    /// Each row is the (Y, Cb, Cr, 1) coefficients of one output channel, dim folded in.
    public static let fragment = """
    #version 300 es
    precision highp float;
    in vec2 uv;
    uniform sampler2D planeY;
    uniform sampler2D planeUV;
    uniform vec4 rowR;
    uniform vec4 rowG;
    uniform vec4 rowB;
    out vec4 color;
    void main() {
        vec4 v = vec4(texture(planeY, uv).r, texture(planeUV, uv).rg, 1.0);
        color = vec4(dot(rowR, v), dot(rowG, v), dot(rowB, v), 1.0);
    }
    """
}
