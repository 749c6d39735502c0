"""supervise.py PIDFILE COMMAND [ARG]...: the supervisor each test compositor runs under.

It becomes a child subreaper, runs COMMAND as its child, writes that child's pid to PIDFILE
(through PIDFILE.tmp and a rename), forwards TERM, INT and HUP to it, and reaps it and every
orphaned descendant. Once the child is gone, descendants still running after 2 s get SIGKILL.
Exits with the child's status (128 + N for a child killed by signal N), so that nothing, not
even a zombie, is left behind after `scripts/compositor stop`. Standard library only.
"""
import ctypes
import os
import signal
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: supervise.py PIDFILE COMMAND [ARG]...")
    pidfile, argv = sys.argv[1], sys.argv[2:]
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)

    child = os.fork()
    if child == 0:
        # Python ignores SIGPIPE and SIGXFSZ, and an ignored signal stays ignored across exec:
        # the compositor gets the defaults it would get from a shell.
        for s in (signal.SIGPIPE, signal.SIGXFSZ):
            signal.signal(s, signal.SIG_DFL)
        try:
            os.execvp(argv[0], argv)
        except OSError as e:
            sys.stderr.write(f"supervisor: exec {argv[0]}: {e.strerror}\n")
        os._exit(127)

    def forward(sig, _frame):
        try:
            os.kill(child, sig)
        except OSError:
            pass
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, forward)
    try:
        with open(pidfile + ".tmp", "w") as f:
            f.write(f"{child}\n")
        os.rename(pidfile + ".tmp", pidfile)
    except OSError as e:
        sys.exit(f"supervisor: {pidfile}: {e.strerror}")

    status = 0
    while True:
        try:
            pid, st = os.waitpid(-1, 0)   # retried on EINTR (PEP 475)
        except ChildProcessError:
            break
        if pid == child:
            status = st
            break

    deadline = time.monotonic() + 2
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid > 0:
            continue
        if time.monotonic() >= deadline:
            kill_orphans()
        time.sleep(0.05)

    if os.WIFSIGNALED(status):
        sys.exit(128 + os.WTERMSIG(status))
    sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 0)


def kill_orphans():
    """SIGKILL every process whose parent is this one (orphans we adopted as subreaper)."""
    me = os.getpid()
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/stat") as f:
                stat = f.read()
            if int(stat[stat.rindex(")") + 2:].split()[1]) == me:
                os.kill(int(p), signal.SIGKILL)
        except (OSError, ValueError, IndexError):
            pass


if __name__ == "__main__":
    main()
