"""The processes the benchmark starts: each in a session of its own, stopped on any exit."""

import os
import signal
import subprocess
import time

from .config import Broken

LIVE = []          # Popen objects (own sessions)


def stop_proc(p, sig=signal.SIGTERM, timeout=5.0):
    """Stop Popen p (its own process group): SIG, bounded wait, SIGKILL. Returns its status."""
    if p.poll() is None:
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            pass
        try:
            p.wait(timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait(5)
    if p in LIVE:
        LIVE.remove(p)
    return p.returncode


def spawn(argv, env=None, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL):
    p = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr,
                         start_new_session=True)
    LIVE.append(p)
    return p


def spawn_logged(argv, env, logfile, both=False):
    """spawn ARGV with its stderr (and with BOTH its stdout) into the file LOGFILE. Returns the
    Popen and the CLOCK_MONOTONIC ns just before its exec."""
    with open(logfile, "w") as f:
        t_exec = time.monotonic_ns()
        return spawn(argv, env=env, stderr=f, stdout=f if both else subprocess.DEVNULL), t_exec


def on_term(signum, frame):
    raise KeyboardInterrupt


def last_line(text, empty):
    """The last line of TEXT (stripped), or EMPTY when it has none."""
    return (text.strip().splitlines() or [empty])[-1]


def log_tail(path, empty):
    """The last line of the file PATH, or EMPTY when it has none."""
    with open(path) as f:
        return last_line(f.read(), empty)


def run_quiet(argv, what, timeout=60, env=None):
    r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       timeout=timeout, env=env, start_new_session=True)
    if r.returncode != 0:
        raise Broken(f"{what} failed (exit {r.returncode}): {last_line(r.stderr, '(no message)')}")
    return r.stdout


def tool_version(argv):
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL)
        out = (r.stdout or r.stderr).strip().splitlines()
        return out[0] if out else None
    except (OSError, subprocess.TimeoutExpired):
        return None
