#!/usr/bin/env python3
"""The summary of a ShogiArena tournament run with match.py's statistics, so that a match played
by both runners is compared with one set of formulas: W/D/L and Elo (trinomial, and pentanomial
over the pairs of games from one opening), endings, faults, and games per hour of wall time.

    .venv/bin/python tuning/arena_summary.py RUN_DIR [RUN_DIR..] [--engine NAME] [--byoyomi MS]

RUN_DIR is a `shogiarena run tournament --run-dir` folder (its game.db); several are summed as one
match (a run that finished games of another: pairs never span two runs). Results are from the
view of --engine (default: the first engine of the first game). Games an hour count each played
game's own span, start to end, so a run's pauses do not count (nor, with games in parallel, does the
parallelism: divide by it). Games ShogiArena recorded
without a result (ERROR, PAUSED) are counted apart and left out of the Elo, as ShogiArena
leaves them out of its own."""

from __future__ import annotations

import argparse
import sqlite3
import sys
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from referee.stats import Tally, print_summary  # noqa: E402

# ShogiArena's result names: who won, and the loser's fault where the result names one.
FAULTS = {"TIMEOUT": "time", "ILLEGAL_MOVE": "illegal move"}


def outcome(result: str):
    """(winner, reason, fault) for a ShogiArena result name; None for a game without a result."""
    if result.startswith("DRAW"):
        return "draw", result[len("DRAW_BY_"):].lower().replace("_", " ") or "draw", None
    for colour in ("black", "white"):
        prefix = f"{colour.upper()}_WIN"
        if result.startswith(prefix):
            how = result[len(prefix):].removeprefix("_BY_")
            if how in FAULTS:
                return colour, FAULTS[how], "white" if colour == "black" else "black"
            return colour, how.lower().replace("_", " ") or "checkmate or resignation", None
    return None


def read_games(run: Path):
    """The games in the order played, and each game's (ply, wall ms) of its moves."""
    db = sqlite3.connect(f"file:{run / 'game.db'}?mode=ro", uri=True)
    try:
        games = db.execute(
            "select g.id, g.game_result, g.num_moves, pb.player_name, pw.player_name, g.initial_position_sfen, "
            "g.start_date, g.end_date from game g join player pb on pb.id = g.black_player_id "
            "join player pw on pw.id = g.white_player_id order by g.id").fetchall()
        moves = {}
        for game, ply, ms in db.execute("select game_id, ply, wall_time_ms from game_move"):
            moves.setdefault(game, []).append((ply, ms))
        return games, moves
    finally:
        db.close()


def move_times(moves, first_black: bool, byoyomi: int | None) -> dict:
    """match.py's per-colour time statistics from ShogiArena's clock-charged move times."""
    stats = {c: {"moves": 0, "total_ms": 0.0, "max_ms": 0.0, "over_byoyomi": 0} for c in ("black", "white")}
    if not moves:
        return stats
    first = min(p for p, _ in moves)
    for ply, ms in moves:
        if ms is None:
            continue
        colour = "black" if ((ply - first) % 2 == 0) == first_black else "white"
        t = stats[colour]
        t["moves"] += 1
        t["total_ms"] += ms
        t["max_ms"] = max(t["max_ms"], ms)
        t["over_byoyomi"] += byoyomi is not None and ms > byoyomi
    return stats


def summarize(runs, engine: str | None = None, byoyomi: int | None = None) -> dict:
    runs = [runs] if isinstance(runs, Path) else list(runs)
    rows, moves = [], {}
    for i, run in enumerate(runs):
        got, times = read_games(run)
        # Game ids are per run; the run's index keeps them (and their pairs) apart.
        rows += [((i, r[0]), *r[1:]) for r in got]
        moves.update({(i, g): m for g, m in times.items()})
    if not rows:
        raise SystemExit(f"{', '.join(map(str, runs))}: no games recorded")
    a = engine or rows[0][3]
    names = {r[3] for r in rows} | {r[4] for r in rows}
    if a not in names:
        raise SystemExit(f"{runs[0]}: no engine {a} (engines: {', '.join(sorted(names))})")
    b = next(iter(names - {a}), "?")
    tally, pairs, voided, spans = Tally(), {}, {}, []
    for game, result, plies, black, white, sfen, start, end in rows:
        o = outcome(result)
        if o is None:
            voided[result] = voided.get(result, 0) + 1
            continue
        winner, reason, faulty = o
        # The two games of one opening, colours swapped, make a pair. Opening lines that
        # transpose start from the same position, so its games pair off in the order played.
        key = (game[0], sfen)
        seen = pairs.setdefault(key, 0)
        pairs[key] = seen + 1
        pair = (*key, seen // 2)
        tally.add(pair, "black" if black == a else "white",
                  {"winner": winner, "reason": reason, "faulty": faulty, "plies": plies,
                   "stats": move_times(moves.get(game, []), sfen.split()[1] == "b", byoyomi)})
        # Time spent playing: each game's own span, so that a run stopped and resumed later is
        # not charged for the pause (with games in parallel this counts the overlap once per game).
        if start and end:
            spans.append((datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds())
    s = tally.summary()
    s["A"], s["B"], s["voided"] = a, b, voided
    hours = sum(spans) / 3600
    s["games_per_hour"] = len(spans) / hours if hours else None
    return s


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", type=Path, nargs="+", help="ShogiArena tournament run folders, summed")
    ap.add_argument("--engine", default=None, help="the engine whose view the results take")
    ap.add_argument("--byoyomi", type=int, default=None, metavar="MS", help="count the moves slower than this")
    args = ap.parse_args(argv)
    for run in args.runs:
        if not (run / "game.db").is_file():
            ap.error(f"{run} holds no game.db")
    s = summarize(args.runs, args.engine, args.byoyomi)
    print_summary(s, s["A"], s["B"])
    if s["voided"]:
        print(f"  without a result (left out): {s['voided']}")
    if s["games_per_hour"]:
        print(f"  {s['games_per_hour']:.0f} games an hour of play (each game's start to its end)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
