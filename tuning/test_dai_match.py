"""Tests of the dai shogi referee (tuning/dai_match.py): the notation conversion between HaChu and
kirin (checked against the start position of ../shared/docs/dai.md and against HaChu's own output),
every fault path with scripted fake engines, and real games: HaChu against HaChu and a random USI
mover against HaChu, every move judged by `kirin judge` and accepted by HaChu.  HaChu is installed by
tuning/setup.sh (the test command runs it); kirin is built with the fast profile if needed."""

import json
import os
import random
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

TUNING = Path(__file__).resolve().parent
sys.path.insert(0, str(TUNING))

import dai_match as D  # noqa: E402

REPO = TUNING.parent
JUDGE = REPO / "target" / "fast" / "kirin"


def setUpModule():
    # Up to date in well under a second when `cargo test --profile fast` ran first (tests/run.sh).
    subprocess.run(["cargo", "build", "--profile", "fast", "--bin", "kirin", "--quiet"], cwd=REPO, check=True)


class Notation(unittest.TestCase):
    def test_squares_against_the_start_position_of_the_rules_document(self):
        # dai.md's setup table (HaChu squares: file letter a-o from Black's left, rank 1-15 from
        # Black's side) against kirin's start SFEN read by the judge.
        j = D.Judge(str(JUDGE))
        try:
            board = D.sfen_board(j.start_sfen)
        finally:
            j.close()
        setup = {"h1": "K", "a1": "L", "o1": "L", "c1": "U", "h2": "E", "e2": "F", "h3": "L!", "g3": "O",
                 "i3": "X", "h4": "Q", "a4": "R", "e6": "P'", "k6": "P'", "b3": "X'", "d3": "A'",
                 "h15": "k", "h13": "l!", "i13": "o", "g13": "x", "a15": "l", "e10": "p'"}
        for hachu, piece in setup.items():
            self.assertEqual(board[D.hachu_to_kirin_square(hachu)], piece, hachu)
        self.assertEqual(len(board), 130)

    def test_square_round_trip_and_errors(self):
        seen = set()
        for f in "abcdefghijklmno":
            for r in range(1, 16):
                k = D.hachu_to_kirin_square(f"{f}{r}")
                self.assertEqual(D.kirin_to_hachu_square(k), f"{f}{r}")
                seen.add(k)
        self.assertEqual(len(seen), 225)
        self.assertEqual(D.hachu_to_kirin_square("a1"), "15o")
        self.assertEqual(D.hachu_to_kirin_square("o15"), "1a")
        for bad in ("p1", "a0", "a16", "h", "", "1a"):
            with self.assertRaises(D.NotationError, msg=bad):
                D.hachu_to_kirin_square(bad)
        for bad in ("16a", "0a", "8p", "a1"):
            with self.assertRaises(D.NotationError, msg=bad):
                D.kirin_to_hachu_square(bad)

    def test_moves(self):
        cases = {"h5h6": "8k8j", "f6k11+": "10j5e+", "h5h6=": "8k8j", "h12i12,i12j13": "8d7d6c",
                 "h5g4,g4h5": "8k9l8k", "@@@@": "pass", "a10a1+": "15f15o+"}
        for hachu, kirin in cases.items():
            self.assertEqual(D.hachu_to_kirin(hachu), kirin, hachu)
        self.assertEqual(D.kirin_to_hachu("8k8j"), "h5h6")
        self.assertEqual(D.kirin_to_hachu("10j5e+"), "f6k11+")
        self.assertEqual(D.kirin_to_hachu("8d7d6c"), "h12i12,i12j13")
        self.assertEqual(D.kirin_to_hachu("pass"), "@@@@")
        # A step and back is a pass through an empty square (HaChu: `@@@@`), else an igui.
        self.assertEqual(D.kirin_to_hachu("8k9l8k", occupied={"8k", "9l"}), "h5g4,g4h5")
        self.assertEqual(D.kirin_to_hachu("8k9l8k", occupied={"8k"}), "@@@@")
        for bad in ("h5", "h5h6h7", "h5h6,h7h8", "h5h6,h6h7+", "h5h6,h6h7,h7h8", "move", "h5-h6"):
            with self.assertRaises(D.NotationError, msg=bad):
                D.hachu_to_kirin(bad)
        for bad in ("8k", "8k8j8i8h", "8k7k6k+", "pas"):
            with self.assertRaises(D.NotationError, msg=bad):
                D.kirin_to_hachu(bad)

    def test_highlight_as_hachu_prints_it(self):
        # HaChu 0.21's answer to `lift g3` (Black's kirin) at the start: e3 and f2.
        line = "highlight 15/15/15/15/15/15/15/15/15/15/15/15/4Y10/5Y9/15"
        self.assertEqual(D.parse_highlight(line), {D.hachu_to_kirin_square("e3"), D.hachu_to_kirin_square("f2")})
        with self.assertRaises(D.NotationError):
            D.parse_highlight("highlight 15/15")


# Scripted engines.  USI: plays from a fixed list of pawn moves by ply, or misbehaves on its first
# `go` as its mode says.  XBoard: the same in HaChu's notation, and it can refuse every move it is
# told, resign or claim a win.
FAKE_USI = r"""
import sys
mode = sys.argv[1]
line = ["8k8j", "8e8f", "7k7j", "7e7f", "9k9j", "9e9f", "6k6j", "6e6f"]
def out(s):
    sys.stdout.write(s + "\n"); sys.stdout.flush()
played = 0
for text in sys.stdin:
    t = text.split()
    if not t:
        continue
    if t[0] == "usi":
        out("id name fake"); out("option name UCI_Variant type combo default shogi var daishogi")
        out("option name DaiDeclinedPawn type combo default keep-chances var keep-chances var last-rank")
        out("usiok")
    elif t[0] == "setoption" and len(sys.argv) > 2:
        open(sys.argv[2], "a").write(text)
    elif t[0] == "isready":
        out("readyok")
    elif t[0] == "position":
        played = len(t) - t.index("moves") - 1 if "moves" in t else 0
    elif t[0] == "go":
        if mode == "good":
            out("bestmove " + line[played])
        elif mode == "illegal":
            out("bestmove 8k8i")
        elif mode == "garbage":
            out("bestmove zz9")
        elif mode == "crash":
            sys.exit(3)
        elif mode == "resign":
            out("bestmove resign")
    elif t[0] == "quit":
        break
"""

FAKE_XBOARD = r"""
import sys
mode = sys.argv[1]
line = ["h5h6", "h11h10", "i5i6", "i11i10", "g5g6", "g11g10", "j5j6", "j11j10"]
def out(s):
    sys.stdout.write(s + "\n"); sys.stdout.flush()
played = 0
clock = []
for text in sys.stdin:
    t = text.split()
    if not t:
        continue
    if t[0] in ("time", "otim", "st", "sd"):
        clock.append(text.strip())
    elif t[0] == "protover":
        out("# debug lines are ignored"); out("feature ping=1 usermove=1 done=1")
    elif t[0] == "ping":
        out("pong " + t[1])
    elif t[0] == "usermove":
        if mode == "refuse":
            out("Illegal move: " + t[1])
        else:
            played += 1
    elif t[0] == "go":
        if mode == "good":
            out("move " + line[played]); played += 1
        elif mode == "illegal":
            out("move h5h7")
        elif mode == "quiet":
            out("move a15a14")
        elif mode == "clock":  # a legal move only with HaChu's clock set to 2 s for this move
            out("move " + (line[played] if clock[-2:] == ["time 200", "otim 200"] and "st 2" in clock
                           else "h5h7"))
            played += 1
        elif mode == "resign":
            out("resign")
        elif mode == "claim":
            out("1-0 {I win}" if played % 2 == 0 else "0-1 {I win}")
        elif mode == "crash":
            sys.exit(3)
    elif t[0] == "quit":
        break
"""


class Faults(unittest.TestCase):
    """The referee against scripted engines: every fault loses for the engine that made it."""

    @classmethod
    def setUpClass(cls):
        cls.judge = D.Judge(str(JUDGE))

    @classmethod
    def tearDownClass(cls):
        cls.judge.close()

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        (self.dir / "usi.py").write_text(FAKE_USI)
        (self.dir / "xboard.py").write_text(FAKE_XBOARD)

    def tearDown(self):
        self.tmp.cleanup()

    # Engines not late by design get a 30 s margin: they answer at once, but on a loaded machine
    # "at once" can exceed 100 ms + 300 ms, and a test must not turn on that.  The hang keeps 300.
    def usi(self, mode):
        margin = 300 if mode == "hang" else 30000
        s = D.parse_engine(f"{sys.executable},name=usi-{mode},margin={margin}", 300)
        s.cmd = s.usi.cmd = [sys.executable, str(self.dir / "usi.py"), mode]
        return s

    def xboard(self, mode):
        s = D.parse_engine(f"hachu,name=xb-{mode},margin=30000", 300)
        s.cmd = [sys.executable, str(self.dir / "xboard.py"), mode]
        return s

    def test_usi_engines_are_set_to_the_declined_pawn_rule_of_the_match(self):
        log = self.dir / "setoption.txt"
        for extra, expected in (("", "last-rank"), (",opt.DaiDeclinedPawn=keep-chances", "keep-chances")):
            s = D.parse_engine(f"{sys.executable},name=usi-options{extra}", 300)
            s.cmd = s.usi.cmd = [sys.executable, str(self.dir / "usi.py"), "good", str(log)]
            log.write_text("")
            e = D.USIEngine(s, 300, self.judge.start_sfen, None, {"DaiDeclinedPawn": "last-rank"})
            e.start()
            e.close()
            lines = [ln for ln in log.read_text().splitlines() if "DaiDeclinedPawn" in ln]
            self.assertEqual(lines, [f"setoption name DaiDeclinedPawn value {expected}"], extra)

    def play(self, black, white, max_plies=300, opening=()):
        return D.play_game(self.judge, {D.BLACK: black, D.WHITE: white}, list(opening), 100, max_plies,
                           self.dir / "game.txt")

    def test_usi_faults_lose(self):
        for mode, reason in (("illegal", "illegal move"), ("garbage", "illegal move"), ("crash", "crash"),
                             ("hang", "time")):
            r = self.play(self.usi(mode), self.xboard("good"))
            self.assertEqual((r["winner"], r["reason"], r["faulty"]), ("white", reason, "black"), mode)
            self.assertEqual(r["disagreements"], [], mode)  # a USI engine's fault is no HaChu matter
        r = self.play(self.usi("resign"), self.xboard("good"))
        self.assertEqual((r["winner"], r["reason"], r["faulty"]), ("white", "resign", None))

    def test_xboard_faults_lose_and_are_disagreements(self):
        r = self.play(self.usi("good"), self.xboard("illegal"))
        self.assertEqual((r["winner"], r["reason"], r["faulty"]), ("black", "illegal move", "white"))
        self.assertEqual([d["kind"] for d in r["disagreements"]], ["HaChu move illegal in kirin"])
        self.assertIn("h5h7", r["detail"])
        r = self.play(self.usi("good"), self.xboard("crash"))
        self.assertEqual((r["winner"], r["reason"], r["faulty"]), ("black", "crash", "white"))
        # Refusing a move kirin's rules allow: the mover loses, reported as a disagreement.
        r = self.play(self.usi("good"), self.xboard("refuse"))
        self.assertEqual((r["winner"], r["reason"], r["faulty"]), ("white", "refused by HaChu", "black"))
        self.assertEqual(r["disagreements"][0]["kind"], "refused by HaChu")
        self.assertIn("8k8j (h5h6)", r["detail"])
        # An opening move refused: no result, reported.
        r = self.play(self.usi("good"), self.xboard("refuse"), opening=["8k8j"])
        self.assertEqual((r["winner"], r["reason"]), ("draw", "opening refused"))

    def test_hachu_gets_its_clock_before_every_move(self):
        clocked = self.xboard("clock")
        clocked.st = 2
        r = self.play(clocked, self.usi("good"), max_plies=6)
        self.assertEqual((r["reason"], r["faulty"]), ("max plies", None), r["detail"])

    def test_resign_and_claims_are_compared_with_the_judge(self):
        r = self.play(self.xboard("resign"), self.usi("good"))
        self.assertEqual((r["winner"], r["reason"], r["faulty"]), ("white", "resign", None))
        self.assertEqual([d["kind"] for d in r["disagreements"]], ["verdict"])  # resigned at the start
        self.assertEqual(r["cross"]["verdicts_compared"], 1)
        r = self.play(self.xboard("claim"), self.usi("good"))
        self.assertEqual((r["winner"], r["reason"], r["faulty"]), ("white", "false claim", "black"))

    def test_a_royal_left_uncaptured_is_a_verdict_disagreement(self):
        moves = KING_LEFT_TO_THE_LION
        e = D.XBoardEngine(self.xboard("quiet"), 100)
        try:
            e.start()
            cross = {"verdicts_compared": 0, "verdicts_agreed": 0}
            found = []
            D.capture_check(self.judge, e, e.spec, moves, cross, lambda *a: found.append(a))
        finally:
            e.close()
        self.assertEqual(cross, {"verdicts_compared": 1, "verdicts_agreed": 0})
        self.assertEqual([f[0] for f in found], ["verdict"])
        self.assertIn("a15a14", found[0][1])

    def test_moves_recorded_in_both_notations_and_cap(self):
        r = self.play(self.usi("good"), self.xboard("good"), max_plies=6)
        self.assertEqual((r["winner"], r["reason"], r["plies"]), ("draw", "max plies", 6))
        self.assertEqual(r["moves"], ["8k8j", "8e8f", "7k7j", "7e7f", "9k9j", "9e9f"])
        self.assertEqual(r["hachu_moves"], ["h5h6", "h11h10", "i5i6", "i11i10", "g5g6", "g11g10"])
        self.assertEqual(r["cross"]["told_hachu"], 3)  # the USI engine's moves; HaChu made its own
        text = (self.dir / "game.txt").read_text()
        self.assertIn("position startpos moves 8k8j 8e8f 7k7j 7e7f 9k9j 9e9f", text)
        self.assertIn("result draw (max plies)", text)


# A USI engine that plays uniformly random legal moves, asking `kirin judge` for them: through the
# referee against the real HaChu, each of its moves (passes, igui and double captures included when
# they come up) is converted to HaChu's notation and must be accepted.
RANDOM_USI = r"""
import random, re, subprocess, sys
judge = subprocess.Popen([sys.argv[1], "judge"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
rng = random.Random(int(sys.argv[2]))
moves = []
def out(s):
    sys.stdout.write(s + "\n"); sys.stdout.flush()
for text in sys.stdin:
    t = text.split()
    if not t:
        continue
    if t[0] == "usi":
        out("id name random"); out("usiok")
    elif t[0] == "isready":
        out("readyok")
    elif t[0] == "position":
        moves = t[t.index("moves") + 1:] if "moves" in t else []
    elif t[0] == "go":
        judge.stdin.write("legal startpos moves " + " ".join(moves) + "\n"); judge.stdin.flush()
        legal = judge.stdout.readline().split()[1:]
        lion = [m for m in legal if len(re.findall(r"[0-9]+[a-o]", m)) == 3]  # igui, double moves, pass
        out("bestmove " + rng.choice(lion if lion and rng.random() < 0.5 else legal))
    elif t[0] == "quit":
        break
"""


# A HaChu game (depth 3, from the cross-check) up to Black's king stepping from 8o to 8n next to
# White's lion on 7m: whatever Black played, the lion could take the king (the judge said `mated`,
# HaChu at depth 3 played on; at depth 5 it resigns).  Now White can take it: `en-prise`.
KING_LEFT_TO_THE_LION = """
4o4n 14c14b 14l15m 8c6b 1l1m 10c11c 6l5m 15d15c 9k9j 8b8c 7k7j 8a8b 9n10n 9e9f 8o9n 7e7f 12k12j
12e12f 4k4j 4e4f 8l3g 14a13c 10l9k 8d13i 12j12i 6d7e 15m14l 4f4g 3n4o 11b10c 15k15j 12a11b 1k1j
11a10b 11n11m 13b12a 11m10l 15e15f 12o11n 1e1f 12m11m 5b5c 13o12n 5c6d 13n12o 4a5b 14o13m 4c5c
5o6n 3b4c 5m7k 5a4b 14l15k 13i10f 5n5m 7e4h 7k4h 4g4h 5m6l 10f9g 3g9g 9f9g 6l7k 10e10f 15k13i
6d7e 6m6l 6c6d 6n5m 4d4g 4o5n 5d2g 6o6n 5b6c 6n6m 4c5d 5l2i 11d6i 5m5l 10c11d 7k6j 6i5h 6j5i
5h6i 5l4k 6b8d 6m5l 8d6f 4n5m 6f4d 5n6m 4d6f 8m7k 6f6g 9n8m 11d10e 10o9n 13c12e 2o3m 6g8h 3k3j
8h8g 2l3k 8g6g 1j1i 10e9f 1m1j 4b3c 12l12j 6g7h 2i4g 10d5i 6k6j 6i4g 5j5i 2g7l+ 7m7l 4g1j 1n1j
3c4d 5l6k 4d4e 5m5l 10b10c 7l5j 7h8h 5j3h 8h8g 3h3g 8g10i 3g4g 2a3c 9k12h 10i11j10i 10l9k
10i9j10i 12h10f 10c11d 9k8j 4e4f 11l12k 10i11i 9l9i 11i10k 8m7l 4f4g 12k10i 10k11k 12j12k 11k11i
10i14e+ 11i12i13h 9i8i 13h13i13h 14e9j 11f11g 12k12f 13h12f 8i10i 11d10e 10f9f 10e9f 8j9i 11b10c
9n8m 9d10e 10i10e+ 12f10e 8m8l 12a11b 9j5f 5e5f 8l9k 12e13g 9k9j 13g14i 14k14j 14i15k 15l15k
12d12g 13k13j 8b8a 15k10k 10e8f 4m5m 9a8b 9j8i 8f6h 10k10c+ 11b10c 13l13k 12g12l+ 13k12k 12l14j
8n8m 14j14m 9i10h 6h5i5h 10h11g 14m12o 3o4n 3c4e 10m9l 14b12b 11n10m 10a10b 8i8h 5h6h 8h9g 9f9g
7k7i 6h7i8i 9m8l 8i7j8i 10n9m 8i10g 8k8j 10g11g10h 6k7j 10h9i 7j6i 9i8j9i 6l6k 9i7i 6i5j 7i6j7i
11m11l 2c4c 9o8n 6a6b 8l7k 7i9j 7l7m 9j9i 5j6i 13e13f 7k9k 9i7i 6i5j 14d13e 9k10j 15c14c 12k14k
14c14i 6m7l 13e11g 8m8l 11g12h 8l9k 12h11i 7m6n 11e11f 6n6o 13d13e 10j11i 14i11i 9k10j 11i12i
14k12k 7d10d 10j9j 7i9j 12k11k 9j7l 6k6j 7l6j 5j4i 6j5i 4i4h 4g4h 11o11n 5i4j4i 4k4j 4i3j2i 2k2j
2i2j2i 4l4k 2i1j2i 2m2k 2i4g 11n11m 4g6i 3k2j 4h4g 11m12l 12o12n 4j3i 12n8j 11k8k 8j6l 5m6m 6l6j
5l6k 6j7i 4n5m 3e3f 4k4g 6i4g 12l12k 4g2i 12k12j 12i12j 6k7j 12j7j 2j3k 2i3i3j 2k2l 3j4i 8k9k
7j13j 13m12k 13j13l+ 12k11i 2d4f 11i12g 13e12e 12g11e+ 12e11e 2l2j 3d3e 3m4k 4i4k 3l3m 4k3k2j
11l12l 13l12l 5k5j 7i3m 1o1m 2j4i 5m6l 3m3l 6o6n 3l5j 8n7m 5j5i 1m1l 5i9m 10m10l 9m5i 6n6o 4i2j
7m8l 2e2f 1i1h 8e8f 9k9j 2j1l 9j9k 1f1g 1h1g 1l3l 7o6n 3l4n 6o7o 4n5o 7o8o 5o6n5n 6m6n 5n6n7m
8o8n
""".split()


class RealHaChu(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.judge = D.Judge(str(JUDGE))

    @classmethod
    def tearDownClass(cls):
        cls.judge.close()

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def replay_ok(self, res):
        """Every recorded move legal for the judge, and each HaChu text the same move."""
        a = self.judge.check(res["moves"])
        self.assertEqual(a[0], "ok", a)
        converted = [D.hachu_to_kirin(h) for h in res["hachu_moves"]]
        self.assertEqual(self.judge.canonical(converted), res["moves"])

    def test_hachu_against_itself_with_lift_and_lion_probes(self):
        opening = D.random_opening(self.judge, random.Random(3), 6)
        spec = D.parse_engine("hachu,depth=2", 1000)
        r = D.play_game(self.judge, {D.BLACK: spec, D.WHITE: spec}, opening, 1000, 60, self.dir / "g.txt",
                        lift=2, seed=5)
        self.assertEqual(r["disagreements"], [])
        self.assertEqual((r["reason"], r["plies"], r["faulty"]), ("max plies", 60, None))
        c = r["cross"]
        self.assertEqual(c["judged"], 54)
        self.assertEqual(c["told_hachu"], 54 + 2 * 6)  # each engine move to the other, the opening to both
        self.assertEqual(c["lift_compared"], 2 * 54)
        self.assertEqual(c["lift_agreed"], c["lift_compared"])
        self.assertGreater(c["probes"], 0)  # the lions' pass at least
        self.replay_ok(r)

    def test_an_interrupted_match_resumes_where_it_stopped(self):
        out = str(self.dir / "m")
        common = ["--engine", "hachu,depth=1", "--opponent", "hachu,depth=1,name=h2", "--max-plies", "12",
                  "--random-plies", "2", "--seed", "4", "--out", out, "--quiet", "--judge", str(JUDGE)]
        D.main(common + ["--games", "1"])
        first = (self.dir / "m" / "results.jsonl").read_text().splitlines()
        self.assertEqual(len(first), 1)
        D.main(common + ["--games", "3", "--resume"])
        rows = [json.loads(l) for l in (self.dir / "m" / "results.jsonl").read_text().splitlines()]
        self.assertEqual([r["game"] for r in rows], [1, 2, 3])
        self.assertEqual(json.dumps(rows[0]), json.dumps(json.loads(first[0])), "game 1 was not played again")
        self.assertEqual([r["a_colour"] for r in rows], ["black", "white", "black"])
        summary = json.loads((self.dir / "m" / "summary.json").read_text())
        self.assertEqual(summary["W"] + summary["D"] + summary["L"], 3)
        # Another match in the folder, or a finished one, is refused with one line.
        with self.assertRaises(SystemExit) as e:
            D.main(common + ["--games", "5", "--resume", "--movetime", "500"])
        self.assertIn("movetime differs", str(e.exception))
        with self.assertRaises(SystemExit) as e:
            D.main(common + ["--games", "3", "--resume"])
        self.assertIn("already has 3 of 3 games", str(e.exception))

    def test_a_match_can_start_at_a_later_game_and_resume_there(self):
        common = ["--engine", "hachu,depth=1", "--opponent", "hachu,depth=1,name=h2", "--max-plies", "12",
                  "--random-plies", "2", "--seed", "4", "--quiet", "--judge", str(JUDGE)]
        whole = str(self.dir / "whole")
        D.main(common + ["--games", "4", "--out", whole])
        later = str(self.dir / "later")
        D.main(common + ["--games", "3", "--first-game", "3", "--out", later])
        D.main(common + ["--games", "4", "--first-game", "3", "--out", later, "--resume"])
        rows = [json.loads(l) for l in (self.dir / "later" / "results.jsonl").read_text().splitlines()]
        ref = [json.loads(l) for l in (self.dir / "whole" / "results.jsonl").read_text().splitlines()]
        self.assertEqual([r["game"] for r in rows], [3, 4])
        # Games 3 and 4 are the whole match's games 3 and 4: the same opening pair and colours.
        self.assertEqual([(r["pair"], r["a_colour"]) for r in rows], [(r["pair"], r["a_colour"]) for r in ref[2:]])
        self.assertEqual([r["moves"][:2] for r in rows], [r["moves"][:2] for r in ref[2:]])
        with self.assertRaises(SystemExit) as e:
            D.main(common + ["--games", "4", "--out", later, "--resume"])
        self.assertIn("first_game differs", str(e.exception))
        with self.assertRaises(SystemExit):
            D.main(common + ["--games", "2", "--first-game", "3"])

    def test_a_match_from_given_positions_plays_each_once_on_the_named_colour(self):
        positions = self.dir / "won.txt"
        positions.write_text("# two starts\nblack 1l1m 5a4b\n\nwhite 1l1m 5a4b 6l5m\n")
        out = self.dir / "p"
        common = ["--engine", "hachu,depth=1", "--opponent", "hachu,depth=1,name=h2", "--max-plies", "10",
                  "--positions", str(positions), "--quiet", "--judge", str(JUDGE)]
        D.main(common + ["--out", str(out)])
        rows = [json.loads(l) for l in (out / "results.jsonl").read_text().splitlines()]
        self.assertEqual([(r["game"], r["a_colour"]) for r in rows], [(1, "black"), (2, "white")])
        self.assertEqual(rows[0]["moves"][:2], ["1l1m", "5a4b"])
        self.assertEqual(rows[1]["moves"][:3], ["1l1m", "5a4b", "6l5m"])
        self.assertEqual([r["opening_plies"] for r in rows], [2, 3])
        for r in rows:
            self.assertEqual(r["plies"], 10)  # the cap counts the given moves too
            self.replay_ok(r)
            # 65 pieces a side at the start (the king included); ten plies take at most a few.
            self.assertTrue(all(55 <= r["final_pieces"][c] <= 65 for c in ("black", "white")), r["final_pieces"])
        # --games takes the first lines only; a finished match is not played again.
        D.main(common + ["--out", str(self.dir / "one"), "--games", "1"])
        self.assertEqual(len((self.dir / "one" / "results.jsonl").read_text().splitlines()), 1)
        with self.assertRaises(SystemExit) as e:
            D.main(common + ["--out", str(out), "--resume"])
        self.assertIn("already has 2 of 2 games", str(e.exception))
        # A bad line stops the match before any game, naming the line.
        for text, said in (("red 1l1m\n", ":1: the line must begin"), ("black 1l1m 1l1m\n", ":1: not a game"),
                           ("black 1l1m\nwhite 1a1b\n", ":2: not a game")):
            positions.write_text(text)
            with self.assertRaises(SystemExit) as e:
                D.main(common + ["--out", str(self.dir / "bad")])
            self.assertIn(said, str(e.exception))
        self.assertFalse((self.dir / "bad" / "results.jsonl").exists())

    def test_pieces_at_the_cap_are_counted_for_each_engine_whatever_its_colour(self):
        rows = [{"reason": "max plies", "a_colour": "black", "final_pieces": {"black": 30, "white": 10}},
                {"reason": "max plies", "a_colour": "white", "final_pieces": {"black": 14, "white": 20}},
                {"reason": "resign", "a_colour": "black", "final_pieces": {"black": 50, "white": 1}},
                {"reason": "max plies", "a_colour": "black"}]  # a record from before the count
        self.assertEqual(D.pieces_at_cap(rows), {"games": 2, "A": 25.0, "B": 12.0})
        self.assertEqual(D.pieces_at_cap(rows[2:]), {"games": 0})

    def test_a_match_played_in_parts_is_summarized_as_one(self):
        common = ["--engine", "hachu,depth=1", "--opponent", "hachu,depth=1,name=h2", "--max-plies", "12",
                  "--random-plies", "2", "--quiet", "--judge", str(JUDGE)]
        first, later, other = (str(self.dir / n) for n in ("first", "later", "other"))
        D.main(common + ["--seed", "4", "--games", "2", "--out", first])
        D.main(common + ["--seed", "4", "--games", "4", "--first-game", "3", "--out", later])
        D.main(common + ["--seed", "5", "--games", "4", "--first-game", "3", "--out", other])
        rows = [json.loads(line) for d in (first, later)
                for line in (Path(d) / "results.jsonl").read_text().splitlines()]
        with open(os.devnull, "w") as quiet:
            s = D.summarize([later, first], file=quiet)
            self.assertEqual(s["game_numbers"], [1, 2, 3, 4])
            self.assertEqual((s["W"] + s["D"] + s["L"], sum(s["pentanomial"])), (4, 2))
            self.assertEqual(s["plies"], sum(r["plies"] for r in rows))
            self.assertEqual(s["cross"]["judged"], sum(r["cross"]["judged"] for r in rows))
            with self.assertRaises(SystemExit) as e:
                D.summarize([first, first], file=quiet)
            self.assertIn("game 1 is in both", str(e.exception))
            with self.assertRaises(SystemExit) as e:
                D.summarize([first, other], file=quiet)
            self.assertIn("seed differs", str(e.exception))
        self.assertEqual(D.compact_ranges([9, 1, 2, 3, 7, 10]), "1-3, 7, 9-10")

    def test_hachu_takes_the_king_the_judge_says_is_en_prise(self):
        moves = KING_LEFT_TO_THE_LION
        self.assertEqual(self.judge.check(moves[:-1]), ["ok", "mated"])
        self.assertEqual(self.judge.check(moves), ["ok", "en-prise"])
        e = D.XBoardEngine(D.parse_engine("hachu,depth=3", 1000), 1000)
        try:
            e.start()
            for i, m in enumerate(moves):
                self.assertIsNone(e.tell(D.kirin_to_hachu(m, D.sfen_board(self.judge.sfen(moves[:i])))), m)
            cross = {"verdicts_compared": 0, "verdicts_agreed": 0}
            found = []
            detail = D.capture_check(self.judge, e, e.spec, moves, cross, lambda *a: found.append(a))
        finally:
            e.close()
        self.assertEqual((cross, found), ({"verdicts_compared": 1, "verdicts_agreed": 1}, []), detail)
        self.assertIn("takes with i3", detail)  # the lion on 7m is HaChu's i3

    def test_hachu_refuses_the_promotions_the_declined_pawn_rule_refuses(self):
        """Hand-made positions where a pawn has declined a promotion: HaChu takes exactly the
        promotions the judge lists under `--declined-pawn last-rank`, and refuses the ones only
        dai.md's rule (the default) allows.  Every probe starts from a fresh `setboard`, since
        HaChu forgets its declined pawns on `undo`."""
        kings = {"8o": "K", "8a": "k"}
        cases = [
            # A pawn entering the zone declining, then capturing in it; a gold that declined and
            # a pawn set up in the zone keep their chances.
            ({"11f": "P", "11d": "p", "11c": "p", "10f": "G", "10d": "p", "13e": "P", "13d": "p"},
             ["11f11e", "8a8b", "10f10e", "8b7b"]),
            # Declining on a capture in the zone.
            ({"12e": "P", "12d": "p", "12c": "p"}, ["12e12d", "8a8b"]),
            # A declined pawn two ranks from the end: no chance on rank b, a forced one on rank a.
            ({"14f": "P", "14b": "g", "14a": "g"}, ["14f14e", "8a8b", "14e14d", "8b7b", "14d14c", "7b7a"]),
            ({"14f": "P", "14b": "g", "14a": "g"},
             ["14f14e", "8a8b", "14e14d", "8b7b", "14d14c", "7b7a", "14c14b", "7a6a"]),
            # White's pawn declines entering White's zone.
            ({"5j": "p", "5l": "P", "5m": "P", "2k": "P"}, ["2k2j", "5j5k", "2j2i"]),
        ]
        last_rank = D.Judge(str(JUDGE), declined_pawn="last-rank")
        e = D.XBoardEngine(D.parse_engine("hachu,depth=1", 1000), 1000)
        differing = set()
        try:
            e.start()
            for pieces, moves in cases:
                board = {**kings, **pieces}
                rows = ["".join(board.get(f"{f}{r}", "1") for f in range(15, 0, -1)) for r in "abcdefghijklmno"]
                sfen = "/".join(re.sub("1+", lambda run: str(len(run.group())), row) for row in rows) + " b - 1"
                pos = f"sfen {sfen}" + (" moves " + " ".join(moves) if moves else "")
                lr = set(last_rank.ask(f"legal {pos}").split()[1:])
                kc = set(self.judge.ask(f"legal {pos}").split()[1:])
                self.assertEqual({m for m in lr if not m.endswith("+")}, {m for m in kc if not m.endswith("+")})
                self.assertLessEqual(lr, kc)
                differing |= kc - lr
                for m in sorted(kc):
                    if not m.endswith("+") and m + "+" not in kc:
                        continue  # no promotion either way: nothing to ask
                    e.setboard(sfen)
                    for i, played in enumerate(moves):
                        self.assertIsNone(e.tell(D.kirin_to_hachu(played)), f"{sfen} {moves[:i + 1]}")
                    taken = e.tell(D.kirin_to_hachu(m)) is None
                    self.assertEqual(taken, m in lr or not m.endswith("+"), f"{m} after {pos}")
        finally:
            e.close()
            last_rank.close()
        self.assertEqual(differing, {"11e11d+", "12d12c+", "14c14b+", "5k5l+"})

    def test_the_referee_plays_hachus_declined_pawn_rule_against_hachu(self):
        hachu, usi = D.parse_engine("hachu", 1000), D.parse_engine("kirin", 1000)
        self.assertEqual(D.declined_pawn_rule("auto", (usi, hachu)), "last-rank")
        self.assertEqual(D.declined_pawn_rule("auto", (usi, usi)), "keep-chances")
        self.assertEqual(D.declined_pawn_rule("keep-chances", (usi, hachu)), "keep-chances")

    def test_random_usi_mover_against_hachu(self):
        (self.dir / "random_mover.py").write_text(RANDOM_USI)
        mover = D.parse_engine(f"{sys.executable},name=random", 1000)
        mover.cmd = mover.usi.cmd = [sys.executable, str(self.dir / "random_mover.py"), str(JUDGE), "11"]
        hachu = D.parse_engine("hachu,depth=1", 1000)
        for black, white in ((mover, hachu), (hachu, mover)):
            r = D.play_game(self.judge, {D.BLACK: black, D.WHITE: white}, [], 1000, 80, self.dir / "g.txt")
            self.assertIsNone(r["faulty"], r["detail"])
            self.assertEqual(r["disagreements"], [])
            self.assertIn(r["reason"], ("max plies", "royal en prise", "royals-captured", "resign"))
            self.replay_ok(r)


if __name__ == "__main__":
    unittest.main()
