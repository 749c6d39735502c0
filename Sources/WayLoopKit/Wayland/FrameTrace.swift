// --trace-frames FILE: one line per presented frame, for the seam tests and for tools.
// Off (nil) by default, so it costs nothing. Main thread only.
//
//   <output-name> <pass> <index> <media-time-ns> <commit-ns> <presented-ns> <waited-ns> <video> <weight>
//
// `video` is FrameTraceLine.videoTag of the video's path, and `weight` its picture's weight in a
// fade to it ("1": no fade). A colour (a workspace's entry, the fallback colour) is not traced.
//
// `waited-ns` is how long this process's threads had waited for a CPU in all, by then (the
// kernel's schedstat): the tests excuse a late commit by what the machine's load took.
//
// `presented-ns` is CLOCK_MONOTONIC: the compositor's wp_presentation timestamp where it offers
// wp_presentation on that clock and actually answers it, else the time the frame callback for
// that commit arrived (sway 1.7's headless backend never sends `presented`): the first commits
// are timed by their frame callbacks while wp_presentation is probed; once it answers, later
// commits use it. Each commit gets one line; discarded frames get none.
import CWayland
import Glibc
import WayLoopCore

final class FrameTrace {
    fileprivate struct Record {
        var name: String
        var pass: Int, index: Int
        var media: Nanos, commit: Nanos
        var waited: Nanos
        /// FNV-1a 64 of the video's path (hex), and the weight of its picture in a fade (1: none).
        var video: String
        var weight: Double
    }

    private let fd: Int32
    /// wp_presentation, when its clock is CLOCK_MONOTONIC (else frame-callback times are used).
    var presentation: Presentation?
    private enum Source { case probing, presentation, callbacks }
    private var source = Source.probing
    /// Feedbacks without an answer before the probe gives up on wp_presentation.
    private static let probeLimit = 8
    private var awaitingCallback: [UInt32: Record] = [:]
    private var inflight: [ObjectIdentifier: PresentationFeedback] = [:]

    /// Opens (creates) `path` for appending; a regular file only: a FIFO without a reader or a
    /// device would block the main loop or fill without end. Throws the reason.
    /// The trace at `path`, with presentation times where the compositor gives them on the
    /// monotonic clock.
    static func start(_ path: String, registry: Registry) throws(SinkError) -> FrameTrace {
        let t = try FrameTrace(path: path)
        if let p = registry.presentation, registry.presentationClock == UInt32(CLOCK_MONOTONIC) { t.presentation = p }
        return t
    }

    init(path: String) throws(SinkError) {
        let f = open(Sys.cPath(path), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK, 0o644)
        if f < 0 { throw SinkError(Sys.errnoText()) }
        var st = stat()
        guard fstat(f, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(f)
            throw SinkError("not a regular file")
        }
        // Blocking again: appends to a regular file never wait.
        _ = fcntl(f, F_SETFL, fcntl(f, F_GETFL) & ~O_NONBLOCK)
        fd = f
    }

    deinit {
        for f in inflight.values { f.destroy() }
        close(fd)
    }

    /// Call before the commit (eglSwapBuffers) that shows `frame` on `surface`.
    func committing(output: UInt32, name: String, surface: WLSurface, frame: StampedFrame<FrameHandle>, video: String,
                    weight: Double, at now: Nanos) {
        let r = Record(name: name, pass: frame.pass, index: frame.index, media: frame.mediaTime, commit: now,
                       waited: Sys.runQueueWait(), video: FrameTraceLine.videoTag(video), weight: weight)
        if source == .probing && (presentation == nil || inflight.count >= Self.probeLimit) {
            source = .callbacks
            for f in inflight.values { f.destroy() }
            inflight.removeAll()
        }
        // While probing, lines come from frame callbacks; a probe's own answer only switches
        // the source for later commits (each commit gets exactly one line).
        if source != .callbacks, let presentation,
           let f = PresentationFeedback(presentation, surface: surface, record: r, trace: self, probe: source == .probing) {
            inflight[ObjectIdentifier(f)] = f
        }
        if source != .presentation { awaitingCallback[output] = r }
    }

    /// The frame callback fired (used when wp_presentation is not available).
    func frameDone(output: UInt32, at now: Nanos) {
        guard let r = awaitingCallback.removeValue(forKey: output) else { return }
        write(r, presented: now)
    }

    fileprivate func finished(_ f: PresentationFeedback, presented: Nanos?) {
        if source == .probing && presented != nil { source = .presentation }
        if let presented, !f.probe { write(f.record, presented: presented) }
        f.destroy()
        inflight[ObjectIdentifier(f)] = nil
    }

    private func write(_ r: Record, presented: Nanos) {
        let line = "\(r.name) \(r.pass) \(r.index) \(r.media) \(r.commit) \(presented) \(r.waited) \(r.video) \(FrameTraceLine.weight(r.weight))\n"
        _ = line.withCString { Glibc.write(fd, $0, strlen($0)) }
    }
}

/// One wp_presentation_feedback request and the frame it is about.
final class PresentationFeedback: WaylandObject, ListenerTarget {
    fileprivate let record: FrameTrace.Record
    /// Sent while probing: its commit's line came from the frame callback.
    fileprivate let probe: Bool
    private unowned let trace: FrameTrace

    fileprivate init?(_ presentation: Presentation, surface: WLSurface, record: FrameTrace.Record, trace: FrameTrace, probe: Bool) {
        guard let proxy = wp_presentation_feedback(presentation.proxy, surface.proxy) else { return nil }
        self.record = record
        self.probe = probe
        self.trace = trace
        super.init(proxy, destructor: { wp_presentation_feedback_destroy($0) })
        wp_presentation_feedback_add_listener(proxy, feedbackListener, listenerData)
    }

    fileprivate func presented(secHi: UInt32, secLo: UInt32, nsec: UInt32) {
        let sec = Nanos(UInt64(secHi) << 32 | UInt64(secLo))
        trace.finished(self, presented: sec * .nanosPerSecond + Nanos(nsec))
    }

    fileprivate func discarded() { trace.finished(self, presented: nil) }
}

// MARK: Listener

nonisolated(unsafe) private let feedbackListener = listenerTable(wp_presentation_feedback_listener(
    sync_output: { _, _, _ in },
    presented: { data, _, hi, lo, nsec, _, _, _, _ in
        PresentationFeedback.from(data).presented(secHi: hi, secLo: lo, nsec: nsec)
    },
    discarded: { data, _ in PresentationFeedback.from(data).discarded() }
))
