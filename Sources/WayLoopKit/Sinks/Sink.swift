// A sink puts pictures on one output's layer surface: the GLES sink (EGL window, shader) or
// the shm sink (libswscale into wl_shm buffers), made by its RenderDevice, which keeps what
// the sinks share. The app decides when to draw (the schedule); a sink decides only how.
// Main thread only.
import WayLoopCore

/// Why a sink did not draw: a real failure (what failed, one line), or `waiting`, which is not
/// one (every buffer is still the compositor's; the sink draws after a release).
enum SinkError: Error, CustomStringConvertible {
    case waiting
    case failed(String)

    init(_ d: String) { self = .failed(d) }

    /// A picture in a place the device cannot draw from (a dmabuf where only CPU planes are
    /// taken): that draw fails with this one line.
    static func unsupported(_ place: PictureStorage.Place, by device: RendererKind) -> SinkError {
        .failed("a picture in \(place.rawValue) memory reached the \(device.rawValue) renderer, which takes only CPU planes")
    }

    var isWaiting: Bool {
        if case .waiting = self { return true }
        return false
    }

    var description: String {
        switch self {
        case .waiting: return "waiting for the compositor to release a buffer"
        case .failed(let d): return d
        }
    }
}

/// What a sink draws on: a wl_surface with its buffer size and frame callback. The wallpaper's
/// layer surfaces (LayerSurface) and a host's own surface (HostSurface, the embedded view).
protocol SinkSurface: AnyObject {
    /// The raw wl_surface: buffer attach, commit, wl_egl_window_create.
    var surface: OpaquePointer { get }
    /// Its buffers' size in pixels (logical size times scale).
    var bufferSize: Size { get }
    /// Buffers of any size can be shown over the whole surface (a viewport).
    var scalesBuffers: Bool { get }
    /// Something other than a new frame needs drawing (a resize, other settings).
    var needsRedraw: Bool { get }
    /// wl_surface.set_buffer_transform for the next commit.
    func setBufferTransform(_ t: Int32)
    /// The next buffer is `size` pixels of which `source` is shown (LayerSurface.attaching).
    func attaching(_ size: Size, source: Rect?)
    /// Asks for a frame callback; before the commit.
    func requestFrame()
    /// Attaches `colour` as a single-pixel buffer over the whole surface where it can
    /// (LayerSurface.attachSolid); false: the sink draws the colour itself. The caller commits.
    func attachSolid(_ colour: RGB) -> Bool
}

extension SinkSurface {
    func attachSolid(_ colour: RGB) -> Bool { false }
}

extension LayerSurface: SinkSurface {}

/// The picture fading out under a new one (a crossfade): drawn with its own settings, then the
/// new picture over it with `weight` (0...1, the new one's share).
struct FadeLayer {
    let picture: Picture
    let settings: OutputSettings
    let weight: Double
}

protocol Sink: AnyObject {
    var kind: RendererKind { get }
    /// What its last commits told the compositor changed (`ctl status --json`'s `damaged`).
    var damaged: DamageMeter { get }
    /// Its part of the frame path's costs: converting (or drawing) and presenting.
    var costs: FrameCosts { get }
    /// Makes (or resizes) what the surface's buffer size needs, after a configure.
    func resize(_ surface: any SinkSurface) throws(SinkError)
    /// False while drawing `picture` with `settings` would have to wait (shm: every buffer for
    /// it is still the compositor's).
    func canDraw(_ picture: Picture?, settings: OutputSettings?, on surface: any SinkSurface) -> Bool
    /// Fills the whole surface with one colour and commits: a single-pixel buffer where the
    /// surface takes one (`SinkSurface.attachSolid`: nothing drawn), else its own buffer.
    func present(colour: RGB, on surface: any SinkSurface) throws(SinkError)
    /// Draws `picture` with `settings` and commits; requests the frame callback and records
    /// `note` just before the commit. `shared`: other outputs of this size show the same clip
    /// (a sink may convert once for all of them). `fading`: blend `picture` over it.
    func present(_ picture: Picture, settings: OutputSettings, on surface: any SinkSurface, shared: Bool, fading: FadeLayer?,
                 note: CommitNote?) throws(SinkError)
}

/// What a commit shows, for the frame trace (`--trace-frames`): a value the sink records just
/// before its commit (the trace's presentation feedback must be asked for before the commit it
/// is for). nil where nothing is traced.
struct CommitNote {
    let trace: FrameTrace
    let output: UInt32
    let name: String
    let surface: WLSurface
    let frame: StampedFrame<FrameHandle>
    let video: String
    let weight: Double
    let at: Nanos

    func record() {
        trace.committing(output: output, name: name, surface: surface, frame: frame, video: video, weight: weight, at: at)
    }
}
