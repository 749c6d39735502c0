// noctalia plugin settings (manifest "settings"): the wayloop command, what to list, workshop.
import QtQuick
import QtQuick.Layouts
import qs.Commons
import qs.Widgets

ColumnLayout {
  id: root

  // injected by the settings dialog
  property var pluginApi: null

  readonly property var defaults: pluginApi?.manifest?.metadata?.defaultSettings ?? ({})
  property string valueCommand: pluginApi?.pluginSettings?.command ?? defaults.command ?? "wayloop"
  property string valuePaths: pluginApi?.pluginSettings?.paths ?? defaults.paths ?? ""
  property bool valueWorkshop: pluginApi?.pluginSettings?.workshop ?? defaults.workshop ?? true

  spacing: Style.marginM

  NTextInput {
    Layout.fillWidth: true
    label: "wayloop command"
    description: "The wayloop program: a name on PATH or an absolute path"
    placeholderText: "wayloop"
    text: root.valueCommand
    onTextChanged: root.valueCommand = text
  }

  NTextInput {
    Layout.fillWidth: true
    label: "Videos"
    description: "Directories or files to list, separated by ':' (empty: the wayloop data directories, where `wayloop NAME` looks)"
    placeholderText: "~/Videos/loops"
    text: root.valuePaths
    onTextChanged: root.valuePaths = text
  }

  NToggle {
    Layout.fillWidth: true
    label: "Wallpaper Engine workshop"
    description: "Also list the workshop items Steam has downloaded (when no directory is given)"
    checked: root.valueWorkshop
    onToggled: checked => root.valueWorkshop = checked
  }

  // called by the settings dialog
  function saveSettings() {
    if (!pluginApi)
      return;
    pluginApi.pluginSettings.command = root.valueCommand.trim() || "wayloop";
    pluginApi.pluginSettings.paths = root.valuePaths.trim();
    pluginApi.pluginSettings.workshop = root.valueWorkshop;
    pluginApi.saveSettings();
    pluginApi.mainInstance?.service?.refresh();
  }
}
