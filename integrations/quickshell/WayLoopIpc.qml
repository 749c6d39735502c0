// `qs ipc call wayloop …`: a script drives the picker as a click would, and reads what the panel
// shows. One per shell: IPC targets are unique (a host with several panels makes one of these).
//
//   qs ipc call wayloop set HEADLESS-1 ocean     # or '*' for every output
//   qs ipc call wayloop pause                    # resume, toggle
//   qs ipc call wayloop getError                 # the error line the panel shows ("" when none)
//   qs ipc call wayloop getCurrent               # what plays now: OUTPUT: STATE[ (REASON)] VIDEO
//   qs ipc call wayloop getItems                 # what the grid shows, as JSON
//   qs ipc call wayloop getBusy                  # "busy" while a list or a request runs, else "idle"
import QtQuick
import Quickshell.Io

Item {
    id: root
    visible: false
    /// The WayLoop object to drive (required).
    property var service: null
    /// The IPC target (`qs ipc call TARGET …`).
    property string target: "wayloop"

    IpcHandler {
        target: root.target

        function set(output: string, name: string): void {
            root.service.set(output, name);
        }
        function pause(): void {
            root.service.pause("");
        }
        function resume(): void {
            root.service.resume("");
        }
        function toggle(): void {
            root.service.toggle("");
        }
        function refresh(): void {
            root.service.refresh();
        }
        function clearError(): void {
            root.service.clearError();
        }
        function getError(): string {
            return root.service.error;
        }
        function getCurrent(): string {
            return root.service.currentText();
        }
        /// The listed items as the grid shows them: name, title, playable, reason, preview, thumbnail.
        function getItems(): string {
            return JSON.stringify(root.service.items.map(i => ({
                name: i.name,
                title: i.title,
                playable: i.playable,
                reason: i.reason,
                preview: i.preview,
                thumbnail: i.thumbnail
            })));
        }
        function getBusy(): string {
            return root.service.listing || root.service.busy ? "busy" : "idle";
        }
    }
}
