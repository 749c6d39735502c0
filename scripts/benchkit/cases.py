"""The cases measured against each other in one run: start-up steps, frame-rate caps, damage
tracking, --scaling. Each puts its wayloop cases into CASES and returns the ratios."""

import re
import statistics
import time

from .clips import clip_path
from .config import (CAP_CASES, CLIPS, DAMAGE_CLIP, DAMAGE_ENV, MAIN_CLIP, NOISE_CLIP, SCALING_CLIP,
                     Broken, log)
from .wayloop import (case_file_tag, finish_wayloop, measure_wayloop, renderer_argv, start_wayloop,
                      wait_first_frame)

STARTUP_RE = re.compile(r"first frame on screen ([0-9.]+) ms after (exec|main): (.*) \(ms after")


def cpu_ratio(a, b, key):
    """Case A's KEY over case B's, to three places (None when B's is 0)."""
    return round(a[key] / b[key], 3) if b[key] else None


def total_cpu(case):
    return case["client_cpu_s"] + case["compositor_cpu_s"]


def total_ratio(a, b):
    """Client + compositor CPU of case A over B's."""
    return round(total_cpu(a) / total_cpu(b), 3) if total_cpu(b) else None


def startup_line(errlog, timeout=5.0):
    """wayloop -v's start-up line in ERRLOG (a match of STARTUP_RE), waited for up to TIMEOUT."""
    deadline = time.monotonic() + timeout
    m = None
    while m is None and time.monotonic() < deadline:
        with open(errlog) as f:
            m = STARTUP_RE.search(f.read())
        if m is None:
            time.sleep(0.02)
    return m


def measure_startup(b, cenv, renderer, runs=5):
    """exec -> first frame on screen, step by step (wayloop -v's start-up line), RUNS starts of
    MAIN_CLIP: the median of each step, in ms after exec, and of the bench's own exec -> first
    presented time from the trace."""
    steps, totals = {}, []
    for i in range(runs):
        tag = f"{renderer}/startup-{i}"
        p, trace, errlog, t_exec = start_wayloop(b, cenv, clip_path(MAIN_CLIP), case_file_tag(tag),
                                                 (*renderer_argv(renderer), "-v"))
        first = wait_first_frame(p, trace, errlog)
        totals.append((first[5] - t_exec) / 1e6)
        m = startup_line(errlog)
        finish_wayloop(p, errlog)
        if m is None:
            raise Broken(f"wayloop -v wrote no start-up line (see {errlog})")
        for part in m.group(3).split(", "):
            name, ms = part.rsplit(" ", 1)
            steps.setdefault(name, []).append(float(ms))
    return {"runs": runs, "first_frame_ms_median": round(statistics.median(totals), 1),
            "steps_ms_median": {k: round(statistics.median(v), 1) for k, v in steps.items()}}


def measure_caps(b, cenv, renderer, cases):
    """--max-fps: each CAP_CASES clip uncapped and capped, one output, as ratios in this run
    (the cases themselves go into CASES)."""
    out = {}
    for clip, cap in CAP_CASES:
        base, capped = f"{renderer}/uncapped-{clip}", f"{renderer}/cap{cap}-{clip}"
        log(f"wayloop {renderer}, 1 output, {clip}, uncapped and --max-fps {cap}")
        u = measure_wayloop(b, cenv, clip, base, renderer)
        c = measure_wayloop(b, cenv, clip, capped, renderer, extra=("--max-fps", str(cap)), cap=cap)
        out[f"{CLIPS[clip][3]}at{cap}"] = {
            "clip": clip, "cap": cap, "uncapped": base, "capped": capped,
            "client_ratio": cpu_ratio(c, u, "client_cpu_s"),
            "compositor_ratio": cpu_ratio(c, u, "compositor_cpu_s"),
            "cadence": c.get("cadence")}
        cases[base], cases[capped] = u, c
    return out


def damage_clips(args):
    """The clips the damage cases play (--quick: the cinemagraph alone)."""
    return [DAMAGE_CLIP] if args.quick else [NOISE_CLIP, DAMAGE_CLIP, MAIN_CLIP]


def damage_key(renderer, clip, on):
    return f"{renderer}/damage-{'on' if on else 'off'}-{clip}"


def damage_pair(cases, a_key, b_key, names):
    """Case A_KEY against B_KEY, client and compositor CPU; None unless both ran."""
    a, b = cases.get(a_key), cases.get(b_key)
    if not (a and b):
        return None
    return {names[0]: a_key, names[1]: b_key, "client": cpu_ratio(a, b, "client_cpu_s"),
            "compositor": cpu_ratio(a, b, "compositor_cpu_s")}


def measure_damage(b, cenv, renderer, cases):
    """Damage tracking, one output, each clip with damage (wayloop's default: DAMAGE_ENV unset)
    and without (DAMAGE_ENV=off), once each, in the order NOISE_CLIP off, on, DAMAGE_CLIP on, off,
    MAIN_CLIP off, on: each ratio's two cases run back to back. Ratios in this run (the cases
    themselves go into CASES): the cinemagraph against full motion (both with damage), and each
    clip with damage against without. --quick: the cinemagraph with damage alone (a smoke run:
    no ratio)."""
    off, on = {DAMAGE_ENV: "off"}, {DAMAGE_ENV: None}
    if b.args.quick:
        runs = [(DAMAGE_CLIP, True)]
    else:
        runs = [(NOISE_CLIP, False), (NOISE_CLIP, True), (DAMAGE_CLIP, True), (DAMAGE_CLIP, False),
                (MAIN_CLIP, False), (MAIN_CLIP, True)]
    order = []
    for clip, dmg in runs:
        key = damage_key(renderer, clip, dmg)
        log(f"wayloop {renderer}, 1 output, {clip}, damage {'on' if dmg else f'off ({DAMAGE_ENV}=off)'}")
        cases[key] = measure_wayloop(b, cenv, clip, key, renderer, env=on if dmg else off)
        order.append(key)
    key = lambda clip, dmg: damage_key(renderer, clip, dmg)
    out = {"rounds": 1, "order": order,
           "cinemagraph_vs_full": damage_pair(cases, key(DAMAGE_CLIP, True), key(NOISE_CLIP, True),
                                              ("cinemagraph", "full")),
           "noise_on_vs_off": damage_pair(cases, key(NOISE_CLIP, True), key(NOISE_CLIP, False), ("on", "off")),
           "cinemagraph_on_vs_off": damage_pair(cases, key(DAMAGE_CLIP, True), key(DAMAGE_CLIP, False),
                                                ("on", "off")),
           "main_on_vs_off": damage_pair(cases, key(MAIN_CLIP, True), key(MAIN_CLIP, False), ("on", "off"))}
    return {k: v for k, v in out.items() if v is not None}


def measure_scaling(b, cenv, renderer, cases):
    """--scaling on one 1920x1080 output (shm: the option is its own): SCALING_CLIP (720p) scaled
    by the client (libswscale) and by the compositor (converted 1:1, wp_viewport), back to back.
    The ratio is of the totals, client + compositor CPU."""
    keys = []
    for how in ("client", "compositor"):
        key = f"{renderer}/scaling-{how}-{SCALING_CLIP}"
        log(f"wayloop {renderer}, 1 output, {SCALING_CLIP}, --scaling {how}")
        cases[key] = measure_wayloop(b, cenv, SCALING_CLIP, key, renderer, extra=("--scaling", how))
        keys.append(key)
    c, p = cases[keys[0]], cases[keys[1]]
    return {"client": keys[0], "compositor": keys[1], "total_ratio": total_ratio(p, c),
            "client_ratio": cpu_ratio(p, c, "client_cpu_s"),
            "compositor_ratio": cpu_ratio(p, c, "compositor_cpu_s")}


def measure_span_scaling(b, cenv2, renderer, cases):
    """Two 1920x1080 outputs: MAIN_CLIP whole on each (one shared conversion), then spanning both
    with --scaling client (each output converts its half, scaled 2x) and --scaling compositor
    (the canvas converted once, 1:1, each output a view of it scaled by the compositor)."""
    keys = {}
    for tag, extra in (("whole", ()), ("span-client", ("-m", "span", "--scaling", "client")),
                       ("span-compositor", ("-m", "span", "--scaling", "compositor"))):
        key = f"{renderer}/2out-{tag}-{MAIN_CLIP}"
        log(f"wayloop {renderer}, 2 outputs, {MAIN_CLIP}, {' '.join(extra) or 'whole on each'}")
        cases[key] = measure_wayloop(b, cenv2, MAIN_CLIP, key, renderer, extra=extra)
        keys[tag] = key
    w = cases[keys["whole"]]
    out = {"keys": keys}
    for tag in ("span-client", "span-compositor"):
        c = cases[keys[tag]]
        out[tag] = {"client_ratio": cpu_ratio(c, w, "client_cpu_s"), "total_ratio": total_ratio(c, w)}
    return out
