"""Tests of the network's monitor (tuning/monitor.py): labels from kirin analyze, the loss.
Run: .venv/bin/python -m pytest -q tuning/test_monitor.py
"""

import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import cshogi

sys.path.insert(0, str(Path(__file__).resolve().parent))

import monitor as MON  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
KIRIN = REPO / "target" / "fast" / "kirin"
START = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"


def setUpModule():
    # Up to date in well under a second when `cargo test --profile fast` ran first (tests/run.sh).
    subprocess.run(["cargo", "build", "--profile", "fast", "--bin", "kirin", "--quiet"], cwd=REPO, check=True)


class Labels(unittest.TestCase):
    def test_a_label_is_in_evaluation_units_from_the_side_to_move(self):
        # Reported centipawns are Black's view at 600 a logit; the evaluation's units 1182.
        self.assertEqual(MON.quiet_label(START, cshogi.BLACK, 600, None), 1182)
        white = "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2"
        self.assertEqual(MON.quiet_label(white, cshogi.WHITE, 300, None), -591)

    def test_checks_mates_and_decided_positions_are_left_out(self):
        check = "4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1"
        self.assertTrue(cshogi.Board(check).is_check())
        self.assertIsNone(MON.quiet_label(check, cshogi.WHITE, 0, None))
        self.assertIsNone(MON.quiet_label(START, cshogi.BLACK, 0, 5))
        self.assertIsNone(MON.quiet_label(START, cshogi.BLACK, None, None))
        self.assertIsNone(MON.quiet_label(START, cshogi.BLACK, 1523, None))  # 3,000 units
        self.assertEqual(MON.quiet_label(START, cshogi.BLACK, 1522, None), 2998)

    def test_every_position_of_a_record_with_the_value_before_its_move_and_the_last(self):
        record = {"start": START, "moves": [
            {"move": "7g7f", "before_cp": 40, "before_mate": None, "score_cp": 35, "mate": None},
            {"move": "3c3d", "before_cp": 35, "before_mate": None, "score_cp": 50, "mate": None}]}
        got = list(MON.positions_of(record))
        board = cshogi.Board(START)
        self.assertEqual(got[0], (board.sfen(), cshogi.BLACK, 40, None))
        board.push_usi("7g7f")
        self.assertEqual(got[1], (board.sfen(), cshogi.WHITE, 35, None))
        board.push_usi("3c3d")
        self.assertEqual(got[2], (board.sfen(), cshogi.BLACK, 50, None))
        self.assertEqual(len(got), 3)


class EndToEnd(unittest.TestCase):
    def test_label_then_loss_with_the_engine(self):
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            (d / "kifu").mkdir()
            shutil.copy(REPO / "tests" / "data" / "kifu" / "csa" / "chudan.csa", d / "kifu")
            openings = d / "lines.sfen"
            openings.write_text("startpos moves 7g7f 3c3d 2g2f\nstartpos moves 2g2f 8c8d 2f2e 8d8e\n"
                                "startpos moves 7g7f 8c8d 7i6h\n")
            out = d / "out"
            MON.main(["label", "--kirin", str(KIRIN), "--nodes", "300", "--out", str(out),
                      "--kifu", str(d / "kifu"), "--openings", str(openings), "--skip", "1", "--every", "1"])
            rows = [ln.split("\t") for ln in (out / "labels.tsv").read_text().splitlines()]
            sources = {r[2] for r in rows}
            self.assertEqual(sources, {"kifu", "openings"})
            # The held-out lines are the ones after --skip: the first line's last position is not there.
            self.assertEqual((out / "openings.sfen").read_text().count("\n"), 2)
            keys = [" ".join(r[0].split()[:3]) for r in rows]
            self.assertEqual(len(keys), len(set(keys)))
            for sfen, units, _ in rows:
                self.assertFalse(cshogi.Board(sfen).is_check(), sfen)
                self.assertLess(abs(int(units)), MON.DECIDED)
            result = subprocess.run(
                [sys.executable, str(REPO / "tuning" / "monitor.py"), "loss", "--labels", str(out / "labels.tsv"),
                 "--engine", f"net={KIRIN}", "--engine", f"linear={KIRIN},EvalFile=linear"],
                capture_output=True, text=True, check=True)
            table = [ln for ln in result.stdout.splitlines() if ln.startswith("| net") or ln.startswith("| linear")]
            self.assertEqual(len(table), 2, result.stdout)
            for row in table:
                cells = [float(c) for c in row.strip("| \n").split(" | ")[1:]]
                self.assertEqual(len(cells), 3)
                for c in cells:
                    self.assertGreater(c, 0.0)
                    self.assertLess(c, 0.1)


if __name__ == "__main__":
    unittest.main()
