"""Tests of the match harness (tuning/match.py).  Run: .venv/bin/python -m pytest -q tuning/
(plain `python3 tuning/test_match.py` works too: unittest, no pytest needed).

Covered: Elo and 95 % margins on hand-worked W/D/L and pentanomial counts; SPRT LLR against the
closed form n (s1-s0)(2x-s0-s1)/(2 var) worked by hand; the CSA 27-point (and 24-point) declaration
checker on positions where it must hold or fail, for both colours; sennichite at the fourth
occurrence and the perpetual-check rule; the referee with scripted fake engines (crash, time loss,
illegal move, false and true declaration, resignation, a kirin-style margin of zero); and real games
through the referee between fairy-stockfish and gpsshogi (installed by tuning/setup.sh, which
the test command runs; missing opponents fail these tests).
"""

import json
import math
import os
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cshogi  # noqa: E402
import cshogi.CSA  # noqa: E402

import match as M  # noqa: E402

FAIRY = "/usr/games/fairy-stockfish"
GPS = "/usr/games/gpsusi"
# The opening sets are GPL and stay in the shared folder: the real-engine tests read the first
# line from there (a missing file fails them).
# A 36-ply opening as the match openings are: the first 36 moves of the 2014 Ryuo-sen game in
# tests/data/kifu (MIT), so that the tests read no GPL opening file.
OPENING36 = ("startpos moves 7g7f 3c3d 2g2f 4a3b 2f2e 2b8h+ 7i8h 3a2b 3i3h 2b3c 5i6h 7a7b 8h7g 6c6d "
         "3h2g 7b6c 2g2f 1c1d 3g3f 4c4d 3f3e 8b4b 3e3d 3c3d 4i5h 7c7d 6h7h 6a7b 2f3g 3b3c 7h8h "
         "8a7c 6g6f 4d4e 6i7h 5a6b")


class EloTests(unittest.TestCase):
    def test_trinomial_hand_worked(self):
        # W60 D20 L20: s = 0.7; var = (60*0.3^2 + 20*0.2^2 + 20*0.7^2)/100 = 0.16; se = 0.04.
        # elo(0.7) = -400 log10(3/7) = 147.19; elo(0.7 -+ 1.96*0.04) = 86.23 / 218.25.
        e, m, lo, hi = M.elo_trinomial(60, 20, 20)
        self.assertAlmostEqual(e, 147.19, places=2)
        self.assertAlmostEqual(lo, 86.23, places=2)
        self.assertAlmostEqual(hi, 218.25, places=2)
        self.assertAlmostEqual(m, (218.25 - 86.23) / 2, places=2)

    def test_trinomial_even_and_degenerate(self):
        e, m, _, _ = M.elo_trinomial(30, 40, 30)
        self.assertAlmostEqual(e, 0.0)
        self.assertGreater(m, 0)
        e, m, _, _ = M.elo_trinomial(0, 10, 0)  # all draws: no variance
        self.assertEqual((e, m), (0.0, 0.0))
        e, m, _, _ = M.elo_trinomial(0, 0, 4)
        self.assertEqual(e, -math.inf)
        self.assertEqual(m, math.inf)

    def test_pentanomial_hand_worked(self):
        # pairs [5,10,20,10,5]: mean 0.5; var = (2*5*0.25^2... ) = (5*.25+10*.0625+10*.0625+5*.25)/50
        # = 0.075; se = sqrt(0.075/50) = 0.03873; elo(0.5 + 1.96 se) = elo(0.57591) = 53.16.
        e, m, lo, hi = M.elo_pentanomial([5, 10, 20, 10, 5])
        self.assertAlmostEqual(e, 0.0)
        self.assertAlmostEqual(hi, 53.16, places=2)
        self.assertAlmostEqual(lo, -53.16, places=2)

    def test_pentanomial_narrower_when_pairs_correlate(self):
        # the same 100 games (W40 D20 L40) as 50 pairs that always split 1-1: the pair scores have
        # zero variance, so the pentanomial margin is 0 while the trinomial one is not.
        _, m_tri, _, _ = M.elo_trinomial(40, 20, 40)
        _, m_penta, _, _ = M.elo_pentanomial([0, 0, 50, 0, 0])
        self.assertGreater(m_tri, 50)
        self.assertEqual(m_penta, 0.0)


class SprtTests(unittest.TestCase):
    def test_llr_hand_worked(self):
        # s0 = score(0) = 0.5, s1 = score(5) = 1/(1+10^(-5/400)) = 0.5071951;
        # W60 D20 L20: x = 0.7, var = 0.16, n = 100:
        # LLR = 100 * 0.0071951 * (1.4 - 1.0071951) / 0.32 = 0.88321
        self.assertAlmostEqual(M.score_from_elo(5), 0.5071951, places=7)
        llr = M.sprt_from_results(60, 20, 20, [0] * 5, 0, 5, model="tri")
        self.assertAlmostEqual(llr, 0.88321, places=4)

    def test_llr_properties(self):
        # zero where the mean is halfway between s0 and s1; antisymmetric around it.
        s0, s1 = M.score_from_elo(0), M.score_from_elo(10)
        mid = (s0 + s1) / 2
        self.assertAlmostEqual(M.sprt_llr(mid, 0.1, 1000, 0, 10), 0.0)
        d = 0.01
        self.assertAlmostEqual(M.sprt_llr(mid + d, 0.1, 1000, 0, 10), -M.sprt_llr(mid - d, 0.1, 1000, 0, 10))
        # linear in n
        self.assertAlmostEqual(M.sprt_llr(0.6, 0.1, 2000, 0, 10), 2 * M.sprt_llr(0.6, 0.1, 1000, 0, 10))

    def test_pentanomial_llr(self):
        # pairs [1,2,4,8,5]: n = 20, x = (0*1+.25*2+.5*4+.75*8+1*5)/20 = 0.675,
        # var = (1*.675^2 + 2*.425^2 + 4*.175^2 + 8*.075^2 + 5*.325^2)/20 = 1.5125/20 = 0.075625
        # LLR = 20 * 0.0071951 * (1.35 - 1.0071951) / (2 * 0.075625) = 0.32615
        n, x, var = 20, 0.675, 0.075625
        s0, s1 = 0.5, M.score_from_elo(5)
        expect = n * (s1 - s0) * (2 * x - s0 - s1) / (2 * var)
        self.assertAlmostEqual(M.sprt_from_results(0, 0, 0, [1, 2, 4, 8, 5], 0, 5), expect)
        self.assertAlmostEqual(expect, 0.32615, places=4)

    def test_one_sided_results_decide(self):
        # all wins: zero sample variance; the 1e-3 regularisation still lets the test end
        self.assertEqual(M.sprt_status(M.sprt_from_results(0, 0, 0, [0, 0, 0, 0, 30], 0, 5), .05, .05),
                         "H1 accepted")
        self.assertEqual(M.sprt_status(M.sprt_from_results(0, 0, 40, [0] * 5, 0, 5, "tri"), .05, .05),
                         "H0 accepted")
        self.assertEqual(M.sprt_from_results(0, 0, 0, [0] * 5, 0, 5), 0.0)

    def test_bounds_and_status(self):
        lo, hi = M.sprt_bounds(0.05, 0.05)
        self.assertAlmostEqual(hi, math.log(19))
        self.assertAlmostEqual(lo, -math.log(19))
        self.assertEqual(M.sprt_status(3.0, 0.05, 0.05), "H1 accepted")
        self.assertEqual(M.sprt_status(-3.0, 0.05, 0.05), "H0 accepted")
        self.assertEqual(M.sprt_status(0.5, 0.05, 0.05), "continue")
        # a clearly stronger engine gets accepted eventually, a clearly weaker rejected
        self.assertEqual(M.sprt_status(M.sprt_from_results(300, 100, 100, [0] * 5, 0, 5, "tri"), .05, .05),
                         "H1 accepted")
        self.assertEqual(M.sprt_status(M.sprt_from_results(100, 100, 300, [0] * 5, 0, 5, "tri"), .05, .05),
                         "H0 accepted")


class DeclarationTests(unittest.TestCase):
    BLACK_OK = "+R+B1G1GSS1/4K4/PPPN5/9/9/9/9/4k4/9 b 10P 1"  # 10 in camp, 18 + 10 = 28 points
    # the same position turned round for White (28 points; White needs only 27)
    WHITE_OK = "9/4K4/9/9/9/9/5nppp/4k4/1ssg1g1+b+r w 10p 1"

    def check(self, sfen, expect, rule="27"):
        b = cshogi.Board(sfen)
        self.assertEqual(M.declaration_ok(b, rule), expect, sfen)
        return b

    def test_black_27(self):
        b = self.check(self.BLACK_OK, True)
        self.assertEqual(M.declaration_points(b, cshogi.BLACK), (10, 28))
        self.assertTrue(b.is_nyugyoku())  # cshogi agrees
        self.check(self.BLACK_OK.replace("10P", "9P"), False)  # 27 points < 28
        self.check("+R+B1G1GSS1/9/PPPN5/4K4/9/9/9/4k4/9 b 10P 1", False)  # king on rank d
        self.check("+R+B1G1GSS1/4K4/PP1N5/9/9/9/9/4k4/9 b 11P 1", False)  # 9 pieces in camp, 28 pts
        self.check("+R+B1G1GSS1/4K4/PPPN5/9/4r4/9/9/4k4/9 b 10P 1", False)  # in check (rook 5e)
        self.check(self.BLACK_OK, False, rule="24")  # 24-point rule needs 31
        self.check(self.BLACK_OK.replace("10P", "13P"), True, rule="24")

    def test_white_27(self):
        b = self.check(self.WHITE_OK, True)
        self.assertEqual(M.declaration_points(b, cshogi.WHITE), (10, 28))
        self.check(self.WHITE_OK.replace("10p", "9p"), True)  # 27 is enough for White
        self.check(self.WHITE_OK.replace("10p", "8p"), False)
        self.check(self.WHITE_OK.replace(" w ", " b "), False)  # Black to move: its king is not in

    def test_hand_pieces_count_rook_bishop_five(self):
        # 10 small pieces in camp (10 points) + R B in hand (10) + 8 pawns = 28
        b = self.check("GGSSNNLLP1/4K4/P8/9/9/9/9/4k4/9 b RB8P 1", True)
        self.assertEqual(M.declaration_points(b, cshogi.BLACK), (10, 28))


def run_moves(gs, moves):
    out = []
    for u in moves:
        assert gs.push(u), u
        out.append(gs.adjudicate())
    return out


class RepetitionTests(unittest.TestCase):
    def test_plain_sennichite_at_fourth_occurrence(self):
        gs = M.GameState("4k4/9/9/9/9/9/9/9/4K4 b G 1")
        cycle = ["5i4i", "5a4a", "4i5i", "4a5a"]
        res = run_moves(gs, cycle * 3)
        self.assertTrue(all(r is None for r in res[:-1]), res)  # 2nd and 3rd occurrence: play on
        self.assertEqual(res[-1], (None, "sennichite"))
        self.assertEqual(gs.counts[gs.keys[-1]], 4)

    def test_perpetual_check_by_black_loses(self):
        # Black's rook checks from 9a / 9b, White's king steps 5a <-> 5b
        gs = M.GameState("4k4/R8/9/9/9/9/9/9/4K4 b - 1")
        res = run_moves(gs, ["9b9a", "5a5b", "9a9b", "5b5a"] * 3)
        self.assertTrue(all(r is None for r in res[:-1]))
        self.assertEqual(res[-1], (cshogi.WHITE, "perpetual check"))

    def test_perpetual_check_by_white_loses(self):
        gs = M.GameState("4k4/9/9/9/9/9/9/r8/4K4 w - 1")
        res = run_moves(gs, ["9h9i", "5i5h", "9i9h", "5h5i"] * 3)
        self.assertEqual(res[-1], (cshogi.BLACK, "perpetual check"))

    def test_checks_broken_once_is_a_draw(self):
        # the same cycle, but in the first lap Black plays a quiet move that leaves
        # the cycle position unchanged: rook 9b-8b-9b without check -> not all checks
        gs = M.GameState("4k4/R8/9/9/9/9/9/9/4K4 b - 1")
        moves = ["9b8b", "5a4a", "8b9b", "4a5a"] + ["9b9a", "5a5b", "9a9b", "5b5a"] * 2
        res = run_moves(gs, moves)
        self.assertEqual(res[-1], (None, "sennichite"))

    def test_max_plies_and_mate(self):
        gs = M.GameState(None, max_plies=4)
        res = run_moves(gs, ["7g7f", "3c3d", "2g2f", "4c4d"])
        self.assertEqual(res, [None, None, None, (None, "max plies")])
        gs = M.GameState("4k4/9/4P4/9/9/9/9/9/4K4 b G 1")
        self.assertEqual(run_moves(gs, ["G*5b"])[-1], (cshogi.BLACK, "checkmate"))

    def test_illegal_moves_rejected(self):
        gs = M.GameState("7nk/9/8G/9/9/9/9/9/K8 b P 1")
        self.assertFalse(gs.push("P*1b"))  # uchifuzume
        self.assertFalse(gs.push("5e5d"))
        self.assertFalse(gs.push("garbage"))
        gs = M.GameState()
        self.assertFalse(gs.push("P*5e"))  # nothing in hand
        run_moves(gs, ["7g7f", "3c3d"])
        self.assertTrue(gs.push("8h2b"))  # a useless non-promotion is legal


# The scripted engines (crash, hang, late, illegal, declarations, ...): tuning/fake_engine.py.
FAKE = Path(__file__).resolve().parent / "fake_engine.py"
# The engines that are not late by design get a 30 s referee margin: they answer at once, but on a
# loaded machine "at once" can exceed a 200 ms byoyomi, and a test must not turn on that.  Only the
# tests of time losses (hang, slow) use a margin of 0.
SOUND_MARGIN = 30000


def fake_spec(name, mode):
    """A match.py engine spec of a sound fake engine, for the command-line tests."""
    return f"fake,name={name},cmd={sys.executable} {FAKE} {mode},margin={SOUND_MARGIN}"


class RefereeFakeEngineTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = Path(cls.tmp.name)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def spec(self, mode, margin=None):
        if margin is None:
            margin = 0 if mode in ("hang", "slow") else SOUND_MARGIN
        return M.EngineSpec(f"fake-{mode}", [sys.executable, str(FAKE), mode],
                            {"Threads": "1"}, margin_ms=margin)

    def play(self, black, white, opening="startpos", byo=200, max_plies=320, name="g"):
        rec = self.dir / f"{name}.csa"
        res = M.play_game(black, white, opening, {cshogi.BLACK: byo, cshogi.WHITE: byo}, rec, max_plies)
        self.assertTrue(rec.exists())
        return res, rec.read_text()

    def test_crash_loses(self):
        res, csa = self.play(self.spec("first"), self.spec("crash3"), name="crash")
        self.assertEqual((res["winner"], res["reason"], res["faulty"]), ("black", "crash", "white"))
        self.assertIn("%CHUDAN", csa)
        self.assertEqual(res["plies"], 5)  # white crashed at its third go

    def test_time_loss_without_margin(self):
        res, csa = self.play(self.spec("first"), self.spec("slow"), byo=300, name="slow0")
        self.assertEqual((res["winner"], res["reason"]), ("black", "time"))
        self.assertIn("%TIME_UP", csa)
        # the same engine with a referee margin is not flagged (a margin far above its 0.4 s sleep:
        # the outcome must not hang on how fast a loaded machine wakes it)
        res, _ = self.play(self.spec("first"), self.spec("slow", margin=30000), byo=300, max_plies=4, name="slow1")
        self.assertEqual(res["reason"], "max plies")
        self.assertGreater(res["stats"]["white"]["max_ms"], 300)
        self.assertEqual(res["stats"]["white"]["over_byoyomi"], 2)

    def test_hang_is_bounded(self):
        res, _ = self.play(self.spec("hang"), self.spec("first"), byo=100, name="hang")
        self.assertEqual((res["winner"], res["reason"]), ("white", "time"))

    def test_illegal_move_loses(self):
        res, csa = self.play(self.spec("first"), self.spec("illegal"), name="illegal")
        self.assertEqual((res["winner"], res["reason"]), ("black", "illegal move"))
        self.assertIn("%ILLEGAL_MOVE", csa)

    def test_declarations(self):
        ok = "sfen " + DeclarationTests.BLACK_OK
        res, csa = self.play(self.spec("win"), self.spec("first"), opening=ok, name="decl_ok")
        self.assertEqual((res["winner"], res["reason"]), ("black", "declaration"))
        self.assertIn("%KACHI", csa)
        bad = "sfen " + DeclarationTests.BLACK_OK.replace("10P", "9P")
        res, csa = self.play(self.spec("falsewin"), self.spec("first"), opening=bad, name="decl_bad")
        self.assertEqual((res["winner"], res["reason"], res["faulty"]), ("white", "false declaration", "black"))
        res, _ = self.play(self.spec("falsewin"), self.spec("first"), name="decl_start")
        self.assertEqual(res["reason"], "false declaration")

    def test_resign_and_record_parses(self):
        res, csa = self.play(self.spec("first"), self.spec("resign"), opening=OPENING36, name="resign")
        self.assertEqual((res["winner"], res["reason"]), ("black", "resign"))
        self.assertEqual(res["plies"], 37)
        kif = cshogi.CSA.Parser.parse_str(csa)[0]
        self.assertEqual(len(kif.moves), 37)
        self.assertEqual(kif.names, ["fake-first", "fake-resign"])

    def test_missing_binary_is_a_crash(self):
        res, _ = self.play(M.EngineSpec("nope", ["/nonexistent/engine"], {}), self.spec("first"), name="nobin")
        self.assertEqual((res["winner"], res["reason"]), ("white", "crash"))

    def test_cli_match_and_summarize(self):
        op = self.dir / "openings.sfen"
        op.write_text(OPENING36 + "\n" + "startpos moves 7g7f 3c3d\n")
        out = self.dir / "cli"
        s = M.main(["--engine", fake_spec("A", "first"), "--opponent", fake_spec("B", "resign"),
                    "--byoyomi", "200", "--concurrency", "2", "--openings", str(op), "--out", str(out),
                    "--quiet", "--games", "4", "--sprt", "elo0=0", "elo1=5"])
        self.assertEqual((s["games"], s["W"], s["D"], s["L"]), (4, 4, 0, 0))
        self.assertEqual(s["pentanomial"], [0, 0, 0, 0, 2])
        self.assertEqual(s["sprt"]["status"], "continue")  # fewer than min_games
        self.assertEqual(len(list(out.glob("game-*.csa"))), 4)
        again = M.main(["--summarize", str(out)])
        self.assertEqual((again["W"], again["pentanomial"]), (4, [0, 0, 0, 0, 2]))

    def test_a_match_in_parts_is_summarized_as_one_and_tested_after_the_fact(self):
        op = self.dir / "openings.sfen"
        op.write_text(OPENING36 + "\n" + "startpos moves 7g7f 3c3d\n")

        def part(name, skip, byoyomi="200"):
            out = self.dir / name
            M.main(["--engine", fake_spec("A", "first"), "--opponent", fake_spec("B", "resign"),
                    "--byoyomi", byoyomi, "--concurrency", "2", "--openings", str(op), "--out", str(out),
                    "--quiet", "--games", "2", "--skip-openings", str(skip)])
            return str(out)

        first, second = part("part1", 0), part("part2", 1)
        s = M.main(["--summarize", f"{first},{second}"])
        self.assertEqual((s["games"], s["W"], s["pentanomial"]), (4, 4, [0, 0, 0, 0, 2]))
        self.assertNotIn("sprt", s)
        # A fixed match tested afterwards: every game is won, so a test against Elo 0 decides at
        # the first complete pair after min_games (the third game completes none), and not
        # before two pairs.
        s = M.main(["--summarize", f"{first},{second}", "--sprt", "elo0=0", "elo1=5", "min_games=3"])
        self.assertEqual((s["sprt"]["status"], s["sprt"]["decided_after"]), ("H1 accepted", 4))
        s = M.main(["--summarize", first, "--sprt", "elo0=0", "elo1=5", "min_games=3"])
        self.assertEqual((s["sprt"]["status"], s["sprt"]["decided_after"]), ("continue", None))
        for bad in ([first, first], [first, part("slower", 0, byoyomi="300")]):
            with self.assertRaises(SystemExit) as e:
                M.main(["--summarize", ",".join(bad)])
            self.assertIn(bad[1], str(e.exception))
        with self.assertRaises(SystemExit) as e:
            part("beyond", 2)
        self.assertIn("only 2 openings", str(e.exception))

    def test_an_interrupted_match_resumes_where_it_stopped(self):
        op = self.dir / "openings.sfen"
        op.write_text(OPENING36 + "\n" + "startpos moves 7g7f 3c3d\n")
        out = self.dir / "resume"
        common = ["--engine", fake_spec("A", "first"), "--opponent", fake_spec("B", "resign"),
                  "--byoyomi", "200", "--concurrency", "2", "--openings", str(op), "--out", str(out), "--quiet"]
        M.main(common + ["--games", "4"])
        rows = (out / "results.jsonl").read_text().splitlines()
        # Games run in parallel finish out of order: an interruption can leave game 2 unfinished
        # while 3 and 4 are done.  Their records must survive; game 2 is played again.
        kept = [r for r in rows if json.loads(r)["game"] != 2]
        (out / "results.jsonl").write_text("\n".join(kept) + "\n")
        before = {g: (out / f"game-0000{g}.csa").read_text() for g in (1, 3, 4)}
        s = M.main(common + ["--games", "6", "--resume"])
        self.assertEqual((s["games"], s["W"]), (6, 6))
        self.assertEqual(s["pentanomial"], [0, 0, 0, 0, 3])
        done = sorted(json.loads(r)["game"] for r in (out / "results.jsonl").read_text().splitlines())
        self.assertEqual(done, [1, 2, 3, 4, 5, 6])
        self.assertEqual({g: (out / f"game-0000{g}.csa").read_text() for g in (1, 3, 4)}, before)
        # Another match in the folder, a finished one, or no folder is refused with one line.
        with self.assertRaises(SystemExit) as e:
            M.main(common + ["--games", "8", "--resume", "--max-plies", "100"])
        self.assertIn("max_plies differs", str(e.exception))
        with self.assertRaises(SystemExit) as e:
            M.main(common + ["--games", "6", "--resume"])
        self.assertIn("already has 6 of 6 games", str(e.exception))
        with self.assertRaises(SystemExit) as e:
            M.main(common[:-3] + ["--games", "6", "--resume"])
        self.assertIn("needs --out", str(e.exception))

    def test_an_interrupt_to_the_whole_process_group_scores_no_game(self):
        # Ctrl-C at a terminal, or `timeout`, signals the referee's whole process group.  The games
        # in progress must be dropped (and played again on --resume), never scored as crashes of
        # whichever engine the signal happened to kill first.
        # No race with the clock: engine A is `gated`, so exactly one game (the first A to think)
        # can finish; every other A stops at its first move until the test releases it.  The
        # interrupt comes when one game is scored and both workers' games are held.
        import signal
        import subprocess
        import time
        op = self.dir / "openings.sfen"
        op.write_text("startpos moves 7g7f 3c3d\nstartpos moves 2g2f 8c8d\n")
        gate = self.dir / "gate"
        gate.mkdir()
        out = self.dir / "interrupted"
        # a long byoyomi: a held engine must not lose on time while the test looks on
        common = ["--engine", fake_spec("A", f"gated {gate}"), "--opponent", fake_spec("B", "first"),
                  "--byoyomi", "600000", "--concurrency", "2", "--max-plies", "10", "--games", "8",
                  "--openings", str(op), "--out", str(out), "--quiet"]
        # The referee gets Ctrl-C's default disposition whatever the test runs under: a test
        # command started in the background (`cmd &` in a script) inherits SIGINT ignored, and
        # a Python started so ignores it for good.
        proc = subprocess.Popen([sys.executable, str(Path(M.__file__)), *common], start_new_session=True,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        try:
            results = out / "results.jsonl"

            def state():
                rows = results.read_text().splitlines() if results.exists() else []
                return len([r for r in rows if r.strip()]), len(list(gate.glob("thinking-*")))

            deadline = time.monotonic() + 120  # a safety net only: the wait ends on the state
            while time.monotonic() < deadline and state() != (1, 2) and proc.poll() is None:
                time.sleep(0.05)
            self.assertEqual(state(), (1, 2))  # one game scored, two held in their first move
            os.killpg(proc.pid, signal.SIGINT)
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        self.assertNotEqual(proc.returncode, 0)
        rows = [json.loads(x) for x in results.read_text().splitlines() if x.strip()]
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0]["reason"], "max plies")
        self.assertEqual(len(list(out.glob("game-*.csa"))), 1)
        (gate / "release").write_text("")
        s = M.main(common + ["--resume"])
        self.assertEqual((s["games"], s["D"]), (8, 8))
        self.assertEqual(s["reasons"], {"max plies": 8})

    def test_a_decided_sprt_is_not_resumed(self):
        op = self.dir / "openings.sfen"
        op.write_text(OPENING36 + "\n")
        out = self.dir / "decided"
        common = ["--engine", fake_spec("A", "first"), "--opponent", fake_spec("B", "resign"),
                  "--byoyomi", "200", "--concurrency", "2", "--openings", str(op), "--out", str(out), "--quiet",
                  "--sprt", "elo0=0", "elo1=5", "min_games=4"]
        s = M.main(common + ["--games", "40"])
        self.assertEqual(s["sprt"]["status"], "H1 accepted")
        with self.assertRaises(SystemExit) as e:
            M.main(common + ["--games", "40", "--resume"])
        self.assertIn("already decided", str(e.exception))

    def test_tally_pairs(self):
        t = M.Tally()
        st = {"moves": 1, "total_ms": 10.0, "max_ms": 10.0, "over_byoyomi": 0}
        mk = lambda w: {"winner": w, "reason": "resign", "faulty": None, "stats": {"black": st, "white": st}}
        t.add(0, "black", mk("black"))  # A wins as black
        t.add(0, "white", mk("black"))  # A loses as white -> pair 1-1
        t.add(1, "black", mk("draw"))
        t.add(1, "white", mk("white"))  # A draws and wins -> pair 1.5
        self.assertEqual((t.w, t.d, t.l), (2, 1, 1))
        self.assertEqual(t.penta, [0, 0, 1, 1, 0])


def _replay_ok(testcase, res, rec_text):
    """The record parses, every move replays legally, and the result matches the board."""
    kif = cshogi.CSA.Parser.parse_str(rec_text)[0]
    b = cshogi.Board()
    for m in kif.moves:
        testcase.assertTrue(b.is_legal(m))
        b.push(m)
    testcase.assertEqual(len(kif.moves), res["plies"])
    if res["reason"] == "checkmate":
        testcase.assertTrue(b.is_game_over())
    testcase.assertIn(res["reason"], {"checkmate", "resign", "sennichite", "perpetual check", "max plies",
                                      "declaration"})
    testcase.assertIsNone(res["faulty"])


# These tests check records and rules, not the clock: a real engine at 50-100 ms a move can run
# past its preset margin on a loaded machine, so every engine here gets the 30 s margin.
SOUND_KEY = f",margin={SOUND_MARGIN}"


class RealEngineTests(unittest.TestCase):
    def test_fairy_vs_fairy_full_game(self):
        f = M.parse_engine_spec("fairy" + SOUND_KEY)
        g = M.parse_engine_spec("fairy,name=fairy-2" + SOUND_KEY)
        with tempfile.TemporaryDirectory() as d:
            rec = Path(d) / "g.csa"
            res = M.play_game(f, g, OPENING36, {cshogi.BLACK: 50, cshogi.WHITE: 50}, rec)
            _replay_ok(self, res, rec.read_text())
            self.assertGreater(res["plies"], 36)

    def test_gps_vs_fairy_short(self):
        gps, f = M.parse_engine_spec("gpsshogi" + SOUND_KEY), M.parse_engine_spec("fairy" + SOUND_KEY)
        with tempfile.TemporaryDirectory() as d:
            rec = Path(d) / "g.csa"
            res = M.play_game(gps, f, OPENING36, {cshogi.BLACK: 1000, cshogi.WHITE: 100}, rec, max_plies=40)
            _replay_ok(self, res, rec.read_text())
            self.assertEqual(res["stats"]["black"]["moves"] + res["stats"]["white"]["moves"], res["plies"] - 36)


if __name__ == "__main__":
    unittest.main()
