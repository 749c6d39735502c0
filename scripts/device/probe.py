#!/usr/bin/env python3
"""What a machine offers WayLoop's hardware decoding, as JSON (on its own, or as run_checks.py's first step).

Needs nothing but Python 3 and the NVIDIA driver's own libraries: libcuda.so.1 and
libnvcuvid.so.1 are opened with ctypes, exactly as FFmpeg's nvdec hwaccel dlopens them.
  scripts/device/probe.py [OUT.json]
It answers: is /dev/dri there (VA-API needs a render node), which NVIDIA libraries load, does
cuInit work, and what cuvidGetDecoderCaps says for each codec, chroma 4:2:0, 8 and 10 bits.
"""
import ctypes, ctypes.util, glob, json, os, platform, subprocess, sys

out = {"machine": platform.platform(), "python": platform.python_version()}

def run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception as e:  # noqa: BLE001 (a probe reports, never stops)
        return f"error: {e}"

out["os_release"] = run(["sh", "-c", "grep PRETTY_NAME /etc/os-release"])
out["glibc"] = platform.libc_ver()[1]
out["nvidia_smi"] = run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"])
out["dev_dri"] = sorted(glob.glob("/dev/dri/*"))
out["dev_nvidia"] = sorted(glob.glob("/dev/nvidia*"))
out["ldconfig"] = [l.strip() for l in run(["ldconfig", "-p"]).splitlines()
                   if any(k in l for k in ("libcuda.so", "libnvcuvid", "libva", "libEGL", "libGLES", "libnvidia-encode", "libdrm"))]
out["va_drivers"] = sorted(glob.glob("/usr/lib/x86_64-linux-gnu/dri/*_drv_video.so") + glob.glob("/usr/local/nvidia/lib*/**/*_drv_video.so", recursive=True))

def load(name):
    try:
        return ctypes.CDLL(name), None
    except OSError as e:
        return None, str(e)

cuda, err = load("libcuda.so.1")
out["libcuda"] = "loaded" if cuda else err
nvcuvid, err = load("libnvcuvid.so.1")
out["libnvcuvid"] = "loaded" if nvcuvid else err

class Caps(ctypes.Structure):  # CUVIDDECODECAPS, nv-codec-headers cuviddec.h
    _fields_ = [("eCodecType", ctypes.c_int), ("eChromaFormat", ctypes.c_int),
                ("nBitDepthMinus8", ctypes.c_uint), ("reserved1", ctypes.c_uint * 3),
                ("bIsSupported", ctypes.c_ubyte), ("nNumNVDECs", ctypes.c_ubyte),
                ("nOutputFormatMask", ctypes.c_ushort), ("nMaxWidth", ctypes.c_uint),
                ("nMaxHeight", ctypes.c_uint), ("nMaxMBCount", ctypes.c_uint),
                ("nMinWidth", ctypes.c_ushort), ("nMinHeight", ctypes.c_ushort),
                ("bIsHistogramSupported", ctypes.c_ubyte), ("nCounterBitDepth", ctypes.c_ubyte),
                ("nMaxHistogramBins", ctypes.c_ushort), ("reserved3", ctypes.c_uint * 10)]

CODECS = {"mpeg2": 1, "mpeg4": 2, "h264": 4, "mjpeg": 5, "hevc": 8, "vp8": 9, "vp9": 10, "av1": 11}
if cuda:
    rc = cuda.cuInit(0)
    out["cuInit"] = rc
    n = ctypes.c_int(0)
    if rc == 0 and cuda.cuDeviceGetCount(ctypes.byref(n)) == 0:
        out["cuda_devices"] = n.value
        dev = ctypes.c_int(0)
        cuda.cuDeviceGet(ctypes.byref(dev), 0)
        name = ctypes.create_string_buffer(256)
        cuda.cuDeviceGetName(name, 256, dev)
        out["cuda_device0"] = name.value.decode()
        ver = ctypes.c_int(0)
        cuda.cuDriverGetVersion(ctypes.byref(ver))
        out["cuda_driver_version"] = ver.value
        ctx = ctypes.c_void_p()
        rc = cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev)
        out["cuDevicePrimaryCtxRetain"] = rc
        if rc == 0:
            cuda.cuCtxSetCurrent(ctx)
            if nvcuvid:
                caps = {}
                for codec, code in CODECS.items():
                    for bits in (8, 10):
                        c = Caps(eCodecType=code, eChromaFormat=1, nBitDepthMinus8=bits - 8)
                        r = nvcuvid.cuvidGetDecoderCaps(ctypes.byref(c))
                        caps[f"{codec} 4:2:0 {bits}-bit"] = {
                            "rc": r, "supported": bool(c.bIsSupported), "nvdecs": c.nNumNVDECs,
                            "max": f"{c.nMaxWidth}x{c.nMaxHeight}", "output_formats": c.nOutputFormatMask}
                out["cuvidGetDecoderCaps"] = caps
            cuda.cuDevicePrimaryCtxRelease(dev)

text = json.dumps(out, indent=2)
print(text)
if len(sys.argv) > 1:
    with open(sys.argv[1], "w") as f:
        f.write(text + "\n")
