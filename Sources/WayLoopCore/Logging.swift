// Logging with fixed level meanings and a subsystem label (after swift-log's shape; packages
// cannot be fetched here). Loggers are values passed in; the sink is injected, so tests capture.
//
//   error   something failed: the program, an output or a video cannot go on as asked
//   notice  one line a user wants to see (started, output added, compositor gone)
//   debug   state changes, sizes, choices made
//   trace   per-frame lines

/// How much is logged (`--log-level`); each level includes the ones before it.
public enum LogLevel: Int, Comparable, Sendable, CaseIterable {
    /// Something failed: the program, an output or a video cannot go on as asked.
    case error = 0
    /// One line a user wants to see: started, output added, compositor gone (the default).
    case notice
    /// State changes, sizes, choices made.
    case debug
    /// Per-frame lines.
    case trace

    /// The level called `name` (`error`, `notice`, `debug` or `trace`); nil for any other name.
    public init?(name: String) {
        guard let l = LogLevel.allCases.first(where: { $0.name == name }) else { return nil }
        self = l
    }
    /// The level's name, as `--log-level` takes it and each log line shows it.
    public var name: String {
        switch self {
        case .error: return "error"
        case .notice: return "notice"
        case .debug: return "debug"
        case .trace: return "trace"
        }
    }
    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
}

/// A logger for one subsystem: each message at or below `level` goes to the sink as one line,
/// `wayloop: LEVEL: LABEL: MESSAGE`.
public struct Logger: Sendable {
    /// Where the lines go (stderr in the program; tests capture them), one call per line.
    public typealias Sink = @Sendable (String) -> Void
    /// The subsystem each line names (`main`, `decode`, ...).
    public let label: String
    /// The most detailed level logged; messages above it are not built.
    public let level: LogLevel
    private let sink: Sink

    /// A logger for subsystem `label` that writes messages up to `level` to `sink`.
    public init(label: String, level: LogLevel, sink: @escaping Sink) {
        self.label = label
        self.level = level
        self.sink = sink
    }

    /// The same sink and level under another subsystem label.
    public func scoped(_ label: String) -> Logger { Logger(label: label, level: level, sink: sink) }

    /// Whether messages at level `l` are logged.
    public func enabled(_ l: LogLevel) -> Bool { l <= level }

    /// Logs `message` at level `l`; the message is only built when that level is logged.
    public func log(_ l: LogLevel, _ message: @autoclosure () -> String) {
        guard l <= level else { return }
        sink("wayloop: \(l.name): \(label): \(message())")
    }
    /// Logs `m` at error level.
    public func error(_ m: @autoclosure () -> String) { log(.error, m()) }
    /// Logs `m` at notice level.
    public func notice(_ m: @autoclosure () -> String) { log(.notice, m()) }
    /// Logs `m` at debug level.
    public func debug(_ m: @autoclosure () -> String) { log(.debug, m()) }
    /// Logs `m` at trace level.
    public func trace(_ m: @autoclosure () -> String) { log(.trace, m()) }
}

/// Text made safe to print as one line.
public enum LineText {
    /// `text` made one line for a terminal or a log (a path with a newline must not turn one
    /// error into two): control characters and DEL written as `\n`, `\t`, `\r` or `\u{1b}`,
    /// and a byte of a file name that is not UTF-8 (PathBytes) as `\xe9`.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = String.UnicodeScalarView()
        for u in text.unicodeScalars {
            guard isControl(u) else {
                out.append(u)
                continue
            }
            let e: String
            switch u {
            case "\n": e = "\\n"
            case "\t": e = "\\t"
            case "\r": e = "\\r"
            default:
                if let byte = PathBytes.escapedByte(u) {
                    e = "\\x" + String(byte, radix: 16)
                } else {
                    e = "\\u{" + String(u.value, radix: 16) + "}"
                }
            }
            out.append(contentsOf: e.unicodeScalars)
        }
        return String(out)
    }

    private static func isControl(_ u: Unicode.Scalar) -> Bool {
        u.value < 0x20 || u.value == 0x7f || (0x80...0x9f).contains(u.value) || PathBytes.escapedByte(u) != nil
    }
}

/// Lines for systemd's journal: a service's stderr connected to journald carries
/// `JOURNAL_STREAM=DEV:INODE`; each line then starts with its syslog priority (`<3>` error,
/// `<5>` notice, `<7>` debug and trace, `<6>` anything else), which journald strips and
/// records, so `journalctl -p err` finds the errors (sd-daemon(3)'s SD_ERR prefixes).
public enum Journal {
    public static func prefixed(_ line: String) -> String {
        let p: Int
        if line.hasPrefix("wayloop: error:") {
            p = 3
        } else if line.hasPrefix("wayloop: notice:") {
            p = 5
        } else if line.hasPrefix("wayloop: debug:") || line.hasPrefix("wayloop: trace:") {
            p = 7
        } else {
            p = 6
        }
        return "<\(p)>" + line
    }

    /// Whether `JOURNAL_STREAM` names the stream with this device and inode (a stderr that was
    /// redirected elsewhere since, by a wrapper script, keeps plain lines).
    public static func names(_ value: String?, device: UInt64, inode: UInt64) -> Bool {
        guard let value, let colon = value.firstIndex(of: ":"),
              let d = UInt64(value[..<colon]), let i = UInt64(value[value.index(after: colon)...]) else { return false }
        return d == device && i == inode
    }
}
