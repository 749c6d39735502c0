"""The summary and the text report, on the committed results (standard library only)."""

import contextlib
import io
import unittest

import support  # noqa: F401  (benchkit on the path)
from benchkit import report, summary


def summarized(name):
    """docs/bench/NAME with its ratios and targets worked out again by summarize."""
    r = support.load(name)
    del r["ratios"], r["targets"]
    summary.summarize(r)
    return r


class SummaryTests(unittest.TestCase):
    def test_summarize_gives_the_committed_ratios_and_targets(self):
        names = support.bench_results()
        self.assertIn("results.json", names)
        for name in names:
            with self.subTest(name):
                committed, again = support.load(name), summarized(name)
                self.assertEqual(again["ratios"], committed["ratios"])
                self.assertEqual(again["targets"], committed["targets"])

    def test_a_check_is_met_missed_or_not_measured(self):
        ck = summary.Checks()
        ck.add("a", 1.0, "<=", 2.0)
        ck.add("b", 3, "==", 0)
        ck.add("c", None, ">=", 29.5, "30")
        ck.add("d", 0.5, "<=", None, "no target", note="why")
        self.assertEqual([c["met"] for c in ck], [True, False, None, None])
        self.assertEqual([c["limit"] for c in ck], ["<= 2", "== 0", "30", "no target"])
        self.assertEqual(ck[3]["note"], "why")
        self.assertNotIn("note", ck[0])


class ReportTests(unittest.TestCase):
    def setUp(self):
        self.r = support.load("results.json")
        self.lines = report.report_lines(self.r)
        self.text = "\n".join(self.lines)

    def test_it_prints_what_report_lines_renders(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            report.print_table(self.r)
        self.assertEqual(out.getvalue(), self.text + "\n")

    def test_the_header_names_the_run(self):
        cfg = self.r["config"]
        self.assertEqual(self.lines[0], "")
        self.assertEqual(self.lines[1], f"WayLoop benchmark, {self.r['date']}, window {cfg['window_s']:g} s, "
                                        f"warm-up {cfg['warmup_s']:g} s")
        self.assertEqual(self.lines[2], f"renderers: {', '.join(cfg['renderers'])} (wayloop --renderer R)")

    def test_each_case_has_a_row_with_its_numbers(self):
        rows = {ln.split()[0]: ln.split() for ln in self.lines   # the table's rows, not the indented ones
                if ln[:1].strip() and ln.split()[0] in self.r["cases"]}
        self.assertEqual(list(rows), list(self.r["cases"]))
        for key, c in self.r["cases"].items():
            with self.subTest(key):
                cols = rows[key]
                pos = list(c["per_output"].values())
                self.assertEqual(float(cols[1]), round(c["client_cpu_s"], 2))
                self.assertEqual(float(cols[2]), round(c["compositor_cpu_s"], 2))
                self.assertEqual(cols[10], "/".join(f"{p['fps']:.1f}" for p in pos))
                self.assertEqual(int(cols[11]), sum(p["dropped"] for p in pos))
                self.assertEqual(int(cols[12]), sum(p["repeated"] for p in pos))
                self.assertEqual(cols[13], report.fmt(c["rss_median_mb"], "{:.1f}"))
                self.assertEqual(cols[15], report.fmt(c["first_frame_ms"], "{:.0f}"))

    def test_a_one_output_case_is_set_against_the_floor(self):
        key = "shm/1out-h264-1080p30"
        row = next(ln.split() for ln in self.lines if ln.startswith(key + " "))
        floor = self.r["floor"]["h264-1080p30"]["cpu_s"]
        self.assertEqual(float(row[3]), round(floor, 2))
        self.assertEqual(float(row[6]), summary.ratio(self.r["cases"][key]["client_cpu_s"], floor))

    def test_the_references_have_rows(self):
        for vo, per in self.r["mpv"].items():
            for clip, m in per.items():
                row = next(ln.split() for ln in self.lines if ln.startswith(f"{vo}/{clip} "))
                self.assertEqual(float(row[1]), round(m["client_cpu_s"], 2))
                self.assertEqual(int(row[3]), m["frames_presented"])
        for clip, f in self.r["floor"].items():
            self.assertIn(f"{clip:<26} {f['frames']:>6} {f['cpu_s']:>7.2f} {f['wall_s']:>7.2f}", self.lines)

    def test_every_target_is_a_line_with_its_value_and_verdict(self):
        at = self.lines.index("targets (gl renderer; shm renderer; CPU scaled to 20 s):")
        shown = self.lines[at + 1:]
        self.assertEqual(len(shown), len(self.r["targets"]))
        for t, ln in zip(self.r["targets"], shown):
            verdict = {True: "met", False: "MISSED", None: "n/a"}[t["met"]]
            self.assertTrue(ln.startswith(f"  {verdict:<7} {t['target']}: {t['value']} (target {t['limit']})"), ln)

    def test_the_ratio_lines_carry_results_ratios(self):
        sg = self.r["ratios"]["shm_vs_gl"]
        line = next(ln for ln in self.lines if ln.startswith("shm / gl: "))
        for clip, v in sg.items():
            self.assertIn(f"{clip} client {v['client']:.2f} compositor {v['compositor']:.2f}", line)
        for r, lg in self.r["long"].items():
            self.assertIn(f"{r}: long run {lg['window_s']:g} s: RSS {lg['rss_start_mb']} -> {lg['rss_end_mb']} MB",
                          self.text)

    def test_the_lines_of_the_other_measurements_carry_their_numbers(self):
        r = support.load("soak-3600s-b.json")
        text = "\n".join(report.report_lines(r))
        for rn, st in r["startup"].items():
            self.assertIn(f"{rn}: exec -> first frame on screen {st['first_frame_ms_median']} ms "
                          f"(median of {st['runs']})", text)
        for rn, cs in r["caps"].items():
            for c in cs.values():
                self.assertIn(f"{rn}: {c['clip']} at --max-fps {c['cap']} / uncapped: client "
                              f"{c['client_ratio']:.2f}, compositor {c['compositor_ratio']:.2f}", text)
        for rn, d in r["damage"].items():
            pr = d["cinemagraph_vs_full"]
            self.assertIn(f"{rn}: damage: cinemagraph / full motion, both with damage: client "
                          f"{pr['client']:.3f}, compositor {pr['compositor']:.3f}", text)
        for rn, sc in r["scaling"].items():
            self.assertIn(f"total {sc['total_ratio']:.3f}", text)
        for rn, sw in r["switch"].items():
            self.assertIn(f"{rn}: ctl set to a new video {sw['keep']['first_ms']} ms; back to a recent one "
                          f"{sw['keep']['back_median_ms']} ms", text)
        for rn, fd in r["fade"].items():
            self.assertIn(f"client {fd['fade_client_ms_per_s']} ms/s vs {fd['steady_client_ms_per_s']} ms/s", text)

    def test_every_committed_run_renders(self):
        for name in support.bench_results():
            with self.subTest(name):
                r = summarized(name)
                lines = report.report_lines(r)
                at = lines.index("targets (gl renderer; shm renderer; CPU scaled to 20 s):")
                targets = [ln for ln in lines[at + 1:] if not ln.startswith("  (")]
                self.assertEqual(len(targets), len(r["targets"]))
                self.assertEqual(len([ln for ln in lines if ln[:1].strip() and ln.split()[0] in r["cases"]]),
                                 len(r["cases"]))

    def test_skipped_mpv_is_one_line(self):
        r = support.load("soak-3600s.json")
        self.assertIsInstance(r["mpv"], str)
        self.assertIn(f"mpv: {r['mpv']}", report.report_lines(r))


if __name__ == "__main__":
    unittest.main()
