#!/usr/bin/env python3
"""kirin match harness: a self-written USI referee on top of cshogi.

Plays engine A (usually kirin) against engine B (gpsshogi, fairy-stockfish, another kirin build)
from the taya36 openings, each opening twice with colours swapped, and reports W/D/L from A's
point of view, Elo with a 95 % margin (trinomial and pentanomial), SPRT, and time statistics.

Why a referee of our own rather than cshogi's or shogiarena's runner: those hang or accept things
we must reject.  Here every engine read has a deadline (a crash or a hang is a loss, never a hang
of the harness), the opponent can be given a time margin while kirin gets none, sennichite is
judged at the fourth occurrence with the perpetual-check rule, and every `bestmove win` is checked
against the CSA 27-point entering-king rule (a false declaration loses).  What ShogiArena's runner
judges right and wrong, measured case by case: tuning/arena/README.md (tuning/test_arena_rules.py).

See tuning/README.md for the commands.  The referee itself (engines, rules, the game and match
loops, statistics) is the package tuning/referee; this is its command line for standard shogi.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import cshogi

sys.path.insert(0, str(Path(__file__).resolve().parent))

from referee import games  # noqa: E402
from referee.engines import OUT, REPO, EngineSpec, parse_engine_spec  # noqa: E402,F401  (the tests use them from here)
from referee.standard import (  # noqa: E402,F401  (the tests use them from here)
    GameState, declaration_ok, declaration_points, load_openings, play_game)
from referee.stats import (  # noqa: E402,F401  (the tests and tuning/levels.py use them from here)
    Tally, elo_from_score, elo_pentanomial, elo_trinomial, fmt_elo, parse_sprt, print_summary, score_from_elo,
    sprt_bounds, sprt_from_results, sprt_llr, sprt_status)

# The results log (tuning/results.tsv): one row per finished match, appended when --change or
# --log is given.  The columns are described in tuning/README.md ("The results log").
RESULTS_LOG = REPO / "tuning" / "results.tsv"
LOG_COLUMNS = ("date", "commit", "change", "engines", "tc", "test", "games", "W/D/L", "pentanomial",
               "Elo", "LLR", "verdict", "notes")


def shown_path(path):
    """`path` as the log shows it: relative to the repository, or under `$KIRIN_DATA` (its
    default `~/kirin-data` included), never one machine's absolute path where either holds it."""
    text = str(path)
    for root, name in ((str(REPO) + "/", ""), (str(games.data_dir()) + "/", "$KIRIN_DATA/")):
        if text.startswith(root):
            return name + text[len(root):]
    return text


def log_result(path, s, meta, change, out):
    """Append the row of summary `s` (of the match whose match.json is `meta`, records in `out`)."""
    def cell(x):
        return " ".join(str(x).split())  # no tab or newline inside a cell
    a = meta["A"]
    commit = a.get("build") or subprocess.run(
        ["git", "-C", str(REPO), "describe", "--always", "--dirty", "--abbrev=7"],
        capture_output=True, text=True).stdout.strip()
    byo = meta["byoyomi"]
    tc = f"byoyomi {byo['A']}" + (f"/{byo['B']}" if byo["B"] != byo["A"] else "")
    elo = s.get("elo_pentanomial") or s.get("elo_trinomial")
    sprt = s.get("sprt")
    notes = [f"{s[w]} {s['time'][w]['mean_ms']:.0f} ms a move, max {s['time'][w]['max_ms']:.0f}"
             + (f", faults {s['faults'][w]}" if s["faults"][w] else "") for w in ("A", "B")]
    records = shown_path(out)
    row = [dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d"), commit, change or "",
           f"{s['A']} vs {s['B']}", tc,
           f"SPRT [{sprt['elo0']:g}, {sprt['elo1']:g}]" if sprt else "fixed", s["games"],
           f"{s['W']}/{s['D']}/{s['L']}", str(s["pentanomial"]),
           f"{fmt_elo(elo[0])} +- {elo[1]:.1f}" if elo else "",
           f"{sprt['llr']:.2f}" if sprt else "",
           {"continue": "undecided"}.get(sprt["status"], sprt["status"]) if sprt else "",
           "; ".join(notes + [f"records {records}"])]
    path = Path(path)
    new = not path.exists() or path.stat().st_size == 0
    with open(path, "a") as f:
        if new:
            f.write("\t".join(LOG_COLUMNS) + "\n")
        f.write("\t".join(cell(x) for x in row) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default="kirin", help="engine A (results are from its view): "
                    "kirin | kirin@REV | gpsshogi | fairy | PATH, then ,key=value (see parse_engine_spec)")
    ap.add_argument("--opponent", default="gpsshogi", help="engine B, same syntax")
    ap.add_argument("--byoyomi", type=int, default=300, help="ms per move for engines without byoyomi=")
    ap.add_argument("--games", type=int, default=None,
                    help="number of games (default: 2 x openings, 3914 for taya36; with --sprt: the cap, "
                    "default 20000)")
    ap.add_argument("--concurrency", type=int, default=1, help="games at once (2 cores: at most 2)")
    ap.add_argument("--max-plies", type=int, default=320)
    ap.add_argument("--openings", default=None, help="file of 'startpos moves ...' lines (default taya36)")
    ap.add_argument("--shuffle", type=int, default=None, metavar="SEED", help="shuffle the openings")
    ap.add_argument("--skip-openings", type=int, default=0, metavar="K",
                    help="start at opening K+1 (to run a second match on fresh openings)")
    ap.add_argument("--rule", choices=["27", "24"], default="27", help="entering-king rule for declarations")
    ap.add_argument("--sprt", nargs="*", default=None, metavar="K=V",
                    help="SPRT: elo0=0 elo1=5 alpha=0.05 beta=0.05 [min_games=20]; stops when decided "
                    "(never before min_games games)")
    ap.add_argument("--sprt-model", choices=["penta", "tri"], default="penta")
    ap.add_argument("--out", default=None, help="folder for records and summary (default tuning/out/<time>-A-vs-B)")
    ap.add_argument("--logs", action="store_true", help="keep each engine's stderr")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--resume", action="store_true",
                    help="go on with the interrupted match in --out: its finished games count, the others "
                    "are played (the engines, time, openings and SPRT must be the same)")
    ap.add_argument("--summarize", metavar="DIR", default=None,
                    help="only recompute and print the summary of a (possibly interrupted) match in DIR, or "
                    "of one match played in parts on disjoint openings, DIR,DIR...; "
                    "with --sprt, that test instead of the match's own, also run game by game in the "
                    "order the games finished")
    ap.add_argument("--change", default=None, metavar="TEXT",
                    help="what the match measures; with it (or --log) a finished match appends a row to "
                    "the results log (with --summarize: the games so far)")
    ap.add_argument("--log", default=None, metavar="FILE", help=f"the results log (default {RESULTS_LOG})")
    args = ap.parse_args(argv)
    log = args.log or (RESULTS_LOG if args.change is not None else None)
    if args.summarize:
        sprt = parse_sprt(args.sprt) if args.sprt is not None else None
        s = summarize([Path(d) for d in args.summarize.split(",")], args.sprt_model, sprt)
        if log:
            first = Path(args.summarize.split(",")[0])
            log_result(log, s, json.loads((first / "match.json").read_text()), args.change, args.summarize)
        return s

    if args.resume and not args.out:
        raise SystemExit("--resume needs --out, the folder of the match to go on with")
    a, b = parse_engine_spec(args.engine), parse_engine_spec(args.opponent)
    for s in (a, b):
        games.require_engine(s.name, s.cmd, s.build, "build it: cargo build --release, or tuning/build_rev.sh REV")
    if a.name == b.name:
        b.name += "-B"
    sprt = parse_sprt(args.sprt) if args.sprt is not None else None
    opath, openings = load_openings(args.openings)
    if args.shuffle is not None:
        random.Random(args.shuffle).shuffle(openings)
    if args.skip_openings >= len(openings):
        raise SystemExit(f"--skip-openings {args.skip_openings}: {opath} has only {len(openings)} openings")
    openings = openings[args.skip_openings:]
    n_games = args.games or (20000 if sprt else 2 * len(openings))
    stamp = games.time_stamp()
    out = Path(args.out) if args.out else games.match_folder(OUT, stamp, a.name, b.name)
    out.mkdir(parents=True, exist_ok=True)
    byo_a, byo_b = a.byoyomi or args.byoyomi, b.byoyomi or args.byoyomi
    meta = {"A": dataclasses.asdict(a), "B": dataclasses.asdict(b), "byoyomi": {"A": byo_a, "B": byo_b},
            "openings": opath, "max_plies": args.max_plies, "rule": args.rule, "sprt": sprt,
            "concurrency": args.concurrency, "loadavg_start": os.getloadavg(), "start": stamp,
            "shuffle": args.shuffle, "skip_openings": args.skip_openings}
    done = games.finished_games(out, meta, n_games, resume_difference) if args.resume else {}
    if done:
        meta["resumed"] = stamp
    (out / "match.json").write_text(json.dumps(meta, indent=1))
    if not args.quiet:
        print(f"{a.name} ({byo_a} ms, margin {a.margin_ms} ms + {a.margin_pct:.0%}) vs "
              f"{b.name} ({byo_b} ms, margin {b.margin_ms} ms + {b.margin_pct:.0%}); {n_games} games, "
              f"concurrency {args.concurrency}; records in {out}", flush=True)

    tally = Tally()
    for g in sorted(done):
        tally.add(done[g]["pair"], done[g]["a_colour"], done[g])
    if done:
        s = tally.summary(sprt, args.sprt_model)
        if sprt and s["sprt"]["status"] != "continue":
            raise SystemExit(f"--resume: the SPRT in {out} is already decided ({s['sprt']['status']} "
                             f"after {s['games']} games); see --summarize")
        if not args.quiet:
            print(f"resuming after {len(done)} games: W{s['W']} D{s['D']} L{s['L']}"
                  + (f"  LLR {s['sprt']['llr']:.2f}" if sprt else ""), flush=True)

    def play_one(i, rec):
        pair, a_black = games.game_pairing(i)
        opening = openings[pair % len(openings)]
        black, white = (a, b) if a_black else (b, a)
        byo = {cshogi.BLACK: byo_a if a_black else byo_b, cshogi.WHITE: byo_b if a_black else byo_a}
        res = play_game(black, white, opening, byo, rec, args.max_plies,
                        log_dir=out if args.logs else None, rule=args.rule,
                        comments=[f"opening {args.skip_openings + pair % len(openings) + 1} of {opath}",
                                  f"loadavg {os.getloadavg()[0]:.2f}"])
        res.update(game=i + 1, pair=pair, a_colour="black" if a_black else "white", loadavg=os.getloadavg()[0])
        return res

    def on_result(res):
        tally.add(res["pair"], res["a_colour"], res)
        s = tally.summary(sprt, args.sprt_model)
        if not args.quiet:
            print(games.game_line(res, a.name, s)
                  + (f"  LLR {s['sprt']['llr']:.2f}" if sprt else ""), flush=True)
        return sprt and s["sprt"]["status"] != "continue"

    games.play_match(out, [i for i in range(n_games) if i + 1 not in done], "csa", play_one, on_result,
                     args.concurrency)
    s = games.finish(out, tally.summary(sprt, args.sprt_model), a.name, b.name)
    if log:
        log_result(log, s, meta, args.change, out)
    return s


# What must match for a resumed match to go on where the first run stopped (a match folder
# written before a key existed holds that key's default).
RESUME_KEYS = {"A": None, "B": None, "byoyomi": None, "openings": None, "max_plies": None, "rule": None,
               "sprt": None, "shuffle": None, "skip_openings": 0}


def resume_difference(old: dict, new: dict) -> str | None:
    for key, default in RESUME_KEYS.items():
        if old.get(key, default) != new.get(key, default):
            return key
    return None


# What may differ between the parts of one match: where each part starts in the openings, how
# many games ran at once, when it ran, and its SPRT.
PART_SETTINGS = ("skip_openings", "concurrency", "loadavg_start", "start", "sprt")


def read_parts(dirs):
    """[(folder, match.json, results)] of the folders of one match, played in parts on disjoint
    openings (`--skip-openings`); refused with a one-line reason otherwise."""
    parts = games.read_match_folders(dirs)
    first, openings = parts[0], {}
    for i, (d, meta, rows) in enumerate(parts):
        differs = [k for k in set(meta) | set(first[1])
                   if k not in PART_SETTINGS and meta.get(k) != first[1].get(k)]
        if differs:
            raise SystemExit(f"--summarize: {d} holds another match than {first[0]} "
                             f"({', '.join(sorted(differs))} differ)")
        for r in rows:
            opening = meta.get("skip_openings", 0) + r["pair"]
            if openings.setdefault(opening, i) != i:
                raise SystemExit(f"--summarize: opening {opening + 1} was played in both "
                                 f"{parts[openings[opening]][0]} and {d}")
    return parts


def summarize(out, model="penta", sprt=None):
    """Summary of the games recorded so far in out/results.jsonl (for interrupted matches); `out`
    may also be a list of folders of one match played in parts on disjoint openings.

    `sprt` replaces the match's own SPRT (or gives one to a fixed match).  The test is then also
    run sequentially over the games in the order they finished (folder by folder), as a run with
    that --sprt would have run it, and "decided_after" is the number of games at its first
    decision (None if it never decided)."""
    parts = read_parts(out if isinstance(out, list) else [out])
    meta = parts[0][1]
    sprt = sprt or meta.get("sprt")
    tally = Tally()
    decided = None
    for _, part_meta, rows in parts:
        for r in rows:
            # Pairs are numbered by opening, so that the pairs of different parts stay apart.
            tally.add(part_meta.get("skip_openings", 0) + r["pair"], r["a_colour"], r)
            if sprt and decided is None:
                status = tally.summary(sprt, model)["sprt"]["status"]
                if status != "continue":
                    decided = (tally.w + tally.d + tally.l, status)
    s = tally.summary(sprt, model)
    if sprt:
        s["sprt"]["decided_after"] = decided[0] if decided else None
        s["sprt"]["first_decision"] = decided[1] if decided else None
    s["A"], s["B"] = meta["A"]["name"], meta["B"]["name"]
    print_summary(s, s["A"], s["B"])
    return s


if __name__ == "__main__":
    main()
