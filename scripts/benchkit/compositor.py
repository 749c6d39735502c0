"""Headless sway (scripts/compositor) and what sway's tree says about a window."""

import json
import os
import shlex
import subprocess
import time

from .config import COMPOSITOR, Broken, log
from .procs import run_quiet

COMPOSITORS = []   # DIRs with a running compositor


def read_env(d):
    env = {}
    with open(os.path.join(d, "env")) as f:
        for line in f:
            line = line.rstrip("\n")
            if "=" in line:
                k, v = line.split("=", 1)
                env[k] = shlex.split(v)[0] if v else ""
    return env


def compositor_start(d, sizes):
    argv = [COMPOSITOR, "start-sway", d]
    for s in sizes:
        argv += ["--output", s]
    COMPOSITORS.append(d)
    run_quiet(argv, "scripts/compositor start-sway")
    e = read_env(d)
    e["OUTPUTS"] = e.get("OUTPUTS", "").split()
    e["COMPOSITOR_PID"] = int(e["COMPOSITOR_PID"])
    return e


def compositor_stop(d):
    try:
        subprocess.run([COMPOSITOR, "stop", d], stdin=subprocess.DEVNULL, capture_output=True,
                       timeout=30, start_new_session=True)
    except Exception as e:
        log(f"scripts/compositor stop {d}: {e}")
    if d in COMPOSITORS:
        COMPOSITORS.remove(d)


def cover(d, how):
    """scripts/compositor cover|uncover DIR: a fullscreen window over the wallpaper, or not."""
    run_quiet([COMPOSITOR, how, d], f"scripts/compositor {how}", timeout=30)


def client_env(cenv):
    env = dict(os.environ)
    for k in ("WAYLAND_DISPLAY", "XDG_RUNTIME_DIR", "SWAYSOCK"):
        env[k] = cenv[k]
    env.pop("DISPLAY", None)
    return env


def sway_tree(cenv):
    out = run_quiet(["swaymsg", "-t", "get_tree", "-r"], "swaymsg -t get_tree", timeout=10,
                    env=client_env(cenv))
    return json.loads(out)


def sway_window(cenv, pid):
    """The window of PID in sway's tree: its node, the output it is on, and whether it floats."""
    def walk(n, output, floating):
        if n.get("type") == "output":
            output = n
        if n.get("pid") == pid and n.get("type") in ("con", "floating_con"):
            return n, output, floating
        for c in n.get("nodes", []):
            r = walk(c, output, floating)
            if r:
                return r
        for c in n.get("floating_nodes", []):
            r = walk(c, output, True)
            if r:
                return r
        return None
    return walk(sway_tree(cenv), None, False)


def _fills(orect, rect, wrect, geom):
    """Whether a window (sway's rect, window_rect, geometry) fills the output's rect ORECT."""
    return bool(orect and rect and wrect and geom
                and (rect["x"], rect["y"], rect["width"], rect["height"])
                == (orect["x"], orect["y"], orect["width"], orect["height"])
                and (wrect["x"], wrect["y"], wrect["width"], wrect["height"])
                == (0, 0, orect["width"], orect["height"])
                and (geom["width"], geom["height"]) == (orect["width"], orect["height"]))


def window_geometry(cenv, pid):
    """What sway says about the window of PID: a dict, or None when it has no window (yet)."""
    found = sway_window(cenv, pid)
    if not found:
        return None
    n, output, floating = found
    size = lambda r: f"{r['width']}x{r['height']}" if r else None
    orect = output["rect"] if output else None
    rect, wrect, geom = n.get("rect"), n.get("window_rect"), n.get("geometry")
    return {"output": output.get("name") if output else None, "output_size": size(orect),
            "rect": rect, "window_rect": wrect, "geometry": geom, "border": n.get("border"),
            "fullscreen_mode": n.get("fullscreen_mode"), "floating": floating,
            "tiled": not floating and not n.get("fullscreen_mode"),
            "fills_output": _fills(orect, rect, wrect, geom)}


def output_size(cenv):
    """WIDTHxHEIGHT of the compositor's first output, from sway's tree."""
    for n in sway_tree(cenv).get("nodes", []):
        if n.get("type") == "output" and n.get("name") == cenv["OUTPUTS"][0]:
            return f"{n['rect']['width']}x{n['rect']['height']}"
    raise Broken(f"sway's tree has no output {cenv['OUTPUTS'][0]}")


def fills_tiled(g):
    """Whether window_geometry's G is a tiled window filling its output."""
    return bool(g and g["fills_output"] and g["tiled"])


def fill_output_tiled(cenv, pid, timeout=5.0):
    """Make the window of PID a tiled window filling its output: no border, no gaps, not floating,
    not fullscreen (sway's default config and scripts/compositor's give that already for one window
    on an empty workspace; this makes sure), then wait until sway's tree shows it so, including the
    client's own geometry (the buffer it draws). Returns the last geometry seen."""
    crit = f"[pid={pid}]"
    cmds = ["gaps inner all set 0", "gaps outer all set 0",
            f"{crit} fullscreen disable", f"{crit} floating disable", f"{crit} border none"]
    env = client_env(cenv)
    for c in cmds:
        subprocess.run(["swaymsg", c], env=env, stdin=subprocess.DEVNULL, capture_output=True,
                       timeout=10, start_new_session=True)
    deadline = time.monotonic() + timeout
    g = None
    while True:
        g = window_geometry(cenv, pid)
        if fills_tiled(g):
            return g
        if time.monotonic() > deadline:
            return g
        time.sleep(0.05)
