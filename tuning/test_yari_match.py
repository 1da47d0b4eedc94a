"""Tests of the yari shogi referee (tuning/yari_match.py): the adjudication against pyffish's
rules on hand-made sequences, move checking, the impasse judgement and the engine specs.
The full pipeline (two Fairy-Stockfish games) is `yari_match.py --selftest`."""

import json
import random
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import yari_match as Y  # noqa: E402


class Rules(unittest.TestCase):
    def test_repetition_and_perpetual_check(self):
        self.assertEqual(Y.rule_checks(), [])

    def test_moves_checked_in_usi_text(self):
        g = Y.YariGame()
        self.assertEqual(g.turn, Y.BLACK)
        for bad in ("7g7e", "7i7j", "P*5e", "8g8f", "7g7f+", "", "resign"):
            self.assertFalse(g.push(bad), bad)
        self.assertTrue(g.push("7g7f"))
        self.assertEqual(g.turn, Y.WHITE)
        self.assertEqual(g.ff_moves, ["a3a4"])  # pyffish: file a = shogi file 7, rank 1 = rank i
        self.assertTrue(g.push("1c1d"))
        self.assertEqual(g.position_command(),
                         "position sfen rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR b - 1 moves 7g7f 1c1d")

    def test_mate_ends_the_game(self):
        # Black drops a pawn on 1b: mate (pawn-drop mate is legal in yari shogi).
        g = Y.YariGame(start_fen=Y.sfen_to_fen("6k/7/4N+P1/7/7/7/7/7/3K3 b P 1"))
        self.assertIsNone(g.adjudicate())
        self.assertTrue(g.push("P*1b"))
        self.assertEqual(g.adjudicate(), (Y.BLACK, "checkmate"))

    def test_max_plies(self):
        g = Y.YariGame(max_plies=2)
        g.push("7g7f")
        self.assertIsNone(g.adjudicate())
        g.push("1c1d")
        self.assertEqual(g.adjudicate(), (None, "max plies"))

    def test_impasse(self):
        start = Y.YariGame()
        self.assertEqual(start.impasse(Y.BLACK), (Y.WHITE, "false declaration"))  # kings at home
        # Both kings entered; Black 4 rooks + 4 bishops (40) + pawns, White only pawns.
        both = Y.YariGame(start_fen=Y.sfen_to_fen("3K3/7/7/7/7/7/7/7/3k3 b 4R4B2Pp 1"))
        self.assertEqual(both.impasse(Y.BLACK), (Y.BLACK, "impasse"))
        self.assertEqual(both.impasse(Y.WHITE), (Y.BLACK, "false declaration"))
        even = Y.YariGame(start_fen=Y.sfen_to_fen("3K3/7/7/7/7/7/7/7/3k3 b 2R2B6P2r2b6p 1"))
        self.assertEqual(even.impasse(Y.WHITE), (None, "impasse"))

    def test_random_openings_seeded_and_legal(self):
        a = [Y.random_opening(random.Random(7), 6) for _ in range(3)]
        b = [Y.random_opening(random.Random(7), 6) for _ in range(3)]
        self.assertEqual(a, b)
        for o in a:
            self.assertEqual(len(o), 6)
            self.assertIsNone(Y.replay_ok({"moves": o}))
        self.assertIsNotNone(Y.replay_ok({"moves": ["7g7f", "7g7f"]}))


class Specs(unittest.TestCase):
    def test_fairy_preset(self):
        spec, go = Y.parse_engine("fairy", 200)
        self.assertEqual(spec.cmd[:2], ["node", "--no-experimental-fetch"])
        self.assertTrue(spec.cmd[2].endswith("fairy-stockfish-nnue.wasm/uci.js"))
        self.assertEqual((go, spec.margin_ms, spec.name), ("movetime", Y.FAIRY_MARGIN_MS, "fairy"))
        self.assertNotIn("UCI_Variant", spec.options)

    def test_keys(self):
        spec, go = Y.parse_engine("/bin/kirin,name=k2,go=byoyomi,opt.Hash=64,margin=50", 200)
        self.assertEqual((spec.name, go, spec.margin_ms, spec.options["Hash"]), ("k2", "byoyomi", 50, "64"))
        spec, go = Y.parse_engine("kirin", 200)
        self.assertEqual((go, spec.margin_ms, spec.options["Threads"]), ("movetime", 200, "1"))
        with self.assertRaises(SystemExit):
            Y.parse_engine("kirin,go=depth", 200)


# A scripted USI engine: plays the first of a fixed list of yari moves still unplayed (`good`), or
# misbehaves on its first `go` in the way its mode names.
FAKE = r"""
import sys
mode = sys.argv[1]
line_moves = ["7g7f", "1c1d", "6g6f", "2c2d", "5g5f", "3c3d"]
def out(s):
    sys.stdout.write(s + "\n"); sys.stdout.flush()
played = 0
for line in sys.stdin:
    t = line.split()
    if not t:
        continue
    if t[0] == "usi":
        out("id name fake-" + mode); out("option name UCI_Variant type combo default shogi var yarishogi"); out("usiok")
    elif t[0] == "isready":
        out("readyok")
    elif t[0] == "position":
        played = len(t) - t.index("moves") - 1 if "moves" in t else 0
    elif t[0] == "go":
        if mode == "good":
            out("bestmove " + line_moves[played])
        elif mode == "illegal":
            out("bestmove 7g7e")
        elif mode == "offboard":
            out("bestmove 8g8f")
        elif mode == "crash":
            sys.exit(3)
        elif mode == "hang":
            pass
        elif mode == "resign":
            out("bestmove resign")
        elif mode == "win":
            out("bestmove win")
    elif t[0] == "quit":
        break
"""


class Faults(unittest.TestCase):
    """The referee against scripted engines: every fault loses for the engine that made it."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        (self.dir / "fake.py").write_text(FAKE)

    def tearDown(self):
        self.tmp.cleanup()

    def spec(self, mode):
        # A 30 s margin for engines not late by design: they answer at once, but on a loaded
        # machine "at once" can exceed 50 ms + 50 ms, and a test must not turn on that.
        margin = 50 if mode == "hang" else 30000
        s, go = Y.parse_engine(f"{sys.executable},name=fake-{mode},margin={margin}", 200)
        s.cmd = [sys.executable, str(self.dir / "fake.py"), mode]
        return s, go

    def play(self, black_mode, white_mode="good", max_plies=300):
        specs = {Y.BLACK: self.spec(black_mode), Y.WHITE: self.spec(white_mode)}
        return Y.play_game(specs, [], 50, max_plies, self.dir / "game.txt")

    def test_faults_lose(self):
        for mode, reason in (("illegal", "illegal move"), ("offboard", "illegal move"), ("crash", "crash"),
                             ("hang", "time"), ("win", "false declaration")):
            r = self.play(mode)
            self.assertEqual((r["winner"], r["reason"], r["faulty"]), ("white", reason, "black"), mode)
        r = self.play("resign")
        self.assertEqual((r["winner"], r["reason"], r["faulty"]), ("white", "resign", None))

    def test_moves_recorded_and_cap(self):
        r = self.play("good", "good", max_plies=6)
        self.assertEqual((r["winner"], r["reason"], r["plies"]), ("draw", "max plies", 6))
        self.assertEqual(r["moves"], ["7g7f", "1c1d", "6g6f", "2c2d", "5g5f", "3c3d"])
        text = (self.dir / "game.txt").read_text()
        self.assertIn("position sfen rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR b - 1 moves 7g7f 1c1d", text)
        self.assertIn("result draw (max plies)", text)


class Resume(unittest.TestCase):
    def test_an_interrupted_match_resumes_where_it_stopped(self):
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            (d / "fake.py").write_text(FAKE)
            fake = f"{sys.executable} {d / 'fake.py'} good"
            out = d / "m"
            common = ["--engine", f"fake,cmd={fake},name=a,margin=30000",
                      "--opponent", f"fake,cmd={fake},name=b,margin=30000",
                      "--movetime", "50", "--max-plies", "4", "--random-plies", "0", "--seed", "4",
                      "--out", str(out), "--quiet"]
            Y.main(common + ["--games", "1"])
            first = (out / "results.jsonl").read_text().splitlines()
            self.assertEqual(len(first), 1)
            Y.main(common + ["--games", "3", "--resume"])
            rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
            self.assertEqual(sorted(r["game"] for r in rows), [1, 2, 3])
            self.assertEqual(json.dumps(rows[0]), json.dumps(json.loads(first[0])), "game 1 was played again")
            summary = json.loads((out / "summary.json").read_text())
            self.assertEqual((summary["games"], summary["D"]), (3, 3))
            # Another match in the folder, or a finished one, is refused with one line.
            with self.assertRaises(SystemExit) as e:
                Y.main(common[:4] + ["--movetime", "60"] + common[6:] + ["--games", "5", "--resume"])
            self.assertIn("movetime differs", str(e.exception))
            with self.assertRaises(SystemExit) as e:
                Y.main(common + ["--games", "3", "--resume"])
            self.assertIn("already has 3 of 3 games", str(e.exception))
            with self.assertRaises(SystemExit) as e:
                Y.main(common[:-3] + ["--quiet", "--games", "3", "--resume"])
            self.assertIn("--resume needs --out", str(e.exception))

    def test_first_game_plays_a_part_on_the_whole_matchs_openings(self):
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            (d / "fake.py").write_text(FAKE)
            fake = f"{sys.executable} {d / 'fake.py'} good"
            common = ["--engine", f"fake,cmd={fake},name=a,margin=30000",
                      "--opponent", f"fake,cmd={fake},name=b,margin=30000",
                      "--movetime", "50", "--max-plies", "4", "--random-plies", "3", "--seed", "9",
                      "--quiet", "--games", "5"]
            Y.main(common + ["--out", str(d / "rest"), "--first-game", "3"])
            rows = [json.loads(line) for line in (d / "rest" / "results.jsonl").read_text().splitlines()]
            self.assertEqual(sorted(r["game"] for r in rows), [3, 4, 5])
            self.assertEqual(sorted(r["pair"] for r in rows), [1, 1, 2])
            Y.main(common + ["--out", str(d / "whole")])
            whole = [json.loads(line) for line in (d / "whole" / "results.jsonl").read_text().splitlines()]
            meta = [json.loads((d / m / "match.json").read_text()) for m in ("rest", "whole")]
            self.assertEqual(meta[0]["openings"], meta[1]["openings"])
            self.assertEqual({r["game"]: r["moves"] for r in rows},
                             {r["game"]: r["moves"] for r in whole if r["game"] > 2})
            # A finished part has nothing left to resume.
            with self.assertRaises(SystemExit) as e:
                Y.main(common + ["--out", str(d / "rest"), "--first-game", "3", "--resume"])
            self.assertIn("already has games 3-5", str(e.exception))
            # A resumed part keeps its first game; another first game is another part.
            with self.assertRaises(SystemExit) as e:
                Y.main(common + ["--out", str(d / "rest"), "--resume"])
            self.assertIn("first_game differs", str(e.exception))
            with self.assertRaises(SystemExit) as e:
                Y.main(common + ["--first-game", "6"])
            self.assertIn("--first-game must be between 1 and --games", str(e.exception))


if __name__ == "__main__":
    unittest.main()
