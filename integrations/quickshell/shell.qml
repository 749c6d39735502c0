// WayLoop's picker on its own: `qs -p integrations/quickshell` (or `qs -p …/shell.qml`).
// A panel on the top layer in the middle of the screen; Escape or the close button ends it.
//
// Environment (all optional):
//   WAYLOOP_COMMAND          the wayloop program (default: wayloop on PATH)
//   WAYLOOP_PICKER_PATHS     what to list instead of the wayloop data directories, ':'-separated
//   WAYLOOP_PICKER_NAME      a named instance (wayloop --name NAME)
//   WAYLOOP_PICKER_SIZE      the panel's size, WxH (default 880x600)
import QtQuick
import Quickshell
import Quickshell.Wayland

ShellRoot {
    id: shell

    readonly property var size: {
        const m = /^(\d+)x(\d+)$/.exec(Quickshell.env("WAYLOOP_PICKER_SIZE") || "");
        return m ? [parseInt(m[1]), parseInt(m[2])] : [880, 600];
    }

    WayLoop {
        id: wayloop
        command: Quickshell.env("WAYLOOP_COMMAND") || "wayloop"
        paths: (Quickshell.env("WAYLOOP_PICKER_PATHS") || "").split(":").filter(p => p !== "")
        instance: Quickshell.env("WAYLOOP_PICKER_NAME") || ""
    }

    WayLoopIpc {
        service: wayloop
    }

    PanelWindow {
        id: window
        // no anchors: the compositor centres it
        implicitWidth: shell.size[0]
        implicitHeight: shell.size[1]
        color: "transparent"
        exclusionMode: ExclusionMode.Ignore
        WlrLayershell.namespace: "wayloop-picker"
        WlrLayershell.layer: WlrLayer.Top
        WlrLayershell.keyboardFocus: WlrKeyboardFocus.OnDemand

        WayLoopPanel {
            id: panel
            anchors.fill: parent
            service: wayloop
            focus: true
            closable: true
            onCloseRequested: Qt.quit()
            Keys.onEscapePressed: Qt.quit()
        }
    }
}
