// The registry: binds the globals WayLoop speaks, by version range, and reports outputs as they
// come and go. Main thread only (all callbacks run inside wl_display_dispatch*).
import CWayland
import Glibc

protocol RegistryDelegate: AnyObject {
    func outputAdded(name: UInt32, proxy: OpaquePointer, version: UInt32)
    func globalRemoved(name: UInt32)
}

/// The globals bound from the registry. Required: wl_compositor, zwlr_layer_shell_v1.
final class Registry {
    let proxy: OpaquePointer
    weak var delegate: RegistryDelegate?
    private(set) var compositor: OpaquePointer?
    private(set) var layerShell: OpaquePointer?
    private(set) var layerShellVersion: UInt32 = 0
    private(set) var viewporter: OpaquePointer?
    private(set) var fractionalScale: OpaquePointer?
    /// zxdg_output_manager_v1: output names for wl_output before version 4.
    private(set) var xdgOutputManager: OpaquePointer?
    /// zwlr_foreign_toplevel_manager_v1: which outputs have a fullscreen window (always bound:
    /// the pause rules can change at run time, by a config reload or a hand-over).
    private(set) var toplevelManager: OpaquePointer?
    private(set) var presentation: OpaquePointer?
    /// wl_shm: the shm sink's buffers (bound by every client that may need it; cheap).
    private(set) var shm: OpaquePointer?
    /// The compositor advertises zwp_linux_dmabuf_v1 (not bound: the renderer choice asks).
    private(set) var hasDmabuf = false
    /// The clock wp_presentation timestamps are on (clock_id event); nil until it arrives.
    private(set) var presentationClock: UInt32?

    // The versions this client implements (bind min(advertised, implemented)).
    static let compositorVersion: UInt32 = 4
    static let layerShellVersion: UInt32 = 4
    static let outputVersion: UInt32 = {
        // WAYLOOP_WL_OUTPUT_VERSION lowers it, so tests can take the xdg-output path on sway.
        if let v = getenv("WAYLOOP_WL_OUTPUT_VERSION").flatMap({ UInt32(String(cString: $0)) }), (1...4).contains(v) {
            return v
        }
        return 4
    }()

    init?(display: OpaquePointer) {
        guard let p = wl_display_get_registry(display) else { return nil }
        proxy = p
        wl_registry_add_listener(p, registryListener, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        if let presentation { wp_presentation_destroy(presentation) }
        if let shm { wl_shm_destroy(shm) }
        if let fractionalScale { wp_fractional_scale_manager_v1_destroy(fractionalScale) }
        if let xdgOutputManager { zxdg_output_manager_v1_destroy(xdgOutputManager) }
        if let viewporter { wp_viewporter_destroy(viewporter) }
        if let layerShell {
            if layerShellVersion >= 3 { zwlr_layer_shell_v1_destroy(layerShell) } else { wl_proxy_destroy(layerShell) }
        }
        if let compositor { wl_compositor_destroy(compositor) }
        wl_registry_destroy(proxy)
    }

    private func bind(_ name: UInt32, _ iface: UnsafePointer<wl_interface>, _ version: UInt32) -> OpaquePointer? {
        wl_registry_bind(proxy, name, iface, version).map { OpaquePointer($0) }
    }

    fileprivate func global(name: UInt32, interface: String, version: UInt32) {
        switch interface {
        case "wl_compositor":
            compositor = bind(name, wlx_compositor_interface(), min(version, Self.compositorVersion))
        case "zwlr_layer_shell_v1":
            layerShellVersion = min(version, Self.layerShellVersion)
            layerShell = bind(name, wlx_layer_shell_interface(), layerShellVersion)
        case "wp_viewporter":
            viewporter = bind(name, wlx_viewporter_interface(), 1)
        case "zwlr_foreign_toplevel_manager_v1":
            toplevelManager = bind(name, wlx_foreign_toplevel_manager_interface(), min(version, 3))
        case "zxdg_output_manager_v1":
            xdgOutputManager = bind(name, wlx_xdg_output_manager_interface(), min(version, 3))
        case "wp_fractional_scale_manager_v1":
            fractionalScale = bind(name, wlx_fractional_scale_manager_interface(), 1)
        case "wp_presentation":
            presentation = bind(name, wlx_presentation_interface(), 1)
            if let presentation {
                wp_presentation_add_listener(presentation, presentationListener, Unmanaged.passUnretained(self).toOpaque())
            }
        case "wl_shm":
            shm = bind(name, wlx_shm_interface(), 1)
        case "zwp_linux_dmabuf_v1":
            hasDmabuf = true
        case "wl_output":
            let v = min(version, Self.outputVersion)
            if let p = bind(name, wlx_output_interface(), v) { delegate?.outputAdded(name: name, proxy: p, version: v) }
        default:
            break
        }
    }

    fileprivate func clock(_ id: UInt32) { presentationClock = id }

    fileprivate func globalRemove(name: UInt32) { delegate?.globalRemoved(name: name) }

    fileprivate static func from(_ data: UnsafeMutableRawPointer?) -> Registry {
        Unmanaged<Registry>.fromOpaque(data!).takeUnretainedValue()
    }
}

// MARK: Listener (trampolines only recover self and forward)

nonisolated(unsafe) private let registryListener: UnsafeMutablePointer<wl_registry_listener> = {
    let p = UnsafeMutablePointer<wl_registry_listener>.allocate(capacity: 1)
    p.initialize(to: wl_registry_listener(
        global: { data, _, name, interface, version in
            Registry.from(data).global(name: name, interface: String(cString: interface!), version: version)
        },
        global_remove: { data, _, name in Registry.from(data).globalRemove(name: name) }
    ))
    return p
}()

nonisolated(unsafe) private let presentationListener: UnsafeMutablePointer<wp_presentation_listener> = {
    let p = UnsafeMutablePointer<wp_presentation_listener>.allocate(capacity: 1)
    p.initialize(to: wp_presentation_listener(clock_id: { data, _, id in Registry.from(data).clock(id) }))
    return p
}()
