"""Tests of tuning/label_error.py: the score it reads, the scales it compares, with the engine.
Run: .venv/bin/python -m pytest -q tuning/test_label_error.py
"""

import io
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stdout
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import label_error as LE  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
KIRIN = REPO / "target" / "fast" / "kirin"
POSITION = "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3"


def setUpModule():
    # Up to date in well under a second when `cargo test --profile fast` ran first (tests/run.sh).
    subprocess.run(["cargo", "build", "--profile", "fast", "--bin", "kirin", "--quiet"], cwd=REPO, check=True)


class Scores(unittest.TestCase):
    def test_the_last_info_score_counts_mates_included(self):
        lines = ["info depth 1 score cp 12 nodes 5 pv 7g7f", "info string hello",
                 "info depth 2 score cp -40 lowerbound nodes 9 pv 2g2f", "bestmove 2g2f"]
        self.assertEqual(LE.last_score(lines), ("cp", -40))
        self.assertEqual(LE.last_score(lines + ["info depth 3 score mate -4 pv 1a1b"]), ("mate", -4))
        self.assertEqual(LE.last_score(["info depth 9 score mate + pv 1a1b"]), ("mate", 1))
        self.assertIsNone(LE.last_score(["bestmove resign"]))

    def test_the_labels_units_and_usi_centipawns_meet_at_the_same_probability(self):
        label = LE.win_probability("cp", 1182, LE.CP_PER_LOGIT)
        usi = LE.win_probability("cp", 600, LE.USI_CP_PER_LOGIT)
        self.assertAlmostEqual(label, usi)
        self.assertAlmostEqual(label, 1 / (1 + 2.718281828459045 ** -1))
        self.assertEqual(LE.win_probability("mate", -3, LE.USI_CP_PER_LOGIT), 0.0)


class WithTheEngine(unittest.TestCase):
    def test_a_label_that_is_the_checks_own_score_has_no_error_and_a_wrong_one_has(self):
        engine = LE.Engine(str(KIRIN))
        kind, cp = engine.score(POSITION, 2000)
        engine.close()
        self.assertEqual(kind, "cp")
        units = round(cp * LE.CP_PER_LOGIT / LE.USI_CP_PER_LOGIT)
        with tempfile.TemporaryDirectory() as d:
            data = Path(d) / "gen.tsv"

            def error(label):
                data.write_text(f"{POSITION}\t{label}\t1\n")
                out = io.StringIO()
                with redirect_stdout(out):
                    code = LE.main(["--engine", str(KIRIN), "--data", str(data), "--every", "1",
                                    "--nodes", "2000"])
                self.assertEqual(code, 0)
                self.assertIn("1 positions checked at 2000 nodes", out.getvalue())
                return float(out.getvalue().split()[-1])

            # A fresh table for every check: the same search, the same score, within rounding.
            self.assertLess(error(units), 0.002)
            self.assertGreater(error(units + 1500), 0.2)
            # A line without its three fields is an error, not a silent skip.
            data.write_text(f"{POSITION}\t10\n")
            self.assertEqual(LE.main(["--engine", str(KIRIN), "--data", str(data), "--every", "1"]), 2)


if __name__ == "__main__":
    unittest.main()
