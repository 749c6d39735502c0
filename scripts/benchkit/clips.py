"""The clips: made with ffmpeg into .build/bench-clips from testsrc2 (cached)."""

import os
import time

from .config import CLIP_DIR, CLIP_GRAPH, CLIPS, ROOT, X264_PRESET, X264_RATE, log
from .procs import run_quiet

FFMPEG = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"]
TAGS = ["-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
        "-color_range", "tv"]


def clip_path(name):
    return os.path.join(CLIP_DIR, CLIPS[name][0])


def clip_frames(name):
    _, _, _, fps, seg, reps, _, _ = CLIPS[name]
    return fps * seg * reps


def clip_label(name):
    """The clip's name on the chart and in the report, e.g. H.264 1080p30."""
    return CLIPS[name][7]


def source_args(name):
    """ffmpeg's input of one segment of clip NAME."""
    _, size, _, fps, seg, _, _, _ = CLIPS[name]
    if name in CLIP_GRAPH:
        src = ["-filter_complex", CLIP_GRAPH[name].format(size=size, fps=fps)]
    else:
        src = ["-f", "lavfi", "-i", f"testsrc2=s={size}:r={fps}:d={seg}"]
    return src + ["-frames:v", str(fps * seg)]


def encoder_args(name):
    """ffmpeg's encoder and pixel format for clip NAME."""
    _, _, codec, fps, _, _, rate, _ = CLIPS[name]
    if codec == "h264":
        enc = ["-c:v", "libx264", "-preset", X264_PRESET.get(name, "ultrafast"),
               *X264_RATE.get(name, ["-b:v", rate]), "-g", str(fps)]
    elif codec == "hevc10":
        enc = ["-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error", "-b:v", rate,
               "-g", str(fps), "-tag:v", "hvc1"]
    else:
        enc = ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-row-mt", "1",
               "-b:v", rate, "-g", str(fps)]
    return enc + ["-pix_fmt", "yuv420p10le" if codec == "hevc10" else "yuv420p"]


def make_clip(name):
    """Makes clip NAME (one segment encoded, joined REPS times by stream copy) unless it is there.
    Returns whether it made it."""
    fname, _, _, _, _, reps, _, _ = CLIPS[name]
    out = os.path.join(CLIP_DIR, fname)
    if os.path.isfile(out) and os.path.getsize(out) > 0:
        return False
    os.makedirs(CLIP_DIR, exist_ok=True)
    ext = os.path.splitext(fname)[1]
    segf = os.path.join(CLIP_DIR, f".seg-{name}{ext}")
    listf = os.path.join(CLIP_DIR, f".list-{name}.txt")
    tmp = os.path.join(CLIP_DIR, f".tmp-{name}{ext}")
    try:
        run_quiet(FFMPEG + source_args(name) + encoder_args(name) + TAGS + ["-an", segf],
                  f"ffmpeg encode of {fname}", timeout=600)
        with open(listf, "w") as f:
            f.write("".join(f"file '{os.path.basename(segf)}'\n" for _ in range(reps)))
        extra = ["-movflags", "+faststart"] if ext == ".mp4" else []
        run_quiet(FFMPEG + ["-f", "concat", "-safe", "0", "-i", listf, "-c", "copy"] + extra + [tmp],
                  f"ffmpeg concat of {fname}", timeout=120)
        os.replace(tmp, out)
    finally:
        for f in (segf, listf, tmp):
            if os.path.exists(f):
                os.remove(f)
    return True


def prepare_clips(names, force):
    """Makes each clip of NAMES (again with FORCE); returns results.json's clips for them."""
    out = {}
    for name in names:
        if force and os.path.exists(clip_path(name)):
            os.remove(clip_path(name))
        t0 = time.monotonic()
        if make_clip(name):
            log(f"made {clip_path(name)} in {time.monotonic() - t0:.1f} s")
        f = CLIPS[name]
        out[name] = {"file": os.path.relpath(clip_path(name), ROOT), "size": f[1],
                     "codec": f[2], "fps": f[3], "frames": clip_frames(name),
                     "bytes": os.path.getsize(clip_path(name))}
    return out
