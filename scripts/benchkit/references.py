"""The references measured in the same run: the FFmpeg decode floor, and mpv (the engine behind
mpvpaper) with --vo=gpu fullscreen and --vo=wlshm in a tiled window filling the output."""

import json
import os
import resource
import socket
import time

from .clips import clip_frames, clip_path
from .compositor import client_env, fill_output_tiled, fills_tiled, output_size, window_geometry
from .config import Broken, log
from .procs import log_tail, run_quiet, spawn_logged, stop_proc
from .sample import client_window, per_commit_ms, rss_stats


def measure_floor(clip_name, frames):
    clip = clip_path(clip_name)
    argv = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-threads", "1",
            "-stream_loop", "-1", "-i", clip, "-frames:v", str(frames), "-f", "null", "-"]
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    run_quiet(argv, f"ffmpeg decode floor of {clip_name}", timeout=900)
    wall = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return {"clip": clip_name, "frames": frames, "cpu_s": round(cpu, 3), "wall_s": round(wall, 2)}


class MpvIpc:
    def __init__(self, path):
        self.path, self.sock, self.buf, self.rid = path, None, b"", 0

    def connect(self):
        if self.sock:
            return True
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(2.0)
            s.connect(self.path)
            self.sock = s
            return True
        except OSError:
            return False

    def reply(self):
        """The next message that answers request self.rid: its data, or None."""
        while True:
            while b"\n" not in self.buf:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return None
                self.buf += chunk
            line, self.buf = self.buf.split(b"\n", 1)
            try:
                m = json.loads(line)
            except ValueError:
                continue
            if m.get("request_id") == self.rid:
                return m.get("data") if m.get("error") == "success" else None

    def get(self, prop):
        if not self.connect():
            return None
        self.rid += 1
        msg = json.dumps({"command": ["get_property", prop], "request_id": self.rid}) + "\n"
        try:
            self.sock.sendall(msg.encode())
            return self.reply()
        except OSError:
            return None

    def close(self):
        if self.sock:
            self.sock.close()


class MpvFrames:
    """mpv's frames over a window: it resets its drop counters and its frame number when it
    loops, so the increases between samples are added up. Frames presented = the frame number's
    advance - the frames dropped."""
    KEYS = ("frame-drop-count", "decoder-frame-drop-count")

    def __init__(self, ipc, nframes):
        self.ipc, self.nframes = ipc, nframes
        self.last = {k: int(ipc.get(k) or 0) for k in self.KEYS}
        self.last_no = int(ipc.get("estimated-frame-number") or 0)
        self.dropped = self.advanced = 0

    def tick(self):
        for k in self.KEYS:
            v = int(self.ipc.get(k) or 0)
            self.dropped += v - self.last[k] if v >= self.last[k] else v
            self.last[k] = v
        v = self.ipc.get("estimated-frame-number")
        if v is not None:
            v = int(v)
            self.advanced += v - self.last_no if v >= self.last_no else max(0, self.nframes - self.last_no) + v
            self.last_no = v


def mpv_argv(vo, clip, sockp, size):
    if vo == "gpu":   # fullscreen, as the first reference has always been run
        out = ["--vo=gpu", "--gpu-context=wayland", "--fs"]
    else:
        # A tiled window: composited by sway like a wallpaper, never scanned out. mpv 0.35 keeps
        # drawing at its own window size (the video's: 1280x720, 3840x2160) whatever size sway's
        # tile gives it, so --geometry asks for the output's size: what sway tiles it to.
        out = ["--vo=wlshm", "--no-fs", f"--geometry={size}"]
    return ["mpv", *out, "--loop-file=inf", "--no-audio", "--no-config", "--no-terminal",
            f"--input-ipc-server={sockp}", clip]


def wait_mpv_playing(ipc, alive, vo, errlog, timeout=20.0):
    deadline = time.monotonic() + timeout
    while True:
        alive()
        if ipc.get("vo-configured") and (ipc.get("playback-time") or 0) > 0:
            return
        if time.monotonic() > deadline:
            raise Broken(f"mpv --vo={vo} showed nothing within 20 s (see {errlog})")
        time.sleep(0.02)


def mpv_window(cenv, pid, vo, clip_name):
    """mpv's window as sway has it (--vo=wlshm: made a tiled window filling the output first)."""
    if vo != "wlshm":
        return window_geometry(cenv, pid)
    geom = fill_output_tiled(cenv, pid)
    if not fills_tiled(geom):
        log(f"mpv --vo=wlshm, {clip_name}: the window does not fill the output as a tiled "
            f"window: {json.dumps(geom)}; its compositor numbers are not comparable")
    return geom


def measure_mpv(b, cenv, clip_name, vo):
    clip = clip_path(clip_name)
    sockp = os.path.join(b.workdir, f"mpv-{vo}.sock")
    errlog = os.path.join(b.workdir, f"mpv-{vo}-{clip_name}.log")
    argv = mpv_argv(vo, clip, sockp, output_size(cenv))
    p, t_exec = spawn_logged(argv, client_env(cenv), errlog, both=True)
    ipc = MpvIpc(sockp)

    def alive():
        if p.poll() is not None:
            raise Broken(f"mpv --vo={vo} exited (status {p.returncode}): {log_tail(errlog, '(nothing)')}")
    try:
        wait_mpv_playing(ipc, alive, vo, errlog)
        start_ms = round((time.monotonic_ns() - t_exec) / 1e6, 1)
        geom = mpv_window(cenv, p.pid, vo, clip_name)
        time.sleep(b.args.warmup)
        frames = MpvFrames(ipc, clip_frames(clip_name))
        elapsed, cpu, rss = client_window(p.pid, cenv, lambda: (alive(), frames.tick())).run(b.args.window)
        after = window_geometry(cenv, p.pid)
        shown = max(0, frames.advanced - frames.dropped)
        return {"clip": clip_name, "vo": vo, "argv": argv[:-1] + [os.path.basename(clip)],
                "window_s": round(elapsed, 2), "client_cpu_s": cpu["client"],
                "compositor_cpu_s": cpu["compositor"], **rss_stats(rss),
                "playing_after_ms": start_ms, "dropped": frames.dropped,
                "frames_advanced": frames.advanced, "frames_presented": shown,
                "fps": round(shown / elapsed, 2),
                "compositor_ms_per_commit": per_commit_ms(cpu["compositor"], shown),
                "window": geom, "window_after": after,
                "fills_output": bool(geom and geom["fills_output"] and after and after["fills_output"]),
                "tiled": bool(geom and geom["tiled"] and after and after["tiled"])}
    finally:
        ipc.close()
        stop_proc(p)

