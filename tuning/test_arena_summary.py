"""Tests of tuning/arena_summary.py: a ShogiArena run's games read with match.py's statistics.
Run: .venv/bin/python -m pytest -q tuning/test_arena_summary.py

Also: several runs summed as one match, with no pair across two runs. The run folder is written here with the tables and columns of ShogiArena 1.3.2's game.db that
the summary reads (`test_arena_rules.py` plays real ShogiArena runs)."""

import sqlite3
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import arena_summary as S  # noqa: E402

A_SFEN = "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2"
B_SFEN = "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3"


def write_run(folder: Path, games):
    """games: (result, black, white, sfen, start, end, move ms list)."""
    db = sqlite3.connect(folder / "game.db")
    db.executescript(
        "create table player (id integer primary key, player_name text);"
        "create table game (id integer primary key, game_result text, num_moves integer, black_player_id integer,"
        " white_player_id integer, initial_position_sfen text, start_date text, end_date text);"
        "create table game_move (id integer primary key, game_id integer, ply integer, wall_time_ms integer);"
        "insert into player values (1, 'dev'), (2, 'base');")
    ids = {"dev": 1, "base": 2}
    for i, (result, black, white, sfen, start, end, times) in enumerate(games, start=1):
        db.execute("insert into game values (?, ?, ?, ?, ?, ?, ?, ?)",
                   (i, result, len(times), ids[black], ids[white], sfen, start, end))
        first = int(sfen.split()[-1]) - 1
        for k, ms in enumerate(times):
            db.execute("insert into game_move (game_id, ply, wall_time_ms) values (?, ?, ?)", (i, first + k, ms))
    db.commit()
    db.close()


class ArenaSummary(unittest.TestCase):
    def test_results_pairs_faults_times_and_rate(self):
        with tempfile.TemporaryDirectory() as tmp:
            run = Path(tmp)
            write_run(run, [
                # one opening: dev wins as Black and as White -> pair score 2
                ("BLACK_WIN", "dev", "base", A_SFEN, "2026-01-01 10:00:00", "2026-01-01 10:10:00", [100, 200, 300]),
                ("WHITE_WIN", "base", "dev", A_SFEN, "2026-01-01 10:10:00", "2026-01-01 10:20:00", [400, 50]),
                # the same position again (a transposed opening line): a draw and a loss on time by dev
                ("DRAW_BY_REPETITION", "dev", "base", A_SFEN, "2026-01-01 10:20:00", "2026-01-01 10:30:00", [10]),
                ("BLACK_WIN_BY_TIMEOUT", "base", "dev", A_SFEN, "2026-01-01 10:30:00", "2026-01-01 10:40:00", [10, 900]),
                # a voided game, left out
                ("ERROR", "dev", "base", B_SFEN, "2026-01-01 10:40:00", "2026-01-01 11:00:00", []),
            ])
            s = S.summarize(run, byoyomi=300)
        self.assertEqual((s["A"], s["B"]), ("dev", "base"))
        self.assertEqual((s["games"], s["W"], s["D"], s["L"]), (4, 2, 1, 1))
        # pairs: (win, win) -> 2 points; (draw, loss) -> 1/2 point
        self.assertEqual(s["pentanomial"], [0, 1, 0, 0, 1])
        self.assertEqual(s["faults"], {"A": {"time": 1}, "B": {}})
        self.assertEqual(s["voided"], {"ERROR": 1})
        # A_SFEN has White to move, so dev's moves are 200 (game 1), 400 (game 2) and 10 (game 4).
        dev = s["time"]["A"]
        self.assertEqual((dev["moves"], dev["max_ms"], dev["over_byoyomi"]), (3, 400, 1))
        # four played games in 40 minutes of play (the voided game's span does not count)
        self.assertAlmostEqual(s["games_per_hour"], 6.0)

    def test_runs_summed_without_pairs_across_them(self):
        with tempfile.TemporaryDirectory() as tmp:
            first, rest = Path(tmp) / "first", Path(tmp) / "rest"
            first.mkdir()
            rest.mkdir()
            # the first run's last pair lost its second game; the second run plays that opening again
            write_run(first, [
                ("BLACK_WIN", "dev", "base", A_SFEN, "2026-01-01 10:00:00", "2026-01-01 10:10:00", [1]),
                ("ERROR", "base", "dev", A_SFEN, "2026-01-01 10:10:00", "2026-01-01 10:10:01", []),
            ])
            write_run(rest, [
                ("WHITE_WIN", "dev", "base", A_SFEN, "2026-01-02 10:00:00", "2026-01-02 10:10:00", [1]),
                ("WHITE_WIN", "base", "dev", A_SFEN, "2026-01-02 10:10:00", "2026-01-02 10:20:00", [1]),
            ])
            s = S.summarize([first, rest])
        self.assertEqual((s["games"], s["W"], s["D"], s["L"]), (3, 2, 0, 1))
        # one whole pair (a loss and a win: 1 point) from the second run; the first run's orphan
        # is not paired with a game of the second
        self.assertEqual(s["pentanomial"], [0, 0, 1, 0, 0])
        self.assertEqual(s["voided"], {"ERROR": 1})
        self.assertAlmostEqual(s["games_per_hour"], 6.0)

    def test_another_view_and_unknown_engines(self):
        with tempfile.TemporaryDirectory() as tmp:
            run = Path(tmp)
            write_run(run, [("WHITE_WIN", "dev", "base", B_SFEN, "2026-01-01 10:00:00", "2026-01-01 10:30:00", [5])])
            self.assertEqual(S.summarize(run, "base")["W"], 1)
            with self.assertRaises(SystemExit):
                S.summarize(run, "nobody")


if __name__ == "__main__":
    unittest.main()
