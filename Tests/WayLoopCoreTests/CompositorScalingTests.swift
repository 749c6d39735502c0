// Who scales a smaller video: the buffer a compositor-scaled picture is converted into, and the
// `--scaling` choice.
import XCTest
@testable import WayLoopCore

final class CompositorScalingTests: XCTestCase {
    private let hd = Size(width: 1920, height: 1080)

    func testTheBufferKeepsThePicture1To1InTheOutputsShape() {
        let cases: [(video: Size, output: Size, mode: ScaleMode, want: Size?)] = [
            // 720p on 1080p: the picture itself.
            (Size(width: 1280, height: 720), hd, .fill, Size(width: 1280, height: 720)),
            (Size(width: 1280, height: 720), hd, .fit, Size(width: 1280, height: 720)),
            (Size(width: 1280, height: 720), hd, .stretch, Size(width: 1280, height: 720)),
            // 4:3 on 16:9: fill keeps the width and cuts rows, fit keeps the height and adds bars.
            (Size(width: 256, height: 192), Size(width: 640, height: 360), .fill, Size(width: 256, height: 144)),
            (Size(width: 240, height: 180), Size(width: 640, height: 360), .fit, Size(width: 320, height: 180)),
            // Stretch: the picture, the compositor stretches it.
            (Size(width: 640, height: 640), hd, .stretch, Size(width: 640, height: 640)),
            // Not upscaled on both axes, or modes of 1:1 pixels or a canvas: the client converts.
            (Size(width: 1920, height: 1080), hd, .fill, nil),
            (Size(width: 3840, height: 2160), hd, .fill, nil),
            (Size(width: 2000, height: 500), hd, .fit, nil),
            (Size(width: 640, height: 360), hd, .center, nil),
            (Size(width: 640, height: 360), hd, .tile, nil),
            (Size(width: 640, height: 360), hd, .span, nil),
            (Size(width: 0, height: 0), hd, .fill, nil),
        ]
        for c in cases {
            XCTAssertEqual(CompositorScaling.buffer(video: c.video, output: c.output, mode: c.mode), c.want, "\(c)")
        }
    }

    func testAutoLetsOnlyAGPUCompositorScale() {
        XCTAssertTrue(CompositorScaling.Choice.auto.compositorScales(dmabuf: true))
        XCTAssertFalse(CompositorScaling.Choice.auto.compositorScales(dmabuf: false))
        XCTAssertFalse(CompositorScaling.Choice.client.compositorScales(dmabuf: true))
        XCTAssertTrue(CompositorScaling.Choice.compositor.compositorScales(dmabuf: false))
        var e = OutputEntry(selector: .all)
        XCTAssertTrue(EntrySettings.scaling.set("compositor", in: &e))
        XCTAssertEqual(e.scaling, .compositor)
        XCTAssertFalse(EntrySettings.scaling.set("gpu", in: &e))
        XCTAssertEqual(EntrySettings.scaling.problem("gpu"), "'gpu' is not one of auto, client, compositor")
        XCTAssertEqual(EntrySettings.flag("--scaling")?.key, "scaling")
    }

    func testASpansOutputsShareOneCanvasBufferAndEachShowsItsPart() {
        // 1080p over two 1080p outputs side by side: filled, 2x; the buffer the picture's
        // 1920x540 middle, each output one half of it.
        let canvas = Rect(x: 0, y: 0, width: 3840, height: 1080)
        let left = CompositorScaling.canvas(video: hd, span: SpanView(canvas: canvas, output: Rect(x: 0, y: 0, width: 1920, height: 1080)),
                                            output: hd, mode: .span)
        let right = CompositorScaling.canvas(video: hd, span: SpanView(canvas: canvas, output: Rect(x: 1920, y: 0, width: 1920, height: 1080)),
                                             output: hd, mode: .span)
        XCTAssertEqual(left?.buffer, Size(width: 1920, height: 540))
        XCTAssertEqual(right?.buffer, left?.buffer)
        XCTAssertEqual(left?.mode, .fill)
        XCTAssertEqual(left?.source, Rect(x: 0, y: 0, width: 960, height: 540))
        XCTAssertEqual(right?.source, Rect(x: 960, y: 0, width: 960, height: 540))
        // A scale-2 output (a 1920x1080 logical output of 3840x2160 pixels) beside it: the same
        // buffer (the video's own pixels), its own part.
        let hidpi = CompositorScaling.canvas(video: hd, span: SpanView(canvas: canvas, output: Rect(x: 1920, y: 0, width: 1920, height: 1080)),
                                             output: Size(width: 3840, height: 2160), mode: .span)
        XCTAssertEqual(hidpi?.buffer, left?.buffer)
        // span-fit: the canvas fitted, bars in the buffer.
        let fit = CompositorScaling.canvas(video: Size(width: 640, height: 360), span: SpanView(canvas: canvas, output: Rect(x: 0, y: 0, width: 1920, height: 1080)),
                                           output: hd, mode: .spanFit)
        XCTAssertEqual(fit?.buffer, Size(width: 1280, height: 360))
        XCTAssertEqual(fit?.mode, .fit)
        // Not upscaled (a 4K-wide video on the 3840 canvas): each output converts its part.
        XCTAssertNil(CompositorScaling.canvas(video: Size(width: 3840, height: 1080), span: SpanView(canvas: canvas, output: Rect(x: 0, y: 0, width: 1920, height: 1080)),
                                              output: hd, mode: .span))
        XCTAssertNil(CompositorScaling.canvas(video: hd, span: SpanView(canvas: canvas, output: Rect(x: 0, y: 0, width: 1920, height: 1080)),
                                              output: hd, mode: .fill))
    }
}
