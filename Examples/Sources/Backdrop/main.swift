// A host's own 320x180 layer surface on the *top* layer, centred, with a looping video drawn into
// it by a VideoView (an event queue of its own, one fd to poll). `Backdrop VIDEO [auto|gl|shm]`;
// each line on stdin is an action: pause, resume, switch=VIDEO, size=WxH, kept (the videos kept
// for a switch back). It runs until SIGTERM.
import CWayland
import Foundation
import WayLoopKit

final class Host { var compositor, layerShell: OpaquePointer?; var size: (width: Int, height: Int)?; var closed = false }
let host = Host()
let hostData = Unmanaged.passUnretained(host).toOpaque()
nonisolated(unsafe) var registryListener = wl_registry_listener(
    global: { data, registry, name, interface, _ in
        let host = Unmanaged<Host>.fromOpaque(data!).takeUnretainedValue()
        switch String(cString: interface!) {
        case "wl_compositor": host.compositor = OpaquePointer(wl_registry_bind(registry, name, wlx_compositor_interface(), 4))
        case "zwlr_layer_shell_v1": host.layerShell = OpaquePointer(wl_registry_bind(registry, name, wlx_layer_shell_interface(), 1))
        default: break
        }
    },
    global_remove: { _, _, _ in })
nonisolated(unsafe) var layerListener = zwlr_layer_surface_v1_listener(
    configure: { data, layer, serial, width, height in
        zwlr_layer_surface_v1_ack_configure(layer, serial)
        Unmanaged<Host>.fromOpaque(data!).takeUnretainedValue().size = (Int(width), Int(height))
    },
    closed: { data, _ in Unmanaged<Host>.fromOpaque(data!).takeUnretainedValue().closed = true })
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
nonisolated(unsafe) var stopRequested: sig_atomic_t = 0
signal(SIGTERM) { _ in stopRequested = 1 }
let arguments = Array(CommandLine.arguments.dropFirst())
guard let display = wl_display_connect(nil) else { fatalError("no Wayland compositor (WAYLAND_DISPLAY)") }
wl_registry_add_listener(wl_display_get_registry(display), &registryListener, hostData)
wl_display_roundtrip(display)
guard let compositor = host.compositor, let shell = host.layerShell else { fatalError("no wlr-layer-shell") }
let surface = wl_compositor_create_surface(compositor)!
let layer = zwlr_layer_shell_v1_get_layer_surface(shell, surface, nil, ZWLR_LAYER_SHELL_V1_LAYER_TOP.rawValue, "backdrop")!
zwlr_layer_surface_v1_add_listener(layer, &layerListener, hostData)
zwlr_layer_surface_v1_set_size(layer, 320, 180)
wl_surface_commit(surface)
while host.size == nil && wl_display_dispatch(display) >= 0 {}
var shown = host.size!
let view: VideoView
do {
    view = try VideoView(display: display, surface: surface, width: shown.width, height: shown.height,
                         video: arguments.first ?? "default-loop",
                         renderer: arguments.count > 1 ? RendererRequest(rawValue: arguments[1]) ?? .auto : .auto)
} catch {
    FileHandle.standardError.write(Data("Backdrop: error: \(error)\n".utf8))
    exit(1)
}
view.onStateChange = { say("state \($0.state)") }
@MainActor func act(_ what: String) {
    say("\(what) at frames \(view.framesShown)")
    switch what {
    case "pause": view.pause()
    case "resume": view.resume()
    case "kept": say("kept \(view.recentVideos)")
    case let w where w.hasPrefix("switch="): do { try view.switchTo(video: String(w.dropFirst(7))) } catch { say("\(error)") }
    case let w where w.hasPrefix("size="):
        let wh = w.dropFirst(5).split(separator: "x").compactMap { UInt32($0) }
        if wh.count == 2 { zwlr_layer_surface_v1_set_size(layer, wh[0], wh[1]); wl_surface_commit(surface) }
    default: say("unknown action \(what)")
    }
}
var input: Int32 = 0, buffered = [UInt8]()
// The host's loop: its own connection and the view's fd in one poll.
while !host.closed && stopRequested == 0 {
    while wl_display_prepare_read(display) != 0 { wl_display_dispatch_pending(display) }
    wl_display_flush(display)
    var fds = [pollfd(fd: wl_display_get_fd(display), events: Int16(POLLIN), revents: 0),
               pollfd(fd: view.fileDescriptor, events: Int16(POLLIN), revents: 0),
               pollfd(fd: input, events: Int16(POLLIN), revents: 0)]
    _ = poll(&fds, 3, 50)
    if fds[0].revents & Int16(POLLIN) != 0 { wl_display_read_events(display) } else { wl_display_cancel_read(display) }
    if wl_display_dispatch_pending(display) < 0 { break }
    if let s = host.size, s != shown { shown = s; view.resize(width: s.width, height: s.height) }
    view.dispatch()
    if fds[2].revents != 0 {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let n = read(input, &chunk, chunk.count)
        if n <= 0 { input = -1 } else { buffered += chunk[..<n] }
        while let nl = buffered.firstIndex(of: 10) {
            act(String(decoding: buffered[..<nl], as: UTF8.self))
            buffered.removeFirst(nl + 1)
        }
    }
}
say("frames \(view.framesShown) \(view.rendererLine)")
