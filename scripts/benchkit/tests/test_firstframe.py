"""The first frame by screenshot: its pure parts (pictures, numbers, report, target, command line)."""

import unittest

import support  # noqa: F401  (benchkit on the path)
from benchkit import firstframe as ff
from benchkit import report, summary
from benchkit.cli import parse_args
from benchkit.config import FIRST_FRAME_CLIP, FIRST_FRAME_ROUNDS, FIRST_FRAME_TARGET
from benchkit.runner import plan

from test_cli import usage_error

GREY = (0x3f, 0x3f, 0x3f)   # sway's empty output


def ppm(w, h, colour=GREY, rect=None, rect_colour=(255, 0, 0), header=None):
    """A binary PPM of W x H in COLOUR, with RECT (x, y, w, h) in RECT_COLOUR."""
    px = bytearray(bytes(colour) * (w * h))
    if rect:
        x0, y0, rw, rh = rect
        for y in range(y0, y0 + rh):
            for x in range(x0, x0 + rw):
                px[(y * w + x) * 3:(y * w + x) * 3 + 3] = bytes(rect_colour)
    return (header if header is not None else f"P6\n{w} {h}\n255\n".encode()) + bytes(px)


class PictureTests(unittest.TestCase):
    def test_the_header(self):
        self.assertEqual(ff.ppm_header(ppm(4, 2)), (4, 2, 255, 11))
        # comments and other whitespace, as the format allows
        data = ppm(4, 2, header=b"P6 # grim\n4\t2\r\n# more\n255\n")
        self.assertEqual(ff.ppm_header(data)[:3], (4, 2, 255))

    def test_not_a_picture(self):
        for data, says in ((b"P3\n1 1\n255\n\x00\x00\x00", "P6"), (b"P6\n2 2\n255\n\x00", "short"),
                           (b"P6\n2", "ends early"), (b"P6\nx 2\n255\n", "bad size"),
                           (b"P6\n1 1\n65535\n\x00\x00\x00\x00\x00\x00", "maxval"), (b"", "ends early")):
            with self.subTest(data):
                with self.assertRaises(ValueError) as c:
                    ff.ppm_header(data)
                self.assertIn(says, str(c.exception))

    def test_the_sample_reads_the_grid_centres(self):
        (size, px) = ff.sample(ppm(8, 4, rect=(2, 1, 1, 1)), grid=(4, 2))
        self.assertEqual(size, (8, 4))
        self.assertEqual(len(px), 4 * 2 * 3)
        # the cells' centres: x 1, 3, 5, 7 and y 1, 3; (2, 1) is none of them, (3, 1) is
        self.assertEqual(px, bytes(GREY) * 8)
        (_, px) = ff.sample(ppm(8, 4, rect=(3, 1, 1, 1)), grid=(4, 2))
        self.assertEqual(px[3:6], bytes((255, 0, 0)))
        self.assertEqual(px[:3] + px[6:], bytes(GREY) * 7)

    def test_a_grid_larger_than_the_picture(self):
        (size, px) = ff.sample(ppm(3, 2), grid=(64, 36))
        self.assertEqual((size, len(px)), ((3, 2), 3 * 2 * 3))

    def test_the_same_picture_has_not_changed(self):
        base = ff.sample(ppm(128, 72))
        self.assertEqual(ff.changed_share(base, ff.sample(ppm(128, 72))), 0.0)
        self.assertFalse(ff.picture_changed(base, ff.sample(ppm(128, 72))))

    def test_within_the_tolerance_is_the_same(self):
        base = ff.sample(ppm(128, 72))
        near = ff.sample(ppm(128, 72, colour=tuple(c + ff.CHANNEL_TOL for c in GREY)))
        far = ff.sample(ppm(128, 72, colour=tuple(c + ff.CHANNEL_TOL + 1 for c in GREY)))
        self.assertFalse(ff.picture_changed(base, near))
        self.assertTrue(ff.picture_changed(base, far))
        self.assertEqual(ff.changed_share(base, far), 1.0)

    def test_one_channel_is_enough(self):
        base = ff.sample(ppm(128, 72))
        self.assertTrue(ff.picture_changed(base, ff.sample(ppm(128, 72, colour=(0x3f, 0x3f, 0xff)))))

    def test_a_video_frame_over_the_whole_output(self):
        base = ff.sample(ppm(128, 72))
        frame = ff.sample(ppm(128, 72, colour=(16, 128, 200), rect=(0, 0, 40, 72), rect_colour=GREY))
        self.assertTrue(ff.picture_changed(base, frame))
        self.assertAlmostEqual(ff.changed_share(base, frame), 44 / 64, places=3)

    def test_a_few_points_are_noise_not_a_new_picture(self):
        """A mouse pointer, a stray pixel: under CHANGED_MIN of the points is not a change."""
        base = ff.sample(ppm(128, 72))
        one = ff.sample(ppm(128, 72, rect=(0, 0, 2, 2), rect_colour=(255, 255, 255)))
        self.assertGreater(ff.changed_share(base, one), 0)
        self.assertFalse(ff.picture_changed(base, one))
        band = ff.sample(ppm(128, 72, rect=(0, 0, 128, 4), rect_colour=(255, 255, 255)))  # 2 rows of 36
        self.assertAlmostEqual(ff.changed_share(base, band), 2 / 36, places=3)
        self.assertTrue(ff.picture_changed(base, band))

    def test_one_solid_colour_or_a_picture(self):
        self.assertTrue(ff.solid(ff.sample(ppm(128, 72, colour=(0, 0, 0)))))
        self.assertTrue(ff.solid(ff.sample(ppm(128, 72, colour=(0, 0, 0), rect=(0, 0, 64, 72),
                                                 rect_colour=(ff.CHANNEL_TOL,) * 3))))
        self.assertFalse(ff.solid(ff.sample(ppm(128, 72, colour=(0, 0, 0), rect=(0, 0, 64, 72),
                                                  rect_colour=(ff.CHANNEL_TOL + 1, 0, 0)))))

    def test_another_size_is_another_picture(self):
        self.assertEqual(ff.changed_share(ff.sample(ppm(128, 72)), ff.sample(ppm(64, 72))), 1.0)


class NumberTests(unittest.TestCase):
    def test_medians(self):
        self.assertEqual(ff.median_ms([30.0, 10.0, 20.0]), 20.0)
        self.assertEqual(ff.median_ms([10.0, 20.04, 30.0, 40.0]), 25.0)
        self.assertIsNone(ff.median_ms([]))

    def test_ratios(self):
        self.assertEqual(ff.shot_ratio(150.0, 120.0), 1.25)
        self.assertEqual(ff.shot_ratio(100.0, 300.0), 0.333)
        self.assertIsNone(ff.shot_ratio(None, 1.0))
        self.assertIsNone(ff.shot_ratio(1.0, None))
        self.assertIsNone(ff.shot_ratio(1.0, 0))

    def test_the_summary_of_three_players(self):
        s = ff.shot_summary({"defaults": [120.0, 100.0, 140.0, 110.0], "fit_off": [100.0, 90.0, 95.0, 105.0],
                             "mpv_wlshm": [200.0, 230.0, 210.0, 220.0]})
        self.assertEqual(s["players"]["defaults"], {"ms": [120.0, 100.0, 140.0, 110.0], "median_ms": 115.0})
        self.assertEqual(s["players"]["fit_off"]["median_ms"], 97.5)
        self.assertEqual(s["players"]["mpv_wlshm"]["median_ms"], 215.0)
        self.assertEqual(s["ratios"], {"defaults_over_fit_off": 1.179, "defaults_over_mpv_wlshm": 0.535})

    def test_without_mpv(self):
        s = ff.shot_summary({"defaults": [100.0], "fit_off": [80.0]})
        self.assertNotIn("mpv_wlshm", s["players"])
        self.assertEqual(s["ratios"], {"defaults_over_fit_off": 1.25, "defaults_over_mpv_wlshm": None})

    def test_each_player_starts_a_round_first_in_turn(self):
        self.assertEqual([ff.round_order(ff.PLAYERS, i) for i in range(4)],
                         [["defaults", "fit_off", "mpv_wlshm"], ["fit_off", "mpv_wlshm", "defaults"],
                          ["mpv_wlshm", "defaults", "fit_off"], ["defaults", "fit_off", "mpv_wlshm"]])
        self.assertEqual(ff.round_order(ff.WAYLOOP_PLAYERS, 1), ["fit_off", "defaults"])


def results_with(shot):
    """A results.json of a run with the first-frame case alone."""
    r = {"date": "2026-01-01T00:00:00+00:00", "config": {"window_s": 20.0, "warmup_s": 3.0, "renderers": ["shm", "gl"]},
         "cases": {}, "floor": {}, "mpv": {"gpu": {}, "wlshm": {}}, "first_frame_shot": shot}
    summary.summarize(r)
    return r


def shot(ms, mpv=None):
    s = ff.shot_summary(ms)
    return {"clip": FIRST_FRAME_CLIP, "output": "HEADLESS-1", "output_size": "1280x720", "rounds": len(ms["defaults"]),
            "order": [], "grim_ms_median": 16.2, "grim_shots": 40, **s, **({"mpv": mpv} if mpv else {})}


class ReportTests(unittest.TestCase):
    def setUp(self):
        self.shot = shot({"defaults": [120.0, 100.0, 140.0, 110.0], "fit_off": [100.0, 90.0, 95.0, 105.0],
                          "mpv_wlshm": [200.0, 230.0, 210.0, 220.0]})

    def test_the_report_lines(self):
        lines = report.first_frame_shot(results_with(self.shot))
        self.assertEqual(lines[0], "first frame by screenshot: exec -> the picture of HEADLESS-1 (1280x720) changes, "
                                   f"{FIRST_FRAME_CLIP}, 4 rounds alternated; grim polled, resolution one capture "
                                   "(median 16.2 ms here); the default renderer selection")
        rows = lines[1:4]
        for row, (p, med, ms) in zip(rows, (("defaults", "115.0", "120, 100, 140, 110"),
                                            ("fit_off", "97.5", "100, 90, 95, 105"),
                                            ("mpv_wlshm", "215.0", "200, 230, 210, 220"))):
            with self.subTest(p):
                self.assertTrue(row.startswith("  " + ff.PLAYER_TEXT[p]))
                self.assertIn(f"median {med:>7} ms", row)
                self.assertTrue(row.endswith(ms))
        self.assertEqual(lines[4], "  defaults / --fit off 1.179; defaults / mpv --vo=wlshm 0.535 (medians)")
        self.assertEqual(len(lines), 5)

    def test_in_the_whole_report_before_the_targets(self):
        lines = report.report_lines(results_with(self.shot))
        i = lines.index(report.first_frame_shot(results_with(self.shot))[0])
        self.assertEqual(lines[i - 1], "")
        self.assertLess(i, lines.index("targets (gl renderer; shm renderer; CPU scaled to 20 s):"))

    def test_the_header_of_a_run_with_this_case_alone(self):
        self.assertEqual(report.report_lines(results_with(self.shot))[2],
                         "only the first frame by screenshot (--only-first-frame): wayloop's default renderer selection")

    def test_without_mpv_it_says_why(self):
        r = results_with(shot({"defaults": [100.0], "fit_off": [90.0]}, mpv="skipped (--quick)"))
        lines = report.first_frame_shot(r)
        self.assertIn("  mpv --vo=wlshm: skipped (--quick)", lines)
        self.assertIn(f"{FIRST_FRAME_CLIP}, 1 round; grim polled", lines[0])
        self.assertEqual(lines[-1], "  defaults / --fit off 1.111; defaults / mpv --vo=wlshm - (medians)")

    def test_a_solid_colour_first_and_a_window_short_of_the_output_are_said(self):
        self.shot["players"]["mpv_wlshm"].update({"solid": [True, False, True, False], "fills_output": False})
        self.shot["players"]["defaults"]["solid"] = [False] * 4
        lines = report.first_frame_shot(results_with(self.shot))
        self.assertTrue(lines[1].endswith("120, 100, 140, 110"))
        self.assertTrue(lines[3].endswith("200, 230, 210, 220  (the first change a solid colour in 2 of 4)"
                                          "  (DID NOT FILL THE OUTPUT)"))

    def test_no_case_no_lines(self):
        self.assertEqual(report.first_frame_shot({"first_frame_shot": None}), [])
        self.assertEqual(report.first_frame_shot({}), [])


class TargetTests(unittest.TestCase):
    def target(self, r):
        return [t for t in r["targets"] if t["target"].startswith("first frame by screenshot")]

    def test_met_at_the_limit(self):
        (t,) = self.target(results_with(shot({"defaults": [125.0], "fit_off": [100.0]})))
        self.assertEqual((t["value"], t["limit"], t["met"]), (1.25, f"<= {FIRST_FRAME_TARGET:g}", True))
        self.assertEqual(t["note"], "125.0 / 100.0 ms")
        self.assertIn("1 round)", t["target"])

    def test_missed_over_it(self):
        (t,) = self.target(results_with(shot({"defaults": [126.0, 126.0], "fit_off": [100.0, 100.0]})))
        self.assertEqual((t["value"], t["met"]), (1.26, False))
        self.assertIn("2 rounds)", t["target"])
        line = [ln for ln in report.report_lines(results_with(shot({"defaults": [126.0], "fit_off": [100.0]})))
                if "first frame by screenshot, defaults" in ln]
        self.assertEqual(len(line), 1)
        self.assertTrue(line[0].startswith("  MISSED  "))

    def test_none_without_the_case(self):
        self.assertEqual(self.target(results_with(None)), [])


class CliTests(unittest.TestCase):
    def test_rounds(self):
        self.assertEqual(parse_args([]).first_frame_rounds, FIRST_FRAME_ROUNDS)
        self.assertEqual(parse_args(["--quick"]).first_frame_rounds, 1)
        self.assertFalse(parse_args([]).only_first_frame)

    def test_only_first_frame_runs_it_alone(self):
        a = parse_args(["--only-first-frame"])
        self.assertTrue(a.only_first_frame)
        p = plan(a, a.renderer_list, None)
        self.assertTrue(p.first_frame and p.only)
        self.assertFalse(p.main or p.caps or p.damage or p.scaling or p.fit)
        self.assertEqual(p.clips, [FIRST_FRAME_CLIP])

    def test_with_another_group(self):
        a = parse_args(["--only-first-frame", "--only-caps"])
        p = plan(a, a.renderer_list, None)
        self.assertTrue(p.first_frame and p.main and p.caps)
        self.assertFalse(p.damage)

    def test_in_a_full_run_and_a_quick_one(self):
        for argv in ([], ["--quick"]):
            with self.subTest(argv):
                a = parse_args(argv)
                p = plan(a, a.renderer_list, "skipped (--quick)" if a.quick else None)
                self.assertTrue(p.first_frame and p.main)
                self.assertIn(FIRST_FRAME_CLIP, p.clips)
                self.assertEqual(len(p.clips), len(set(p.clips)))

    def test_not_with_other_only_groups_alone(self):
        a = parse_args(["--only-damage"])
        self.assertFalse(plan(a, a.renderer_list, None).first_frame)

    def test_not_with_only_mpv(self):
        code, err = usage_error(["--only-mpv", "--only-first-frame"])
        self.assertEqual(code, 2)
        self.assertIn("--only-mpv runs no wayloop case", err)


if __name__ == "__main__":
    unittest.main()
