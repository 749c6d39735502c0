"""scripts/bench-memory's tables and command line, on the committed docs/bench/memory.json."""

import contextlib
import io
import unittest

import support
from benchkit.memory import STEPS, kind_of, parse_args, steps_table, table


class MemoryTests(unittest.TestCase):
    def test_the_committed_tables_are_what_the_json_says(self):
        r = support.load("memory.json")
        with open(f"{support.DOCS_BENCH}/memory.md") as f:
            md = f.read().split("\n", 1)[1].strip()
        self.assertEqual(md, table(r) + "\n\n" + steps_table(r))

    def test_a_row_per_player_with_its_numbers(self):
        r = support.load("memory.json")
        r["players"] = {"wayloop-x": {"player": "wayloop", "label": "WayLoop (shm)", "clip": "h264-1080p30",
                                      "steady": {"Rss": 61.0, "Pss": 50.0}, "after_hold": {"Rss": 62.5, "Pss": 51.0,
                                      "Pss_Anon": 33.0, "Pss_Shmem": 8.0, "Pss_File": 10.0},
                                      "cpu_percent_of_a_core": 12.0, "frames_dropped": 2, "frames_presented": 998,
                                      "frames_expected": 1000}}
        r["hold_s"] = 3600.0
        lines = table(r).split("\n")
        self.assertIn("RSS after 1 h", lines[0])
        self.assertEqual(lines[2], "| WayLoop (shm) | H.264 1080p30 | 61.0 MB | 50.0 MB | 62.5 MB | 51.0 MB | "
                                   "33.0 / 8.0 / 10.0 MB | 12.0 % | 2 (998 of 1000 presented) |")
        r["hold_s"] = 120.0
        self.assertIn("RSS after 120 s", table(r))

    def test_the_steps_rows_name_what_was_switched_off(self):
        r = support.load("memory.json")
        labels = [row["label"] for row in r["alone"]]
        self.assertEqual(labels[0], "WayLoop (shm)")
        for _, env in STEPS:
            self.assertIn("WayLoop (shm), " + " ".join(f"{k}={v}" for k, v in env.items()), labels)
        self.assertEqual(r["alone"][1]["env"], {"WAYLOOP_COLD_PAGES": "off"})

    def test_mappings_by_kind(self):
        table_ = [("", "anonymous"), ("[heap]", "heap"), ("[stack]", "stacks"), ("[vdso]", "[vdso]"),
                  ("/memfd:wayland-shm (deleted)", "shared memory (wl_shm)"), ("/dev/shm/wl_shm-1", "shared memory (wl_shm)"),
                  ("/usr/lib/x86_64-linux-gnu/libavcodec.so.59.37.100", "libavcodec"), ("/usr/bin/wayloop", "wayloop")]
        for name, want in table_:
            self.assertEqual(kind_of(name), want, name)

    def test_usage_errors(self):
        for argv in (["--clips", "nope"], ["--hold", "10"], ["--window", "0"]):
            err = io.StringIO()
            with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as cm:
                parse_args(argv)
            self.assertEqual(cm.exception.code, 2, argv)
            self.assertIn("scripts/bench-memory: error:", err.getvalue())


if __name__ == "__main__":
    unittest.main()
