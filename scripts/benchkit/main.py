"""scripts/bench's entry point: the command line, the checks before a run, the run's lifetime."""

import os
import shutil
import signal
import tempfile
import time

from .chartcheck import chart_main
from .cli import parse_args
from .compositor import COMPOSITORS, compositor_stop
from .config import WAYLOOP, Broken, log
from .procs import LIVE, on_term, stop_proc
from .runner import finish, new_results, plan, run
from .wayloop import Bench

TOOLS = ("ffmpeg", "sway", "swaymsg", "foot", "grim", "python3")


def cleanup():
    """Stops every process and compositor the benchmark started."""
    for p in list(LIVE):
        try:
            stop_proc(p, timeout=3)
        except Exception as e:  # keep going: the compositors must stop too
            log(f"could not stop pid {p.pid}: {e}")
    for d in list(COMPOSITORS):
        compositor_stop(d)


def preflight(args, wayloop):
    """(exit status or None, mpv's status: None when its references run, else why not)."""
    if not args.only_mpv and not os.access(wayloop, os.X_OK):
        log(f"{wayloop} is missing: build it first with `swift build -c release`")
        return 2, None
    for tool in TOOLS:
        if not shutil.which(tool):
            log(f"'{tool}' not found (scripts/setup installs it)")
            return 2, None
    if args.no_mpv:
        return None, "skipped (--quick)" if args.quick else "skipped (--no-mpv)"
    if not shutil.which("mpv"):
        if args.only_mpv:
            log("mpv: not installed (apt-get install mpv); --only-mpv has nothing to run")
            return 2, None
        log("mpv: not installed, reference skipped (apt-get install mpv)")
        return None, "not installed, reference skipped"
    return None, None


def guarded(work, workdir, keep):
    """Runs WORK(); the exit status (0, 1 broke, 130 interrupted). Every process and compositor
    the benchmark started is stopped on any exit, and WORKDIR removed unless KEEP or it broke."""
    status = 0
    try:
        work()
    except Broken as e:
        log(f"benchmark broke: {e}")
        status = 1
    except KeyboardInterrupt:
        log("interrupted")
        status = 130
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        cleanup()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        if keep or status == 1:
            log(f"work directory kept: {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return status


def guarded_run(b, results, p):
    """Runs plan P (guarded)."""
    return guarded(lambda: run(b, results, p), b.workdir, b.args.keep)


def main(argv):
    args = parse_args(argv)
    if args.chart_only or args.check_chart:
        return chart_main(args, argv)
    wayloop = os.path.abspath(args.wayloop) if args.wayloop else WAYLOOP
    status, mpv_status = preflight(args, wayloop)
    if status is not None:
        return status
    renderers = [] if args.only_mpv else args.renderer_list
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even when started with INT ignored
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGHUP, on_term)
    t_start = time.monotonic()
    workdir = tempfile.mkdtemp(prefix="wayloop-bench.")
    os.chmod(workdir, 0o711)  # the compositor user must reach DIR/runtime
    results = new_results(args, argv, wayloop, renderers, mpv_status)
    status = guarded_run(Bench(args, workdir, wayloop), results, plan(args, renderers, mpv_status))
    if status != 0:
        return status
    finish(args, results, t_start)
    return 0
