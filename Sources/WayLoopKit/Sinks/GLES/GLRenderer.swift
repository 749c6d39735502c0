// GLES 3 drawing: one program, one quad, two textures per video. Y goes up as it is (R8, with
// GL_UNPACK_ROW_LENGTH for FFmpeg's padded lines); Cb and Cr go up together as one RG8 texture
// (NV12 frames as they are, planar frames interleaved on the CPU: a byte shuffle of a quarter
// of the picture, ~0.2 ms at 1080p, no colour arithmetic). Colour conversion, dim and the
// aspect-fill crop happen in the shader. Measured on llvmpipe: two texture fetches per pixel
// instead of three (one per plane) halve the cost of a frame. Main thread only, EGL context
// current.
import CWayland
import Shaders
import WayLoopCore

/// The textures holding one video's current frame: shared by every output that shows it.
final class VideoTextures {
    fileprivate var names: [GLuint] = [0, 0]
    fileprivate var sizes: [Size] = Array(repeating: Size(width: 0, height: 0), count: 2)
    fileprivate(set) var conversion = YUVConversion(matrix: .bt709, range: .limited)
    /// What `conversion` was computed from (the frame's colour tags).
    fileprivate var colourKey: ColourTags?
    fileprivate var orientation = Orientation.upright
    fileprivate var orientationMatrix = Orientation.upright.textureTransform
    /// Reused buffer for interleaving planar Cb/Cr (grown only when the size grows).
    fileprivate var interleaved: UnsafeMutablePointer<UInt16>?
    fileprivate var interleavedCount = 0
    /// Coded size of the uploaded frame, and how its picture is turned for display.
    fileprivate(set) var size = Size(width: 0, height: 0)
    var pictureOrientation = Orientation.upright
    /// Bumped by every upload; the shared picture below follows it.
    fileprivate var uploads: UInt64 = 0
    /// For several outputs of the video's own size: the picture converted once per frame into a
    /// BGRA framebuffer (stored upside down, so that a flipping blit is a row copy) and copied to
    /// each output with glBlitFramebuffer. Created on first use.
    fileprivate var sharedFBO: GLuint = 0
    fileprivate var sharedTexture: GLuint = 0
    fileprivate var sharedSize = Size(width: 0, height: 0)
    fileprivate var sharedUploads: UInt64 = 0
    fileprivate var sharedDim = -1.0

    init() { glGenTextures(2, &names) }
    deinit {
        glDeleteTextures(2, names)
        if sharedFBO != 0 { glDeleteFramebuffers(1, &sharedFBO) }
        if sharedTexture != 0 { glDeleteTextures(1, &sharedTexture) }
        interleaved?.deallocate()
    }
}

final class GLRenderer {
    private let program: GLuint
    private let quad: GLuint
    private let uDestination: GLint, uSource: GLint, uOrientation: GLint
    private let uRows: [GLint]
    /// Sampler objects: [linear clamp, nearest clamp, linear repeat, nearest repeat].
    private var samplers: [GLuint] = [0, 0, 0, 0]
    /// GL_MAX_TEXTURE_SIZE of this context.
    let maxTextureSize: Int

    init() throws(GraphicsError) {
        let vs = try GLRenderer.compile(GLenum(GL_VERTEX_SHADER), YUVProgram.vertex)
        let fs = try GLRenderer.compile(GLenum(GL_FRAGMENT_SHADER), YUVProgram.fragment)
        let p = glCreateProgram()
        glAttachShader(p, vs)
        glAttachShader(p, fs)
        glLinkProgram(p)
        glDeleteShader(vs)
        glDeleteShader(fs)
        var ok: GLint = 0
        glGetProgramiv(p, GLenum(GL_LINK_STATUS), &ok)
        guard ok != 0 else { throw GraphicsError("shader program did not link: \(GLRenderer.programLog(p))", code: 0) }
        program = p
        glUseProgram(p)
        uDestination = glGetUniformLocation(p, "destination")
        uSource = glGetUniformLocation(p, "source")
        uOrientation = glGetUniformLocation(p, "orientation")
        uRows = [glGetUniformLocation(p, "rowR"), glGetUniformLocation(p, "rowG"), glGetUniformLocation(p, "rowB")]
        glUniform1i(glGetUniformLocation(p, "planeY"), 0)
        glUniform1i(glGetUniformLocation(p, "planeUV"), 1)
        var maxSize: GLint = 0
        glGetIntegerv(GLenum(GL_MAX_TEXTURE_SIZE), &maxSize)
        maxTextureSize = Int(max(maxSize, 64))
        // A VBO: client-side arrays from Swift would hand GL a pointer that dies with the closure.
        var vbo: GLuint = 0
        glGenBuffers(1, &vbo)
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), vbo)
        let corners: [GLfloat] = [0, 0, 1, 0, 0, 1, 1, 1]
        corners.withUnsafeBytes {
            glBufferData(GLenum(GL_ARRAY_BUFFER), $0.count, $0.baseAddress, GLenum(GL_STATIC_DRAW))
        }
        glEnableVertexAttribArray(0)
        glVertexAttribPointer(0, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), 0, nil)
        quad = vbo
        glGenSamplers(4, &samplers)
        for (i, s) in samplers.enumerated() {
            let filter = i % 2 == 0 ? GL_LINEAR : GL_NEAREST
            let wrap = i < 2 ? GL_CLAMP_TO_EDGE : GL_REPEAT
            glSamplerParameteri(s, GLenum(GL_TEXTURE_MIN_FILTER), filter)
            glSamplerParameteri(s, GLenum(GL_TEXTURE_MAG_FILTER), filter)
            glSamplerParameteri(s, GLenum(GL_TEXTURE_WRAP_S), wrap)
            glSamplerParameteri(s, GLenum(GL_TEXTURE_WRAP_T), wrap)
        }
        glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 1)
        glDisable(GLenum(GL_BLEND))
        warmUp()
    }

    /// Draws once into a tiny BGRA framebuffer with the samplers a frame uses, so that a
    /// software GL (llvmpipe) compiles its shader variants now, while the decoder opens the
    /// video, not when the first frame is due.
    private func warmUp() {
        var fbo: GLuint = 0, target: GLuint = 0
        var planes: [GLuint] = [0, 0]
        glGenFramebuffers(1, &fbo)
        glGenTextures(1, &target)
        glGenTextures(2, &planes)
        glBindTexture(GLenum(GL_TEXTURE_2D), target)
        glTexImage2D(GLenum(GL_TEXTURE_2D), 0, GLint(GL_BGRA_EXT), 8, 8, 0, GLenum(GL_BGRA_EXT), GLenum(GL_UNSIGNED_BYTE), nil)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), fbo)
        glFramebufferTexture2D(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_TEXTURE_2D), target, 0)
        let formats: [(GLint, GLenum)] = [(GL_R8, GLenum(GL_RED)), (GL_RG8, GLenum(GL_RG))]
        for i in 0..<2 {
            glActiveTexture(GLenum(GL_TEXTURE0 + Int32(i)))
            glBindTexture(GLenum(GL_TEXTURE_2D), planes[i])
            glTexImage2D(GLenum(GL_TEXTURE_2D), 0, formats[i].0, 8, 8, 0, formats[i].1, GLenum(GL_UNSIGNED_BYTE), nil)
        }
        glViewport(0, 0, 8, 8)
        glUseProgram(program)
        glUniform4f(uDestination, -1, -1, 2, 2)
        glUniform4f(uSource, 0, 0, 1, 1)
        let identity: [GLfloat] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
        identity.withUnsafeBufferPointer { glUniformMatrix3fv(uOrientation, 1, GLboolean(GL_FALSE), $0.baseAddress) }
        // Luma NEAREST (pixel-exact) and LINEAR (scaled), chroma LINEAR, clamped.
        for lumaSampler in [samplers[1], samplers[0]] {
            glBindSampler(0, lumaSampler)
            glBindSampler(1, samplers[0])
            glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
        }
        glFinish()
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
        glDeleteFramebuffers(1, &fbo)
        glDeleteTextures(1, &target)
        glDeleteTextures(2, planes)
    }

    deinit {
        var vbo = quad
        glDeleteBuffers(1, &vbo)
        glDeleteSamplers(4, samplers)
        glDeleteProgram(program)
    }

    /// Uploads a picture's planes into `textures` (reallocating only when the size changes). No
    /// heap allocation here in the steady state: it runs once per video frame.
    func upload(_ planes: CPUPlanes, into textures: VideoTextures) {
        let layout = planes.layout
        let size = planes.size
        let cw = -((-size.width) >> Int(layout.chromaShiftX)), ch = -((-size.height) >> Int(layout.chromaShiftY))
        textures.size = size
        textures.uploads &+= 1
        if textures.colourKey.map({ $0 != planes.colourTags }) ?? true {
            textures.colourKey = planes.colourTags
            textures.conversion = YUVConversion(planes.colour)
        }
        let y = planes.plane(0), u = planes.plane(1)
        uploadPlane(0, of: textures, size: size, internalFormat: GL_R8, format: GLenum(GL_RED), rowLength: Int32(y.lineSize),
                    data: UnsafeRawPointer(y.data))
        let chroma = Size(width: cw, height: ch)
        if layout.semiPlanar {
            uploadPlane(1, of: textures, size: chroma, internalFormat: GL_RG8, format: GLenum(GL_RG), rowLength: Int32(u.lineSize / 2),
                        data: UnsafeRawPointer(u.data))
        } else if let ud = u.data, let vd = planes.plane(2).data {
            let packed = interleave(u: ud, uStride: u.lineSize, v: vd, vStride: planes.plane(2).lineSize, size: chroma, into: textures)
            uploadPlane(1, of: textures, size: chroma, internalFormat: GL_RG8, format: GLenum(GL_RG), rowLength: Int32(cw),
                        data: UnsafeRawPointer(packed))
        }
        glPixelStorei(GLenum(GL_UNPACK_ROW_LENGTH), 0)
    }

    /// Cb and Cr side by side (little-endian UInt16: Cb in the low byte = .r, Cr = .g).
    private func interleave(u: UnsafeMutablePointer<UInt8>, uStride: Int, v: UnsafeMutablePointer<UInt8>, vStride: Int,
                            size: Size, into textures: VideoTextures) -> UnsafeMutablePointer<UInt16> {
        let count = size.width * size.height
        if textures.interleavedCount < count {
            textures.interleaved?.deallocate()
            textures.interleaved = .allocate(capacity: count)
            textures.interleavedCount = count
        }
        let out = textures.interleaved!
        for row in 0..<size.height {
            let ur = u + row * uStride, vr = v + row * vStride, o = out + row * size.width
            for x in 0..<size.width { o[x] = UInt16(ur[x]) | UInt16(vr[x]) << 8 }
        }
        return out
    }

    private func uploadPlane(_ i: Int, of textures: VideoTextures, size: Size, internalFormat: GLint, format: GLenum,
                             rowLength: Int32, data: UnsafeRawPointer?) {
        glActiveTexture(GLenum(GL_TEXTURE0 + Int32(i)))
        glBindTexture(GLenum(GL_TEXTURE_2D), textures.names[i])
        if textures.sizes[i] != size {
            textures.sizes[i] = size
            glTexImage2D(GLenum(GL_TEXTURE_2D), 0, internalFormat, GLsizei(size.width), GLsizei(size.height), 0,
                         format, GLenum(GL_UNSIGNED_BYTE), nil)
        }
        // GLES3's UNPACK_ROW_LENGTH takes FFmpeg's padded line size without repacking rows.
        glPixelStorei(GLenum(GL_UNPACK_ROW_LENGTH), rowLength)
        glTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, 0, 0, GLsizei(size.width), GLsizei(size.height),
                        format, GLenum(GL_UNSIGNED_BYTE), data)
    }

    /// Draws `textures` on the current surface of `buffer` pixels. `shared`: other outputs of
    /// this size show the same video, so the converted picture is kept and copied (measured on
    /// llvmpipe: the y-flipped blit into a window buffer costs next to nothing, while shading the
    /// picture again costs as much as the first time).
    /// Fills the buffer with one colour (a fallback for an output whose video failed).
    func clear(_ c: RGB, buffer: Size) {
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
        glViewport(0, 0, GLsizei(buffer.width), GLsizei(buffer.height))
        glClearColor(GLfloat(c.red) / 255, GLfloat(c.green) / 255, GLfloat(c.blue) / 255, 1)
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
    }

    /// Limits the next draw to `rect` (buffer pixels, top-left origin): the rest of the back
    /// buffer already holds it (EGL_EXT_buffer_age).
    func beginScissor(_ rect: PixelRect, buffer: Size) {
        glEnable(GLenum(GL_SCISSOR_TEST))
        glScissor(GLint(rect.x), GLint(buffer.height - rect.y - rect.height), GLsizei(rect.width), GLsizei(rect.height))
    }

    func endScissor() { glDisable(GLenum(GL_SCISSOR_TEST)) }

    /// `placement`: where the picture lands on `buffer`, when the caller worked it out already
    /// (the sink does, once per present, for its damage too).
    func draw(_ textures: VideoTextures, orientation: Orientation, buffer: Size, settings: OutputSettings, shared: Bool,
              placement: Placement? = nil) {
        let display = orientation.displaySize(textures.size)
        if shared && display == buffer && settings.mode != .tile && !settings.mode.isSpan {
            drawShared(textures, orientation: orientation, size: buffer, settings: settings)
            return
        }
        drawPicture(textures, orientation: orientation, buffer: buffer, settings: settings, flipped: false, placement: placement)
    }

    /// A crossfade's new picture over what the framebuffer holds: out = new · w + old · (1 − w),
    /// by the blend unit's constant alpha; its bars (fit, center) are blended in too.
    func drawBlended(_ textures: VideoTextures, orientation: Orientation, buffer: Size, settings: OutputSettings, weight: Double) {
        glEnable(GLenum(GL_BLEND))
        glBlendColor(0, 0, 0, GLfloat(weight))
        glBlendFunc(GLenum(GL_CONSTANT_ALPHA), GLenum(GL_ONE_MINUS_CONSTANT_ALPHA))
        drawPicture(textures, orientation: orientation, buffer: buffer, settings: settings, flipped: false, blended: true)
        glDisable(GLenum(GL_BLEND))
    }

    private func drawShared(_ textures: VideoTextures, orientation: Orientation, size: Size, settings: OutputSettings) {
        if textures.sharedFBO == 0 {
            glGenFramebuffers(1, &textures.sharedFBO)
            glGenTextures(1, &textures.sharedTexture)
        }
        if textures.sharedSize != size {
            textures.sharedSize = size
            textures.sharedUploads = 0
            glBindTexture(GLenum(GL_TEXTURE_2D), textures.sharedTexture)
            glTexImage2D(GLenum(GL_TEXTURE_2D), 0, GLint(GL_BGRA_EXT), GLsizei(size.width), GLsizei(size.height), 0,
                         GLenum(GL_BGRA_EXT), GLenum(GL_UNSIGNED_BYTE), nil)
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), textures.sharedFBO)
            glFramebufferTexture2D(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_TEXTURE_2D),
                                   textures.sharedTexture, 0)
        }
        if textures.sharedUploads != textures.uploads || textures.sharedDim != settings.dim {
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), textures.sharedFBO)
            drawPicture(textures, orientation: orientation, buffer: size, settings: settings, flipped: true)
            textures.sharedUploads = textures.uploads
            textures.sharedDim = settings.dim
        }
        glBindFramebuffer(GLenum(GL_READ_FRAMEBUFFER), textures.sharedFBO)
        glBindFramebuffer(GLenum(GL_DRAW_FRAMEBUFFER), 0)
        glBlitFramebuffer(0, 0, GLint(size.width), GLint(size.height), 0, GLint(size.height), GLint(size.width), 0,
                          GLbitfield(GL_COLOR_BUFFER_BIT), GLenum(GL_NEAREST))
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
    }

    private func drawPicture(_ textures: VideoTextures, orientation: Orientation, buffer: Size, settings: OutputSettings,
                             flipped: Bool, blended: Bool = false, placement given: Placement? = nil) {
        let display = orientation.displaySize(textures.size)
        let placement = given ?? Placement.compute(video: display, output: buffer, mode: settings.mode, span: settings.span)
        glViewport(0, 0, GLsizei(buffer.width), GLsizei(buffer.height))
        if placement.hasBorders && !blended {
            let c = settings.color
            glClearColor(GLfloat(c.red) / 255, GLfloat(c.green) / 255, GLfloat(c.blue) / 255, 1)
            glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        }
        glUseProgram(program)
        // Tile repeats the texture; everything else clamps (no bleeding at the edges). Luma is
        // sampled NEAREST where texels land exactly on pixels (the same picture, fewer fetches).
        let repeats = settings.mode == .tile ? 2 : 0
        let lumaNearest = GLRenderer.isPixelExact(placement, display: display) ? 1 : 0
        for i in 0..<2 {
            glActiveTexture(GLenum(GL_TEXTURE0 + Int32(i)))
            glBindTexture(GLenum(GL_TEXTURE_2D), textures.names[i])
            glBindSampler(GLuint(i), samplers[repeats + (i == 0 ? lumaNearest : 0)])
        }
        if textures.orientation != orientation {
            textures.orientation = orientation
            textures.orientationMatrix = orientation.textureTransform
        }
        textures.orientationMatrix.withUnsafeBufferPointer {
            glUniformMatrix3fv(uOrientation, 1, GLboolean(GL_FALSE), $0.baseAddress)
        }
        if placement.hasBorders && blended {
            // A clear is not blended: the bars are quads of their colour (the rows' offsets
            // alone), each scissored to a strip outside the picture (blending the colour under
            // the picture too would darken it mid-fade). Drawn before the picture's own
            // destination and rows are set.
            let c = settings.color
            glUniform4f(uDestination, -1, -1, 2, 2)
            for (r, v) in [c.red, c.green, c.blue].enumerated() { glUniform4f(uRows[r], 0, 0, 0, GLfloat(v) / 255) }
            glEnable(GLenum(GL_SCISSOR_TEST))
            for strip in Self.bars(around: placement.destination, buffer: buffer) {
                glScissor(GLint(strip.x), GLint(strip.y), GLsizei(strip.width), GLsizei(strip.height))
                glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
            }
            glDisable(GLenum(GL_SCISSOR_TEST))
        }
        // Destination in clip space (y up); the vertex shader flips the quad's y.
        let d = placement.destination
        let bw = Double(buffer.width), bh = Double(buffer.height)
        if flipped {
            // Top of the picture on row 0: stored the way the window buffer stores rows.
            glUniform4f(uDestination, GLfloat(d.x / bw * 2 - 1), GLfloat(d.y / bh * 2 - 1) + GLfloat(d.height / bh * 2),
                        GLfloat(d.width / bw * 2), -GLfloat(d.height / bh * 2))
        } else {
            glUniform4f(uDestination, GLfloat(d.x / bw * 2 - 1), GLfloat(1 - (d.y + d.height) / bh * 2),
                        GLfloat(d.width / bw * 2), GLfloat(d.height / bh * 2))
        }
        let s = placement.source
        glUniform4f(uSource, GLfloat(s.x), GLfloat(s.y), GLfloat(s.width), GLfloat(s.height))
        // rgb = brightness · (M · (Y, Cb, Cr) + offset), one vec4 row per channel.
        let m = textures.conversion.matrix, o = textures.conversion.offset, b = GLfloat(1 - settings.dim)
        for r in 0..<3 { glUniform4f(uRows[r], m[r] * b, m[3 + r] * b, m[6 + r] * b, o[r] * b) }
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
    }

    /// The bars around a picture at `d` (output pixels, origin top-left) as GL scissor boxes
    /// (origin bottom-left): above, below, left and right of it, the empty ones left out.
    static func bars(around d: Rect, buffer: Size) -> [PixelRect] {
        let x0 = max(0, Int(d.x.rounded())), x1 = min(buffer.width, Int((d.x + d.width).rounded()))
        let y0 = max(0, Int(d.y.rounded())), y1 = min(buffer.height, Int((d.y + d.height).rounded()))
        let h = buffer.height
        return [PixelRect(x: 0, y: h - y0, width: buffer.width, height: y0),                 // above
                PixelRect(x: 0, y: 0, width: buffer.width, height: h - y1),                  // below
                PixelRect(x: 0, y: h - y1, width: x0, height: y1 - y0),                      // left
                PixelRect(x: x1, y: h - y1, width: buffer.width - x1, height: y1 - y0)]      // right
            .filter { !$0.isEmpty }
    }

    /// One texel per pixel, on whole-pixel offsets: NEAREST gives exactly what LINEAR would.
    static func isPixelExact(_ p: Placement, display: Size) -> Bool {
        let sw = p.source.width * Double(display.width), sh = p.source.height * Double(display.height)
        let sx = p.source.x * Double(display.width), sy = p.source.y * Double(display.height)
        func whole(_ v: Double) -> Bool { abs(v - v.rounded()) < 0.001 }
        return abs(sw - p.destination.width) < 0.001 && abs(sh - p.destination.height) < 0.001
            && whole(sx) && whole(sy) && whole(p.destination.x) && whole(p.destination.y)
    }

    private static func compile(_ type: GLenum, _ source: String) throws(GraphicsError) -> GLuint {
        let shader = glCreateShader(type)
        source.withCString { src in
            var p: UnsafePointer<GLchar>? = src
            glShaderSource(shader, 1, &p, nil)
        }
        glCompileShader(shader)
        var ok: GLint = 0
        glGetShaderiv(shader, GLenum(GL_COMPILE_STATUS), &ok)
        if ok == 0 {
            var buf = [GLchar](repeating: 0, count: 1024)
            glGetShaderInfoLog(shader, GLsizei(buf.count), nil, &buf)
            glDeleteShader(shader)
            throw GraphicsError("shader did not compile: \(String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))", code: 0)
        }
        return shader
    }

    private static func programLog(_ p: GLuint) -> String {
        var buf = [GLchar](repeating: 0, count: 1024)
        glGetProgramInfoLog(p, GLsizei(buf.count), nil, &buf)
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
