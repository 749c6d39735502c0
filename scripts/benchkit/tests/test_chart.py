"""The chart and --check-chart on the committed results.

What the chart shows (chartdata) and --check-chart's comparison are standard library. Drawing
needs matplotlib: where the python3 running the tests has none (a pyenv or venv python), the
drawing runs in the interpreter scripts/bench would draw with (Debian's /usr/bin/python3, where
scripts/setup --test installs python3-matplotlib) and its answers are checked here; only where no
interpreter has matplotlib are those tests skipped, saying so."""

import json
import os
import subprocess
import sys
import unittest

import support
from benchkit import chartcheck
from benchkit.chartdata import chart_claims, chart_clips, lookup, num, path_label

CHARTED = ("results.json", "soak-3600s.json", "issue20-damage-run1.json")
BENCH = os.path.join(support.SCRIPTS, "bench")
NO_MATPLOTLIB = ("matplotlib is missing from every python3 here (scripts/setup --test installs "
                 "python3-matplotlib): the chart is not drawn")


def drawn_charts(names):
    """For each committed results NAMES: the chart's values [label, value, text], its claims
    (labels) and --check-chart's problems. Needs matplotlib."""
    out = {}
    for name in names:
        drawn, claims, problems = chartcheck.chart_problems(support.load(name))
        out[name] = {"drawn": [list(d) for d in drawn], "claims": [path_label(c) for c in claims],
                     "problems": problems}
    return out


def drawn_where_matplotlib_is(names):
    """drawn_charts(NAMES) here, or in the interpreter that has matplotlib; None where none has."""
    py = chartcheck.matplotlib_python()
    if py is None:
        return None
    if py == sys.executable:
        return json.loads(json.dumps(drawn_charts(names)))
    code = (f"import sys, json; sys.path.insert(0, {support.TESTS!r}); import test_chart; "
            f"print(json.dumps(test_chart.drawn_charts({list(names)!r})))")
    r = subprocess.run([py, "-B", "-c", code], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise AssertionError(f"{py} could not draw the charts:\n{r.stderr}")
    return json.loads(r.stdout)


class ClaimTests(unittest.TestCase):
    """What the chart shows of results.json, without drawing it."""

    def test_the_claims_of_the_committed_chart(self):
        r = support.load("results.json")
        claims = chart_claims(r)
        self.assertEqual(len(claims), 117)
        self.assertEqual(len({path_label(c) for c in claims}), len(claims))
        for c in claims:
            self.assertIsNotNone(lookup(r, c), c)
        for clip in chart_clips(r):
            for rn in r["config"]["renderers"]:
                self.assertIn(("cases", f"{rn}/1out-{clip}", "client_cpu_s"), claims)
        self.assertIn(("long", "shm", "rss_growth_after_60s_mb"), claims)
        self.assertIn(("mpv", "wlshm", "h264-1080p30", "fps"), claims)

    def test_the_cap_damage_and_span_cases_are_left_out(self):
        r = support.load("soak-3600s-b.json")
        keys = {c[1] for c in chart_claims(r) if c[0] == "cases"}
        self.assertTrue(keys)
        self.assertFalse([k for k in keys if "damage" in k or "cap" in k or "span" in k or "scaling" in k])

    def test_a_chart_that_gets_a_value_wrong_is_caught(self):
        r = support.load("results.json")
        claims = chart_claims(r)
        drawn = [(path_label(c), lookup(r, c), num(lookup(r, c))) for c in claims]
        self.assertEqual(chartcheck.drawn_problems(r, drawn, claims), [])
        wrong = [drawn[0][:1] + (drawn[0][1] + 1,) + drawn[0][2:]] + drawn[2:] + [("cases[x][y]", 1, "1")]
        problems = chartcheck.drawn_problems(r, wrong, claims)
        self.assertEqual(len(problems), 3, problems)
        self.assertIn(f"{drawn[0][0]}: results.json {num(drawn[0][1])}, chart {num(drawn[0][1] + 1)}", problems)
        self.assertIn(f"{drawn[1][0]} = {num(drawn[1][1])} is not on the chart", problems)
        self.assertIn("cases[x][y] is drawn but not in the claims", problems)


class ChartTests(unittest.TestCase):
    """The chart drawn from the committed results, as --check-chart checks it."""

    @classmethod
    def setUpClass(cls):
        cls.charts = drawn_where_matplotlib_is(CHARTED)

    def setUp(self):
        if self.charts is None:
            self.skipTest(NO_MATPLOTLIB)

    def test_check_chart_accepts_the_committed_charts(self):
        for name in CHARTED:
            with self.subTest(name):
                self.assertEqual(self.charts[name]["problems"], [])

    def test_each_value_drawn_is_results_json_s(self):
        for name in CHARTED:
            r = support.load(name)
            paths = {path_label(c): c for c in chart_claims(r)}
            for label, value, text in self.charts[name]["drawn"]:
                with self.subTest(name=name, label=label):
                    self.assertEqual(value, lookup(r, paths[label]))
                    self.assertIn(num(value), text)
            self.assertEqual({d[0] for d in self.charts[name]["drawn"]}, set(self.charts[name]["claims"]))

    def test_the_command_line_check(self):
        r = subprocess.run([BENCH, "--check-chart", os.path.join(support.DOCS_BENCH, "results.json")],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertTrue(r.stdout.rstrip().endswith("0 problem(s): ok"), r.stdout)


if __name__ == "__main__":
    unittest.main()
