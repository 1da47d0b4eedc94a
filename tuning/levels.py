#!/usr/bin/env python3
"""Calibrates kirin's strength levels by games: each level against the next one up, full strength
against gpsshogi as the anchor, and the weakest level against a random mover.

    .venv/bin/python tuning/levels.py --out $KIRIN_DATA/levels/NET [--levels 0,2,4,...,20]
        [--games 150] [--anchor-games 150] [--floor-games 100] [--byoyomi 1000] [--concurrency 2]
        [--anchor-skip-openings 1500] [--anchor-result ELO,MARGIN]

Every match is a `tuning/match.py` match (its referee, its records, its Elo with a 95 % margin)
in a folder of its own under --out, so an interrupted calibration resumes where it stopped: a
finished match is read back, an unfinished one goes on with `--resume`. The levels are set with
`SkillLevel` (20 is full strength), `LimitStrengthDelay false` (no held answers) and a seed per
level; one thread each, byoyomi 1 s by default (a level's budget is in nodes, so its rating does
not depend on the clock; full strength's does).

Ratings: full strength is the anchor's rating plus its result against gpsshogi; each level below
is the level above minus their match's difference. A margin adds up in quadrature down the chain.
The anchor, gpsshogi 0.7 (Debian) at 1 s a move on one thread, is set at 3,000 (ANCHOR): a round
number for an opponent anyone can install, so a rating reads as a distance from a fixed program,
and high enough that the weakest level (2,668 below full strength in run 6) stays above
zero, as GUIs expect of a `UCI_Elo`; it is not a human or floodgate rating. Writes `levels.md`
(the table for the README, naming the build and its network) and `levels.json`, and prints the
`ELO_OF_LEVEL` line for `src/search/skill.rs`.
"""

import argparse
import hashlib
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import match as M  # noqa: E402  (its command line plays every match)
from referee.stats import elo_from_score  # noqa: E402

ANCHOR = 3000.0
HERE = Path(__file__).resolve().parent


def level_spec(binary: str, level: int, seed: int, byoyomi: int) -> str:
    """A level as a match.py engine. A weakened level stops on its node budget, so its rating
    must not depend on how much CPU it got: the referee gives it ten periods before it loses on
    time (a calibration runs at low priority beside other work). Full strength plays on the
    clock with match.py's usual 400 ms margin; run the anchor match on an idle machine."""
    name = "full" if level >= 20 else f"L{level}"
    opts = f"opt.SkillLevel={level},opt.LimitStrengthDelay=false,opt.LimitStrengthSeed={seed}"
    margin = 400 if level >= 20 else 10 * byoyomi
    return f"kirin,cmd={binary},name={name},margin={margin},{opts}"


def played(out: Path, engine: str, opponent: str, games: int, args, skip: int = 0) -> dict:
    """The summary of one match, played (or finished) in `out`, from opening `skip` on."""
    if (out / "summary.json").exists():
        return json.loads((out / "summary.json").read_text())
    argv = ["--engine", engine, "--opponent", opponent, "--games", str(games),
            "--byoyomi", str(args.byoyomi), "--concurrency", str(args.concurrency),
            "--out", str(out), "--quiet"]
    if skip:
        argv += ["--skip-openings", str(skip)]
    if args.openings:
        argv += ["--openings", args.openings]
    if (out / "match.json").exists():
        argv.append("--resume")
    return M.main(argv)


def difference(summary: dict):
    """(Elo of the first engine over the second, 95 % margin): pentanomial where games came in
    pairs, trinomial otherwise; a clean sweep gets the one-sided bound and an infinite margin."""
    key = "elo_pentanomial" if "elo_pentanomial" in summary else "elo_trinomial"
    elo, margin = summary[key]
    if not math.isfinite(elo):
        n = summary["games"]
        bound = 0.05 ** (1 / n)
        elo = elo_from_score(bound if elo > 0 else 1 - bound)
        margin = math.inf
    return elo, margin


def chain(levels, diffs, anchor_diff):
    """Ratings of `levels` (ascending, the last one full strength) from the differences between
    neighbours (`diffs[i]`: level i+1 over level i) and full strength's result over the anchor."""
    top = ANCHOR + anchor_diff[0]
    ratings = {levels[-1]: (top, anchor_diff[1])}
    for i in range(len(levels) - 2, -1, -1):
        above, above_margin = ratings[levels[i + 1]]
        d, m = diffs[i]
        ratings[levels[i]] = (above - d, math.hypot(above_margin, m))
    return ratings


def parse_anchor_result(text: str):
    """`ELO,MARGIN` (as `--anchor-result` takes them) as two numbers; a clear error otherwise."""
    try:
        elo, margin = (float(x) for x in text.split(","))
    except ValueError:
        raise SystemExit(f"--anchor-result: expected ELO,MARGIN (e.g. 92.5,52.2), not {text!r}")
    if not (math.isfinite(elo) and math.isfinite(margin) and margin > 0):
        raise SystemExit(f"--anchor-result: expected a finite Elo and a positive margin, not {text!r}")
    return elo, margin


def table(levels, ratings, games, floor, build, anchor_diff=None, given=False):
    anchor = f"{ANCHOR:.0f}"
    if anchor_diff:
        anchor += (f"; full strength over it: {anchor_diff[0]:+.1f} +- {anchor_diff[1]:.1f}"
                   + (" (from an earlier match, given by --anchor-result)" if given else ""))
    lines = [f"Measured with {build}; anchor: gpsshogi at 1 s a move = {anchor}.", "",
             "| SkillLevel | rating | 95 % margin | games against the next level |",
             "|---|---|---|---|"]
    for lv in levels:
        r, m = ratings[lv]
        lines.append(f"| {lv} | {r:.0f} | {'+- inf' if math.isinf(m) else f'+- {m:.0f}'} | "
                     f"{games.get(lv, '-')} |")
    if floor:
        lines += ["", f"Level {levels[0]} against a random mover: {floor['W']} wins, {floor['D']} draws, "
                      f"{floor['L']} losses ({100 * (floor['W'] + floor['D'] / 2) / max(1, floor['games']):.1f} %)."]
    return "\n".join(lines) + "\n"


def elo_of_level_line(levels, ratings):
    """The Rust table of ratings for levels 0..=20, interpolated between measured levels."""
    values = []
    for lv in range(21):
        lo = max(x for x in levels if x <= lv)
        hi = min(x for x in levels if x >= lv)
        r_lo, r_hi = ratings[lo][0], ratings[hi][0]
        values.append(r_lo if hi == lo else r_lo + (r_hi - r_lo) * (lv - lo) / (hi - lo))
    # The table must rise: a level measured below the one under it takes that one's value + 1.
    for i in range(1, len(values)):
        values[i] = max(values[i], values[i - 1] + 1)
    return "const ELO_OF_LEVEL: [f64; 21] = [" + ", ".join(f"{v:.1f}" for v in values) + "];"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kirin", default=str(HERE.parent / "target" / "release" / "kirin"))
    ap.add_argument("--levels", default="0,2,4,6,8,10,12,14,16,18,20")
    ap.add_argument("--games", type=int, default=150, help="games per pair of neighbours")
    ap.add_argument("--anchor-games", type=int, default=150)
    ap.add_argument("--floor-games", type=int, default=100)
    ap.add_argument("--byoyomi", type=int, default=1000)
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--openings", default=None, help="match.py's default when not given")
    ap.add_argument("--anchor-skip-openings", type=int, default=0, metavar="N",
                    help="the anchor match starts at opening N+1 (1500: taya36's lines that no "
                         "training game starts from, so that it also measures the network)")
    ap.add_argument("--anchor-result", default=None, metavar="ELO,MARGIN",
                    help="full strength's result over gpsshogi (Elo and its 95 %% margin) from a match "
                         "already played with the same network; the anchor is then not played again")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    given_anchor = parse_anchor_result(args.anchor_result) if args.anchor_result else None
    levels = sorted(int(x) for x in args.levels.split(","))
    if levels[-1] != 20:
        ap.error("the ladder ends at full strength, level 20")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    binary = args.kirin
    build = "kirin " + hashlib.sha256(Path(binary).read_bytes()).hexdigest()[:12]

    # The floor first: it is the quickest match and a target of its own; then the ladder from the
    # bottom up, so that an interrupted run has measured the cheap pairs; the anchor last, since
    # full strength plays on the clock and wants an idle machine.
    floor = None
    if args.floor_games:
        mover = f"random,cmd={sys.executable} {HERE / 'random_mover.py'} 1,name=random"
        floor = played(out / f"L{levels[0]}-vs-random", level_spec(binary, levels[0], 100, args.byoyomi),
                       mover + f",margin={10 * args.byoyomi}", args.floor_games, args)
    diffs, games = [], {}
    for lo, hi in zip(levels, levels[1:]):
        s = played(out / f"L{hi}-vs-L{lo}", level_spec(binary, hi, 100 + hi, args.byoyomi),
                   level_spec(binary, lo, 100 + lo, args.byoyomi), args.games, args)
        diffs.append(difference(s))
        games[lo] = s["games"]
    if given_anchor:
        anchor_diff = given_anchor
    else:
        s = played(out / "full-vs-gpsshogi", level_spec(binary, 20, 120, args.byoyomi), "gpsshogi",
                   args.anchor_games, args, args.anchor_skip_openings)
        anchor_diff = difference(s)
    ratings = chain(levels, diffs, anchor_diff)
    text = table(levels, ratings, games, floor, build, anchor_diff, given_anchor is not None)
    (out / "levels.md").write_text(text)
    (out / "levels.json").write_text(json.dumps(
        {"build": build, "anchor": ANCHOR, "levels": levels,
         "ratings": {str(k): v for k, v in ratings.items()}, "games": games,
         "floor": floor and {k: floor[k] for k in ("games", "W", "D", "L")}}, indent=1))
    print(text)
    print(elo_of_level_line(levels, ratings))
    return ratings


if __name__ == "__main__":
    main()
