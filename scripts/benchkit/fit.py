"""Fitted copies (`wayloop prepare`): each FIT_CASES clip played on one 1920x1080 output as it is
and as its fitted copy, in the same run, with the copy's one-time cost, size and PSNR."""

import os
import re
import resource
import subprocess

from .clips import clip_frames, clip_path
from .config import FIT_CASES, Broken, log
from .wayloop import measure_wayloop

COPY_RE = re.compile(r": (\S+\.mp4)$")
PSNR_RE = re.compile(r"PSNR y:([0-9.]+|inf)")


def make_copy(b, clip, cap):
    """`wayloop prepare CLIP --size 1920x1080 [--max-fps CAP]` into a cache of the run's own: the
    copy's path, the CPU seconds the child took (user + system) and its line."""
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(b.workdir, "fit-cache"))
    argv = [b.wayloop, "prepare", clip_path(clip), "--size", "1920x1080"] + (["--max-fps", str(cap)] if cap else [])
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=1800)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    line = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
    m = COPY_RE.search(line)
    if r.returncode != 0 or not m:
        raise Broken(f"wayloop prepare {clip} made no copy: {r.stdout} {r.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return m.group(1), round(cpu, 2), line


def psnr(copy, source, keep):
    """Luma PSNR of COPY against SOURCE scaled to 1920x1080 alike (bicubic), every KEEP-th frame."""
    pick = f"select='not(mod(n\\,{keep}))'," if keep > 1 else ""
    r = subprocess.run(["ffmpeg", "-hide_banner", "-nostdin", "-i", copy, "-i", source, "-filter_complex",
                        f"[1:v]{pick}scale=1920:1080:flags=bicubic,format=yuv420p[r];[0:v]format=yuv420p[c];[c][r]psnr",
                        "-f", "null", "-"], capture_output=True, text=True, timeout=1800)
    found = PSNR_RE.findall(r.stderr)
    return float(found[-1]) if found and found[-1] != "inf" else None


def measure_fit(b, cenv, renderer, cases):
    """Each FIT_CASES clip (under its cap, if any) played as it is and as its fitted copy; the
    ratios in this run (the cases themselves go into CASES)."""
    out = {}
    for clip, cap in FIT_CASES:
        log(f"wayloop prepare {clip}" + (f" --max-fps {cap}" if cap else "") + " (for a 1920x1080 output)")
        copy, cpu, line = make_copy(b, clip, cap)
        keep = 2 if "1 frame in 2" in line else 1
        extra = ("--max-fps", str(cap)) if cap else ()
        orig_key, copy_key = f"{renderer}/fit-original-{clip}", f"{renderer}/fit-copy-{clip}"
        log(f"wayloop {renderer}, 1 output, {clip}" + (f" at --max-fps {cap}" if cap else "") + ": the original, then the copy")
        o = measure_wayloop(b, cenv, clip, orig_key, renderer, extra=extra, cap=cap)
        c = measure_wayloop(b, cenv, clip, copy_key, renderer, extra=extra, cap=cap, path=copy,
                            frames=clip_frames(clip) // keep)
        cases[orig_key], cases[copy_key] = o, c
        out[clip] = {"cap": cap, "original": orig_key, "copy": copy_key,
                     "client_ratio": round(c["client_cpu_s"] / o["client_cpu_s"], 3) if o["client_cpu_s"] else None,
                     "compositor_ratio": (round(c["compositor_cpu_s"] / o["compositor_cpu_s"], 3)
                                          if o["compositor_cpu_s"] else None),
                     "make_cpu_s": cpu, "copy_mb": round(os.path.getsize(copy) / 1048576, 2),
                     "source_mb": round(os.path.getsize(clip_path(clip)) / 1048576, 2),
                     "psnr_y": psnr(copy, clip_path(clip), keep), "prepare": line}
    return out
