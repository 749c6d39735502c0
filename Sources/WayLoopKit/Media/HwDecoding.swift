// Hardware decoding, the FFmpeg side: a device per path (VA-API on a DRM render node,
// NVDEC through CUDA), the codec context set up for it (get_format, one thread, the pool's
// extra surfaces), frames copied back into WayLoop's own frames, and the start-up check that
// compares a path's first frames with software decoding before any of its pictures is shown.
// Decoder-thread only; what to do is HwdecPlan's and HwdecState's (WayLoopCore).
import CFFmpeg
import CSystem
import Glibc
import WayLoopCore

/// An open hardware device for one path.
final class HwDevice {
    let path: HwdecPath
    private var ref: UnsafeMutablePointer<AVBufferRef>?
    /// The pixel format the codec decodes into on it (AV_PIX_FMT_VAAPI, AV_PIX_FMT_CUDA).
    let format: AVPixelFormat
    /// What status names it by: "/dev/dri/renderD128: Intel iHD driver", "CUDA 0: NVIDIA H200".
    let name: String
    /// WAYLOOP_FAKE_HWDEC: software frames taken as this device's (tests only).
    let fake: FakeHwdec?

    private init(path: HwdecPath, ref: UnsafeMutablePointer<AVBufferRef>?, format: AVPixelFormat, name: String, fake: FakeHwdec? = nil) {
        self.path = path
        self.ref = ref
        self.format = format
        self.name = name
        self.fake = fake
    }

    /// The fake path the environment asks for (tests only; read once).
    static let fakeSpec: FakeHwdec?? = Sys.env("WAYLOOP_FAKE_HWDEC").map { FakeHwdec.parse($0) }

    /// Whether `frame` is one of this device's (a fake's are the software decoder's own).
    func owns(_ frame: UnsafeMutablePointer<AVFrame>) -> Bool {
        if let fake { return fake.trigger != .notHardware }
        return frame.pointee.format == format.rawValue
    }

    deinit { av_buffer_unref(&ref) }

    /// Opens `path`'s device for `codec` (on `device` if given). Under `auto`, emulated VA-API
    /// drivers are skipped.
    static func open(_ path: HwdecPath, device: String?, codec: UnsafePointer<AVCodec>, auto: Bool) -> Result<HwDevice, HwdecFailure> {
        if let spec = fakeSpec {
            guard let fake = spec else { return .failure(.device("WAYLOOP_FAKE_HWDEC is not PATH:TRIGGER[@N]")) }
            guard fake.path == path else { return .failure(.device("not faked (WAYLOOP_FAKE_HWDEC fakes \(fake.path.rawValue))")) }
            if fake.trigger == .device { return .failure(.device("the fake device refused to open (WAYLOOP_FAKE_HWDEC)")) }
            return .success(HwDevice(path: path, ref: nil, format: AV_PIX_FMT_NONE, name: "fake \(path.api) (WAYLOOP_FAKE_HWDEC)", fake: fake))
        }
        let type = av_hwdevice_find_type_by_name(path.deviceType)
        guard type != AV_HWDEVICE_TYPE_NONE else { return .failure(.device("this FFmpeg was built without \(path.api)")) }
        let format = avx_hw_format(codec, type)
        let codecName = String(cString: codec.pointee.name)
        guard format != AV_PIX_FMT_NONE else { return .failure(.device("FFmpeg's \(codecName) decoder has no \(path.api) hwaccel")) }
        switch path {
        case .vaapiCopy:
            let nodes = device.map { [$0] } ?? DRMNodes.renderNodes()
            guard !nodes.isEmpty else { return .failure(.device("no VA-API device: no DRM render node in /dev/dri")) }
            var why: [String] = []
            for node in nodes {
                csys_av_clear_error()
                var ref: UnsafeMutablePointer<AVBufferRef>?
                let rc = av_hwdevice_ctx_create(&ref, type, node, nil, 0)
                guard rc >= 0, let r = ref else {
                    why.append("\(node): \(AVError.reason(rc))")
                    continue
                }
                let vendor = avx_vaapi_vendor(r).map { String(cString: $0) } ?? "unknown driver"
                if auto && HwdecPlan.isEmulatedVADriver(vendor: vendor) {
                    why.append("\(node): \(vendor) only emulates VA-API (auto skips it)")
                    av_buffer_unref(&ref)
                    continue
                }
                return .success(HwDevice(path: path, ref: r, format: format, name: "\(node): \(vendor)"))
            }
            return .failure(.device("no VA-API device: " + why.joined(separator: "; ")))
        case .nvdecCopy:
            let index = device ?? "0"
            guard let n = Int32(index), n >= 0 else { return .failure(.device("'\(index)' is not a CUDA device number")) }
            csys_av_clear_error()
            var opts: OpaquePointer?
            av_dict_set(&opts, "primary_ctx", "1", 0)
            defer { av_dict_free(&opts) }
            var ref: UnsafeMutablePointer<AVBufferRef>?
            let rc = av_hwdevice_ctx_create(&ref, type, index, opts, 0)
            guard rc >= 0, let r = ref else {
                // FFmpeg's line is "cu->cuDeviceGet(...) failed -> CUDA_ERROR_...: text": the error is what counts.
                let why = AVError.reason(rc)
                let parts = why.split(separator: ">", maxSplits: 1)
                let tail = parts.count == 2 && parts[0].hasSuffix("-") ? parts[1].drop { $0 == " " } : Substring(why)
                return .failure(.device("no CUDA device: \(tail.isEmpty ? why : String(tail))"))
            }
            var buf = [CChar](repeating: 0, count: 256)
            let gpu = avx_cuda_device_name(n, &buf, Int32(buf.count)) != 0
                ? String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "unknown GPU"
            return .success(HwDevice(path: path, ref: r, format: format, name: "CUDA \(index): \(gpu)"))
        }
    }

    /// Sets `ctx` up to decode on this device (before avcodec_open2): the device, get_format,
    /// one thread (each frame thread would take a surface of its own) and the pool's extra surfaces.
    func attach(to ctx: UnsafeMutablePointer<AVCodecContext>, extraFrames: Int) {
        ctx.pointee.thread_count = 1
        if fake != nil { return }
        ctx.pointee.hw_device_ctx = av_buffer_ref(ref)
        // get_format reads the format wanted from `opaque` (+1: a null opaque means none).
        ctx.pointee.opaque = UnsafeMutableRawPointer(bitPattern: Int(format.rawValue) + 1)
        ctx.pointee.get_format = hwGetFormat
        ctx.pointee.thread_count = 1
        ctx.pointee.extra_hw_frames = Int32(extraFrames)
    }

    /// Copies `hw` (a frame on this device) into `out` (emptied first), in the format the device
    /// gives first (NV12, P010), with its timestamps and colour, into a buffer of `pool` when
    /// one is given (else one of its own). 0, or an AVERROR.
    func download(_ hw: UnsafeMutablePointer<AVFrame>, into out: UnsafeMutablePointer<AVFrame>, pool: DownloadPool? = nil) -> Int32 {
        guard fake != nil else { return Self.download(hw, into: out, pool: pool) }
        // The fake's "copy back": a new reference to the software frame.
        av_frame_unref(out)
        return av_frame_ref(out, hw)
    }

    static func download(_ hw: UnsafeMutablePointer<AVFrame>, into out: UnsafeMutablePointer<AVFrame>,
                         pool: DownloadPool? = nil) -> Int32 {
        av_frame_unref(out)
        if let pool {
            let rc = pool.lend(into: out, like: hw)
            guard rc >= 0 else { return rc }
        }
        let rc = av_hwframe_transfer_data(out, hw, 0)
        guard rc >= 0 else { av_frame_unref(out); return rc }
        return av_frame_copy_props(out, hw)
    }
}

/// The memory frames are copied back into: one pool of equal buffers for the clip's format and
/// size, reused frame after frame (a fresh 3-12 MB allocation per frame is an mmap, page faults
/// and an munmap each time). The pool is freed when its last buffer comes back.
final class DownloadPool {
    private var pool: OpaquePointer?
    private var key: (format: Int32, width: Int32, height: Int32) = (-1, 0, 0)

    deinit { av_buffer_pool_uninit(&pool) }

    /// Gives `out` a buffer for `hw`'s copy. 0, or an AVERROR.
    func lend(into out: UnsafeMutablePointer<AVFrame>, like hw: UnsafeMutablePointer<AVFrame>) -> Int32 {
        let format = avx_hw_download_format(hw)
        guard format != AV_PIX_FMT_NONE else { return avx_error_einval() }
        let w = hw.pointee.width, h = hw.pointee.height
        if pool == nil || key != (format.rawValue, w, h) {
            av_buffer_pool_uninit(&pool)
            let size = av_image_get_buffer_size(format, w, h, 64)
            guard size > 0 else { return size }
            pool = av_buffer_pool_init(Int(size), nil)
            key = (format.rawValue, w, h)
        }
        return avx_frame_from_pool(out, pool, format, w, h)
    }
}

/// libavcodec's get_format: HwdecPlan.pickFormat over what the decoder offers.
private let hwGetFormat: @convention(c) (UnsafeMutablePointer<AVCodecContext>?, UnsafePointer<AVPixelFormat>?) -> AVPixelFormat = { ctx, fmts in
    guard let ctx, let fmts else { return AV_PIX_FMT_NONE }
    var offered: [AVPixelFormat] = []
    var i = 0
    while fmts[i] != AV_PIX_FMT_NONE && i < 64 {
        offered.append(fmts[i])
        i += 1
    }
    let tag = Int(bitPattern: ctx.pointee.opaque)
    let wanted: AVPixelFormat? = tag > 0 ? AVPixelFormat(rawValue: Int32(tag - 1)) : nil
    return HwdecPlan.pickFormat(offered: offered, hardware: wanted, isHardware: { avx_pix_fmt_is_hw($0) != 0 }) ?? AV_PIX_FMT_NONE
}

/// The DRM render nodes of this machine.
enum DRMNodes {
    /// /dev/dri/renderD* in numeric order.
    static func renderNodes(directory: String = "/dev/dri") -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var nodes: [DRMNode] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasPrefix("renderD") else { continue }
            nodes.append(DRMNode(path: directory + "/" + name, rdev: 0, device: name))
        }
        return DRMNode.renderNodes(nodes)
    }
}

/// Opens `path` and decodes its first `count` frames, on `device` (copied back) or in software:
/// the start-up check's two halves. The caller frees the frames (av_frame_free).
enum FirstFrames {
    struct Result {
        var frames: [UnsafeMutablePointer<AVFrame>] = []
        /// The hardware decoder gave a software frame (libavcodec's silent fallback).
        var notHardware = false
        var error: String?
        func free() {
            for f in frames {
                var p: UnsafeMutablePointer<AVFrame>? = f
                av_frame_free(&p)
            }
        }
    }

    static func decode(_ path: String, count: Int, device: HwDevice?) -> Result {
        var result = Result()
        let decoder: FewFrames
        do { decoder = try FewFrames(path, device: device, extraFrames: 1) } catch {
            switch error {
            case .video(let e): result.error = "\(e)"
            case .codec(let why): result.error = why
            }
            return result
        }
        var got = av_frame_alloc()
        defer { av_frame_free(&got) }
        guard let got else { result.error = "out of memory"; return result }
        while result.frames.count < count {
            switch decoder.next(into: got, strictReceive: true, strictSend: device != nil) {
            case .failure(let e): result.error = e.description
            case .success(false): break
            case .success(true):
                guard let out = take(got, device: device, first: result.frames.isEmpty, into: &result) else { break }
                result.frames.append(out)
                continue
            }
            break
        }
        return result
    }

    /// A decoded frame as the check compares it: copied back from `device` (a fake device
    /// spoils it as asked), or moved as it is in software; nil (with the reason in `result`)
    /// when the device gave a software frame or the copy failed.
    private static func take(_ got: UnsafeMutablePointer<AVFrame>, device: HwDevice?, first: Bool,
                             into result: inout Result) -> UnsafeMutablePointer<AVFrame>? {
        guard let out = av_frame_alloc() else {
            result.error = "out of memory"
            return nil
        }
        guard let device else {
            av_frame_move_ref(out, got)
            return out
        }
        var t: Int32 = 0
        if device.owns(got) {
            t = device.download(got, into: out)
            av_frame_unref(got)
            if t >= 0, let fake = device.fake {
                if fake.trigger == .check { t = FakeHwdec.paintGreen(out) }
                if fake.trigger == .slow && first { usleep(2_100_000) }
            }
            if t < 0 { result.error = "copy back: \(AVError.text(t))" }
        } else {
            result.notHardware = true
        }
        guard t >= 0, !result.notHardware else {
            var o: UnsafeMutablePointer<AVFrame>? = out
            av_frame_free(&o)
            return nil
        }
        return out
    }
}

extension FakeHwdec {
    /// A green picture, as broken drivers give (waywallen#261): chroma all zero.
    static func paintGreen(_ f: UnsafeMutablePointer<AVFrame>) -> Int32 {
        let rc = av_frame_make_writable(f)
        guard rc >= 0 else { return rc }
        let h = Int((f.pointee.height + 1) / 2)
        for plane in 1...2 {
            let data = withUnsafePointer(to: f.pointee.data) { $0.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { $0[plane] } }
            let line = withUnsafePointer(to: f.pointee.linesize) { $0.withMemoryRebound(to: Int32.self, capacity: 8) { $0[plane] } }
            if let data, line > 0 { memset(data, 0, Int(line) * h) }
        }
        return 0
    }
}

/// The start-up check: the first frames decoded both ways and compared plane by plane.
enum HwStartupCheck {
    struct Outcome {
        var failure: HwdecFailure?
        /// The lowest plane PSNR (dB) over the frames compared.
        var lowest: Double
        var frames: Int
        var seconds: Double
    }

    /// Seconds the hardware half may take.
    static let firstFramesWithin = 2.0

    static func run(_ path: String, device: HwDevice) -> Outcome {
        let started = Sys.now()
        let hw = FirstFrames.decode(path, count: HwdecCheck.frames, device: device)
        defer { hw.free() }
        let hwSeconds = Double(Sys.now() - started) / 1e9
        func done(_ f: HwdecFailure?, _ lowest: Double, _ n: Int) -> Outcome {
            Outcome(failure: f, lowest: lowest, frames: n, seconds: Double(Sys.now() - started) / 1e9)
        }
        if hw.notHardware { return done(.notHardware, 0, 0) }
        if let e = hw.error, hw.frames.isEmpty { return done(.decodeError(e), 0, 0) }
        // A device that takes seconds for its first frames (a driver that never returns one
        // hangs here: the check cannot end it, only report it when it comes back).
        if hwSeconds > HwStartupCheck.firstFramesWithin { return done(.tooSlow(hwSeconds), 0, hw.frames.count) }
        let sw = FirstFrames.decode(path, count: HwdecCheck.frames, device: nil)
        defer { sw.free() }
        var psnrs: [Double] = []
        for (a, b) in zip(hw.frames, sw.frames) {
            guard let p = PlaneCompare.psnr(a, b) else { return done(.checkFailed(0), 0, hw.frames.count) }
            psnrs += p
        }
        let lowest = psnrs.min() ?? 0
        let ok = HwdecCheck.passed(psnrs: psnrs, frames: hw.frames.count, softwareFrames: sw.frames.count)
        return done(ok ? nil : .checkFailed(lowest), lowest, hw.frames.count)
    }
}

/// Two frames of one picture in any YUV layouts, compared plane by plane (Y, Cb, Cr) after
/// both are brought to one planar format by libswscale (a repacking, no scaling).
enum PlaneCompare {
    static func psnr(_ a: UnsafeMutablePointer<AVFrame>, _ b: UnsafeMutablePointer<AVFrame>) -> [Double]? {
        guard a.pointee.width == b.pointee.width, a.pointee.height == b.pointee.height else { return nil }
        let deep = max(avx_pix_fmt_depth(AVPixelFormat(rawValue: a.pointee.format)),
                       avx_pix_fmt_depth(AVPixelFormat(rawValue: b.pointee.format))) > 8
        let common = deep ? AV_PIX_FMT_YUV420P16LE : AV_PIX_FMT_YUV420P
        guard let pa = planar(a, common), let pb = planar(b, common) else { return nil }
        defer {
            var x: UnsafeMutablePointer<AVFrame>? = pa, y: UnsafeMutablePointer<AVFrame>? = pb
            av_frame_free(&x)
            av_frame_free(&y)
        }
        let w = Int(a.pointee.width), h = Int(a.pointee.height)
        var out: [Double] = []
        for plane in 0..<3 {
            let pw = plane == 0 ? w : (w + 1) / 2, ph = plane == 0 ? h : (h + 1) / 2
            let da = dataPointer(pa, plane), db = dataPointer(pb, plane)
            let la = Int(linesize(pa, plane)), lb = Int(linesize(pb, plane))
            var sse = 0.0
            for y in 0..<ph {
                if deep {
                    let ra = UnsafeRawPointer(da + y * la).assumingMemoryBound(to: UInt16.self)
                    let rb = UnsafeRawPointer(db + y * lb).assumingMemoryBound(to: UInt16.self)
                    for x in 0..<pw { let d = Double(Int(ra[x]) - Int(rb[x])); sse += d * d }
                } else {
                    let ra = da + y * la, rb = db + y * lb
                    for x in 0..<pw { let d = Double(Int(ra[x]) - Int(rb[x])); sse += d * d }
                }
            }
            out.append(HwdecCheck.psnr(sse: sse, count: pw * ph, peak: deep ? 65535 : 255))
        }
        return out
    }

    private static func planar(_ f: UnsafeMutablePointer<AVFrame>, _ fmt: AVPixelFormat) -> UnsafeMutablePointer<AVFrame>? {
        let w = f.pointee.width, h = f.pointee.height
        guard let out = av_frame_alloc() else { return nil }
        out.pointee.format = fmt.rawValue
        out.pointee.width = w
        out.pointee.height = h
        var o: UnsafeMutablePointer<AVFrame>? = out
        guard av_frame_get_buffer(out, 0) >= 0,
              let sws = avx_sws_get_context(w, h, AVPixelFormat(rawValue: f.pointee.format), w, h, fmt, avx_sws_point()) else {
            av_frame_free(&o)
            return nil
        }
        defer { avx_sws_free(sws) }
        let rows = SwsFrames.scale(sws, f, into: out)
        guard rows == h else { av_frame_free(&o); return nil }
        return out
    }

    private static func dataPointer(_ f: UnsafeMutablePointer<AVFrame>, _ i: Int) -> UnsafeMutablePointer<UInt8> {
        withUnsafePointer(to: f.pointee.data) { $0.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { $0[i]! } }
    }

    private static func linesize(_ f: UnsafeMutablePointer<AVFrame>, _ i: Int) -> Int32 {
        withUnsafePointer(to: f.pointee.linesize) { $0.withMemoryRebound(to: Int32.self, capacity: 8) { $0[i] } }
    }
}
