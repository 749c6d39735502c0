// DankMaterialShell plugin, "daemon" surface: one WayLoop service for the shell (the bar widgets
// of every screen share it, through pluginService.pluginDaemonInstances) and the IPC target
// `wayloop`:  dms ipc call wayloop set DP-1 ocean   (or qs -c dms ipc call …)
import QtQuick
import qs.Modules.Plugins
import "module" as WL

PluginComponent {
    id: root

    readonly property alias service: wayloop

    WL.WayLoop {
        id: wayloop
        command: root.pluginData?.command || "wayloop"
        paths: String(root.pluginData?.paths ?? "").split(":").filter(p => p !== "")
        workshop: root.pluginData?.workshop ?? true
    }

    WL.WayLoopIpc {
        service: wayloop
        target: "wayloop"
    }
}
