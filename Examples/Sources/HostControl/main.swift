// A host that owns its wallpaper: it runs on the main thread, every state change is printed as
// it happens, and SECONDS after the first output plays another thread asks for the status and
// stops it.
// `swift run --package-path Examples HostControl VIDEO [SECONDS]`
import Foundation
import WayLoopKit

let arguments = Array(CommandLine.arguments.dropFirst())
let wallpaper = Wallpaper(video: arguments.first ?? "default-loop")
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
    Thread.sleep(forTimeInterval: seconds)
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
