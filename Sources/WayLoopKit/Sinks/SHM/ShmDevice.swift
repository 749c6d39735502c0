// The shm device: wl_shm buffers for every output's ShmSink, and each clip's converted
// pictures (ShmPictures), with what they cost trimmed when nobody asks for them. Main thread only.
import WayLoopCore

/// What the shm sinks share: wl_shm and the buffer format.
final class ShmDevice: RenderDevice {
    static let kind = RendererKind.shm
    /// One frame thread: the main thread needs ~1 ms a frame and one thread keeps up with
    /// 2160p30 (7 ms a frame); a second costs up to 25 % more decoding CPU (0.95 against 0.76
    /// CPU-s, bench's 1080p clip, 600 frames). Four frames queued (133 ms at 30 fps) are slack
    /// enough for a ~1 ms draw, and 12 MB less at 1080p than the default eight.
    static let decoderHints = DecoderHints(threads: 1, queueFrames: 4)

    private let shm: ShmGlobal
    /// The wl_shm format (XRGB8888 by default) and the same bytes as the converter names them.
    let format: ShmFormat
    let packedFormat: PackedRGB
    /// Pictures larger than this on a side are scaled down by the decoder (libswscale itself
    /// takes any size; this only bounds absurd streams).
    static let maxPictureSize = 16384
    /// Bumped by every wl_buffer.release: a sink that found no free buffer draws again after one.
    private(set) var releases: UInt64 = 0
    /// Each clip's converted pictures, by path.
    private var pictures: [String: ShmPictures] = [:]

    /// The compositor offers linux-dmabuf (it composites on a GPU): `--scaling auto` lets it
    /// scale (CompositorScaling.Choice).
    let dmabuf: Bool

    init(shm: ShmGlobal, dmabuf: Bool) {
        self.shm = shm
        self.dmabuf = dmabuf
        // XRGB8888 (opaque: pixman composites it as a plain copy) unless WAYLOOP_SHM_FORMAT=argb
        // (for measuring the two against each other; both are mandatory wl_shm formats).
        if Sys.env("WAYLOOP_SHM_FORMAT") == "argb" {
            format = .argb8888
            packedFormat = .bgra
        } else {
            format = .xrgb8888
            packedFormat = .bgrx
        }
    }

    func pictures(of clip: String) -> ShmPictures {
        if let p = pictures[clip] { return p }
        let p = ShmPictures()
        pictures[clip] = p
        return p
    }

    var limits: DeviceLimits { DeviceLimits(maxPictureSize: Self.maxPictureSize, storage: [.cpu]) }

    func makeSink() -> Sink { ShmSink(device: self) }

    /// A clip nobody shows any more: its buffers go.
    func forget(clip: String) { pictures[clip] = nil }

    /// Frees what no output has asked for since `before` (ShmPictures.trim).
    func trim(before: Nanos) { for p in pictures.values { p.trim(before: before) } }

    /// Never by size: ShmPictures shares a converted buffer between outputs by its own key.
    func sharesConversion(clip: String, size: Size) -> Bool { false }

    func releaseSurfaces() {}

    func makeBuffer(_ size: Size) throws(SinkError) -> ShmBuffer {
        let b = try ShmBuffer(shm: shm, size: size, format: format)
        b.onRelease = { [unowned self] in self.releases &+= 1 }
        return b
    }
}
