// GLES 3 drawing: one program, one quad, per-video plane textures. A decoded frame's planes are
// uploaded as they are (R8 for Y, Cb, Cr; RG8 for NV12's CbCr) with GL_UNPACK_ROW_LENGTH for the
// padded line size; colour conversion and the aspect-fill crop happen in the shader.
// Main thread only, with the shared EGL context current.
import CFFmpeg
import CWayland
import Shaders
import WayLoopCore

/// The textures holding one video's current frame: shared by every output that shows it.
final class VideoTextures {
    fileprivate var names: [GLuint] = [0, 0, 0]
    fileprivate var sizes: [Size] = Array(repeating: Size(width: 0, height: 0), count: 3)
    fileprivate(set) var semiPlanar = false
    fileprivate(set) var conversion = YUVConversion(matrix: .bt709, range: .limited)
    /// What `conversion` was computed from (colorspace, range, full-range format).
    fileprivate var colourKey: (UInt32, UInt32, Bool)?
    fileprivate var repeats = [false, false, false]
    fileprivate var orientation = Orientation.upright
    fileprivate var orientationMatrix = Orientation.upright.textureTransform
    /// Display size of the uploaded frame.
    fileprivate(set) var size = Size(width: 0, height: 0)

    init() { glGenTextures(3, &names) }
    deinit { glDeleteTextures(3, names) }
}

final class Renderer {
    private let program: GLuint
    private let quad: GLuint
    private let uDestination: GLint, uSource: GLint, uSemiPlanar: GLint
    private let uMatrix: GLint, uOffset: GLint, uBrightness: GLint, uOrientation: GLint
    /// GL_MAX_TEXTURE_SIZE of this context.
    let maxTextureSize: Int

    init() throws(GraphicsError) {
        let vs = try Renderer.compile(GLenum(GL_VERTEX_SHADER), YUVProgram.vertex)
        let fs = try Renderer.compile(GLenum(GL_FRAGMENT_SHADER), YUVProgram.fragment)
        let p = glCreateProgram()
        glAttachShader(p, vs)
        glAttachShader(p, fs)
        glLinkProgram(p)
        glDeleteShader(vs)
        glDeleteShader(fs)
        var ok: GLint = 0
        glGetProgramiv(p, GLenum(GL_LINK_STATUS), &ok)
        guard ok != 0 else { throw GraphicsError("shader program did not link: \(Renderer.programLog(p))", code: 0) }
        program = p
        glUseProgram(p)
        uDestination = glGetUniformLocation(p, "destination")
        uSource = glGetUniformLocation(p, "source")
        uSemiPlanar = glGetUniformLocation(p, "semiPlanar")
        uMatrix = glGetUniformLocation(p, "yuvToRgb")
        uOffset = glGetUniformLocation(p, "yuvOffset")
        uBrightness = glGetUniformLocation(p, "brightness")
        uOrientation = glGetUniformLocation(p, "orientation")
        var maxSize: GLint = 0
        glGetIntegerv(GLenum(GL_MAX_TEXTURE_SIZE), &maxSize)
        maxTextureSize = Int(max(maxSize, 64))
        for (i, name) in ["planeY", "planeU", "planeV"].enumerated() {
            glUniform1i(glGetUniformLocation(p, name), GLint(i))
        }
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
        glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 1)
        glDisable(GLenum(GL_BLEND))
    }

    deinit {
        var vbo = quad
        glDeleteBuffers(1, &vbo)
        glDeleteProgram(program)
    }

    /// Uploads a frame's planes into `textures` (reallocating only when the size changes).
    /// No heap allocation here: it runs once per video frame.
    func upload(_ frame: UnsafeMutablePointer<AVFrame>, into textures: VideoTextures) {
        guard let layout = PlaneLayout(frame: frame) else { return }
        let f = frame.pointee
        let w = Int(f.width), h = Int(f.height)
        let cw = -((-w) >> Int(layout.chromaShiftX)), ch = -((-h) >> Int(layout.chromaShiftY))
        textures.semiPlanar = layout.semiPlanar
        textures.size = Size(width: w, height: h)
        let colour = (f.colorspace.rawValue, f.color_range.rawValue, layout.impliesFullRange)
        if textures.colourKey.map({ $0 != colour }) ?? true {
            textures.colourKey = colour
            textures.conversion = YUVConversion(frame: frame, layout: layout)
        }
        let planeCount = layout.semiPlanar ? 2 : 3
        withUnsafePointer(to: f.data) { dataTuple in
            withUnsafePointer(to: f.linesize) { lineTuple in
                dataTuple.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { data in
                    lineTuple.withMemoryRebound(to: Int32.self, capacity: 8) { lines in
                        for i in 0..<planeCount {
                            let size = i == 0 ? Size(width: w, height: h) : Size(width: cw, height: ch)
                            let rg = layout.semiPlanar && i == 1
                            uploadPlane(i, of: textures, size: size, internalFormat: rg ? GL_RG8 : GL_R8,
                                        format: GLenum(rg ? GL_RG : GL_RED), bytesPerPixel: rg ? 2 : 1,
                                        data: data[i], lineSize: lines[i])
                        }
                    }
                }
            }
        }
        glPixelStorei(GLenum(GL_UNPACK_ROW_LENGTH), 0)
    }

    private func uploadPlane(_ i: Int, of textures: VideoTextures, size: Size, internalFormat: GLint, format: GLenum,
                             bytesPerPixel: Int32, data: UnsafeMutablePointer<UInt8>?, lineSize: Int32) {
        glActiveTexture(GLenum(GL_TEXTURE0 + Int32(i)))
        glBindTexture(GLenum(GL_TEXTURE_2D), textures.names[i])
        if textures.sizes[i] != size {
            textures.sizes[i] = size
            glTexImage2D(GLenum(GL_TEXTURE_2D), 0, internalFormat, GLsizei(size.width), GLsizei(size.height), 0,
                         format, GLenum(GL_UNSIGNED_BYTE), nil)
            glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MIN_FILTER), GL_LINEAR)
            glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MAG_FILTER), GL_LINEAR)
            glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_WRAP_S), GL_CLAMP_TO_EDGE)
            glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_WRAP_T), GL_CLAMP_TO_EDGE)
            textures.repeats[i] = false
        }
        // GLES3's UNPACK_ROW_LENGTH takes FFmpeg's padded line size without repacking rows.
        glPixelStorei(GLenum(GL_UNPACK_ROW_LENGTH), lineSize / bytesPerPixel)
        glTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, 0, 0, GLsizei(size.width), GLsizei(size.height),
                        format, GLenum(GL_UNSIGNED_BYTE), data)
    }

    /// Draws `textures` on the current surface of `buffer` pixels.
    func draw(_ textures: VideoTextures, orientation: Orientation, buffer: Size, settings: OutputSettings) {
        let placement = Placement.compute(video: orientation.displaySize(textures.size), output: buffer, mode: settings.mode)
        glViewport(0, 0, GLsizei(buffer.width), GLsizei(buffer.height))
        if placement.hasBorders {
            let c = settings.color
            glClearColor(GLfloat(c.red) / 255, GLfloat(c.green) / 255, GLfloat(c.blue) / 255, 1)
            glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        }
        glUseProgram(program)
        // Tile repeats the texture; everything else clamps (no bleeding at the edges).
        let repeats = settings.mode == .tile
        for i in 0..<(textures.semiPlanar ? 2 : 3) {
            glActiveTexture(GLenum(GL_TEXTURE0 + Int32(i)))
            glBindTexture(GLenum(GL_TEXTURE_2D), textures.names[i])
            if textures.repeats[i] != repeats {
                textures.repeats[i] = repeats
                let wrap = repeats ? GL_REPEAT : GL_CLAMP_TO_EDGE
                glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_WRAP_S), wrap)
                glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_WRAP_T), wrap)
            }
        }
        if textures.orientation != orientation {
            textures.orientation = orientation
            textures.orientationMatrix = orientation.textureTransform
        }
        textures.orientationMatrix.withUnsafeBufferPointer {
            glUniformMatrix3fv(uOrientation, 1, GLboolean(GL_FALSE), $0.baseAddress)
        }
        // Destination in clip space (y up); the vertex shader flips the quad's y.
        let d = placement.destination
        let bw = Double(buffer.width), bh = Double(buffer.height)
        glUniform4f(uDestination, GLfloat(d.x / bw * 2 - 1), GLfloat(1 - (d.y + d.height) / bh * 2),
                    GLfloat(d.width / bw * 2), GLfloat(d.height / bh * 2))
        let s = placement.source
        glUniform4f(uSource, GLfloat(s.x), GLfloat(s.y), GLfloat(s.width), GLfloat(s.height))
        glUniform1i(uSemiPlanar, textures.semiPlanar ? 1 : 0)
        textures.conversion.matrix.withUnsafeBufferPointer { glUniformMatrix3fv(uMatrix, 1, GLboolean(GL_FALSE), $0.baseAddress) }
        let o = textures.conversion.offset
        glUniform3f(uOffset, o[0], o[1], o[2])
        glUniform1f(uBrightness, GLfloat(1 - settings.dim))
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
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
