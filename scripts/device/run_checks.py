#!/usr/bin/env python3
"""The hardware-decoding checks, run on a machine with an NVIDIA GPU (the lent H200), as one script.

Runs from the repo root with the devkit beside it (scripts/device/build-devkit, scripts/device/pack):
  .devkit/bin/wayloop   a release wayloop built on Debian 12
  .devkit/bin/ffmpeg    the minimal FFmpeg 5.1 it is pointed at (nvdec and vaapi hwaccels)
  .devkit/lib           that FFmpeg's libraries and the rest of wayloop's closure
  .devkit/clips         the test clips (scripts/device/make-clips)
and writes one JSON document (to argv[1], else stdout):
  probe       scripts/device/probe.py: /dev/dri, the NVIDIA libraries, cuInit, cuvidGetDecoderCaps
  thumbnails  `wayloop thumbnail` with --hwdec nvdec-copy against software, PSNR per clip and time
  decode      `wayloop decode --json` per clip: software with 1 and 8 threads fixed, software as
              playback runs it (threads follow the load), nvdec-copy, auto (the start-up check
              runs, and its cost is reported)
  pool        nvdec-copy on a 1 s clip for many passes (a seek back per pass, loop cache off, a
              long queue): frames made and peak RSS at two lengths, which must not grow
  ffmpeg      the same FFmpeg's own decode to null, software and -hwaccel cuda, for reference
Needs Python 3 with numpy and Pillow for PSNR (the H200 image has both). Nothing is asserted
here: the figures are committed (docs/bench/device/) and read in docs/performance.md and the
user guide's "Hardware decoding" (docs/guide.md).
"""
import json, os, subprocess, sys, time

ROOT = os.getcwd()
KIT = os.path.join(ROOT, ".devkit")
ENV = dict(os.environ, LD_LIBRARY_PATH=os.path.join(KIT, "lib"))
WAYLOOP = os.path.join(KIT, "bin", "wayloop")
FFMPEG = os.path.join(KIT, "bin", "ffmpeg")
CLIPS = os.path.join(KIT, "clips")
TMP = "/tmp/wayloop-device"
os.makedirs(TMP, exist_ok=True)


def run(cmd, timeout=240):
    t = time.monotonic()
    try:
        p = subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=timeout)
        return {"rc": p.returncode, "stdout": p.stdout[-4000:], "stderr": p.stderr[-4000:], "wall": round(time.monotonic() - t, 3)}
    except subprocess.TimeoutExpired:
        return {"rc": "timeout", "stdout": "", "stderr": "", "wall": round(time.monotonic() - t, 3)}


def psnr_png(a, b):
    try:
        import numpy as np
        from PIL import Image
    except ImportError as e:
        return f"no numpy/Pillow: {e}"
    x = np.asarray(Image.open(a).convert("RGB"), dtype=np.float64)
    y = np.asarray(Image.open(b).convert("RGB"), dtype=np.float64)
    if x.shape != y.shape:
        return f"sizes differ: {x.shape} {y.shape}"
    mse = float(((x - y) ** 2).mean())
    return 99.0 if mse == 0 else round(10 * np.log10(255 * 255 / mse), 2)


def main():
    out = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "cpus": os.cpu_count()}
    probe = run([sys.executable, "scripts/device/probe.py"])
    try:
        out["probe"] = json.loads(probe["stdout"])
    except ValueError:
        out["probe"] = probe
    out["wayloop_version"] = run([WAYLOOP, "--version"])
    clips = sorted(f for f in os.listdir(CLIPS) if not f.endswith("-1s.mp4") and "corrupt" not in f)

    out["thumbnails"] = {}
    for clip in clips:
        path = os.path.join(CLIPS, clip)
        row = {}
        for at in ("0", "1s"):
            sw, hw = f"{TMP}/{clip}-{at}-sw.png", f"{TMP}/{clip}-{at}-hw.png"
            a = run([WAYLOOP, "thumbnail", path, sw, "--at", at])
            b = run([WAYLOOP, "thumbnail", path, hw, "--at", at, "--hwdec", "nvdec-copy"])
            row[at] = {"software": a, "nvdec-copy": b,
                       "hardware_used": b["rc"] == 0 and "software" not in b["stderr"],
                       "psnr_db": psnr_png(sw, hw) if a["rc"] == 0 and b["rc"] == 0 else None}
        out["thumbnails"][clip] = row

    out["decode"] = {}
    for clip in clips:
        path = os.path.join(CLIPS, clip)
        frames = "120" if "2160" in clip else "300"
        row = {}
        for name, extra in (("software-1-thread", ["--hwdec", "no", "--threads", "1"]),
                            ("software-8-threads", ["--hwdec", "no", "--threads", "8"]),
                            ("software-as-playback", ["--hwdec", "no", "-v"]),
                            ("nvdec-copy", ["--hwdec", "nvdec-copy"]),
                            ("auto", ["--hwdec", "auto", "-v"])):
            r = run([WAYLOOP, "decode", path, "--frames", frames, "--json"] + extra)
            try:
                r["report"] = json.loads(r["stdout"])
            except ValueError:
                pass
            row[name] = r
        out["decode"][clip] = row

    out["pool"] = {}
    short = os.path.join(CLIPS, "h264-1080p30-1s.mp4")
    for frames in ("600", "3000"):
        r = run([WAYLOOP, "decode", short, "--hwdec", "nvdec-copy", "--frames", frames, "--queue-frames", "32",
                 "--cache-mb", "0", "--json", "-v"])
        try:
            r["report"] = json.loads(r["stdout"])
        except ValueError:
            pass
        out["pool"][frames] = r

    # A clip with a damaged packet in the middle (scripts/make-clips' corrupt-middle.mp4): what
    # NVDEC does with it, and whether the clip goes on (in software, with one notice, if it fails).
    corrupt = os.path.join(CLIPS, "corrupt-middle.mp4")
    if os.path.exists(corrupt):
        out["corrupt"] = run([WAYLOOP, "decode", corrupt, "--hwdec", "nvdec-copy", "--frames", "200", "--json", "-v"])

    # A device that is not there: one notice, software, the clip still decodes.
    out["bad_device"] = run([WAYLOOP, "decode", short, "--hwdec", "nvdec-copy", "--hwdec-device", "7", "--frames", "60", "--json"])

    out["ffmpeg"] = {}
    for clip in clips:
        path = os.path.join(CLIPS, clip)
        out["ffmpeg"][clip] = {
            "software-1-thread": run([FFMPEG, "-hide_banner", "-benchmark", "-threads", "1", "-i", path, "-f", "null", "-"]),
            "hwaccel-cuda": run([FFMPEG, "-hide_banner", "-benchmark", "-hwaccel", "cuda", "-i", path, "-f", "null", "-"]),
        }
    out["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    text = json.dumps(out, indent=1)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            f.write(text + "\n")
    else:
        print(text)


if __name__ == "__main__":
    main()
