"""What the tests share: benchkit on the path, and the committed results (docs/bench)."""

import copy
import glob
import json
import os
import sys

TESTS = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(os.path.dirname(TESTS))
ROOT = os.path.dirname(SCRIPTS)
DOCS_BENCH = os.path.join(ROOT, "docs", "bench")
sys.dont_write_bytecode = True
if SCRIPTS not in sys.path:
    sys.path.insert(0, SCRIPTS)

_cache = {}


def load(name):
    """docs/bench/NAME as scripts/bench wrote it (a fresh copy each time)."""
    if name not in _cache:
        with open(os.path.join(DOCS_BENCH, name)) as f:
            _cache[name] = json.load(f)
    return copy.deepcopy(_cache[name])


def bench_results():
    """The names of the committed results.json files of scripts/bench (not the soaks' or A/Bs')."""
    out = []
    for path in sorted(glob.glob(os.path.join(DOCS_BENCH, "*.json"))):
        r = load(os.path.basename(path))
        if isinstance(r, dict) and "cases" in r and "targets" in r:
            out.append(os.path.basename(path))
    return out
