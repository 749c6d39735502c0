// What the program says and how it ends: exit statuses and the --help text.

/// Documented exit statuses (wayloop(1), and docs/guide.md "Exit status").
public enum ExitStatus: Int32, Sendable {
    /// Stopped by SIGINT/SIGTERM, or the compositor went away.
    case ok = 0
    /// A failure while running: a decoder thread, the control socket or the instance lock could not be set up.
    case failure = 1
    /// Bad command line.
    case usage = 2
    /// No Wayland compositor to connect to.
    case noCompositor = 3
    /// The compositor lacks a protocol WayLoop needs (zwlr_layer_shell_v1).
    case missingProtocol = 4
    /// A video cannot be played: missing, unreadable, not a video, unsupported codec.
    case badVideo = 5
    /// Another wayloop holds this display's lock but does not answer on its control socket.
    case alreadyRunning = 6
}

/// What `--version` and `--help` print.
public enum Help {
    /// The version line `--version` prints.
    public static let version = "wayloop 0.3.0"

    /// The usage text `--help` prints.
    public static let text = """
    Usage: wayloop [OPTIONS] [VIDEO]
           wayloop [-o OUTPUT [-m MODE] [-c RRGGBB] [--dim F] [-f FB] -i VIDEO [-w NAME VIDEO]...]... [VIDEO]
           wayloop ctl [--name NAME] status [--json] | pause|resume|toggle|next|prev [OUTPUT] | reload
                       | quit | subscribe [--waybar] | forget [OUTPUT] | snapshot [OUTPUT] FILE.png
                       | set OUTPUT|'*' [--workspace NAME] [VIDEO] [-m MODE] [-c RRGGBB]
                       [--dim F] [-f FB] [--transition T] [--interval D] [--loops N] [--shuffle]
                       [--max-fps N] [--battery-fps N] [--scaling S] [--hwdec H] [--hwdec-device D]
                       [--fit F] [--pause-when RULES] [--pause-ignore APP_IDS]
           wayloop thumbnail VIDEO FILE.png [--size WxH] [--at TIME] [-m MODE] [-c RRGGBB] [--dim F]
                       [--hwdec H] [--hwdec-device D]
           wayloop decode VIDEO [--hwdec H] [--hwdec-device D] [--frames N] [--queue-frames N]
                       [--cache-mb N] [--threads N] [--json] [-v]
           wayloop prepare VIDEO... [--size WxH] [--max-fps N] [--quality Q] [--always]
                       [--on-battery] [--fit-cache-max SIZE] | --list | --clean
           wayloop list [PATH...] [--json] [--previews] [--no-workshop]

    Plays VIDEO, looping without a gap, on the background layer of every output of a
    compositor with wlr-layer-shell (tested: sway, phoc, KDE Plasma's kwin; documented to
    have it: Hyprland, river, labwc, niri, Wayfire; not GNOME or weston). Runs in the foreground:
    put `exec_always wayloop ~/Videos/loop.mp4` in a sway config or `exec-once = wayloop ...`
    in Hyprland's. One per display: a second start hands its arguments to the running one
    and exits 0. Stops cleanly (exit 0) on SIGINT, SIGTERM, `wayloop ctl quit` or when the
    compositor goes away. Settings also come from $XDG_CONFIG_HOME/wayloop/config (see
    wayloop(5)), read again on SIGHUP, `wayloop ctl reload` and when the file changes; a video
    replaced on disk while it plays is opened again.

    VIDEO is a path, or a bare name looked up in the wayloop data directories
    ($XDG_DATA_HOME/wayloop, then each $XDG_DATA_DIRS/wayloop): `wayloop ocean` plays
    ~/.local/share/wayloop/ocean.mp4. With no video at all (and none in the config file),
    the installed default loop (share/wayloop/default-loop.mp4) plays on every output.

    VIDEO may be a directory or a playlist file (.m3u, .m3u8, .txt: one path per line, #
    comments): its videos play in turn (a directory's in name order; watched, so a video
    added or removed counts from the next switch). A video that cannot be played is skipped.
    `wayloop ctl next|prev` steps through it; `ctl status` shows where it is.

    `wayloop thumbnail` writes a still of VIDEO as a PNG, placed as it would be on an
    output of --size (default: the video's own size), TIME into its loop (default 0),
    turned as its rotation says, in its colours, dimmed by --dim: no compositor needed (for
    wallpaper pickers). `wayloop ctl snapshot` writes what an output shows now, at its
    buffer size (for theming tools: pywal, matugen, wallust).

    `wayloop list` says what wayloop can play, for people and for wallpaper pickers:
    the videos in the data directories and Wallpaper Engine's workshop items (Steam's
    usual places), or those in each PATH, each with the name that plays it (`wayloop
    NAME`), its title, length, size, codec and frame rate, or the one reason it cannot
    be played. --json: one JSON document (version 1, docs/list.md). --previews: first
    make a PNG still and a looping 3 s GIF of each, at idle priority, cached in
    $XDG_CACHE_HOME/wayloop/previews. A workshop item of type video plays by its ID
    (`wayloop 1234567890`) or its folder.

    `wayloop decode` decodes VIDEO as playback would (its decoder thread, its frame queue,
    looping) as fast as it can, without a compositor, and says which decode path it took
    and why, the frames per second reached and the CPU per frame: is hardware decoding
    working here, and does this clip keep its rate.

    Fitted copies (--fit, on by default): a video with at least twice the pixels the
    largest output showing it needs, twice the frame rate of the cap in force, or a codec
    that costs twice H.264's to decode (HEVC 10-bit) is re-encoded once, in the background
    at idle priority, as a smaller H.264 copy that costs a fraction to play; the loop goes
    on from the copy at a seam, without a visible change. It waits while on battery and
    while other programs keep the CPUs busy. A copy is a re-encode, close to the original
    but not the same bytes: --fit off plays every file as it is (see wayloop(1), FITTED
    COPIES). `ctl status` says which plays and what the copy saves.

    `wayloop prepare` makes those copies by hand, for an output of --size (default
    1920x1080) under --max-fps: the whole frame scaled down, every frame kept at its time
    (1 in N under the cap), re-encoded as H.264 (x264 CRF --quality, default 16), at idle
    priority, into $XDG_CACHE_HOME/wayloop/fitted (--fit-cache-max, 2 GiB by default,
    least recently used out), with a progress bar; it waits while on battery
    (--on-battery: not). --always: wherever the copy differs at all; --list, --clean: the
    cache.

    Options:
      -o, --output NAME     apply the options after it to output NAME (connector such as
                            DP-1, or "Make Model Serial"), until the next -o; '*' = all
      -i, --video FILE      the video for the current -o scope
      -w, --workspace NAME VIDEO
                            while an output of the current -o scope (every output
                            before the first -o) shows workspace NAME, it plays
                            VIDEO with its other settings, switched to with its
                            --transition; on other workspaces, its own video.
                            VIDEO may be a colour RRGGBB (shown at once, no fade).
                            The workspace comes from sway's IPC under sway, else
                            from ext-workspace-v1 (labwc); with neither, -w never
                            applies
      -m, --mode MODE       fill (default: cover the output, crop the long axis),
                            fit (whole video, bars), stretch, center (1:1 pixels),
                            tile (1:1 pixels, repeated from the top-left), span (one
                            video across every output showing it with span: their
                            layout is one canvas, filled), span-fit (the same, fitted)
          --interval D      a playlist switches to its next video every D (30s, 10m, 1h)
          --loops N         without --interval, each video plays N passes (default: for
                            ever with one video, once each with several)
          --shuffle         a playlist in random order, never one twice before all played
          --no-shuffle      in order (undoes a --shuffle or `shuffle = yes` before it)
          --transition T    how a switch looks: none (a cut on a frame boundary), fade or
                            fade:D (both play while the new one fades in; default fade:0.5s)
      -c, --color RRGGBB    colour of bars and borders (default 000000)
          --dim F           darken the picture by F, 0 to 1 (default 0)
          --max-fps N       draw at most N frames per second (1 to 1000; 0 = no cap, the
                            default): the video keeps its speed, frames past the cap are
                            never converted, and from half the clip's rate down fewer are
                            decoded
          --battery-fps N   the same cap, only while on battery (default 0 = none)
          --scaling S       who scales a video smaller than its output (shm renderer):
                            client (libswscale, bilinear), compositor (the video 1:1, the
                            compositor scales it: cheaper, its own filter), auto (default:
                            the compositor where it offers linux-dmabuf, else the client)
          --hwdec H         how the video is decoded: auto (default: VA-API, then NVDEC,
                            each taken only after its first frames match software
                            decoding on this machine; else software), no (software),
                            vaapi, vaapi-copy, nvdec-copy (that path or software, with one
                            notice). Frames are copied back to memory; `ctl status` says
                            which path each video took and why
          --hwdec-device D  the device: a render node (/dev/dri/renderD129) for VA-API,
                            a CUDA device number for NVDEC (default: found by itself)
      -f, --fallback FB     shown when the video cannot be played: a colour RRGGBB or
                            another video (default: no surface)
          --fit F           play an oversized video from a fitted copy: auto (default:
                            where it saves much), always (wherever the copy is smaller
                            or cheaper), off (every file as it is)
          --fit-quality Q   the copies' x264 CRF, 0 (lossless) to 40 (smallest; default 16)
          --fit-cache-max SIZE
                            the copies kept at most (default 2G; 512M, 10G; a bare
                            number is MiB), least recently used out
          --config FILE     the config file (default $XDG_CONFIG_HOME/wayloop/config)
          --no-config       read no config file
          --no-restore      start from the command line and config file, not from what
                            `wayloop ctl set` and the playlists left in the state file
                            ($XDG_STATE_HOME/wayloop/state)
          --replace         stop the wayloop running on this display and take over
          --layer L         background (default), bottom, top or overlay (above fullscreen
                            windows: a screensaver; it never pauses for one)
          --name NAME       an independent instance with its own lock and control socket
                            (wayloop-NAME-$WAYLAND_DISPLAY.sock; `wayloop ctl --name NAME ...`)
          --renderer R      auto (default: shm where GL would render in software, else
                            gl), gl (GLES through EGL) or shm (libswscale into wl_shm
                            buffers; never loads a GL driver)
          --queue-frames N  decoded frames kept ready ahead of the screen (default 8 with
                            gl, 4 with shm)
          --cache-mb N      a clip whose decoded frames all fit in N MiB is decoded once and
                            replayed from memory (default 128; 0 = off)
          --trace-frames F  append one line per presented frame to F (for tests)
          --no-fullscreen-pause
                            keep drawing an output under a fullscreen window (by
                            default it pauses, where the compositor tells)
          --pause-when RULES
                            what pauses an output: never, or one or more of hidden
                            (the compositor asks for no frames), fullscreen (a
                            fullscreen window on it), fullscreen-anywhere (one on any
                            output pauses every output), maximized (a maximized window
                            on it), any-window (any window on the workspace it shows),
                            separated by commas (default hidden,fullscreen). Windows
                            come from sway's IPC under sway, else from
                            wlr-foreign-toplevel-management; a rule the compositor
                            cannot answer says so once. An output asked for no frames
                            is never drawn, whatever the list says
          --pause-ignore APP_IDS
                            app_ids, separated by commas, whose windows no rule
                            counts (a picture-in-picture player, a dock)
          --pause-on-battery
                            pause while running on battery (sysfs power_supply)
          --release-after S free a video's decoder and frames after S seconds with
                            nothing presented (default 60); it restarts on return
          --keep-recent N   keep the last N videos switched away from ready (decoded
                            ahead, loop cache kept) for an instant switch back, within
                            the --cache-mb budget (default 3; 0 = off)
          --log-level L     error, notice (default), debug or trace
      -v, --verbose         same as --log-level debug
      -h, --help            show this help
      -V, --version         show the version

    wayloop ctl talks to the running wayloop (socket $XDG_RUNTIME_DIR/wayloop-$WAYLAND_DISPLAY.sock):
    status, pause/resume/toggle (every output or one), next/prev (a playlist's next or
    previous video), set (switch video or settings at run time; the old video plays until
    the new one is ready; --transition for that one switch; --workspace NAME: only while
    the output shows workspace NAME, where VIDEO may be a colour RRGGBB; kept across
    restarts), forget
    (drop what set chose for one output or all: back to the command line and config),
    reload, quit, subscribe (one JSON line per state change; --waybar: waybar's
    custom-module JSON). `status --json` is a
    stable interface ("version": 1). ctl exits 0 done, 1 refused or failed, 2 bad command
    line, 3 no wayloop running.

    Signals: SIGINT/SIGTERM stop (exit 0), SIGUSR1 toggles pause, SIGHUP reloads the config.
    Exit status: 0 stopped normally or handed over, 1 runtime failure, 2 bad command line
    or config file, 3 no Wayland compositor, 4 compositor lacks wlr-layer-shell, 5 video
    cannot be played, 6 another wayloop holds the display but does not answer.
    """
}
