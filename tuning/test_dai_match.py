"""Tests of the dai shogi referee (tuning/dai_match.py): the notation conversion between HaChu and
kirin (checked against the start position of ../shared/docs/dai.md and against HaChu's own output),
every fault path with scripted fake engines, and real games: HaChu against HaChu and a random USI
mover against HaChu, every move judged by `kirin judge` and accepted by HaChu.  HaChu is installed by
tuning/setup.sh (the test command runs it); kirin is built with the fast profile if needed."""

import random
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
        out("id name fake"); out("option name UCI_Variant type combo default shogi var daishogi"); out("usiok")
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
for text in sys.stdin:
    t = text.split()
    if not t:
        continue
    if t[0] == "protover":
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

    def usi(self, mode):
        s = D.parse_engine(f"{sys.executable},name=usi-{mode},margin=300", 300)
        s.cmd = s.usi.cmd = [sys.executable, str(self.dir / "usi.py"), mode]
        return s

    def xboard(self, mode):
        s = D.parse_engine(f"hachu,name=xb-{mode},margin=300", 300)
        s.cmd = [sys.executable, str(self.dir / "xboard.py"), mode]
        return s

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

    def test_resign_and_claims_are_compared_with_the_judge(self):
        r = self.play(self.xboard("resign"), self.usi("good"))
        self.assertEqual((r["winner"], r["reason"], r["faulty"]), ("white", "resign", None))
        self.assertEqual([d["kind"] for d in r["disagreements"]], ["verdict"])  # resigned at the start
        self.assertEqual(r["cross"]["verdicts_compared"], 1)
        r = self.play(self.xboard("claim"), self.usi("good"))
        self.assertEqual((r["winner"], r["reason"], r["faulty"]), ("white", "false claim", "black"))

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
