// One wl_output: its description, double-buffered (events fill `pending`, `done` commits it and
// reports what changed, after SCTK's output.rs). Main thread only.
import CWayland
import WayLoopCore

struct OutputInfo: Equatable {
    /// Connector name (wl_output v4 `name`, e.g. "DP-1"); empty before v4.
    var name = ""
    /// "Make Model Serial"-like text (wl_output v4 `description`, else make + model).
    var description = ""
    var make = ""
    var model = ""
    /// Integer scale (wl_output.scale).
    var scale: Int32 = 1
    /// Current mode in physical pixels and mHz.
    var modeSize = Size(width: 0, height: 0)
    var refresh: Int32 = 0
    var transform: Int32 = 0
    /// Where the output sits in the compositor's layout (wl_output.geometry x, y), and its
    /// logical rectangle from xdg-output when the compositor sends one (fractional scales).
    struct Point: Equatable {
        var x = 0, y = 0
    }
    var position = Point()
    var logicalPosition: Point?
    var logicalSize: Size?
    /// The output's rectangle in layout coordinates (`-m span` builds its canvas from these).
    var logicalRect: Rect {
        let p = logicalPosition ?? position
        let size = logicalSize ?? Size(width: physicalSize.width / Int(max(1, scale)), height: physicalSize.height / Int(max(1, scale)))
        return Rect(x: Double(p.x), y: Double(p.y), width: Double(size.width), height: Double(size.height))
    }
    /// The mode as the output shows it: turned a quarter (transform 90/270, flipped or not) swaps it.
    var physicalSize: Size { transform % 2 == 1 ? Size(width: modeSize.height, height: modeSize.width) : modeSize }
    /// Its own scale in 120ths (mode over logical size), where xdg-output gives the logical size.
    var scale120: Int? { FractionalScaleChoice.outputScale120(physical: physicalSize, logical: logicalSize) }
}

protocol OutputDelegate: AnyObject {
    func outputDone(_ output: Output, changed: Bool, first: Bool)
}

/// wl_output, bound by the registry at `version`, and its xdg-output when there is a manager.
final class Output: WaylandObject, ListenerTarget {
    /// The registry name: the key under which the app keeps this output.
    let globalName: UInt32
    let version: UInt32
    weak var delegate: OutputDelegate?
    private(set) var info = OutputInfo()
    private var pending = OutputInfo()
    private(set) var isDone = false
    /// xdg-output: the logical position and size (and, before wl_output v4, the name and description).
    private var xdgOutput: XdgOutput?

    /// The user-facing name: the connector, or the registry name before wl_output v4.
    var displayName: String { info.name.isEmpty ? "output-\(globalName)" : info.name }

    init(globalName: UInt32, proxy: OpaquePointer, version: UInt32) {
        self.globalName = globalName
        self.version = version
        // `release` is a request from version 3 on; before it the proxy just goes.
        super.init(proxy, destructor: version >= 3 ? { wl_output_release($0) } : { wl_output_destroy($0) })
        wl_output_add_listener(proxy, outputListener, listenerData)
        // Before v2 there is no `done`: the first roundtrip's events are all there is.
    }

    /// The xdg-output first (a child of the wl_output), then the output itself.
    deinit { xdgOutput?.destroy() }

    /// xdg-output's logical geometry (and, before wl_output v4, the connector name: v2+).
    func attachXdgOutput(manager: XdgOutputManager) {
        guard xdgOutput == nil else { return }
        xdgOutput = manager.xdgOutput(for: self)
    }

    /// For wl_output < v2, which never sends `done`: commit what arrived.
    func commitWithoutDone() { if version < 2 { commit() } }

    fileprivate func commit() {
        if pending.description.isEmpty { pending.description = "\(pending.make) \(pending.model)" }
        let changed = pending != info
        info = pending
        let first = !isDone
        isDone = true
        delegate?.outputDone(self, changed: changed, first: first)
    }

    fileprivate func geometry(x: Int32, y: Int32, make: String, model: String, transform: Int32) {
        pending.position = OutputInfo.Point(x: Int(x), y: Int(y))
        pending.make = make
        pending.model = model
        pending.transform = transform
    }

    fileprivate func mode(flags: UInt32, width: Int32, height: Int32, refresh: Int32) {
        guard flags & WL_OUTPUT_MODE_CURRENT.rawValue != 0 else { return }
        pending.modeSize = Size(width: Int(width), height: Int(height))
        pending.refresh = refresh
    }

    fileprivate func scale(_ factor: Int32) { pending.scale = max(1, factor) }

    // wl_output's and, through XdgOutput, xdg-output's events.
    func logical(x: Int32, y: Int32) { pending.logicalPosition = OutputInfo.Point(x: Int(x), y: Int(y)) }
    func logical(width: Int32, height: Int32) { pending.logicalSize = Size(width: Int(width), height: Int(height)) }
    /// xdg_output.done (versions 1 and 2 send it after their events; 3 leaves it to wl_output.done).
    func xdgDone() { if isDone { commit() } }
    func name(_ n: String) { pending.name = n }
    func describe(_ d: String) { pending.description = d }
}

// MARK: Listener

nonisolated(unsafe) private let outputListener = listenerTable(wl_output_listener(
    geometry: { data, _, x, y, _, _, _, make, model, transform in
        Output.from(data).geometry(x: x, y: y, make: eventString(make), model: eventString(model), transform: transform)
    },
    mode: { data, _, flags, w, h, refresh in Output.from(data).mode(flags: flags, width: w, height: h, refresh: refresh) },
    done: { data, _ in Output.from(data).commit() },
    scale: { data, _, factor in Output.from(data).scale(factor) },
    name: { data, _, name in Output.from(data).name(eventString(name)) },
    description: { data, _, d in Output.from(data).describe(eventString(d)) }
))
