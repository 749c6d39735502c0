// noctalia plugin panel (manifest "panel"), shown in a SmartPanel by PluginPanelSlot: WayLoop's
// picker in noctalia's colours, on the Main instance's service.
import QtQuick
import qs.Commons
import "module" as WL

Item {
  id: root

  // injected by PluginPanelSlot
  property var pluginApi: null

  // SmartPanel reads these
  readonly property var geometryPlaceholder: picker
  property real contentPreferredWidth: 880 * Style.uiScaleRatio
  property real contentPreferredHeight: 600 * Style.uiScaleRatio
  readonly property bool allowAttach: true

  anchors.fill: parent

  WL.WayLoopPanel {
    id: picker
    anchors.fill: parent
    service: root.pluginApi?.mainInstance?.service ?? null
    background: "transparent"
    surface: Color.mSurfaceVariant
    surfaceHover: Color.mHover
    textColor: Color.mOnSurface
    dimText: Color.mOnSurfaceVariant
    accent: Color.mPrimary
    errorColor: Color.mError
    textOnError: Color.mOnError
    warnText: Color.mTertiary
    radius: Style.radiusL
  }
}
