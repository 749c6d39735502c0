"""scripts/bench-memory: the memory of WayLoop against mpv --vo=wlshm, as the shells ask.

Every player runs on a headless sway of its own (one 1920x1080 output each, so that no player's
window covers another's wallpaper), all of them at once, for --hold seconds: wayloop (the release
build, --renderer shm) and mpv --vo=wlshm (a tiled window filling the output, as scripts/bench
runs it), each on the clips of --clips (default the 1080p30 and the 2160p30 H.264 clips). What
it reads, from /proc/PID/smaps_rollup every 10 s: RSS and PSS, and of them the anonymous part
(the heap, decoded frames), the shared-memory part (the wl_shm buffers) and the file-backed part
(the libraries' pages). "Steady" is the median over [--settle, --settle + --window] seconds after
the start; "after the hold" the median over the last --window seconds. Frames: wayloop's from its
frame trace, mpv's from its own counters (frame-drop-count, over the hold), so that a player the
machine could not keep up with shows it.

Each process's mappings are also summed by what they are (the heap and anonymous maps, the
wl_shm pool, each library) once steady and once at the end: docs/bench/memory.json keeps them,
and the steps that lowered WayLoop's memory (docs/performance.md) were read from them.

Writes a table on stdout, --out/memory.json and --out/memory.md (the table the README shows).
"""

import argparse
import collections
import datetime
import json
import os
import re
import shlex
import shutil
import signal
import statistics
import tempfile
import time

from .clips import clip_frames, clip_label, clip_path, prepare_clips
from .compositor import client_env, compositor_start, compositor_stop, fill_output_tiled
from .config import CLIPS, OUT_DIR, ROOT, Broken, log
from .main import guarded
from .procs import log_tail, on_term, spawn_logged, stop_proc, tool_version
from .references import MpvIpc, mpv_argv, wait_mpv_playing
from .trace import dropped_between, read_trace

DEFAULT_MEMORY_CLIPS = ["h264-1080p30", "h264-2160p30"]
# What scripts/install ships: the release build with the Swift standard library linked in.
STATIC_WAYLOOP = os.path.join(ROOT, ".build", "static", "release", "wayloop")
SAMPLE_S = 10.0
# The steps that lowered WayLoop's memory, each with the environment that switches it off.
STEPS = [("cold-pages", {"WAYLOOP_COLD_PAGES": "off"})]
ROLLUP_KEYS = ("Rss", "Pss", "Pss_Anon", "Pss_File", "Pss_Shmem", "Anonymous")


def rollup(pid):
    """/proc/PID/smaps_rollup's sizes in kB (Rss, Pss, Pss_Anon, Pss_File, Pss_Shmem, Anonymous);
    None when the process is gone."""
    out = {}
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                k, _, rest = line.partition(":")
                if k in ROLLUP_KEYS:
                    out[k] = int(rest.split()[0])
    except OSError:
        return None
    return out


MAP_LINE = re.compile(r"^[0-9a-f]+-[0-9a-f]+ ")


def kind_of(name):
    """What a mapping is, by its name in /proc/PID/smaps."""
    if not name:
        return "anonymous"
    if name == "[heap]":
        return "heap"
    if name.startswith("[stack"):
        return "stacks"
    if name.startswith("["):
        return name
    if name.startswith("/memfd:") or name.startswith("/dev/shm/") or "(deleted)" in name:
        return "shared memory (wl_shm)"
    base = os.path.basename(name)
    m = re.match(r"(lib[^.]+)\.so", base)
    return m.group(1) if m else base


def anatomy(pid):
    """Each kind of mapping's RSS and PSS in kB: {kind: [rss, pss]}; {} when the process is gone."""
    groups = collections.defaultdict(lambda: [0, 0])
    cur = None
    try:
        with open(f"/proc/{pid}/smaps") as f:
            for line in f:
                if MAP_LINE.match(line):
                    parts = line.split(None, 5)
                    cur = kind_of(parts[5].strip() if len(parts) > 5 else "")
                elif line.startswith("Rss:"):
                    groups[cur][0] += int(line.split()[1])
                elif line.startswith("Pss:"):
                    groups[cur][1] += int(line.split()[1])
    except OSError:
        return {}
    return {k: v for k, v in sorted(groups.items(), key=lambda kv: -kv[1][0]) if v[0] > 0}


def mb(kb):
    return round(kb / 1024.0, 1) if kb is not None else None


class Player:
    """One player on a compositor of its own: started, sampled, stopped."""

    def __init__(self, name, kind, clip, cenv, workdir, env=None, label=None):
        self.name, self.kind, self.clip, self.cenv, self.workdir = name, kind, clip, cenv, workdir
        self.env = env or {}       # extra environment: a step switched off
        self.verbose = False       # wayloop -v: its debug lines in the log
        self.label = label or ("WayLoop (shm)" if kind == "wayloop" else "mpv --vo=wlshm")
        self.samples = []          # (seconds since the start, rollup)
        self.p = self.trace = self.ipc = None
        self.errlog = os.path.join(workdir, f"{name}.log")
        self.argv = []

    def start(self, wayloop):
        env = client_env(self.cenv)
        if self.kind == "wayloop":
            self.trace = os.path.join(self.workdir, f"{self.name}.trace")
            env["XDG_STATE_HOME"] = os.path.join(self.workdir, f"{self.name}.state")
            env["XDG_CACHE_HOME"] = os.path.join(self.workdir, f"{self.name}.cache")
            env["WAYLOOP_FIT_MAKER"] = "none"   # the clip as it is, never a fitted copy made behind it
            env.update(self.env)
            self.argv = [wayloop, "--renderer", "shm", "--no-config", "--trace-frames", self.trace] + \
                (["-v"] if self.verbose else []) + [clip_path(self.clip)]
            self.p, _ = spawn_logged(self.argv, env, self.errlog)
        else:
            sock = os.path.join(self.workdir, f"{self.name}.sock")
            size = "1920x1080"
            self.argv = mpv_argv("wlshm", clip_path(self.clip), sock, size)
            self.p, _ = spawn_logged(self.argv, env, self.errlog, both=True)
            self.ipc = MpvIpc(sock)

    def alive(self):
        if self.p.poll() is not None:
            raise Broken(f"{self.name} exited (status {self.p.returncode}): {log_tail(self.errlog, '(nothing)')}")

    def wait_playing(self):
        if self.kind == "wayloop":
            deadline = time.monotonic() + 30
            while not read_trace(self.trace):
                self.alive()
                if time.monotonic() > deadline:
                    raise Broken(f"{self.name} presented no frame within 30 s (see {self.errlog})")
                time.sleep(0.05)
        else:
            wait_mpv_playing(self.ipc, self.alive, "wlshm", self.errlog, timeout=30)
            fill_output_tiled(self.cenv, self.p.pid)

    def frames(self):
        """(frames shown, frames dropped) so far, as the player counts them: wayloop's dropped
        frames are those its trace skips (a frame of the loop never presented)."""
        if self.kind == "wayloop":
            lines = read_trace(self.trace)
            per_pass = clip_frames(self.clip)
            skipped = sum(dropped_between((a[1], a[2]), (b[1], b[2]), per_pass) for a, b in zip(lines, lines[1:]))
            return len(lines), skipped
        drop = self.ipc.get("frame-drop-count") or 0
        dec = self.ipc.get("decoder-frame-drop-count") or 0
        return None, drop + dec

    def cpu_s(self):
        """CPU time used so far (user and system, every thread), in seconds."""
        with open(f"/proc/{self.p.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def sample(self, t):
        r = rollup(self.p.pid)
        if r is None:
            self.alive()
            raise Broken(f"{self.name}: /proc/{self.p.pid}/smaps_rollup cannot be read")
        self.samples.append((round(t, 1), r))

    def median(self, t0, t1):
        rows = [r for t, r in self.samples if t0 <= t <= t1]
        if not rows:
            return None
        return {k: mb(statistics.median(r.get(k, 0) for r in rows)) for k in ROLLUP_KEYS}

    def stop(self):
        if self.ipc:
            self.ipc.close()
        st = stop_proc(self.p, signal.SIGTERM)
        if self.kind == "wayloop" and st != 0:
            raise Broken(f"{self.name} did not stop cleanly on SIGTERM (status {st}); see {self.errlog}")


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="scripts/bench-memory",
        description="The memory (RSS and PSS) of wayloop --renderer shm against mpv --vo=wlshm, every player "
                    "on a headless sway of its own, all at once, steady and after --hold seconds. Writes a "
                    "table on stdout, docs/bench/memory.json and docs/bench/memory.md.",
        epilog="Exit status: 0 ran, 1 the benchmark broke (a player exited or showed nothing), 2 usage or "
               "missing binary, 130 interrupted.")
    ap.add_argument("--hold", type=float, default=3600.0, metavar="S",
                    help="how long every player plays (default 3600: the hour the table reports)")
    ap.add_argument("--settle", type=float, default=30.0, metavar="S",
                    help="seconds after the start before the steady window (default 30)")
    ap.add_argument("--window", type=float, default=60.0, metavar="S",
                    help="the steady window, and the last window of the hold (default 60)")
    ap.add_argument("--clips", default=",".join(DEFAULT_MEMORY_CLIPS), metavar="LIST",
                    help=f"comma-separated clips (default {','.join(DEFAULT_MEMORY_CLIPS)})")
    ap.add_argument("--no-mpv", action="store_true", help="wayloop alone")
    ap.add_argument("--no-steps", action="store_true",
                    help="skip the steps: by default, before the hold, wayloop on the first clip, then the same with each "
                         "step that lowered its memory switched off, then mpv, each alone for --settle + --window seconds")
    ap.add_argument("--wayloop", metavar="PATH", help="the wayloop binary (default .build/static/release/wayloop, what scripts/install ships)")
    ap.add_argument("--out", metavar="DIR", help="where memory.json and memory.md go (default docs/bench)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory (traces, logs)")
    a = ap.parse_args(argv)
    a.clip_list = [c.strip() for c in a.clips.split(",") if c.strip()]
    bad = [c for c in a.clip_list if c not in CLIPS]
    if bad or not a.clip_list:
        ap.error(f"unknown clip(s) {', '.join(bad) or a.clips!r}; known: {', '.join(CLIPS)}")
    if a.window <= 0 or a.settle < 0 or a.hold < a.settle + 2 * a.window:
        ap.error("--window must be > 0, --settle >= 0, and --hold at least --settle + 2 x --window")
    a.out = a.out or OUT_DIR
    return a


def run(a, wayloop, workdir, results):
    players = []
    for clip in a.clip_list:
        for kind in ["wayloop"] + ([] if a.no_mpv else ["mpv"]):
            name = f"{kind}-{clip}"
            # short: sway's IPC socket path must fit in sun_path
            cenv = compositor_start(os.path.join(workdir, f"sway{len(players)}"), ["1920x1080"])
            players.append(Player(name, kind, clip, cenv, workdir))
    log(f"{len(players)} players side by side for {a.hold:g} s: " + ", ".join(p.name for p in players))
    for p in players:
        p.start(wayloop)
    for p in players:
        p.wait_playing()
    t0 = time.monotonic()
    f0 = {p.name: p.frames() for p in players}
    c0 = {p.name: p.cpu_s() for p in players}
    steady_anatomy = {}
    next_log = 0.0
    while True:
        t = time.monotonic() - t0
        for p in players:
            p.sample(t)
        if not steady_anatomy and t >= a.settle + a.window / 2:
            steady_anatomy = {p.name: anatomy(p.p.pid) for p in players}
        if t >= next_log:
            log(f"{t:6.0f} s: " + ", ".join(f"{p.name} {mb(p.samples[-1][1]['Rss'])} MB" for p in players))
            next_log += 300.0
        if t >= a.hold:
            break
        time.sleep(min(SAMPLE_S, max(0.0, a.hold - t)))
    elapsed = time.monotonic() - t0
    end_anatomy = {p.name: anatomy(p.p.pid) for p in players}
    f1 = {p.name: p.frames() for p in players}
    c1 = {p.name: p.cpu_s() for p in players}
    for p in players:
        shown0, drop0 = f0[p.name]
        shown1, drop1 = f1[p.name]
        row = {"player": p.kind, "label": p.label, "clip": p.clip, "env": p.env,
               "cpu_percent_of_a_core": round(100.0 * (c1[p.name] - c0[p.name]) / elapsed, 1), "argv": [os.path.basename(x) if x.startswith("/") else x for x in p.argv],
               "steady": p.median(a.settle, a.settle + a.window),
               "after_hold": p.median(elapsed - a.window, elapsed),
               "peak_rss_mb": mb(max(r["Rss"] for _, r in p.samples)),
               "rss_every_10s_mb": [mb(r["Rss"]) for _, r in p.samples],
               "anatomy_steady_mb": {k: [mb(v[0]), mb(v[1])] for k, v in steady_anatomy.get(p.name, {}).items()},
               "anatomy_end_mb": {k: [mb(v[0]), mb(v[1])] for k, v in end_anatomy.get(p.name, {}).items()}}
        if p.kind == "wayloop":
            expected = elapsed * CLIPS[p.clip][3]
            row["frames_presented"] = shown1 - shown0
            row["frames_expected"] = round(expected)
            row["frames_dropped"] = drop1 - drop0
        else:
            row["frames_dropped"] = drop1 - drop0
        results["players"][p.name] = row
    results["hold_s"] = round(elapsed, 1)
    for p in players:
        p.stop()


def run_alone(a, wayloop, workdir, results):
    """The steps, before the hold: wayloop on the first clip as it ships, then with each step
    that lowered its memory switched off (STEPS), then mpv, each alone on a headless sway for
    --settle + --window seconds. Alone, so that no other player maps the same library pages:
    the kernel reclaims only pages no other process maps, and PSS splits shared pages."""
    clip = a.clip_list[0]
    runs = [("wayloop", {}, "WayLoop (shm)")]
    runs += [("wayloop", env, "WayLoop (shm), " + " ".join(f"{k}={v}" for k, v in env.items())) for _, env in STEPS]
    runs += [] if a.no_mpv else [("mpv", {}, "mpv --vo=wlshm")]
    length = a.settle + a.window
    log(f"alone, one after the other, {length:g} s each: " + ", ".join(label for _, _, label in runs))
    for i, (kind, env, label) in enumerate(runs):
        d = os.path.join(workdir, f"alone{i}")
        p = Player(f"alone{i}-{kind}-{clip}", kind, clip, compositor_start(d, ["1920x1080"]), workdir, env=env, label=label)
        p.verbose = True   # the line that says what was handed back, and how long it took
        p.start(wayloop)
        p.wait_playing()
        t0 = time.monotonic()
        f0, c0 = p.frames(), 0.0
        while True:
            t = time.monotonic() - t0
            p.sample(t)
            if t >= a.settle and not c0:
                c0, f0, ts = p.cpu_s(), p.frames(), t
            if t >= length:
                break
            time.sleep(min(SAMPLE_S / 2, max(0.0, length - t)))
        f1, c1 = p.frames(), p.cpu_s()
        window = time.monotonic() - t0 - ts
        row = {"player": kind, "label": label, "clip": clip, "env": env,
               "steady": p.median(a.settle, length),
               "cpu_percent_of_a_core": round(100.0 * (c1 - c0) / window, 1),
               "frames_dropped": f1[1] - f0[1],
               "anatomy_steady_mb": {k: [mb(v[0]), mb(v[1])] for k, v in anatomy(p.p.pid).items()}}
        p.stop()
        if kind == "wayloop":
            with open(p.errlog, errors="replace") as f:
                row["memory_lines"] = [l.strip() for l in f if ": memory: " in l]
        results["alone"].append(row)
        compositor_stop(d)


def steps_table(results):
    """The Markdown table of the steps: each player alone, steady."""
    lines = ["| alone, steady | clip | RSS | PSS | of it: heap and frames / wl_shm / libraries (PSS) | CPU (of a core) | frames dropped |",
             "| --- | --- | ---: | ---: | --- | ---: | ---: |"]
    for r in results.get("alone", []):
        s = r["steady"] or {}
        lines.append(f"| {r['label']} | {clip_label(r['clip'])} | {s.get('Rss')} MB | {s.get('Pss')} MB | "
                     f"{s.get('Pss_Anon')} / {s.get('Pss_Shmem')} / {s.get('Pss_File')} MB | "
                     f"{r['cpu_percent_of_a_core']} % | {r['frames_dropped']} |")
    return "\n".join(lines)


def table(results):
    """The Markdown table: one row per player and clip."""
    hold = results["hold_s"]
    h = f"{hold / 3600:.2g} h" if hold >= 1800 else f"{hold:g} s"
    lines = [f"| player | clip | RSS steady | PSS steady | RSS after {h} | PSS after {h} | of it: heap and frames / wl_shm / libraries (PSS, after) | CPU (of a core) | frames dropped |",
             "| --- | --- | ---: | ---: | ---: | ---: | --- | ---: | --- |"]
    for name, r in results["players"].items():
        s, e = r["steady"] or {}, r["after_hold"] or {}
        parts = f"{e.get('Pss_Anon')} / {e.get('Pss_Shmem')} / {e.get('Pss_File')}"
        if r["player"] == "wayloop":
            fr = f"{r['frames_dropped']} ({r['frames_presented']} of {r['frames_expected']} presented)"
        else:
            fr = f"{r['frames_dropped']}"
        lines.append(f"| {r.get('label', r['player'])} | {clip_label(r['clip'])} | {s.get('Rss')} MB | {s.get('Pss')} MB | "
                     f"{e.get('Rss')} MB | {e.get('Pss')} MB | {parts} MB | {r.get('cpu_percent_of_a_core')} % | {fr} |")
    return "\n".join(lines)


def main(argv):
    a = parse_args(argv)
    wayloop = os.path.abspath(a.wayloop) if a.wayloop else STATIC_WAYLOOP
    if not os.access(wayloop, os.X_OK):
        log(f"{wayloop} is missing: build it first with `swift build -c release --static-swift-stdlib --scratch-path .build/static`")
        return 2
    for tool in ("sway", "swaymsg", "ffmpeg") + (() if a.no_mpv else ("mpv",)):
        if not shutil.which(tool):
            log(f"'{tool}' not found (scripts/setup installs it)")
            return 2
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGHUP, on_term)
    t_start = time.monotonic()
    workdir = tempfile.mkdtemp(prefix="wayloop-bench-memory.")
    os.chmod(workdir, 0o711)
    results = {"date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
               "command": "scripts/bench-memory " + " ".join(shlex.quote(x) for x in argv),
               "config": {"hold_s": a.hold, "settle_s": a.settle, "window_s": a.window, "clips": a.clip_list,
                          "output": "1920x1080", "sample_s": SAMPLE_S},
               "host": {"cpus": os.cpu_count(), "kernel": os.uname().release,
                        "wayloop": tool_version([wayloop, "-V"]),
                        "mpv": None if a.no_mpv else tool_version(["mpv", "--version"]),
                        "sway": tool_version(["sway", "--version"])},
               "loadavg_start": os.getloadavg(), "alone": [], "players": {}}
    def work():
        results["clips"] = prepare_clips(a.clip_list, False)
        if not a.no_steps:
            run_alone(a, wayloop, workdir, results)
        run(a, wayloop, workdir, results)
    status = guarded(work, workdir, a.keep)
    if status:
        return status
    results["elapsed_s"] = round(time.monotonic() - t_start, 1)
    results["loadavg_end"] = os.getloadavg()
    md = table(results) + ("\n\n" + steps_table(results) if results["alone"] else "")
    print(md)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "memory.json"), "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    with open(os.path.join(a.out, "memory.md"), "w") as f:
        f.write(f"<!-- written by {results['command']} on {results['date']}; do not edit -->\n{md}\n")
    print(f"\nwrote {os.path.relpath(os.path.join(a.out, 'memory.json'))} and memory.md in {results['elapsed_s']:g} s")
    return 0
