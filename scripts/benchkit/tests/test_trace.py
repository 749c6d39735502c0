"""The frame trace: its lines, and what a window's lines say (standard library only)."""

import os
import tempfile
import unittest

import support  # noqa: F401  (benchkit on the path)
from benchkit.config import Broken
from benchkit.trace import analyse, cadence, read_trace


def line(out, pss, idx, commit_ms):
    return f"{out} {pss} {idx} {idx * 33_333_333} {commit_ms * 1_000_000} {commit_ms * 1_000_000 + 5_000_000} 1200\n"


class TraceTests(unittest.TestCase):
    def write(self, text):
        fd, path = tempfile.mkstemp(prefix="benchkit-trace.")
        with os.fdopen(fd, "w") as f:
            f.write(text)
        self.addCleanup(os.remove, path)
        return path

    def test_a_line_has_seven_fields_and_the_last_piece_is_partial(self):
        path = self.write(line("HEADLESS-1", 0, 0, 100) + line("HEADLESS-1", 0, 1, 133) + "HEADLESS-1 0 2 66")
        self.assertEqual(read_trace(path), [("HEADLESS-1", 0, 0, 0, 100_000_000, 105_000_000),
                                            ("HEADLESS-1", 0, 1, 33_333_333, 133_000_000, 138_000_000)])

    def test_a_line_of_nine_fields_reads_as_one_of_seven(self):
        path = self.write("HEADLESS-1 0 0 0 100 105 7 00ab00ab00ab00ab 0.250\n")
        self.assertEqual(read_trace(path), [("HEADLESS-1", 0, 0, 0, 100, 105)])

    def test_a_trace_of_another_form_breaks_the_run(self):
        path = self.write("HEADLESS-1 0 0 0 100 105\n")   # six fields: a wayloop before 0.1.0
        with self.assertRaises(Broken) as e:
            read_trace(path)
        self.assertIn("6 fields, not 7 or 9", str(e.exception))

    def test_no_trace_yet_is_no_line(self):
        self.assertEqual(read_trace("/nonexistent/benchkit.trace"), [])

    def test_drops_repeats_and_the_wrap(self):
        keys = [(0, 0), (0, 1), (0, 1), (0, 4), (0, 9), (1, 1), (3, 0)]
        lines = [("A", p, i, 0, n, n) for n, (p, i) in enumerate(keys)]
        got = analyse(lines, ["A", "B"], 2.0, 10)
        # 2 and 3; 5 to 8; 0 of pass 1; the rest of pass 1 (2 to 9) and all of pass 2
        self.assertEqual(got["A"], {"fps": 3.0, "dropped": 2 + 4 + 1 + 8 + 10, "repeated": 1, "presented": 7})
        self.assertEqual(got["B"], {"fps": 0.0, "dropped": 0, "repeated": 0, "presented": 0})

    def test_cadence_against_the_cap(self):
        ms = [0, 100, 200, 317, 400]   # 10 fps, one interval a refresh (16.7 ms) off and one back
        lines = [("A", 0, i, 0, t * 1_000_000, 0) for i, t in enumerate(ms)]
        c = cadence(lines, "A", 10)
        self.assertEqual((c["cap"], c["intervals"], c["median_ms"]), (10, 4, 100.0))
        self.assertEqual(c["within_1_refresh"], 0.5)
        self.assertEqual(c["max_dev_refreshes"], 1.02)
        self.assertIsNone(cadence(lines[:1], "A", 10))


if __name__ == "__main__":
    unittest.main()
