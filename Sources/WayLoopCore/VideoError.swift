// Why a video cannot be played: one case per reason, each one line naming the file. Pure: the
// decoder threads, the start-up checks and the director all speak it.

/// Why a video cannot be played. Each case renders as one line naming the file and the reason.
public enum VideoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No file at this path.
    case notFound(String)
    /// A bare name found neither where it was given nor in the wayloop data directories.
    case nameNotFound(String, places: String)
    /// The path is a directory where a video file was expected.
    case isDirectory(String)
    /// The file cannot be read (or is not a regular file); `reason` says why.
    case unreadable(String, reason: String)
    /// The file is empty.
    case empty(String)
    /// The file is not a playable video (FFmpeg cannot open it, or it is a device); `reason`
    /// says why.
    case notAVideo(String, reason: String)
    /// The file has no video stream (audio only, say).
    case noVideoStream(String)
    /// The video's codec, `codec`, has no decoder in this FFmpeg build.
    case unsupportedCodec(String, codec: String)
    /// No frame could be decoded; `reason` says why.
    case decodeFailed(String, reason: String)
    /// A directory or playlist file with nothing playable in it.
    case noVideos(String, directory: Bool, reason: String)
    /// The video on screen broke while it played: its last picture stays until the file
    /// changes. `error` is why it broke.
    indirect case lastPictureKept(VideoError)
    /// A failure as another process reported it (a status reply or a state event read back by
    /// `wayloop ctl`): its kind and its line, which is all that crosses the socket.
    case reported(FailureKind, String)

    public var description: String {
        switch self {
        case .notFound(let p): return "'\(p)': no such file"
        case .nameNotFound(let n, let places): return "'\(n)': no such file (looked for '\(n)' and '\(n).*' in \(places))"
        case .isDirectory(let p): return "'\(p)': is a directory, not a video file"
        case .unreadable(let p, let r): return "'\(p)': cannot read it: \(r)"
        case .empty(let p): return "'\(p)': the file is empty"
        case .notAVideo(let p, let r): return "'\(p)': not a playable video file (\(r))"
        case .noVideoStream(let p): return "'\(p)': has no video stream (audio only?)"
        case .unsupportedCodec(let p, let c):
            return "'\(p)': its video codec (\(c)) has no decoder in this FFmpeg build"
        case .decodeFailed(let p, let r): return "'\(p)': no frame could be decoded (\(r))"
        case .noVideos(let p, let d, let r):
            // A file is a playlist by its extension: say so, for a .txt that was never meant as one.
            let ext = p.split(separator: "/").last.flatMap { $0.contains(".") ? $0.split(separator: ".").last : nil }
            let why = d ? "" : ext.map { "; read as a playlist because its name ends in .\($0)" } ?? ""
            return "'\(p)': a \(d ? "directory" : "playlist") with no video to play (\(r)\(why))"
        case .lastPictureKept(let e): return "\(e); showing its last picture until the file changes"
        case .reported(_, let line): return line
        }
    }
}

extension VideoError {
    /// The state machine's kind: missing, not playable, or failed while decoding.
    public var failureKind: FailureKind {
        switch self {
        case .notFound, .nameNotFound: return .resourceNotFound
        case .decodeFailed: return .playbackFailed
        case .lastPictureKept(let e): return e.failureKind
        case .reported(let kind, _): return kind
        default: return .invalidResource
        }
    }
}

extension VideoError {
    /// The error line for a video named at `origin` (`FILE:LINE`, a config file's line), or
    /// given elsewhere (nil). A bare name in a config file is looked for beside that file before
    /// the wayloop data directories (ConfigFile.parse), so the places it names start there.
    public func line(namedAt origin: String?, home: String?) -> String {
        guard let origin else { return description }
        var e = self
        if case .nameNotFound(let n, let places) = self, let colon = origin.lastIndex(of: ":") {
            let file = origin[..<colon]
            let dir = file.contains("/") ? String(file[..<file.lastIndex(of: "/")!]) : "."
            let shown = VideoLookup.places([dir.isEmpty ? "/" : dir], home: home)
            e = .nameNotFound(n, places: places.isEmpty ? shown : shown + ", " + places)
        }
        return "\(e) (named at \(origin))"
    }
}

extension VideoError {
    /// The file the error names (nil for one read back from another process).
    public var path: String? {
        switch self {
        case .notFound(let p), .nameNotFound(let p, _), .isDirectory(let p), .unreadable(let p, _), .empty(let p),
             .notAVideo(let p, _), .noVideoStream(let p), .unsupportedCodec(let p, _), .decodeFailed(let p, _),
             .noVideos(let p, _, _):
            return p
        case .lastPictureKept(let e): return e.path
        case .reported: return nil
        }
    }

    /// The line without the file it names: for a listing that shows the file beside it.
    public var reason: String {
        let d = description
        guard let p = path else { return d }
        let prefix = "'\(p)': "
        return d.hasPrefix(prefix) ? String(d.dropFirst(prefix.count)) : d
    }
}
