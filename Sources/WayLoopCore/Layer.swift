/// The wlr-layer-shell layer the surfaces go on (`--layer`): background for a wallpaper, top or
/// overlay for a screensaver (overlay is above fullscreen windows too).
public enum Layer: String, Sendable, CaseIterable {
    case background, bottom, top, overlay
}
