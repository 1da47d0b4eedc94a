"""The ShogiArena configurations in tuning/arena/ stay usable.

Run: .venv/bin/python -m pytest -q tuning/test_arena_configs.py

Each configuration passes ShogiArena's own validation (`--validate-only`, run from the
repository root as tuning/arena/README.md says, with stand-in engine binaries), keeps kirin's
rules where ShogiArena can (fourth-occurrence sennichite, explicit time margins), and the
SPSA space agrees with the parameter table of src/search/params.rs.
"""

import os
import re
import subprocess
import sys
import unittest
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
ARENA_DIR = REPO / "tuning" / "arena"
SHOGIARENA = Path(sys.executable).parent / "shogiarena"


def params_table():
    """name -> (default, min, max) from the params! table of src/search/params.rs."""
    text = (REPO / "src" / "search" / "params.rs").read_text()
    rows = re.findall(r"^\s*([a-z_0-9]+):\s*(-?\d+),\s*(-?\d+),\s*(-?\d+);", text, re.M)
    return {n: (int(d), int(lo), int(hi)) for n, d, lo, hi in rows}


def load(name):
    return yaml.safe_load((ARENA_DIR / name).read_text())


class ArenaConfigTests(unittest.TestCase):
    def validate(self, command, config):
        # Any existing file stands in for the kirin builds: validation reads the configuration,
        # the engine files and the openings, and starts no engine. The GPL openings are read only
        # at run time: the check runs on a copy beside the original (so its relative paths hold)
        # that opens the repository's own test openings instead.
        env = dict(os.environ, KIRIN_DEV=sys.executable, KIRIN_BASE=sys.executable, KIRIN_TUNE=sys.executable)
        text = (ARENA_DIR / config).read_text()
        copy = ARENA_DIR / f".validate-{os.getpid()}-{config}"
        copy.write_text(text.replace("../../../shared/data/openings/taya36.sfen",
                                     "../../tests/data/random_openings.sfen"))
        try:
            p = subprocess.run([str(SHOGIARENA), "run", command, f"tuning/arena/{copy.name}", "--validate-only"],
                               cwd=REPO, env=env, capture_output=True, text=True, timeout=180)
        finally:
            copy.unlink()
        self.assertEqual(p.returncode, 0, p.stdout[-2000:] + p.stderr[-2000:])
        self.assertIn("Validated", p.stdout + p.stderr)

    def test_the_sprt_config_validates(self):
        self.validate("tournament", "sprt-dev-vs-base.yaml")

    def test_the_gpsshogi_config_validates(self):
        self.validate("tournament", "gpsshogi-1s.yaml")

    def test_the_spsa_config_validates(self):
        self.validate("spsa", "spsa.yaml")

    def test_the_side_by_side_config_validates(self):
        self.validate("tournament", "side-by-side-300.yaml")

    def test_the_generate_config_validates(self):
        self.validate("generate", "generate-selfplay.yaml")

    def test_kirins_rules_where_shogiarena_has_them(self):
        for name in ("sprt-dev-vs-base.yaml", "gpsshogi-1s.yaml", "spsa.yaml", "side-by-side-300.yaml",
                     "generate-selfplay.yaml"):
            c = load(name)
            self.assertEqual(c["rules"]["repetition_occurrences_to_draw"], 4, name)
            self.assertEqual(c["rules"]["adjudication"]["max_plies"], 320, name)
            self.assertTrue(c["rules"]["initial_positions"]["source"].endswith("taya36.sfen"), name)
        # every margin set, none left at ShogiArena's default; gpsshogi's is match.py's 1 s + 10 %
        gps = load("gpsshogi-1s.yaml")
        margins = {e["name"]: e["time_control"]["expiry_margin_ms"] for e in gps["engines"]}
        self.assertEqual(margins, {"kirin-dev": 500, "gpsshogi": 1100})
        for name in ("sprt-dev-vs-base.yaml", "spsa.yaml", "side-by-side-300.yaml"):
            self.assertIn("expiry_margin_ms", load(name)["rules"]["time_control"], name)
        # the match both runners play: each opening once per colour, as match.py plays a file
        side = load("side-by-side-300.yaml")
        self.assertEqual(side["rules"]["initial_positions"]["selection_policy"], "without_replacement")
        self.assertEqual(side["rules"]["initial_positions"]["flip_policy"], "pair_both")
        self.assertEqual(side["tournament"]["games_per_pair"], 400)
        sprt = load("sprt-dev-vs-base.yaml")
        self.assertEqual(sprt["sprt"]["tested_engine"], sprt["engines"][0]["name"])

    def test_the_spsa_space_is_params_rs(self):
        table = params_table()
        self.assertIn("rfp_margin", table)  # the table was read
        space = load("spsa-space.yaml")
        self.assertEqual(space["schema_version"], "shogiarena.spsa.space.v1")
        self.assertTrue(space["parameters"])
        for p in space["parameters"]:
            self.assertIn(p["id"], table)
            d, lo, hi = table[p["id"]]
            self.assertEqual(p["target"]["option"], "Tune_" + p["id"])
            self.assertEqual((p["initial"], p["bounds"]["min"], p["bounds"]["max"]), (d, lo, hi), p["id"])
            # spsa_params.py's default schedule: c_end = max(range / 20, 0.5), r_end 0.002
            self.assertAlmostEqual(p["schedule"]["c_end"], max((hi - lo) / 20, 0.5), msg=p["id"])
            self.assertEqual(p["schedule"]["r_end"], 0.002, p["id"])


if __name__ == "__main__":
    unittest.main()
