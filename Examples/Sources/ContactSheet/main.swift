// A contact sheet of one loop: the frames of its first pass, in order, as a grid of thumbnails
// in one PNG (at most 120 of them). `ContactSheet VIDEO OUT.png [COLUMNS] [CELL-WIDTH]`
// Frames only: no compositor; the same decoder thread and gapless timeline as the wallpaper.
import Glibc
import WayLoopKit

/// One line on stderr, then the exit status.
func fail(_ line: String, _ status: Int32) -> Never {
    _ = (line + "\n").withCString { write(2, $0, strlen($0)) }
    exit(status)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2 else { fail("usage: ContactSheet VIDEO OUT.png [COLUMNS] [CELL-WIDTH]", 2) }
let columns = max(1, arguments.count > 2 ? Int(arguments[2]) ?? 6 : 6)
let cellWidth = max(8, arguments.count > 3 ? Int(arguments[3]) ?? 160 : 160)

do {
    let loop = try LoopFrames(video: arguments[0])
    // Cells keep the picture's shape as shown (a clip stored on its side is shown upright).
    let turned = loop.info.orientation.rotation % 180 != 0
    let (w, h) = turned ? (loop.info.height, loop.info.width) : (loop.info.width, loop.info.height)
    let cellHeight = max(1, cellWidth * h / w)
    var cells: [[UInt8]] = []
    while cells.count < 120, let frame = loop.next(), frame.pass == 0 {
        cells.append(try frame.rgb(width: cellWidth, height: cellHeight))
        frame.release()
    }
    if let e = loop.error { throw e }
    let rows = (cells.count + columns - 1) / columns
    let sheetWidth = columns * cellWidth, sheetHeight = rows * cellHeight
    var sheet = [UInt8](repeating: 0, count: sheetWidth * sheetHeight * 3)
    for (i, cell) in cells.enumerated() {
        let x0 = (i % columns) * cellWidth, y0 = (i / columns) * cellHeight
        for y in 0..<cellHeight {
            let from = y * cellWidth * 3, to = ((y0 + y) * sheetWidth + x0) * 3
            sheet.replaceSubrange(to..<(to + cellWidth * 3), with: cell[from..<(from + cellWidth * 3)])
        }
    }
    try PNGFile.write(sheet, width: sheetWidth, height: sheetHeight, to: arguments[1])
    print("\(cells.count) frames of '\(loop.video)' in \(columns) columns: \(arguments[1]) (\(sheetWidth)x\(sheetHeight))")
} catch {
    fail("ContactSheet: error: \(error)", 1)
}
