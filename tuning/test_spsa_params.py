"""Tests of tuning/arena/spsa_params.py, the bridge between kirin's tune build and ShogiArena's SPSA.
Run: .venv/bin/python -m pytest -q tuning/test_spsa_params.py

Covered: the Tune_ spin options read from a `usi` answer (lines as the tune build writes them,
among other options) and bad ones refused; a subset chosen by name; the space file written from an
engine's answer, and the checked-in `spsa-space.yaml` being exactly that file for its nine
parameters of src/search/params.rs; a run's theta turned into params.rs rows, setoption lines and
a match.py spec (rounded half up, kept in range, defaults marked), and a theta the engine does
not know refused; an engine without Tune_ options refused with the build command.
"""

import json
import re
import stat
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "arena"))

import spsa_params as P  # noqa: E402

REPO = Path(__file__).resolve().parent.parent

USI_ANSWER = """id name kirin
option name USI_Hash type spin default 256 min 1 max 33554432
option name Tune_lmr_scale type spin default 20 min 10 max 30
option name Tune_rfp_margin type spin default 110 min 40 max 250
option name Variant type combo default shogi var shogi var yari
"""


def params_table():
    """name -> (default, min, max) from the params! table of src/search/params.rs."""
    text = (REPO / "src" / "search" / "params.rs").read_text()
    rows = re.findall(r"^\s*([a-z_0-9]+):\s*(-?\d+),\s*(-?\d+),\s*(-?\d+);", text, re.M)
    return {n: (int(d), int(lo), int(hi)) for n, d, lo, hi in rows}


class SpsaParams(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def engine(self, answer: str) -> str:
        """A stand-in engine that prints `answer` and usiok to `usi`."""
        path = self.dir / "engine"
        path.write_text("#!/bin/sh\ncat <<'EOF'\n" + answer + "usiok\nEOF\n")
        path.chmod(path.stat().st_mode | stat.S_IEXEC)
        return str(path)

    def test_tune_options_from_a_usi_answer(self):
        ps = P.parse_tune_options(USI_ANSWER.splitlines())
        self.assertEqual([(p.name, p.default, p.min, p.max) for p in ps],
                         [("lmr_scale", 20, 10, 30), ("rfp_margin", 110, 40, 250)])
        self.assertEqual(ps[1].c_end(20), 10.5)
        self.assertEqual(ps[0].c_end(20), 1.0)
        self.assertEqual(P.Param("x", 1, 0, 4).c_end(20), 0.5)  # the floor
        for bad in ["option name Tune_x type check default true",
                    "option name Tune_x type spin default 5 min 6 max 9",
                    "option name Tune_x type spin default 5 min 5 max 5"]:
            with self.assertRaises(ValueError):
                P.parse_tune_options([bad])
        self.assertEqual([p.name for p in P.select(ps, "Tune_rfp_margin,lmr_scale")], ["rfp_margin", "lmr_scale"])
        with self.assertRaises(SystemExit):
            P.select(ps, "nope")

    def test_the_checked_in_space_is_what_the_script_writes(self):
        table = params_table()
        answer = "".join(f"option name Tune_{n} type spin default {d} min {lo} max {hi}\n"
                         for n, (d, lo, hi) in table.items())
        checked_in = (REPO / "tuning" / "arena" / "spsa-space.yaml").read_text()
        names = re.findall(r"^  - id: (\w+)$", checked_in, re.M)
        self.assertEqual(len(names), 9)
        out = self.dir / "space.yaml"
        with open(out, "w") as f:
            stdout, sys.stdout = sys.stdout, f
            try:
                P.main(["space", "--engine", self.engine(answer), "--params", ",".join(names)])
            finally:
                sys.stdout = stdout
        self.assertEqual(out.read_text(), checked_in)

    def test_a_runs_theta_as_rows_setoptions_and_a_spec(self):
        run = self.dir / "run"
        (run / "spsa").mkdir(parents=True)
        (run / "spsa" / "current.json").write_text(json.dumps(
            {"update_idx": 7, "theta": {"rfp_margin": 121.5, "lmr_scale": 19.6}}))
        params = P.parse_tune_options(USI_ANSWER.splitlines())
        text = P.result_text(run, params)
        self.assertIn("    rfp_margin: 122, 40, 250;\n", text)  # half up
        self.assertIn("    lmr_scale: 20, 10, 30;  // unchanged\n", text)
        self.assertIn("setoption name Tune_rfp_margin value 122\n", text)
        self.assertIn("opt.Tune_rfp_margin=122,opt.Tune_lmr_scale=20", text)
        self.assertIn("after update 7", text)
        (run / "spsa" / "current.json").write_text(json.dumps({"theta": {"rfp_margin": 999.0}}))
        self.assertIn("rfp_margin: 250, 40, 250;", P.result_text(run, params))  # kept in range
        (run / "spsa" / "current.json").write_text(json.dumps({"theta": {"gone": 1.0}}))
        with self.assertRaises(SystemExit):
            P.result_text(run, params)
        with self.assertRaises(SystemExit):
            P.result_text(self.dir / "no-run", params)

    def test_an_engine_without_tune_options_is_refused(self):
        with self.assertRaises(SystemExit) as cm:
            P.query(self.engine("id name kirin\noption name Threads type spin default 1 min 1 max 8\n"))
        self.assertIn("--features tune", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
