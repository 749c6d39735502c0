// `wayloop ctl …`: one request to the wallpaper running on this display, through WayLoopKit's
// WallpaperControl; its reply printed as the command asks, and the exit status of wayloop-ctl(1):
// 0 done, 1 refused or failed, 2 usage (main.swift), 3 no wayloop running.
import Glibc
import WayLoopCore
import WayLoopKit

enum Ctl {
    static func run(_ command: CtlCommand) -> Int32 {
        let request: ControlRequest
        do { request = try WallpaperControl.resolved(command.request) } catch {
            WayLoopCommand.printError("wayloop: error: ctl: \(error)")
            return 1
        }
        let control: WallpaperControl
        do { control = try WallpaperControl(name: command.name) } catch {
            WayLoopCommand.printError("wayloop: error: ctl: \(error)")
            if case .notRunning = error { return 3 }
            return 1
        }
        do {
            let reply = try control.send(request, timeout: request == .subscribe ? nil : 60)
            return show(reply, of: request, command: command, control: control)
        } catch {
            WayLoopCommand.printError("wayloop: error: ctl: \(error)")
            return 1
        }
    }

    /// Prints a good reply as the command asks (status as text or JSON, the event stream, the
    /// message); the exit status.
    private static func show(_ reply: WallpaperControl.Reply, of request: ControlRequest, command: CtlCommand,
                             control: WallpaperControl) -> Int32 {
        switch request {
        case .status:
            if command.json {
                WayLoopCommand.print(reply.line + "\n")
            } else {
                let lines = reply.outputs.map { LineText.escaped($0.line) }
                WayLoopCommand.print(lines.isEmpty ? "no outputs\n" : lines.joined(separator: "\n") + "\n")
            }
        case .subscribe where command.waybar:
            return waybar(control, name: command.name)
        case .subscribe:
            // Every event on its own line, flushed at once (for waybar and scripts), until the
            // wallpaper goes away.
            while let event = try? control.nextEvent() { WayLoopCommand.print(event + "\n") }
        default:
            if let m = reply.message { WayLoopCommand.print(LineText.escaped(m) + "\n") }
        }
        return 0
    }

    /// `subscribe --waybar`: one waybar line now and after each event, from a fresh status
    /// (outputs come and go); a line equal to the last one is not repeated.
    private static func waybar(_ events: WallpaperControl, name: String?) -> Int32 {
        var last = ""
        func show() -> Bool {
            guard let outputs = try? WallpaperControl(name: name).send(.status, timeout: 10).outputs else { return false }
            let line = Waybar.line(outputs).serialized
            if line != last { WayLoopCommand.print(line + "\n") }
            last = line
            return true
        }
        guard show() else { return 1 }
        while (try? events.nextEvent()) != nil {
            guard show() else { break }
        }
        return 0
    }
}
