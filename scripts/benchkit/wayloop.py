"""One wayloop case: start it on a compositor, wait for its first frame, measure a window, stop it."""

import json
import os
import signal
import subprocess
import time

from .clips import clip_frames, clip_path
from .compositor import client_env, cover
from .config import COST_STAGES, Broken
from .procs import log_tail, spawn_logged, stop_proc
from .sample import client_window, per_commit_ms, rss_stats
from .trace import analyse, cadence, read_trace


class Bench:
    """A run's settings: the command line (args), the work directory, the wayloop binary."""

    def __init__(self, args, workdir, wayloop):
        self.args, self.workdir, self.wayloop = args, workdir, wayloop

    def ctl(self, env, *argv, timeout=30):
        """`wayloop ctl ARGV...` in ENV: the CompletedProcess (text)."""
        return subprocess.run([self.wayloop, "ctl", *argv], env=env, capture_output=True,
                              text=True, timeout=timeout)


def renderer_argv(renderer):
    """wayloop's arguments that pick RENDERER."""
    return ("--renderer", renderer)


def case_file_tag(tag):
    return tag.replace("/", "-")


def start_wayloop(b, cenv, clip, tag, extra=(), env=None):
    """wayloop on CENV's compositor playing CLIP, its trace and log named after TAG.
    env: variables to set in wayloop's environment, None as a value: unset."""
    trace = os.path.join(b.workdir, f"{tag}.trace")
    errlog = os.path.join(b.workdir, f"{tag}.log")
    if os.path.exists(trace):
        os.remove(trace)
    cl_env = client_env(cenv)
    # A state directory for each run: wayloop restores the last `ctl set` (wayloop(5)), so a
    # switch case would start on the video an earlier case switched to, and the user's own
    # state is not the benchmark's to touch.
    cl_env["XDG_STATE_HOME"] = os.path.join(b.workdir, f"{tag}.state")
    # No fitted copy made behind a measurement (`--fit`, on by default): a case measures the
    # file it names (the fit cases name the copy made beforehand, fit.py), and never the user's cache.
    cl_env["WAYLOOP_FIT_MAKER"] = "none"
    cl_env["XDG_CACHE_HOME"] = os.path.join(b.workdir, f"{tag}.cache")
    for k, v in (env or {}).items():
        if v is None:
            cl_env.pop(k, None)
        else:
            cl_env[k] = v
    p, t_exec = spawn_logged([b.wayloop, "--trace-frames", trace, *extra, clip], cl_env, errlog)
    return p, trace, errlog, t_exec


def wayloop_alive(p, errlog):
    def check():
        if p.poll() is not None:
            tail = log_tail(errlog, "(nothing on stderr)")
            raise Broken(f"wayloop exited (status {p.returncode}) during the run: {tail}")
    return check


def wait_first_frame(p, trace, errlog, timeout=20.0):
    alive = wayloop_alive(p, errlog)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        alive()
        lines = read_trace(trace)
        if lines:
            return lines[0]
        time.sleep(0.01)
    raise Broken(f"wayloop presented no frame within {timeout:.0f} s (see {errlog})")


def finish_wayloop(p, errlog):
    if p.poll() is not None:
        wayloop_alive(p, errlog)()
    st = stop_proc(p, signal.SIGTERM)
    if st != 0:
        raise Broken(f"wayloop did not stop cleanly on SIGTERM (status {st}); see {errlog}")


def start_playing(b, cenv, clip, tag, extra):
    """start_wayloop, then its first frame and the warm-up (at least 1 s): (p, trace, errlog)."""
    p, trace, errlog, _ = start_wayloop(b, cenv, clip, tag, extra)
    wait_first_frame(p, trace, errlog)
    time.sleep(max(1.0, b.args.warmup))
    return p, trace, errlog


def ctl_set(b, env, target):
    """`wayloop ctl set '*' TARGET`; returns once it has (the new video on screen)."""
    r = b.ctl(env, "set", "*", target)
    if r.returncode != 0:
        raise Broken(f"ctl set failed ({r.returncode}): {r.stderr.strip()}")


def frame_costs(b, cenv):
    """Each output's frame-path cost totals (`ctl status --json`'s costs); {} when ctl fails."""
    try:
        r = b.ctl(client_env(cenv), "status", "--json")
        outs = json.loads(r.stdout).get("outputs", []) if r.returncode == 0 else []
    except (subprocess.TimeoutExpired, ValueError):
        return {}
    return {o["name"]: o["costs"] for o in outs if isinstance(o.get("costs"), dict)}


def cost_breakdown(c0, c1):
    """Per output, each stage's ms per run over the window (from two frame_costs readings), and
    how many times it ran: decode (the decoder thread's CPU per decoded frame), compare,
    convert (shm: libswscale; gl: upload and draw calls), present (the rest, to the commit; gl:
    the swap, where llvmpipe shades)."""
    out = {}
    for name, b in c1.items():
        a = c0.get(name)
        if not a:
            continue
        row = {}
        for stage, count in COST_STAGES:
            n = b[count] - a[count]
            row[f"{stage}_ms"] = round((b[f"{stage}_ms"] - a[f"{stage}_ms"]) / n, 3) if n > 0 else None
            row[count] = n
        out[name] = row
    return out


def measure_wayloop(b, cenv, clip_name, tag, renderer, cover_dir=None, extra=(), cap=None, env=None,
                    path=None, frames=None):
    """One wayloop case (key TAG, e.g. shm/1out-h264-1080p30) with RENDERER. cover_dir: cover the
    output after the warm-up (hidden case). env: wayloop's environment, as start_wayloop's.
    path, frames: another file than the clip's own (a fitted copy of it), with its frame count."""
    argv = renderer_argv(renderer)
    p, trace, errlog, t_exec = start_wayloop(b, cenv, path or clip_path(clip_name), case_file_tag(tag),
                                             (*argv, *extra), env)
    first = wait_first_frame(p, trace, errlog)
    time.sleep(b.args.warmup)
    if cover_dir:
        cover(cover_dir, "cover")
        time.sleep(1.0)
    n0 = len(read_trace(trace))
    c0 = frame_costs(b, cenv)
    elapsed, cpu, rss = client_window(p.pid, cenv, wayloop_alive(p, errlog)).run(b.args.window)
    c1 = frame_costs(b, cenv)
    lines = read_trace(trace)[n0:]
    if cover_dir:
        cover(cover_dir, "uncover")
    finish_wayloop(p, errlog)
    per_out = analyse(lines, cenv["OUTPUTS"], elapsed, frames or clip_frames(clip_name))
    if not cover_dir and not any(v["presented"] for v in per_out.values()):
        raise Broken(f"wayloop presented no frame during the {b.args.window:.0f} s window ({tag})")
    # commits: the frames wayloop presented in the window (every output, repeats included)
    commits = sum(v["presented"] for v in per_out.values())
    res = {"case": tag, "renderer": renderer, "renderer_argv": list(argv), "clip": clip_name,
           **({"file": path} if path else {}),
           "outputs": len(cenv["OUTPUTS"]), "window_s": round(elapsed, 2),
           "client_cpu_s": cpu["client"], "compositor_cpu_s": cpu["compositor"],
           "commits": commits, "compositor_ms_per_commit": per_commit_ms(cpu["compositor"], commits),
           **rss_stats(rss), "first_frame_ms": round((first[5] - t_exec) / 1e6, 1), "per_output": per_out}
    if cap:
        res["cadence"] = cadence(lines, cenv["OUTPUTS"][0], cap)
    if env:
        res["env"] = dict(env)
    breakdown = cost_breakdown(c0, c1)
    if breakdown:
        res["per_frame_ms"] = breakdown
    return res
