// The registry: binds the globals WayLoop speaks, by version range, and reports outputs as they
// come and go. Main thread only (all callbacks run inside wl_display_dispatch*).
import CWayland
import Glibc

protocol RegistryDelegate: AnyObject {
    /// A wl_output was bound (its events arrive from the next dispatch on).
    func outputAdded(_ output: Output)
    func globalRemoved(name: UInt32)
}

/// wl_registry and the globals bound from it. Required: wl_compositor, zwlr_layer_shell_v1.
final class Registry: WaylandObject, ListenerTarget {
    weak var delegate: RegistryDelegate?
    private(set) var compositor: WLCompositor?
    private(set) var layerShell: LayerShell?
    var layerShellVersion: UInt32 { layerShell?.version ?? 0 }
    private(set) var viewporter: Viewporter?
    private(set) var fractionalScale: FractionalScaleManager?
    /// zxdg_output_manager_v1: output names for wl_output before version 4.
    private(set) var xdgOutputManager: XdgOutputManager?
    /// zwlr_foreign_toplevel_manager_v1: which outputs have a fullscreen window (always bound:
    /// the pause rules can change at run time, by a config reload or a hand-over). It listens
    /// from the bind on, so that the windows that exist at start-up (announced in the next
    /// roundtrip) are known; `takeToplevels()` hands it to its owner.
    private var toplevels: Toplevels?
    /// ext_workspace_manager_v1: which workspace each output shows (bound, like the toplevels,
    /// from the start, so that the first roundtrip announces them); `takeWorkspaces()`.
    private var workspaces: Workspaces?
    private(set) var presentation: Presentation?
    /// wp_content_type_manager_v1: every surface says it shows video (a hint; optional).
    private(set) var contentType: ContentTypeManager?
    /// wp_single_pixel_buffer_manager_v1: a solid colour as a 1x1 buffer (with wp_viewporter).
    private(set) var singlePixel: SinglePixelBufferManager?
    /// wl_shm: the shm sink's buffers (bound by every client that may need it; cheap).
    private(set) var shm: WLShm?
    /// The compositor advertises zwp_linux_dmabuf_v1 (not bound: the renderer choice asks).
    private(set) var hasDmabuf = false
    /// The clock wp_presentation timestamps are on (clock_id event); nil until it arrives.
    var presentationClock: UInt32? { presentation?.clock }

    // The versions this client implements (bind min(advertised, implemented)).
    static let compositorVersion: UInt32 = 4
    static let layerShellVersion: UInt32 = 4
    /// Version 2 changes no message, only what `presented`'s refresh may be on a variable
    /// refresh rate (WayLoop does not read it).
    static let presentationVersion: UInt32 = 2
    static let outputVersion: UInt32 = {
        // WAYLOOP_WL_OUTPUT_VERSION lowers it, so tests can take the xdg-output path on sway.
        if let v = getenv("WAYLOOP_WL_OUTPUT_VERSION").flatMap({ UInt32(String(cString: $0)) }), (1...4).contains(v) {
            return v
        }
        return 4
    }()

    init?(display: WLDisplay) {
        guard let p = wl_display_get_registry(display.proxy) else { return nil }
        super.init(p, destructor: { wl_registry_destroy($0) })
        wl_registry_add_listener(p, registryListener, listenerData)
    }

    /// The globals before the registry (outputs and the toplevel manager belong to their owners).
    deinit {
        singlePixel?.destroy()
        contentType?.destroy()
        presentation?.destroy()
        shm?.destroy()
        fractionalScale?.destroy()
        xdgOutputManager?.destroy()
        viewporter?.destroy()
        layerShell?.destroy()
        compositor?.destroy()
    }

    /// The workspace manager, handed over once to the object that listens to it.
    func takeWorkspaces() -> Workspaces? {
        defer { workspaces = nil }
        return workspaces
    }

    /// The toplevel manager, handed over once to the object that listens to it and destroys it.
    func takeToplevels() -> Toplevels? {
        defer { toplevels = nil }
        return toplevels
    }

    private func bind(_ name: UInt32, _ iface: UnsafePointer<wl_interface>, _ version: UInt32) -> OpaquePointer? {
        wl_registry_bind(proxy, name, iface, version).map { OpaquePointer($0) }
    }

    fileprivate func global(name: UInt32, interface: String, version: UInt32) {
        switch interface {
        case "wl_compositor":
            compositor = bind(name, wlx_compositor_interface(), min(version, Self.compositorVersion)).map(WLCompositor.init)
        case "zwlr_layer_shell_v1":
            let v = min(version, Self.layerShellVersion)
            layerShell = bind(name, wlx_layer_shell_interface(), v).map { LayerShell($0, version: v) }
        case "wp_viewporter":
            viewporter = bind(name, wlx_viewporter_interface(), 1).map(Viewporter.init)
        case "ext_workspace_manager_v1":
            workspaces = bind(name, wlx_workspace_manager_interface(), 1).map(Workspaces.init(manager:))
        case "zwlr_foreign_toplevel_manager_v1":
            toplevels = bind(name, wlx_foreign_toplevel_manager_interface(), min(version, 3)).map(Toplevels.init(manager:))
        case "zxdg_output_manager_v1":
            xdgOutputManager = bind(name, wlx_xdg_output_manager_interface(), min(version, 3)).map(XdgOutputManager.init)
        case "wp_fractional_scale_manager_v1":
            fractionalScale = bind(name, wlx_fractional_scale_manager_interface(), 1).map(FractionalScaleManager.init)
        case "wp_presentation":
            presentation = bind(name, wlx_presentation_interface(), min(version, Self.presentationVersion)).map(Presentation.init)
        case "wp_content_type_manager_v1":
            contentType = bind(name, wlx_content_type_manager_interface(), 1).map(ContentTypeManager.init)
        case "wp_single_pixel_buffer_manager_v1":
            singlePixel = bind(name, wlx_single_pixel_buffer_manager_interface(), 1).map(SinglePixelBufferManager.init)
        case "wl_shm":
            shm = bind(name, wlx_shm_interface(), 1).map(WLShm.init)
        case "zwp_linux_dmabuf_v1":
            hasDmabuf = true
        case "wl_output":
            let v = min(version, Self.outputVersion)
            if let p = bind(name, wlx_output_interface(), v) { delegate?.outputAdded(Output(globalName: name, proxy: p, version: v)) }
        default:
            break
        }
    }

    fileprivate func globalRemove(name: UInt32) { delegate?.globalRemoved(name: name) }
}

// MARK: Listener (trampolines only recover self and forward)

nonisolated(unsafe) private let registryListener = listenerTable(wl_registry_listener(
    global: { data, _, name, interface, version in
        Registry.from(data).global(name: name, interface: String(cString: interface!), version: version)
    },
    global_remove: { data, _, name in Registry.from(data).globalRemove(name: name) }
))
