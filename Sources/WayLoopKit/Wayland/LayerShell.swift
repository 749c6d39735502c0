// wlr-layer-shell's global: zwlr_layer_shell_v1 gives a wl_surface a layer of an output
// (the layer surface itself is LayerSurface). Main thread only.
import CWayland
import WayLoopCore

/// zwlr_layer_shell_v1, bound at `version`.
final class LayerShell: WaylandObject {
    let version: UInt32

    init(_ proxy: OpaquePointer, version: UInt32) {
        self.version = version
        // `destroy` is a request from version 3 on; before it the proxy just goes.
        super.init(proxy, destructor: version >= 3 ? { zwlr_layer_shell_v1_destroy($0) } : { wl_proxy_destroy($0) })
    }

    /// A zwlr_layer_surface_v1 for `surface` on `output` (LayerSurface owns it).
    func getLayerSurface(_ surface: WLSurface, output: Output, layer: Layer, namespace: String) -> OpaquePointer? {
        zwlr_layer_shell_v1_get_layer_surface(proxy, surface.proxy, output.proxy, Self.wire(layer), namespace)
    }

    static func wire(_ layer: Layer) -> UInt32 {
        switch layer {
        case .background: return ZWLR_LAYER_SHELL_V1_LAYER_BACKGROUND.rawValue
        case .bottom: return ZWLR_LAYER_SHELL_V1_LAYER_BOTTOM.rawValue
        case .top: return ZWLR_LAYER_SHELL_V1_LAYER_TOP.rawValue
        case .overlay: return ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY.rawValue
        }
    }
}
