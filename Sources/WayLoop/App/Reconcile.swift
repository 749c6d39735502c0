// Bringing every output towards what its entries ask for: which videos run, what each output
// draws, when its surface is made. Runs after dispatch (listeners only set needsReconcile).
// Main thread only.
import WayLoopCore

extension App {
    /// The videos outputs show or are about to show: their drawn and target videos, and the
    /// fallback video of a target that failed.
    var neededVideos: Set<String> {
        var needed = Set(heads.values.compactMap(\.drawn?.video)).union(heads.values.compactMap(\.fade?.from.video))
        for h in heads.values {
            guard let t = h.target else { continue }
            if failedVideos[t.video] == nil { needed.insert(t.video) } else if case .video(let f)? = t.fallback { needed.insert(f) }
        }
        return needed.union(preloads)
    }

    /// Starts a decoder for every file an output shows or will show, and stops (set, wake,
    /// join) the decoder of a file that none needs any more (once it has been checked).
    func syncVideos() {
        let needed = neededVideos
        let items = playlistItems
        for path in needed where videos[path] == nil && failedVideos[path] == nil {
            // A playlist's video is checked when it first comes up (a FIFO or a device would
            // block its decoder, and joining it the main thread): a bad one is skipped.
            if items.contains(path) && checkedItems.insert(path).inserted, let e = Preflight.check(path) {
                log.scoped("video").error("\(e) (in a playlist; skipped)")
                failedVideos[path] = e
                continue
            }
            if !startVideo(path) { exitStatus = .failure }
        }
        // Wanted again: it was not seen while kept, so --release-after counts from now.
        for p in recent where needed.contains(p) { videos[p]?.lastDrawn = Sys.now() }
        recent.removeAll { needed.contains($0) || videos[$0] == nil }
        for (path, v) in videos where !needed.contains(path) && (v.info != nil || started) {
            if options.keepRecent > 0 && v.isReady && !v.isReleased && failedVideos[path] == nil {
                if !recent.contains(path) {
                    recent.append(path)
                    log.debug("'\(path)': no output shows it: kept ready for a switch back (--keep-recent)")
                }
                continue
            }
            log.debug("'\(path)': no output shows it: decoder stopped")
            recent.removeAll { $0 == path }
            stopVideo(v)
        }
        // At most --keep-recent of them, within the --cache-mb budget: the oldest go first.
        let budget = options.cacheMB << 20
        while let oldest = recent.first,
              recent.count > options.keepRecent || recent.compactMap({ videos[$0]?.heldBytes }).reduce(0, +) > budget {
            recent.removeFirst()
            if let v = videos[oldest] {
                log.debug("'\(oldest)': dropped from the recent videos (--keep-recent \(options.keepRecent), --cache-mb \(options.cacheMB))")
                stopVideo(v)
            }
        }
    }

    /// Brings every output's drawn settings towards its target: switch to a video once it is
    /// ready (the old one plays until then, so no black frame), keep the old one if the new one
    /// failed, else show the fallback; updates the state machines. Starts and stops decoders.
    func reconcile() {
        needsReconcile = false
        guard rendererKind != nil else { return }
        syncVideos()
        for h in heads.values where h.output.isDone {
            guard let target = h.target else {
                if h.drawn != nil || h.solid != nil || h.surface != nil {
                    h.dropSurface()
                    h.drawn = nil
                    h.solid = nil
                }
                apply(h, .unload)
                continue
            }
            var want: OutputSettings? = target
            if let e = failedVideos[target.video] {
                want = nil
                if case .video(let f)? = target.fallback, failedVideos[f] == nil {
                    want = target
                    want!.video = f
                }
                // A switch that failed keeps the old video: only a bare output fails.
                if let active = h.drawn, failedVideos[active.video] == nil, active.video != want?.video {
                    continue
                }
                // The video on screen broke (rewritten in place, unreadable mid-stream) and no
                // fallback video can play: its last picture stays (the surface keeps its buffer)
                // until the file changes again or the settings do.
                if want == nil, let active = h.drawn, active.video == target.video, h.surface != nil {
                    apply(h, .fail(e.failureKind, "\(e); showing its last picture until the file changes"))
                    continue
                }
                apply(h, .fail(e.failureKind, "\(e)"))
            }
            let previous = h.drawn
            if let want {
                if previous?.video == want.video {
                    if previous != want {
                        h.drawn = want
                        h.surface?.invalidate()
                        updatePause(h)
                    }
                } else if videos[want.video]?.isReady == true {
                    // Both play while the new one fades in (from a picture on screen only).
                    let transition = h.nextTransition ?? want.transition
                    h.nextTransition = nil
                    if let previous, transition.seconds > 0, h.solid == nil, h.surface?.sinkReady == true,
                       videos[previous.video]?.current != nil, !h.drawPaused {
                        h.fade = Head.Fade(from: previous, seconds: transition.seconds, start: nil)
                    } else {
                        h.fade = nil
                    }
                    h.drawn = want
                    h.solid = nil
                    if previous != nil { log.notice("\(h.name): switched to '\(want.video)'") }
                    h.surface?.invalidate()
                    updatePause(h)
                    publishVideoChange(h)
                } else if previous == nil && h.solid == nil && failedVideos[target.video] == nil {
                    apply(h, .load)
                }
            } else if case .failed = h.player.state {
                let colour: RGB? = { if case .color(let c)? = target.fallback { return c }; return nil }()
                if previous != nil { h.drawn = nil }
                h.fade = nil
                if let colour {
                    if h.solid != colour {
                        h.solid = colour
                        h.surface?.invalidate()
                    }
                } else {
                    h.dropSurface()
                    h.solid = nil
                }
            }
            if h.drawn != nil, failedVideos[target.video] == nil { markPlaying(h) }
            ensureSurface(h)
        }
        syncVideos()
        updateDecodeScales()
        watcher?.watch(watchedFiles, directories: Set(playlists.values.map(\.key.source).filter(PlaylistSource.isDirectory)))
        resolvePending()
    }

    /// The files whose change matters: every video an entry names, and the config file.
    var watchedFiles: Set<String> {
        var files = Set((options.allVideos + recent).filter { $0.hasPrefix("/") }).union(playlistItems)
        if let c = App.configPath(commandLine) { files.insert(c) }
        return files
    }

    /// Acts on the files that changed and settled: the config file reloads (like SIGHUP), a
    /// video in use is opened again (its outputs keep the last picture until the new one has a
    /// frame), a video that had failed is tried again.
    func applyFileChanges(now: Nanos) {
        let due = changed.filter { $0.value <= now }.map(\.key)
        guard !due.isEmpty else { return }
        for p in due { changed[p] = nil }
        var touched = false
        let config = App.configPath(commandLine)
        for path in due.sorted() {
            // Checked again when it next comes up.
            checkedItems.remove(path)
            if path == config {
                log.notice("the config file changed: reloading")
                _ = reload(replyTo: nil)
                continue
            }
            if playlists.values.contains(where: { $0.key.source == path }) {
                playlistChanged(path)
                touched = true
                if PlaylistSource.isDirectory(path) { continue }
            }
            if let v = videos[path] {
                log.notice("'\(path)' changed on disk: opening it again")
                stopVideo(v)
                // Its outputs draw the new clip's first frame whatever its serial.
                for h in heads.values where h.drawn?.video == path { h.surface?.invalidate() }
                touched = true
            }
            if failedVideos[path] != nil && recheck([path]).isEmpty { touched = true }
        }
        if touched { reconcile() }
    }

    /// Tells each decoder the scale its frames are needed at: the largest output showing the
    /// video (its buffer size once configured, else the output's mode), by its mode.
    func updateDecodeScales() {
        for v in videos.values {
            guard let info = v.info else { continue }
            let outputs = outputsShowing(v.path)
            v.setDecodeScale(DecodeScale.factor(video: Size(width: info.width, height: info.height),
                                                turned: info.orientation.rotation % 180 != 0, outputs: outputs), outputs: outputs)
        }
    }

    /// The outputs that show or will show `path`: their buffer size once configured, else the
    /// output's mode, and the scale mode. A span output counts as the whole canvas at its density.
    func outputsShowing(_ path: String) -> [(size: Size, mode: ScaleMode)] {
        heads.values.compactMap { h in
            // The video fading out keeps the scale it has on this output until the fade ends.
            guard let s = [h.drawn ?? h.target, h.fade?.from].compactMap({ $0 }).first(where: { $0.video == path }) else { return nil }
            let size = h.surface.map(\.bufferSize).flatMap { $0.isEmpty ? nil : $0 } ?? h.output.info.physicalSize
            guard let span = s.span, span.output.width > 0, span.output.height > 0 else { return (size, s.mode.single) }
            return (Size(width: Int((Double(size.width) * span.canvas.width / span.output.width).rounded(.up)),
                         height: Int((Double(size.height) * span.canvas.height / span.output.height).rounded(.up))), s.mode.single)
        }
    }

    /// `-m span`: the outputs that show the same video with the same span mode form one canvas
    /// (the bounding box of their layout rectangles); each target gets its part. Recomputed
    /// whenever targets or the layout change.
    func assignSpans() {
        var groups: [String: [Head]] = [:]
        for h in heads.values where h.output.isDone {
            h.target?.span = nil
            guard let t = h.target, t.mode.isSpan else { continue }
            groups[t.mode.rawValue + "\u{0}" + t.video, default: []].append(h)
        }
        for group in groups.values {
            let rects = group.map(\.output.info.logicalRect)
            guard let canvas = Span.canvas(rects) else { continue }
            for (h, r) in zip(group, rects) {
                let view = SpanView(canvas: canvas, output: r)
                if h.drawn?.span != view { log.debug("\(h.name): \(r) of the span canvas \(canvas)") }
                h.target?.span = view
            }
        }
    }

    /// Creates the output's surface and sink once it has something to show: a ready video or a colour.
    private func ensureSurface(_ h: Head) {
        guard h.surface == nil, let registry, let compositor = registry.compositor, let shell = registry.layerShell else { return }
        let what: String
        if let s = h.drawn, videos[s.video]?.isReady == true {
            what = "showing '\(s.video)' (\(s.mode.rawValue))"
        } else if let c = h.solid {
            what = "showing the fallback colour \(c)"
        } else {
            return
        }
        guard let sink = device?.makeSink() else { return }
        let o = h.output
        guard let s = LayerSurface(outputID: h.id, compositor: compositor, layerShell: shell, output: o.proxy,
                                   scale: o.info.scale, viewporter: registry.viewporter,
                                   fractionalScale: registry.fractionalScale, layer: options.layer) else {
            log.error("\(h.name): cannot create a layer surface")
            return
        }
        s.delegate = self
        h.attach(s, sink: sink)
        if let line = rendererLine {
            log.notice(line)
            rendererLine = nil
        }
        updatePause(h)
        log.notice("\(h.name) (\(o.info.modeSize), scale \(o.info.scale)): \(what)")
    }
}
