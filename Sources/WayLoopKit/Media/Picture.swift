// A decoded picture as a render device sees it: where its pixels live (CPU planes today; a
// dmabuf is the documented second place), their layout and colour, and how it is turned for
// display. No FFmpeg type leaves this folder: the sinks read a Picture, never an AVFrame.
// Valid while it is kept: it holds its frame's lease (FrameLease). Main thread only.
import CFFmpeg
import WayLoopCore

struct Picture {
    /// The clip's serial of this frame: a sink converts or uploads it once per serial.
    let serial: UInt64
    /// The clip's path: the key of the sinks' resources for it.
    let clip: String
    let orientation: Orientation
    let storage: PictureStorage
    /// The clip's recent damage: what changed since an earlier frame of it.
    let damage: DamageHistory
    /// The decoded frame's lease: the picture's pixels stay valid while any holder keeps it
    /// (nil: a frame owned by whoever made the picture, as a thumbnail's).
    let lease: FrameLease?

    /// A decoded frame in memory; nil for a format no device takes (never queued: the decoder
    /// converts those).
    init?(frame: UnsafeMutablePointer<AVFrame>, serial: UInt64, clip: String, orientation: Orientation,
          damage: DamageHistory = DamageHistory(), lease: FrameLease? = nil) {
        guard let planes = CPUPlanes(frame: frame) else { return nil }
        self.lease = lease
        self.serial = serial
        self.clip = clip
        self.orientation = orientation
        self.damage = damage
        storage = .cpu(planes)
    }

    /// The tiles (of the coded picture) that changed since the clip's frame `serial` (nil:
    /// unknown, so all of it).
    func changed(since serial: UInt64) -> TileMask? { damage.changed(from: serial, to: self.serial) }

    /// The matrix and range its pixels are converted with (nil: not CPU planes).
    var colour: FrameColour? {
        if case .cpu(let p) = storage { return p.colour }
        return nil
    }

    /// Coded size.
    var size: Size {
        switch storage {
        case .cpu(let p): return p.size
        case .dmabuf(let d): return d.size
        }
    }
}

/// Where a picture's pixels are. A device says which places it takes (DeviceLimits.storage);
/// a sink handed a place it does not take fails that draw with one error line.
enum PictureStorage {
    /// 8-bit Y'CbCr planes in memory, as the software decoders (and libswscale) give them.
    case cpu(CPUPlanes)
    /// GPU memory exported as a dmabuf. Nothing produces it yet: a hardware decoding path
    /// (VA-API or NVDEC through FFmpeg's DRM PRIME frames) would.
    case dmabuf(DmabufPlanes)

    enum Place: String, Sendable { case cpu, dmabuf }
    var place: Place {
        switch self {
        case .cpu: return .cpu
        case .dmabuf: return .dmabuf
        }
    }
}

/// A picture in memory: up to three planes (Y, Cb, Cr; or Y and interleaved CbCr), their line
/// sizes (padded: a line is often longer than the picture is wide), the layout and the colour.
/// The pointers belong to the decoded frame and stay valid while its clip shows it.
struct CPUPlanes {
    struct Plane {
        var data: UnsafeMutablePointer<UInt8>?
        var lineSize: Int
    }
    let size: Size
    let layout: PlaneLayout
    /// Matrix and range, by the documented rule when the frame leaves them unspecified.
    let colour: FrameColour
    /// What the frame itself signalled (the tags, before any guess): a device that caches its
    /// conversion computes it again when these change.
    let colourTags: ColourTags
    /// The frame's pixel format, for Media's own converters (RGBScaler); a sink goes by `layout`.
    let sourceFormat: Int32
    /// A tuple, not an array: a Picture is made for every draw and must not allocate.
    private let planes: (Plane, Plane, Plane)

    func plane(_ i: Int) -> Plane {
        switch i {
        case 0: return planes.0
        case 1: return planes.1
        default: return planes.2
        }
    }

    /// Nil for a format no device takes (the decoder converts those first: see PlaneLayout).
    init?(frame: UnsafeMutablePointer<AVFrame>) {
        guard let layout = PlaneLayout(frame: frame) else { return nil }
        let f = frame.pointee
        self.layout = layout
        size = Size(width: Int(f.width), height: Int(f.height))
        colour = FrameColour(frame: frame, layout: layout)
        colourTags = ColourTags(matrix: f.colorspace.rawValue, range: f.color_range.rawValue,
                                fullRangeFormat: layout.impliesFullRange)
        sourceFormat = f.format
        // AVFrame.data and .linesize are 8-tuples in Swift.
        planes = withUnsafePointer(to: f.data) { dp in
            withUnsafePointer(to: f.linesize) { lp in
                dp.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { d in
                    lp.withMemoryRebound(to: Int32.self, capacity: 8) { l in
                        (Plane(data: d[0], lineSize: Int(l[0])), Plane(data: d[1], lineSize: Int(l[1])),
                         Plane(data: d[2], lineSize: Int(l[2])))
                    }
                }
            }
        }
    }
}

/// A frame's colour tags as signalled (matrix and range codes, and whether the pixel format
/// implies full range): compared, never interpreted, outside Media.
struct ColourTags: Equatable {
    var matrix: UInt32
    var range: UInt32
    var fullRangeFormat: Bool
}

/// A picture in a dmabuf, described the way linux-dmabuf and EGL_EXT_image_dma_buf_import take
/// it (FFmpeg's AVDRMFrameDescriptor flattened to one layer). Documented, not produced: no
/// decoding path exports one yet, and no device takes one (both say so in one error). The seam
/// it waits for is two pieces: the VA-API path's export (HardwarePath.exportPlace: "dmabuf",
/// av_hwframe_map to AV_PIX_FMT_DRM_PRIME, the frame handed on in place with its SurfaceTag),
/// and the GL device's branch for `.dmabuf` (GLDevice.textures) with `.dmabuf` in its
/// DeviceLimits.storage. Its lease already keeps the surface until the swap that replaced it.
///
/// - The GL device would import it with eglCreateImageKHR(EGL_LINUX_DMA_BUF_EXT): width, height,
///   EGL_LINUX_DRM_FOURCC_EXT = `fourcc`, and per plane i EGL_DMA_BUF_PLANEi_FD/OFFSET/PITCH and
///   _MODIFIER_LO/HI (EGL_EXT_image_dma_buf_import_modifiers), then bind the EGLImage to an
///   external texture (GL_OES_EGL_image_external), with no upload at all.
/// - The shm device would map it (mmap of the fd, DMA_BUF_IOCTL_SYNC around the read; only a
///   linear `modifier` can be read that way) or have FFmpeg transfer it into CPU planes, then
///   convert as it does today.
struct DmabufPlanes {
    struct Plane {
        /// Index into `fds`: planes may share one buffer object.
        var object: Int
        var offset: Int
        var pitch: Int
    }
    let size: Size
    /// One file descriptor per buffer object, owned by the frame (not to be closed by a device).
    let fds: [Int32]
    /// DRM_FORMAT_* (e.g. NV12 = 'NV12' as a little-endian fourcc).
    let fourcc: UInt32
    /// DRM_FORMAT_MOD_* (0: linear), one for every object of the frame.
    let modifier: UInt64
    let planes: [Plane]
    let colour: FrameColour
}

/// Compares two decoded frames tile by tile (TileDiff): nil when they cannot be compared (other
/// sizes or formats, no CPU planes) or when most tiles changed.
enum FrameDiff {
    /// WAYLOOP_DAMAGE=off: no comparison, every frame drawn whole (for measuring what damage
    /// tracking costs and saves: scripts/bench runs both in one run).
    static let enabled = Sys.env("WAYLOOP_DAMAGE") != "off"

    static func changed(_ old: UnsafeMutablePointer<AVFrame>, _ new: UnsafeMutablePointer<AVFrame>) -> TileMask? {
        guard let a = CPUPlanes(frame: old), let b = CPUPlanes(frame: new), a.size == b.size, a.sourceFormat == b.sourceFormat else {
            return nil
        }
        // The same frame again (a still, a one-frame loop): nothing changed.
        if old == new || a.plane(0).data == b.plane(0).data { return TileMask(picture: a.size) }
        let n = a.layout.semiPlanar ? 2 : 3
        var pa: [TileDiff.Plane] = [], pb: [TileDiff.Plane] = []
        pa.reserveCapacity(n)
        pb.reserveCapacity(n)
        for i in 0..<n {
            guard let da = a.plane(i).data, let db = b.plane(i).data else { return nil }
            let bytes = i > 0 && a.layout.semiPlanar ? 2 : 1
            pa.append(TileDiff.Plane(data: da, lineSize: a.plane(i).lineSize, bytesPerSample: bytes))
            pb.append(TileDiff.Plane(data: db, lineSize: b.plane(i).lineSize, bytesPerSample: bytes))
        }
        return TileDiff.changed(old: pa, new: pb, size: a.size, chromaShiftX: Int(a.layout.chromaShiftX),
                                chromaShiftY: Int(a.layout.chromaShiftY))
    }
}

extension YUVConversion {
    /// The shader's conversion for a picture's colour (8 bits).
    init(_ c: FrameColour) { self.init(matrix: c.matrix, range: c.range, bitDepth: 8) }
}
