#!/usr/bin/env python3
"""kirin dai shogi referee: kirin's rules judge every move; HaChu (XBoard) and USI engines play.

Plays engine A against engine B in dai shogi from seeded random openings (random legal plies from
the start position), each opening twice with colours swapped, and reports W/D/L from A's point of
view, Elo (trinomial and pentanomial) and each engine's faults.  Engines are
HaChu (`/usr/games/hachu`, XBoard protocol, `variant dai`) or USI engines (kirin with
`setoption name UCI_Variant value daishogi`).

Rules authority: `kirin judge` (src/judge.rs), kirin's own dai rules as a line service.  Every move
is checked by it; an illegal or unparseable move, a crash or a late move loses.  Every move is also
given to each HaChu in the game (both of them in a HaChu-HaChu game), and HaChu must accept it: a
refusal (`Illegal move`) ends the game as a loss for the mover and is reported as a disagreement.
So with HaChu against itself every HaChu move is checked by kirin's rules, and with kirin against
HaChu every kirin move is checked by HaChu.  The cross-check also compares end-of-game verdicts
(HaChu resigns when every move loses its king: the judge must say `mated` there; where the judge says
a side can take all of the opponent's royals, HaChu to move must take them) and, with --lift N,
HaChu's move highlighting (XBoard `lift`) of N pieces per position with the judge's `targets` and
the lion moves of every piece with lion power.

End of game (kirin's rules, ../shared/docs/dai.md): all royals of a side captured, a side without a
move, or the ply cap (a draw).  Royals left en prise: there is no duty to leave check, so by the rules
the game goes on until the royals are taken; but HaChu, once a side has left its last royal
capturable, refuses every further move in force mode (the capture included).  The referee therefore
ends the game as soon as the side to move can capture all of the opponent's royals (judge state
`en-prise`): the side to move wins ("royal en prise"); if that side is HaChu, it is first asked
for its move, which must take the royals (a verdict comparison; not given to the other engine).
A resignation or a result claim by HaChu is compared with the judge's state.

Declined pawns (--declined-pawn): HaChu 0.21 refuses the promotion of a pawn that has declined one
before, but on a capture onto the last rank; ../shared/docs/dai.md keeps every capture in the zone
a chance.  With a HaChu in the game the referee plays by HaChu's rule (`last-rank`): the judge runs
with `--declined-pawn last-rank` and USI engines that declare `DaiDeclinedPawn` are set to it, so
the engines play the same rules; otherwise dai.md's (`keep-chances`).

See tuning/README.md ("Dai shogi matches") for the commands, tuning/notes/dai.md ("Dai shogi
against HaChu") for what is checked and the games played.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import sys
from pathlib import Path

TUNING = Path(__file__).resolve().parent
sys.path.insert(0, str(TUNING))

from referee import engines, games, stats  # noqa: E402
from referee.dai import (  # noqa: E402,F401  (the tests use them from here)
    DECLINED_PAWN_RULES, Judge, Spec, USIEngine, capture_check, declined_pawn_rule, play_game, random_opening,
    sfen_board)
from referee.games import BLACK, WHITE  # noqa: E402,F401  (the tests use them from here)
from referee.hachu import (  # noqa: E402,F401  (the tests use them from here)
    NotationError, XBoardEngine, hachu_to_kirin, hachu_to_kirin_square, kirin_to_hachu, kirin_to_hachu_square,
    parse_highlight)

HACHU = "/usr/games/hachu"
# A HaChu spec's keys: the Spec field each sets and how its text is read.
HACHU_KEYS = {"depth": ("depth", int), "st": ("st", int), "memory": ("memory", int), "name": ("name", str),
              "cmd": ("cmd", str.split), "margin": ("margin_ms", int)}


def parse_engine(text: str, margin: int) -> Spec:
    """`hachu[,depth=N][,st=S][,memory=MB][,name=X][,cmd=...][,margin=MS]` for XBoard engines;
    anything else is a USI engine in match.py's syntax (kirin, kirin@REV, PATH, then key=value)."""
    parts = text.split(",")
    head, kvs = parts[0], parts[1:]
    if head == "hachu" or head.endswith("/hachu"):
        spec = Spec("hachu", "xboard", [HACHU if head == "hachu" else head], margin_ms=margin)
        for kv in kvs:
            k, _, v = kv.partition("=")
            if k not in HACHU_KEYS:
                raise ValueError(f"unknown HaChu key {k!r} in {text!r}")
            field, parse = HACHU_KEYS[k]
            setattr(spec, field, parse(v))
        return spec
    usi = engines.parse_engine_spec(text)
    if not any(kv.startswith("margin=") for kv in kvs):
        usi.margin_ms = margin
    return Spec(usi.name, "usi", usi.cmd, margin_ms=usi.margin_ms, usi=usi)


# ----------------------------------------------------------------------------------------------
# The match
# ----------------------------------------------------------------------------------------------
def check_engine(spec: Spec):
    hint = "install it: bash tuning/setup.sh" if spec.kind == "xboard" else "build kirin: cargo build --release"
    games.require_engine(spec.name, spec.cmd, spec.usi.build if spec.usi else None, hint)


def run_match(args) -> dict:
    a = parse_engine(args.engine, args.margin)
    b = parse_engine(args.opponent, args.margin)
    for s in (a, b):
        check_engine(s)
    if a.name == b.name:
        b.name += "-B"
    judge = Judge(args.judge, declined_pawn=declined_pawn_rule(args.declined_pawn, (a, b)))
    if args.positions:
        # One game a line, engine A on the colour the line names: no pairs.
        starts = read_positions(args.positions, judge)[:args.games]
        args.games = len(starts)
        openings = [moves for _, moves in starts]
        colours = [colour for colour, _ in starts]
    else:
        pairs = (args.games + 1) // 2
        rng = random.Random(args.seed)
        openings = [random_opening(judge, rng, args.random_plies) for _ in range(pairs)]
        colours = None
    stamp = games.time_stamp()
    out = Path(args.out) if args.out else games.match_folder(games.data_dir() / "dai-match", stamp, a.name, b.name)
    out.mkdir(parents=True, exist_ok=True)
    meta = {"A": dataclasses.asdict(a), "B": dataclasses.asdict(b), "movetime": args.movetime,
            "games": args.games, "first_game": args.first_game, "seed": args.seed, "random_plies": args.random_plies,
            "openings": [" ".join(o) for o in openings], "positions": colours, "max_plies": args.max_plies,
            "lift": args.lift,
            "judge": judge.cmd[0], "declined_pawn": judge.declined_pawn, "loadavg_start": os.getloadavg(), "start": stamp}
    done = games.finished_games(out, meta, args.games, match_difference, first=args.first_game) if args.resume else {}
    if done:
        meta["resumed"] = stamp
    (out / "match.json").write_text(json.dumps(meta, indent=1, default=str))
    if not args.quiet:
        print(f"dai shogi: {a.name} vs {b.name}, {args.movetime} ms a move; {args.games} games, "
              + (f"from the positions of {args.positions}, " if colours else
                 f"{args.random_plies} random plies (seed {args.seed}), ")
              + f"ply cap {args.max_plies}, "
              f"lift {args.lift} pieces a position; declined pawns: {judge.declined_pawn}; records in {out}",
              flush=True)
    totals = Totals()
    for g in sorted(done):
        totals.add(done[g])
    if done and not args.quiet:
        s = totals.tally.summary()
        print(f"resuming after {len(done)} games: W{s['W']} D{s['D']} L{s['L']}", flush=True)

    def play_one(i, rec):
        pair, a_black = (i, colours[i] == "black") if colours else games.game_pairing(i)
        specs = {BLACK: a, WHITE: b} if a_black else {BLACK: b, WHITE: a}
        res = play_game(judge, specs, openings[pair], args.movetime, args.max_plies, rec, lift=args.lift,
                        seed=args.seed * 100003 + i, log_dir=out if args.logs else None)
        res.update(game=i + 1, pair=pair, a_colour="black" if a_black else "white", loadavg=os.getloadavg()[0])
        for d in res["disagreements"]:
            d["game"] = i + 1
        return res

    with open(out / "disagreements.jsonl", "a") as dis_f:

        def on_result(res):
            for d in res["disagreements"]:
                dis_f.write(json.dumps(d) + "\n")
            dis_f.flush()
            totals.add(res)
            if not args.quiet:
                print(games.game_line(res, a.name, totals.tally.summary(),
                                      f", {len(res['disagreements'])} disagreements"), flush=True)

        # One game at a time: --resume and --first-game count on the games finishing in order.
        games.play_match(out, range(args.first_game - 1 + len(done), args.games), "txt", play_one, on_result)
    judge.close()
    s = games.finish(out, totals.summary(), a.name, b.name,
                     lambda s, f: print_cross(s, totals.disagreements, file=f))
    s["results"] = totals.results
    s["disagreement_list"] = totals.disagreements
    s["out"] = str(out)
    return s


# What must match for a resumed match to go on where the first run stopped.
def read_positions(path: str, judge: Judge) -> list:
    """The start positions of a --positions file: (engine A's colour, the moves from the start
    position) per line, each line `black|white MOVE...` in kirin's notation; `#` lines and blank
    lines are skipped. Every line is checked by the judge (legal moves, a game still going on);
    a bad line stops the match before any game with its line number."""
    starts = []
    try:
        lines = Path(path).read_text().splitlines()
    except OSError as e:
        raise SystemExit(f"--positions: cannot read {path}: {e}")
    for n, line in enumerate(lines, 1):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] not in ("black", "white"):
            raise SystemExit(f"--positions: {path}:{n}: the line must begin with black or white")
        answer = judge.check(words[1:])
        if answer[:2] != ["ok", "ongoing"]:
            raise SystemExit(f"--positions: {path}:{n}: not a game going on: {' '.join(answer)}")
        starts.append((words[0], words[1:]))
    if not starts:
        raise SystemExit(f"--positions: {path} has no position")
    return starts


# The openings are checked apart: a longer match draws more of them from the same seed.
RESUME_KEYS = ("A", "B", "movetime", "first_game", "seed", "random_plies", "max_plies", "lift", "declined_pawn",
               "positions")
# Keys that records written before the key existed lack, with the value they had.
RESUME_DEFAULTS = {"first_game": 1}


def match_difference(old: dict, new: dict, ignore=()) -> str | None:
    """The first setting (or `openings`) in which two match records differ, None when they are
    one match. The openings are compared as far as both go: a longer match draws more of them
    from the same seed."""
    for key in RESUME_KEYS:
        if key not in ignore and old.get(key, RESUME_DEFAULTS.get(key)) != new.get(key, RESUME_DEFAULTS.get(key)):
            return key
    shared = min(len(old.get("openings", [])), len(new.get("openings", [])))
    if old.get("openings", [])[:shared] != new.get("openings", [])[:shared]:
        return "openings"
    return None


class Totals:
    """W/D/L, times and cross-check counts over a match's games."""

    def __init__(self):
        self.tally = stats.Tally()
        self.cross: dict = {}
        self.disagreements: list = []
        self.results: list = []

    def add(self, res: dict):
        self.tally.add(res["pair"], res["a_colour"], res)
        for k, v in res["cross"].items():
            self.cross[k] = self.cross.get(k, 0) + v
        self.disagreements.extend(res["disagreements"])
        self.results.append(res)

    def summary(self) -> dict:
        s = self.tally.summary()
        s["plies"] = sum(r["plies"] for r in self.results)
        s["at_cap"] = pieces_at_cap(self.results)
        s["cross"] = self.cross
        s["disagreements"] = len(self.disagreements)
        return s


def pieces_at_cap(results: list) -> dict:
    """The games that reached the ply cap, and the mean number of pieces A and B had left in
    them (records written before the count have none and are left out)."""
    rows = [r for r in results if r.get("reason") == "max plies" and r.get("final_pieces")]
    out = {"games": len(rows)}
    if rows:
        other = {"black": "white", "white": "black"}
        out["A"] = sum(r["final_pieces"][r["a_colour"]] for r in rows) / len(rows)
        out["B"] = sum(r["final_pieces"][other[r["a_colour"]]] for r in rows) / len(rows)
    return out


def summarize(dirs: list, file=sys.stdout) -> dict:
    """One summary of a match played in parts (folders of `--first-game` runs): the folders must
    hold the same match (engines, settings, openings) and no game twice."""
    parts = games.read_match_folders(dirs)
    first_meta = parts[0][1]
    for d, meta, _ in parts[1:]:
        differs = match_difference(first_meta, meta, ignore=("first_game",))
        if differs:
            raise SystemExit(f"--summarize: {d} holds another match than {parts[0][0]} ({differs} differs)")
    seen: dict = {}
    results = []
    for d, _, rows in parts:
        for r in rows:
            if r.get("game") in seen:
                raise SystemExit(f"--summarize: game {r.get('game')} is in both {seen[r['game']]} and {d}")
            seen[r.get("game")] = d
            results.append(r)
    totals = Totals()
    for r in sorted(results, key=lambda r: r["game"]):
        totals.add(r)
    s = totals.summary()
    s["game_numbers"] = [r["game"] for r in totals.results]
    a, b = first_meta["A"]["name"], first_meta["B"]["name"]
    print(f"dai shogi: {a} vs {b}, {first_meta['movetime']} ms a move; games "
          f"{compact_ranges(s['game_numbers'])} from {len(parts)} folder(s)", file=file)
    stats.print_summary(s, a, b, file=file)
    print_cross(s, totals.disagreements, file=file)
    return s


def compact_ranges(numbers: list) -> str:
    """[1, 2, 3, 7, 9, 10] -> '1-3, 7, 9-10'."""
    out: list = []
    for n in sorted(numbers):
        if out and out[-1][1] == n - 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in out) or "none"


def print_cross(s: dict, disagreements: list, file=sys.stdout):
    c = s["cross"]
    print(f"  plies {s['plies']}; moves judged by kirin {c.get('judged', 0)} (HaChu's {c.get('hachu_moves_judged', 0)}); "
          f"moves given to HaChu {c.get('told_hachu', 0)}; lift {c.get('lift_agreed', 0)}/{c.get('lift_compared', 0)} "
          f"agreed; lion-move probes {c.get('probes_agreed', 0)}/{c.get('probes', 0)} agreed; "
          f"verdicts {c.get('verdicts_agreed', 0)}/{c.get('verdicts_compared', 0)} agreed (HaChu played on "
          f"when mated {c.get('played_on_mated', 0)} times); "
          f"disagreements {len(disagreements)}", file=file)
    for d in disagreements[:50]:
        print(f"  game {d.get('game')} ply {d['ply']}: {d['kind']}: {d['detail']}", file=file)
    cap = s.get("at_cap", {})
    if "A" in cap:
        print(f"  at the ply cap: {cap['games']} games, pieces left {cap['A']:.1f} (A) and {cap['B']:.1f} (B) "
              f"on average", file=file)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default="kirin", help="engine A (results are from its view): "
                    "hachu[,depth=N][,st=S][,memory=MB] | kirin | kirin@REV | PATH[,key=value as match.py]")
    ap.add_argument("--opponent", default="hachu", help="engine B, same syntax")
    ap.add_argument("--movetime", type=int, default=1000,
                    help="ms per move (USI `go movetime`; HaChu's clock, unless depth= or st=)")
    ap.add_argument("--margin", type=int, default=1000, help="ms past --movetime before a move loses on time")
    ap.add_argument("--games", type=int, default=None,
                    help="number of games (pairs of one opening; default 2, or every line of --positions)")
    ap.add_argument("--first-game", type=int, default=1,
                    help="play games FIRST..GAMES of the match only (the openings are drawn as for the whole "
                    "match), for a match whose earlier games were played elsewhere")
    ap.add_argument("--random-plies", type=int, default=6, help="random legal plies of each opening")
    ap.add_argument("--positions", default=None, metavar="FILE",
                    help="play from these positions instead of random openings: one game a line, "
                    "`black|white MOVE...` (engine A's colour, then the moves from the start position), "
                    "for instance won positions to see how quickly an engine finishes them")
    ap.add_argument("--seed", type=int, default=1, help="seed of the openings and of the lift samples")
    ap.add_argument("--max-plies", type=int, default=600, help="a draw after this many plies")
    ap.add_argument("--lift", type=int, default=0,
                    help="compare HaChu's highlighted targets with kirin's for this many pieces a position, "
                    "and ask both about every lion move (igui, double capture, pass)")
    ap.add_argument("--judge", default=None, help="kirin binary for `kirin judge` (default $KIRIN_JUDGE, "
                    "else $KIRIN_BIN, else target/release/kirin)")
    ap.add_argument("--out", default=None, help="records folder (default $KIRIN_DATA/dai-match/<time>-A-vs-B, "
                    "KIRIN_DATA defaulting to ~/kirin-data)")
    ap.add_argument("--declined-pawn", choices=("auto",) + DECLINED_PAWN_RULES, default="auto",
                    help="whether a pawn that declined a promotion keeps its chances (keep-chances, dai.md) "
                    "or gets none but a capture onto the last rank (last-rank, HaChu's rule); the judge "
                    "and every USI engine that declares DaiDeclinedPawn play by it; auto (default): "
                    "last-rank when a HaChu plays")
    ap.add_argument("--resume", action="store_true",
                    help="go on with the interrupted match in --out (same engines and settings): "
                    "its finished games count, the next one is played")
    ap.add_argument("--summarize", metavar="DIR[,DIR..]", default=None,
                    help="print one summary of the games in these folders (parts of one match played with "
                    "--first-game) and exit; nothing is played")
    ap.add_argument("--logs", action="store_true", help="keep each engine's protocol log")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    if args.summarize:
        s = summarize([d for d in args.summarize.split(",") if d])
        return 1 if s["disagreements"] else 0
    if args.games is None:
        # With --positions, every line: run_match cuts this to the file's count once it has read it.
        args.games = 10**6 if args.positions else 2
    if not 1 <= args.first_game <= args.games:
        raise SystemExit("--first-game must be between 1 and --games")
    if args.games < 1 or args.movetime < 1 or args.random_plies < 0 or args.lift < 0:
        raise SystemExit("--games and --movetime must be positive, --random-plies and --lift not negative")
    if args.resume and not args.out:
        raise SystemExit("--resume needs --out: the folder of the match to go on with")
    s = run_match(args)
    return 1 if s["disagreements"] else 0


if __name__ == "__main__":
    sys.exit(main())
