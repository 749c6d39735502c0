"""The first frame with the defaults, by screenshot: exec -> the output's picture changes, timed
by one tool for every player (grim, polled as fast as it goes), on one 1280x720 output playing
the 1080p30 H.264 clip. Three players, alternated in rounds: wayloop with its defaults (`--fit
auto` with a real fit maker, a fresh XDG_CACHE_HOME: the first-time path), wayloop --fit off,
and mpv --vo=wlshm (a tiled window filling the output, as the mpv reference starts it).

The pure parts (the PPM header, the picture-changed test, medians and ratios) come first."""

import os
import signal
import statistics
import subprocess
import time

from .clips import clip_path
from .compositor import client_env, fills_tiled, window_geometry
from .config import FIRST_FRAME_CLIP, FIRST_FRAME_SIZE, Broken, log
from .procs import log_tail, spawn_logged, stop_proc
from .references import mpv_argv

PLAYERS = ("defaults", "fit_off", "mpv_wlshm")
WAYLOOP_PLAYERS = PLAYERS[:2]
PLAYER_TEXT = {"defaults": "wayloop CLIP (the defaults: --fit auto, fresh cache)",
               "fit_off": "wayloop --fit off CLIP",
               "mpv_wlshm": "mpv --vo=wlshm (a tiled window)"}
GRID = (64, 36)        # points sampled across the picture (columns, rows)
CHANNEL_TOL = 24       # a point differs when a channel moved by more than this (of 255)
CHANGED_MIN = 0.02     # the picture changed when at least this share of the points differ


# ------------------------------------------------------------------------------------------------
# pure: pictures

def ppm_header(data):
    """(width, height, maxval, offset of the pixels) of binary PPM (P6) DATA; ValueError if not."""
    fields, i, n = [], 0, len(data)
    while len(fields) < 4:
        while i < n and data[i:i + 1].isspace():
            i += 1
        if i < n and data[i:i + 1] == b"#":     # a comment runs to the end of its line
            while i < n and data[i:i + 1] not in (b"\n", b"\r"):
                i += 1
            continue
        j = i
        while j < n and not data[j:j + 1].isspace() and data[j:j + 1] != b"#":
            j += 1
        if j == i:
            raise ValueError("not a binary PPM: its header ends early")
        fields.append(data[i:j])
        i = j
    if fields[0] != b"P6":
        raise ValueError(f"not a binary PPM (P6): {fields[0][:8]!r}")
    try:
        w, h, maxval = (int(f) for f in fields[1:])
    except ValueError:
        raise ValueError("not a binary PPM: a bad size or maxval") from None
    if w <= 0 or h <= 0 or not 0 < maxval < 256:
        raise ValueError(f"unsupported PPM: {w}x{h}, maxval {maxval}")
    off = i + 1                                  # one whitespace byte, then the pixels
    if n < off + w * h * 3:
        raise ValueError(f"short PPM: {n - off} bytes of pixels for {w}x{h}")
    return w, h, maxval, off


def sample(data, grid=GRID):
    """The picture of PPM DATA as ((width, height), the RGB of GRID's points, row by row, at the
    centres of a GRID of cells)."""
    w, h, _, off = ppm_header(data)
    gx, gy = min(grid[0], w), min(grid[1], h)
    xs = [(2 * i + 1) * w // (2 * gx) for i in range(gx)]
    out = bytearray()
    for j in range(gy):
        row = off + ((2 * j + 1) * h // (2 * gy)) * w * 3
        for x in xs:
            p = row + x * 3
            out += data[p:p + 3]
    return (w, h), bytes(out)


def changed_share(base, shot, tol=CHANNEL_TOL):
    """The share of sampled points (sample's) that differ between BASE and SHOT: a point differs
    when one of its channels moved by more than TOL; 1.0 when the sizes differ."""
    (bsize, b), (ssize, s) = base, shot
    if bsize != ssize or len(b) != len(s) or not b:
        return 1.0
    differ = sum(1 for k in range(0, len(b), 3)
                 if abs(b[k] - s[k]) > tol or abs(b[k + 1] - s[k + 1]) > tol or abs(b[k + 2] - s[k + 2]) > tol)
    return differ / (len(b) // 3)


def solid(pic, tol=CHANNEL_TOL):
    """Whether the sampled picture PIC (sample's) is one colour: every point within TOL of the
    first (a window's or a surface's first buffer of one colour, not yet a video frame)."""
    px = pic[1]
    if not px:
        return True
    r, g, b = px[0], px[1], px[2]
    return all(abs(px[k] - r) <= tol and abs(px[k + 1] - g) <= tol and abs(px[k + 2] - b) <= tol
               for k in range(0, len(px), 3))


def picture_changed(base, shot, tol=CHANNEL_TOL, share=CHANGED_MIN):
    """Whether SHOT (sample's) is another picture than BASE: at least SHARE of the points differ."""
    return changed_share(base, shot, tol) >= share


# ------------------------------------------------------------------------------------------------
# pure: numbers

def median_ms(values):
    """The median of VALUES (ms) to 0.1 ms; None when there are none."""
    return round(statistics.median(values), 1) if values else None


def shot_ratio(a, b):
    """A over B to three places; None when either is missing or B is 0."""
    return round(a / b, 3) if a is not None and b else None


def shot_summary(ms):
    """Per player of MS ({player: [ms, ...]}) its list and median, and the ratios of the medians:
    the defaults over --fit off and over mpv --vo=wlshm (None where a player did not run)."""
    players = {p: {"ms": list(v), "median_ms": median_ms(v)} for p, v in ms.items()}
    med = lambda p: players.get(p, {}).get("median_ms")
    return {"players": players,
            "ratios": {"defaults_over_fit_off": shot_ratio(med("defaults"), med("fit_off")),
                       "defaults_over_mpv_wlshm": shot_ratio(med("defaults"), med("mpv_wlshm"))}}


def round_order(players, i):
    """The order of round I: PLAYERS turned by I, so that each one starts first in turn."""
    k = i % len(players) if players else 0
    return list(players[k:]) + list(players[:k])


# ------------------------------------------------------------------------------------------------
# the case

class Grim:
    """grim -t ppm -o OUTPUT - in the compositor's environment."""

    def __init__(self, cenv, output):
        self.env, self.argv, self.durations = client_env(cenv), ["grim", "-t", "ppm", "-o", output, "-"], []

    def shot(self, timeout=10.0):
        """(monotonic ns when the capture started, sample's picture)."""
        t0 = time.monotonic_ns()
        try:
            r = subprocess.run(self.argv, env=self.env, stdin=subprocess.DEVNULL, capture_output=True,
                               timeout=timeout)
        except subprocess.TimeoutExpired:
            raise Broken(f"{' '.join(self.argv)} got no picture within {timeout:g} s") from None
        self.durations.append((time.monotonic_ns() - t0) / 1e6)
        if r.returncode != 0:
            raise Broken(f"grim failed ({r.returncode}): {r.stderr.decode(errors='replace').strip()}")
        try:
            return t0, sample(r.stdout)
        except ValueError as e:
            raise Broken(f"grim's picture: {e}") from None


def wait_changed(grim, base, t_exec, alive, timeout=20.0):
    """Shots until one differs from BASE: (ms from T_EXEC to that shot's start, shots taken, the
    share of points that changed, whether that shot is one solid colour)."""
    n = 0
    while True:
        alive()
        t0, pic = grim.shot()
        n += 1
        share = changed_share(base, pic)
        if share >= CHANGED_MIN:
            return round((t0 - t_exec) / 1e6, 1), n, round(share, 3), solid(pic)
        if (t0 - t_exec) / 1e9 > timeout:
            raise Broken(f"the output's picture did not change within {timeout:g} s")


def wait_empty(grim, base, who, timeout=10.0):
    """Shots until the output is back to BASE (the empty output) after WHO stopped."""
    deadline = time.monotonic() + timeout
    while True:
        _, pic = grim.shot()
        if not picture_changed(base, pic):
            return
        if time.monotonic() > deadline:
            raise Broken(f"the output did not come back to empty within {timeout:g} s after {who} stopped")
        time.sleep(0.02)


def player_env(b, cenv, tag):
    """A wayloop start's environment: fresh, empty cache, state and config directories (the
    first-time path, no saved state, no config file), and its own fit maker (the binary itself:
    WAYLOOP_FIT_MAKER unset)."""
    env = client_env(cenv)
    for var, suffix in (("XDG_CACHE_HOME", "cache"), ("XDG_STATE_HOME", "state"), ("XDG_CONFIG_HOME", "config")):
        d = os.path.join(b.workdir, f"{tag}.{suffix}")
        os.makedirs(d)
        env[var] = d
    env.pop("WAYLOOP_FIT_MAKER", None)
    return env


def player_argv(b, player, clip, sockp):
    if player == "defaults":
        return [b.wayloop, clip]
    if player == "fit_off":
        return [b.wayloop, "--fit", "off", clip]
    return mpv_argv("wlshm", clip, sockp, FIRST_FRAME_SIZE)


def one_start(b, cenv, grim, base, player, tag):
    """Starts PLAYER, times exec -> the picture changes, stops it (SIGTERM, wait) and waits for the
    empty output again: (ms, shots, share changed, one solid colour, the window filled the
    output (mpv) or None)."""
    clip = clip_path(FIRST_FRAME_CLIP)
    errlog = os.path.join(b.workdir, f"{tag}.log")
    mpv = player == "mpv_wlshm"
    env = client_env(cenv) if mpv else player_env(b, cenv, tag)
    argv = player_argv(b, player, clip, os.path.join(b.workdir, f"{tag}.sock"))
    p, t_exec = spawn_logged(argv, env, errlog, both=mpv)

    def alive():
        if p.poll() is not None:
            raise Broken(f"{player}: {os.path.basename(argv[0])} exited (status {p.returncode}) before "
                         f"its first frame: {log_tail(errlog, '(nothing)')}")
    try:
        ms, shots, share, flat = wait_changed(grim, base, t_exec, alive)
        fills = fills_tiled(window_geometry(cenv, p.pid)) if mpv else None
        alive()
    finally:
        st = stop_proc(p, signal.SIGTERM)
    if not mpv and st != 0:
        raise Broken(f"{player}: wayloop did not stop cleanly on SIGTERM (status {st}); see {errlog}")
    wait_empty(grim, base, player)
    return ms, shots, share, flat, fills


def measure_first_frame(b, cenv, rounds, with_mpv):
    """ROUNDS rounds of each player (mpv --vo=wlshm WITH_MPV), each round's order turned by one;
    exec -> the picture changes per start, their medians and ratios."""
    output = cenv["OUTPUTS"][0]
    grim = Grim(cenv, output)
    base = grim.shot()[1]
    if base[0] != tuple(int(x) for x in FIRST_FRAME_SIZE.split("x")):
        raise Broken(f"grim captures {output} at {base[0][0]}x{base[0][1]}, not {FIRST_FRAME_SIZE}")
    players = PLAYERS if with_mpv else WAYLOOP_PLAYERS
    ms = {p: [] for p in players}
    shots, shares, flats = ({p: [] for p in players} for _ in range(3))
    order, fills = [], []
    grim.durations.clear()
    for i in range(rounds):
        for player in round_order(players, i):
            t, n, share, flat, fill = one_start(b, cenv, grim, base, player, f"ff-{player}-{i}")
            ms[player].append(t)
            shots[player].append(n)
            shares[player].append(share)
            flats[player].append(flat)
            order.append(player)
            if fill is not None:
                fills.append(fill)
            log(f"first frame by screenshot, round {i + 1}/{rounds}: {player} {t:g} ms ({n} shots)")
    out = shot_summary(ms)
    for p in players:
        out["players"][p].update({"argv": [os.path.basename(a) if a.startswith("/") else a
                                           for a in player_argv(b, p, clip_path(FIRST_FRAME_CLIP), "S")],
                                  "shots": shots[p], "changed_share": shares[p], "solid": flats[p]})
    if with_mpv:
        out["players"]["mpv_wlshm"]["fills_output"] = all(fills)
    return {"clip": FIRST_FRAME_CLIP, "output": output, "output_size": FIRST_FRAME_SIZE, "rounds": rounds,
            "order": order, "grim_ms_median": median_ms(grim.durations), "grim_shots": len(grim.durations),
            "detect": {"grid": list(GRID), "channel_tol": CHANNEL_TOL, "changed_min": CHANGED_MIN},
            **out}
