// A video wallpaper in three lines: `swift run --package-path Examples Wallpaper [VIDEO]`.
// VIDEO is a path or a name looked up like a bundled resource ("ocean" finds ocean.mp4 in
// ~/.local/share/wayloop); without one, the default loop that `wayloop` installs. It stops on
// SIGINT or SIGTERM, and exits with wayloop's status (5: the video cannot play; 3: no compositor).
import WayLoopKit

let wallpaper = Wallpaper(video: CommandLine.arguments.dropFirst().first ?? "default-loop")
wallpaper.runAndExit()
