// DankMaterialShell plugin settings: the wayloop command, what to list, workshop items.
import QtQuick
import qs.Common
import qs.Widgets
import qs.Modules.Plugins

PluginSettings {
    pluginId: "wayloop"

    StringSetting {
        settingKey: "command"
        label: "wayloop command"
        description: "The wayloop program: a name on PATH or an absolute path"
        placeholder: "wayloop"
        defaultValue: "wayloop"
    }

    StringSetting {
        settingKey: "paths"
        label: "Videos"
        description: "Directories or files to list, separated by ':' (empty: the wayloop data directories, where `wayloop NAME` looks)"
        placeholder: "~/Videos/loops"
        defaultValue: ""
    }

    ToggleSetting {
        settingKey: "workshop"
        label: "Wallpaper Engine workshop"
        description: "Also list the workshop items Steam has downloaded (when no directory is given)"
        defaultValue: true
    }
}
