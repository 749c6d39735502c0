// `wayloop decode`: a video decoded as playback decodes it (the decoder thread, its queue, the
// loop), as fast as it goes, with no compositor; what it reports. Pure: the command line and
// the report. The shell runs it.

/// `wayloop decode VIDEO [--hwdec H] [--hwdec-device D] [--frames N] [--queue-frames N] [--cache-mb N] [--threads N] [--json] [-v]`.
public struct DecodeCommand: Equatable, Sendable {
    /// The video file decoded.
    public var video: String
    /// `--hwdec`: how it is decoded (default auto).
    public var hwdec: HwdecMode = .auto
    /// `--hwdec-device`: a DRM render node for VA-API or a CUDA device number for NVDEC; nil:
    /// found automatically.
    public var hwdecDevice: String?
    /// Frames to decode (the loop goes round as often as it takes).
    public var frames = 300
    /// Frames the queue holds ahead (as `--queue-frames` in playback).
    public var queueFrames = 8
    /// The loop cache's budget (0: every pass is decoded, as in a long loop).
    public var cacheMB = 0
    /// `--json`: the report as JSON rather than lines of text.
    public var json = false
    /// Software frame threads, fixed (nil: as playback with the shm renderer: from 1, more while
    /// it falls behind).
    public var threads: Int?
    /// `-v`: the decoder's debug lines (the start-up check's figures among them).
    public var verbose = false

    /// Decoding `video` with every option at its default.
    public init(video: String) { self.video = video }

    /// The command's synopsis, as its error messages quote it.
    public static let usage = "decode VIDEO [--hwdec H] [--hwdec-device D] [--frames N] [--queue-frames N] [--cache-mb N] [--threads N] [--json] [-v]"

    /// `args` after `decode`.
    public static func parse(_ args: [String]) throws(UsageError) -> DecodeCommand {
        var c = DecodeCommand(video: "")
        var positional: [String] = []
        var args = ArgumentCursor(args)
        while let a = args.current {
            switch a {
            case "--hwdec", "--hwdec-device":
                var e = OutputEntry(selector: .all)
                _ = try args.applySetting(a, to: &e)
                if let h = e.hwdec { c.hwdec = h }
                if let d = e.hwdecDevice { c.hwdecDevice = d }
            case "--frames": c.frames = try args.number(of: a, in: 1...1_000_000)
            case "--queue-frames": c.queueFrames = try args.number(of: a, in: 1...64)
            case "--cache-mb": c.cacheMB = try args.number(of: a, in: 0...4096)
            case "--threads": c.threads = try args.number(of: a, in: 1...64)
            case "--json": c.json = true
            case "-v", "--verbose": c.verbose = true
            default:
                if a.hasPrefix("-") && a.count > 1 { throw .unknownOption(a) }
                guard positional.isEmpty else { throw .decode("takes one VIDEO, not also '\(a)'") }
                positional.append(a)
            }
            args.advance()
        }
        guard let v = positional.first, !v.isEmpty else { throw .decode("needs VIDEO (\(usage))") }
        c.video = v
        return c
    }
}

/// What `wayloop decode` measured.
public struct DecodeReport: Equatable, Sendable {
    public var video: String
    /// The clip: "hevc 3840x2160 yuv420p10le 30 fps".
    public var clip: String
    /// The clip's own rate.
    public var clipFps: Double
    /// The path taken and why (HwdecState.text).
    public var path: String
    public var frames: Int
    public var passes: Int
    /// Wall seconds from the first frame to the last.
    public var seconds: Double
    /// The whole process's CPU seconds over the same frames (every thread: the decoder's,
    /// libavcodec's, the driver's).
    public var cpuSeconds: Double
    /// The start-up check's cost (seconds of wall time before the first frame), if one ran.
    public var checkSeconds: Double?
    /// The decoder thread's pool of AVFrames at the end (frames made; flat under a long run).
    public var poolFrames: Int
    /// Peak RSS (kB).
    public var maxRSSkB: Int

    public init(video: String, clip: String, clipFps: Double, path: String, frames: Int, passes: Int,
                seconds: Double, cpuSeconds: Double, checkSeconds: Double?, poolFrames: Int, maxRSSkB: Int) {
        self.video = video
        self.clip = clip
        self.clipFps = clipFps
        self.path = path
        self.frames = frames
        self.passes = passes
        self.seconds = seconds
        self.cpuSeconds = cpuSeconds
        self.checkSeconds = checkSeconds
        self.poolFrames = poolFrames
        self.maxRSSkB = maxRSSkB
    }

    public var fps: Double { seconds > 0 ? Double(frames) / seconds : 0 }
    /// CPU milliseconds per frame.
    public var cpuMsPerFrame: Double { frames > 0 ? cpuSeconds * 1000 / Double(frames) : 0 }
    /// Keeps the clip's rate (with 10 % to spare).
    public var keepsUp: Bool { fps >= clipFps * 1.1 }

    private static func r(_ x: Double, _ places: Double = 1000) -> Double { (x * places).rounded() / places }

    public var json: JSON {
        var pairs: [(String, JSON)] = [
            ("video", .string(video)), ("clip", .string(clip)), ("clip_fps", .number(Self.r(clipFps))),
            ("path", .string(path)),
            ("frames", .number(Double(frames))), ("passes", .number(Double(passes))),
            ("seconds", .number(Self.r(seconds))), ("fps", .number(Self.r(fps, 10))),
            ("cpu_seconds", .number(Self.r(cpuSeconds))), ("cpu_ms_per_frame", .number(Self.r(cpuMsPerFrame, 100))),
            ("keeps_up", .bool(keepsUp)), ("pool_frames", .number(Double(poolFrames))),
            ("max_rss_kb", .number(Double(maxRSSkB))),
        ]
        if let checkSeconds { pairs.append(("check_seconds", .number(Self.r(checkSeconds)))) }
        return .object(pairs)
    }

    /// The lines a person reads.
    public var text: String {
        var lines = ["\(video): \(clip)", "decode: \(path)"]
        lines.append("\(frames) frames (\(passes) passes) in \(String(oneDecimal: seconds)) s: \(String(oneDecimal: fps)) fps "
            + "against the clip's \(String(oneDecimal: clipFps)) (\(keepsUp ? "keeps up" : "does not keep up"))")
        lines.append("CPU: \(String(oneDecimal: cpuMsPerFrame)) ms per frame (\(String(oneDecimal: cpuSeconds)) s in all)")
        if let checkSeconds { lines.append("start-up check: \(String(oneDecimal: checkSeconds * 1000)) ms") }
        return lines.joined(separator: "\n")
    }
}
