import WayLoopCore
import XCTest

final class RendererChoiceTests: XCTestCase {
    private let noGPU = RendererChoice.Environment(compositorHasDmabuf: false, hasRenderNode: false)
    private let gpu = RendererChoice.Environment(compositorHasDmabuf: true, hasRenderNode: true)

    /// Before EGL: what can be decided without loading a GL driver.
    func testBeforeEGL() {
        let cases: [(RendererRequest, RendererChoice.Environment, RendererKind?, String)] = [
            (.shm, gpu, .shm, "asked for"),
            (.shm, noGPU, .shm, "asked for"),
            (.gl, noGPU, nil, "gl always tries EGL"),
            (.gl, gpu, nil, "gl always tries EGL"),
            (.auto, noGPU, .shm, "no dmabuf"),
            (.auto, RendererChoice.Environment(compositorHasDmabuf: false, hasRenderNode: true), .shm, "no dmabuf"),
            (.auto, RendererChoice.Environment(compositorHasDmabuf: true, hasRenderNode: false), .shm, "no render node"),
            (.auto, gpu, nil, "a GPU may be there: ask EGL"),
        ]
        for (request, env, want, note) in cases {
            XCTAssertEqual(RendererChoice.beforeEGL(request, env)?.kind, want, "\(request) \(env): \(note)")
        }
        XCTAssertEqual(RendererChoice.beforeEGL(.auto, noGPU)?.line,
                       "renderer: shm (the compositor offers no linux-dmabuf, so GL would render in software)")
    }

    func testAfterEGL() {
        let cases: [(RendererRequest, String, RendererKind)] = [
            (.auto, "llvmpipe (LLVM 15.0.6, 256 bits)", .shm),
            (.auto, "softpipe", .shm),
            (.auto, "Software Rasterizer", .shm),
            (.auto, "swrast", .shm),
            (.auto, "AMD Radeon RX 6600 (navi23, LLVM 15.0.6, DRM 3.49, 6.1.0)", .gl),
            (.auto, "Mesa Intel(R) UHD Graphics 620 (KBL GT2)", .gl),
            // Asked for: GL even in software.
            (.gl, "llvmpipe (LLVM 15.0.6, 256 bits)", .gl),
        ]
        for (request, renderer, want) in cases {
            XCTAssertEqual(RendererChoice.afterEGL(request, glRenderer: renderer).kind, want, "\(request) \(renderer)")
        }
        XCTAssertTrue(RendererChoice.eglFailed(.gl, error: "eglInitialize failed").line.contains("falling back to shm"))
    }

    func testOptionAndConfig() throws {
        guard case .run(let o) = try OptionParser.parse(["--renderer", "shm", "v.mp4"]) else { return XCTFail("not a run") }
        XCTAssertEqual(o.renderer, .shm)
        XCTAssertEqual(o.rendererRequest(config: []), .shm)
        let config = try ConfigFile.parse("renderer = gl\nvideo = /v.mp4\n", path: "/c/config", home: nil)
        XCTAssertEqual(Options().rendererRequest(config: config), .gl)
        XCTAssertEqual(o.rendererRequest(config: config), .shm, "the command line beats the config file")
        XCTAssertEqual(Options().rendererRequest(config: []), .auto)
        XCTAssertThrowsError(try ConfigFile.parse("video = /v.mp4\n[output DP-1]\nrenderer = gl\n", path: "/c/config", home: nil)) {
            XCTAssertEqual(($0 as? ConfigError)?.line, 3)
        }
        XCTAssertThrowsError(try ConfigFile.parse("renderer = vulkan\n", path: "/c/config", home: nil)) {
            XCTAssertEqual("\($0)", "/c/config:1: renderer 'vulkan' is not one of auto, gl, shm")
        }
    }

    /// The names come from the renderer list: auto, then one request per renderer.
    func testRequestsFollowTheRendererList() {
        XCTAssertEqual(RendererRequest.expected, "one of auto, gl, shm")
        XCTAssertEqual(RendererRequest.allCases.compactMap(\.kind), RendererKind.allCases)
        XCTAssertNil(RendererRequest.auto.kind)
    }
}

final class ShmLayoutTests: XCTestCase {
    private func rect(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> PixelRect { PixelRect(x: x, y: y, width: w, height: h) }

    func testLayouts() {
        let cases: [(video: Size, buffer: Size, mode: ScaleMode, source: PixelRect, dest: PixelRect, borders: Bool, note: String)] = [
            (Size(width: 1920, height: 1080), Size(width: 1920, height: 1080), .fill, rect(0, 0, 1920, 1080), rect(0, 0, 1920, 1080), false, "same size"),
            // 4:3 output: 0.75 of the width, 240 px off each side.
            (Size(width: 1920, height: 1080), Size(width: 1024, height: 768), .fill, rect(240, 0, 1440, 1080), rect(0, 0, 1024, 768), false, "16:9 on 4:3"),
            // 9:16 on 16:9: 0.31640625 of 1280 = 405 rows from (1280-405)/2 = 437.5 -> 438 -> even 438.
            (Size(width: 720, height: 1280), Size(width: 1920, height: 1080), .fill, rect(0, 438, 720, 405), rect(0, 0, 1920, 1080), false, "9:16 on 16:9"),
            // An odd crop origin stays exact (the chroma planes start half a sample early): (1366-1280)/2 = 43.
            (Size(width: 1366, height: 720), Size(width: 1280, height: 720), .center, rect(43, 0, 1280, 720), rect(0, 0, 1280, 720), false, "center crop"),
            // One column cropped each side (the scale-2 test of OutputTests): exact, not moved to 0.
            (Size(width: 1280, height: 720), Size(width: 1278, height: 720), .fill, rect(1, 0, 1278, 720), rect(0, 0, 1278, 720), false, "1 px crop"),
            (Size(width: 1920, height: 1080), Size(width: 1024, height: 768), .fit, rect(0, 0, 1920, 1080), rect(0, 96, 1024, 576), true, "fit: bars top and bottom"),
            (Size(width: 640, height: 360), Size(width: 1280, height: 720), .center, rect(0, 0, 640, 360), rect(320, 180, 640, 360), true, "center smaller"),
            (Size(width: 640, height: 360), Size(width: 1280, height: 720), .stretch, rect(0, 0, 640, 360), rect(0, 0, 1280, 720), false, "stretch"),
            (Size(width: 640, height: 360), Size(width: 1280, height: 720), .tile, rect(0, 0, 640, 360), rect(0, 0, 640, 360), false, "tile"),
            (Size(width: 2000, height: 2000), Size(width: 1280, height: 720), .tile, rect(0, 0, 1280, 720), rect(0, 0, 1280, 720), false, "tile larger than the buffer"),
        ]
        for c in cases {
            let l = ShmLayout.compute(video: c.video, buffer: c.buffer, mode: c.mode)
            XCTAssertEqual(l.source, c.source, "source: \(c.note)")
            XCTAssertEqual(l.destination, c.dest, "destination: \(c.note)")
            XCTAssertEqual(l.hasBorders, c.borders, "borders: \(c.note)")
            XCTAssertEqual(l.tiled, c.mode == .tile, c.note)
        }
    }

    /// Every crop stays inside the picture and every destination inside the buffer.
    func testBounds() {
        for w in [17, 100, 1365, 1920, 3840] {
            for h in [9, 101, 720, 2160] {
                for mode in ScaleMode.allCases {
                    let b = Size(width: 1280, height: 1024)
                    let l = ShmLayout.compute(video: Size(width: w, height: h), buffer: b, mode: mode)
                    XCTAssertTrue(l.source.x >= 0 && l.source.x + l.source.width <= w && l.source.width >= 1, "\(w)x\(h) \(mode)")
                    XCTAssertTrue(l.source.y >= 0 && l.source.y + l.source.height <= h && l.source.height >= 1, "\(w)x\(h) \(mode)")
                    XCTAssertTrue(l.destination.x >= 0 && l.destination.x + l.destination.width <= b.width, "\(w)x\(h) \(mode)")
                    XCTAssertTrue(l.destination.y >= 0 && l.destination.y + l.destination.height <= b.height, "\(w)x\(h) \(mode)")
                }
            }
        }
        XCTAssertTrue(ShmLayout.compute(video: Size(width: 0, height: 0), buffer: Size(width: 10, height: 10), mode: .fill).destination.isEmpty)
    }

    func testBufferTransforms() {
        XCTAssertEqual(BufferTransform.forOrientation(.upright), 0)
        XCTAssertEqual(BufferTransform.forOrientation(Orientation(rotation: 90)), 1)
        XCTAssertEqual(BufferTransform.forOrientation(Orientation(rotation: 270)), 3)
        XCTAssertEqual(BufferTransform.forOrientation(Orientation(rotation: 0, mirrored: true)), 4)
        XCTAssertEqual(BufferTransform.forOrientation(Orientation(rotation: 90, mirrored: true)), 5)
    }
}

final class DecodeScaleTests: XCTestCase {
    func testFactors() {
        let uhd = Size(width: 3840, height: 2160), hd = Size(width: 1920, height: 1080)
        let cases: [(Size, Bool, [(size: Size, mode: ScaleMode)], Double, String)] = [
            (uhd, false, [(hd, .fill)], 0.5, "2160p on 1080p: half"),
            (uhd, false, [(hd, .fill), (Size(width: 2560, height: 1440), .fill)], 2.0 / 3, "the largest output decides"),
            (uhd, false, [(Size(width: 1080, height: 1920), .fill)], 1, "portrait fill of a landscape clip samples it at 0.89: not worth it"),
            (uhd, false, [(Size(width: 1024, height: 768), .fill)], 768.0 / 2160, "4:3 fill: the height decides"),
            (uhd, false, [(Size(width: 1024, height: 768), .fit)], 1024.0 / 3840, "fit: the width decides"),
            (uhd, false, [(hd, .stretch)], 0.5, "stretch"),
            (uhd, false, [(hd, .center)], 1, "center is 1:1"),
            (uhd, false, [(hd, .fill), (hd, .tile)], 1, "one tiled output keeps the full size"),
            (hd, false, [(Size(width: 1366, height: 768), .fill)], 1366.0 / 1920, "1080p on 1366x768 samples 0.71: scaled by the decoder"),
            (hd, false, [(Size(width: 1600, height: 900), .fill)], 1, "0.83: not worth a second pass"),
            (uhd, true, [(hd, .fill)], 1, "turned a quarter: 2160x3840 on 1920x1080 samples 0.89: full size"),
            (uhd, false, [], 1, "no outputs: as it is"),
            (Size(width: 0, height: 0), false, [(hd, .fill)], 1, "no size yet"),
        ]
        for (video, turned, outputs, want, note) in cases {
            XCTAssertEqual(DecodeScale.factor(video: video, turned: turned, outputs: outputs), want, accuracy: 1e-9, note)
        }
    }

    /// lowres: the largest power-of-two reduction that still holds what the outputs sample.
    func testLowres() {
        let cases: [(scale: Double, max: Int, want: Int, note: String)] = [
            (1, 3, 0, "full size"),
            (0.74, 3, 0, "just under the threshold: above a half"),
            (0.5, 3, 1, "exactly a half"),
            (0.3, 3, 1, "a quarter would be too small"),
            (0.25, 3, 2, "exactly a quarter"),
            (0.078, 3, 3, "8192 on 640: an eighth"),
            (0.01, 3, 3, "never past the decoder's maximum"),
            (0.01, 0, 0, "a decoder without lowres"),
            (0.2, 1, 1, "a decoder with only 1/2"),
            (0, 3, 0, "no scale"),
        ]
        for c in cases {
            XCTAssertEqual(DecodeScale.lowres(scale: c.scale, maxLowres: c.max), c.want, c.note)
            // What is left for libswscale never enlarges, and lowres never undershoots.
            let n = DecodeScale.lowres(scale: c.scale, maxLowres: c.max)
            XCTAssertGreaterThanOrEqual(1.0 / Double(1 << n), min(1, c.scale), c.note)
            XCTAssertLessThanOrEqual(DecodeScale.remaining(scale: c.scale, lowres: n), 1, c.note)
        }
        XCTAssertEqual(DecodeScale.remaining(scale: 0.078, lowres: 3), 0.624, accuracy: 1e-9, "1024 → 639")
        XCTAssertEqual(DecodeScale.remaining(scale: 0.3, lowres: 1), 0.6, accuracy: 1e-9, "0.6 of the half is left")
        XCTAssertEqual(DecodeScale.remaining(scale: 0.4, lowres: 1), 1, "0.8 of the half: not worth a second pass")
    }
}
