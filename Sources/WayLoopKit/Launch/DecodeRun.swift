// `wayloop decode`: a video decoded as playback decodes it (the decoder thread, its frame
// channel, the loop, the start-up check of a hardware path), the frames taken as fast as they
// come, no compositor. Says which path it took and why, the rate reached against the clip's
// and the CPU per frame (DecodeReport). Main thread; the decoder on its own thread.
import CFFmpeg
import Glibc
import WayLoopCore

enum DecodeRun {
    static func run(_ command: DecodeCommand) -> ExitStatus {
        func fail(_ line: String, _ status: ExitStatus) -> ExitStatus {
            Sys.writeStderr("wayloop: error: \(line)")
            return status
        }
        let cwd = Sys.currentDirectory
        let video = Paths.absolute(Workshop.resolvePath(Sys.findVideo(command.video, here: cwd) ?? command.video, here: cwd), in: cwd, home: Sys.env("HOME"))
        if let e = Preflight.check(video) { return fail("video: \(e)", .badVideo) }
        av_quiet()
        guard let wakeup = WakeupFD() else { return fail("cannot make an eventfd: \(Sys.errnoText())", .failure) }
        let log = Logger(label: "decode", level: command.verbose ? .debug : .notice, sink: { Sys.writeStderr($0) })
        let channel = FrameChannel(capacity: command.queueFrames, wakeup: wakeup, limits: PictureLimits(),
                                   cacheBudget: command.cacheMB << 20, decoderThreads: command.threads ?? 1,
                                   hwdec: command.hwdec, hwdecDevice: command.hwdecDevice)
        channel.adaptiveThreads = command.threads == nil
        guard let thread = Decoder.start(path: video, channel: channel, log: log) else {
            return fail("cannot start a decoder thread: \(Sys.errnoText())", .failure)
        }
        var frames = 0, lastPass = 0
        var first: (wall: Nanos, cpu: Nanos)?
        var info: VideoInfo?
        var failure: VideoError?
        while frames < command.frames {
            if case .failed(let e) = channel.status { failure = e; break }
            if case .ready(let i) = channel.status { info = i }
            if let f = channel.takeNext() {
                if first == nil { first = (Sys.now(), processCPU()) }
                frames += 1
                lastPass = max(lastPass, f.pass)
                channel.release(f.payload)
                continue
            }
            if channel.isStill { break }
            var p = pollfd(fd: wakeup.fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&p, 1, 100)
            wakeup.drain()
        }
        let end = (wall: Sys.now(), cpu: processCPU())
        channel.requestStop()
        thread.join()
        if let failure { return fail("video: \(failure)", .badVideo) }
        guard let info, let first else { return fail("video: '\(video)': no frame was decoded", .badVideo) }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        // The first frame's wait (opening, the start-up check) is not in the rate: it is reported apart.
        let counted = max(0, frames - 1)
        let report = DecodeReport(video: video, clip: info.description, clipFps: info.frameRate, path: channel.decodeState?.text ?? "software", frames: counted, passes: lastPass + 1,
                                  seconds: Double(end.wall - first.wall) / 1e9, cpuSeconds: Double(end.cpu - first.cpu) / 1e9,
                                  checkSeconds: channel.checkSeconds, poolFrames: channel.framesMade, maxRSSkB: Int(usage.ru_maxrss))
        Sys.writeStdout(command.json ? report.json.serialized : report.text)
        return .ok
    }

    /// CPU time of the whole process (every thread: the decoder's, libavcodec's, the driver's).
    private static func processCPU() -> Nanos {
        var ts = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
        return Nanos(ts.tv_sec) * .nanosPerSecond + Nanos(ts.tv_nsec)
    }
}
