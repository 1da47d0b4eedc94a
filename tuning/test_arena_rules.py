"""What ShogiArena's tournament runner judges right and wrong by kirin's rules.

Run: .venv/bin/python -m pytest -q tuning/test_arena_rules.py

Each test plays one game under `shogiarena run tournament` (the real runner, a local instance)
between the scripted engines of tuning/fake_engine.py, the same ones tuning/test_match.py plays
under kirin's referee, and asserts the verdict ShogiArena gives today, read from its game
database.  A test that fails after an upgrade means the verdict changed: measure again and
update the table in tuning/arena/README.md.  Each test says whether today's verdict matches
kirin's rule (tuning/match.py).

Every case is bounded: short byoyomi, a ply limit, and a wall-clock limit on the runner
(tuning/arena_harness.py kills it with its process group and fails the test).  The ShogiArena
settings are those closest to kirin's rules (repetition judged at the fourth occurrence, no time
margin) unless a test says it measures a default.
"""

import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import shogiarena  # noqa: E402
import yaml  # noqa: E402

import arena_harness as H  # noqa: E402

# Declaration positions of tuning/test_match.py: Black's king in camp with 10 pieces; 28 points
# with 10 pawns in hand (Black needs 28 under the 27-point rule), 27 with 9.
DECL_OK = "+R+B1G1GSS1/4K4/PPPN5/9/9/9/9/4k4/9 b 10P 1"
DECL_SHORT = "+R+B1G1GSS1/4K4/PPPN5/9/9/9/9/4k4/9 b 9P 1"
# Black's rook checks from 9b and 9a, White's king steps 5a-5b: perpetual check by Black.
PERPETUAL = "4k4/R8/9/9/9/9/9/9/4K4 b - 1"
CHECKS = ("cycle", "9b9a,9a9b")
ESCAPES = ("cycle", "5a5b,5b5a")
# Kings step back and forth, no check: plain sennichite.
QUIET = "4k4/9/9/9/9/9/9/9/4K4 b G 1"


class ArenaRulesTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = Path(cls.tmp.name)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def game(self, black, white, **kw):
        g = H.play(self.dir / self.id().rsplit(".", 1)[-1], black, white, **kw)
        self.assertEqual((g["games"], g["black"], g["white"]), (1, "black", "white"))
        return g

    def play(self, black, white, **kw):
        g = self.game(black, white, **kw)
        return g["result"], g["plies"]

    def test_the_measured_version(self):
        # The verdicts below are 1.3.2's (tuning/setup.sh pins it).
        self.assertEqual(shogiarena.__version__, "1.3.2")

    def test_a_normal_game_runs_to_the_ply_limit(self):
        # The harness itself: two sound engines, a draw at the ply limit.
        self.assertEqual(self.play(("first",), ("first",), max_plies=6), ("DRAW_BY_MAX_PLIES", 6))

    def test_hang_loses_on_time_but_only_after_the_stop_wait(self):
        # kirin: no bestmove within byoyomi + margin + 3 s loses on time (the engine is killed).
        # ShogiArena: RIGHT verdict, a loss on time; but after `stop` it waits handshake_timeout
        # for a bestmove (120 s by default: measured 126 s per hung move), so a hang costs
        # minutes unless the engine's handshake_timeout is set, as here (10 s, which also bounds
        # the start: a loaded machine must not fail it).
        self.assertEqual(self.play(("hang",), ("first",), byoyomi=200, handshake_timeout=10),
                         ("WHITE_WIN_BY_TIMEOUT", 0))

    def test_an_engine_that_fails_to_start_scores_no_game(self):
        # kirin: a failed start is a crash and loses.  ShogiArena: WRONG by kirin's rule, the
        # tournament records the game as ERROR, for neither side (its source: an SPRT run stops
        # on such a game instead, which is the safer half).
        self.assertEqual(self.play(("dead",), ("first",)), ("ERROR", 0))

    def test_crash_mid_game_loses(self):
        # kirin: a crash loses.  ShogiArena: RIGHT (White exits at its third go, after 5 plies).
        self.assertEqual(self.play(("first",), ("crash3",)), ("BLACK_WIN", 5))

    def test_a_move_far_beyond_byoyomi_loses_on_time(self):
        # kirin: later than byoyomi + margin loses.  ShogiArena with expiry_margin_ms 0: RIGHT.
        # (0.8 s late at 200 ms byoyomi: ShogiArena voids a timeout, as an ERROR game, when its
        # own event-loop lag in the move's window is as long as the overshoot; 0.8 s is beyond
        # the lag seen here.  Black, sound, has a margin ShogiArena's own latency cannot exhaust.)
        self.assertEqual(self.play(("first",), ("over", "800"), byoyomi=200, margin=0, black_margin=30000),
                         ("BLACK_WIN_BY_TIMEOUT", 2))

    def test_an_opponent_a_little_over_plays_on_with_its_own_margin(self):
        # kirin: the opponent (gpsshogi, fairy-stockfish) has a referee margin, kirin none.
        # ShogiArena: RIGHT when configured so: an engine's own time_control (here White's, with
        # 5 s) overrides the shared one (0 ms), and White 50 ms over every move plays on; without
        # the override it would lose at its first move, as the test above shows.
        self.assertEqual(self.play(("first",), ("over", "50"), byoyomi=200, margin=0, black_margin=30000,
                                   white_margin=5000, max_plies=10), ("DRAW_BY_MAX_PLIES", 10))

    def test_the_default_margin_is_500_ms_for_every_engine(self):
        # kirin: kirin itself has no margin.  ShogiArena's default expiry_margin_ms is 500 for
        # every engine: WRONG by default; set expiry_margin_ms in the time controls.  (Read from
        # the configuration ShogiArena resolved: an overrun that plays on inside 500 ms would
        # race ShogiArena's own latency.)
        g = self.game(("first",), ("first",), margin=None, max_plies=4)
        self.assertEqual((g["result"], g["plies"]), ("DRAW_BY_MAX_PLIES", 4))
        resolved = yaml.safe_load((g["run"] / "inputs" / "config_resolved.yaml").read_text())
        self.assertEqual(resolved["rules"]["time_control"]["expiry_margin_ms"], 500)
        self.assertEqual([e["time_control"] for e in resolved["engines"]], [None, None])

    def test_illegal_move_loses(self):
        # kirin: an illegal move loses.  ShogiArena: RIGHT.
        self.assertEqual(self.play(("first",), ("illegal",)), ("BLACK_WIN", 1))

    def test_a_false_declaration_wins(self):
        # kirin: `bestmove win` is checked against the 27-point rule; a false one loses.
        # ShogiArena: WRONG, it accepts every `bestmove win` as a win, here with 27 points where
        # Black needs 28 ...
        self.assertEqual(self.play(("falsewin",), ("first",), sfen=DECL_SHORT), ("BLACK_WIN", 0))

    def test_a_declaration_at_the_start_wins(self):
        # ... and from the starting position.  WRONG.
        self.assertEqual(self.play(("falsewin",), ("first",)), ("BLACK_WIN", 0))

    def test_a_true_declaration_wins(self):
        # kirin: wins.  ShogiArena: RIGHT verdict, though only because it accepts every one.
        self.assertEqual(self.play(("win",), ("first",), sfen=DECL_OK), ("BLACK_WIN", 0))

    def test_a_declarable_position_is_not_adjudicated(self):
        # kirin: only the engine's declaration ends the game.  ShogiArena: RIGHT, it plays on
        # (its own can_declare_win check runs with no entering-king rule set, so never fires).
        self.assertEqual(self.play(("first",), ("first",), sfen=DECL_OK, max_plies=4), ("DRAW_BY_MAX_PLIES", 4))

    def test_perpetual_check_loses_at_the_fourth_occurrence(self):
        # kirin: sennichite at the fourth occurrence; the side giving perpetual check loses.
        # ShogiArena with repetition_occurrences_to_draw 4: RIGHT (ply 12 is the fourth).
        self.assertEqual(self.play(CHECKS, ESCAPES, sfen=PERPETUAL), ("WHITE_WIN", 12))

    def test_perpetual_check_is_a_draw_at_the_second_occurrence_by_default(self):
        # ShogiArena's default repetition_occurrences_to_draw is 2: a draw at the first repeat,
        # no perpetual-check rule.  WRONG by default; set rules.repetition_occurrences_to_draw: 4.
        self.assertEqual(self.play(CHECKS, ESCAPES, sfen=PERPETUAL, repetition=None), ("DRAW_BY_REPETITION", 4))

    def test_plain_sennichite_is_a_draw_at_the_fourth_occurrence(self):
        # kirin: a draw.  ShogiArena with 4: RIGHT.
        quiet = ("cycle", "5i4i,4i5i"), ("cycle", "5a4a,4a5a")
        self.assertEqual(self.play(*quiet, sfen=QUIET), ("DRAW_BY_REPETITION", 12))


if __name__ == "__main__":
    unittest.main()
