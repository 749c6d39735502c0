"""scripts/bench's modules (standard library only; the chart with matplotlib).

    config      paths, clips, cases, renderers and targets; Broken, log
    cli         the command line
    procs       the processes the benchmark starts (own sessions), stopped on any exit
    sample      CPU and RSS of processes, from /proc, over a window
    compositor  headless sway (scripts/compositor) and what sway's tree says
    clips       the clips, made with ffmpeg into .build/bench-clips
    trace       wayloop's --trace-frames: fps, drops, repeats, cadence, switches
    wayloop     one wayloop case (start, first frame, window, stop)
    cases       the cases measured against each other: start-up, caps, damage, scaling
    switching   ctl set (switch, crossfade) and the long run
    references  the FFmpeg decode floor and mpv
    firstframe  the first frame with the defaults, by screenshot (grim), beside mpv
    runner      a whole run: which cases, in which compositor, results.json
    summary     ratios and target checks over results.json
    report      the text table
    chartdata   what the chart shows of results.json (standard library)
    chart       the chart (matplotlib)
    chartcheck  --chart-only, --check-chart, and drawing with Debian's python3
    main        the entry point
"""
