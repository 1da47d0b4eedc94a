"""Tests of the strength-level calibration (tuning/levels.py) and its random mover.
Run: .venv/bin/python -m pytest -q tuning/test_levels.py
"""

import argparse
import math
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import cshogi

sys.path.insert(0, str(Path(__file__).resolve().parent))

import levels as L  # noqa: E402

HERE = Path(__file__).resolve().parent


class ChainTests(unittest.TestCase):
    def test_ratings_go_down_the_chain_from_the_anchor(self):
        # Full strength 50 below the anchor; each step down 200 +- 40.
        ratings = L.chain([0, 10, 20], [(200.0, 40.0), (300.0, 30.0)], (-50.0, 50.0))
        self.assertEqual(ratings[20], (L.ANCHOR - 50.0, 50.0))
        self.assertAlmostEqual(ratings[10][0], L.ANCHOR - 350.0)
        self.assertAlmostEqual(ratings[10][1], math.hypot(50.0, 30.0))
        self.assertAlmostEqual(ratings[0][0], L.ANCHOR - 550.0)
        self.assertAlmostEqual(ratings[0][1], math.sqrt(50.0**2 + 30.0**2 + 40.0**2))

    def test_the_rust_table_interpolates_and_rises(self):
        ratings = {0: (500.0, 0), 10: (1500.0, 0), 20: (1400.0, 0)}
        line = L.elo_of_level_line([0, 10, 20], ratings)
        values = [float(v) for v in line.split("[", 2)[2].rstrip("];").split(",")]
        self.assertEqual(len(values), 21)
        self.assertEqual(values[0], 500.0)
        self.assertEqual(values[5], 1000.0)
        self.assertTrue(all(b > a for a, b in zip(values, values[1:])), values)

    def test_a_given_anchor_result_is_read_and_named_in_the_table(self):
        self.assertEqual(L.parse_anchor_result("92.5,52.2"), (92.5, 52.2))
        for bad in ("92.5", "x,1", "92.5,0", "nan,3", "1,2,3"):
            with self.assertRaises(SystemExit):
                L.parse_anchor_result(bad)
        ratings = L.chain([19, 20], [(100.0, 50.0)], (92.5, 52.2))
        text = L.table([19, 20], ratings, {19: 200}, None, "kirin abc", (92.5, 52.2), True)
        self.assertIn("full strength over it: +92.5 +- 52.2 (from an earlier match", text)
        self.assertIn("| 20 | 3092 | +- 52 |", text)
        self.assertIn("| 19 | 2992 | +- 72 |", text)

    def test_a_clean_sweep_gets_the_one_sided_bound(self):
        elo, margin = L.difference({"games": 20, "elo_trinomial": [math.inf, math.nan]})
        self.assertTrue(math.isinf(margin))
        self.assertGreater(elo, 100)
        self.assertTrue(math.isfinite(elo))


class PlayedTests(unittest.TestCase):
    def test_the_anchor_can_start_past_the_training_openings(self):
        args = argparse.Namespace(byoyomi=1000, concurrency=1, openings=None)
        with tempfile.TemporaryDirectory() as d, mock.patch.object(L.M, "main", return_value={}) as main:
            L.played(Path(d) / "ladder", "a", "b", 10, args)
            L.played(Path(d) / "anchor", "a", "gpsshogi", 10, args, 1500)
            (Path(d) / "anchor" / "match.json").parent.mkdir()
            (Path(d) / "anchor" / "match.json").write_text("{}")
            L.played(Path(d) / "anchor", "a", "gpsshogi", 10, args, 1500)
        ladder, anchor, resumed = (c.args[0] for c in main.call_args_list)
        self.assertNotIn("--skip-openings", ladder)
        self.assertEqual(anchor[anchor.index("--skip-openings") + 1], "1500")
        # a resume keeps the same openings, which match.py checks against the folder's
        self.assertEqual(resumed[resumed.index("--skip-openings") + 1], "1500")
        self.assertIn("--resume", resumed)


class RandomMoverTests(unittest.TestCase):
    def test_it_plays_legal_moves_and_resigns_when_mated(self):
        board = cshogi.Board()
        played = []
        proc = subprocess.run([sys.executable, str(HERE / "random_mover.py"), "7"],
                              input="usi\nisready\n", capture_output=True, text=True, timeout=30)
        self.assertIn("usiok", proc.stdout)
        self.assertIn("readyok", proc.stdout)
        # A game against itself, one process per move, every move checked by cshogi.
        for _ in range(60):
            if board.is_game_over():
                break
            position = "position startpos" + (" moves " + " ".join(played) if played else "")
            proc = subprocess.run([sys.executable, str(HERE / "random_mover.py"), str(len(played))],
                                  input=f"{position}\ngo btime 0 wtime 0 byoyomi 100\nquit\n",
                                  capture_output=True, text=True, timeout=30)
            move = proc.stdout.split()[1]
            self.assertIn(move, [cshogi.move_to_usi(m) for m in board.legal_moves])
            board.push_usi(move)
            played.append(move)
        mated = "position sfen 4k4/4G4/4P4/9/9/9/9/9/K8 w - 1\ngo btime 0 wtime 0 byoyomi 100\nquit\n"
        proc = subprocess.run([sys.executable, str(HERE / "random_mover.py")], input=mated,
                              capture_output=True, text=True, timeout=30)
        self.assertEqual(proc.stdout.split(), ["bestmove", "resign"])


if __name__ == "__main__":
    unittest.main()
