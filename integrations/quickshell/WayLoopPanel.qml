// The picker a shell's wallpaper panel embeds: a grid of live previews from `wayloop list
// --json --previews` (the GIF when there is one, else the PNG still, else a placeholder that
// says why), which outputs to set (one, or all), pause and resume, what plays now and the error
// of a wallpaper that failed. Plain QtQuick (no Controls, no Layouts), sized by its host.
//
//   WayLoop { id: wayloop }
//   WayLoopPanel { anchors.fill: parent; service: wayloop }
import QtQuick

Rectangle {
    id: panel

    /// The WayLoop object whose state this shows and through which it asks (required).
    property var service: null
    /// Where a choice goes: "*" (every output) or an output's name.
    property string target: "*"

    // Colours, for a host to match its theme.
    property color background: "#16161c"
    property color surface: "#24242e"
    property color surfaceHover: "#30303c"
    property color textColor: "#d4d4dc"
    property color dimText: "#8a8a99"
    property color accent: "#5b6ee1"
    property color errorColor: "#b00020"
    property color textOnError: "#ffffff"
    property color warnText: "#e0a040"
    property int cellWidth: 208
    property int cellHeight: 152
    property int fontSize: 13
    /// Show a Close button (for a panel on its own); it emits closeRequested.
    property bool closable: false
    signal closeRequested()

    readonly property var items: service ? service.items : []
    readonly property var outputs: service ? service.outputs : []
    readonly property string error: service ? service.error : ""

    color: background
    radius: 10
    clip: true

    function titleOf(video) {
        const it = service ? service.itemFor(video) : null;
        if (it)
            return it.title || it.name;
        const i = video.lastIndexOf("/");
        return i >= 0 ? video.slice(i + 1) : video;
    }
    function playsNow(item) {
        return outputs.some(o => o.video === item.path && (o.state === "playing" || o.state === "paused" || o.state === "loading"));
    }

    // ---- header: title, what plays now, pause/resume, refresh ---------------------------
    Item {
        id: header
        anchors { left: parent.left; right: parent.right; top: parent.top; margins: 12 }
        height: 64

        Text {
            id: title
            anchors { left: parent.left; top: parent.top }
            text: "WayLoop"
            color: panel.textColor
            font.pixelSize: panel.fontSize + 5
            font.bold: true
        }
        Text {
            id: nowPlaying
            objectName: "nowPlaying"
            anchors { left: parent.left; right: buttons.left; top: title.bottom; topMargin: 4; rightMargin: 8 }
            color: panel.dimText
            font.pixelSize: panel.fontSize
            elide: Text.ElideRight
            maximumLineCount: 2
            wrapMode: Text.Wrap
            text: {
                if (!panel.service)
                    return "";
                if (!panel.service.daemonRunning)
                    return panel.service.daemonMessage !== "" ? panel.service.daemonMessage : "wayloop is not running";
                if (panel.outputs.length === 0)
                    return "no output";
                return panel.outputs.map(o => o.name + ": " + o.state + (o.video ? " · " + panel.titleOf(o.video) : "")).join("   ");
            }
        }
        Row {
            id: buttons
            anchors { right: parent.right; top: parent.top }
            spacing: 6
            PanelButton {
                label: panel.service && panel.service.paused ? "Resume" : "Pause"
                enabled: panel.service !== null && panel.service.daemonRunning
                onClicked: panel.service.paused ? panel.service.resume() : panel.service.pause()
            }
            PanelButton {
                label: panel.service && panel.service.listing ? "Listing…" : "Refresh"
                enabled: panel.service !== null && !panel.service.listing
                onClicked: panel.service.refresh()
            }
            PanelButton {
                label: "Close"
                visible: panel.closable
                onClicked: panel.closeRequested()
            }
        }
    }

    // ---- where a choice goes -------------------------------------------------------------
    Row {
        id: targets
        anchors { left: parent.left; right: parent.right; top: header.bottom; margins: 12; topMargin: 4 }
        spacing: 6
        Text {
            anchors.verticalCenter: parent.verticalCenter
            text: "Set on"
            color: panel.dimText
            font.pixelSize: panel.fontSize
        }
        PanelButton {
            label: "All outputs"
            selected: panel.target === "*"
            onClicked: panel.target = "*"
        }
        Repeater {
            model: panel.outputs
            PanelButton {
                required property var modelData
                label: modelData.name
                selected: panel.target === modelData.name
                onClicked: panel.target = modelData.name
            }
        }
    }

    // ---- the error of a wallpaper that failed --------------------------------------------
    Rectangle {
        id: errorBar
        objectName: "errorBar"
        anchors { left: parent.left; right: parent.right; top: targets.bottom; margins: 12; topMargin: 8 }
        height: visible ? Math.max(36, errorText.implicitHeight + 12) : 0
        visible: panel.error !== ""
        color: panel.errorColor
        radius: 6
        Text {
            id: errorText
            anchors { left: parent.left; right: dismiss.left; verticalCenter: parent.verticalCenter; leftMargin: 10; rightMargin: 6 }
            text: panel.error
            color: panel.textOnError
            font.pixelSize: panel.fontSize
            wrapMode: Text.Wrap
            maximumLineCount: 3
            elide: Text.ElideRight
        }
        Text {
            id: dismiss
            anchors { right: parent.right; verticalCenter: parent.verticalCenter; rightMargin: 10 }
            text: "×"
            color: panel.textOnError
            font.pixelSize: panel.fontSize + 4
            MouseArea {
                anchors.fill: parent
                anchors.margins: -6
                onClicked: panel.service.clearError()
            }
        }
    }

    // ---- the videos ----------------------------------------------------------------------
    GridView {
        id: grid
        objectName: "grid"
        anchors { left: parent.left; right: parent.right; top: errorBar.visible ? errorBar.bottom : targets.bottom; bottom: footer.top; margins: 12 }
        clip: true
        cellWidth: panel.cellWidth
        cellHeight: panel.cellHeight
        model: panel.items
        boundsBehavior: Flickable.StopAtBounds

        delegate: Rectangle {
            id: tile
            required property var modelData
            required property int index
            readonly property bool current: panel.playsNow(modelData)
            width: grid.cellWidth - 8
            height: grid.cellHeight - 8
            radius: 6
            color: hover.containsMouse ? panel.surfaceHover : panel.surface
            border.width: current ? 2 : 0
            border.color: panel.accent

            Item {
                id: picture
                anchors { left: parent.left; right: parent.right; top: parent.top; margins: 4 }
                height: width * 9 / 16

                AnimatedImage {
                    id: preview
                    anchors.fill: parent
                    source: panel.service ? panel.service.fileUrl(tile.modelData.preview) : ""
                    fillMode: Image.PreserveAspectFit
                    cache: false
                    asynchronous: true
                    playing: visible
                    visible: status === Image.Ready
                }
                Image {
                    id: still
                    anchors.fill: parent
                    source: !preview.visible && panel.service ? panel.service.fileUrl(tile.modelData.thumbnail) : ""
                    fillMode: Image.PreserveAspectFit
                    asynchronous: true
                    cache: false
                    visible: !preview.visible && status === Image.Ready
                }
                Rectangle {
                    anchors.fill: parent
                    visible: !preview.visible && !still.visible
                    color: panel.background
                    radius: 4
                    Text {
                        anchors.fill: parent
                        anchors.margins: 6
                        horizontalAlignment: Text.AlignHCenter
                        verticalAlignment: Text.AlignVCenter
                        wrapMode: Text.Wrap
                        elide: Text.ElideRight
                        font.pixelSize: panel.fontSize - 2
                        color: tile.modelData.playable ? panel.dimText : panel.warnText
                        text: tile.modelData.playable ? (panel.service && panel.service.makingPreviews ? "making a preview…" : "no preview")
                                                      : "cannot play: " + (tile.modelData.reason || "unknown reason")
                    }
                }
            }
            Text {
                anchors { left: parent.left; right: parent.right; top: picture.bottom; margins: 6; topMargin: 4 }
                text: tile.modelData.title || tile.modelData.name
                color: tile.modelData.playable ? panel.textColor : panel.dimText
                font.pixelSize: panel.fontSize
                elide: Text.ElideRight
            }
            MouseArea {
                id: hover
                anchors.fill: parent
                hoverEnabled: true
                cursorShape: Qt.PointingHandCursor
                onClicked: panel.service.set(panel.target, tile.modelData.name)
            }
        }
    }

    // ---- what the list says --------------------------------------------------------------
    Text {
        id: footer
        anchors { left: parent.left; right: parent.right; bottom: parent.bottom; margins: 12 }
        color: panel.dimText
        font.pixelSize: panel.fontSize - 1
        elide: Text.ElideRight
        text: {
            if (!panel.service)
                return "";
            if (panel.service.listFailure !== "")
                return "wayloop list: " + panel.service.listFailure;
            const n = panel.items.length;
            let s = panel.service.listing && n === 0 ? "listing…" : n + (n === 1 ? " video" : " videos");
            if (panel.service.makingPreviews)
                s += " · making previews…";
            for (const e of panel.service.listErrors)
                s += " · " + e.path + ": " + e.error;
            return s;
        }
    }
}
