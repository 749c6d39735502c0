// A host that owns its wallpaper: it runs on the main thread, every state change is printed as
// it happens, and after the first output plays another thread steers it and stops it. With
// OTHER, the wallpaper also listens on the display's control socket (`wayloop ctl` reaches it),
// and the thread pauses and resumes it, switches it to OTHER, tries a file that is not there,
// then waits for a line on stdin (Enter; EOF too) while `wayloop ctl` may reach it; without,
// it waits SECONDS. Then it asks for the status and stops it.
// `swift run --package-path Examples HostControl VIDEO [SECONDS [OTHER]]`
import Foundation
import WayLoopKit

let arguments = Array(CommandLine.arguments.dropFirst())
let other = arguments.count > 2 ? arguments[2] : nil
var configuration = Wallpaper.Configuration(video: arguments.first ?? "default-loop")
configuration.controlSocket = other != nil
let wallpaper = Wallpaper(configuration)
let seconds = arguments.count > 1 ? Double(arguments[1]) ?? 3 : 3

/// One line on stdout, written at once (stdout may be a pipe).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

// Called on the thread that runs the wallpaper (here the main thread).
let playing = DispatchSemaphore(value: 0)
wallpaper.onStateChange = { event in
    say("state \(event.output) \(event.state) \(event.video ?? "-")")
    if event.state == .playing { playing.signal() }
}

Thread.detachNewThread {
    playing.wait()
    if let other {
        // In-process, as `wayloop ctl` would ask it on the socket: each reply, or why not.
        func step(_ name: String, _ body: () throws -> WallpaperControl.Reply) {
            do { say("\(name): \(try body().message ?? "ok")") } catch { say("\(name) refused: \(error)") }
        }
        step("pause") { try wallpaper.pause() }
        step("resume") { try wallpaper.resume() }
        step("switch") { try wallpaper.switchTo(video: other) }
        step("switch") { try wallpaper.switchTo(video: "/nonexistent/clip.mp4") }
        say("steered: press Enter to stop")
        _ = readLine()
    } else {
        Thread.sleep(forTimeInterval: seconds)
    }
    for output in wallpaper.status() ?? [] {
        say("status \(output.name) \(output.state) frames \(output.framesShown)")
    }
    wallpaper.stop()
}

do {
    try wallpaper.run()
    say("stopped")
} catch {
    // The error line is logged already; `error.status` is the exit status wayloop would give.
    say("failed \(error.status.rawValue)")
    exit(error.status.rawValue)
}
