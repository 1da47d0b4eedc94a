#!/usr/bin/env python3
"""kirin's search parameters for ShogiArena's SPSA: the space file from a tune build's own `usi`
answer, and a run's current values as rows for src/search/params.rs.

    # the space of every Tune_* option (or --params a,b,c), c_end = max(range / 20, 0.5)
    .venv/bin/python tuning/arena/spsa_params.py space --engine target/tune/release/kirin \\
        > tuning/arena/spsa-space.yaml
    # after (or during) `shogiarena run spsa tuning/arena/spsa.yaml --run-dir RUN`:
    .venv/bin/python tuning/arena/spsa_params.py result RUN --engine target/tune/release/kirin

`result` prints three forms of the run's theta (`spsa/current.json`), rounded half up and kept
in range: rows `name: value, min, max;` for the `params!` table (rows left at their default say
so), `setoption` lines, and a match.py engine spec that plays them, for the SPRT that must pass
before a row is pasted.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

PREFIX = "Tune_"
C_FLOOR = 0.5  # the least perturbation: theta +- 0.5 still round to two integers


@dataclass
class Param:
    name: str  # without the prefix, as in params.rs
    default: int
    min: int
    max: int

    def c_end(self, c_div: float) -> float:
        return max((self.max - self.min) / c_div, C_FLOOR)

    def clamp_round(self, value: float) -> int:
        return min(self.max, max(self.min, math.floor(value + 0.5)))


def parse_tune_options(lines) -> list[Param]:
    """The `option name Tune_X type spin default D min A max B` lines of a `usi` answer."""
    params = []
    for line in lines:
        t = line.split()
        if t[:2] != ["option", "name"] or len(t) < 3 or not t[2].startswith(PREFIX):
            continue
        kv = {t[i]: t[i + 1] for i in range(3, len(t) - 1) if t[i] in ("type", "default", "min", "max")}
        if kv.get("type") != "spin" or not all(k in kv for k in ("default", "min", "max")):
            raise ValueError(f"not a spin option with default, min and max: {line!r}")
        lo, hi, d = int(kv["min"]), int(kv["max"]), int(kv["default"])
        if not lo <= d <= hi or lo == hi:
            raise ValueError(f"bad range: {line!r}")
        params.append(Param(t[2][len(PREFIX):], d, lo, hi))
    return params


def query(engine: str, timeout: float = 30.0) -> list[Param]:
    """The engine's Tune_ options, from its answer to `usi`."""
    try:
        answer = subprocess.run([engine], input="usi\nquit\n", capture_output=True, text=True,
                                timeout=timeout).stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SystemExit(f"{engine}: no answer to usi ({e})") from None
    try:
        params = parse_tune_options(answer.splitlines())
    except ValueError as e:
        raise SystemExit(f"{engine}: {e}") from None
    if not params:
        raise SystemExit(f"{engine} declares no {PREFIX}* options; build it with "
                         "`cargo build --release --features tune --target-dir target/tune`")
    return params


def select(params: list[Param], names: str | None) -> list[Param]:
    """The parameters of a comma list (with or without the prefix), in its order; all for None."""
    if not names or names == "all":
        return params
    by_name = {p.name: p for p in params}
    out = []
    for n in (n.strip().removeprefix(PREFIX) for n in names.split(",")):
        if n not in by_name:
            raise SystemExit(f"--params: the engine has no {PREFIX}{n} (it has {', '.join(by_name)})")
        if by_name[n] not in out:
            out.append(by_name[n])
    return out


def space_yaml(params: list[Param], c_div: float, r_end: float) -> str:
    head = ("# kirin's search parameters as ShogiArena's SPSA space, written by tuning/arena/spsa_params.py\n"
            "# from the tune build's `usi` answer (src/search/params.rs): each is the option Tune_<name>,\n"
            f"# with its default and range, c_end = max(range / {c_div:g}, {C_FLOOR}) and r_end = {r_end:g}.\n"
            "schema_version: shogiarena.spsa.space.v1\n"
            "target:\n  protocol: usi_options\nparameters:\n")
    rows = "".join(f"  - id: {p.name}\n    target: {{option: {PREFIX}{p.name}}}\n    value_type: int\n"
                   f"    initial: {p.default}\n    bounds: {{min: {p.min}, max: {p.max}}}\n"
                   f"    schedule: {{c_end: {p.c_end(c_div):g}, r_end: {r_end:g}}}\n" for p in params)
    return head + rows


def result_text(run: Path, params: list[Param]) -> str:
    """The run's current theta as params.rs rows, setoption lines and a match.py engine spec."""
    current = run / "spsa" / "current.json"
    try:
        state = json.loads(current.read_text())
        theta, update = state["theta"], state.get("update_idx", "?")
    except (OSError, ValueError, KeyError) as e:
        raise SystemExit(f"{current}: no SPSA state ({e})") from None
    by_name = {p.name: p for p in params}
    unknown = [n for n in theta if n not in by_name]
    if unknown:
        raise SystemExit(f"{run}: the engine has no {', '.join(PREFIX + n for n in unknown)}")
    values = {n: by_name[n].clamp_round(v) for n, v in theta.items()}
    rows = "".join(f"    {n}: {v}, {by_name[n].min}, {by_name[n].max};"
                   f"{'  // unchanged' if v == by_name[n].default else ''}\n" for n, v in values.items())
    sets = "".join(f"setoption name {PREFIX}{n} value {v}\n" for n, v in values.items())
    spec = ",".join(["TUNE_BUILD", "name=kirin-spsa", "margin=1000"] + [f"opt.{PREFIX}{n}={v}" for n, v in values.items()])
    return (f"// SPSA in {run} after update {update}: rows for src/search/params.rs (name: value, min, max);\n"
            f"// paste only after an SPRT against the defaults has passed.\n{rows}\n{sets}\n"
            f"# a match.py engine (TUNE_BUILD: the tune build's path)\n{spec}\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sp = sub.add_parser("space", help="print the SPSA space of the engine's Tune_ options")
    rp = sub.add_parser("result", help="print a run's current values")
    rp.add_argument("run", type=Path, help="a `shogiarena run spsa` run folder")
    for p in (sp, rp):
        p.add_argument("--engine", default="target/tune/release/kirin", help="a kirin build with --features tune")
    sp.add_argument("--params", default=None, help="a comma list of names (default: all)")
    sp.add_argument("--c-div", type=float, default=20.0)
    sp.add_argument("--r-end", type=float, default=0.002)
    args = ap.parse_args(argv)
    params = query(args.engine)
    if args.cmd == "space":
        print(space_yaml(select(params, args.params), args.c_div, args.r_end), end="")
    else:
        print(result_text(args.run, params), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
