#!/usr/bin/env python3
"""SPSA tuning of kirin's search parameters (the `Tune_*` options of a `--features tune` build).

One iteration draws a random sign per parameter, plays game pairs (one opening, colours swapped)
between the build set to theta + c_k * delta and the same build set to theta - c_k * delta, and
moves theta along delta by how much theta+ outscored theta-.  The games are played by the match
referee (tuning/referee/standard.py, `play_game`), so they are judged exactly as in a match.

Schedule (Spall's, in the per-parameter form fishtest uses), N iterations, k = 0 .. N-1:
    c_end_i = max((max_i - min_i) / c_div, 0.5) perturbation at the last iteration
    c_i     = c_end_i * N^gamma                 a_i = r_end * c_end_i^2 * (A + N)^alpha
    c_k,i   = max(c_i / (k + 1)^gamma, 0.5)     a_k,i = a_i / (A + k + 1)^alpha
    theta+- = clamp(theta +- c_k * delta)       sent rounded half up to integers
    r       = mean over the iteration's pairs of (points of theta+ - points of theta-), in [-2, 2]
    theta_i = clamp(theta_i + a_k,i / c_k,i * r * delta_i)
so the last step per unit result is r_end * c_end.  The floor of 0.5 on c keeps theta+ and
theta- apart after integer rounding for parameters with a narrow range.

The parameter list (names, defaults, ranges) comes from the engine's own `usi` answer.  State is
saved after every iteration (an interrupted run resumes where it stopped, replaying the unfinished
iteration with the same signs); the trajectory goes to trajectory.csv; the current values to
tuned-params.rs (rows for src/search/params.rs), tuned-setoption.txt and tuned-engine.txt (an
engine spec for match.py).  See tuning/README.md, "SPSA", for the commands
and tuning/notes/spsa.md for the schedule and the runs.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import dataclasses
import datetime as dt
import json
import math
import os
import random
import shutil
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from referee import standard  # noqa: E402
from referee.games import BLACK, WHITE  # noqa: E402
from referee.engines import OUT, REPO, EngineError, EngineSpec, USIEngine, parse_engine_spec  # noqa: E402

TUNE_PREFIX = "Tune_"
# A referee margin of 1 s: SPSA tunes the search, not the clock, and at 50-100 ms a move on a loaded
# machine a few ms of overrun would otherwise decide games by time, which is only noise here.
DEFAULT_ENGINE = f"kirin,name=kirin-tune,cmd={REPO / 'target' / 'tune' / 'release' / 'kirin'},margin=1000"
STATE_VERSION = 1
C_FLOOR = 0.5  # the least perturbation: theta +- 0.5 still round to two integers


# ----------------------------------------------------------------------------------------------
# Parameters and the schedule
# ----------------------------------------------------------------------------------------------
@dataclasses.dataclass
class Param:
    name: str  # without the Tune_ prefix, as in params.rs
    default: int
    min: int
    max: int
    c_end: float

    @property
    def option(self) -> str:
        return TUNE_PREFIX + self.name


def parse_tune_options(lines, c_div: float = 20.0) -> list[Param]:
    """The `option name Tune_X type spin default D min A max B` lines of a `usi` answer."""
    params = []
    for line in lines:
        t = line.split()
        if t[:2] != ["option", "name"] or len(t) < 3 or not t[2].startswith(TUNE_PREFIX):
            continue
        kv = {t[i]: t[i + 1] for i in range(3, len(t) - 1) if t[i] in ("type", "default", "min", "max")}
        if kv.get("type") != "spin" or not all(k in kv for k in ("default", "min", "max")):
            raise ValueError(f"not a spin option with default/min/max: {line!r}")
        lo, hi, d = int(kv["min"]), int(kv["max"]), int(kv["default"])
        if not lo <= d <= hi or lo == hi:
            raise ValueError(f"bad range: {line!r}")
        params.append(Param(t[2][len(TUNE_PREFIX):], d, lo, hi, max((hi - lo) / c_div, C_FLOOR)))
    return params


def query_tune_options(spec: EngineSpec, c_div: float = 20.0, timeout: float = 30.0) -> list[Param]:
    """Start the engine, send `usi`, and read its Tune_ spin options."""
    lines = []
    e = None
    try:
        e = USIEngine(spec)
        e.send("usi")
        deadline = time.monotonic() + timeout
        while True:
            _, line = e.readline(deadline)
            if line.strip() == "usiok":
                break
            lines.append(line)
    except EngineError as ex:
        raise SystemExit(f"{spec.name}: no usiok from {spec.cmd} ({ex})") from None
    finally:
        if e is not None:
            e.close()
    try:
        params = parse_tune_options(lines, c_div)
    except ValueError as ex:
        raise SystemExit(f"{spec.name}: {ex}") from None
    if not params:
        raise SystemExit(f"{spec.name}: {spec.cmd[0]} declares no {TUNE_PREFIX}* options; build it with "
                         f"`cargo build --release --features tune --target-dir target/tune`")
    return params


def select(params: list[Param], names: str | None) -> list[Param]:
    """The parameters named in a comma list (with or without the Tune_ prefix); all for None/'all'."""
    if not names or names == "all":
        return params
    by_name = {p.name: p for p in params}
    out = []
    for n in names.split(","):
        n = n.strip()
        n = n[len(TUNE_PREFIX):] if n.startswith(TUNE_PREFIX) else n
        if n not in by_name:
            raise SystemExit(f"--params: the engine has no {TUNE_PREFIX}{n} (it has {', '.join(by_name)})")
        if by_name[n] not in out:
            out.append(by_name[n])
    return out


@dataclasses.dataclass
class Schedule:
    iterations: int
    A: float
    alpha: float = 0.602
    gamma: float = 0.101
    r_end: float = 0.002
    c_floor: float = C_FLOOR

    def c(self, p: Param) -> float:
        return p.c_end * self.iterations ** self.gamma

    def a(self, p: Param) -> float:
        return self.r_end * p.c_end ** 2 * (self.A + self.iterations) ** self.alpha

    def c_k(self, p: Param, k: int) -> float:
        return max(self.c(p) / (k + 1) ** self.gamma, self.c_floor)

    def a_k(self, p: Param, k: int) -> float:
        return self.a(p) / (self.A + k + 1) ** self.alpha


def clamp(x: float, p: Param) -> float:
    return min(max(x, float(p.min)), float(p.max))


def to_int(x: float, p: Param) -> int:
    """What the engine is sent: rounded half up (so theta +- 0.5 stay one apart), within range."""
    return int(min(max(math.floor(x + 0.5), p.min), p.max))


def signs(seed: int, k: int, n: int) -> list[int]:
    """delta for iteration k: the same on a resumed run."""
    rng = random.Random(f"{seed}:{k}")
    return [1 if rng.random() < 0.5 else -1 for _ in range(n)]


def perturb(theta: dict, params: list[Param], sched: Schedule, k: int, delta: list[int]):
    """(theta+, theta-) as {name: float}, each clamped to its range."""
    plus, minus = {}, {}
    for p, d in zip(params, delta):
        ck = sched.c_k(p, k)
        plus[p.name] = clamp(theta[p.name] + ck * d, p)
        minus[p.name] = clamp(theta[p.name] - ck * d, p)
    return plus, minus


def update(theta: dict, params: list[Param], sched: Schedule, k: int, delta: list[int], result: float) -> dict:
    """theta after iteration k whose theta+ outscored theta- by `result` points per pair."""
    new = dict(theta)
    for p, d in zip(params, delta):
        step = sched.a_k(p, k) / sched.c_k(p, k) * result * d
        new[p.name] = clamp(theta[p.name] + step, p)
    return new


def integer_options(values: dict, params: list[Param]) -> dict:
    return {p.option: str(to_int(values[p.name], p)) for p in params}


# ----------------------------------------------------------------------------------------------
# State, trajectory and the tuned values
# ----------------------------------------------------------------------------------------------
def params_from_state(st) -> list[Param]:
    return [Param(**p) for p in st["params"]]


def schedule_from_state(st) -> Schedule:
    return Schedule(**st["schedule"])


def new_state(engine_text: str, params: list[Param], sched: Schedule, cfg: dict) -> dict:
    return {"version": STATE_VERSION, "engine": engine_text,
            "params": [dataclasses.asdict(p) for p in params],
            "schedule": dataclasses.asdict(sched), "config": cfg, "k": 0,
            "theta": {p.name: float(p.default) for p in params},
            "pairs": 0, "plus_points": 0.0, "minus_points": 0.0,
            "start": dt.datetime.now().isoformat(timespec="seconds")}


def write_json_atomic(path: Path, obj):
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(obj, indent=1))
    os.replace(tmp, path)


def load_state(out: Path) -> dict | None:
    f = out / "state.json"
    if not f.exists():
        return None
    try:
        st = json.loads(f.read_text())
    except (OSError, ValueError) as e:
        raise SystemExit(f"{f}: cannot read the state ({e})") from None
    if st.get("version") != STATE_VERSION:
        raise SystemExit(f"{f}: state version {st.get('version')}, this driver writes {STATE_VERSION}")
    return st


def trajectory_header(params) -> str:
    return "iteration,result," + ",".join(p.name for p in params) + "\n"


def trim_logs(out: Path, params, k: int):
    """Keep the trajectory rows and game lines of the k finished iterations: a run stopped after
    writing them but before saving the state replays that iteration and writes them again."""
    f = out / "trajectory.csv"
    rows = f.read_text().splitlines()[1:] if f.exists() else []
    kept = [r for r in rows if r.split(",")[0].isdigit() and int(r.split(",")[0]) <= k]
    f.write_text(trajectory_header(params) + "".join(r + "\n" for r in kept))
    g = out / "games.jsonl"
    if g.exists():
        g.write_text("".join(l + "\n" for l in g.read_text().splitlines() if _game_iteration(l) <= k))


def _game_iteration(line: str) -> float:
    """The iteration of a games.jsonl line; a line cut short by a kill counts as unfinished."""
    try:
        return json.loads(line)["iteration"]
    except (ValueError, KeyError, TypeError):
        return math.inf


def write_tuned(out: Path, st: dict):
    """The current theta in three forms: params.rs rows, setoption lines and a match.py engine spec."""
    params = params_from_state(st)
    theta = st["theta"]
    k, n = st["k"], st["schedule"]["iterations"]
    games = 2 * st["pairs"]
    head = (f"// SPSA in {out.name}: {k} of {n} iterations, {games} games. Rows for src/search/params.rs\n"
            f"// (name: value, min, max); paste only after an SPRT against the defaults has passed.\n")
    rows = "".join(f"    {p.name}: {to_int(theta[p.name], p)}, {p.min}, {p.max};"
                   f"{'' if to_int(theta[p.name], p) != p.default else '  // unchanged'}\n" for p in params)
    (out / "tuned-params.rs").write_text(head + rows)
    opts = integer_options(theta, params)
    (out / "tuned-setoption.txt").write_text("".join(f"setoption name {o} value {v}\n" for o, v in opts.items()))
    # the run's own engine spec with the tuned options on top (later keys win in match.py)
    spec = ",".join([st["engine"], "name=kirin-spsa"] + [f"opt.{o}={v}" for o, v in opts.items()])
    (out / "tuned-engine.txt").write_text(spec + "\n")
    return spec


# ----------------------------------------------------------------------------------------------
# Playing an iteration
# ----------------------------------------------------------------------------------------------
class SetupError(Exception):
    """A fault that is not the parameters' doing (an engine that does not start): stop the run."""


def game_points(res: dict, colour: str) -> float:
    return 0.5 if res["winner"] == "draw" else (1.0 if res["winner"] == colour else 0.0)


class GamePlayer:
    """Plays an iteration's pairs through standard.play_game; records and a games.jsonl line per game."""

    def __init__(self, base: EngineSpec, openings: list[str], byoyomi: int, out: Path,
                 max_plies: int = 320, rule: str = "27", concurrency: int = 1):
        self.base, self.openings, self.byoyomi = base, openings, byoyomi
        self.out, self.max_plies, self.rule = out, max_plies, rule
        self.concurrency = max(1, concurrency)
        (out / "games").mkdir(parents=True, exist_ok=True)

    def spec(self, sign: str, values: dict, params: list[Param]) -> EngineSpec:
        s = dataclasses.replace(self.base, name=f"{self.base.name}{sign}",
                                options=dict(self.base.options, **integer_options(values, params)))
        return s

    def __call__(self, k: int, first_pair: int, n_pairs: int, plus: dict, minus: dict, params) -> list:
        """Points of theta+ minus points of theta-, one number per pair."""
        sp, sm = self.spec("+", plus, params), self.spec("-", minus, params)
        byo = self.base.byoyomi or self.byoyomi
        jobs = []
        for j in range(n_pairs):
            pair = first_pair + j
            opening = self.openings[pair % len(self.openings)]
            jobs += [(pair, opening, "black"), (pair, opening, "white")]

        def play(job):
            pair, opening, plus_colour = job
            black, white = (sp, sm) if plus_colour == "black" else (sm, sp)
            rec = self.out / "games" / f"iter{k + 1:05d}-pair{pair + 1:05d}-plus-{plus_colour}.csa"
            res = standard.play_game(black, white, opening, {BLACK: byo, WHITE: byo}, rec,
                              self.max_plies, rule=self.rule,
                              comments=[f"SPSA iteration {k + 1}, pair {pair + 1}, theta+ is {plus_colour}"])
            if res["reason"] == "crash" and (res["detail"] or "").startswith("start:"):
                raise SetupError(f"an engine did not start: {res['detail']}")
            return job, res

        with cf.ThreadPoolExecutor(max_workers=self.concurrency) as ex:
            done = list(ex.map(play, jobs))
        by_pair: dict = {}
        with open(self.out / "games.jsonl", "a") as f:
            for (pair, _, plus_colour), res in done:
                minus_colour = "white" if plus_colour == "black" else "black"
                diff = game_points(res, plus_colour) - game_points(res, minus_colour)
                by_pair[pair] = by_pair.get(pair, 0.0) + diff
                f.write(json.dumps({"iteration": k + 1, "pair": pair + 1, "plus": plus_colour,
                                    "winner": res["winner"], "reason": res["reason"], "plies": res["plies"],
                                    "faulty": res["faulty"], "detail": res["detail"]}) + "\n")
        return [by_pair[first_pair + j] for j in range(n_pairs)]


# ----------------------------------------------------------------------------------------------
# The run
# ----------------------------------------------------------------------------------------------
def run(out: Path, st: dict, play_pairs, log=print, stop_after: int | None = None) -> dict:
    """Iterate from st['k'] to the end (or stop_after more iterations), saving after each one.

    play_pairs(k, first_pair, n_pairs, plus, minus, params) -> list of per-pair results (points of
    theta+ minus points of theta-); a KeyboardInterrupt inside it loses only the current iteration.
    """
    params, sched = params_from_state(st), schedule_from_state(st)
    n_pairs, seed = st["config"]["pairs_per_iteration"], st["config"]["seed"]
    out.mkdir(parents=True, exist_ok=True)
    trim_logs(out, params, st["k"])
    todo = sched.iterations if stop_after is None else min(sched.iterations, st["k"] + stop_after)
    while st["k"] < todo:
        k = st["k"]
        delta = signs(seed, k, len(params))
        plus, minus = perturb(st["theta"], params, sched, k, delta)
        results = play_pairs(k, st["pairs"], n_pairs, plus, minus, params)
        r = sum(results) / len(results)
        theta = update(st["theta"], params, sched, k, delta, r)
        # a pair hands out 2 points: theta+ got (2 + diff) / 2 of them, theta- the rest
        plus_pts = sum((2.0 + x) / 2.0 for x in results)
        st.update(k=k + 1, theta=theta, pairs=st["pairs"] + len(results),
                  plus_points=st["plus_points"] + plus_pts,
                  minus_points=st["minus_points"] + 2.0 * len(results) - plus_pts)
        write_json_atomic(out / "state.json", st)
        with open(out / "trajectory.csv", "a") as f:
            f.write(f"{k + 1},{r:g}," + ",".join(f"{theta[p.name]:.3f}" for p in params) + "\n")
        write_tuned(out, st)
        log(f"iteration {k + 1}/{sched.iterations}: theta+ - theta- {r:+g}  "
            + " ".join(f"{p.name}={theta[p.name]:.2f}" for p in params))
    return st


def check_binary(spec: EngineSpec):
    if not (Path(spec.cmd[0]).exists() or shutil.which(spec.cmd[0])):
        raise SystemExit(f"{spec.cmd[0]} not found (the tune build: "
                         f"cargo build --release --features tune --target-dir target/tune)")


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default=DEFAULT_ENGINE,
                    help="the tune build, as a match.py engine spec (default: target/tune/release/kirin with "
                    "a 1 s referee margin)")
    ap.add_argument("--params", default="all", help="comma list of parameters to tune (default all)")
    ap.add_argument("--iterations", type=int, default=2000, help="N: SPSA iterations (default 2000)")
    ap.add_argument("--pairs-per-iteration", type=int, default=1,
                    help="game pairs per iteration, one perturbation (default 1)")
    ap.add_argument("--byoyomi", type=int, default=100, help="ms per move (default 100)")
    ap.add_argument("--concurrency", type=int, default=2, help="games at once (default 2, the pair's two games)")
    ap.add_argument("--c-div", type=float, default=20.0, help="c_end = (max - min) / C_DIV (default 20)")
    ap.add_argument("--r-end", type=float, default=0.002, help="a_end / c_end^2 (default 0.002)")
    ap.add_argument("--A", type=float, default=None, help="stability constant (default N / 10)")
    ap.add_argument("--alpha", type=float, default=0.602)
    ap.add_argument("--gamma", type=float, default=0.101)
    ap.add_argument("--seed", type=int, default=1, help="signs and opening order (default 1)")
    ap.add_argument("--max-plies", type=int, default=320)
    ap.add_argument("--openings", default=None, help="file of 'startpos moves ...' lines (default taya36)")
    ap.add_argument("--rule", choices=["27", "24"], default="27")
    ap.add_argument("--out", default=None,
                    help="run folder (default tuning/out/spsa-<time>); an existing one with state.json resumes")
    ap.add_argument("--stop-after", type=int, default=None, metavar="K", help="stop after K more iterations")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    log = (lambda s: None) if args.quiet else (lambda s: print(s, flush=True))

    out = Path(args.out) if args.out else OUT / f"spsa-{dt.datetime.now().strftime('%Y%m%d-%H%M%S')}"
    st = load_state(out)
    if st is None:
        if args.iterations < 1 or args.pairs_per_iteration < 1 or args.c_div <= 0 or args.r_end <= 0:
            raise SystemExit("--iterations, --pairs-per-iteration, --c-div and --r-end must be positive")
        try:
            base = parse_engine_spec(args.engine)
        except ValueError as e:
            raise SystemExit(f"--engine: {e}") from None
        check_binary(base)
        params = select(query_tune_options(base, args.c_div), args.params)
        sched = Schedule(args.iterations, args.iterations / 10 if args.A is None else args.A,
                         args.alpha, args.gamma, args.r_end)
        cfg = {"pairs_per_iteration": args.pairs_per_iteration, "byoyomi": args.byoyomi, "seed": args.seed,
               "max_plies": args.max_plies, "openings": args.openings, "rule": args.rule}
        st = new_state(args.engine, params, sched, cfg)
        out.mkdir(parents=True, exist_ok=True)
        write_json_atomic(out / "state.json", st)
        log(f"SPSA of {len(params)} parameters in {out}: {sched.iterations} iterations x "
            f"{args.pairs_per_iteration} pair(s) at {args.byoyomi} ms a move")
        for p in params:
            log(f"  {p.name}: {p.default} in [{p.min}, {p.max}], c {sched.c(p):.2f} -> {p.c_end:.2f}, "
                f"a {sched.a(p):.3g}")
    else:
        log(f"resuming {out} at iteration {st['k']} of {st['schedule']['iterations']} "
            f"(engine, parameters and schedule from its state.json)")
    cfg = st["config"]
    base = parse_engine_spec(st["engine"])
    check_binary(base)
    _, openings = standard.load_openings(cfg["openings"])
    random.Random(cfg["seed"]).shuffle(openings)
    signal.signal(signal.SIGTERM, _interrupt)  # `kill PID` stops as cleanly as Ctrl-C
    player = GamePlayer(base, openings, cfg["byoyomi"], out, cfg["max_plies"], cfg["rule"], args.concurrency)
    try:
        st = run(out, st, player, log, args.stop_after)
    except SetupError as e:
        raise SystemExit(f"stopped: {e}") from None
    except KeyboardInterrupt:
        print(f"interrupted at iteration {st['k']}; run the same command again to resume", file=sys.stderr)
        raise SystemExit(130) from None
    spec = write_tuned(out, st)
    n = 2 * st["pairs"]
    log(f"{st['k']} of {st['schedule']['iterations']} iterations, {n} games, theta+ scored "
        f"{st['plus_points']:g}, theta- {st['minus_points']:g}")
    log(f"tuned values: {out / 'tuned-params.rs'}, {out / 'tuned-setoption.txt'}, {out / 'tuned-engine.txt'}")
    log(f"verify: .venv/bin/python tuning/match.py --engine '{spec}' --opponent '{st['engine']},name=kirin-default' "
        f"--byoyomi {cfg['byoyomi']} --concurrency 2 --sprt elo0=0 elo1=5")
    return st


if __name__ == "__main__":
    main()
