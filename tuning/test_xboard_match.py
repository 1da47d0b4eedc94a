"""Dai shogi in the real XBoard (Debian's 4.9.1 under Xvfb, installed by tuning/setup.sh): the
description checks of tests/oracle/xboard_check.py, the checks tuning/xboard_match.py makes of an
XBoard-refereed game (XBoard's relay of every move, the other engine's refusals, `kirin judge`) on
debug logs in XBoard's own format, and whole games refereed by XBoard with kirin as the first
engine, against HaChu and against itself. The games run at a depth limit of 2, so that a whole
game (up to the 600-ply cap) takes about a minute; they test the protocol and the rules, not
strength."""

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

TUNING = Path(__file__).resolve().parent
sys.path.insert(0, str(TUNING))

import xboard_match as X  # noqa: E402

REPO = TUNING.parent
KIRIN = REPO / "target" / "fast" / "kirin"

LOG = """\
100 >first : go
200 <first : 3 12 5 1000 h5h6 h11h10
210 <first : move h5h6
211 >second: usermove 211 >second: h5h6
300 <second: move g11g10
301 >first : usermove 301 >first : g11g10
400 <first : move l11m12,
401 <first : move m12l11
402 >second: usermove 402 >second: l11m12,m12l11
500 <second: move a2a12+
501 >first : usermove 501 >first : a2a12
550 <first : move @@@@
551 >second: usermove @@@@
600 <first : Illegal move (illegal dai move in this position): c3c4
700 >first : result 0-1 {White wins on time}
701 >second: result 0-1 {White wins on time}
"""


def setUpModule():
    # Up to date in well under a second when `cargo test --profile fast` ran first (tests/run.sh).
    subprocess.run(["cargo", "build", "--profile", "fast", "--bin", "kirin", "--quiet"], cwd=REPO, check=True)


class ReadingTheLog(unittest.TestCase):
    def test_moves_relays_refusals_and_the_result(self):
        log = X.read_log(LOG)
        self.assertEqual(log["sent"], [("first", "h5h6"), ("second", "g11g10"),
                                       ("first", "l11m12,m12l11"), ("second", "a2a12+"),
                                       ("first", "@@@@")])
        self.assertEqual([m for _, m in log["relayed"]],
                         ["h5h6", "g11g10", "l11m12,m12l11", "a2a12", "@@@@"])
        self.assertEqual(log["refused"][0][0], "first")
        self.assertEqual(log["result"], ("0-1", "White wins on time"))

    def test_a_dropped_promotion_a_refusal_and_a_time_loss_are_faults(self):
        r = X.verdict(X.read_log(LOG), kirin_black=True, judge=lambda moves: "ok ongoing")
        kinds = [f.split(":")[0] for f in r["faults"]]
        self.assertIn("relay", kinds)
        self.assertIn("refused", kinds)
        self.assertIn("ended", kinds)
        self.assertTrue(any("a2a12+" in f and "relayed a2a12" in f for f in r["faults"]))
        # 0-1: the side that moved second won; kirin moved first.
        self.assertEqual(r["score"], 0.0)

    def test_a_clean_win_agrees_with_the_judge(self):
        text = "10 <first : move h5h6\n11 >second: usermove 11 >second: h5h6\n" \
               "20 >first : result 1-0 {royals captured}\n"
        seen = []
        r = X.verdict(X.read_log(text), kirin_black=False,
                      judge=lambda moves: seen.append(moves) or "ok won black royals-captured")
        self.assertEqual(seen, [["8k8j"]])  # h5h6 in kirin's notation
        self.assertEqual(r["faults"], [])
        self.assertEqual(r["score"], 0.0)  # kirin moved second and the first mover won
        r = X.verdict(X.read_log(text), kirin_black=False, judge=lambda moves: "ok ongoing")
        self.assertTrue(any("judge says" in f for f in r["faults"]))

    def test_an_illegal_move_by_the_judge_is_a_fault(self):
        text = "10 <first : move h5h9\n20 >first : result 1-0 {royals captured}\n"
        r = X.verdict(X.read_log(text), kirin_black=True,
                      judge=lambda moves: "illegal 1 8k8g no such move")
        self.assertTrue(any(f.startswith("judge: illegal") for f in r["faults"]))


class RealXBoard(unittest.TestCase):
    def test_the_description_checks_pass(self):
        out = subprocess.run([sys.executable, str(REPO / "tests" / "oracle" / "xboard_check.py")],
                             cwd=REPO, capture_output=True, text=True, timeout=900)
        self.assertEqual(out.returncode, 0, out.stdout[-3000:] + out.stderr[-2000:])
        self.assertNotIn("FAIL", out.stdout)

    def whole_game(self, opponent: str):
        with tempfile.TemporaryDirectory(prefix=f"xboard-{opponent}-") as tmp:
            code = X.main(["--kirin", str(KIRIN), "--opponent", opponent, "--games", "1",
                           "--depth", "2", "--out", tmp])
            r = json.loads((Path(tmp) / "game-001" / "result.json").read_text())
        self.assertEqual(r["faults"], [], r)
        self.assertEqual(code, 0)
        self.assertIn(r["result"], ("1-0", "0-1", "1/2-1/2"))
        self.assertGreater(r["plies"], 20)

    def test_a_whole_game_against_hachu(self):
        self.whole_game("hachu")

    def test_a_whole_game_against_itself(self):
        # kirin's passes go to XBoard as @@@@: as two legs, gote's were relayed garbled.
        self.whole_game("kirin")


if __name__ == "__main__":
    unittest.main()
