"""--chart-only and --check-chart, and drawing the chart with Debian's python3 when the python3
running the benchmark has no matplotlib (a pyenv or venv python)."""

import json
import os
import subprocess
import sys
import tempfile

from .chartdata import chart_claims, lookup, num, path_label
from .config import BENCH, log
from .procs import last_line

SYSTEM_PYTHON = "/usr/bin/python3"   # where Debian's python3-matplotlib is importable


def matplotlib_python():
    """The interpreter to draw with: this one when it has matplotlib, else Debian's python3 when
    it has (python3-matplotlib installs into it, not into a pyenv or venv python); else None."""
    try:
        import matplotlib  # noqa: F401
        return sys.executable
    except ImportError:
        pass
    if (os.access(SYSTEM_PYTHON, os.X_OK)
            and os.path.realpath(SYSTEM_PYTHON) != os.path.realpath(sys.executable)):
        r = subprocess.run([SYSTEM_PYTHON, "-c", "import matplotlib"], stdin=subprocess.DEVNULL,
                           capture_output=True)
        if r.returncode == 0:
            return SYSTEM_PYTHON
    return None


def draw_chart_file(jpath, cpath):
    """Draws results.json JPATH into CPATH (with Debian's python3 when this one lacks matplotlib).
    Returns None when drawn, else why not (one line)."""
    py = matplotlib_python()
    if py is None:
        return "chart not drawn: matplotlib is missing (apt-get install python3-matplotlib)"
    if py == sys.executable:
        from .chart import chart
        with open(jpath) as f:
            results = json.load(f)
        return None if chart(results, cpath) is not None else "chart not drawn: nothing to show"
    r = subprocess.run([py, BENCH, "--chart-only", jpath, "--out", os.path.dirname(cpath) or "."],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if r.returncode != 0 or not os.path.exists(cpath):
        return f"chart not drawn: {py} failed: {last_line(r.stderr, '(no message)')}"
    return None


def drawn_problems(results, drawn, claims):
    """What the chart's values (chart()'s list) get wrong against results.json's CLAIMS."""
    problems, by_label = [], {}
    for lab, v, text in drawn:
        by_label.setdefault(lab, []).append((v, text))
    for p in claims:
        want = lookup(results, p)
        lab = path_label(p)
        got = by_label.get(lab)
        if not got:
            problems.append(f"{lab} = {num(want)} is not on the chart")
            continue
        for v, text in got:
            if v != want or type(v) is not type(want):
                problems.append(f"{lab}: results.json {num(want)}, chart {num(v)}")
    claimed = {path_label(p) for p in claims}
    problems += [f"{lab} is drawn but not in the claims" for lab in by_label if lab not in claimed]
    return problems


def box_problems(results, boxes):
    """Labels drawn other than results.json has them, sticking out of their panel, or overlapping."""
    problems = []
    for p, v, text, tmpl, box, panel in boxes:
        if text != tmpl.format(num(lookup(results, p))):
            problems.append(f"{path_label(p)}: drawn as {text!r}, results.json has "
                            f"{num(lookup(results, p))}")
        if not (panel.x0 <= box.x0 and box.x1 <= panel.x1 and panel.y0 <= box.y0
                and box.y1 <= panel.y1):
            problems.append(f"{path_label(p)} {text!r} sticks out of its panel")
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            a, b = boxes[i], boxes[j]
            if a[4].overlaps(b[4]):
                problems.append(f"labels overlap: {path_label(a[0])} {a[2]!r} and "
                                f"{path_label(b[0])} {b[2]!r}")
    return problems


def chart_problems(results):
    """Redraws RESULTS into a temporary file: (values drawn, claims, problems)."""
    from .chart import chart
    with tempfile.TemporaryDirectory(prefix="wayloop-chart.") as tmp:
        png = os.path.join(tmp, "chart.png")
        boxes = []
        drawn = chart(json.loads(json.dumps(results)), png, boxes)   # a copy: nothing it changes
        ok_png = os.path.getsize(png) > 0 if drawn is not None else False
    problems = []
    if drawn is None or not ok_png:
        problems.append("nothing drawn")
        drawn = []
    claims = chart_claims(results)
    return drawn, claims, problems + drawn_problems(results, drawn, claims) + box_problems(results, boxes)


def check_chart(jpath):
    """--check-chart: redraws JPATH into a temporary file and checks that every value of cases,
    floor, mpv and long the chart shows is there with results.json's value and text, that it draws
    nothing else, that no two value labels overlap and that each is inside its panel. Returns the exit status."""
    with open(jpath) as f:
        results = json.load(f)
    drawn, claims, problems = chart_problems(results)
    for pr in problems:
        print(f"FAIL  {pr}")
    print(f"check-chart {jpath}: {len(drawn)} values drawn, {len(claims)} values of results.json "
          f"claimed, {len(problems)} problem(s): {'ok' if not problems else 'FAILED'}")
    return 0 if not problems else 1


def chart_main(args, argv):
    """--chart-only / --check-chart: matplotlib only, nothing run."""
    py = matplotlib_python()
    if py is None:
        log("matplotlib is missing (apt-get install python3-matplotlib): no chart")
        return 2
    if py != sys.executable:  # Debian's python3 has python3-matplotlib, this one has not
        os.execv(py, [py, BENCH] + argv)
    jpath = args.check_chart or args.chart_only
    try:
        with open(jpath) as f:
            results = json.load(f)
    except (OSError, ValueError) as e:
        log(f"cannot read {jpath}: {e}")
        return 2
    if args.check_chart:
        return check_chart(jpath)
    from .chart import chart
    out = args.out if args.out_given else os.path.dirname(os.path.abspath(jpath))
    os.makedirs(out, exist_ok=True)
    cpath = os.path.join(out, "chart.png")
    drawn = chart(results, cpath)
    if drawn is None:
        log(f"{jpath}: nothing to chart")
        return 1
    print(f"wrote {os.path.relpath(cpath)} from {os.path.relpath(jpath)} ({len(drawn)} values)")
    return 0
