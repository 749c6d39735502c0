// Wayland events as the app sees them. Listeners only record: an output's arrival, its
// settings, a closed surface, a frame callback; the loop reconciles and draws after dispatch
// (a decoder thread started or joined inside a listener would stall the compositor's events
// for the whole connection). Main thread only.
import WayLoopCore

extension App: RegistryDelegate {
    func outputAdded(_ o: Output) {
        o.delegate = self
        heads[o.globalName] = Head(output: o)
        if let m = registry?.xdgOutputManager { o.attachXdgOutput(manager: m) }
    }

    func globalRemoved(name: UInt32) {
        guard let h = heads[name] else { return }
        log.notice("\(h.name): output removed")
        apply(h, .unload)
        heads[name] = nil
        assignSpans()
        pruneRuns()
        needsReconcile = true
    }
}

extension App: OutputDelegate {
    func outputDone(_ output: Output, changed: Bool, first: Bool) {
        guard let h = heads[output.globalName] else { return }
        let i = output.info
        let previous = h.target
        h.workspace = screenFacts().0.activeWorkspace(on: h.name)
        h.target = targetSettings(output)
        // Its place in the layout may change every span canvas (and it is compared below).
        assignSpans()
        if first {
            let what = h.target.map { t in t.solid.map { "the colour \($0)" } ?? "'\(t.video)'" } ?? "nothing (no entry matches)"
            log.debug("\(h.name): \(i.modeSize) scale \(i.scale) (\(i.description)): for \(what)")
        } else if changed {
            log.debug("\(h.name): now \(i.modeSize) scale \(i.scale)")
            h.surface?.setScale(i.scale)
            h.surface?.setOutputScale120(i.scale120)
        }
        if previous != h.target && !first {
            // The name arrived late (xdg-output) or the entry now matching differs.
            log.debug("\(h.name): settings changed")
        }
        if first || previous != h.target { needsReconcile = true }
    }
}

extension App: LayerSurfaceDelegate {
    func layerSurfaceClosed(_ surface: LayerSurface) {
        log.debug("\(outputName(surface.outputID)): layer surface closed by the compositor")
        heads[surface.outputID]?.dropSurface()
    }

    func layerSurfacePreferredScale(_ surface: LayerSurface, scale120: Int, shown: Bool) {
        log.debug("\(outputName(surface.outputID)): preferred \(Double(scale120) / 120) from the compositor"
            + (shown ? "" : " (before its first buffer)"))
    }

    func layerSurfaceFrameDone(_ surface: LayerSurface, time: UInt32) {
        let now = Sys.now()
        trace?.frameDone(output: surface.outputID, at: now)
        guard let h = heads[surface.outputID] else { return }
        apply(h, .resume(.hidden))
        if let v = h.drawn.flatMap({ videos.clip($0.video) }) { v.firstFramePresented(at: now) }
        if let line = startup?.presented(at: now) { log.debug(line); startup = nil }
    }
}

extension App: ToplevelsDelegate {
    func fullscreenOutputsChanged() {
        let screen = screenFacts()
        for h in heads.values { updatePause(h, screen: screen) }
    }

    /// The source of what is on screen (ScreenSource.choose): the compositor's own IPC under sway,
    /// Hyprland and niri (the last two built from their sources, not run on them), else
    /// wlr-foreign-toplevel-management's windows and ext-workspace-v1's workspaces where offered.
    func startScreenSource() {
        let chosen = ScreenSource.choose(swaySocket: Sys.env("SWAYSOCK"), hyprlandSignature: Sys.env("HYPRLAND_INSTANCE_SIGNATURE"),
                                         niriSocket: Sys.env("NIRI_SOCKET"), hasForeignToplevel: toplevels != nil)
        switch chosen {
        case .swayIPC:
            if let s = Sys.env("SWAYSOCK"), let client = SwayScreen(socket: s, log: log.scoped("screen")) {
                client.changed = { [unowned self] in screenChanged() }
                loop.add(client)
                sway = client
                log.scoped("screen").debug("workspaces and windows from sway's IPC ('\(s)')")
            }
        case .hyprlandIPC:
            // $XDG_RUNTIME_DIR as set (Hyprland's own place), not a fallback of WayLoop's.
            if let sig = Sys.env("HYPRLAND_INSTANCE_SIGNATURE"),
               let client = HyprlandScreen(signature: sig, runtimeDirectory: Sys.env("XDG_RUNTIME_DIR"), log: log.scoped("screen")) {
                client.changed = { [unowned self] in screenChanged() }
                loop.add(client)
                hyprland = client
                log.scoped("screen").debug("workspaces and windows from Hyprland's IPC ('\(sig)')")
            }
        case .niriIPC:
            if let s = NiriIPC.socketPath(Sys.env(NiriIPC.socketVariable)), let client = NiriScreen(socket: s, log: log.scoped("screen")) {
                client.changed = { [unowned self] in screenChanged() }
                loop.add(client)
                niri = client
                log.scoped("screen").debug("workspaces and windows from niri's IPC ('\(s)')")
            }
        case .foreignToplevel:
            log.scoped("screen").debug("windows from wlr-foreign-toplevel-management" + (workspaces != nil ? ", workspaces from ext-workspace-v1" : ""))
        case .none:
            log.scoped("screen").debug("no source of windows: frame callbacks alone" + (workspaces != nil ? " (workspaces from ext-workspace-v1)" : ""))
        }
    }

    /// What is on screen changed: an output that shows another workspace takes that workspace's
    /// settings (its video switches as `ctl set` switches one), and the pause rules are applied.
    func screenChanged() {
        let screen = screenFacts(), facts = screen.0
        var moved = false
        for h in heads.values {
            let ws = facts.activeWorkspace(on: h.name)
            if ws != h.workspace {
                h.workspace = ws
                moved = true
            }
        }
        if moved && options.hasWorkspaceEntries { settingsChanged() }
        // The facts once for every output (each output's toplevels are gathered from them).
        for h in heads.values { updatePause(h, screen: screen) }
    }

    var knowsWorkspaces: Bool { sway?.facts != nil || hyprland?.facts != nil || niri?.facts != nil || workspaces != nil }

    /// What is on screen now, and from where.
    func screenFacts() -> (ScreenFacts, ScreenSource) {
        if let f = sway?.facts { return (f, .swayIPC) }
        if let f = hyprland?.facts { return (f, .hyprlandIPC) }
        if let f = niri?.facts { return (f, .niriIPC) }
        let name: (OpaquePointer) -> String? = { proxy in self.heads.values.first { $0.output.proxy == proxy }?.name }
        // wlr-foreign-toplevel-management's windows (by output), ext-workspace-v1's workspaces.
        var facts = toplevels?.facts(name) ?? ScreenFacts()
        facts.workspaces = workspaces?.facts(name) ?? []
        return (facts, toplevels == nil ? .none : .foreignToplevel)
    }

    /// Recomputes the window-rule and battery reasons of one output from its pause rules;
    /// `screen`: what is on screen, when the caller has it already.
    func updatePause(_ h: Head, screen: (ScreenFacts, ScreenSource)? = nil) {
        let (facts, source) = screen ?? screenFacts()
        let settings = h.drawn ?? h.target
        let (rule, battery) = PauseRules.reasons(settings, output: h.name, layer: options.layer, facts: facts, source: source,
                                                 outputs: heads.values.map(\.name), onBattery: onBattery)
        // Said for rules a user asked for: the default pair stays as quiet as it always was where
        // the compositor cannot tell (Wayfire, KWin: no fullscreen pause, as before).
        let rules = settings?.pauseRules ?? .standard
        for (c, why) in ScreenRules.unknowable(rules, source: source) where rules != .standard && unknowableSaid.insert(c).inserted {
            log.notice("--pause-when \(c.rawValue) cannot be known here: \(why)")
        }
        let before = h.player.pauseReasons
        for r in PauseReason.allCases where r.isWindowRule { apply(h, r == rule ? .pause(r) : .resume(r)) }
        apply(h, battery ? .pause(.battery) : .resume(.battery))
        // One line a user wants to see when a rule pauses or resumes an output.
        let after = h.player.pauseReasons
        for r in PauseReason.allCases where (r.isWindowRule || r == .battery) && before.contains(r) != after.contains(r) {
            log.notice("\(h.name): " + (after.contains(r) ? "paused (\(r.rawValue))" : "resumed (\(r.rawValue) rule)"))
        }
    }
}

extension App: WorkspacesDelegate {
    func workspacesChanged() { screenChanged() }
}
