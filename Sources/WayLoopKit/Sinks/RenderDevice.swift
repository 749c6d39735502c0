// What draws, for every output: a render device (GLES through EGL, or wl_shm buffers filled
// by libswscale). The app holds one device and talks to it only through this interface; the
// device makes each output's Sink and keeps what its sinks share (a GL context and each clip's
// textures, or each clip's converted buffers). Choosing one is `RenderDevices.make`, acting on
// RendererChoice's pure decision. Main thread only.
import WayLoopCore

protocol RenderDevice: AnyObject {
    /// Which renderer this is (its name in `--renderer` and the status replies).
    static var kind: RendererKind { get }
    /// How the decoders feeding this device are tuned. Static: the decoders start before the
    /// device is up.
    static var decoderHints: DecoderHints { get }
    /// What it takes: the largest picture side, where pictures may live.
    var limits: DeviceLimits { get }
    /// One output's sink (made when the output gets its layer surface).
    func makeSink() -> Sink
    /// A clip nobody shows any more: what the device kept for it goes.
    func forget(clip: String)
    /// Frees what no output has asked for since `before` (run each loop pass, and at once
    /// under memory pressure).
    func trim(before: Nanos)
    /// Whether outputs whose buffers are `size` pixels can share one conversion of `clip`'s
    /// picture, so that the app passes `shared` to the sinks when several show it.
    func sharesConversion(clip: String, size: Size) -> Bool
    /// At teardown, once every sink is gone and before the device's resources are: nothing of
    /// the outputs stays bound.
    func releaseSurfaces()
}

extension RenderDevice {
    var kind: RendererKind { Self.kind }
}

/// How a device wants its decoders: libavcodec frame threads, and the decoded frames queued per
/// video when `--queue-frames` is not given (nil: the option's default).
struct DecoderHints: Equatable {
    var threads: Int
    var queueFrames: Int?
}

/// The device could not be made (one line; the run ends).
struct DeviceError: Error, CustomStringConvertible {
    let description: String
}

/// The device list and the one factory.
enum RenderDevices {
    /// Each renderer's device type.
    static func type(of kind: RendererKind) -> any RenderDevice.Type {
        switch kind {
        case .gl: return GLDevice.self
        case .shm: return ShmDevice.self
        }
    }

    /// The hints for the decoders started before the device: those of the device decided
    /// without EGL, else GL's (EGL is tried next; a fallback to shm keeps them).
    static func decoderHints(_ early: RendererChoice.Decision?) -> DecoderHints {
        type(of: early?.kind ?? .gl).decoderHints
    }

    /// The device for `request`: `early` when the facts decided without EGL, else EGL is
    /// brought up and asked (software GL under `auto`, or an EGL failure, means shm). Publishes
    /// the device's limits to `limits`, which the decoders read. Returns the one line that says
    /// which renderer and why.
    static func make(_ request: RendererRequest, early: RendererChoice.Decision?, display: EGLWaylandDisplay, shm: ShmGlobal?,
                     dmabuf: Bool, limits: PictureLimits, sharedWithHost: Bool = false) throws(DeviceError) -> (device: any RenderDevice, line: String) {
        var decision: RendererChoice.Decision
        var gl: GLDevice?
        if let early {
            decision = early
        } else {
            do {
                let device = try GLDevice(display: display, sharedWithHost: sharedWithHost)
                decision = RendererChoice.afterEGL(request, glRenderer: device.name)
                // Software GL under auto: EGL goes at once, shm draws.
                if decision.kind == .gl { gl = device }
            } catch {
                decision = RendererChoice.eglFailed(request, error: "\(error)")
            }
        }
        let device: any RenderDevice
        switch decision.kind {
        case .gl:
            // afterEGL decides GL only with a device up.
            guard let gl else { throw DeviceError(description: "EGL is not up, and the gl renderer needs it") }
            device = gl
        case .shm:
            guard let shm else { throw DeviceError(description: "the compositor offers no wl_shm, and the shm renderer needs it") }
            device = ShmDevice(shm: shm, dmabuf: dmabuf)
        }
        limits.publish(device.limits)
        return (device, decision.line)
    }
}
