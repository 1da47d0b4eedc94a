#!/usr/bin/env python3
"""kirin yari shogi match referee: pyffish judges, the engines speak USI.

Plays engine A (kirin unless told otherwise) against engine B (Fairy-Stockfish compiled to
WebAssembly, run by node) in yari shogi, from random openings (a few seeded random legal plies
from the start position), each opening twice with colours swapped, and reports W/D/L from A's
point of view, Elo with a 95 % margin (trinomial and pentanomial) and each engine's faults.

Rules authority: pyffish (Fairy-Stockfish's rules as a library).  Every move an engine sends is
checked against pyffish's legal moves; an illegal or unparseable move, a crash and a late or
missing `bestmove` lose at once.  The game ends on checkmate or stalemate (no legal move loses),
the third occurrence of a position (a draw, or a loss for the side that gave check with every
move of the cycle), resignation, a judged `bestmove win` (the impasse count of the rules
document, which pyffish lacks) or the ply cap (a draw).

See tuning/README.md ("Yari shogi matches") for the commands, tuning/notes/yari.md for the
referee's rules and the games played.  The rules, the game and match loops and the statistics
are the package tuning/referee (referee/yari.py); this is its command line for yari shogi.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import sys
from pathlib import Path

import pyffish as sf

TUNING = Path(__file__).resolve().parent
sys.path.insert(0, str(TUNING))

from referee import engines, games, stats  # noqa: E402
from referee.games import BLACK, WHITE  # noqa: E402,F401  (the tests use them from here)
from referee.yari import (  # noqa: E402,F401  (the tests use them from here)
    START_FEN, VARIANT, YariGame, play_game, random_opening, usi_move)

from yari_oracle import sfen_to_fen  # noqa: E402,F401  (on the path from referee.yari; the tests use it from here)

FAIRY_JS = TUNING / "node_modules" / "fairy-stockfish-nnue.wasm" / "uci.js"


# ----------------------------------------------------------------------------------------------
# Engines
# ----------------------------------------------------------------------------------------------
FAIRY_MARGIN_MS = 1000
FAIRY_NAMES = ("fairy", "fairy-stockfish", "fsf", "fairy-wasm")
GO_MODES = ("movetime", "byoyomi")


def parse_engine(text: str, default_margin: int):
    """NAME[,key=value...] as in match.py (name=, cmd=, margin=, margin_pct=, opt.X=) plus
    go=movetime|byoyomi.  NAME `fairy` is the WebAssembly Fairy-Stockfish run by node.
    Returns (EngineSpec, go mode)."""
    parts = text.split(",")
    go = None
    kept = []
    for kv in parts[1:]:
        k, _, v = kv.partition("=")
        if k == "go":
            if v not in GO_MODES:
                raise SystemExit(f"go={v}: expected one of {', '.join(GO_MODES)}")
            go = v
        else:
            kept.append(kv)
    head = parts[0]
    fairy = head in FAIRY_NAMES
    spec = engines.parse_engine_spec(",".join(["fairy-wasm" if fairy else head] + kept))
    if not any(kv.startswith("margin=") for kv in kept):
        # The WebAssembly build overruns short move times on a loaded machine (100 ms asked, up to
        # 364 ms measured at load 2.6 on 2 cores): a wide margin keeps its overruns from being
        # counted as the other engine's wins.  Its times are still reported.
        spec.margin_ms = FAIRY_MARGIN_MS if fairy else default_margin
    if fairy:
        spec.name = next((kv[5:] for kv in kept if kv.startswith("name=")), "fairy")
        if not any(kv.startswith("cmd=") for kv in kept):
            spec.cmd = ["node", "--no-experimental-fetch", str(FAIRY_JS)]
    spec.options.pop("UCI_Variant", None)  # always sent, see play_game
    # `go movetime N` by default: Fairy-Stockfish keeps it to the millisecond while with `go btime 0
    # wtime 0 byoyomi N` it stops about 10 % early, and kirin spends a movetime whole (less its
    # delay margin) where a byoyomi budget may stop early; movetime is "N ms a move" for both.
    return spec, go or "movetime"


# ----------------------------------------------------------------------------------------------
# The match
# ----------------------------------------------------------------------------------------------
def check_engine(spec):
    games.require_engine(spec.name, spec.cmd, spec.build)
    for a in spec.cmd[1:]:
        if a.endswith("uci.js") and not Path(a).exists():
            raise SystemExit(f"{spec.name}: {a} not found (install it: bash tuning/setup.sh)")


def run_match(args) -> dict:
    a, go_a = parse_engine(args.engine, args.margin)
    b, go_b = parse_engine(args.opponent, args.margin)
    for s in (a, b):
        check_engine(s)
    if a.name == b.name:
        b.name += "-B"
    pairs = (args.games + 1) // 2
    rng = random.Random(args.seed)
    openings = [random_opening(rng, args.random_plies) for _ in range(pairs)]
    stamp = games.time_stamp()
    out = Path(args.out) if args.out else games.match_folder(games.data_dir() / "yari-match", stamp, a.name, b.name)
    out.mkdir(parents=True, exist_ok=True)
    meta = {"A": dict(dataclasses.asdict(a), go=go_a), "B": dict(dataclasses.asdict(b), go=go_b),
            "movetime": args.movetime, "games": args.games, "seed": args.seed,
            "random_plies": args.random_plies, "openings": [" ".join(o) for o in openings],
            "max_plies": args.max_plies, "first_game": args.first_game, "concurrency": args.concurrency,
            "loadavg_start": os.getloadavg(), "start": stamp}
    done = games.finished_games(out, meta, args.games, resume_difference) if args.resume else {}
    # The games before --first-game belong to another part of the match, on the same openings.
    todo = [i for i in range(args.first_game - 1, args.games) if i + 1 not in done]
    if done and not todo:
        # finished_games counts from game 1; a part that starts later is complete sooner.
        raise SystemExit(f"--resume: {out} already has games {args.first_game}-{args.games}")
    if done:
        meta["resumed"] = stamp
    (out / "match.json").write_text(json.dumps(meta, indent=1))
    if not args.quiet:
        print(f"yari shogi: {a.name} (go {go_a}, margin {a.margin_ms} ms) vs {b.name} (go {go_b}, margin "
              f"{b.margin_ms} ms), {args.movetime} ms a move; {args.games} games, {args.random_plies} random "
              f"plies (seed {args.seed}), concurrency {args.concurrency}; records in {out}", flush=True)

    tally = stats.Tally()
    results = [done[g] for g in sorted(done)]
    for res in results:
        tally.add(res["pair"], res["a_colour"], res)
    if done and not args.quiet:
        s = tally.summary()
        print(f"resuming after {len(done)} games: W{s['W']} D{s['D']} L{s['L']}", flush=True)

    def play_one(i, rec):
        pair, a_black = games.game_pairing(i)
        specs = {BLACK: (a, go_a), WHITE: (b, go_b)} if a_black else {BLACK: (b, go_b), WHITE: (a, go_a)}
        res = play_game(specs, openings[pair], args.movetime, args.max_plies, rec, log_dir=out if args.logs else None)
        res.update(game=i + 1, pair=pair, a_colour="black" if a_black else "white", loadavg=os.getloadavg()[0])
        return res

    def on_result(res):
        tally.add(res["pair"], res["a_colour"], res)
        results.append(res)
        if not args.quiet:
            print(games.game_line(res, a.name, tally.summary()), flush=True)

    games.play_match(out, todo, "txt", play_one, on_result,
                     args.concurrency)
    s = games.finish(out, tally.summary(), a.name, b.name)
    s["results"] = sorted(results, key=lambda r: r["game"])
    s["out"] = str(out)
    return s


# What must match for a resumed match to go on where the first run stopped. The openings are
# compared as far as both go: a longer match draws more of them from the same seed.
RESUME_KEYS = {"A": None, "B": None, "movetime": None, "seed": None, "random_plies": None,
               "max_plies": None, "first_game": 1}


def resume_difference(old: dict, new: dict) -> str | None:
    """The first setting in which two match records differ, None when they are one match."""
    for key, default in RESUME_KEYS.items():
        if old.get(key, default) != new.get(key, default):
            return key
    shared = min(len(old.get("openings", [])), len(new.get("openings", [])))
    if old.get("openings", [])[:shared] != new.get("openings", [])[:shared]:
        return "openings"
    return None


def replay_ok(res: dict) -> str | None:
    """Independent check of a finished game: every move legal in pyffish, replayed from scratch.
    Returns None or what is wrong."""
    moves: list = []
    for u in res["moves"]:
        legal = {usi_move(m): m for m in sf.legal_moves(VARIANT, START_FEN, moves)}
        if u not in legal:
            return f"move {len(moves) + 1} {u} not legal"
        moves.append(legal[u])
    return None


def rule_checks() -> list:
    """The adjudication on hand-made sequences (pyffish's yari rules: the third occurrence ends
    the game; a cycle of checks loses for the checker).  Returns the failures."""
    fails = []
    g = YariGame()
    seq = ["1i1h", "1a1b"] + ["1h2h", "1b2b", "2h1h", "2b1b"] * 2
    for k, u in enumerate(seq):
        if not g.push(u):
            fails.append(f"repetition sequence: {u} refused")
            break
        st = g.adjudicate()
        want = (None, "repetition") if k == len(seq) - 1 else None
        if st != want:
            fails.append(f"repetition sequence after {k + 1} plies: {st}, expected {want}")
            break
    if g.push("7g7e"):
        fails.append("7g7e (a two-square pawn move) accepted")
    if g.push("P*5e"):
        fails.append("P*5e with no pawn in hand accepted")
    # Perpetual check: Black's promoted rook checks the king on the 1st/2nd file for ever.
    g = YariGame(start_fen="6k/7/7/7/7/5+R1/7/7/K6[] w - - 0 1")
    seq = ["2f1f", "1a2a", "1f2f", "2a1a"] * 2  # the start position for the third time
    for k, u in enumerate(seq):
        if not g.push(u):
            fails.append(f"perpetual check sequence: {u} refused")
            break
        st = g.adjudicate()
        want = (WHITE, "perpetual check") if k == len(seq) - 1 else None
        if st != want:
            fails.append(f"perpetual check sequence after {k + 1} plies: {st}, expected {want}")
            break
    return fails


def selftest(args) -> int:
    fails = rule_checks()
    for f in fails:
        print(f"selftest: {f}", file=sys.stderr)
    ns = argparse.Namespace(**vars(args))
    ns.engine, ns.opponent, ns.games, ns.movetime = "fairy", "fairy", 2, 100
    s = run_match(ns)
    for r in s["results"]:
        if r["faulty"]:
            fails.append(f"game {r['game']}: {r['reason']} ({r['detail']})")
        if r["reason"] not in ("checkmate", "stalemate", "repetition", "perpetual check", "max plies",
                               "resign", "impasse"):
            fails.append(f"game {r['game']} ended by {r['reason']}")
        bad = replay_ok(r)
        if bad:
            fails.append(f"game {r['game']}: {bad}")
        if r["plies"] <= r["opening_plies"]:
            fails.append(f"game {r['game']}: no engine move played")
    print("selftest: " + ("FAILED: " + "; ".join(fails) if fails else
                          f"ok (rules checks, {len(s['results'])} fairy games, every move accepted)"))
    return 1 if fails else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default="kirin", help="engine A (results are from its view): kirin | "
                    "kirin@REV | fairy | PATH, then ,key=value (match.py's keys plus go=movetime|byoyomi)")
    ap.add_argument("--opponent", default="fairy", help="engine B, same syntax")
    ap.add_argument("--movetime", type=int, default=300, help="ms per move (default 300)")
    ap.add_argument("--margin", type=int, default=200,
                    help="ms past --movetime before a move loses on time, unless the engine says margin=")
    ap.add_argument("--games", type=int, default=100, help="number of games (pairs of one opening)")
    ap.add_argument("--random-plies", type=int, default=4, help="random legal plies of each opening")
    ap.add_argument("--seed", type=int, default=1, help="seed of the openings")
    ap.add_argument("--max-plies", type=int, default=300, help="a draw after this many plies")
    ap.add_argument("--first-game", type=int, default=1, metavar="K",
                    help="play games K to --games only, on the openings and colours the whole match draws "
                    "from --seed: a part of a match whose other games are played elsewhere")
    ap.add_argument("--concurrency", type=int, default=1, choices=[1, 2], help="games at once")
    ap.add_argument("--out", default=None, help="records folder (default $KIRIN_DATA/yari-match/<time>-A-vs-B, "
                    "KIRIN_DATA defaulting to ~/kirin-data)")
    ap.add_argument("--logs", action="store_true", help="keep each engine's stderr")
    ap.add_argument("--resume", action="store_true",
                    help="go on with the interrupted match in --out (same engines and settings; its finished "
                    "games count, the games cut off are played again)")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--selftest", action="store_true",
                    help="check the adjudication on fixed sequences, then play 2 games fairy vs fairy at "
                    "100 ms and check every move was accepted; exit status 1 on failure")
    args = ap.parse_args(argv)
    if args.games < 1 or args.movetime < 1 or args.random_plies < 0:
        raise SystemExit("--games and --movetime must be positive, --random-plies not negative")
    if not 1 <= args.first_game <= args.games:
        raise SystemExit("--first-game must be between 1 and --games")
    if args.resume and not args.out:
        raise SystemExit("--resume needs --out, the folder of the match to go on with")
    if args.selftest:
        return selftest(args)
    run_match(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
