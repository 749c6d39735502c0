/// The wlr-layer-shell layer the surfaces go on (`--layer`): background for a wallpaper, top or
/// overlay for a screensaver (overlay is above fullscreen windows too).
public enum Layer: String, Sendable, CaseIterable {
    /// Below everything: a wallpaper (the default).
    case background
    /// Above the background layer, below windows.
    case bottom
    /// Above windows, below fullscreen ones.
    case top
    /// Above everything, fullscreen windows included: a screensaver.
    case overlay
}
