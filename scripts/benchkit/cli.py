"""scripts/bench's command line."""

import argparse
import os

from .config import (ALL_CLIPS, CLIPS, DAMAGE_CLIP, DAMAGE_ENV, DEFAULT_CLIPS, DEFAULT_RENDERERS,
                     FIRST_FRAME_CLIP, FIRST_FRAME_ROUNDS, FIRST_FRAME_SIZE, MAIN_CLIP, MPV_VOS, NOISE_CLIP,
                     OUT_DIR, RENDERERS, ROOT, SCALING_CLIP)


def add_run_options(ap):
    """How long, which clips and renderers, which references."""
    ap.add_argument("--quick", action="store_true",
                    help="smoke run for CI (< 1 min): 1080p30 H.264 on one output, the floor, "
                         "hidden, one crossfade and the cinemagraph with damage with the first "
                         "renderer, the 1out case alone with the others, one round of the first frame by "
                         "screenshot; 3 s window, 1 s warm-up, no mpv, no long run")
    ap.add_argument("--window", type=float, metavar="S", help="measurement window (default 20, quick 3)")
    ap.add_argument("--warmup", type=float, metavar="S",
                    help="wait after the first presented frame (default 3, quick 1)")
    ap.add_argument("--long", type=float, metavar="S",
                    help="steady RSS-growth run of S seconds (default 600; 0 = off; quick: off)")
    ap.add_argument("--clips", metavar="LIST",
                    help=f"comma-separated one-output clips (default {','.join(DEFAULT_CLIPS)}; "
                         f"also known: {','.join(c for c in ALL_CLIPS if c not in DEFAULT_CLIPS)})")
    ap.add_argument("--renderers", metavar="LIST",
                    help=f"comma-separated wayloop renderers to run every case with, passed as "
                         f"--renderer R ({'|'.join(RENDERERS)}; default {','.join(DEFAULT_RENDERERS)}; "
                         f"quick: every case with the first, one 1out case with each other)")
    ap.add_argument("--no-mpv", action="store_true", help="skip the mpv references")
    ap.add_argument("--mpv-vos", metavar="LIST",
                    help=f"comma-separated mpv references ({','.join(MPV_VOS)}: --vo=gpu "
                         f"fullscreen, --vo=wlshm in a tiled window filling the output; default both)")
    ap.add_argument("--only-mpv", action="store_true",
                    help="run only the mpv references on --clips (no wayloop, floor, hidden, long "
                         "or two-output case); writes to .build/bench-mpv unless --out")


def add_output_options(ap):
    """Where the results go, and the chart alone."""
    ap.add_argument("--out", metavar="DIR",
                    help="where results.json and chart.png go (default docs/bench; quick: "
                         ".build/bench-quick, so that CI never touches the committed results)")
    ap.add_argument("--force-clips", action="store_true", help="regenerate the cached clips")
    ap.add_argument("--chart-only", nargs="?", metavar="RESULTS.json",
                    const=os.path.join(OUT_DIR, "results.json"),
                    help="run nothing: draw chart.png from an existing results.json (default "
                         "docs/bench/results.json) beside it, or into --out DIR (needs matplotlib)")
    ap.add_argument("--check-chart", metavar="RESULTS.json",
                    help="run nothing: redraw RESULTS.json's chart into a temporary file and check "
                         "that every number of its cases, floor, mpv and long the chart shows is "
                         "drawn as results.json has it, and that no value labels overlap (exit 0 "
                         "ok, 1 not)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory (traces, logs)")


def add_only_options(ap):
    """The groups of cases that run alone."""
    ap.add_argument("--only-caps", action="store_true",
                    help="run only the frame-rate cap cases (--max-fps 30 on a 60 fps clip, 10 on a "
                         "30 fps one, each against the same clip uncapped, every renderer) and the "
                         "start-up steps (5 starts with -v); a full run has them too")
    ap.add_argument("--only-damage", action="store_true",
                    help=f"run only the damage-tracking cases, every renderer, one output: "
                         f"{DAMAGE_CLIP} (a still picture, one 320x180 moving region) and "
                         f"{NOISE_CLIP} (full motion) and {MAIN_CLIP}, each with damage (the default) and with "
                         f"{DAMAGE_ENV}=off in wayloop's environment (every frame drawn whole); a "
                         f"full run has them too")
    ap.add_argument("--only-fit", action="store_true",
                    help="run only the fitted-copy cases (every renderer, one 1920x1080 output): 2160p30 HEVC "
                         "Main10, 2160p30 H.264 and 1080p60 under --max-fps 30, each played as it is and as "
                         "its copy from `wayloop prepare`, with the copy's one-time CPU, size and PSNR; a full "
                         "run has them too")
    ap.add_argument("--only-scaling", action="store_true",
                    help=f"run only the --scaling cases (shm): {SCALING_CLIP} on one 1920x1080 output scaled by "
                         f"the client and by the compositor (totals, client + compositor CPU), and "
                         f"{MAIN_CLIP} on two outputs: whole on each, spanning both with each scaling; "
                         f"a full run has them too")
    ap.add_argument("--only-first-frame", action="store_true",
                    help=f"run only the first frame with the defaults, by screenshot: exec -> the picture of "
                         f"one {FIRST_FRAME_SIZE} output changes (grim polled), {FIRST_FRAME_CLIP}, for "
                         f"`wayloop CLIP` (the defaults: --fit auto, a fresh cache), `wayloop --fit off CLIP` "
                         f"and mpv --vo=wlshm, alternated in {FIRST_FRAME_ROUNDS} rounds (quick: 1); the "
                         f"default renderer selection; a full run and --quick have it too")


def parser():
    ap = argparse.ArgumentParser(
        prog="scripts/bench",
        description="WayLoop performance benchmark: CPU, compositor CPU per commit, frames, "
                    "RSS and first-frame time of .build/release/wayloop on headless sway, for each "
                    "renderer of --renderers, against the FFmpeg decode floor, mpv --vo=gpu "
                    "(fullscreen) and mpv --vo=wlshm (a tiled window filling the output). Writes a "
                    "table on stdout, docs/bench/results.json and docs/bench/chart.png. See "
                    "docs/performance.md.",
        epilog="Exit status: 0 ran (whatever the numbers), 1 the benchmark broke (no frame "
               "presented, wayloop crashed, compositor failed), 2 usage or missing binary, 130 "
               "interrupted.")
    add_run_options(ap)
    add_output_options(ap)
    add_only_options(ap)
    ap.add_argument("--wayloop", metavar="PATH",
                    help="the wayloop binary to measure (default .build/release/wayloop; 0.1.0 or "
                         "newer); scripts/bench-ab uses it to alternate two builds")
    return ap


def names(ap, value, known, what):
    """The comma-separated VALUE as a list without repeats; a usage error unless each is KNOWN."""
    out = list(dict.fromkeys(x.strip() for x in value.split(",") if x.strip()))
    bad = [x for x in out if x not in known]
    if bad or not out:
        ap.error(f"bad {what} {value!r}; known: {', '.join(known)}")
    return out


def check_only_mpv(ap, a):
    if a.only_mpv and (a.no_mpv or a.quick):
        ap.error("--only-mpv runs nothing with --no-mpv or --quick")
    if a.only_mpv and (a.only_caps or a.only_damage or a.only_scaling or a.only_fit or a.only_first_frame):
        ap.error("--only-mpv runs no wayloop case: not with --only-caps, --only-damage, --only-scaling, "
                 "--only-fit or --only-first-frame")


def clip_list(ap, a):
    if not a.clips:
        return [MAIN_CLIP] if a.quick else DEFAULT_CLIPS
    out = [c.strip() for c in a.clips.split(",") if c.strip()]
    bad = [c for c in out if c not in CLIPS]
    if bad:
        ap.error(f"unknown clip(s) {', '.join(bad)}; known: {', '.join(ALL_CLIPS)}")
    return out


def parse_args(argv):
    ap = parser()
    a = ap.parse_args(argv)
    a.out_given = a.out is not None
    if a.chart_only and a.check_chart:
        ap.error("--chart-only and --check-chart: one at a time")
    a.renderer_list = names(ap, a.renderers, RENDERERS, "--renderers") if a.renderers else DEFAULT_RENDERERS
    a.mpv_vo_list = names(ap, a.mpv_vos, MPV_VOS, "--mpv-vos") if a.mpv_vos else list(MPV_VOS)
    check_only_mpv(ap, a)
    a.window = a.window if a.window is not None else (3.0 if a.quick else 20.0)
    a.warmup = a.warmup if a.warmup is not None else (1.0 if a.quick else 3.0)
    a.long = a.long if a.long is not None else (0.0 if a.quick else 600.0)
    a.first_frame_rounds = 1 if a.quick else FIRST_FRAME_ROUNDS
    if a.out is None:
        a.out = (os.path.join(ROOT, ".build", "bench-quick") if a.quick else
                 os.path.join(ROOT, ".build", "bench-mpv") if a.only_mpv else OUT_DIR)
    if a.quick:
        a.no_mpv = True
    a.clip_list = clip_list(ap, a)
    if a.window <= 0 or a.warmup < 0 or a.long < 0:
        ap.error("--window must be > 0, --warmup and --long >= 0")
    return a
