// Hardware decoding, the decisions: which paths a clip tries and in which order, the
// pixel format libavcodec's get_format gets back, the surface pool's size, the start-up check's
// verdict, the fallback's states, the render node a device number names and which VA-API
// drivers are only emulations. Pure: the decoder thread asks, and does what it is told.

/// `--hwdec`: how a clip is decoded.
public enum HwdecMode: String, CaseIterable, Sendable {
    /// Every path the machine offers for the clip's codec, each checked at start; software else.
    case auto
    /// Software only.
    case no
    /// VA-API. Its zero-copy import into GLES is not built yet: frames are copied back (and
    /// status says so).
    case vaapi
    /// VA-API, each frame copied back to memory (both renderers).
    case vaapiCopy = "vaapi-copy"
    /// NVIDIA's NVDEC through CUDA, each frame copied back to memory (both renderers).
    case nvdecCopy = "nvdec-copy"

    /// What a `--hwdec` value must be, as error messages say it.
    public static let expected = "one of auto, no, vaapi, vaapi-copy, nvdec-copy"
}

/// One way of decoding in hardware.
public enum HwdecPath: String, Sendable, Equatable, Hashable, CaseIterable {
    case vaapiCopy = "vaapi-copy"
    case nvdecCopy = "nvdec-copy"

    /// FFmpeg's name of the device type (`av_hwdevice_find_type_by_name`).
    public var deviceType: String {
        switch self {
        case .vaapiCopy: return "vaapi"
        case .nvdecCopy: return "cuda"
        }
    }

    /// The API as users know it.
    public var api: String {
        switch self {
        case .vaapiCopy: return "VA-API"
        case .nvdecCopy: return "NVDEC"
        }
    }
}

/// What the decoder knows of a stream before it decodes it.
public struct HwdecStream: Equatable, Sendable {
    /// libavcodec's codec name: h264, hevc, vp9, av1, ...
    public var codec: String
    /// Bits per sample (8, 10, 12); 0 when the container does not say.
    public var bitDepth: Int
    /// Chroma subsampled both ways (4:2:0); false for 4:2:2, 4:4:4 and formats without chroma.
    public var chroma420: Bool
    public init(codec: String, bitDepth: Int, chroma420: Bool) {
        self.codec = codec
        self.bitDepth = bitDepth
        self.chroma420 = chroma420
    }
}

public enum HwdecPlan {
    /// The codecs hardware decoding is tried for (mpv's whitelist, less what no current GPU of
    /// ours decodes). H.264 is 8-bit only: NVDEC has no High10 before Blackwell, VA-API drivers rarely.
    static let codecs: [String: Set<Int>] = ["h264": [8], "hevc": [8, 10], "vp9": [8, 10], "av1": [8, 10], "vp8": [8]]

    /// Why a stream is decoded in software whatever `--hwdec` says; nil when hardware may try it.
    public static func ineligible(_ s: HwdecStream) -> String? {
        guard let depths = codecs[s.codec] else { return "no hardware path for \(s.codec)" }
        guard s.chroma420 else { return "\(s.codec) is not 4:2:0" }
        guard s.bitDepth == 0 || depths.contains(s.bitDepth) else { return "no hardware path for \(s.bitDepth)-bit \(s.codec)" }
        return nil
    }

    /// The paths to try, in order (the first that opens and passes the start-up check is taken),
    /// and, when there are none, why: the clip is then decoded in software. VA-API comes first:
    /// it is the compositor's own GPU on Intel and AMD, and trying CUDA first would wake a
    /// laptop's discrete NVIDIA GPU for nothing (mpv loads CUDA only after that check too).
    public static func candidates(_ mode: HwdecMode, stream: HwdecStream) -> (paths: [HwdecPath], reason: String?) {
        if mode == .no { return ([], "--hwdec no") }
        if let why = ineligible(stream) { return ([], why) }
        switch mode {
        case .no: return ([], "--hwdec no")
        case .auto: return ([.vaapiCopy, .nvdecCopy], nil)
        case .vaapi, .vaapiCopy: return ([.vaapiCopy], nil)
        case .nvdecCopy: return ([.nvdecCopy], nil)
        }
    }

    /// What libavcodec's get_format callback returns: the hardware format when the decoder
    /// offers it, else the first software one (libavcodec calls again without the hardware
    /// format when its hwaccel fails to start: that fallback is silent, so the decoder checks
    /// the first frame's format too). nil: nothing usable (AV_PIX_FMT_NONE).
    public static func pickFormat<F: Equatable>(offered: [F], hardware: F?, isHardware: (F) -> Bool) -> F? {
        if let hardware, offered.contains(hardware) { return hardware }
        return offered.first { !isHardware($0) }
    }

    /// Emulated VA-API drivers that auto never takes (mpv's list: nvidia-vaapi-driver names
    /// itself "NVDEC driver", libva-vdpau-driver "VDPAU backend"); nvidia-vaapi-driver crashes on
    /// some streams and is "designed to be used by Firefox".
    public static func isEmulatedVADriver(vendor: String) -> Bool {
        vendor.contains("VDPAU backend") || vendor.contains("NVDEC driver")
    }
}

/// The hardware surface pool (FFmpeg 5.1, fixed size).
public enum HwdecPool {
    /// Reference frames libavcodec keeps itself (FFmpeg 5.1 vaapi_decode.c's table).
    public static func codecRefs(_ codec: String) -> Int {
        switch codec {
        case "h264", "hevc", "av1": return 16
        case "vp9": return 8
        case "vp8": return 3
        default: return 2
        }
    }

    /// `extra_hw_frames`: the surfaces WayLoop may hold beyond libavcodec's own. A copy path
    /// gives each surface back as soon as it is copied, so mpv's 6 is plenty; a path that kept
    /// surfaces queued would need the queue and the frames on screen, plus 3.
    public static func extraFrames(copying: Bool, queued: Int, held: Int) -> Int {
        copying ? 6 : max(6, queued + held + 3)
    }

    /// The whole pool libavcodec makes: 1 + refs + 3 + extra (+1 per frame thread; hardware
    /// decoding runs one thread).
    public static func size(codec: String, extra: Int, threads: Int = 1) -> Int {
        1 + codecRefs(codec) + 3 + extra + max(0, threads - 1)
    }

    /// NVDEC on FFmpeg 5.1 warns past 32 surfaces (its decode surfaces are the pool).
    public static let nvdecMax = 32

    /// Frames out of the pool the decoder may hold before it stops asking for more, so that
    /// the pool never runs dry: libavcodec's own need is covered by its part of the pool.
    public static func outstandingLimit(extra: Int) -> Int { max(1, extra - 3) }
}

/// The start-up check: the clip's first frames decoded both ways, compared plane by plane.
public enum HwdecCheck {
    /// Frames compared.
    public static let frames = 3
    /// The lowest PSNR (dB) of any plane that passes. The same frames decoded by two conforming
    /// decoders are identical (99 dB); copying back and 10-bit layouts cost nothing. Green,
    /// garbled or black pictures (waywallen#261, mpvpaper#43) fall far below this.
    public static let minPSNR = 40.0

    /// PSNR in dB from the sum of squared differences over `count` samples whose peak is `peak`
    /// (255, or 1023 for 10-bit); 99 for identical planes.
    public static func psnr(sse: Double, count: Int, peak: Double) -> Double {
        guard count > 0 else { return 0 }
        guard sse > 0 else { return 99 }
        let mse = sse / Double(count)
        return min(99, 10 * log10Approx(peak * peak / mse))
    }

    /// Whether a path passed: every plane of every frame at or above `minPSNR`, and as many
    /// frames as software gave (a path that gave fewer dropped some).
    public static func passed(psnrs: [Double], frames: Int, softwareFrames: Int) -> Bool {
        frames > 0 && frames == softwareFrames && !psnrs.isEmpty && psnrs.allSatisfy { $0 >= minPSNR }
    }

    /// log10 without Foundation (the core imports nothing).
    static func log10Approx(_ x: Double) -> Double {
        guard x > 0 else { return -Double.infinity }
        // x = m · 2^e with m in [1, 2): log10 x = (e + log2 m) · log10 2.
        var e = 0, m = x
        while m >= 2 { m /= 2; e += 1 }
        while m < 1 { m *= 2; e -= 1 }
        // ln m by the series of atanh: ln m = 2 atanh((m-1)/(m+1)).
        let t = (m - 1) / (m + 1), t2 = t * t
        var term = t, sum = 0.0, k = 1.0
        for _ in 0..<30 { sum += term / k; term *= t2; k += 2 }
        let ln2 = 0.693_147_180_559_945_3
        return (Double(e) + 2 * sum / ln2) * 0.301_029_995_663_981_2
    }
}

/// Why a hardware path was left.
public enum HwdecFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// No device: the library, the driver or the node is missing or refused.
    case device(String)
    /// The first frame came out in software: libavcodec fell back by itself.
    case notHardware
    /// A frame failed to decode, or a packet was refused.
    case decodeError(String)
    /// The surface pool ran out.
    case poolExhausted
    /// A frame could not be copied back.
    case transfer(String)
    /// The start-up check's pictures differ from software's (lowest PSNR, dB), or came short.
    case checkFailed(Double)
    /// No frame came within the time given (seconds it took).
    case tooSlow(Double)

    public var description: String {
        switch self {
        case .device(let s): return s
        case .notHardware: return "the decoder gave software frames"
        case .decodeError(let s): return "a frame failed to decode (\(s))"
        case .poolExhausted: return "its surface pool ran out"
        case .transfer(let s): return "a frame could not be copied back (\(s))"
        case .checkFailed(let db): return "its pictures differ from software decoding (\(String(oneDecimal: db)) dB)"
        case .tooSlow(let s): return "no frame within \(String(oneDecimal: s)) s"
        }
    }
}

/// How one clip is decoded, and what happened: the fallback's state machine. Every hardware
/// path is taken only after the start-up check passed; a failure at start moves on to the next
/// candidate, a failure while playing moves the clip to software for good (no retry storm).
public struct HwdecState: Equatable, Sendable {
    public enum Phase: Equatable, Sendable {
        /// Trying `paths[index]`: opening the device, or the start-up check.
        case trying(HwdecPath)
        /// Decoding with it; frames reach the screen.
        case active(HwdecPath)
        /// Decoding in software, and why (nil: software was asked for).
        case software(String?)
    }

    public private(set) var phase: Phase
    public let paths: [HwdecPath]
    private var index = 0
    /// The reasons each tried path was left, in order ("nvdec-copy: no CUDA driver").
    public private(set) var refusals: [String] = []
    /// The device the active path uses, for status ("/dev/dri/renderD128", "CUDA 0: NVIDIA H200").
    public private(set) var device: String?

    public init(mode: HwdecMode, stream: HwdecStream) {
        let plan = HwdecPlan.candidates(mode, stream: stream)
        paths = plan.paths
        phase = plan.paths.first.map { .trying($0) } ?? .software(mode == .no ? nil : plan.reason)
        if mode == .no { phase = .software(nil) }
    }

    /// The path being tried or used, if any.
    public var hardwarePath: HwdecPath? {
        switch phase {
        case .trying(let p), .active(let p): return p
        case .software: return nil
        }
    }

    /// The start-up check passed on `device`: frames from this path may reach the screen.
    public mutating func passed(device: String) {
        guard case .trying(let p) = phase else { return }
        self.device = device
        phase = .active(p)
    }

    /// The path failed. At start the next candidate is tried; once active, software for good.
    /// Returns the notice to print (once per path that fails), nil when nothing changed.
    @discardableResult
    public mutating func failed(_ why: HwdecFailure) -> String? {
        switch phase {
        case .software: return nil
        case .active(let p):
            refusals.append("\(p.rawValue): \(why)")
            device = nil
            phase = .software("\(p.rawValue) failed while playing: \(why)")
            return "\(p.rawValue) failed while playing (\(why)): decoding in software from here on"
        case .trying(let p):
            refusals.append("\(p.rawValue): \(why)")
            index += 1
            if index < paths.count {
                phase = .trying(paths[index])
                return nil
            }
            let reason = refusals.joined(separator: "; ")
            phase = .software(reason)
            return reason
        }
    }

    /// One line for status: `nvdec-copy (CUDA 0: NVIDIA H200)`, `software (no hardware path for mpeg4)`.
    public var text: String {
        switch phase {
        case .trying(let p): return "checking \(p.rawValue)"
        case .active(let p): return p.rawValue + (device.map { " (\($0))" } ?? "")
        case .software(let why): return "software" + (why.map { " (\($0))" } ?? "")
        }
    }
}

/// DRM device nodes: a device number (linux-dmabuf's main_device) to the render node of the
/// same GPU. A dev_t names a node, not a GPU, and the compositor's may be the primary node.
public struct DRMNode: Equatable, Sendable {
    /// /dev/dri/renderD128, /dev/dri/card0.
    public var path: String
    /// Its st_rdev.
    public var rdev: UInt64
    /// The GPU it belongs to (its sysfs device link: the same for card0 and renderD128).
    public var device: String
    public init(path: String, rdev: UInt64, device: String) {
        self.path = path
        self.rdev = rdev
        self.device = device
    }

    public var isRender: Bool { path.split(separator: "/").last?.hasPrefix("renderD") ?? false }

    /// The render node of the GPU whose node has device number `rdev`; nil when none matches.
    public static func renderNode(for rdev: UInt64, in nodes: [DRMNode]) -> String? {
        guard let gpu = nodes.first(where: { $0.rdev == rdev })?.device else { return nil }
        return nodes.filter { $0.device == gpu && $0.isRender }.map(\.path).sorted().first
    }

    /// Every render node, in order (the copy paths' candidates when no main device is known).
    public static func renderNodes(_ nodes: [DRMNode]) -> [String] {
        nodes.filter(\.isRender).map(\.path).sorted { a, b in
            // renderD128 before renderD129 before renderD1000 (numeric, not text order).
            let na = Int(a.drop { !$0.isNumber }) ?? 0, nb = Int(b.drop { !$0.isNumber }) ?? 0
            return na != nb ? na < nb : a < b
        }
    }
}

/// `WAYLOOP_FAKE_HWDEC=PATH:TRIGGER[@N]`, for tests only (docs/environment.md): one hardware path
/// faked with the software decoder's own frames, taken through the real decoder thread as
/// hardware frames (the device, get_format, the start-up check, the copy back, the fallback),
/// failing as TRIGGER says, at the Nth frame for the triggers that happen while playing.
/// Every other path is then refused, so a test's result does not depend on the machine.
public struct FakeHwdec: Equatable, Sendable {
    public enum Trigger: String, Sendable, CaseIterable {
        /// Works: its frames pass the check and play.
        case ok
        /// The device does not open.
        case device
        /// Its pictures are green: the start-up check fails.
        case check
        /// The decoder gives software frames from the first.
        case notHardware = "not-hardware"
        /// Its first frames take over 2 s.
        case slow
        /// The Nth frame fails to decode.
        case decodeError = "decode-error"
        /// The surface pool runs out at the Nth frame.
        case pool
        /// The Nth frame cannot be copied back.
        case transfer

        /// Happens while playing, at frame N.
        public var whilePlaying: Bool { [.decodeError, .pool, .transfer].contains(self) }
    }

    public var path: HwdecPath
    public var trigger: Trigger
    /// The frame (counted from 1 over the clip's hardware frames) a playing trigger fires at.
    public var at: Int
    /// `+export`: its frames are handed on in place from a fixed pool of surfaces (in memory,
    /// so either renderer draws them), each pinned until its lease ends, instead of copied
    /// back: the zero-copy paths' lifetimes, provable without a GPU.
    public var exports: Bool

    public init(path: HwdecPath, trigger: Trigger, at: Int = 1, exports: Bool = false) {
        self.path = path
        self.trigger = trigger
        self.at = at
        self.exports = exports
    }

    /// `nvdec-copy:decode-error@40`, `vaapi-copy:check`, `nvdec-copy:ok+export`; nil for anything else.
    public static func parse(_ text: String) -> FakeHwdec? {
        var text = Substring(text)
        let exports = text.hasSuffix("+export")
        if exports { text = text.dropLast("+export".count) }
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, let path = HwdecPath(rawValue: parts[0]) else { return nil }
        let spec = parts[1].split(separator: "@", maxSplits: 1).map(String.init)
        guard let trigger = Trigger(rawValue: spec[0]) else { return nil }
        if spec.count == 1 { return trigger.whilePlaying ? nil : FakeHwdec(path: path, trigger: trigger, exports: exports) }
        guard trigger.whilePlaying, let n = Int(spec[1]), n >= 1 else { return nil }
        return FakeHwdec(path: path, trigger: trigger, at: n, exports: exports)
    }
}
