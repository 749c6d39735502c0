// The decoder thread's hardware path: the choice of a path (each candidate opened and checked
// against software decoding), the frames it decodes copied back into the channel's, and the
// fallback to software, with the state it keeps (HwdecState, the device, a failure noted while
// decoding, which the decoder's loop acts on). The state crosses to the main thread as a value
// (FrameChannel.decodeState). Decoder thread only.
import CFFmpeg
import CSystem
import Glibc
import WayLoopCore

final class HardwarePath {
    /// The fallback's state (nil until a path was chosen).
    private(set) var state: HwdecState?
    /// The device while a hardware path is active.
    private(set) var device: HwDevice?
    /// A failure seen while decoding, acted on by the decoder's loop (a switch to software).
    var failure: HwdecFailure?
    /// The buffers hardware frames are copied back into.
    private let downloads = DownloadPool()
    /// Frames the hardware path has given (the fake source's triggers count them).
    private var frames = 0
    /// How its frames are handed on: copied back, or in place (each pinning its surface).
    private(set) var delivery = FrameDelivery.copyBack
    /// The fake source's pool of surfaces, when it hands them on in place.
    private var ledger: SurfaceLedger?

    /// libavcodec's extra surfaces for the path (HwdecPool.extraFrames): a few for a copy
    /// path, the queue and the surfaces shown on top for one in place.
    func extraFrames(queue: Int) -> Int {
        HwdecPool.extraFrames(copying: delivery == .copyBack, queued: queue, held: SurfaceBudget.leasedMax)
    }

    /// Where a device's frames can be handed on in place (nil: only copied back). The fake's
    /// surfaces are in memory, which both renderers take. VA-API's would be dmabufs
    /// (av_hwframe_map to DRM PRIME): not built, as no device here takes one (PictureStorage.dmabuf).
    private static func exportPlace(_ device: HwDevice) -> String? {
        device.fake?.exports == true ? PictureStorage.Place.cpu.rawValue : nil
    }

    /// Picks how this clip is decoded before its codec opens: each hardware candidate is opened
    /// and checked against software decoding (HwStartupCheck); the first that passes is used.
    /// Sets `state`, `device` and the channel's report; a failure under an explicit `--hwdec`
    /// gets one notice, under auto a debug line (status says why either way).
    func choose(_ decoder: UnsafePointer<AVCodec>, _ par: UnsafePointer<AVCodecParameters>, video path: String, channel: FrameChannel, log: Logger) {
        let fmt = AVPixelFormat(rawValue: par.pointee.format)
        let stream = HwdecStream(codec: String(cString: avcodec_get_name(par.pointee.codec_id)), bitDepth: Int(avx_pix_fmt_depth(fmt)),
                                 chroma420: avx_pix_fmt_is_420(fmt) == 1)
        var state = HwdecState(mode: channel.hwdec, stream: stream)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        while case .trying(let p) = state.phase, !channel.shouldStop {
            switch HwDevice.open(p, device: channel.hwdecDevice, codec: decoder, auto: channel.hwdec == .auto) {
            case .failure(let why):
                state.failed(why)
            case .success(let device):
                let check = HwStartupCheck.run(path, device: device)
                channel.checkSeconds = (channel.checkSeconds ?? 0) + check.seconds
                log.debug("'\(name)': \(p.rawValue) start-up check on \(device.name): \(check.frames) frames, lowest plane "
                    + "\((check.lowest * 10).rounded() / 10) dB, \(Int(check.seconds * 1000)) ms")
                if let why = check.failure {
                    // A picture that differs is worth a notice even under auto: the path exists and is wrong.
                    if case .checkFailed = why { log.notice("'\(name)': \(p.rawValue): \(why): not used for it") }
                    state.failed(why)
                } else {
                    // Its surfaces live on the device: how many libavcodec's pool makes, and their size.
                    let limits = channel.limits.current
                    delivery = FrameDelivery.choose(exportsTo: Self.exportPlace(device), deviceTakes: limits.storage.map(\.rawValue),
                                                    deviceIsFinal: limits.isFinal)
                    let extra = extraFrames(queue: channel.capacity)
                    if delivery != .copyBack {
                        let limit = SurfaceBudget.limit(capacity: channel.capacity)
                        ledger = device.fake != nil ? SurfaceLedger(size: extra, limit: limit) : nil
                        channel.handsOnSurfaces(limit: limit, ledger: ledger)
                    }
                    let codecName = String(cString: avcodec_get_name(par.pointee.codec_id))
                    let n = HwdecPool.size(codec: codecName, extra: extra)
                    let bytes = Double(par.pointee.width) * Double(par.pointee.height) * (avx_pix_fmt_depth(fmt) > 8 ? 3 : 1.5)
                    let mb = Int((Double(n) * bytes / 1_048_576).rounded())
                    let inPlace = delivery == .copyBack ? "" : "; frames handed on in place"
                    state.passed(device: (device.fake == nil ? "\(device.name); \(n) surfaces, \(mb) MB on the device" : device.name) + inPlace)
                    self.device = device
                }
            }
        }
        self.state = state
        channel.decodeState = state
        if case .software(let why?) = state.phase, !state.refusals.isEmpty {
            let line = "'\(name)': decoding in software (\(why))"
            if channel.hwdec == .auto { log.debug(line) } else { log.notice(line) }
        } else {
            log.debug("'\(name)': decode: \(state.text)")
        }
    }

    /// The frame a hardware path decoded, copied back into one of the channel's frames (the
    /// surface goes back to the pool at once), or handed on in place with the surface it pins;
    /// a software frame as it is. nil when the frame is gone: a failure was noted (`failure`)
    /// and the loop switches to software.
    func take(_ frame: UnsafeMutablePointer<AVFrame>, channel: FrameChannel) -> (frame: UnsafeMutablePointer<AVFrame>, surface: SurfaceTag?)? {
        guard let device else { return (frame, nil) }
        guard device.owns(frame) else {
            channel.recycle(FrameHandle(frame: frame))
            failure = .notHardware
            return nil
        }
        frames += 1
        if let fake = device.fake, fake.trigger.whilePlaying, frames == fake.at {
            channel.recycle(FrameHandle(frame: frame))
            switch fake.trigger {
            case .pool: failure = .poolExhausted
            case .transfer: failure = .transfer("Input/output error (WAYLOOP_FAKE_HWDEC)")
            default: failure = .decodeError("Invalid data found when processing input (WAYLOOP_FAKE_HWDEC)")
            }
            return nil
        }
        // In place: a picture the renderers take as it is, pinning its surface until its lease ends.
        if delivery != .copyBack, PlaneLayout(frame: frame) != nil {
            guard let tag = ledger.map({ $0.take() }) ?? SurfaceTag(id: frames, ledger: nil) else {
                channel.recycle(FrameHandle(frame: frame))
                failure = .poolExhausted
                return nil
            }
            return (frame, tag)
        }
        guard let out = channel.obtainFrame() else {
            channel.recycle(FrameHandle(frame: frame))
            failure = .transfer("out of memory")
            return nil
        }
        let rc = device.download(frame, into: out, pool: downloads)
        channel.recycle(FrameHandle(frame: frame))
        guard rc >= 0 else {
            channel.recycle(FrameHandle(frame: out))
            failure = .transfer(AVError.text(rc))
            return nil
        }
        return (out, nil)
    }

    /// Leaves the hardware path: the state, the report and the one notice.
    func fallBack(_ why: HwdecFailure, video path: String, channel: FrameChannel, log: Logger) {
        device = nil
        // The surfaces already handed on stay pinned by their leases until they end.
        delivery = .copyBack
        if state == nil { state = HwdecState(mode: .no, stream: HwdecStream(codec: "", bitDepth: 0, chroma420: true)) }
        let line = state!.failed(why)
        channel.decodeState = state
        let name = path.split(separator: "/").last.map(String.init) ?? path
        if let line { log.notice("'\(name)': \(line)") }
    }
}
