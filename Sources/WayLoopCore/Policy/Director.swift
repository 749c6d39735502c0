// The director: every policy decision of the running program, pure. The shell builds a
// `World` (what each output asks for and draws, what is known of each video) after dispatch,
// asks the director, and carries out the effects it returns, in order: which decoders run,
// what each output draws (a switch, a fade, a fallback, the last picture of a broken video),
// when a request is answered, what is released or given back, when the process must stop.
// Nothing here touches a compositor, a file or a clock: each rule has its table test
// (Tests/WayLoopCoreTests/DirectorTests.swift).

/// One output as the director sees it.
public struct HeadView: Equatable, Sendable {
    public var id: UInt32
    /// What its entries ask for (nil: no entry names a video for it).
    public var target: OutputSettings?
    /// What it draws (a ready video's settings), and the video fading out under it.
    public var drawn: OutputSettings?
    public var fadeFrom: OutputSettings?
    /// The fallback colour it shows.
    public var solid: RGB?
    /// It has a layer surface; its sink has buffers of the configured size; it is configured.
    public var hasSurface = false
    public var sinkReady = false
    public var configured = false
    /// Paused by the user, a fullscreen window or the battery rule.
    public var drawPaused = false
    /// Not presented (its frame callbacks stopped), and covered by a fullscreen window.
    public var hidden = false
    public var covered = false
    /// Configured, presented and not paused: it can take a new frame now.
    public var canTakeFrame = false
    /// How its next switch looks, once (`ctl set --transition`).
    public var nextTransition: Transition?
    /// The video of the last picture it committed.
    public var presented: String?

    public init(id: UInt32, target: OutputSettings? = nil, drawn: OutputSettings? = nil) {
        self.id = id
        self.target = target
        self.drawn = drawn
    }

    /// It draws `path`, or fades it out.
    public func shows(_ path: String) -> Bool { drawn?.video == path || fadeFrom?.video == path }
}

/// What `Director.isHidden` asks of an output.
public protocol FrameTaker {
    /// Configured, presented and not paused: it can take a new frame now.
    var canTakeFrame: Bool { get }
    /// It draws `path`, or fades it out.
    func shows(_ path: String) -> Bool
}

extension HeadView: FrameTaker {}

/// One video as the director sees it: its record and, while it is open, its decoder's state.
public struct VideoFacts: Equatable, Sendable {
    /// A decoder runs for it (or is released: opened, its frames freed).
    public var open = false
    /// It opened without error (a released video stays ready: drawing restarts it).
    public var ready = false
    /// It had opened once (its stream info is known).
    public var opened = false
    public var released = false
    /// A frame of it is on screen or about to be.
    public var hasFrame = false
    /// It replays its loop cache from memory.
    public var replaying = false
    /// Bytes of decoded frames it holds.
    public var heldBytes = 0
    public var failure: VideoError?
    /// Kept ready for a switch back (`--keep-recent`).
    public var recent = false
    /// As a playlist's video: checked before it first opened.
    public var checked = false

    public init(open: Bool = false, ready: Bool = false, failure: VideoError? = nil) {
        self.open = open
        self.ready = ready
        self.opened = ready
        self.failure = failure
    }

    public static let ready = VideoFacts(open: true, ready: true)
    public static let opening = VideoFacts(open: true)
}

/// What the director decides from.
public struct World: Sendable {
    /// The connected outputs, by registry name.
    public var heads: [HeadView]
    /// Every video the table knows (absent: nothing known, not open).
    public var videos: [String: VideoFacts]
    /// The videos kept for a switch back, the oldest first.
    public var recent: [String]
    /// Videos opened ahead of a playlist switch.
    public var preloads: Set<String>

    public init(heads: [HeadView], videos: [String: VideoFacts], recent: [String] = [], preloads: Set<String> = []) {
        self.heads = heads.sorted { $0.id < $1.id }
        self.videos = videos
        self.recent = recent
        self.preloads = preloads
    }

    public func video(_ path: String) -> VideoFacts { videos[path] ?? VideoFacts() }
    public func failed(_ path: String) -> Bool { videos[path]?.failure != nil }
}

/// What to do with one decoder.
public enum VideoEffect: Equatable, Sendable {
    /// Start its decoder; `check` first (a playlist's video: a FIFO would block the decoder).
    case open(String, check: Bool)
    /// It was kept for a switch back and is wanted again: it is not kept any more, and
    /// `--release-after` counts from now (it was not seen while kept).
    case wantedAgain(String)
    /// No output shows it: keep it ready for a switch back.
    case keep(String)
    /// No output shows it (or it is the oldest kept beyond --keep-recent / --cache-mb): stop it.
    case stop(String, overBudget: Bool)
}

/// What to do with one output, in order.
public enum HeadEffect: Equatable, Sendable {
    /// Feed its state machine.
    case event(PlayerEvent)
    /// Its surface goes (with a fade and what it presented).
    case dropSurface
    case setDrawn(OutputSettings?)
    case setSolid(RGB?)
    /// Fade out of `from` (both play until it ends), or no fade.
    case startFade(from: OutputSettings, seconds: Double)
    case cancelFade
    /// The one-switch transition was used (or there was nothing to switch).
    case consumeTransition
    /// It switched to a new video: one notice (when it showed one before) and one state event.
    case switched(to: String, announce: Bool)
    /// It switched to a colour (a workspace's entry): the same, for a colour.
    case switchedToColour(RGB, announce: Bool)
    /// Draw it again, whatever its frame.
    case invalidate
    /// Recompute its fullscreen and battery pause reasons (they follow the drawn settings).
    case updatePause
    /// Its state machine goes to playing (through loading).
    case markPlaying
    /// Make its surface and sink: it has none, and has something to show (a ready video or a
    /// colour).
    case ensureSurface
}

/// How a held request ends.
public enum ReplyOutcome: Equatable, Sendable {
    /// Not yet: a video it waits for is opening, or not on screen yet.
    case wait
    case failed([VideoError])
    /// A video it waited for was stopped: a later change replaced it before it was shown.
    case superseded
    case succeeded
}

/// A reply held until the videos a request opened are ready (or failed).
public struct PendingReply: Sendable {
    public let client: Int
    public let waiting: Set<String>
    /// Playlists the request switched outputs to: waited for by the video each of those outputs
    /// plays when the reply is weighed (a video of it that fails is skipped, not an error).
    public var playlists: Set<String>
    public let success: JSON
    /// The `ctl set` override to take back when a video it named fails (the old one plays on).
    public var undoTag: Int?

    public init(client: Int, waiting: Set<String>, playlists: Set<String> = [], success: JSON, undoTag: Int? = nil) {
        self.client = client
        self.waiting = waiting
        self.playlists = playlists
        self.success = success
        self.undoTag = undoTag
    }
}

public enum Director {
    // MARK: Decoders

    /// The videos outputs show or are about to show: their drawn and target videos (the
    /// fallback video of a target that failed), those fading out, and those opened ahead.
    public static func needed(_ w: World) -> Set<String> {
        var needed = Set(w.heads.compactMap(\.drawn?.video)).union(w.heads.compactMap(\.fadeFrom?.video))
        for h in w.heads {
            // A colour needs no decoder (the output's own video is kept as any other switched from).
            guard let t = h.target, t.solid == nil else { continue }
            if !w.failed(t.video) { needed.insert(t.video) } else if case .video(let f)? = t.fallback { needed.insert(f) }
        }
        return needed.union(w.preloads.filter { !w.failed($0) })
    }

    /// Starts a decoder for every needed file, and stops the decoder of a file none needs any
    /// more (once it opened, or once anything started: at start-up every named file is checked
    /// by opening it). With `--keep-recent N` a ready video is kept instead, at most N of them
    /// within the `--cache-mb` budget, the oldest going first.
    public static func syncVideos(_ w: World, playlistItems: Set<String>, started: Bool, keepRecent: Int,
                                  cacheBudget: Int) -> [VideoEffect] {
        let needed = needed(w)
        var fx: [VideoEffect] = []
        for p in needed.sorted() where !w.video(p).open && !w.failed(p) {
            fx.append(.open(p, check: playlistItems.contains(p) && !w.video(p).checked))
        }
        for p in w.recent where needed.contains(p) { fx.append(.wantedAgain(p)) }
        var recent = w.recent.filter { !needed.contains($0) && w.video($0).open }
        for (path, v) in w.videos.sorted(by: { $0.key < $1.key }) where v.open && !needed.contains(path) && (v.opened || started) {
            if keepRecent > 0 && v.ready && !v.released && v.failure == nil {
                if !recent.contains(path) {
                    recent.append(path)
                    fx.append(.keep(path))
                }
                continue
            }
            recent.removeAll { $0 == path }
            fx.append(.stop(path, overBudget: false))
        }
        for oldest in RecentVideos.overflow(recent, keep: keepRecent, budget: cacheBudget, heldBytes: { w.video($0).heldBytes }) {
            fx.append(.stop(oldest, overBudget: true))
        }
        return fx
    }

    // MARK: Outputs

    /// Brings one output towards its target: switch once the new video is ready (the old one
    /// plays until then: no black frame), fading from a picture on screen; keep the old video
    /// if the new one failed; a video on screen that broke keeps its last picture; else the
    /// fallback video or colour, else the surface goes.
    public static func reconcile(_ h: HeadView, _ w: World) -> [HeadEffect] {
        guard let target = h.target else {
            let fx: [HeadEffect] = h.drawn != nil || h.solid != nil || h.hasSurface ? [.dropSurface, .setDrawn(nil), .setSolid(nil)] : []
            return fx + [.event(.unload)]
        }
        if let colour = target.solid { return showColour(colour, h, w) }
        var fx: [HeadEffect] = []
        var want: OutputSettings? = target
        if let e = w.video(target.video).failure {
            want = nil
            if case .video(let f)? = target.fallback, !w.failed(f) {
                want = target
                want!.video = f
            }
            // A switch that failed keeps the old video: only a bare output fails.
            if let active = h.drawn, !w.failed(active.video), active.video != want?.video { return [] }
            // The video on screen broke and no fallback video can play: its last picture stays
            // (the surface keeps its buffer) until the file or the settings change.
            if want == nil, let active = h.drawn, active.video == target.video, h.hasSurface {
                return [.event(.fail(.lastPictureKept(e)))]
            }
            fx.append(.event(.fail(e)))
        }
        let previous = h.drawn
        var drawn = previous
        if let want {
            if previous?.video == want.video {
                // Nothing to switch: a one-switch transition is not kept for a later one.
                if h.nextTransition != nil && want.video == target.video { fx.append(.consumeTransition) }
                if previous != want {
                    drawn = want
                    fx += [.setDrawn(want), .invalidate, .updatePause]
                }
            } else if w.video(want.video).ready {
                let transition = h.nextTransition ?? want.transition
                fx.append(.consumeTransition)
                if let previous, transition.seconds > 0, h.solid == nil, h.sinkReady, w.video(previous.video).hasFrame, !h.drawPaused {
                    fx.append(.startFade(from: previous, seconds: transition.seconds))
                } else {
                    fx.append(.cancelFade)
                }
                drawn = want
                fx += [.setDrawn(want), .setSolid(nil), .invalidate, .updatePause, .switched(to: want.video, announce: previous != nil)]
            } else if previous == nil && h.solid == nil && !w.failed(target.video) {
                fx.append(.event(.load))
            }
        } else {
            // The target failed (the state machine says so now): its fallback colour, or nothing.
            if previous != nil { fx.append(.setDrawn(nil)) }
            drawn = nil
            fx.append(.cancelFade)
            if case .color(let c)? = target.fallback {
                if h.solid != c { fx += [.setSolid(c), .invalidate] }
            } else {
                fx += [.dropSurface, .setSolid(nil)]
            }
        }
        if drawn != nil && !w.failed(target.video) { fx.append(.markPlaying) }
        if needsSurface(h, drawn: drawn, solid: solid(after: fx, was: h.solid), w) { fx.append(.ensureSurface) }
        return fx
    }

    /// A colour as the target (a workspace's entry): at once, in place of the video (which
    /// stops being drawn: no fade, whose steps mix two pictures of video), on the same surface.
    /// The output plays: its state is what it would be with a video, and its pause rules still
    /// apply.
    static func showColour(_ colour: RGB, _ h: HeadView, _ w: World) -> [HeadEffect] {
        var fx: [HeadEffect] = []
        if h.fadeFrom != nil { fx.append(.cancelFade) }
        if h.nextTransition != nil { fx.append(.consumeTransition) }
        if h.drawn != nil { fx += [.setDrawn(nil)] }
        if h.solid != colour {
            fx += [.setSolid(colour), .invalidate, .updatePause, .switchedToColour(colour, announce: h.drawn != nil || h.solid != nil)]
        }
        fx.append(.markPlaying)
        if needsSurface(h, drawn: nil, solid: colour, w) { fx.append(.ensureSurface) }
        return fx
    }

    /// An output gets a surface once it has something to show: a ready video, or a colour.
    /// One that has a surface keeps it (until an effect drops it).
    static func needsSurface(_ h: HeadView, drawn: OutputSettings?, solid: RGB?, _ w: World) -> Bool {
        guard !h.hasSurface else { return false }
        return solid != nil || drawn.map { w.video($0.video).ready } == true
    }

    /// The colour an output shows once `fx` are carried out.
    private static func solid(after fx: [HeadEffect], was: RGB?) -> RGB? {
        fx.reduce(was) { colour, effect in
            if case .setSolid(let c) = effect { return c }
            return colour
        }
    }

    // MARK: Replies

    /// What a `ctl set` reply waits for: the named video until it is on screen, ready or not
    /// (a recent one, or one another output shows; a playlist is weighed by its run instead);
    /// a fallback video only until it is open.
    public static func setWaitsFor(video: String?, videoIsPlaylist: Bool, fallback: String?, fallbackReady: Bool) -> Set<String> {
        var waiting: Set<String> = []
        if let video, !videoIsPlaylist { waiting.insert(video) }
        if let fallback, !fallbackReady { waiting.insert(fallback) }
        return waiting
    }

    /// Every output switched to `path` that is being presented has committed a picture of it
    /// (for a fade: its first step). Hidden outputs (no frame callbacks) are not waited for.
    public static func isOnScreen(_ path: String, _ w: World) -> Bool {
        !w.heads.contains { $0.drawn?.video == path && $0.presented != path && $0.configured && !$0.hidden }
    }

    /// Whether a held reply can be sent, and which. `playlistError` says why a playlist can
    /// play nothing at all (nil: some video of it can).
    public static func outcome(_ p: PendingReply, _ w: World, playlistError: (String) -> VideoError?) -> ReplyOutcome {
        // What the playlists' outputs play now (it moves on past a video that failed).
        let played = Set(w.heads.compactMap { h -> String? in
            guard let t = h.target, let source = t.playlist, p.playlists.contains(source), !w.failed(t.video) else { return nil }
            return t.video
        })
        let open = p.waiting.union(played).contains { path in
            let v = w.video(path)
            // A playlist's video not open yet is about to be (it is needed): wait for it.
            guard v.failure == nil, v.open else { return played.contains(path) }
            return !v.ready || !isOnScreen(path, w)
        }
        if open { return .wait }
        let errors = p.waiting.sorted().compactMap { w.video($0).failure } + p.playlists.sorted().compactMap(playlistError)
        if !errors.isEmpty { return .failed(errors) }
        // A video that was neither shown nor failed was stopped: a later change replaced it.
        let gone = p.waiting.contains { path in !w.video(path).open && !w.failed(path) && !w.heads.contains { $0.drawn?.video == path } }
        return gone ? .superseded : .succeeded
    }

    // MARK: Memory

    /// Some output shows `path` now, neither covered by a fullscreen window nor unpresented
    /// (a frame callback outstanding, or a user pause, does not hide a picture).
    public static func isSeen(_ path: String, _ w: World) -> Bool {
        w.heads.contains { $0.hasSurface && $0.shows(path) && !$0.hidden && !$0.covered }
    }

    /// No output showing `path` can take a frame: all hidden, covered or paused for a reason.
    public static func isHidden(_ path: String, _ w: World) -> Bool { isHidden(path, among: w.heads) }

    /// The same rule, asked of the shell's outputs themselves: the timers ask it every pass,
    /// and a snapshot per pass would cost more than the rule.
    @inlinable
    public static func isHidden<H: FrameTaker>(_ path: String, among heads: some Sequence<H>) -> Bool {
        !heads.contains { $0.canTakeFrame && $0.shows(path) }
    }

    /// `--release-after` applies: open and ready, not released, nobody can take its frames, and
    /// neither kept for a switch back nor opened ahead of a playlist switch.
    public static func mayRelease(_ path: String, _ w: World) -> Bool {
        let v = w.video(path)
        return v.open && v.ready && !v.released && isHidden(path, w) && !v.recent && !w.preloads.contains(path)
    }

    /// What memory pressure gives back, video by video (PressurePlan), for `paths`.
    public static func pressure(_ paths: [String], _ w: World) -> [PressurePlan.Action] {
        PressurePlan.actions(paths.map { p in
            let v = w.video(p)
            return PressurePlan.Clip(hidden: !isSeen(p, w), released: v.released, replaying: v.replaying, recent: v.recent, ready: v.ready)
        })
    }

    // MARK: The end

    /// Nothing can ever be shown: no video ever became ready, every named one cannot be played,
    /// and no fallback colour can stand in. The process stops (exit 5).
    public static func nothingCanPlay(started: Bool, videos: [String], unplayable: (String) -> Bool, hasFallbackColor: Bool) -> Bool {
        !started && videos.allSatisfy(unplayable) && !hasFallbackColor
    }
}

/// A picture that outputs show alike: one video on buffers of one size.
public struct SharedPicture: Hashable, Sendable {
    public var video: String
    public var width: Int, height: Int
    public init(video: String, width: Int, height: Int) {
        self.video = video
        self.width = width
        self.height = height
    }
}

extension Director {
    /// The pictures that two or more outputs show (`shown`: each output's, nil where it shows
    /// no video): a device that can convert a frame once for all of them does (GL, at the
    /// video's display size). Decided once per draw pass, after the configures.
    public static func sharedPictures(_ shown: [SharedPicture?]) -> Set<SharedPicture> {
        var seen: Set<SharedPicture> = [], shared: Set<SharedPicture> = []
        for p in shown.compactMap({ $0 }) where !seen.insert(p).inserted { shared.insert(p) }
        return shared
    }
}

/// `--keep-recent`: the videos switched away from, kept ready for a switch back, the oldest
/// first. The one rule the wallpaper (Director.syncVideos) and a host's VideoView both apply.
public enum RecentVideos {
    /// The oldest of `recent` (oldest first) that go: while more than `keep` are kept, or what
    /// they hold (queued frames and loop caches) is over `budget` bytes.
    public static func overflow(_ recent: [String], keep: Int, budget: Int, heldBytes: (String) -> Int) -> [String] {
        var kept = recent
        var gone: [String] = []
        while let oldest = kept.first, kept.count > max(0, keep) || kept.map(heldBytes).reduce(0, +) > budget {
            kept.removeFirst()
            gone.append(oldest)
        }
        return gone
    }
}
