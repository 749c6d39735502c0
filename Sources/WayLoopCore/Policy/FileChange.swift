// What a settled change of a watched file does: the config file reloads, a playlist's source
// is read again, a video in use opens again, a video that had failed is tried again. Pure: the
// shell says what the file is and carries out the actions in order.

/// The rule for a watched file whose change has settled.
public enum FileChange {
    /// What the shell knows of the file.
    public struct Facts: Equatable, Sendable {
        /// It is the config file in use.
        public var isConfig = false
        /// A playlist's source (a directory or a list file) changed what the playlist holds.
        public var playlistChanged = false
        /// It is a playlist directory (its own change says nothing of a video).
        public var isPlaylistDirectory = false
        /// A decoder has it open.
        public var open = false
        /// It had failed to open or decode.
        public var failed = false

        public init(isConfig: Bool = false, playlistChanged: Bool = false, isPlaylistDirectory: Bool = false,
                    open: Bool = false, failed: Bool = false) {
            self.isConfig = isConfig
            self.playlistChanged = playlistChanged
            self.isPlaylistDirectory = isPlaylistDirectory
            self.open = open
            self.failed = failed
        }
    }

    /// What to do, in order.
    public enum Action: Equatable, Sendable {
        /// Read the config file again (as SIGHUP does).
        case reloadConfig
        /// Reconcile: a playlist's items changed.
        case reconcile
        /// Stop its decoder and open it again; its outputs keep the last picture until the new
        /// one has a frame.
        case reopen
        /// Check it again, and reconcile if it passes.
        case retry
    }

    /// The actions for one settled change.
    public static func actions(_ f: Facts) -> [Action] {
        if f.isConfig { return [.reloadConfig] }
        var out: [Action] = []
        if f.playlistChanged {
            out.append(.reconcile)
            if f.isPlaylistDirectory { return out }
        }
        if f.open { out.append(.reopen) }
        if f.failed { out.append(.retry) }
        return out
    }
}
