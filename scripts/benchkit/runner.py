"""A whole run: which cases, on which compositor, in which order, into results.json."""

import datetime
import json
import os
import shlex
import shutil
import time
from types import SimpleNamespace

from .cases import damage_clips, measure_caps, measure_damage, measure_scaling, measure_span_scaling, measure_startup
from .chartcheck import draw_chart_file
from .clips import prepare_clips
from .compositor import compositor_start, compositor_stop
from .fit import measure_fit
from .firstframe import measure_first_frame
from .config import (CAP_CASES, CLIPS, FADE_S, FIRST_FRAME_CLIP, FIRST_FRAME_SIZE, FIT_CASES, LOOP_CLIP, MAIN_CLIP,
                     SCALING_CLIP, SWITCH_CLIP, log)
from .procs import tool_version
from .references import measure_floor, measure_mpv
from .report import print_table
from .summary import summarize
from .switching import measure_fade, measure_long, measure_switch
from .wayloop import measure_wayloop


def new_results(args, argv, wayloop, renderers, mpv_status):
    """results.json as it starts: the run's date, command, config and host."""
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "command": "scripts/bench " + " ".join(shlex.quote(a) for a in argv),
        "config": {"window_s": args.window, "warmup_s": args.warmup, "long_s": args.long,
                   "quick": args.quick, "only_mpv": args.only_mpv, "only_caps": args.only_caps,
                   "only_damage": args.only_damage, "only_scaling": args.only_scaling, "only_fit": args.only_fit,
                   "only_first_frame": args.only_first_frame, "clips": args.clip_list,
                   "renderers_requested": args.renderer_list, "renderers": renderers,
                   "mpv_vos": [] if mpv_status else args.mpv_vo_list},
        "host": {"cpus": os.cpu_count(), "kernel": os.uname().release,
                 "wayloop": tool_version([wayloop, "-V"]) if os.access(wayloop, os.X_OK) else None,
                 "ffmpeg": tool_version(["ffmpeg", "-hide_banner", "-version"]),
                 "sway": tool_version(["sway", "--version"]),
                 "mpv": tool_version(["mpv", "--version"]) if shutil.which("mpv") else None},
        "loadavg_start": os.getloadavg(),
        "clips": {}, "cases": {}, "floor": {},
        "mpv": mpv_status or {vo: {} for vo in args.mpv_vo_list}, "long": None, "switch": None,
        "fade": None, "damage": None, "scaling": None, "fit": None, "first_frame_shot": None,
    }


def plan(args, renderers, mpv_status):
    """What this run measures: the renderers of every case (full; --quick: the first), the
    groups of cases, and the clips they need."""
    full = renderers[:1] if args.quick else renderers
    # --only-caps, --only-damage, --only-scaling, --only-fit, --only-first-frame (any of them):
    # those cases alone
    others = args.only_caps or args.only_damage or args.only_scaling or args.only_fit
    only = others or args.only_first_frame
    p = SimpleNamespace(
        renderers=renderers, full=full, only=only, mpv_status=mpv_status,
        # the 1920x1080 compositors: not for --only-first-frame alone
        main=others or not only,
        # the default renderer selection (no --renderer): not one of --renderers'
        first_frame=args.only_first_frame or (not only and not args.only_mpv),
        # --scaling is the shm renderer's
        scaling=(args.only_scaling or not only) and not args.quick and "shm" in full,
        caps=args.only_caps or (not only and not args.quick and not args.only_mpv and bool(full)),
        damage=(args.only_damage or not only) and bool(full),
        fit=(args.only_fit or not only) and not args.quick and not args.only_mpv and bool(full))
    if only:
        p.clips = (([c for c, _ in CAP_CASES] if args.only_caps else [])
                   + (damage_clips(args) if args.only_damage else [])
                   + ([SCALING_CLIP, MAIN_CLIP] if args.only_scaling else [])
                   + ([c for c, _ in FIT_CASES] if args.only_fit else [])
                   + ([FIRST_FRAME_CLIP] if args.only_first_frame else []))
    else:
        p.clips = list(dict.fromkeys(([] if args.only_mpv else [MAIN_CLIP]) + args.clip_list
                                     + ([] if args.only_mpv else [SWITCH_CLIP])
                                     + ([c for c, _ in CAP_CASES] if p.caps else [])
                                     + (damage_clips(args) if p.damage else [])
                                     + ([SCALING_CLIP] if p.scaling else [])
                                     + ([c for c, _ in FIT_CASES] if p.fit else [])
                                     + ([FIRST_FRAME_CLIP] if p.first_frame else [])))
    p.clips = list(dict.fromkeys(p.clips))
    return p


def run_loop_clip(b, cenv, cases, key, r, full):
    """The loop cache, off and on (2 s of 1080p decoded is ~187 MB: over the default)."""
    log(f"wayloop {r}, 1 output, {LOOP_CLIP}, loop cache off (--cache-mb 0)")
    cases[key] = measure_wayloop(b, cenv, LOOP_CLIP, key, r, extra=("--cache-mb", "0"))
    if r in full:
        log(f"wayloop {r}, 1 output, {LOOP_CLIP}, loop cache on (--cache-mb 256)")
        cases[f"{key}-cached"] = measure_wayloop(b, cenv, LOOP_CLIP, f"{key}-cached", r,
                                                 extra=("--cache-mb", "256"))


def run_clip(b, cenv, results, p, ci, name):
    """Clip NAME (the CI-th of --clips) on one output: each renderer, the floor, mpv."""
    cases, args = results["cases"], b.args
    for r in p.renderers:
        if r not in p.full and ci > 0:
            continue
        key = f"{r}/1out-{name}"
        if name == LOOP_CLIP:
            run_loop_clip(b, cenv, cases, key, r, p.full)
        else:
            log(f"wayloop {r}, 1 output, {name}")
            cases[key] = measure_wayloop(b, cenv, name, key, r)
    if not args.only_mpv:
        frames = int(round(args.window * CLIPS[name][3]))
        log(f"ffmpeg floor, {name}, {frames} frames")
        results["floor"][name] = measure_floor(name, frames)
    if not p.mpv_status:
        for vo in args.mpv_vo_list:
            log(f"mpv --vo={vo}, 1 output, {name}")
            results["mpv"][vo][name] = measure_mpv(b, cenv, name, vo)


def run_playing(b, cenv, results, p, d1):
    """On one output after the clips: hidden, ctl set, crossfades, the long run."""
    args, cases = b.args, results["cases"]
    for r in ([] if p.only else p.full):
        log(f"wayloop {r}, hidden under a fullscreen window, {MAIN_CLIP}")
        cases[f"{r}/hidden"] = measure_wayloop(b, cenv, MAIN_CLIP, f"{r}/hidden", r, cover_dir=d1)
    if not args.quick and not p.only and p.full:
        results["switch"] = {}
        for r in p.full:
            log(f"wayloop {r}, switching {MAIN_CLIP} <-> {SWITCH_CLIP} (ctl set), --keep-recent 3 and 0")
            results["switch"][r] = {"keep": measure_switch(b, cenv, r, 3),
                                    "nokeep": measure_switch(b, cenv, r, 0)}
    if p.full and not p.only:
        # In the quick run too (one cycle): the fade path must not break unseen.
        results["fade"] = {}
        for r in p.full:
            log(f"wayloop {r}, crossfades {MAIN_CLIP} <-> {SWITCH_CLIP} (--transition fade:{FADE_S:g}s)")
            results["fade"][r] = measure_fade(b, cenv, r, cycles=1 if args.quick else 3)
    if args.long > 0 and p.full and not p.only:
        results["long"] = {r: measure_long(b, cenv, r) for r in p.full}


def run_one_output(b, results, p):
    """Every case on one 1920x1080 output."""
    cases, args = results["cases"], b.args
    d1 = os.path.join(b.workdir, "sway1")
    cenv = compositor_start(d1, ["1920x1080"])
    if p.scaling:
        results["scaling"] = {"shm": measure_scaling(b, cenv, "shm", cases)}
    if p.caps:
        results["caps"] = {r: measure_caps(b, cenv, r, cases) for r in p.full}
        log("wayloop start-up, step by step (wayloop -v), 5 starts per renderer")
        results["startup"] = {r: measure_startup(b, cenv, r) for r in p.full}
    for ci, name in enumerate([] if p.only else args.clip_list):
        run_clip(b, cenv, results, p, ci, name)
    if p.fit:
        results["fit"] = {r: measure_fit(b, cenv, r, cases) for r in p.full}
    if p.damage:
        # after the clips: --quick's cinemagraph is set against their 1out case
        results["damage"] = {r: measure_damage(b, cenv, r, cases) for r in p.full}
    run_playing(b, cenv, results, p, d1)
    compositor_stop(d1)


def run_two_outputs(b, results, p):
    """Two 1920x1080 outputs: the same clip on both, spanning both, and the span's --scaling."""
    cases = results["cases"]
    if not b.args.quick and not p.only and p.full:
        d2 = os.path.join(b.workdir, "sway2")
        cenv2 = compositor_start(d2, ["1920x1080", "1920x1080"])
        for r in p.full:
            log(f"wayloop {r}, 2 outputs, {MAIN_CLIP}")
            key = f"{r}/2out-{MAIN_CLIP}"
            cases[key] = measure_wayloop(b, cenv2, MAIN_CLIP, key, r)
            log(f"wayloop {r}, 2 outputs, {MAIN_CLIP} spanning both (-m span)")
            key = f"{r}/2out-span-{MAIN_CLIP}"
            cases[key] = measure_wayloop(b, cenv2, MAIN_CLIP, key, r, extra=("-m", "span"))
        compositor_stop(d2)
    if p.scaling:
        d3 = os.path.join(b.workdir, "sway3")
        cenv3 = compositor_start(d3, ["1920x1080", "1920x1080"])
        span = measure_span_scaling(b, cenv3, "shm", cases)
        results.setdefault("scaling", {}).setdefault("shm", {})["span"] = span
        compositor_stop(d3)


def run_first_frame(b, results, p):
    """The first frame with the defaults, by screenshot, on a FIRST_FRAME_SIZE output of its own."""
    with_mpv = not p.mpv_status
    rounds = b.args.first_frame_rounds
    log(f"first frame by screenshot (grim), {FIRST_FRAME_CLIP} on {FIRST_FRAME_SIZE}, {rounds} round(s): "
        f"wayloop (the defaults: --fit auto, fresh cache), wayloop --fit off"
        + (", mpv --vo=wlshm" if with_mpv else f"; mpv --vo=wlshm {p.mpv_status}"))
    d = os.path.join(b.workdir, "sway-ff")
    cenv = compositor_start(d, [FIRST_FRAME_SIZE])
    ff = measure_first_frame(b, cenv, rounds, with_mpv)
    if not with_mpv:
        ff["mpv"] = p.mpv_status
    results["first_frame_shot"] = ff
    compositor_stop(d)


def run(b, results, p):
    """Every case of plan P, into RESULTS."""
    results["clips"].update(prepare_clips(p.clips, b.args.force_clips))
    if p.main:
        run_one_output(b, results, p)
        run_two_outputs(b, results, p)
    if p.first_frame:
        run_first_frame(b, results, p)


def finish(args, results, t_start):
    """The summary, the report, results.json and the chart."""
    results["elapsed_s"] = round(time.monotonic() - t_start, 1)
    results["loadavg_end"] = os.getloadavg()
    summarize(results)
    print_table(results)
    os.makedirs(args.out, exist_ok=True)
    jpath = os.path.join(args.out, "results.json")
    with open(jpath, "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    cpath = os.path.join(args.out, "chart.png")
    if results["cases"] or results["floor"] or (isinstance(results["mpv"], dict) and any(results["mpv"].values())):
        why = draw_chart_file(jpath, cpath)
    else:   # --only-first-frame: its numbers are in the report and results.json, not on the chart
        why = "chart not drawn: nothing in this run is on the chart"
    print(f"\nwrote {os.path.relpath(jpath)}" + ("" if why else f" and {os.path.relpath(cpath)}")
          + f" in {results['elapsed_s']:g} s")
    if why:
        print(why + (f" ({os.path.relpath(cpath)} is an earlier run's)" if os.path.exists(cpath)
                     else ""))
