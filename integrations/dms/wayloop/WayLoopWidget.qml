// DankMaterialShell plugin, "widget" surface: a bar pill (what plays now; a right click pauses or
// resumes every output) whose popout is WayLoop's picker in DMS's colours.
import QtQuick
import qs.Common
import qs.Widgets
import qs.Modules.Plugins
import "module" as WL

PluginComponent {
    id: root

    readonly property var service: pluginService?.pluginDaemonInstances?.[pluginId]?.service ?? null
    readonly property string nowPlaying: {
        if (!service || !service.daemonRunning)
            return "WayLoop";
        const o = service.outputs;
        if (o.length === 0)
            return "WayLoop";
        const videos = [...new Set(o.map(x => x.video).filter(v => v))];
        if (videos.length !== 1)
            return videos.length + " videos";
        const it = service.itemFor(videos[0]);
        return it ? (it.title || it.name) : videos[0].slice(videos[0].lastIndexOf("/") + 1);
    }

    pillRightClickAction: () => {
        if (root.service)
            root.service.toggle("");
    }

    horizontalBarPill: Component {
        StyledRect {
            width: row.implicitWidth + Theme.spacingM * 2
            height: parent.widgetThickness
            radius: Theme.cornerRadius
            color: Theme.surfaceContainerHigh

            Row {
                id: row
                anchors.centerIn: parent
                spacing: Theme.spacingS
                DankIcon {
                    name: root.service && root.service.paused ? "pause" : "wallpaper"
                    color: root.service && root.service.error !== "" ? Theme.error : Theme.surfaceText
                    font.pixelSize: Theme.iconSize
                    anchors.verticalCenter: parent.verticalCenter
                }
                StyledText {
                    text: root.nowPlaying
                    color: Theme.surfaceText
                    font.pixelSize: Theme.fontSizeMedium
                    anchors.verticalCenter: parent.verticalCenter
                }
            }
        }
    }

    verticalBarPill: Component {
        StyledRect {
            width: parent.widgetThickness
            height: icon.implicitHeight + Theme.spacingM * 2
            radius: Theme.cornerRadius
            color: Theme.surfaceContainerHigh

            DankIcon {
                id: icon
                anchors.centerIn: parent
                name: root.service && root.service.paused ? "pause" : "wallpaper"
                color: root.service && root.service.error !== "" ? Theme.error : Theme.surfaceText
                font.pixelSize: Theme.iconSize
            }
        }
    }

    popoutWidth: 880
    popoutHeight: 640
    popoutContent: Component {
        PopoutComponent {
            id: popout
            headerText: "WayLoop"
            showCloseButton: true

            WL.WayLoopPanel {
                width: parent.width
                height: root.popoutHeight - popout.headerHeight - popout.detailsHeight - Theme.spacingM
                service: root.service
                background: "transparent"
                surface: Theme.surfaceContainerHigh
                surfaceHover: Theme.surfaceContainerHighest
                textColor: Theme.surfaceText
                dimText: Theme.surfaceVariantText
                accent: Theme.primary
                errorColor: Theme.error
                warnText: Theme.warning
                radius: Theme.cornerRadius
            }
        }
    }
}
