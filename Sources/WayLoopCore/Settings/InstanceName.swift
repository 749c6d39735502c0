/// An instance name (`--name`): its own lock and control socket, so that a screensaver runs
/// beside the wallpaper. Letters, digits, `.`, `_` and `-`, at most 32 (it goes into a path).
public enum InstanceName {
    public static func isValid(_ s: String) -> Bool {
        !s.isEmpty && s.count <= 32 && s != "." && s != ".."
            && s.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0) }
    }
    public static let expected = "a name of letters, digits, '.', '_' and '-' (at most 32)"
}

/// Whether a start is the display's instance (its lock, control socket and state file) or runs on
/// a connection of its own: a screen locker that draws its lock screen with a wallpaper program
/// (swaylock-plugin) hands that program a connected socket in `WAYLAND_SOCKET` and no
/// `WAYLAND_DISPLAY`. Such a start is not the desktop's wallpaper: taking the display's lock
/// would hand its arguments over to the desktop's wayloop (and swaylock-plugin would start it
/// again and again), and its `ctl set` choices are not the desktop's to restore or keep.
public enum InstanceScope: Equatable, Sendable {
    /// One instance per display and `--name`: the lock, the control socket, the state file.
    case display
    /// Its own connection: no lock, no control socket, no state file read or written.
    case privateConnection

    /// `WAYLAND_SOCKET` set and not empty, and no `--name`: a connection of its own. A `--name`
    /// asks for an instance of that name, which a locker's plugin may want to be reached by `ctl`.
    public static func choose(waylandSocket: String?, name: String?) -> InstanceScope {
        guard let s = waylandSocket, !s.isEmpty, name == nil else { return .display }
        return .privateConnection
    }
}
