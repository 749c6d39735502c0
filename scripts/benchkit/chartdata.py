"""What the chart shows of a results.json, without matplotlib: the series, the clips of the
per-clip panels, and every value it writes on the chart (the claims --check-chart holds it to)."""

import json

from .clips import clip_label
from .config import ALL_CLIPS, LOOP_CLIP, MAIN_CLIP, MPV_VOS

# the panel of the other cases: (x label, case key without the renderer)
OTHER_PANEL = [(f"1 output\n{clip_label(MAIN_CLIP)}", f"1out-{MAIN_CLIP}"),
               ("2 outputs\n(same clip)", f"2out-{MAIN_CLIP}"),
               ("hidden\n(covered)", "hidden"),
               ("2 s loop\ncache off", f"1out-{LOOP_CLIP}"),
               ("2 s loop\ncache on", f"1out-{LOOP_CLIP}-cached")]
PER_CLIP = ("compositor_ms_per_commit", "rss_median_mb")   # per-clip panels beside client CPU
LONG_VALUES = ("rss_start_mb", "rss_end_mb", "rss_growth_after_60s_mb")


def num(v):
    """A number as results.json writes it (json.dump: repr of floats, so the same rounding)."""
    return json.dumps(v)


def path_label(path):
    return "".join(f"[{p}]" if i else p for i, p in enumerate(path))


def lookup(results, path):
    v = results
    for p in path:
        if not isinstance(v, dict) or p not in v:
            return None
        v = v[p]
    return v


def mpv_dict(results):
    """results' mpv references ({vo: {clip: ...}}), {} when mpv was skipped (a string says why)."""
    return results.get("mpv") if isinstance(results.get("mpv"), dict) else {}


def chart_renderers(results):
    return results.get("config", {}).get("renderers", [])


def chart_vos(results):
    mpvd = results.get("mpv")
    return [vo for vo in MPV_VOS if isinstance(mpvd, dict) and vo in mpvd]


def chart_clips(results):
    """The clips of the per-clip panels: those of the run with something to draw (a 1out case, the
    floor or an mpv reference; not the clips only the cap or damage cases played)."""
    listed = list(results.get("clips", {})) + results.get("config", {}).get("clips", [])
    cases, floor = results.get("cases", {}), results.get("floor", {})
    mpvd = mpv_dict(results)
    rs = chart_renderers(results)

    def drawable(c):
        return (any(f"{r}/1out-{c}" in cases for r in rs) or c in floor
                or any(c in per for per in mpvd.values()))
    return [c for c in ALL_CLIPS if c in listed and drawable(c)]


def case_claims(results, clips):
    """The values the chart shows of results' cases: the 1out case of each clip of CLIPS and
    those of OTHER_PANEL, for each renderer."""
    claims = []
    shown = {f"{r}/{k}" for r in chart_renderers(results)
             for k in [f"1out-{c}" for c in clips] + [k for _, k in OTHER_PANEL]}
    for key, case in results.get("cases", {}).items():
        if key not in shown:
            continue
        claims.append(("cases", key, "client_cpu_s"))
        r, _, name = key.partition("/")
        if name.startswith("1out-") and name[5:] in clips:
            claims += [("cases", key, m) for m in PER_CLIP if case.get(m) is not None]
            for out in case.get("per_output", {}):
                claims += [("cases", key, "per_output", out, "fps"),
                           ("cases", key, "per_output", out, "dropped")]
    return claims


def chart_claims(results):
    """Every value of results.json's cases, floor, mpv and long that the chart shows: JSON paths.
    (The chart leaves out the span, cap and damage cases: their ratios are in the summary and
    results.json.)"""
    claims = case_claims(results, chart_clips(results))
    for clip in results.get("floor", {}):
        claims.append(("floor", clip, "cpu_s"))
    for vo, clips in mpv_dict(results).items():
        for clip, m in clips.items():
            claims += [("mpv", vo, clip, k) for k in ("client_cpu_s",) + PER_CLIP + ("fps", "dropped")
                       if m.get(k) is not None]
    for r in (results.get("long") or {}):
        claims += [("long", r, k) for k in LONG_VALUES]
    return [c for c in claims if lookup(results, c) is not None]
