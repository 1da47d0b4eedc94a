"""Tests of the parallel self-play driver (tuning/gen_parallel.py).
Run: .venv/bin/python -m pytest -q tuning/test_gen_parallel.py

Covered: several processes over disjoint game ranges, in two runs, write exactly what single
`kirin-tune gen` calls over the same games write, in process order and run after run, in text and
in chained sbinpack alike; a timed run
prints counts that regenerate the same file; `gen` adds to a file that holds games only with
`--append true`; bad runs and clashing options are refused.
"""

import contextlib
import io
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gen_parallel as G  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
TUNE = REPO / "target" / "fast" / "kirin-tune"
OPENINGS = "\n".join([
    "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    "sfen lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3",
    "sfen lnsgkgsnl/1r5b1/ppppppp1p/7p1/9/7P1/PPPPPPP1P/1B5R1/LNSGKGSNL b - 3",
]) + "\n"
# Cheap games: a few hundred nodes a move.
GEN = ["--seed", "7", "--nodes-min", "200", "--nodes-max", "300", "--eval", "linear"]


def setUpModule():
    # Up to date in well under a second when `cargo test --profile fast` ran first (tests/run.sh).
    subprocess.run(["cargo", "build", "--profile", "fast", "--bin", "kirin-tune", "--quiet"], cwd=REPO, check=True)


class GenParallel(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        self.openings = self.dir / "openings.sfen"
        self.openings.write_text(OPENINGS)
        self.gen = ["--openings", str(self.openings), *GEN]

    def tearDown(self):
        self.tmp.cleanup()

    def single(self, out: Path, first: int, games: int):
        append = ["--append", "true"] if out.exists() else []
        subprocess.run([str(TUNE), "gen", *self.gen, "--out", str(out), "--first", str(first), "--games", str(games),
                        *append], check=True, stderr=subprocess.DEVNULL)

    def parallel(self, out: Path, *runs: str) -> int:
        argv = ["--tune", str(TUNE), "--out", str(out), "--stride", "10"]
        for r in runs:
            argv += ["--run", r]
        return G.main(argv + ["--", *self.gen])

    def test_processes_write_what_single_calls_write(self):
        out = self.dir / "p.tsv"
        self.assertEqual(self.parallel(out, "0:2,1", "5:1,2"), 0)
        # Process 0: games 0-1, then 5; process 1: game 10, then 15-16.
        expected = self.dir / "e.tsv"
        for first, games in [(0, 2), (5, 1), (10, 1), (15, 2)]:
            self.single(expected, first, games)
        got = out.read_text()
        self.assertTrue(got)
        self.assertEqual(got, expected.read_text())
        # Six games' positions, each line `sfen<TAB>score<TAB>result`.
        self.assertTrue(all(len(line.split("\t")) == 3 for line in got.splitlines()))

    def test_sbinpack_parts_stay_sbinpack(self):
        out = self.dir / "p.sbinpack"
        self.assertEqual(self.parallel(out, "0:1,2"), 0)
        expected = self.dir / "e.sbinpack"
        for first, games in [(0, 1), (10, 2)]:
            self.single(expected, first, games)
        got = out.read_bytes()
        self.assertTrue(got.startswith(b"SBN2"), "chained sbinpack, not text")
        self.assertEqual(got, expected.read_bytes())

    def test_a_timed_run_prints_the_counts_that_regenerate_it(self):
        out = self.dir / "t.tsv"
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            self.assertEqual(self.parallel(out, "3:0.002:2"), 0)
        runs = printed.getvalue().split("to regenerate it: ")[1].split()
        self.assertEqual(runs[0], "--run")
        first, counts, timed = G.parse_run(runs[1])
        self.assertEqual((first, len(counts), timed), (3, 2, None))
        again = self.dir / "again.tsv"
        self.assertEqual(self.parallel(again, runs[1]), 0)
        self.assertEqual(again.read_text(), out.read_text())

    def test_gen_adds_to_a_file_with_games_only_when_asked(self):
        out = self.dir / "a.tsv"
        self.single(out, 0, 1)
        before = out.read_text()
        again = subprocess.run([str(TUNE), "gen", *self.gen, "--out", str(out), "--first", "0", "--games", "1"],
                               capture_output=True, text=True)
        self.assertNotEqual(again.returncode, 0)
        self.assertIn("--append true", again.stderr)
        self.assertEqual(out.read_text(), before, "a refused run writes nothing")
        self.single(out, 1, 1)
        self.assertTrue(out.read_text().startswith(before) and len(out.read_text()) > len(before))

    def test_bad_runs_and_options_are_refused(self):
        for bad in ["x", "1:", "1:2:0", "1:-1", "-1:2"]:
            with self.assertRaises(Exception):
                G.parse_run(bad)
        with self.assertRaises(SystemExit):
            self.parallel(self.dir / "o.tsv", "0:11")  # more games than the stride
        with self.assertRaises(SystemExit):
            G.main(["--tune", str(TUNE), "--out", str(self.dir / "o.tsv"), "--run", "0:1", "--", "--first", "3"])
        self.assertFalse((self.dir / "o.tsv").exists())


if __name__ == "__main__":
    unittest.main()
