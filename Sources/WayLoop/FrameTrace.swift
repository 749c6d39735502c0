// --trace-frames FILE: one line per presented frame, for the seam tests and for tools.
// Off (nil) by default, so it costs nothing. Main thread only.
//
//   <output-name> <pass> <index> <media-time-ns> <commit-ns> <presented-ns>
//
// `presented-ns` is CLOCK_MONOTONIC when the frame callback for that commit fired.
import Glibc
import WayLoopCore

final class FrameTrace {
    private let fd: Int32
    private var committed: [UInt32: (pass: Int, index: Int, media: Nanos, commit: Nanos)] = [:]

    init?(path: String) {
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        if fd < 0 { return nil }
    }
    deinit { close(fd) }

    func committed(output: UInt32, frame: StampedFrame<FrameHandle>, at now: Nanos) {
        committed[output] = (frame.pass, frame.index, frame.mediaTime, now)
    }

    func presented(output: UInt32, name: String, at now: Nanos) {
        guard let c = committed.removeValue(forKey: output) else { return }
        let line = "\(name) \(c.pass) \(c.index) \(c.media) \(c.commit) \(now)\n"
        _ = line.withCString { write(fd, $0, strlen($0)) }
    }
}
