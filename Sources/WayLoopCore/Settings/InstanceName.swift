/// An instance name (`--name`): its own lock and control socket, so that a screensaver runs
/// beside the wallpaper. Letters, digits, `.`, `_` and `-`, at most 32 (it goes into a path).
public enum InstanceName {
    public static func isValid(_ s: String) -> Bool {
        !s.isEmpty && s.count <= 32 && s != "." && s != ".."
            && s.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0) }
    }
    public static let expected = "a name of letters, digits, '.', '_' and '-' (at most 32)"
}
