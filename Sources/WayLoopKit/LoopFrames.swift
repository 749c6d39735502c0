// Frames only: the gapless, pre-decoded loop as pictures with their timing and pass, for a host
// that draws with its own GL or Vulkan (or writes files). The same decoder thread, frame queue
// and loop cache as the wallpaper; no compositor.
import CFFmpeg
import Glibc
import WayLoopCore

/// A video's gapless loop as frames, decoded ahead on a thread of its own: pass after pass,
/// each frame stamped on one endless timeline (pass 0 starts at 0 s; the loop's seam has no gap).
///
/// ```swift
/// let loop = try LoopFrames(video: "ocean")
/// while let frame = loop.next(), frame.pass == 0 {
///     let rgb = try frame.rgb(width: 320, height: 180)   // packed RGB, aspect-filled
///     frame.release()
/// }
/// ```
///
/// Each ``LoopFrame`` is leased: its pixels stay valid until ``LoopFrame/release()`` (or until
/// it is deinitialised). Release them in time: the decoder waits while the frames held and
/// queued fill the queue (`queueFrames`). Use one `LoopFrames` from one thread at a time.
public final class LoopFrames {
    /// The file it decodes.
    public let video: String
    /// The video as opened: coded size, frame rate, codec, how it is shown.
    public let info: LoopInfo
    private let channel: FrameChannel
    private var thread: WorkerThread?
    private let wakeup: WakeupFD

    /// Opens `video` (a path, or a name looked up as ``Wallpaper/find(_:)`` does) and starts
    /// decoding. `queueFrames` (2…120) frames are decoded ahead; a loop whose decoded frames fit
    /// `cacheMB` MiB is decoded once and replayed from memory. Throws why it cannot be played.
    public init(video: String, queueFrames: Int = 8, cacheMB: Int = 128, logSink: Logger.Sink? = nil) throws(VideoError) {
        let path = Wallpaper.find(video) ?? video
        self.video = path
        if let e = Preflight.check(path) { throw e }
        guard let wakeup = WakeupFD() else { throw .unreadable(path, reason: "cannot make an eventfd: \(Sys.errnoText())") }
        self.wakeup = wakeup
        av_quiet()
        let log = Logger(label: "frames", level: .notice, sink: logSink ?? { Sys.writeStderr($0) })
        let channel = FrameChannel(capacity: min(max(queueFrames, 2), 120), wakeup: wakeup, limits: PictureLimits(),
                                   cacheBudget: max(0, cacheMB) << 20, decoderThreads: 2)
        guard let thread = Decoder.start(path: path, channel: channel, log: log) else {
            throw .unreadable(path, reason: "cannot start a decoder thread")
        }
        while case .opening = channel.status { Self.wait(wakeup, ms: 100) }
        switch channel.status {
        case .opening, .failed:
            channel.requestStop()
            thread.join()
            if case .failed(let e) = channel.status { throw e }
            throw .decodeFailed(path, reason: "the decoder stopped")
        case .ready(let i):
            info = LoopInfo(width: i.width, height: i.height, frameRate: i.frameRate, codec: i.codec, orientation: i.orientation)
        }
        self.channel = channel
        self.thread = thread
    }

    deinit { stop() }

    /// The next frame in order (one pass after another, for ever), waiting up to `timeout`
    /// seconds for the decoder; nil when none came (the frames held fill the queue, or the
    /// decoder failed: see ``error``).
    public func next(timeout: Double = 10) -> LoopFrame? {
        let deadline = Sys.now() + Nanos(timeout * 1e9)
        while true {
            if let f = channel.takeNext() {
                channel.frameTaken(f)
                return LoopFrame(f, channel: channel, orientation: info.orientation)
            }
            if case .failed = channel.status { return nil }
            let left = deadline - Sys.now()
            guard left > 0 else { return nil }
            Self.wait(wakeup, ms: Int32(min(left / 1_000_000 + 1, 100)))
        }
    }

    /// Bytes of decoded frames its loop cache holds (0 until a pass has been decoded whole, and
    /// after ``releaseMemory()``).
    public var cachedBytes: Int { channel.cacheBytes }

    /// Gives back memory, as on a memory warning: the loop stops replaying from memory and is
    /// decoded each pass again, from the next pass, with no gap in the frames. A `LoopFrames`
    /// watches nothing itself: call it when your program is told memory is short.
    public func releaseMemory() { channel.requestCacheDrop() }

    /// Why decoding stopped, if it failed after opening (a file broken mid-stream).
    public var error: VideoError? {
        if case .failed(let e) = channel.status { return e }
        return nil
    }

    private func stop() {
        channel.requestStop()
        thread?.join()
        thread = nil
    }

    private static func wait(_ wakeup: WakeupFD, ms: Int32) {
        var p = pollfd(fd: wakeup.fd, events: Int16(POLLIN), revents: 0)
        if poll(&p, 1, ms) > 0 { wakeup.drain() }
    }
}

/// A video as ``LoopFrames`` opened it.
public struct LoopInfo: Sendable, Equatable {
    /// The coded width, in pixels (before ``orientation``).
    public let width: Int
    /// The coded height, in pixels (before ``orientation``).
    public let height: Int
    /// Frames per second (the stream's average).
    public let frameRate: Double
    /// FFmpeg's name of the codec (`h264`, `hevc`, `vp9`, …).
    public let codec: String
    /// How the picture is shown: the rotation and mirroring its metadata asks for.
    public let orientation: Orientation
}

/// One decoded frame of a ``LoopFrames`` loop, leased until ``release()``.
public final class LoopFrame {
    /// Which pass through the loop (0 for the first).
    public let pass: Int
    /// Its index within the pass.
    public let index: Int
    /// When it starts on the loop's endless timeline, in seconds (pass 0 starts at 0).
    public let time: Double
    /// How long it is shown, in seconds.
    public let duration: Double
    /// How the picture is shown (rotation and mirroring from the file's metadata).
    public let orientation: Orientation
    private var handle: FrameHandle?
    private let channel: FrameChannel

    init(_ f: StampedFrame<FrameHandle>, channel: FrameChannel, orientation: Orientation) {
        pass = f.pass
        index = f.index
        time = Double(f.mediaTime) / 1e9
        duration = Double(f.duration) / 1e9
        handle = f.payload
        self.channel = channel
        self.orientation = orientation
    }

    deinit { release() }

    /// The decoded picture's width as stored (before ``orientation``), in pixels; 0 once released.
    public var width: Int { handle.map { Int($0.frame.pointee.width) } ?? 0 }
    /// The decoded picture's height as stored (before ``orientation``), in pixels; 0 once released.
    public var height: Int { handle.map { Int($0.frame.pointee.height) } ?? 0 }

    /// The picture as an output of `width` x `height` pixels would show it with `mode`
    /// (aspect-fill by default): packed RGB, 3 bytes a pixel, rows without padding, upright.
    /// The colours are converted as the wallpaper's shm renderer converts them.
    public func rgb(width: Int, height: Int, mode: ScaleMode = .fill) throws(FrameError) -> [UInt8] {
        guard let handle else { throw FrameError("the frame was released") }
        guard width > 0, height > 0 else { throw FrameError("the size \(width)x\(height) is empty") }
        guard let picture = Picture(frame: handle.frame, serial: FrameSerials.next(), clip: "", orientation: orientation) else {
            throw FrameError("its pixel format cannot be converted")
        }
        do {
            return try Still.render(picture, output: Size(width: width, height: height), mode: mode, color: .black, dim: 0).pixels
        } catch { throw FrameError(error.description) }
    }

    /// Gives the frame back to the decoder; its pixels are gone. Calling it again does nothing.
    public func release() {
        guard let h = handle else { return }
        handle = nil
        channel.release(h)
    }
}

/// Why a frame could not be converted or written: one line.
public struct FrameError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ d: String) { description = d }
}

/// PNG files, written with FFmpeg's encoder (no other library).
public enum PNGFile {
    /// Writes packed RGB (3 bytes a pixel, rows without padding) as a PNG file, whole or not
    /// at all (a temporary file beside it, then renamed).
    public static func write(_ rgb: [UInt8], width: Int, height: Int, to path: String) throws(FrameError) {
        guard width > 0, height > 0, rgb.count == width * height * 3 else {
            throw FrameError("\(rgb.count) bytes are not a \(width)x\(height) RGB picture")
        }
        do { try Still.writePNG(rgb, size: Size(width: width, height: height), to: path) } catch { throw FrameError(error.description) }
    }
}
