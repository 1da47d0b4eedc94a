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
referee's rules and the games played.  The statistics, the engine process
wrapper and the summary come from tuning/match.py.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import dataclasses
import datetime as dt
import json
import os
import random
import shlex
import shutil
import sys
import threading
from pathlib import Path

import pyffish as sf

TUNING = Path(__file__).resolve().parent
REPO = TUNING.parent
sys.path.insert(0, str(TUNING))
sys.path.insert(0, str(REPO / "tests" / "oracle"))

from referee import engines, games, stats  # noqa: E402
from referee.engines import EngineCrash, EngineError, EngineTimeout  # noqa: E402,F401
from referee.engines import USIEngine  # noqa: E402
from yari_oracle import usi_move, fen_to_sfen, sfen_to_fen  # noqa: E402  (pyffish <-> USI text)

VARIANT = "yarishogi"
START_FEN = sf.start_fen(VARIANT)
START_SFEN = fen_to_sfen(START_FEN)
FAIRY_JS = TUNING / "node_modules" / "fairy-stockfish-nnue.wasm" / "uci.js"
BLACK, WHITE = 0, 1
COLOUR = {BLACK: "black", WHITE: "white", None: "draw"}
# Impasse points (rules document): yari rook and yari bishop 5, every other piece but the king 1,
# promotion ignored; below 26 loses.
IMPASSE_POINTS = {"r": 5, "b": 5, "n": 1, "p": 1}
IMPASSE_NEED = 26


def data_dir() -> Path:
    return Path(os.environ.get("KIRIN_DATA", str(Path.home() / "kirin-data")))


# ----------------------------------------------------------------------------------------------
# Rules: pyffish position, adjudication
# ----------------------------------------------------------------------------------------------
class YariGame:
    """The start FEN plus the moves played (pyffish text and USI text side by side)."""

    def __init__(self, max_plies: int = 300, start_fen: str = START_FEN):
        self.max_plies = max_plies
        self.start_fen = start_fen
        self.start_sfen = fen_to_sfen(start_fen)
        self.ff_moves: list[str] = []
        self.usi_moves: list[str] = []

    @property
    def turn(self) -> int:
        first = BLACK if self.start_fen.split()[1] == "w" else WHITE  # pyffish's `w` is Black
        return (first + len(self.ff_moves)) % 2

    def legal(self) -> dict:
        """USI text -> pyffish text for every legal move of the side to move."""
        return {usi_move(m): m for m in sf.legal_moves(VARIANT, self.start_fen, self.ff_moves)}

    def push(self, usi: str) -> bool:
        m = self.legal().get(usi)
        if m is None:
            return False
        self.ff_moves.append(m)
        self.usi_moves.append(usi)
        return True

    def position_command(self) -> str:
        # An explicit 7-file SFEN rather than `startpos`: an engine that ignored the variant
        # option rejects it instead of quietly playing standard shogi.
        return f"position sfen {self.start_sfen}" + (" moves " + " ".join(self.usi_moves) if self.usi_moves else "")

    def fen(self) -> str:
        return sf.get_fen(VARIANT, self.start_fen, self.ff_moves)

    def in_check(self) -> bool:
        return bool(sf.gives_check(VARIANT, self.start_fen, self.ff_moves))

    def adjudicate(self):
        """None if the game goes on, else (winner colour or None for a draw, reason)."""
        side, other = self.turn, 1 - self.turn
        if not sf.legal_moves(VARIANT, self.start_fen, self.ff_moves):
            return (other, "checkmate" if self.in_check() else "stalemate")
        for probe in (sf.is_immediate_game_end, sf.is_optional_game_end):
            ended, value = probe(VARIANT, self.start_fen, self.ff_moves)
            if ended:
                # value is from the side to move's view; pyffish reports the third occurrence of a
                # position as 0 and a perpetual check as a win for the side that was checked.
                if value == 0:
                    return (None, "repetition")
                return (side if value > 0 else other, "perpetual check")
        if len(self.ff_moves) >= self.max_plies:
            return (None, "max plies")
        return None

    def impasse(self, declarer: int):
        """Judge `bestmove win` by the rules document's impasse count: both kings in their enemy
        camp (the far three ranks); points on board and in hand.  (winner or None, reason)."""
        board, rest = self.fen().split("[", 1)
        hands = rest.split("]", 1)[0]
        rows = board.split("/")  # rows[0] is rank a, White's back rank
        kings, points = {}, {BLACK: 0, WHITE: 0}
        for r, row in enumerate(rows):
            for ch in row:
                if ch.isdigit() or ch == "+":
                    continue
                c = BLACK if ch.isupper() else WHITE
                if ch.lower() == "k":
                    kings[c] = r
                else:
                    points[c] += IMPASSE_POINTS.get(ch.lower(), 1)
        for ch in hands:
            if ch.isalpha():
                points[BLACK if ch.isupper() else WHITE] += IMPASSE_POINTS.get(ch.lower(), 1)
        entered = kings.get(BLACK, 9) <= 2 and kings.get(WHITE, -1) >= len(rows) - 3
        other = 1 - declarer
        if not entered or points[declarer] < IMPASSE_NEED:
            return (other, "false declaration")
        if points[other] >= IMPASSE_NEED:
            return (None, "impasse")
        return (declarer, "impasse")


def random_opening(rng: random.Random, plies: int, tries: int = 100) -> list[str]:
    """`plies` random legal moves (USI text) from the start, leaving a position still in play."""
    for _ in range(tries):
        g = YariGame(max_plies=10**9)
        for _ in range(plies):
            legal = sorted(g.legal())
            if not legal:
                break
            g.push(rng.choice(legal))
        if len(g.usi_moves) == plies and g.adjudicate() is None:
            return g.usi_moves
    raise RuntimeError(f"no {plies}-ply opening still in play after {tries} tries")


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
# One game
# ----------------------------------------------------------------------------------------------
def play_game(specs: dict, opening: list, movetime: int, max_plies: int, record: Path,
              log_dir: Path | None = None) -> dict:
    """specs: {BLACK: (EngineSpec, go mode), WHITE: ...}.  Never raises for engine faults."""
    g = YariGame(max_plies)
    for u in opening:
        if not g.push(u):
            raise ValueError(f"illegal opening move {u} after {g.usi_moves}")
    stats = {c: {"moves": 0, "total_ms": 0.0, "max_ms": 0.0, "over_byoyomi": 0} for c in specs}
    times: list = [None] * len(opening)
    engines = {}
    result = reason = detail = faulty = None
    try:
        for c in (BLACK, WHITE):
            spec, go_mode = specs[c]
            try:
                log = (log_dir / f"{record.stem}-{'bw'[c]}-{spec.name}.log") if log_dir else None
                # An explicit 7-file SFEN rather than `startpos`: an engine that ignored the variant
                # option rejects it instead of quietly playing standard shogi.
                e = USIEngine(spec, log, start=f"sfen {g.start_sfen}", variant=VARIANT,
                              options={"MaxMovesToDraw": str(max_plies)}, go=go_mode, ms=movetime, ready_s=60.0)
                engines[c] = e
                e.start()
            except EngineError as ex:
                result, reason, detail, faulty = 1 - c, "crash", f"start: {ex}", c
                break
        st = g.adjudicate() if reason is None else None
        if st:
            result, reason = st
        while reason is None:
            c = g.turn
            e, spec = engines[c], specs[c][0]
            limit = spec.limit_ms(movetime)
            try:
                reply = e.ask(g.usi_moves, limit)
                tok, ms = (reply.raw if reply.claim is None else reply.claim), reply.ms
            except EngineCrash as ex:
                result, reason, detail, faulty = 1 - c, "crash", str(ex), c
                break
            s = stats[c]
            s["moves"] += 1
            s["total_ms"] += ms
            s["max_ms"] = max(s["max_ms"], ms)
            s["over_byoyomi"] += ms > movetime
            times.append(round(ms))
            if tok is None:
                crashed = e.proc.poll() is not None
                result, reason, faulty = 1 - c, ("crash" if crashed else "time"), c
                detail = f"no bestmove after {ms:.0f} ms (limit {limit:.0f})"
                break
            if ms > limit:
                result, reason, faulty = 1 - c, "time", c
                detail = f"bestmove {tok} after {ms:.0f} ms (limit {limit:.0f})"
                break
            if tok == "resign":
                result, reason = 1 - c, "resign"
                break
            if tok == "win":
                result, reason = g.impasse(c)
                if reason == "false declaration":
                    faulty = c
                    detail = f"bestmove win in {g.fen()}"
                break
            if not g.push(tok):
                result, reason, faulty = 1 - c, "illegal move", c
                detail = f"illegal move {tok!r} after {g.position_command()}"
                break
            st = g.adjudicate()
            if st:
                result, reason = st
    finally:
        for c, e in engines.items():
            e.close("draw" if result is None else ("win" if result == c else "lose"))
    names = [specs[BLACK][0].name, specs[WHITE][0].name]
    res = {
        "winner": COLOUR[result], "reason": reason, "detail": detail,
        "faulty": None if faulty is None else COLOUR[faulty],
        "plies": len(g.usi_moves), "black": names[0], "white": names[1],
        "opening_plies": len(opening), "moves": g.usi_moves, "ms": times,
        "position": g.position_command(),
        "stats": {COLOUR[c]: stats[c] for c in stats},
    }
    record.write_text(
        f"# yari shogi, {names[0]} (black) vs {names[1]} (white), {movetime} ms a move\n"
        f"# opening: {len(opening)} random plies; ms per move (- for opening plies): "
        + " ".join("-" if t is None else str(t) for t in times) + "\n"
        f"{res['position']}\n"
        f"result {res['winner']} ({reason})" + (f": {detail}" if detail else "") + "\n")
    return res


# ----------------------------------------------------------------------------------------------
# The match
# ----------------------------------------------------------------------------------------------
def check_engine(spec):
    cmd0 = spec.cmd[0]
    if spec.build and not Path(cmd0).exists():
        games.build_revision(spec.build)
    if not (Path(cmd0).exists() or shutil.which(cmd0)):
        raise SystemExit(f"{spec.name}: {cmd0} not found (build kirin: cargo build --release)")
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
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = Path(args.out) if args.out else data_dir() / "yari-match" / f"{stamp}-{a.name}-vs-{b.name}".replace("@", "_")
    out.mkdir(parents=True, exist_ok=True)
    meta = {"A": dict(dataclasses.asdict(a), go=go_a), "B": dict(dataclasses.asdict(b), go=go_b),
            "movetime": args.movetime, "games": args.games, "seed": args.seed,
            "random_plies": args.random_plies, "openings": [" ".join(o) for o in openings],
            "max_plies": args.max_plies, "concurrency": args.concurrency,
            "loadavg_start": os.getloadavg(), "start": stamp}
    (out / "match.json").write_text(json.dumps(meta, indent=1))
    if not args.quiet:
        print(f"yari shogi: {a.name} (go {go_a}, margin {a.margin_ms} ms) vs {b.name} (go {go_b}, margin "
              f"{b.margin_ms} ms), {args.movetime} ms a move; {args.games} games, {args.random_plies} random "
              f"plies (seed {args.seed}), concurrency {args.concurrency}; records in {out}", flush=True)

    tally = stats.Tally()
    lock = threading.Lock()
    results_f = open(out / "results.jsonl", "a")

    def job(i):
        pair, a_black = i // 2, i % 2 == 0
        specs = {BLACK: (a, go_a), WHITE: (b, go_b)} if a_black else {BLACK: (b, go_b), WHITE: (a, go_a)}
        res = play_game(specs, openings[pair], args.movetime, args.max_plies, out / f"game-{i + 1:05d}.txt",
                        log_dir=out if args.logs else None)
        res.update(game=i + 1, pair=pair, a_colour="black" if a_black else "white", loadavg=os.getloadavg()[0])
        with lock:
            tally.add(pair, res["a_colour"], res)
            results_f.write(json.dumps(res) + "\n")
            results_f.flush()
            if not args.quiet:
                s = tally.summary()
                r = res["winner"]
                sc = "draw" if r == "draw" else ("win" if r == res["a_colour"] else "loss")
                extra = f" [{res['detail']}]" if res["detail"] else ""
                print(f"game {i + 1:4d} {res['black']} vs {res['white']}: {sc} for {a.name} "
                      f"({res['reason']}, {res['plies']} plies){extra}  W{s['W']} D{s['D']} L{s['L']}", flush=True)
        return res

    with cf.ThreadPoolExecutor(max_workers=max(1, min(args.concurrency, 2))) as ex:
        results = [f.result() for f in [ex.submit(job, i) for i in range(args.games)]]
    results_f.close()
    s = tally.summary()
    s["loadavg_end"] = os.getloadavg()
    s["A"], s["B"] = a.name, b.name
    (out / "summary.json").write_text(json.dumps(s, indent=1))
    stats.print_summary(s, a.name, b.name)
    with open(out / "summary.txt", "w") as f:
        stats.print_summary(s, a.name, b.name, file=f)
    s["results"] = results
    s["out"] = str(out)
    return s


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
    ap.add_argument("--concurrency", type=int, default=1, choices=[1, 2], help="games at once")
    ap.add_argument("--out", default=None, help="records folder (default $KIRIN_DATA/yari-match/<time>-A-vs-B, "
                    "KIRIN_DATA defaulting to ~/kirin-data)")
    ap.add_argument("--logs", action="store_true", help="keep each engine's stderr")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--selftest", action="store_true",
                    help="check the adjudication on fixed sequences, then play 2 games fairy vs fairy at "
                    "100 ms and check every move was accepted; exit status 1 on failure")
    args = ap.parse_args(argv)
    if args.games < 1 or args.movetime < 1 or args.random_plies < 0:
        raise SystemExit("--games and --movetime must be positive, --random-plies not negative")
    if args.selftest:
        return selftest(args)
    run_match(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
