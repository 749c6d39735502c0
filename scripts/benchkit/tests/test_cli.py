"""The command line (standard library only)."""

import contextlib
import io
import os
import unittest

import support
from benchkit.cli import parse_args
from benchkit.config import DEFAULT_CLIPS, DEFAULT_RENDERERS, MAIN_CLIP, OUT_DIR


def usage_error(argv):
    """parse_args's exit status and message for ARGV (a usage error: 2)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            parse_args(argv)
        except SystemExit as e:
            return e.code, err.getvalue()
    return None, err.getvalue()


class CliTests(unittest.TestCase):
    def test_the_full_run_by_default(self):
        a = parse_args([])
        self.assertEqual((a.window, a.warmup, a.long), (20.0, 3.0, 600.0))
        self.assertEqual(a.clip_list, DEFAULT_CLIPS)
        self.assertEqual(a.renderer_list, DEFAULT_RENDERERS)
        self.assertEqual(a.mpv_vo_list, ["gpu", "wlshm"])
        self.assertEqual(a.out, OUT_DIR)
        self.assertFalse(a.out_given or a.no_mpv)

    def test_quick_is_short_and_writes_beside_the_build(self):
        a = parse_args(["--quick", "--wayloop", "/x/wayloop"])
        self.assertEqual((a.window, a.warmup, a.long, a.no_mpv), (3.0, 1.0, 0.0, True))
        self.assertEqual(a.clip_list, [MAIN_CLIP])
        self.assertEqual(a.out, os.path.join(support.ROOT, ".build", "bench-quick"))
        self.assertEqual(a.wayloop, "/x/wayloop")

    def test_lists_lose_repeats_and_keep_their_order(self):
        a = parse_args(["--renderers", "gl,shm,gl", "--clips", "vp9-1080p30,h264-720p30", "--long", "0"])
        self.assertEqual(a.renderer_list, ["gl", "shm"])
        self.assertEqual(a.clip_list, ["vp9-1080p30", "h264-720p30"])
        self.assertEqual(a.long, 0.0)

    def test_the_chart_alone(self):
        self.assertEqual(parse_args(["--chart-only"]).chart_only, os.path.join(OUT_DIR, "results.json"))
        self.assertEqual(parse_args(["--check-chart", "x.json"]).check_chart, "x.json")

    def test_usage_errors(self):
        for argv, says in ((["--renderers", "vulkan"], "bad --renderers 'vulkan'"),
                           (["--clips", "nope"], "unknown clip(s) nope"),
                           (["--only-mpv", "--quick"], "--only-mpv runs nothing"),
                           (["--only-mpv", "--only-caps"], "--only-mpv runs no wayloop case"),
                           (["--chart-only", "--check-chart", "x"], "one at a time"),
                           (["--window", "0"], "--window must be > 0")):
            with self.subTest(argv):
                code, err = usage_error(argv)
                self.assertEqual(code, 2)
                self.assertIn(says, err)


if __name__ == "__main__":
    unittest.main()
