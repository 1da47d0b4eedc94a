"""Tests of tuning/handicap_openings.py: legal lines from the handicap starts, made again exactly.
Run: .venv/bin/python -m pytest -q tuning/test_handicap_openings.py
"""

import sys
import tempfile
import unittest
from pathlib import Path

import cshogi

sys.path.insert(0, str(Path(__file__).resolve().parent))

import handicap_openings as HO  # noqa: E402


class Openings(unittest.TestCase):
    def test_each_line_starts_from_a_handicap_and_ends_quiet(self):
        lines = HO.openings(60, 7, 2, 8)
        self.assertEqual(len(lines), 60)
        seen = set()
        for text in lines:
            self.assertTrue(text.startswith("sfen "), text)
            head, _, moves = text[len("sfen "):].partition(" moves ")
            self.assertIn(head, HO.HANDICAPS.values())
            seen.add(head)
            board = cshogi.Board(head)
            # The giver has fewer than 20 pieces and moves first.
            self.assertEqual(board.turn, cshogi.WHITE)
            self.assertLess(sum(1 for sq in range(81) if board.piece(sq) and board.piece(sq) > 16), 20)
            played = moves.split()
            self.assertTrue(2 <= len(played) <= 8, text)
            for usi in played:
                move = board.move_from_usi(usi)
                self.assertTrue(board.is_legal(move), text)
                board.push(move)
            self.assertFalse(board.is_check(), text)
            self.assertFalse(board.is_game_over(), text)
        # The handicaps are taken in turn: all of the default ones appear.
        self.assertEqual(seen, {HO.HANDICAPS[n] for n in HO.DEFAULT})

    def test_a_line_depends_on_the_seed_and_its_number_only(self):
        self.assertEqual(HO.openings(10, 3, 0, 6), HO.openings(10, 3, 0, 6))
        self.assertEqual(HO.openings(12, 3, 0, 6)[:10], HO.openings(10, 3, 0, 6))
        self.assertNotEqual(HO.openings(10, 4, 0, 6), HO.openings(10, 3, 0, 6))
        # No plies: the starts themselves.
        self.assertEqual(HO.openings(2, 1, 0, 0, ["rook", "two pieces"]),
                         ["sfen " + HO.HANDICAPS["rook"], "sfen " + HO.HANDICAPS["two pieces"]])

    def test_the_command_writes_the_file_and_refuses_an_unknown_handicap(self):
        with tempfile.TemporaryDirectory() as d:
            out = Path(d) / "h.sfen"
            self.assertEqual(HO.main(["--out", str(out), "--lines", "5", "--seed", "9",
                                      "--handicaps", "four pieces,six pieces"]), 0)
            lines = out.read_text().splitlines()
            self.assertEqual(lines, HO.openings(5, 9, 2, 8, ["four pieces", "six pieces"]))
            self.assertEqual(HO.main(["--out", str(out), "--handicaps", "queen"]), 2)
            self.assertEqual(HO.main(["--out", str(out), "--min-plies", "5", "--max-plies", "2"]), 2)


if __name__ == "__main__":
    unittest.main()
