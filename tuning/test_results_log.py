"""Tests of the results log that tuning/match.py appends to (`--change`, `--log`).
Run: .venv/bin/python -m pytest -q tuning/test_results_log.py

Matches between the scripted fake engines of test_match.py (one that plays its first legal move,
one that resigns at once) on two openings: a finished match appends one row with its W/D/L, a
second match a second row under the same header, `--summarize` logs the games recorded so far,
and a match without `--change` or `--log` leaves the log alone.
"""

import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import match as M  # noqa: E402
from test_match import FAKE  # noqa: E402

OPENINGS = "startpos moves 7g7f 3c3d\nstartpos moves 2g2f 8c8d\n"


def read_log(path):
    lines = path.read_text().splitlines()
    header = lines[0].split("\t")
    return header, [dict(zip(header, line.split("\t"))) for line in lines[1:]]


class ResultsLogTests(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        self.openings = self.dir / "openings.sfen"
        self.openings.write_text(OPENINGS)
        self.log = self.dir / "results.tsv"

    def tearDown(self):
        self.tmp.cleanup()

    def match(self, a, b, out, *extra):
        fake = f"{sys.executable} {FAKE}"
        return M.main(["--engine", f"fake,name=A,cmd={fake} {a}", "--opponent", f"fake,name=B,cmd={fake} {b}",
                       "--byoyomi", "1000", "--concurrency", "2", "--openings", str(self.openings),
                       "--out", str(self.dir / out), "--quiet", *extra])

    def test_a_finished_match_appends_its_row(self):
        # A plays, B resigns at its first move: every game a win for A.
        s = self.match("first", "resign", "wins", "--games", "4", "--log", str(self.log),
                       "--change", "first move\tagainst resign")
        self.assertEqual((s["W"], s["D"], s["L"]), (4, 0, 0))
        header, rows = read_log(self.log)
        self.assertEqual(tuple(header), M.LOG_COLUMNS)
        self.assertEqual(len(rows), 1)
        row = rows[0]
        self.assertEqual(row["change"], "first move against resign")  # a tab in the text is no new cell
        self.assertEqual((row["engines"], row["tc"], row["test"]), ("A vs B", "byoyomi 1000", "fixed"))
        self.assertEqual((row["games"], row["W/D/L"], row["pentanomial"]), ("4", "4/0/0", "[0, 0, 0, 0, 2]"))
        self.assertEqual((row["LLR"], row["verdict"]), ("", ""))
        self.assertRegex(row["date"], r"^\d{4}-\d\d-\d\d$")
        self.assertTrue(row["commit"])
        self.assertIn("records", row["notes"])

        # A second match goes below it, under the same header: A resigns (losses), then both
        # play on to the ply limit (draws), this one an SPRT too short to decide.
        self.match("resign", "first", "losses", "--games", "2", "--log", str(self.log), "--change", "resigns")
        self.match("first", "first", "draws", "--games", "4", "--max-plies", "6", "--log", str(self.log),
                   "--change", "draws", "--sprt", "elo0=0", "elo1=5")
        header, rows = read_log(self.log)
        self.assertEqual(self.log.read_text().count("\tchange\t"), 1)
        self.assertEqual([(r["change"], r["W/D/L"]) for r in rows],
                         [("first move against resign", "4/0/0"), ("resigns", "0/0/2"), ("draws", "0/4/0")])
        self.assertEqual((rows[2]["test"], rows[2]["verdict"]), ("SPRT [0, 5]", "undecided"))
        self.assertLess(abs(float(rows[2]["LLR"])), 1.0)  # all draws: near zero

        # --summarize logs the games recorded in a folder (a match stopped by hand), here again
        # the first match's.
        M.main(["--summarize", str(self.dir / "wins"), "--log", str(self.log), "--change", "again"])
        _, rows = read_log(self.log)
        self.assertEqual((rows[-1]["change"], rows[-1]["W/D/L"], rows[-1]["games"]), ("again", "4/0/0", "4"))

    def test_records_are_shown_under_kirin_data_or_the_repository(self):
        import os
        from unittest import mock
        with mock.patch.dict(os.environ, {"HOME": str(self.dir)}):
            os.environ.pop("KIRIN_DATA", None)
            # Unset, $KIRIN_DATA is ~/kirin-data: no machine's home in the log either way.
            self.assertEqual(M.shown_path(self.dir / "kirin-data" / "sprt" / "x"), "$KIRIN_DATA/sprt/x")
            os.environ["KIRIN_DATA"] = str(self.dir / "data")
            self.assertEqual(M.shown_path(self.dir / "data" / "sprt" / "x"), "$KIRIN_DATA/sprt/x")
            self.assertEqual(M.shown_path(M.REPO / "tuning" / "out" / "m"), "tuning/out/m")
            self.assertEqual(M.shown_path("/elsewhere/m"), "/elsewhere/m")

    def test_no_row_without_change_or_log(self):
        before = M.RESULTS_LOG.read_bytes() if M.RESULTS_LOG.exists() else None
        self.match("first", "resign", "quiet", "--games", "2")
        self.assertEqual(M.RESULTS_LOG.read_bytes() if M.RESULTS_LOG.exists() else None, before)


if __name__ == "__main__":
    unittest.main()
