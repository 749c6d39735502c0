import XCTest
@testable import WayLoopCore

/// Hardware decoding's decisions: every one a table.
final class HwdecTests: XCTestCase {
    private let h264 = HwdecStream(codec: "h264", bitDepth: 8, chroma420: true)

    // MARK: The option

    func testTheOptionTakesItsValuesInEveryScopeAndRefusesTheRest() throws {
        let rows: [(String, HwdecMode?)] = [("auto", .auto), ("no", .no), ("vaapi", .vaapi), ("vaapi-copy", .vaapiCopy),
                                            ("nvdec-copy", .nvdecCopy), ("nvdec", nil), ("yes", nil), ("AUTO", nil), ("", nil),
                                            ("vaapi,nvdec-copy", nil), ("cuda", nil)]
        for (text, want) in rows {
            var e = OutputEntry(selector: .all)
            XCTAssertEqual(EntrySettings.hwdec.set(text, in: &e), want != nil, text)
            XCTAssertEqual(e.hwdec, want, text)
        }
        XCTAssertEqual(EntrySettings.hwdec.problem("nvdec"), "'nvdec' is not one of auto, no, vaapi, vaapi-copy, nvdec-copy")
        // The command line, per -o scope; the default is auto.
        guard case .run(let o) = try OptionParser.parse(["--hwdec", "no", "-o", "DP-1", "--hwdec", "nvdec-copy",
                                                           "--hwdec-device", "1", "-i", "/v/a.mp4", "/v/b.mp4"]) else { return XCTFail() }
        XCTAssertEqual(o.settings(forOutput: "DP-1")?.hwdec, .nvdecCopy)
        XCTAssertEqual(o.settings(forOutput: "DP-1")?.hwdecDevice, "1")
        XCTAssertEqual(o.settings(forOutput: "HDMI-A-1")?.hwdec, HwdecMode.no)
        XCTAssertNil(o.settings(forOutput: "HDMI-A-1")?.hwdecDevice)
        guard case .run(let d) = try OptionParser.parse(["/v/a.mp4"]) else { return XCTFail() }
        XCTAssertEqual(d.settings(forOutput: "DP-1")?.hwdec, .auto)
        XCTAssertThrowsError(try OptionParser.parse(["--hwdec", "nvdec", "/v/a.mp4"]))
        XCTAssertThrowsError(try OptionParser.parse(["--hwdec-device", "", "/v/a.mp4"]))
    }

    func testTheConfigFileAndCtlSetTakeIt() throws {
        let entries = try ConfigFile.parse("hwdec = vaapi-copy\nhwdec-device = /dev/dri/renderD129\n[output DP-1]\nhwdec = no\n", path: "/c/config", home: nil)
        var o = Options()
        o.entries = entries + [OutputEntry(selector: .all, video: "/v/a.mp4")]
        XCTAssertEqual(o.settings(forOutput: "HDMI-A-1")?.hwdec, .vaapiCopy)
        XCTAssertEqual(o.settings(forOutput: "HDMI-A-1")?.hwdecDevice, "/dev/dri/renderD129")
        XCTAssertEqual(o.settings(forOutput: "DP-1")?.hwdec, HwdecMode.no)
        XCTAssertThrowsError(try ConfigFile.parse("hwdec = sometimes\n", path: "/c/config", home: nil)) { e in
            XCTAssertEqual("\(e)", "/c/config:1: hwdec 'sometimes' is not one of auto, no, vaapi, vaapi-copy, nvdec-copy")
        }
        XCTAssertTrue(EntrySettings.runtime.contains { $0.key == "hwdec" }, "ctl set takes it")
    }

    func testThumbnailAndDecodeTakeIt() throws {
        let t = try ThumbnailCommand.parse(["a.mp4", "a.png", "--hwdec", "nvdec-copy", "--hwdec-device", "0"])
        XCTAssertEqual(t.hwdec, .nvdecCopy)
        XCTAssertEqual(t.hwdecDevice, "0")
        XCTAssertEqual(try ThumbnailCommand.parse(["a.mp4", "a.png"]).hwdec, HwdecMode.no, "one still: software unless asked")
        let d = try DecodeCommand.parse(["a.mp4", "--hwdec", "no", "--frames", "50", "--queue-frames", "32", "--cache-mb", "0",
                                         "--threads", "4", "--json", "-v"])
        XCTAssertEqual(d.video, "a.mp4")
        XCTAssertEqual(d.hwdec, HwdecMode.no)
        XCTAssertEqual([d.frames, d.queueFrames, d.cacheMB, d.threads], [50, 32, 0, 4])
        XCTAssertNil(try DecodeCommand.parse(["a.mp4"]).threads, "as playback: threads follow the load")
        XCTAssertTrue(d.json && d.verbose)
        XCTAssertEqual(try DecodeCommand.parse(["a.mp4"]).hwdec, .auto)
        let bad: [[String]] = [[], ["a.mp4", "b.mp4"], ["a.mp4", "--frames", "0"], ["a.mp4", "--frames"], ["a.mp4", "--hwdec", "gpu"],
                               ["a.mp4", "--queue-frames", "65"], ["a.mp4", "--what"]]
        for args in bad { XCTAssertThrowsError(try DecodeCommand.parse(args), "\(args)") }
        guard case .decode(let c) = try OptionParser.parse(["decode", "a.mp4", "--json"]) else { return XCTFail() }
        XCTAssertTrue(c.json)
    }

    // MARK: The plan

    func testAutoTriesVAAPIThenNVDECAndOnlyForCodecsHardwareDecodes() {
        let rows: [(HwdecMode, HwdecStream, [HwdecPath], String?)] = [
            (.auto, h264, [.vaapiCopy, .nvdecCopy], nil),
            (.no, h264, [], "--hwdec no"),
            (.vaapi, h264, [.vaapiCopy], nil),
            (.vaapiCopy, h264, [.vaapiCopy], nil),
            (.nvdecCopy, h264, [.nvdecCopy], nil),
            (.auto, HwdecStream(codec: "hevc", bitDepth: 10, chroma420: true), [.vaapiCopy, .nvdecCopy], nil),
            (.auto, HwdecStream(codec: "vp9", bitDepth: 10, chroma420: true), [.vaapiCopy, .nvdecCopy], nil),
            (.auto, HwdecStream(codec: "av1", bitDepth: 8, chroma420: true), [.vaapiCopy, .nvdecCopy], nil),
            (.auto, HwdecStream(codec: "h264", bitDepth: 10, chroma420: true), [], "no hardware path for 10-bit h264"),
            (.nvdecCopy, HwdecStream(codec: "hevc", bitDepth: 12, chroma420: true), [], "no hardware path for 12-bit hevc"),
            (.auto, HwdecStream(codec: "hevc", bitDepth: 8, chroma420: false), [], "hevc is not 4:2:0"),
            (.auto, HwdecStream(codec: "mjpeg", bitDepth: 8, chroma420: false), [], "no hardware path for mjpeg"),
            (.nvdecCopy, HwdecStream(codec: "gif", bitDepth: 8, chroma420: false), [], "no hardware path for gif"),
            (.auto, HwdecStream(codec: "h264", bitDepth: 0, chroma420: true), [.vaapiCopy, .nvdecCopy], nil),
        ]
        for (mode, stream, paths, reason) in rows {
            let plan = HwdecPlan.candidates(mode, stream: stream)
            XCTAssertEqual(plan.paths, paths, "\(mode) \(stream)")
            XCTAssertEqual(plan.reason, reason, "\(mode) \(stream)")
        }
    }

    func testGetFormatTakesTheHardwareFormatOnlyWhenOffered() {
        // Formats as names; "vaapi" and "cuda" are the hardware ones.
        let hwNames: Set<String> = ["vaapi", "cuda", "vdpau"]
        let rows: [([String], String?, String?)] = [
            (["vaapi", "yuv420p"], "vaapi", "vaapi"),
            (["yuv420p", "vaapi"], "vaapi", "vaapi"),
            (["cuda", "vaapi", "nv12"], "vaapi", "vaapi"),
            (["yuv420p"], "vaapi", "yuv420p"),               // the hwaccel failed: libavcodec asks again without it
            (["vdpau", "yuv420p10le"], "cuda", "yuv420p10le"), // never another device's format
            (["vaapi", "cuda"], "nvdec", nil),                 // nothing in software: AV_PIX_FMT_NONE
            (["yuv420p", "nv12"], nil, "yuv420p"),
            ([], "cuda", nil),
        ]
        for (offered, hw, want) in rows {
            XCTAssertEqual(HwdecPlan.pickFormat(offered: offered, hardware: hw, isHardware: { hwNames.contains($0) }), want, "\(offered) \(hw ?? "-")")
        }
    }

    func testEmulatedVADriversAreKnownByTheirVendorStrings() {
        let rows: [(String, Bool)] = [
            ("VA-API NVDEC driver [direct backend]", true),
            ("Splitted-Desktop Systems VDPAU backend for VA-API - 0.7.4", true),
            ("Intel iHD driver for Intel(R) Gen Graphics - 23.1.1 ()", false),
            ("Mesa Gallium driver 22.3.6 for AMD Radeon RX 6600 (navi23, LLVM 15.0.6, DRM 3.49, 6.1.0-13-amd64)", false),
            ("Intel i965 driver for Intel(R) Haswell Mobile - 2.4.1", false),
            ("", false),
        ]
        for (vendor, emulated) in rows { XCTAssertEqual(HwdecPlan.isEmulatedVADriver(vendor: vendor), emulated, vendor) }
    }

    // MARK: The pool

    func testThePoolIsSizedForWhatWayLoopHoldsAndStaysUnderNVDECsLimit() {
        XCTAssertEqual(["h264", "hevc", "av1", "vp9", "vp8", "mpeg2video"].map(HwdecPool.codecRefs), [16, 16, 16, 8, 3, 2])
        // Copy paths give each surface back at once: mpv's 6.
        XCTAssertEqual(HwdecPool.extraFrames(copying: true, queued: 32, held: 3), 6)
        // A path that kept surfaces: the queue and the frames on screen, plus 3; never below 6.
        XCTAssertEqual(HwdecPool.extraFrames(copying: false, queued: 8, held: 2), 13)
        XCTAssertEqual(HwdecPool.extraFrames(copying: false, queued: 1, held: 1), 6)
        XCTAssertEqual(HwdecPool.size(codec: "h264", extra: 6), 26)
        XCTAssertEqual(HwdecPool.size(codec: "vp9", extra: 6, threads: 3), 20)
        for codec in ["h264", "hevc", "av1", "vp9"] {
            XCTAssertLessThanOrEqual(HwdecPool.size(codec: codec, extra: HwdecPool.extraFrames(copying: true, queued: 64, held: 8)),
                                     HwdecPool.nvdecMax, codec)
        }
        // Back-pressure: the decoder stops asking before the extra surfaces are gone.
        XCTAssertEqual(HwdecPool.outstandingLimit(extra: 13), 10)
        XCTAssertEqual(HwdecPool.outstandingLimit(extra: 2), 1)
    }

    // MARK: The start-up check

    func testPSNRAndTheCheckVerdict() {
        XCTAssertEqual(HwdecCheck.psnr(sse: 0, count: 100, peak: 255), 99)
        XCTAssertEqual(HwdecCheck.psnr(sse: 100, count: 0, peak: 255), 0)
        // One unit of error everywhere in 8 bits: 48.13 dB; in 16 bits (65535): 96.33 dB.
        XCTAssertEqual(HwdecCheck.psnr(sse: 100, count: 100, peak: 255), 48.13, accuracy: 0.01)
        XCTAssertEqual(HwdecCheck.psnr(sse: 100, count: 100, peak: 65535), 96.33, accuracy: 0.01)
        // A green picture: every chroma sample 128 off.
        XCTAssertLessThan(HwdecCheck.psnr(sse: 128 * 128 * 100, count: 100, peak: 255), 10)
        for x in [0.001, 0.5, 1, 2, 10, 1234.5, 1e9] {
            XCTAssertEqual(HwdecCheck.log10Approx(x), log10Reference(x), accuracy: 1e-9, "\(x)")
        }
        let rows: [([Double], Int, Int, Bool)] = [
            ([99, 99, 99], 3, 3, true), ([52.1, 60, 58], 3, 3, true), ([99, 99, 39.9], 3, 3, false),
            ([99, 99, 99], 2, 3, false), ([], 0, 0, false), ([12, 30, 31], 3, 3, false),
        ]
        for (psnrs, n, sw, want) in rows { XCTAssertEqual(HwdecCheck.passed(psnrs: psnrs, frames: n, softwareFrames: sw), want, "\(psnrs)") }
    }

    private func log10Reference(_ x: Double) -> Double {
        // log10 by bisection on 10^y, without Foundation.
        var lo = -20.0, hi = 20.0
        for _ in 0..<200 {
            let mid = (lo + hi) / 2
            var p = 1.0, e = abs(mid)
            // 10^mid = exp(mid ln 10) by repeated squaring of the series.
            p = expReference(e * 2.302_585_092_994_046)
            if mid < 0 { p = 1 / p }
            e = 0
            if p < x { lo = mid } else { hi = mid }
        }
        return (lo + hi) / 2
    }

    private func expReference(_ y: Double) -> Double {
        var n = 0, z = y
        while z > 1 { z /= 2; n += 1 }
        var term = 1.0, sum = 1.0
        for k in 1..<40 { term *= z / Double(k); sum += term }
        for _ in 0..<n { sum *= sum }
        return sum
    }

    // MARK: The fallback

    func testAFailureAtStartTriesTheNextPathAndThenSoftwareWithEveryReason() {
        var s = HwdecState(mode: .auto, stream: h264)
        XCTAssertEqual(s.phase, .trying(.vaapiCopy))
        XCTAssertEqual(s.text, "checking vaapi-copy")
        XCTAssertNil(s.failed(.device("no VA-API device: no DRM render node in /dev/dri")), "the next path is tried quietly")
        XCTAssertEqual(s.phase, .trying(.nvdecCopy))
        let line = s.failed(.device("no CUDA device: Cannot load libcuda.so.1"))
        XCTAssertEqual(s.phase, .software(line))
        XCTAssertEqual(s.text, "software (vaapi-copy: no VA-API device: no DRM render node in /dev/dri; nvdec-copy: no CUDA device: Cannot load libcuda.so.1)")
        XCTAssertNil(s.failed(.poolExhausted), "software stays software")
    }

    func testEveryFailureWhilePlayingMovesTheClipToSoftwareForGood() {
        let triggers: [HwdecFailure] = [.notHardware, .decodeError("Invalid data found when processing input"), .poolExhausted,
                                        .transfer("Input/output error"), .tooSlow(2.5), .device("the codec would not open on the device")]
        for why in triggers {
            var s = HwdecState(mode: .auto, stream: h264)
            s.failed(.device("no VA-API device"))
            s.passed(device: "CUDA 0: NVIDIA H200")
            XCTAssertEqual(s.phase, .active(.nvdecCopy))
            XCTAssertEqual(s.text, "nvdec-copy (CUDA 0: NVIDIA H200)")
            let line = s.failed(why)
            XCTAssertEqual(line, "nvdec-copy failed while playing (\(why)): decoding in software from here on")
            XCTAssertEqual(s.text, "software (nvdec-copy failed while playing: \(why))")
            XCTAssertNil(s.hardwarePath)
            XCTAssertNil(s.failed(why), "one notice, no retry")
            s.passed(device: "again")
            XCTAssertEqual(s.hardwarePath, nil, "a path never comes back once left")
        }
    }

    func testACheckThatFailsIsNeverTakenAndAutoNeverShowsAnUncheckedPath() {
        // Whatever fails at start, the only way to .active is passed(): auto takes no path whose check failed.
        for first in [HwdecFailure.checkFailed(12.5), .notHardware, .tooSlow(3), .decodeError("x")] {
            var s = HwdecState(mode: .auto, stream: h264)
            s.failed(first)
            s.failed(.checkFailed(31))
            XCTAssertNil(s.hardwarePath)
            XCTAssertTrue(s.text.hasPrefix("software (vaapi-copy: "), s.text)
            XCTAssertTrue(s.text.contains("nvdec-copy: its pictures differ from software decoding (31.0 dB)"), s.text)
        }
        var asked = HwdecState(mode: .no, stream: h264)
        XCTAssertEqual(asked.text, "software")
        asked.passed(device: "x")
        XCTAssertEqual(asked.text, "software")
        XCTAssertEqual(HwdecState(mode: .auto, stream: HwdecStream(codec: "mjpeg", bitDepth: 8, chroma420: false)).text,
                       "software (no hardware path for mjpeg)")
    }

    // MARK: Devices

    func testADeviceNumberNamesTheRenderNodeOfItsGPU() {
        let nodes = [DRMNode(path: "/dev/dri/card0", rdev: 0xE200, device: "pci-0000:00:02.0"),
                     DRMNode(path: "/dev/dri/renderD128", rdev: 0xE280, device: "pci-0000:00:02.0"),
                     DRMNode(path: "/dev/dri/card1", rdev: 0xE201, device: "pci-0000:01:00.0"),
                     DRMNode(path: "/dev/dri/renderD129", rdev: 0xE281, device: "pci-0000:01:00.0"),
                     DRMNode(path: "/dev/dri/card2", rdev: 0xE202, device: "platform-vkms")]
        let rows: [(UInt64, String?)] = [(0xE200, "/dev/dri/renderD128"), (0xE280, "/dev/dri/renderD128"),
                                         (0xE201, "/dev/dri/renderD129"), (0xE281, "/dev/dri/renderD129"),
                                         (0xE202, nil), (0x1234, nil)]
        for (rdev, want) in rows { XCTAssertEqual(DRMNode.renderNode(for: rdev, in: nodes), want, "\(rdev)") }
        let many = ["renderD1000", "renderD129", "renderD128", "card0"].map { DRMNode(path: "/dev/dri/" + $0, rdev: 0, device: $0) }
        XCTAssertEqual(DRMNode.renderNodes(many), ["/dev/dri/renderD128", "/dev/dri/renderD129", "/dev/dri/renderD1000"])
        XCTAssertEqual(DRMNode.renderNodes([]), [])
    }

    // MARK: Status

    func testStatusNamesTheDecodePathInTextJSONAndWaybar() {
        var s = OutputStatus(name: "DP-1", video: "/v/a.mp4", mode: .fill, state: .playing, renderer: "shm")
        s.decode = "nvdec-copy (CUDA 0: NVIDIA H200)"
        XCTAssertTrue(s.line.hasSuffix("[shm], decode: nvdec-copy (CUDA 0: NVIDIA H200)"), s.line)
        XCTAssertEqual(OutputStatus(json: s.json)?.decode, "nvdec-copy (CUDA 0: NVIDIA H200)")
        XCTAssertTrue(s.json.serialized.contains("\"decode\":\"nvdec-copy (CUDA 0: NVIDIA H200)\""))
        let report = DecodeReport(video: "/v/a.mp4", clip: "hevc 3840x2160 yuv420p10le 30.0 fps", clipFps: 30,
                                  path: "software (no hardware path for 12-bit hevc)", frames: 190, passes: 3,
                                  seconds: 10, cpuSeconds: 9.5, checkSeconds: nil, poolFrames: 6, maxRSSkB: 100_000)
        XCTAssertEqual(report.fps, 19)
        XCTAssertFalse(report.keepsUp)
        XCTAssertEqual(report.cpuMsPerFrame, 50, accuracy: 1e-9)
        XCTAssertTrue(report.text.contains("19.0 fps against the clip's 30.0 (does not keep up)"), report.text)
    }
}

extension HwdecTests {
    func testTheFakeSourceSpecIsParsedStrictly() {
        let rows: [(String, FakeHwdec?)] = [
            ("nvdec-copy:ok", FakeHwdec(path: .nvdecCopy, trigger: .ok)),
            ("vaapi-copy:check", FakeHwdec(path: .vaapiCopy, trigger: .check)),
            ("nvdec-copy:not-hardware", FakeHwdec(path: .nvdecCopy, trigger: .notHardware)),
            ("nvdec-copy:decode-error@40", FakeHwdec(path: .nvdecCopy, trigger: .decodeError, at: 40)),
            ("vaapi-copy:pool@3", FakeHwdec(path: .vaapiCopy, trigger: .pool, at: 3)),
            ("nvdec-copy:transfer@1", FakeHwdec(path: .nvdecCopy, trigger: .transfer, at: 1)),
            ("nvdec-copy:decode-error", nil), ("nvdec-copy:ok@3", nil), ("nvdec-copy:pool@0", nil), ("nvdec:ok", nil),
            ("nvdec-copy", nil), ("", nil), ("nvdec-copy:explode", nil), ("nvdec-copy:pool@x", nil),
            ("nvdec-copy:ok+export", FakeHwdec(path: .nvdecCopy, trigger: .ok, exports: true)),
            ("nvdec-copy:decode-error@45+export", FakeHwdec(path: .nvdecCopy, trigger: .decodeError, at: 45, exports: true)),
            ("nvdec-copy:ok+exports", nil), ("nvdec-copy:+export", nil), ("+export", nil),
        ]
        for (text, want) in rows { XCTAssertEqual(FakeHwdec.parse(text), want, text) }
    }
}
