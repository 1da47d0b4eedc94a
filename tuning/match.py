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

See tuning/README.md for the commands.  Library functions (elo, sprt_llr, declaration_ok,
GameState, play_game) are imported by tuning/test_match.py.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import dataclasses
import datetime as dt
import json
import os
import random
import subprocess
import sys
import threading
from pathlib import Path

import cshogi

sys.path.insert(0, str(Path(__file__).resolve().parent))

from referee.engines import (  # noqa: E402,F401  (the tests and tuning/spsa.py use them from here)
    OUT, REPO, EngineCrash, EngineError, EngineSpec, USIEngine, kill_live_engines, parse_engine_spec)
from referee.stats import (  # noqa: E402,F401  (the tests and tuning/levels.py use them from here)
    Tally, elo_from_score, elo_pentanomial, elo_trinomial, fmt_elo, parse_sprt, print_summary, score_from_elo,
    sprt_bounds, sprt_from_results, sprt_llr, sprt_status)

OPENING_CANDIDATES = [
    os.environ.get("KIRIN_OPENINGS", ""),
    str(REPO.parent / "shared" / "data" / "openings" / "taya36.sfen"),
]

# ----------------------------------------------------------------------------------------------
# Rules: position keys, repetition, perpetual check, entering-king declaration
# ----------------------------------------------------------------------------------------------
BIG_TYPES = {cshogi.BISHOP, cshogi.ROOK, cshogi.PROM_BISHOP, cshogi.PROM_ROOK}
BIG_HAND = {cshogi.HBISHOP, cshogi.HROOK}


def position_key(board: cshogi.Board) -> str:
    """Board, side to move and hands (the SFEN without its move number)."""
    return " ".join(board.sfen().split()[:3])


def _in_camp(sq: int, color: int) -> bool:
    rank = sq % 9  # 0 = rank a
    return rank <= 2 if color == cshogi.BLACK else rank >= 6


def declaration_points(board: cshogi.Board, color: int):
    """(pieces in the enemy camp other than the king, points in camp + hand) for `color`."""
    count = points = 0
    for sq, p in enumerate(board.pieces):
        if p == 0 or (p >= 16) != (color == cshogi.WHITE):
            continue
        pt = p & 15
        if pt == cshogi.KING or not _in_camp(sq, color):
            continue
        count += 1
        points += 5 if pt in BIG_TYPES else 1
    for hp, n in enumerate(board.pieces_in_hand[color]):
        points += n * (5 if hp in BIG_HAND else 1)
    return count, points


def declaration_ok(board: cshogi.Board, rule: str = "27") -> bool:
    """May the side to move declare a win (`bestmove win`) under the CSA 24/27-point rule?

    King in the enemy camp (its far three ranks), not in check, at least 10 other own pieces in
    that camp, points (rook/bishop, promoted or not, 5; others 1; camp + hand) >= 28 for Black and
    27 for White under rule 27, >= 31 under rule 24.  (Time remaining is the caller's business.)
    """
    c = board.turn
    if not _in_camp(board.king_square(c), c) or board.is_check():
        return False
    count, points = declaration_points(board, c)
    need = 31 if rule == "24" else (28 if c == cshogi.BLACK else 27)
    return count >= 10 and points >= need


def parse_position_line(line: str):
    """'startpos moves ...' / 'sfen ... moves ...' -> (sfen or None for startpos, [usi moves])."""
    toks = line.split()
    if toks and toks[0] == "position":
        toks = toks[1:]
    if toks[0] == "startpos":
        sfen, rest = None, toks[1:]
    elif toks[0] == "sfen":
        sfen, rest = " ".join(toks[1:5]), toks[5:]
    else:
        raise ValueError(f"bad opening line: {line!r}")
    if rest and rest[0] == "moves":
        rest = rest[1:]
    return sfen, rest


class GameState:
    """Board plus the history the referee needs (keys and check flags per ply)."""

    def __init__(self, sfen: str | None = None, max_plies: int = 320):
        self.board = cshogi.Board(sfen) if sfen else cshogi.Board()
        self.start_sfen = sfen
        self.start_ply = self.board.move_number - 1  # plies before our first move (usually 0)
        self.max_plies = max_plies
        self.moves: list[str] = []
        self.keys = [position_key(self.board)]
        self.gave_check = [False]  # gave_check[i]: the move leading to keys[i] gave check
        self.movers = [None]  # colour that made the move leading to keys[i]
        self.counts = {self.keys[0]: 1}

    @property
    def ply(self) -> int:
        return self.start_ply + len(self.moves)

    def parse_legal(self, usi: str):
        """The cshogi move for `usi` if legal in the current position, else None."""
        try:
            m = self.board.move_from_usi(usi)
        except Exception:
            return None
        if not m or not self.board.is_legal(m):
            return None
        # is_legal covers pseudo-legality, own king, nifu, dead squares, uchifuzume; double-check
        # against the full generator (which includes the useless non-promotions).
        if m not in set(self.board.legal_moves):
            return None
        return m

    def push(self, usi: str) -> bool:
        m = self.parse_legal(usi)
        if m is None:
            return False
        mover = self.board.turn
        self.board.push(m)
        self.moves.append(usi)
        k = position_key(self.board)
        self.keys.append(k)
        self.gave_check.append(self.board.is_check())
        self.movers.append(mover)
        self.counts[k] = self.counts.get(k, 0) + 1
        return True

    def position_command(self) -> str:
        head = "position startpos" if self.start_sfen is None else f"position sfen {self.start_sfen}"
        return head + (" moves " + " ".join(self.moves) if self.moves else "")

    def adjudicate(self):
        """After a move: None if the game goes on, else (winner colour or None for draw, reason)."""
        b = self.board
        if b.is_game_over():  # no legal move for the side to move: mated (or stalemated)
            return (cshogi.opponent(b.turn), "checkmate")
        k = self.keys[-1]
        if self.counts[k] >= 4:
            first = self.keys.index(k)
            # the cycle: moves leading to keys[first+1 .. -1]
            checkers = []
            for c in (cshogi.BLACK, cshogi.WHITE):
                mine = [self.gave_check[i] for i in range(first + 1, len(self.keys)) if self.movers[i] == c]
                if mine and all(mine):
                    checkers.append(c)
            if len(checkers) == 1:
                return (cshogi.opponent(checkers[0]), "perpetual check")
            return (None, "sennichite")
        if self.ply >= self.max_plies:
            return (None, "max plies")
        return None


# ----------------------------------------------------------------------------------------------
# One game
# ----------------------------------------------------------------------------------------------
COLOUR = {cshogi.BLACK: "black", cshogi.WHITE: "white", None: "draw"}
CSA_END = {
    "resign": "%TORYO", "checkmate": "%TSUMI", "sennichite": "%SENNICHITE",
    "perpetual check": "%OUTE_SENNICHITE", "illegal move": "%ILLEGAL_MOVE",
    "false declaration": "%ILLEGAL_MOVE", "declaration": "%KACHI", "time": "%TIME_UP",
    "crash": "%CHUDAN", "max plies": "%MAX_MOVES", "no bestmove": "%CHUDAN",
}


def write_csa(path: Path, gs: GameState, names, times_ms, result, reason, comments):
    lines = ["V2.2", f"N+{names[0]}", f"N-{names[1]}",
             f"$START_TIME:{dt.datetime.now().strftime('%Y/%m/%d %H:%M:%S')}"]
    lines += ["'" + c for c in comments]
    b = cshogi.Board(gs.start_sfen) if gs.start_sfen else cshogi.Board()
    if gs.start_sfen:
        lines.append(b.csa_pos().rstrip("\n"))
    else:
        lines += ["PI", "+"]
    for usi, ms in zip(gs.moves, times_ms):
        m = b.move_from_usi(usi)
        lines.append(("+" if b.turn == cshogi.BLACK else "-") + cshogi.move_to_csa(m))
        if ms is None:
            lines.append("T0")
            lines.append("'opening")
        else:
            lines.append(f"T{int(ms // 1000)}")
            lines.append(f"'ms {ms:.0f}")
        b.push(m)
    lines.append(CSA_END.get(reason, "%CHUDAN"))
    winner = COLOUR[result]
    lines.append(f"'result: {winner} ({reason})")
    path.write_text("\n".join(lines) + "\n", encoding="ascii", errors="replace")


def play_game(black: EngineSpec, white: EngineSpec, opening: str, byoyomi: dict, record: Path,
              max_plies: int = 320, log_dir: Path | None = None, rule: str = "27",
              comments=()):
    """Play one game.  byoyomi: {BLACK: ms, WHITE: ms}.  Returns a result dict; never raises for
    engine faults (they are losses)."""
    sfen, opening_moves = parse_position_line(opening)
    gs = GameState(sfen, max_plies)
    for u in opening_moves:
        if not gs.push(u):
            raise ValueError(f"illegal opening move {u} in {opening!r}")
    times: list = [None] * len(opening_moves)
    specs = {cshogi.BLACK: black, cshogi.WHITE: white}
    stats = {c: {"moves": 0, "total_ms": 0.0, "max_ms": 0.0, "over_byoyomi": 0} for c in specs}
    engines = {}
    result = reason = detail = None
    faulty = None  # colour whose engine misbehaved (crash/time/illegal/false declaration)
    try:
        for c in (cshogi.BLACK, cshogi.WHITE):
            try:
                log = (log_dir / f"{record.stem}-{'bw'[c]}-{specs[c].name}.log") if log_dir else None
                start = "startpos" if gs.start_sfen is None else f"sfen {gs.start_sfen}"
                e = USIEngine(specs[c], log, start=start, options={"MaxMovesToDraw": str(max_plies)},
                              ms=byoyomi[c])
                engines[c] = e
                e.start()
            except EngineError as ex:
                result, reason, detail, faulty = cshogi.opponent(c), "crash", f"start: {ex}", c
                break
        st = gs.adjudicate() if reason is None else None
        if st:
            result, reason = st
        while reason is None:  # result None is also a draw: the loop runs on `reason`
            c = gs.board.turn
            e, spec, byo = engines[c], specs[c], byoyomi[c]
            limit = spec.limit_ms(byo)
            try:
                reply = e.ask(gs.moves, limit)
                tok, ms = (reply.raw if reply.claim is None else reply.claim), reply.ms
            except EngineCrash as ex:
                result, reason, detail, faulty = cshogi.opponent(c), "crash", str(ex), c
                break
            s = stats[c]
            s["moves"] += 1
            s["total_ms"] += ms
            s["max_ms"] = max(s["max_ms"], ms)
            if ms > byo:
                s["over_byoyomi"] += 1
            if tok is None:
                crashed = e.proc.poll() is not None
                result, reason, faulty = cshogi.opponent(c), ("crash" if crashed else "time"), c
                detail = f"no bestmove after {ms:.0f} ms (limit {limit:.0f})"
                break
            if ms > limit:
                result, reason, faulty = cshogi.opponent(c), "time", c
                detail = f"bestmove {tok} after {ms:.0f} ms (limit {limit:.0f})"
                break
            if tok == "resign":
                result, reason = cshogi.opponent(c), "resign"
                times.append(ms)
                break
            if tok == "win":
                times.append(ms)
                if declaration_ok(gs.board, rule):
                    result, reason = c, "declaration"
                else:
                    cnt, pts = declaration_points(gs.board, c)
                    result, reason, faulty = cshogi.opponent(c), "false declaration", c
                    detail = f"bestmove win with {cnt} pieces in camp, {pts} points, check={gs.board.is_check()}"
                break
            if not gs.push(tok):
                result, reason, faulty = cshogi.opponent(c), "illegal move", c
                detail = f"illegal move {tok!r} in {position_key(gs.board)}"
                times.append(ms)
                break
            times.append(ms)
            st = gs.adjudicate()
            if st:
                result, reason = st
    finally:
        for c, e in engines.items():
            outcome = "draw" if result is None else ("win" if result == c else "lose")
            e.close(outcome)
    names = [specs[cshogi.BLACK].name, specs[cshogi.WHITE].name]
    comm = list(comments) + [f"byoyomi black {byoyomi[cshogi.BLACK]} ms, white {byoyomi[cshogi.WHITE]} ms"]
    if detail:
        comm.append(f"detail: {detail}")
    write_csa(record, gs, names, times[: len(gs.moves)], result, reason, comm)
    return {
        "winner": COLOUR[result],
        "reason": reason, "detail": detail,
        "faulty": None if faulty is None else COLOUR[faulty],
        "plies": gs.ply, "record": str(record),
        "black": names[0], "white": names[1],
        "stats": {COLOUR[c]: stats[c] for c in stats},
        "moves": gs.moves,
    }


# ----------------------------------------------------------------------------------------------
# The match
# ----------------------------------------------------------------------------------------------
def load_openings(path: str | None):
    cands = [path] if path else [p for p in OPENING_CANDIDATES if p]
    for p in cands:
        if p and Path(p).is_file():
            lines = [l.strip() for l in Path(p).read_text().splitlines() if l.strip() and not l.startswith("#")]
            return p, lines
    raise SystemExit(f"no openings file found (tried {cands}); set --openings or KIRIN_OPENINGS")


def build_revision(rev: str):
    """Build kirin at `rev` (from $KIRIN_REPO, default this repository) into tuning/out/."""
    script = REPO / "tuning" / "build_rev.sh"
    subprocess.run(["bash", str(script), rev] + ([os.environ["KIRIN_REPO"]] if os.environ.get("KIRIN_REPO") else []),
                   check=True)


# The results log (tuning/results.tsv): one row per finished match, appended when --change or
# --log is given.  The columns are described in tuning/README.md ("The results log").
RESULTS_LOG = REPO / "tuning" / "results.tsv"
LOG_COLUMNS = ("date", "commit", "change", "engines", "tc", "test", "games", "W/D/L", "pentanomial",
               "Elo", "LLR", "verdict", "notes")


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
    records = str(out)
    for root, name in ((str(REPO) + "/", ""), (os.environ.get("KIRIN_DATA", "") + "/", "$KIRIN_DATA/")):
        if root != "/":
            records = records.replace(root, name)
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
        if s.build and not Path(s.cmd[0]).exists():
            build_revision(s.build)
        if not (Path(s.cmd[0]).exists() or shutil_which(s.cmd[0])):
            raise SystemExit(f"{s.name}: {s.cmd[0]} not found (build it: cargo build --release, "
                             f"or tuning/build_rev.sh REV)")
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
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = Path(args.out) if args.out else OUT / f"{stamp}-{a.name}-vs-{b.name}".replace("@", "_")
    out.mkdir(parents=True, exist_ok=True)
    byo_a, byo_b = a.byoyomi or args.byoyomi, b.byoyomi or args.byoyomi
    meta = {"A": dataclasses.asdict(a), "B": dataclasses.asdict(b), "byoyomi": {"A": byo_a, "B": byo_b},
            "openings": opath, "max_plies": args.max_plies, "rule": args.rule, "sprt": sprt,
            "concurrency": args.concurrency, "loadavg_start": os.getloadavg(), "start": stamp,
            "shuffle": args.shuffle, "skip_openings": args.skip_openings}
    done = finished_games(out, meta, n_games) if args.resume else {}
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
    lock = threading.Lock()
    stop = threading.Event()
    interrupted = threading.Event()
    results_f = open(out / "results.jsonl", "a")

    def job(i):
        if stop.is_set():
            return None
        pair, a_black = i // 2, i % 2 == 0
        opening = openings[pair % len(openings)]
        black, white = (a, b) if a_black else (b, a)
        byo = {cshogi.BLACK: byo_a if a_black else byo_b, cshogi.WHITE: byo_b if a_black else byo_a}
        rec = out / f"game-{i + 1:05d}.csa"
        res = play_game(black, white, opening, byo, rec, args.max_plies,
                        log_dir=out if args.logs else None, rule=args.rule,
                        comments=[f"opening {args.skip_openings + pair % len(openings) + 1} of {opath}",
                                  f"loadavg {os.getloadavg()[0]:.2f}"])
        res.update(game=i + 1, pair=pair, a_colour="black" if a_black else "white", loadavg=os.getloadavg()[0])
        if interrupted.is_set():
            # Cut off by the interrupt (its engines were killed): not a result.  --resume plays
            # this game again.
            rec.unlink(missing_ok=True)
            return None
        with lock:
            tally.add(pair, res["a_colour"], res)
            results_f.write(json.dumps(res) + "\n")
            results_f.flush()
            s = tally.summary(sprt, args.sprt_model)
            if not args.quiet:
                r = res["winner"]
                sc = "draw" if r == "draw" else ("win" if r == res["a_colour"] else "loss")
                extra = f" [{res['detail']}]" if res["detail"] else ""
                print(f"game {i + 1:4d} {res['black']} vs {res['white']}: {sc} for {a.name} "
                      f"({res['reason']}, {res['plies']} plies){extra}  "
                      f"W{s['W']} D{s['D']} L{s['L']}"
                      + (f"  LLR {s['sprt']['llr']:.2f}" if sprt else ""), flush=True)
            if sprt and s["sprt"]["status"] != "continue":
                stop.set()
        return res

    with cf.ThreadPoolExecutor(max_workers=max(1, args.concurrency)) as ex:
        futs = [ex.submit(job, i) for i in range(n_games) if i + 1 not in done]
        try:
            for f in cf.as_completed(futs):
                f.result()
        except KeyboardInterrupt:
            interrupted.set()
            stop.set()
            for f in futs:
                f.cancel()
            kill_live_engines()  # the games in progress end now, unrecorded
            raise
    results_f.close()
    s = tally.summary(sprt, args.sprt_model)
    s["loadavg_end"] = os.getloadavg()
    s["A"], s["B"] = a.name, b.name
    (out / "summary.json").write_text(json.dumps(s, indent=1))
    print_summary(s, a.name, b.name)
    with open(out / "summary.txt", "w") as f:
        print_summary(s, a.name, b.name, file=f)
    if log:
        log_result(log, s, meta, args.change, out)
    return s


# What must match for a resumed match to go on where the first run stopped (a match folder
# written before a key existed holds that key's default).
RESUME_KEYS = {"A": None, "B": None, "byoyomi": None, "openings": None, "max_plies": None, "rule": None,
               "sprt": None, "shuffle": None, "skip_openings": 0}


def finished_games(out: Path, meta: dict, n_games: int) -> dict:
    """Game number -> result for the games an interrupted match in `out` finished, checked to be
    this match's.  Games run in parallel finish out of order, so the numbers need not be 1..k."""
    try:
        old = json.loads((out / "match.json").read_text())
        lines = (out / "results.jsonl").read_text().splitlines()
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        raise SystemExit(f"--resume: cannot read the match in {out}: {e}")
    new = json.loads(json.dumps(meta))
    for key, default in RESUME_KEYS.items():
        if old.get(key, default) != new.get(key, default):
            raise SystemExit(f"--resume: {out} holds another match ({key} differs)")
    done = {}
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            res = json.loads(line)
            g = int(res["game"])
        except (ValueError, KeyError, TypeError):
            raise SystemExit(f"--resume: {out}/results.jsonl line {n} is not a game result")
        if g in done:
            raise SystemExit(f"--resume: {out}/results.jsonl has game {g} twice")
        done[g] = res
    if len(done) >= n_games:
        raise SystemExit(f"--resume: {out} already has {len(done)} of {n_games} games")
    return done


# What may differ between the parts of one match: where each part starts in the openings, how
# many games ran at once, when it ran, and its SPRT.
PART_SETTINGS = ("skip_openings", "concurrency", "loadavg_start", "start", "sprt")


def read_parts(dirs):
    """[(folder, match.json, results)] of the folders of one match, played in parts on disjoint
    openings (`--skip-openings`); refused with a one-line reason otherwise."""
    parts = []
    for d in dirs:
        d = Path(d)
        try:
            meta = json.loads((d / "match.json").read_text())
            rows = [json.loads(x) for x in (d / "results.jsonl").read_text().splitlines() if x.strip()]
        except (OSError, ValueError) as e:
            raise SystemExit(f"--summarize: cannot read the match in {d}: {e}")
        parts.append((d, meta, rows))
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


def shutil_which(x):
    import shutil
    return shutil.which(x)


if __name__ == "__main__":
    main()
