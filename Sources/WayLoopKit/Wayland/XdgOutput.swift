// xdg-output: an output's logical position and size (fractional scales), and before wl_output
// version 4 its connector name and description. Each zxdg_output_v1 forwards to its Output.
// Main thread only.
import CWayland

/// zxdg_output_manager_v1 (bound from the registry).
final class XdgOutputManager: WaylandObject {
    init(_ proxy: OpaquePointer) { super.init(proxy, destructor: { zxdg_output_manager_v1_destroy($0) }) }

    func xdgOutput(for output: Output) -> XdgOutput? {
        zxdg_output_manager_v1_get_xdg_output(proxy, output.proxy).map { XdgOutput($0, output: output) }
    }
}

/// zxdg_output_v1 of one output (which owns it and destroys it first).
final class XdgOutput: WaylandObject, ListenerTarget {
    fileprivate unowned let output: Output

    fileprivate init(_ proxy: OpaquePointer, output: Output) {
        self.output = output
        super.init(proxy, destructor: { zxdg_output_v1_destroy($0) })
        zxdg_output_v1_add_listener(proxy, xdgOutputListener, listenerData)
    }
}

// MARK: Listener

nonisolated(unsafe) private let xdgOutputListener = listenerTable(zxdg_output_v1_listener(
    logical_position: { data, _, x, y in XdgOutput.from(data).output.logical(x: x, y: y) },
    logical_size: { data, _, w, h in XdgOutput.from(data).output.logical(width: w, height: h) },
    done: { data, _ in XdgOutput.from(data).output.xdgDone() },
    name: { data, _, name in XdgOutput.from(data).output.name(eventString(name)) },
    description: { data, _, d in XdgOutput.from(data).output.describe(eventString(d)) }
))
