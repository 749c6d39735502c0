// When a fitted copy is worth making (FitRule), one row per case of the rule.
@testable import WayLoopCore
import XCTest

final class FitRuleTests: XCTestCase {
    private let uhd = Size(width: 3840, height: 2160), fhd = Size(width: 1920, height: 1080)

    private func clip(_ size: Size, fps: Double = 30, codec: String = "h264", bits: Int = 8, duration: Double? = 10,
                      still: Bool = false, free: Bool = false, turned: Bool = false) -> FitRule.Clip {
        FitRule.Clip(size: size, turned: turned, frameRate: fps, codec: codec, bitDepth: bits, duration: duration,
                     isStill: still, decodedForFree: free)
    }

    func testVerdictTable() {
        typealias T = FitRule.Target
        let onFHD = [(size: fhd, mode: ScaleMode.fill)]
        let rows: [(what: String, clip: FitRule.Clip, outputs: [(size: Size, mode: ScaleMode)], cap: Double?, mode: FitMode,
                    want: FitRule.Verdict)] = [
            ("2160p H.264 on a 1080p output: 4x the pixels", clip(uhd), onFHD, nil, .auto,
             .make(T(size: fhd, keepEvery: 1, reasons: [.pixels(4)], expectedCost: 0.25))),
            ("2160p HEVC Main10 on 1080p: pixels and codec", clip(uhd, codec: "hevc", bits: 10), onFHD, nil, .auto,
             .make(T(size: fhd, keepEvery: 1, reasons: [.pixels(4), .codec(2.2)], expectedCost: 1 / (4 * 2.2)))),
            ("1080p60 under a 30 fps cap: every second frame", clip(fhd, fps: 60), onFHD, 30, .auto,
             .make(T(size: fhd, keepEvery: 2, reasons: [.rate(2)], expectedCost: 0.5))),
            ("59.94 under 30 is a whole ratio", clip(fhd, fps: 59.94), onFHD, 30, .auto,
             .make(T(size: fhd, keepEvery: 2, reasons: [.rate(2)], expectedCost: 0.5))),
            ("50 fps under 30: no whole ratio, nothing to gain at this size", clip(fhd, fps: 50), onFHD, 30, .auto, .keep(.notWorthIt)),
            ("1080p H.264 on 1080p: nothing to gain", clip(fhd), onFHD, nil, .auto, .keep(.notWorthIt)),
            ("1440p on 1080p: 1.8x the pixels, under 2x", clip(Size(width: 2560, height: 1440)), onFHD, nil, .auto, .keep(.notWorthIt)),
            ("the same under always: made anyway", clip(Size(width: 2560, height: 1440)), onFHD, nil, .always,
             .make(T(size: fhd, keepEvery: 1, reasons: [], expectedCost: 1 / (2560.0 * 1440 / (1920 * 1080))))),
            ("1080p H.264 on 1080p under always: the copy would be the clip", clip(fhd), onFHD, nil, .always, .keep(.notWorthIt)),
            ("1080p HEVC Main10 on 1080p: the codec alone", clip(fhd, codec: "hevc", bits: 10), onFHD, nil, .auto,
             .make(T(size: fhd, keepEvery: 1, reasons: [.codec(2.2)], expectedCost: 1 / 2.2))),
            ("1080p HEVC (8 bits) on 1080p: under the codec bar", clip(fhd, codec: "hevc"), onFHD, nil, .auto, .keep(.notWorthIt)),
            ("1080p VP9 on 1080p: under the codec bar", clip(fhd, codec: "vp9"), onFHD, nil, .auto, .keep(.notWorthIt)),
            ("1080p AV1 (dav1d) on 1080p: cheaper than H.264 here", clip(fhd, codec: "av1"), onFHD, nil, .auto, .keep(.notWorthIt)),
            ("a codec not measured counts as H.264", clip(fhd, codec: "mpeg4"), onFHD, nil, .auto, .keep(.notWorthIt)),
            ("off", clip(uhd), onFHD, nil, .off, .keep(.off)),
            ("a still", clip(uhd, still: true), onFHD, nil, .auto, .keep(.still)),
            ("decoded in hardware at no CPU cost", clip(uhd, free: true), onFHD, nil, .auto, .keep(.decodedForFree)),
            ("longer than 10 minutes", clip(uhd, duration: 601), onFHD, nil, .auto, .keep(.tooLong)),
            ("of unknown length", clip(uhd, duration: nil), onFHD, nil, .auto, .keep(.tooLong)),
            ("the largest output decides: 2160p on 1080p and 2160p", clip(uhd), [(fhd, .fill), (uhd, .fill)], nil, .auto, .keep(.notWorthIt)),
            ("fit mode on a portrait output: the whole frame fits its width", clip(uhd), [(Size(width: 1080, height: 1920), .fit)], nil, .auto,
             .make(T(size: Size(width: 1080, height: 608), keepEvery: 1, reasons: [.pixels(3840.0 * 2160 / (1080 * 608))],
                     expectedCost: 1080.0 * 608 / (3840 * 2160)))),
            ("fill on a portrait output: the whole frame, scaled to cover its height", clip(uhd), [(Size(width: 1080, height: 1920), .fill)], nil, .auto,
             .keep(.notWorthIt)),
            ("center shows pixels 1:1: nothing to gain", clip(uhd), [(fhd, .center)], nil, .auto, .keep(.notWorthIt)),
            ("a clip turned a quarter: the coded size scales alike", clip(Size(width: 2160, height: 3840), turned: true), onFHD, nil, .auto,
             .make(T(size: Size(width: 1080, height: 1920), keepEvery: 1, reasons: [.pixels(4)], expectedCost: 0.25))),
            ("odd sizes round up to even", clip(uhd), [(Size(width: 1001, height: 563), .fill)], nil, .auto,
             .make(T(size: Size(width: 1002, height: 564), keepEvery: 1, reasons: [.pixels(3840.0 * 2160 / (1002 * 564))],
                     expectedCost: 1002.0 * 564 / (3840 * 2160)))),
        ]
        for r in rows {
            let got = FitRule.verdict(r.clip, outputs: r.outputs, cap: r.cap, mode: r.mode)
            switch (got, r.want) {
            case (.make(let g), .make(let w)):
                XCTAssertEqual(g.size, w.size, r.what)
                XCTAssertEqual(g.keepEvery, w.keepEvery, r.what)
                XCTAssertEqual(g.reasons.count, w.reasons.count, "\(r.what): \(g.reasons)")
                for (a, b) in zip(g.reasons, w.reasons) { XCTAssertTrue(Self.close(a, b), "\(r.what): \(g.reasons)") }
                XCTAssertEqual(g.expectedCost, w.expectedCost, accuracy: 1e-3, r.what)
            default:
                XCTAssertEqual(got, r.want, r.what)
            }
        }
    }

    private static func close(_ a: FitRule.Reason, _ b: FitRule.Reason) -> Bool {
        switch (a, b) {
        case (.pixels(let x), .pixels(let y)), (.rate(let x), .rate(let y)), (.codec(let x), .codec(let y)): return abs(x - y) < 1e-3
        default: return false
        }
    }
}

/// `wayloop prepare`'s command line (PrepareCommand.parse), one row per form and per error.
final class PrepareCommandTests: XCTestCase {
    /// One text says why no copy is made: status's note and `wayloop prepare`'s line.
    func testWhyNoCopyTable() {
        let fhd = Size(width: 1920, height: 1080)
        let c = FitRule.Clip(size: fhd, frameRate: 30, codec: "h264", duration: 10)
        let table: [(FitRule.Skip, Size?, Double?, String)] = [
            (.off, fhd, nil, "--fit off"),
            (.still, fhd, nil, "a still picture or an animated image"),
            (.decodedForFree, fhd, nil, "decoded in hardware at no CPU cost"),
            (.tooLong, fhd, nil, "longer than 10 minutes (or of unknown length)"),
            (.notWorthIt, fhd, nil, "1920x1080 at 30.0 fps on 1920x1080 is not worth a copy"),
            (.notWorthIt, fhd, 24, "1920x1080 at 30.0 fps on 1920x1080 under --max-fps 24.0 is not worth a copy"),
            (.notWorthIt, nil, nil, "1920x1080 at 30.0 fps is not worth a copy"),
        ]
        for (skip, size, cap, want) in table {
            XCTAssertEqual(skip.text(clip: c, on: size, cap: cap), want, "\(skip)")
        }
    }

    func testParseTable() {
        func make(_ v: [String], size: Size = PrepareCommand.defaultSize, fps: Double? = nil, q: Int = FitQuality.default, always: Bool = false) -> PrepareCommand {
            var c = PrepareCommand(action: .make(v))
            c.size = size
            c.maxFps = fps
            c.quality = q
            c.always = always
            return c
        }
        let good: [([String], PrepareCommand)] = [
            (["a.mp4"], make(["a.mp4"])),
            (["a.mp4", "b.mkv"], make(["a.mp4", "b.mkv"])),
            (["--size", "640x360", "a.mp4", "--max-fps", "30"], make(["a.mp4"], size: Size(width: 640, height: 360), fps: 30)),
            (["a.mp4", "--quality", "22", "--always"], make(["a.mp4"], q: 22, always: true)),
            (["a.mp4", "--on-battery"], { var c = make(["a.mp4"]); c.onBattery = true; return c }()),
            (["--list"], PrepareCommand(action: .list)),
            (["--clean"], PrepareCommand(action: .clean)),
        ]
        for (args, want) in good { XCTAssertEqual(try PrepareCommand.parse(args), want, "\(args)") }
        let bad: [([String], String)] = [
            ([], "needs a VIDEO, --list or --clean"),
            (["--list", "--clean"], "not together"),
            (["--list", "a.mp4"], "take no VIDEO"),
            (["a.mp4", "--size", "big"], "a size WxH"),
            (["a.mp4", "--max-fps", "0"], "a frame rate from 1 to 240"),
            (["a.mp4", "--quality", "41"], "a quality from 0"),
            (["a.mp4", "--quality"], "needs a value"),
            (["a.mp4", "--fast"], "unknown option '--fast'"),
            ([""], "an empty VIDEO"),
        ]
        for (args, says) in bad {
            XCTAssertThrowsError(try PrepareCommand.parse(args), "\(args)") { e in
                XCTAssertTrue("\(e)".contains(says), "\(args): \(e)")
            }
        }
        XCTAssertEqual(try OptionParser.parse(["prepare", "--list"]), .prepare(PrepareCommand(action: .list)))
    }
}

/// When the making of a copy waits (FitPace), and the load it reads.
final class FitPaceTests: XCTestCase {
    func testHoldTable() {
        let rows: [(what: String, battery: Bool, allowed: Bool, cpu: Double?, want: FitPace.Hold?)] = [
            ("mains, idle CPUs: goes on", false, false, 3.2, nil),
            ("on battery: waits", true, false, 0, .onBattery),
            ("on battery, --on-battery: goes on", true, true, 0, nil),
            ("others keep half the CPUs busy: waits", false, false, 50, .cpuBusy(50)),
            ("CPUs busy, on battery, --on-battery: waits for the CPUs", true, true, 80, .cpuBusy(80)),
            ("load not known yet: goes on", false, false, nil, nil),
        ]
        for r in rows { XCTAssertEqual(FitPace.hold(onBattery: r.battery, allowedOnBattery: r.allowed, othersBusy: r.cpu), r.want, r.what) }
    }

    func testOthersBusyLeavesWayLoopOut() {
        let rows: [(what: String, before: (Int, Int), after: (Int, Int), own: Int, want: Double?)] = [
            ("idle machine", (100, 1000), (110, 1200), 0, 5),
            ("busy only with WayLoop: not a load", (100, 1000), (290, 1200), 190, 0),
            ("a build beside it", (100, 1000), (280, 1200), 60, 60),
            ("own ticks counted past the machine's (rounding): 0", (100, 1000), (110, 1200), 30, 0),
            ("no time passed", (100, 1000), (100, 1000), 0, nil),
        ]
        for r in rows {
            XCTAssertEqual(FitPace.othersBusy(before: (r.before.0, r.before.1), after: (r.after.0, r.after.1), ownTicks: r.own), r.want, r.what)
        }
        let stat = "1234 (way loop) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 40 0 0 20 0 3 0 100 0 0"
        XCTAssertEqual(ProcCPU.processTicks(stat), 290)
        XCTAssertNil(ProcCPU.processTicks("garbage"))
    }
}

/// What the wallpaper does about a video's copy (FitPlan), the modes of several outputs, and
/// the cache's bound.
final class FitPlanTests: XCTestCase {
    func testPlanTable() {
        let make = FitRule.Verdict.make(FitRule.Target(size: Size(width: 640, height: 360), keepEvery: 1, reasons: [.pixels(36)], expectedCost: 0.03))
        let keep = FitRule.Verdict.keep(.off)
        typealias F = FitPlan.Facts
        let rows: [(what: String, facts: F, want: [FitPlan.Action])] = [
            ("not opened yet: nothing", F(verdict: nil), []),
            ("worth a copy, none yet: make it", F(verdict: make), [.make]),
            ("in the cache: switch to it", F(verdict: make, cached: true), [.useCopy]),
            ("already on it: nothing", F(verdict: make, cached: true, playing: .copy(current: true)), []),
            ("being made: wait", F(verdict: make, making: .this), []),
            ("another video's being made: wait", F(verdict: make, making: .other), []),
            ("failed before: not again", F(verdict: make, failed: true), []),
            ("loop replays from memory: nothing to save", F(verdict: make, replaying: true), []),
            ("replaying, but a copy is there: use it for the next decode", F(verdict: make, cached: true, replaying: true), [.useCopy]),
            ("on a copy for an older target: original, make the new one", F(verdict: make, playing: .copy(current: false)), [.useOriginal, .make]),
            ("old target being made: stop it, make the new one next", F(verdict: make, making: .stale), [.stopMaking]),
            ("--fit off while on the copy: back to the original", F(verdict: keep, playing: .copy(current: true)), [.useOriginal]),
            ("--fit off while making: stop", F(verdict: keep, making: .this), [.stopMaking]),
            ("not worth it, on the original: nothing", F(verdict: keep), []),
            ("another video's child is left alone", F(verdict: keep, making: .other), []),
        ]
        for r in rows { XCTAssertEqual(FitPlan.actions(r.facts), r.want, r.what) }
    }

    func testCombinedMode() {
        XCTAssertEqual(FitMode.combined([.auto, .off, .always]), .off)
        XCTAssertEqual(FitMode.combined([.auto, .always]), .always)
        XCTAssertEqual(FitMode.combined([.auto]), .auto)
        XCTAssertEqual(FitMode.combined([]), .auto)
    }

    func testCacheSize() {
        let rows: [(String, Int?)] = [("2G", 2 << 30), ("512M", 512 << 20), ("1.5GiB", 3 << 29), ("300", 300 << 20), ("16m", 16 << 20),
                                      ("1T", 1 << 40), ("15M", nil), ("2T", nil), ("-1G", nil), ("G", nil), ("", nil), ("nan", nil), ("inf", nil)]
        for (text, want) in rows { XCTAssertEqual(FitCacheSize.parse(text), want, text) }
        XCTAssertEqual(FitCacheSize.text(2 << 30), "2 GiB")
        XCTAssertEqual(FitCacheSize.text(3 << 29), "1.5 GiB")
        XCTAssertEqual(FitCacheSize.text(512 << 20), "512 MiB")
    }

    func testFitIsAnOutputSetting() throws {
        var o = Options()
        o.entries = [OutputEntry(selector: .all, video: "/v.mp4")]
        var named = OutputEntry(selector: .named("HDMI-A-1"))
        XCTAssertTrue(EntrySettings.fit.set("off", in: &named))
        XCTAssertFalse(EntrySettings.fit.set("sometimes", in: &named))
        o.entries.append(named)
        XCTAssertEqual(o.settings(forOutput: "HDMI-A-1")?.fit, .off)
        XCTAssertEqual(o.settings(forOutput: "DP-1")?.fit, .auto)
        XCTAssertEqual(EntrySettings.flag("--fit")?.key, "fit")
    }
}

/// The lines a wallpaper's child reports in (FitReport), and the status of a video's copy
/// (FitStatus) as text and JSON.
final class FitReportTests: XCTestCase {
    func testReportLinesRoundTrip() {
        let reports: [FitReport] = [.progress(0.421, secondsLeft: 12.3), .progress(1, secondsLeft: nil), .waiting("on battery"),
                                    .waiting("other programs keep 63 % of the CPUs busy"), .goingOn,
                                    .made(path: "/c/wayloop/fitted/a b-640x360-r1-q16.mp4", share: 0.042, cpuSeconds: 5.4)]
        for r in reports { XCTAssertEqual(FitReport(line: r.line), r, r.line) }
        XCTAssertEqual(FitReport.progress(0.5, secondsLeft: 4).line, "fit-progress 0.500 4.0")
        for line in ["", "'x': 3840x2160 → 640x360", "wayloop: error: prepare: nope", "fit-progress 1.5 -", "fit-progress x -",
                     "fit-made 0.1 2.0 relative.mp4", "fit-going-on now"] {
            XCTAssertNil(FitReport(line: line), line)
        }
    }

    func testStatusTextAndJSON() {
        let rows: [(FitStatus, String)] = [
            (FitStatus(stage: .original), "original"),
            (FitStatus(stage: .original, note: "--fit off"), "original (--fit off)"),
            (FitStatus(stage: .preparing, size: Size(width: 640, height: 360), done: 0.42, secondsLeft: 12), "preparing 640x360: 42%, 12 s left"),
            (FitStatus(stage: .preparing, note: "on battery", size: Size(width: 640, height: 360), done: 0), "preparing 640x360: waiting: on battery"),
            (FitStatus(stage: .copy, size: Size(width: 640, height: 360), decodeShare: 0.042), "copy 640x360, decodes in 4.2% of the original's CPU"),
            (FitStatus(stage: .copy, note: "from the next loop seam", size: Size(width: 1920, height: 1080)), "copy 1920x1080 (from the next loop seam)"),
        ]
        for (status, text) in rows {
            XCTAssertEqual(status.text, text)
            XCTAssertEqual(FitStatus(json: status.json), status, text)
        }
        XCTAssertNil(FitStatus(json: .object([("stage", .string("fitting"))])))
        var o = OutputStatus(name: "DP-1", video: "/v.mp4", mode: .fill, state: .playing)
        o.fit = rows[4].0
        XCTAssertTrue(o.line.hasSuffix(", fit: copy 640x360, decodes in 4.2% of the original's CPU"), o.line)
        XCTAssertEqual(OutputStatus(json: o.json)?.fit, o.fit)
        let tooltip = Waybar.line([o])["tooltip"]?.string ?? ""
        XCTAssertTrue(tooltip.contains("fit: copy 640x360"), tooltip)
    }
}
