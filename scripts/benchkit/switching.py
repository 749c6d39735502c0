"""A playing wayloop told to switch (ctl set, crossfades), and the long run (RSS over time)."""

import os
import statistics
import time

from .clips import clip_frames, clip_path
from .compositor import client_env
from .config import FADE_S, MAIN_CLIP, SWITCH_CLIP, Broken, log
from .sample import client_window, rss_stats
from .summary import ratio
from .trace import analyse, read_trace, switch_latency_ms
from .wayloop import (ctl_set, finish_wayloop, renderer_argv, start_playing, start_wayloop,
                      wait_first_frame, wayloop_alive)


def ctl_status_ms(b, env, runs=5):
    """The floor of any ctl round trip here (process start, connect, reply): `ctl status`, ms."""
    out = []
    for _ in range(runs):
        t0 = time.monotonic_ns()
        b.ctl(env, "status")
        out.append((time.monotonic_ns() - t0) / 1e6)
    return out


def measure_switch(b, cenv, renderer, keep_recent):
    """`wayloop ctl set '*' B` on a playing A, then back and forth: the time from ctl's exec to
    the new video's first presented frame, the first time (a video never opened) and back again
    (with --keep-recent, a video kept ready)."""
    a, other = clip_path(MAIN_CLIP), clip_path(SWITCH_CLIP)
    p, trace, errlog = start_playing(b, cenv, a, f"{renderer}-switch-keep{keep_recent}",
                                     (*renderer_argv(renderer), "--keep-recent", str(keep_recent)))
    env = client_env(cenv)
    status_ms = ctl_status_ms(b, env)
    times = []
    for target in (other, a, other, a, other):
        t0 = time.monotonic_ns()
        ctl_set(b, env, target)
        ms = switch_latency_ms(trace, t0, min(clip_frames(MAIN_CLIP), clip_frames(SWITCH_CLIP)))
        if ms is None:
            raise Broken(f"the switch to {os.path.basename(target)} never showed (see {errlog})")
        times.append(ms)
        time.sleep(1.0)
    finish_wayloop(p, errlog)
    return {"keep_recent": keep_recent, "first_ms": times[0], "back_ms": times[1:],
            "back_median_ms": round(statistics.median(times[1:]), 1),
            "ctl_status_median_ms": round(statistics.median(status_ms), 1)}


def per_s(part, k, scale=1000.0):
    """PART's K per second of its s (times SCALE), to one place."""
    return round(part[k] * scale / part["s"], 1) if part["s"] else None


def measure_fade(b, cenv, renderer, cycles=3):
    """CPU during a crossfade (--transition fade:2s: both videos decode, every frame callback
    blends them) against the same wayloop playing one video: `ctl set` between MAIN_CLIP and
    SWITCH_CLIP, each fade's 2 s measured from ctl's return (the fade has begun), and the same
    length of steady playback after each fade has ended."""
    a, other = clip_path(MAIN_CLIP), clip_path(SWITCH_CLIP)
    p, trace, errlog = start_playing(b, cenv, a, f"{renderer}-fade",
                                     (*renderer_argv(renderer), "--transition", f"fade:{FADE_S:g}s"))
    env = client_env(cenv)
    w = client_window(p.pid, cenv, wayloop_alive(p, errlog))
    fade = {"client": 0.0, "compositor": 0.0, "s": 0.0, "commits": 0}
    steady = dict(fade)
    for _ in range(cycles):
        for target in (other, a):
            ctl_set(b, env, target)
            for part in (fade, steady):
                n0 = len(read_trace(trace))
                elapsed, cpu, _ = w.run(FADE_S)
                part["client"] += cpu["client"]
                part["compositor"] += cpu["compositor"]
                part["s"] += elapsed
                part["commits"] += len(read_trace(trace)) - n0
    finish_wayloop(p, errlog)
    if not fade["commits"]:
        raise Broken(f"no frame was committed during the fades (see {errlog})")
    return {"fade_s": FADE_S, "fades": 2 * cycles,
            "fade_client_ms_per_s": per_s(fade, "client"), "steady_client_ms_per_s": per_s(steady, "client"),
            "fade_compositor_ms_per_s": per_s(fade, "compositor"),
            "steady_compositor_ms_per_s": per_s(steady, "compositor"),
            "fade_commits_per_s": per_s(fade, "commits", 1), "steady_commits_per_s": per_s(steady, "commits", 1),
            "fade_vs_steady_client": ratio(fade["client"] / fade["s"], steady["client"] / steady["s"])
            if fade["s"] and steady["s"] else None}


def rss_growth(rss):
    """The long run's RSS (kB samples every 0.5 s): at the start, at the end, after 60 s, in MB."""
    k = max(1, min(len(rss) // 20, 20))  # median of the first and the last few samples
    start_mb = statistics.median(rss[:k]) / 1024
    end_mb = statistics.median(rss[-k:]) / 1024
    # Growth after the first minute too: the heap, the codec's buffer pool and llvmpipe reach
    # their working size in the first seconds (a step, not a slope); samples every 0.5 s.
    settle = min(120, len(rss) // 2)
    settled_mb = statistics.median(rss[settle:settle + k]) / 1024
    return {"rss_start_mb": round(start_mb, 1), "rss_end_mb": round(end_mb, 1),
            "rss_growth_mb": round(end_mb - start_mb, 2),
            "rss_after_60s_mb": round(settled_mb, 1), "rss_growth_after_60s_mb": round(end_mb - settled_mb, 2),
            "rss_every_10s_mb": [round(x / 1024, 1) for x in rss[::20]]}


def measure_long(b, cenv, renderer):
    # -v: the decoder says when libavcodec's frame pool makes a buffer after the first pass
    # (memory kept for good), so a step in RSS can be matched with one (or not).
    p, trace, errlog, _ = start_wayloop(b, cenv, clip_path(MAIN_CLIP), f"{renderer}-long",
                                        [*renderer_argv(renderer), "-v"])
    wait_first_frame(p, trace, errlog)
    time.sleep(b.args.warmup)
    n0 = len(read_trace(trace))
    log(f"long run, {renderer}: {b.args.long:.0f} s")
    elapsed, cpu, rss = client_window(p.pid, cenv, wayloop_alive(p, errlog)).run(b.args.long)
    lines = read_trace(trace)[n0:]
    finish_wayloop(p, errlog)
    with open(errlog) as f:
        pool_lines = [ln.split("video: ", 1)[-1].strip() for ln in f if "frame pool" in ln]
    per_out = analyse(lines, cenv["OUTPUTS"], elapsed, clip_frames(MAIN_CLIP))
    return {"clip": MAIN_CLIP, "renderer": renderer, "window_s": round(elapsed, 1),
            "client_cpu_s": cpu["client"], "compositor_cpu_s": cpu["compositor"], **rss_stats(rss),
            **rss_growth(rss), "codec_pool_buffers_made_after_first_pass": pool_lines, "per_output": per_out}
