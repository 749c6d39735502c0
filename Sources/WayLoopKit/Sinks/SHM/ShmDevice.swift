// The shm device: wl_shm buffers for every output's ShmSink, and each clip's converted
// pictures (ShmPictures), with what they cost trimmed when nobody asks for them. Main thread only.
import WayLoopCore

/// The wl_shm buffers every picture and sink of the device is made in: wl_shm, the format, and
/// the count of releases. The device and each clip's ShmPictures hold it (a child never reaches
/// back into the device).
final class ShmBuffers {
    private let shm: ShmGlobal
    /// The wl_shm format (XRGB8888 by default) and the same bytes as the converter names them.
    let format: ShmFormat
    let packedFormat: PackedRGB
    /// Bumped by every wl_buffer.release: a sink that found no free buffer draws again after one.
    private(set) var releases: UInt64 = 0

    init(shm: ShmGlobal) {
        self.shm = shm
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

    func make(_ size: Size) throws(SinkError) -> ShmBuffer {
        let b = try ShmBuffer(shm: shm, size: size, format: format)
        b.onRelease = { [unowned self] in self.releases &+= 1 }
        return b
    }
}

/// What the shm sinks share: the buffers and each clip's converted pictures.
final class ShmDevice: RenderDevice {
    static let kind = RendererKind.shm
    /// One frame thread: the main thread needs ~1 ms a frame and one thread keeps up with
    /// 2160p30 (7 ms a frame); a second costs up to 25 % more decoding CPU (0.95 against 0.76
    /// CPU-s, bench's 1080p clip, 600 frames). Four frames queued (133 ms at 30 fps) are slack
    /// enough for a ~1 ms draw, and 12 MB less at 1080p than the default eight.
    static let decoderHints = DecoderHints(threads: 1, queueFrames: 4)

    private let buffers: ShmBuffers
    /// Pictures larger than this on a side are scaled down by the decoder (libswscale itself
    /// takes any size; this only bounds absurd streams).
    static let maxPictureSize = 16384
    /// Bumped by every wl_buffer.release: a sink that found no free buffer draws again after one.
    var releases: UInt64 { buffers.releases }
    /// Each clip's converted pictures, by path.
    private var pictures: [String: ShmPictures] = [:]

    /// The compositor offers linux-dmabuf (it composites on a GPU): `--scaling auto` lets it
    /// scale (CompositorScaling.Choice).
    let dmabuf: Bool

    init(shm: ShmGlobal, dmabuf: Bool) {
        buffers = ShmBuffers(shm: shm)
        self.dmabuf = dmabuf
    }

    /// The buffer holding `picture` converted for `key` (its clip's ShmPictures), converting it
    /// now if no output has yet; nil while every buffer is the compositor's.
    func buffer(for key: ShmPictures.Key, picture: Picture, now: Nanos, cost: inout StageCost) throws(SinkError) -> ShmBuffer? {
        let p: ShmPictures
        if let known = pictures[picture.clip] { p = known } else {
            p = ShmPictures(buffers: buffers)
            pictures[picture.clip] = p
        }
        return try p.buffer(for: key, picture: picture, now: now, cost: &cost)
    }

    /// How a picture of `video` of `clip` lies in a buffer of `key` (ShmPictures.layout).
    func layout(clip: String, key: ShmPictures.Key, video: Size) -> ShmLayout {
        pictures[clip]?.layout(for: key, video: video) ?? ShmPictures.layout(for: key, video: video)
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

    func makeBuffer(_ size: Size) throws(SinkError) -> ShmBuffer { try buffers.make(size) }
}
