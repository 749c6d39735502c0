// noctalia bar widget (manifest "barWidget"): an icon that opens the picker; a right click
// pauses or resumes every output. Its tooltip says what plays now.
import QtQuick
import Quickshell
import qs.Commons
import qs.Widgets

Rectangle {
  id: root

  // injected by the bar
  property var pluginApi: null
  property ShellScreen screen
  property string widgetId: ""
  property string section: ""

  readonly property var service: pluginApi?.mainInstance?.service ?? null
  readonly property bool failing: service !== null && service.error !== ""

  implicitWidth: Style.capsuleHeight
  implicitHeight: Style.capsuleHeight
  radius: Style.radiusL
  color: mouse.containsMouse ? Color.mHover : Style.capsuleColor

  NIcon {
    anchors.centerIn: parent
    icon: root.service && root.service.paused ? "player-pause" : "movie"
    applyUiScale: false
    color: root.failing ? Color.mError : (mouse.containsMouse ? Color.mOnHover : Color.mOnSurface)
  }

  MouseArea {
    id: mouse
    anchors.fill: parent
    hoverEnabled: true
    acceptedButtons: Qt.LeftButton | Qt.RightButton
    cursorShape: Qt.PointingHandCursor
    onClicked: mouse => {
      if (!root.pluginApi)
        return;
      if (mouse.button === Qt.RightButton && root.service)
        root.service.toggle("");
      else
        root.pluginApi.togglePanel(root.screen, root);
    }
  }
}
