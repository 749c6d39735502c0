"""Paths, clips, cases, renderers and targets; the benchmark's error and log line."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "scripts", "bench")
WAYLOOP = os.path.join(ROOT, ".build", "release", "wayloop")
COMPOSITOR = os.path.join(ROOT, "scripts", "compositor")
CLIP_DIR = os.path.join(ROOT, ".build", "bench-clips")
OUT_DIR = os.path.join(ROOT, "docs", "bench")
PROG = "bench"

# name: (file, size, codec, fps, seconds per encoded segment, segments joined, bitrate, label)
CLIPS = {
    "h264-1080p30": ("h264-1080p30.mp4", "1920x1080", "h264", 30, 5, 4, "5M", "H.264 1080p30"),
    "h264-720p30": ("h264-720p30.mp4", "1280x720", "h264", 30, 5, 4, "2500k", "H.264 720p30"),
    "vp9-1080p30": ("vp9-1080p30.webm", "1920x1080", "vp9", 30, 5, 4, "4M", "VP9 1080p30"),
    "h264-2160p30": ("h264-2160p30.mp4", "3840x2160", "h264", 30, 2, 5, "16M", "H.264 2160p30"),
    # what people download for 4K screens: more than a core decodes it in software here (the case for hardware decoding)
    "hevc10-2160p30": ("hevc10-2160p30.mp4", "3840x2160", "hevc10", 30, 2, 5, "16M", "HEVC Main10 2160p30"),
    "loop2s-1080p30": ("loop2s-1080p30.mp4", "1920x1080", "h264", 30, 2, 1, "5M", "2 s loop 1080p30"),
    # x264's default B-frames (veryfast: 3, pyramid), for the frame-rate cap (--max-fps)
    "h264bf-1080p60": ("h264bf-1080p60.mp4", "1920x1080", "h264", 60, 5, 4, "8M", "H.264 1080p60, B-frames"),
    "h264bf-1080p30": ("h264bf-1080p30.mp4", "1920x1080", "h264", 30, 5, 4, "5M", "H.264 1080p30, B-frames"),
    # damage tracking: a still picture with one 320x180 moving region, and full motion in every
    # tile (testsrc2 under per-frame noise: ~90 % of the 64x64 tiles change each frame, where
    # ~20 % of h264-1080p30's do: testsrc2 is mostly flat). Both x264 veryfast at a constant
    # quality (X264_RATE), as a cinemagraph is exported: a bitrate target would make x264 keep
    # refining the still picture, so that it changes in every frame.
    "cinemagraph-1080p30": ("cinemagraph-1080p30.mp4", "1920x1080", "h264", 30, 5, 4, "5M",
                            "Cinemagraph 1080p30"),
    "noise-1080p30": ("noise-1080p30.mp4", "1920x1080", "h264", 30, 5, 4, "5M",
                      "H.264 1080p30, noise in every tile"),
}
# x264 preset per clip (default ultrafast: no B-frames)
X264_PRESET = {"h264bf-1080p60": "veryfast", "h264bf-1080p30": "veryfast",
               "cinemagraph-1080p30": "veryfast", "noise-1080p30": "veryfast"}
# x264 rate control per clip (default -b:v RATE)
X264_RATE = {"cinemagraph-1080p30": ["-crf", "20"], "noise-1080p30": ["-crf", "26"]}
# ffmpeg filter graph per clip ({size}, {fps}) instead of the plain testsrc2=s={size}:r={fps}
CLIP_GRAPH = {
    # the first testsrc2 picture held still, a 320x180 testsrc2 moving over it at (800, 450)
    "cinemagraph-1080p30": "testsrc2=s={size}:r={fps},trim=end_frame=1,loop=loop=-1:size=1,"
                           "setpts=N/{fps}/TB[bg];testsrc2=s=320x180:r={fps}[fg];"
                           "[bg][fg]overlay=800:450:shortest=1,format=yuv420p",
    # testsrc2 with temporal noise: nearly every 64x64 tile changes every frame
    "noise-1080p30": "testsrc2=s={size}:r={fps},noise=alls=10:allf=t,format=yuv420p",
}
# --max-fps cases: (clip, cap)
CAP_CASES = [("h264bf-1080p60", 30), ("h264bf-1080p30", 10)]
# Fitted copies (`wayloop prepare`, for the 1920x1080 output): (clip, cap in force or None)
FIT_CASES = [("hevc10-2160p30", None), ("h264-2160p30", None), ("h264bf-1080p60", 30)]
# client CPU of the copy over the original's (same run), and the copies' PSNR floor
FIT_TARGETS = {"hevc10-2160p30": 0.2, "h264-2160p30": 0.35, "psnr_min": 40.0}
REFRESH_S = 1 / 60  # sway's headless outputs
ALL_CLIPS = list(CLIPS)
MAIN_CLIP = "h264-1080p30"
LOOP_CLIP = "loop2s-1080p30"
CLIP_2160P = "h264-2160p30"
# Damage tracking (WAYLOOP_DAMAGE=off in wayloop's environment draws every frame whole): the
# cinemagraph against full motion, and each clip with damage off against on
DAMAGE_CLIP = "cinemagraph-1080p30"
# the full-motion reference: NOISE_CLIP, in which nearly every tile changes (what tracking costs
# when it saves nothing, and what the cinemagraph is measured against); the bench's main clip
# (testsrc2, ~20 % of its tiles change each frame) is reported with and without damage too
NOISE_CLIP = "noise-1080p30"
DAMAGE_ENV = "WAYLOOP_DAMAGE"
DAMAGE_TARGETS = {"cinemagraph_vs_full_client_max": 0.3, "cinemagraph_vs_full_compositor_max": 0.3,
                  "noise_on_vs_off_client_max": 1.03}
# the one-output clips of a run without --clips (the damage clips run in the damage cases only)
DEFAULT_CLIPS = [c for c in ALL_CLIPS if c not in (DAMAGE_CLIP, NOISE_CLIP)]
# --scaling client against compositor (720p on a 1080p output), and spanning two outputs
SCALING_CLIP = "h264-720p30"
SCALING_TARGETS = {"compositor_vs_client_total_max": 0.75, "span_vs_two_outputs_max": 1.15}
# The first frame with the defaults, by screenshot (firstframe.py): exec -> the picture of one
# FIRST_FRAME_SIZE output changes (grim), wayloop's defaults against --fit off and mpv --vo=wlshm;
# a 1080p clip on a 1280x720 output is one `--fit auto` fits (twice the pixels or more)
FIRST_FRAME_CLIP = MAIN_CLIP
FIRST_FRAME_SIZE = "1280x720"
FIRST_FRAME_ROUNDS = 4              # --quick: 1
FIRST_FRAME_TARGET = 1.25           # the defaults' median over --fit off's, at most
# ctl set: the second video of the switch and crossfade cases, and the crossfade's length
SWITCH_CLIP = "h264-720p30"
FADE_S = 2.0
# the frame path's stages in `ctl status --json`'s costs: (stage, its counter)
COST_STAGES = (("decode", "decoded"), ("compare", "compared"), ("convert", "converted"), ("present", "presented"))

RENDERERS = ("shm", "gl", "auto")   # values of wayloop --renderer
DEFAULT_RENDERERS = ["shm", "gl"]
MPV_VOS = ("gpu", "wlshm")            # the mpv references

# The targets per renderer, gl and shm (per 20 s window; CPU over another window is scaled to
# 20 s; 1080p30 H.264 on one 1920x1080 output unless said otherwise). A renderer without an
# entry (auto) is measured, not checked.
TARGETS = {
    "gl": {
        "client_vs_floor_max": 2.2,
        "client_vs_mpv_gpu_max": 0.25,
        "compositor_cpu_per20s_max": 1.0,
        "fps_min": 29.5,
        "two_vs_one_max": 1.3,
        "hidden_cpu_per20s_max": 0.05,
        "rss_steady_max_mb": 150.0,
        "rss_growth_max_mb": 1.0,
        "first_frame_max_ms": 250.0,
    },
    "shm": {
        "client_vs_floor_max": 2.0,
        "client_vs_mpv_wlshm_max": 0.8,
        "client_vs_mpv_gpu_max": 0.15,
        # compositor CPU per commit <= this x mpv --vo=wlshm's (tiled 1920x1080 window, same run)
        "compositor_per_commit_vs_mpv_wlshm_max": 1.0,
        "fps_min": 29.5,
        "two_vs_one_max": 1.2,          # and both outputs at 30 fps
        "fps_2160p_min": 29.5,          # a 2160p clip on the 1080p output, no drops
        "hidden_cpu_per20s_max": 0.05,
        "rss_steady_max_mb": 90.0,
        "rss_growth_max_mb": 1.0,
        "first_frame_max_ms": 150.0,
    },
}
# --max-fps: capped / uncapped at most (client, compositor), per cap case
CAP_TARGETS = {"60at30": (0.7, 0.55), "30at10": (0.7, 0.4)}
STARTUP_TARGET_MS = {"shm": 100.0}   # exec -> first frame on screen, median


class Broken(Exception):
    """The benchmark itself broke (not a performance miss)."""


def log(msg):
    print(f"{PROG}: {msg}", file=sys.stderr, flush=True)
