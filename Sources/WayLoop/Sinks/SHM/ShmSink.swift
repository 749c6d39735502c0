// The shm sink: frames converted on the CPU straight into wl_shm buffers (ShmPictures), for
// machines where GL would only be software (issue 11: ~10x less CPU than shading in llvmpipe,
// and no Mesa driver loaded). Rotation and mirroring are the compositor's: the buffer keeps
// the video's stored orientation and wl_surface.set_buffer_transform says how to turn it.
// Main thread only.
import CFFmpeg
import CWayland
import WayLoopCore

final class ShmSink: Sink {
    let kind = RendererKind.shm
    private let device: ShmDevice
    /// The solid fallback colour's buffer (drawn once).
    private var colourBuffer: ShmBuffer?
    /// Every buffer was busy at this release count: wait for the next release.
    private var blockedAt: UInt64?

    init(device: ShmDevice) { self.device = device }

    var canDraw: Bool { blockedAt.map { $0 != device.releases } ?? true }

    func resize(_ surface: LayerSurface) throws(SinkError) {
        if colourBuffer?.size != surface.bufferSize { colourBuffer = nil }
    }

    func present(colour: RGB, on surface: LayerSurface) throws(SinkError) {
        let size = surface.bufferSize
        if colourBuffer == nil || colourBuffer!.size != size { colourBuffer = try device.makeBuffer(size) }
        let b = colourBuffer!
        b.fill(colour)
        surface.setBufferTransform(0)
        b.attach(to: surface.surface)
        wl_surface_commit(surface.surface)
    }

    func present(_ picture: Picture, settings: OutputSettings, on surface: LayerSurface, shared: Bool,
                 beforeCommit: () -> Void) throws(SinkError) {
        let orientation = picture.orientation
        let transform = BufferTransform.forOrientation(orientation)
        // The buffer in stored orientation: a quarter turn swaps its sides.
        let b = surface.bufferSize
        let size = orientation.rotation % 180 == 0 ? b : Size(width: b.height, height: b.width)
        let key = ShmPictures.Key(size: size, mode: settings.mode, color: settings.color, dim: settings.dim)
        guard let buffer = try device.pictures(of: picture.clip).buffer(for: key, picture: picture, device: device, now: Sys.now()) else {
            blockedAt = device.releases
            throw SinkError.waiting
        }
        blockedAt = nil
        colourBuffer = nil
        surface.setBufferTransform(transform)
        buffer.attach(to: surface.surface)
        surface.requestFrame()
        beforeCommit()
        wl_surface_commit(surface.surface)
    }
}

extension SinkError {
    /// Not a failure: every buffer is still the compositor's; the sink draws after a release.
    static let waiting = SinkError("waiting for the compositor to release a buffer")
    var isWaiting: Bool { description == SinkError.waiting.description }
}
