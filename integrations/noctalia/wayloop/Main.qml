// noctalia plugin entry point (manifest "main"): one WayLoop service for the shell, which the
// panel and the bar widget reach as pluginApi.mainInstance.service, and the IPC target
// `plugin:wayloop` (noctalia's plugins name theirs plugin:ID):
//   qs -c noctalia-shell ipc call plugin:wayloop set DP-1 ocean
import QtQuick
import Quickshell.Io
import "module" as WL

Item {
  id: root

  // injected by noctalia's PluginService
  property var pluginApi: null

  readonly property var settings: pluginApi?.pluginSettings ?? ({})
  readonly property var defaults: pluginApi?.manifest?.metadata?.defaultSettings ?? ({})
  readonly property alias service: wayloop

  WL.WayLoop {
    id: wayloop
    command: root.settings.command || root.defaults.command || "wayloop"
    paths: String(root.settings.paths ?? root.defaults.paths ?? "").split(":").filter(p => p !== "")
    workshop: root.settings.workshop ?? root.defaults.workshop ?? true
  }

  WL.WayLoopIpc {
    service: wayloop
    target: "plugin:wayloop"
  }

  // the panel from a script: qs -c noctalia-shell ipc call plugin:wayloop-panel toggle
  IpcHandler {
    target: "plugin:wayloop-panel"
    function toggle(): void {
      if (root.pluginApi)
        root.pluginApi.withCurrentScreen(screen => root.pluginApi.togglePanel(screen));
    }
  }
}
