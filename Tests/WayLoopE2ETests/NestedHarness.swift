// Nested sway for the output tests (scripts/compositor start-nested): an inner sway whose outputs
// WL-1, WL-2 … are windows of an outer headless sway, so that they can be added, unplugged,
// resized, scaled and hidden like real monitors. Plus the grid clip's pixel checks.
import Foundation
import WayLoopTestSupport
import XCTest

final class NestedSway: @unchecked Sendable {
    let compositor: Compositor

    /// Starts an outer and an inner sway; the inner one gets one output per size (WL-1, WL-2, …).
    init(outputs sizes: [String]) throws {
        compositor = try Compositor(kind: "start-nested", outputs: sizes)
    }

    /// The environment of a client of the inner sway (WAYLAND_DISPLAY, SWAYSOCK, …).
    var env: [String: String] { compositor.env }
    var dir: String { compositor.dir }
    /// The outputs it started with.
    var initialOutputs: [String] { compositor.outputs }

    func stop() { compositor.stop() }
    func shot(_ output: String) throws -> Image { try compositor.shot(output) }

    @discardableResult
    private func run(_ args: [String]) throws -> String {
        let r = Shell.run([Repo.path("scripts/compositor")] + args, timeout: 30)
        guard r.status == 0 else {
            throw HarnessError("scripts/compositor \(args.joined(separator: " ")) failed (\(r.status)): \(r.stderr)")
        }
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// create_output, sized WxH; returns its name once the inner sway reports it at that size.
    func addOutput(_ size: String) throws -> String { try run(["add-output", dir, size]) }
    /// Hot-unplug: closes the output's window; returns once the inner sway no longer lists it.
    func removeOutput(_ name: String) throws { try run(["remove-output", dir, name]) }
    /// Mode change: returns once the inner sway reports the output at WxH.
    func resizeOutput(_ name: String, _ size: String) throws { try run(["resize-output", dir, name, size]) }
    func scaleOutput(_ name: String, _ scale: String) throws { try run(["scale-output", dir, name, scale]) }
    /// Not presented (like a monitor that is off): the inner sway stops sending frame callbacks.
    func hideOutput(_ name: String) throws { try run(["hide-output", dir, name]) }
    func showOutput(_ name: String) throws { try run(["show-output", dir, name]) }

    struct OutputState {
        var position: (x: Int, y: Int)
        var logical: (w: Int, h: Int)
        var mode: (w: Int, h: Int)
        var scale: Double
    }

    /// What the inner sway reports (swaymsg -t get_outputs).
    func outputs() throws -> [String: OutputState] {
        let r = compositor.swaymsg(["-r", "-t", "get_outputs"])
        guard r.status == 0, let list = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]] else {
            throw HarnessError("swaymsg -t get_outputs failed: \(r.stderr)")
        }
        var out: [String: OutputState] = [:]
        for o in list {
            guard let name = o["name"] as? String, let rect = o["rect"] as? [String: Any],
                  let mode = o["current_mode"] as? [String: Any] else { continue }
            out[name] = OutputState(position: (rect["x"] as? Int ?? 0, rect["y"] as? Int ?? 0),
                                    logical: (rect["width"] as? Int ?? -1, rect["height"] as? Int ?? -1),
                                    mode: (mode["width"] as? Int ?? -1, mode["height"] as? Int ?? -1),
                                    scale: (o["scale"] as? NSNumber)?.doubleValue ?? -1)
        }
        return out
    }

    /// Row `y` (logical) of an output at scale 1, captured alone: a small grim region is quick
    /// enough to time things with (a whole-output screenshot takes 100-500 ms on a loaded machine).
    func row(_ output: String, y: Int, state: OutputState? = nil) throws -> Image {
        guard let o = try state ?? outputs()[output] else { throw HarnessError("no output \(output)") }
        let file = dir + "/row-\(output)-\(UUID().uuidString.prefix(6)).ppm"
        defer { try? FileManager.default.removeItem(atPath: file) }
        let r = Shell.run(["grim", "-t", "ppm", "-g", "\(o.position.x),\(o.position.y + y) \(o.logical.w)x1", file],
                          env: env, timeout: 15)
        guard r.status == 0 else { throw HarnessError("grim of a row of \(output) failed: \(r.stderr)") }
        return try Image(ppm: Data(contentsOf: URL(fileURLWithPath: file)))
    }
}

/// The grid clip (scripts/make-clips): 1280x720, 4×4 cells of 320×180 (colours in grid.txt), an
/// 80×80 box at 600..679 × 320..399 cycling white/black/grey every 10 frames, 30 frames at 30 fps.
enum GridPicture {
    static let video = (w: 1280.0, h: 720.0)

    /// cells[row][col]
    static func colors() throws -> [[RGB8]] {
        let text = try String(contentsOfFile: Repo.clip("grid.txt"), encoding: .utf8)
        var cells = Array(repeating: Array(repeating: RGB8(0, 0, 0), count: 4), count: 4)
        for line in text.split(separator: "\n") {
            let f = line.split(separator: " ")
            guard f.count == 3, let c = Int(f[0]), let r = Int(f[1]), let rgb = RGB8(hex: String(f[2])) else { continue }
            cells[r][c] = rgb
        }
        return cells
    }

    /// Aspect fill (cover the image, centred, crop the long axis) checked at up to 144 points, away
    /// from cell borders and the centre box, plus no black bar in any corner. Independent maths.
    static func fillReport(_ img: Image, cells: [[RGB8]]) -> (ok: Bool, report: String) {
        let (W, H) = (Double(img.width), Double(img.height))
        let scale = max(W / video.w, H / video.h)
        var bad: [String] = []
        var checked = 0
        for gy in 0..<12 {
            for gx in 0..<12 {
                let sx = (Double(gx) + 0.5) * W / 12, sy = (Double(gy) + 0.5) * H / 12
                let vx = (sx - W / 2) / scale + video.w / 2, vy = (sy - H / 2) / scale + video.h / 2
                let fx = vx.truncatingRemainder(dividingBy: 320), fy = vy.truncatingRemainder(dividingBy: 180)
                if fx < 24 || fx > 296 || fy < 24 || fy > 156 { continue }
                if vx > 580 && vx < 700 && vy > 300 && vy < 420 { continue }
                let want = cells[Int(vy / 180)][Int(vx / 320)]
                let got = img.pixel(Int(sx), Int(sy))
                checked += 1
                if !got.close(to: want, tolerance: 40) { bad.append("(\(Int(sx)),\(Int(sy))) got \(got) want \(want)") }
            }
        }
        for (x, y) in [(2, 2), (img.width - 3, 2), (2, img.height - 3), (img.width - 3, img.height - 3)]
        where img.pixel(x, y).close(to: RGB8(0, 0, 0), tolerance: 12) {
            bad.append("corner (\(x),\(y)) is black (a bar?)")
        }
        return (checked >= 20 && bad.isEmpty, "\(img.width)x\(img.height): \(checked) points checked; mismatches: \(bad.prefix(6))")
    }

    /// Polls screenshots of `output` until one of `size` is aspect-filled with the grid, for up to
    /// `timeout` s. `elapsed`: seconds from the call to the end of the screenshot that passed.
    static func waitFilled(_ sway: NestedSway, output: String, size: (Int, Int), timeout: Double = 10)
        -> (ok: Bool, report: String, elapsed: Double) {
        let start = Date()
        guard let cells = try? colors() else { return (false, "cannot read grid.txt", 0) }
        var report = "no screenshot yet"
        var elapsed = 0.0
        let ok = Wait.until(timeout: timeout) {
            let img: Image
            do { img = try sway.shot(output) } catch {
                report = "\(error)"
                return false
            }
            guard img.width == size.0, img.height == size.1 else {
                report = "screenshot is \(img.width)x\(img.height), expected \(size.0)x\(size.1)"
                return false
            }
            let r = fillReport(img, cells: cells)
            report = r.report
            elapsed = Date().timeIntervalSince(start)
            return r.ok
        }
        return (ok, report, elapsed)
    }

    /// Colours seen at the centre box of `output` (white, black or grey) until it has shown two
    /// (it changes every 333 ms), or 10 s: how many screenshots a second the machine takes is
    /// not the question, so the bound is for a hang.
    static func centreColours(_ sway: NestedSway, output: String) -> Set<String> {
        var seen: Set<String> = []
        Wait.until(timeout: 10) {
            if let img = try? sway.shot(output) {
                let p = img.pixel(img.width / 2, img.height / 2)
                seen.insert(p.r > 200 ? "white" : p.r < 50 ? "black" : "grey")
            }
            return seen.count >= 2
        }
        return seen
    }
}

extension RGB8 {
    /// BT.709 luma of the (gamma-encoded) pixel, 0…255.
    var luma709: Double { 0.2126 * Double(r) + 0.7152 * Double(g) + 0.0722 * Double(b) }
}
