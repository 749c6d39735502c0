// The shm sink: frames converted on the CPU straight into wl_shm buffers (ShmPictures), for
// machines where GL would only be software (issue 11: ~8x less CPU than shading in llvmpipe,
// and no Mesa driver loaded). Rotation and mirroring are the compositor's: the buffer keeps
// the video's stored orientation and wl_surface.set_buffer_transform says how to turn it.
// Main thread only.
import CFFmpeg
import CWayland
import WayLoopCore

final class ShmSink: Sink {
    let kind = RendererKind.shm
    private let device: ShmDevice
    /// The solid fallback colour's buffers (drawn once; two, so that a new colour never
    /// overwrites the one the compositor still shows).
    private var colourBuffers: [ShmBuffer] = []
    /// Every buffer for this key was busy at this release count: wait for the next release,
    /// or for another key (a resize, other settings, another clip).
    private var blocked: (releases: UInt64, key: ShmPictures.Key, clip: String)?

    init(device: ShmDevice) { self.device = device }

    func canDraw(_ picture: Picture?, settings: OutputSettings?, on surface: LayerSurface) -> Bool {
        guard let b = blocked else { return true }
        guard b.releases == device.releases, let picture, let settings else { return true }
        return b.clip != picture.clip || b.key != key(picture, settings, surface)
    }

    func resize(_ surface: LayerSurface) throws(SinkError) {
        colourBuffers.removeAll { $0.size != surface.bufferSize && !$0.busy }
        blocked = nil
    }

    /// The buffer's size in the picture's stored orientation (a quarter turn swaps its sides).
    private func key(_ picture: Picture, _ settings: OutputSettings, _ surface: LayerSurface) -> ShmPictures.Key {
        let b = surface.bufferSize
        let size = picture.orientation.rotation % 180 == 0 ? b : Size(width: b.height, height: b.width)
        return ShmPictures.Key(size: size, mode: settings.mode, color: settings.color, dim: settings.dim)
    }

    func present(colour: RGB, on surface: LayerSurface) throws(SinkError) {
        let size = surface.bufferSize
        colourBuffers.removeAll { $0.size != size && !$0.busy }
        let b: ShmBuffer
        if let free = colourBuffers.first(where: { !$0.busy && $0.size == size }) {
            b = free
        } else if colourBuffers.count < 2 {
            b = try device.makeBuffer(size)
            colourBuffers.append(b)
        } else {
            throw SinkError.waiting
        }
        b.fill(colour)
        surface.setBufferTransform(0)
        b.attach(to: surface.surface)
        wl_surface_commit(surface.surface)
        blocked = nil
    }

    func present(_ picture: Picture, settings: OutputSettings, on surface: LayerSurface, shared: Bool,
                 beforeCommit: () -> Void) throws(SinkError) {
        let key = key(picture, settings, surface)
        guard let buffer = try device.pictures(of: picture.clip).buffer(for: key, picture: picture, device: device, now: Sys.now()) else {
            blocked = (device.releases, key, picture.clip)
            throw SinkError.waiting
        }
        blocked = nil
        colourBuffers.removeAll { !$0.busy }
        surface.setBufferTransform(BufferTransform.forOrientation(picture.orientation))
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
