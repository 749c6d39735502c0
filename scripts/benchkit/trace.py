"""wayloop's --trace-frames: frames per second, drops, repeats, the cadence, a switch's latency.

A line: <output> <pass> <index> <media-ns> <commit-ns> <presented-ns> <waited-ns> (wayloop 0.1.0
on; the seventh field, the run-queue wait, is not used here).
"""

import statistics
import time

from .config import REFRESH_S, Broken

# A line's fields: 7 up to 0.9 (output pass index media commit presented waited), 9 from the
# workspaces' frame checks on (video tag and fade weight added); the bench reads the first six,
# so an A/B of an older build against a newer one reads both.
FIELDS = (7, 9)


def read_trace(path):
    """Complete lines of the trace as tuples (output, pass, index, media, commit, presented)."""
    try:
        with open(path) as f:
            data = f.read()
    except FileNotFoundError:
        return []
    out = []
    for line in data.split("\n")[:-1]:  # the last piece is partial (or empty)
        p = line.split()
        if len(p) not in FIELDS:
            raise Broken(f"{path}: a trace line of {len(p)} fields, not {' or '.join(map(str, FIELDS))}: {line!r} "
                         f"(a wayloop older than 0.1.0?)")
        out.append((p[0], int(p[1]), int(p[2]), int(p[3]), int(p[4]), int(p[5])))
    return out


def dropped_between(prev, key, frames_per_pass):
    """Frames skipped from (pass, index) PREV to KEY, a later one."""
    (pp, pi), (cp, ci) = prev, key
    if cp == pp:
        return max(0, ci - pi - 1)
    if cp > pp:
        # the rest of pass pp, the whole passes between, the start of pass cp
        return max(0, frames_per_pass - 1 - pi) + ci + (cp - pp - 1) * frames_per_pass
    return 0


def output_stats(keys, window_s, frames_per_pass):
    """fps, dropped, repeated and presented of one output's (pass, index) KEYS in order."""
    seen = set()
    repeated = dropped = 0
    prev = None
    for key in keys:
        if key in seen:
            repeated += 1
            continue
        seen.add(key)
        if prev is not None:
            dropped += dropped_between(prev, key, frames_per_pass)
        if prev is None or key > prev:
            prev = key
    return {"fps": round(len(seen) / window_s, 2), "dropped": dropped,
            "repeated": repeated, "presented": len(keys)}


def analyse(lines, outputs, window_s, frames_per_pass):
    """Per output: distinct fps, dropped, repeated over LINES (the window's trace lines)."""
    return {o: output_stats([(l[1], l[2]) for l in lines if l[0] == o], window_s, frames_per_pass)
            for o in outputs}


def cadence(lines, output, cap):
    """Commit intervals of OUTPUT's distinct frames against 1/CAP: the share within one output
    refresh, and the largest deviation, in refreshes."""
    seen, commits = set(), []
    for l in lines:
        if l[0] == output and (l[1], l[2]) not in seen:
            seen.add((l[1], l[2]))
            commits.append(l[4])
    gaps = [(b - a) / 1e9 for a, b in zip(commits, commits[1:])]
    if not gaps:
        return None
    dev = [abs(g - 1 / cap) / REFRESH_S for g in gaps]
    return {"cap": cap, "intervals": len(gaps), "median_ms": round(statistics.median(gaps) * 1000, 1),
            "within_1_refresh": round(sum(d <= 1.0 + 1e-6 for d in dev) / len(dev), 3),
            "max_dev_refreshes": round(max(dev), 2)}


def switch_latency_ms(trace, t0, frames_per_pass, timeout=10.0):
    """Milliseconds from T0 (monotonic ns) to the presentation of the first frame after T0 that
    breaks the playing clip's sequence (another clip on screen), or None."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        prev = None
        for ln in read_trace(trace):
            pos = ln[1] * frames_per_pass + ln[2]
            if ln[4] > t0 and prev is not None and abs(pos - (prev + 1)) > 3:
                return round((ln[5] - t0) / 1e6, 1)
            prev = pos
        time.sleep(0.01)
    return None
