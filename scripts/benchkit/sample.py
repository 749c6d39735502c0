"""CPU and RSS of processes, from /proc, over a measurement window."""

import os
import statistics
import time

from .config import Broken

CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """utime+stime of PID (every thread) in seconds, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            s = f.read()
    except OSError:
        return None
    rest = s[s.rfind(")") + 2:].split()
    return (int(rest[11]) + int(rest[12])) / CLK_TCK


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


class Window:
    """CPU of some pids and RSS of one over [start, stop], RSS sampled every 0.5 s."""

    def __init__(self, pids, rss_pid, alive):
        self.pids, self.rss_pid, self.alive = pids, rss_pid, alive

    def run(self, seconds, on_start=None):
        c0 = {k: cpu_seconds(p) for k, p in self.pids.items()}
        t0 = time.monotonic()
        if on_start:
            on_start()
        rss = []
        end = t0 + seconds
        while True:
            r = rss_kb(self.rss_pid)
            if r is not None:
                rss.append(r)
            self.alive()
            now = time.monotonic()
            if now >= end:
                break
            time.sleep(min(0.5, end - now))
        c1 = {k: cpu_seconds(p) for k, p in self.pids.items()}
        elapsed = time.monotonic() - t0
        cpu = {}
        for k in self.pids:
            if c0[k] is None or c1[k] is None:
                raise Broken(f"{k} (pid {self.pids[k]}) went away during the window")
            cpu[k] = round(c1[k] - c0[k], 3)
        return elapsed, cpu, rss


def client_window(pid, cenv, alive):
    """A Window over client PID and the compositor of CENV, the RSS of PID."""
    return Window({"client": pid, "compositor": cenv["COMPOSITOR_PID"]}, pid, alive)


def rss_stats(samples):
    if not samples:
        return {"rss_median_mb": None, "rss_peak_mb": None}
    return {"rss_median_mb": round(statistics.median(samples) / 1024, 1),
            "rss_peak_mb": round(max(samples) / 1024, 1)}


def per_commit_ms(cpu_s, commits):
    return round(cpu_s * 1000.0 / commits, 3) if commits else None
