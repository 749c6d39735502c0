// One output and everything WayLoop keeps for it (after SCTK's per-output objects and foot's
// monitor): the wl_output, the layer surface and its sink, what its entries ask for, what it
// draws, its fallback colour and its state machine. Removing an output is removing its head.
// Main thread only.
import WayLoopCore

final class Head: FrameTaker {
    /// The workspace the output shows, where the compositor says (ScreenFacts).
    var workspace: String?
    let output: Output
    var id: UInt32 { output.globalName }
    var name: String { output.displayName }
    /// The layer surface and the sink that draws on it: both or neither.
    private(set) var surface: LayerSurface?
    private(set) var sink: Sink?
    /// What the entries ask for (nil: no entry names a video for this output).
    var target: OutputSettings?
    /// What it draws: settings whose video is ready. Lags `target` while a new video opens (the
    /// old one keeps playing), and keeps the old one if the new one fails.
    var drawn: OutputSettings?
    /// The fallback colour shown (its video failed and nothing else plays here).
    var solid: RGB?
    /// A crossfade from the video shown before `drawn` (both play until it ends); `start` is
    /// set by the first draw of the new video, so the fade runs its whole length on screen.
    struct Fade {
        var from: OutputSettings
        var seconds: Double
        var start: Nanos?
    }
    var fade: Fade?
    /// The video of the last picture committed (a switch is answered once it is the new one).
    var presentedVideo: String?
    /// When the fade last drew (it steps at Transition.fadeStep).
    var lastFadeDraw: Nanos = 0
    /// `ctl set --transition`: how the next switch looks, once (then the settings' own again).
    var nextTransition: Transition?
    /// idle, loading, playing, paused(reason), failed.
    var player = PlayerStateMachine()
    /// Running on battery (the app's power check): `--battery-fps` applies.
    var onBattery = false
    /// The slot of the frame last committed under a cap (FrameCap; nil: drawn without one).
    var shownSlot: Int64?
    /// When the loop must wake for it next, worked out by its draw from the schedule it drew by
    /// (Schedule.wake): the "frames" timer reads it, and the schedule is built once per pass.
    var nextWake: Nanos?
    /// Frames per second at most, now (nil: no cap).
    var cap: Double? { drawn.flatMap { FrameCap.effective(maxFps: $0.maxFps, batteryFps: $0.batteryFps, onBattery: onBattery) } }
    /// It draws `path`, or fades it out.
    func shows(_ path: String) -> Bool { drawn?.video == path || fade?.from.video == path }
    /// Drawing is paused (user, fullscreen, battery); `hidden` stops by itself (no callbacks).
    var drawPaused: Bool { player.pauseReasons.contains { $0 != .hidden } }
    /// Can take a new frame now: configured, presented, not paused.
    var canTakeFrame: Bool { surface?.canTakeFrame == true && !drawPaused }

    init(output: Output) { self.output = output }

    /// Children first: the sink (EGL surface and window, or buffers) before the wl_surface.
    deinit { dropSurface() }

    /// Its layer surface on `layer`, drawn by `sink`; false when the compositor gave none.
    func makeSurface(compositor: WLCompositor, layerShell: LayerShell, registry: Registry, layer: Layer, sink: Sink,
                     delegate: LayerSurfaceDelegate) -> Bool {
        guard let s = LayerSurface(outputID: id, compositor: compositor, layerShell: layerShell, output: output, scale: output.info.scale,
                                   outputScale120: output.info.scale120,
                                   viewporter: registry.viewporter, fractionalScale: registry.fractionalScale,
                                   contentType: registry.contentType, singlePixel: registry.singlePixel, layer: layer) else {
            return false
        }
        s.delegate = delegate
        dropSurface()
        self.sink = sink
        self.surface = s
        return true
    }

    /// The surface goes, and with it a fade and what it showed.
    func dropSurface() {
        sink = nil
        surface = nil
        fade = nil
        presentedVideo = nil
    }
}

extension Head {
    /// The head as the director sees it.
    var view: HeadView {
        var v = HeadView(id: id, target: target, drawn: drawn)
        v.fadeFrom = fade?.from
        v.solid = solid
        v.hasSurface = surface != nil
        v.sinkReady = surface?.sinkReady == true
        v.configured = surface?.isConfigured == true
        v.drawPaused = drawPaused
        v.hidden = player.pauseReasons.contains(.hidden)
        v.covered = player.pauseReasons.contains { $0.isWindowRule }
        v.canTakeFrame = canTakeFrame
        v.nextTransition = nextTransition
        v.presented = presentedVideo
        return v
    }
}

extension Head {
    /// What it needs of `path` when it shows or will show it: the pixels (its buffer size once
    /// configured, else the output's mode; a span output: the whole canvas at its density) and
    /// the scale mode. The video fading out keeps the scale it has here until the fade ends.
    func need(of path: String) -> (size: Size, mode: ScaleMode)? {
        guard let s = [drawn ?? target, fade?.from].compactMap({ $0 }).first(where: { $0.video == path }) else { return nil }
        let size = surface.map(\.bufferSize).flatMap { $0.isEmpty ? nil : $0 } ?? output.info.physicalSize
        return (Span.neededSize(buffer: size, span: s.span), s.mode.single)
    }
}
