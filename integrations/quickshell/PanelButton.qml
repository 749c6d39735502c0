// A small text button for WayLoopPanel (plain QtQuick: no Controls module needed).
import QtQuick

Rectangle {
    id: button
    property string label: ""
    property bool selected: false
    signal clicked()

    readonly property var panel: {
        // the nearest WayLoopPanel's colours, else defaults
        let p = parent;
        while (p && p.accent === undefined)
            p = p.parent;
        return p;
    }

    implicitWidth: text.implicitWidth + 20
    implicitHeight: 28
    radius: 6
    opacity: enabled ? 1 : 0.5
    color: selected ? (panel ? panel.accent : "#5b6ee1") : area.containsMouse ? (panel ? panel.surfaceHover : "#30303c") : (panel ? panel.surface : "#24242e")

    Text {
        id: text
        anchors.centerIn: parent
        text: button.label
        color: button.panel ? button.panel.textColor : "#d4d4dc"
        font.pixelSize: button.panel ? button.panel.fontSize : 13
    }
    MouseArea {
        id: area
        anchors.fill: parent
        hoverEnabled: true
        enabled: button.enabled
        cursorShape: Qt.PointingHandCursor
        onClicked: button.clicked()
    }
}
