#!/usr/bin/env python3
"""kirin dai shogi referee: kirin's rules judge every move; HaChu (XBoard) and USI engines play.

Plays engine A against engine B in dai shogi from seeded random openings (random legal plies from
the start position), each opening twice with colours swapped, and reports W/D/L from A's point of
view, Elo (trinomial and pentanomial, from tuning/match.py) and each engine's faults.  Engines are
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
import datetime as dt
import json
import os
import random
import re
import shutil
import sys
import threading
import time
from pathlib import Path

TUNING = Path(__file__).resolve().parent
REPO = TUNING.parent
sys.path.insert(0, str(TUNING))

from referee import engines, games, stats  # noqa: E402
from referee.engines import EngineCrash, EngineError, EngineTimeout  # noqa: E402,F401
from hachu import (  # noqa: E402,F401  (the tests use them from here too)
    HACHU_SQ, KIRIN_SQ, RESULT, NotationError, XBoardEngine, hachu_to_kirin, hachu_to_kirin_square,
    kirin_to_hachu, kirin_to_hachu_square, parse_highlight)

HACHU = "/usr/games/hachu"
BLACK, WHITE = 0, 1
COLOUR = {BLACK: "black", WHITE: "white", None: "draw"}
FILES = 15


def data_dir() -> Path:
    return Path(os.environ.get("KIRIN_DATA", str(Path.home() / "kirin-data")))


def sfen_pieces(sfen: str, colour: int) -> list:
    """Squares (kirin notation) of `colour`'s pieces in a dai SFEN (uppercase is Black)."""
    return [sq for sq, p in sfen_board(sfen).items()
            if (BLACK if p.lstrip("+")[0].isupper() else WHITE) == colour]


# ----------------------------------------------------------------------------------------------
# The judge: `kirin judge`, one request line, one answer line.
# ----------------------------------------------------------------------------------------------
class JudgeError(RuntimeError):
    pass


def default_judge() -> str:
    return os.environ.get("KIRIN_JUDGE", engines.kirin_default_path())


DECLINED_PAWN_RULES = ("keep-chances", "last-rank")


def declined_pawn_rule(choice: str, specs) -> str:
    """The declined-pawn rule of a match: `auto` is HaChu's (`last-rank`) when a HaChu plays."""
    if choice != "auto":
        return choice
    return "last-rank" if any(s.kind == "xboard" for s in specs) else "keep-chances"


class Judge(engines.EngineProcess):
    def __init__(self, binary: str | None = None, timeout: float = 60.0,
                 declined_pawn: str = "keep-chances"):
        self.cmd = [binary or default_judge(), "judge", "--variant", "dai"]
        if declined_pawn != "keep-chances":  # a judge older than the flag still judges dai.md's rule
            self.cmd += ["--declined-pawn", declined_pawn]
        self.declined_pawn = declined_pawn
        self.timeout = timeout
        try:
            super().__init__("judge", self.cmd)
        except EngineError as e:
            raise JudgeError(f"{e} (build kirin: cargo build --release)") from e
        self.lock = threading.Lock()
        probe = self.ask("check startpos")
        if probe != "ok ongoing":
            raise JudgeError(f"{self.cmd[0]} does not judge dai shogi (answered {probe!r}); "
                             "build kirin: cargo build --release")
        self.start_sfen = self.ask("sfen startpos")[len("sfen "):]

    def ask(self, request: str) -> str:
        with self.lock:
            try:
                self.send(request)
            except EngineCrash as e:
                raise JudgeError(f"judge gone: {e}") from e
            try:
                return self.readline(time.monotonic() + self.timeout)[1]
            except EngineTimeout:
                raise JudgeError(f"judge silent on {request[:80]!r}") from None
            except EngineCrash:
                raise JudgeError(f"judge exited on {request[:80]!r}") from None

    @staticmethod
    def position(moves: list) -> str:
        return "startpos" + (" moves " + " ".join(moves) if moves else "")

    def check(self, moves: list) -> list:
        """The answer's words: ['ok', state...] or ['illegal', ply, move, reason...]."""
        return self.ask("check " + self.position(moves)).split()

    def canonical(self, moves: list) -> list:
        a = self.ask("canonical " + self.position(moves)).split()
        if a[:1] != ["canonical"]:
            raise JudgeError(f"canonical of accepted moves failed: {' '.join(a)}")
        return a[1:]

    def legal(self, moves: list) -> list:
        a = self.ask("legal " + self.position(moves)).split()
        if a[:1] != ["legal"]:
            raise JudgeError(" ".join(a))
        return a[1:]

    def targets(self, square: str, moves: list) -> set:
        a = self.ask(f"targets {square} " + self.position(moves)).split()
        if a[:1] != ["targets"]:
            raise JudgeError(" ".join(a))
        return set(a[2:])

    def sfen(self, moves: list) -> str:
        return self.ask("sfen " + self.position(moves))[len("sfen "):]


def random_opening(judge: Judge, rng: random.Random, plies: int, tries: int = 100) -> list:
    """`plies` random legal moves (kirin text) from the start, leaving a game in play."""
    for _ in range(tries):
        moves: list = []
        for _ in range(plies):
            legal = sorted(judge.legal(moves))
            if not legal:
                break
            moves.append(rng.choice(legal))
        if len(moves) == plies and judge.check(moves) == ["ok", "ongoing"]:
            return moves
    raise RuntimeError(f"no {plies}-ply opening still in play after {tries} tries")


# ----------------------------------------------------------------------------------------------
# Engines.  Both kinds answer `move(moves, ...)` with (kirin text | None, ms, claim, raw text).
# ----------------------------------------------------------------------------------------------
@dataclasses.dataclass
class Spec:
    name: str
    kind: str  # "xboard" or "usi"
    cmd: list
    depth: int | None = None  # XBoard `sd`; None: thinks by the clock
    st: int | None = None  # seconds a move (HaChu's clock is set from it); default --movetime
    memory: int = 64  # XBoard `memory` (MB): HaChu crashes on `go` without it
    margin_ms: int = 200
    usi: engines.EngineSpec | None = None

    def limit_ms(self, movetime: int) -> float:
        if self.kind == "xboard" and self.depth is not None:
            return 60_000.0  # depth-limited: only a hang loses
        if self.kind == "xboard" and self.st is not None:
            return self.st * 1000 + self.margin_ms
        return movetime + self.margin_ms


def parse_engine(text: str, margin: int) -> Spec:
    """`hachu[,depth=N][,st=S][,memory=MB][,name=X][,cmd=...][,margin=MS]` for XBoard engines;
    anything else is a USI engine in match.py's syntax (kirin, kirin@REV, PATH, then key=value)."""
    parts = text.split(",")
    head, kvs = parts[0], parts[1:]
    if head == "hachu" or head.endswith("/hachu"):
        spec = Spec("hachu", "xboard", [HACHU if head == "hachu" else head], margin_ms=margin)
        for kv in kvs:
            k, _, v = kv.partition("=")
            if k == "depth":
                spec.depth = int(v)
            elif k == "st":
                spec.st = int(v)
            elif k == "memory":
                spec.memory = int(v)
            elif k == "name":
                spec.name = v
            elif k == "cmd":
                spec.cmd = v.split()
            elif k == "margin":
                spec.margin_ms = int(v)
            else:
                raise ValueError(f"unknown HaChu key {k!r} in {text!r}")
        return spec
    usi = engines.parse_engine_spec(text)
    if not any(kv.startswith("margin=") for kv in kvs):
        usi.margin_ms = margin
    return Spec(usi.name, "usi", usi.cmd, margin_ms=usi.margin_ms, usi=usi)




class USIEngine(engines.USIEngine):
    """A USI engine set up for dai shogi: `UCI_Variant daishogi`, the match's rule options (`rules`,
    set where the engine declares them), `go movetime`, and an explicit SFEN rather than
    `startpos`: an engine that ignored the variant option rejects a 15x15 board instead of
    quietly playing standard shogi."""

    def __init__(self, spec: Spec, movetime: int, start_sfen: str, log_path: Path | None = None,
                 rules: dict | None = None):
        super().__init__(spec.usi, log_path, start=f"sfen {start_sfen}", variant="daishogi", options=rules,
                         go="movetime", ms=movetime, ready_s=60.0)


def make_engine(spec: Spec, movetime: int, start_sfen: str, log_path=None, rules: dict | None = None):
    if spec.kind == "xboard":
        return XBoardEngine(spec, movetime, log_path)
    return USIEngine(spec, movetime, start_sfen, log_path, rules)


# ----------------------------------------------------------------------------------------------
# One game
# ----------------------------------------------------------------------------------------------
LION_POWER = ("L!", "+O", "+H", "+D")  # lion, promoted kirin, horned falcon, soaring eagle


def neighbours(square: str) -> list:
    m = KIRIN_SQ.fullmatch(square)
    f, r = int(m.group(1)), ord(m.group(2)) - ord("a")
    return [f"{f + df}{chr(ord('a') + r + dr)}" for df in (-1, 0, 1) for dr in (-1, 0, 1)
            if (df or dr) and 1 <= f + df <= FILES and 0 <= r + dr < FILES]


def compare_moves(judge: Judge, e: XBoardEngine, moves: list, side: int, lift: int, rng: random.Random,
                  cross: dict, disagree):
    """HaChu's move highlighting of `lift` random pieces of the side to move against the judge's
    targets, then every lion-type move (pass, igui, double capture) of every piece with lion
    power, asked of both: the judge checks it, HaChu is told it and takes it back (`undo`).

    HaChu's highlight marks the lifted square for a pass or igui only sometimes (never for horned
    falcons, soaring eagles and promoted kirin, not always for the lion), and marks the lifted
    square a1 (its square 0) for the piece there even with no move; so the lifted square itself is
    left out of the highlight comparison and the moves that end there are compared by asking.  The pass is asked once a position, as HaChu writes it
    (`@@@@`, no piece named)."""
    pieces = sfen_pieces(judge.sfen(moves), side)
    for sq in rng.sample(pieces, min(lift, len(pieces))):
        mine, theirs = judge.targets(sq, moves) - {sq}, e.targets(sq) - {sq}
        cross["lift_compared"] += 1
        if mine == theirs:
            cross["lift_agreed"] += 1
        else:
            disagree("lift", f"{sq}: kirin only {sorted(mine - theirs)}, HaChu only {sorted(theirs - mine)}")
    board = sfen_board(judge.sfen(moves))
    enemy = {sq for sq, p in board.items() if (p.lstrip("+")[0].isupper()) != (side == BLACK)}
    texts = []
    for sq, p in board.items():
        if sq not in enemy and p in LION_POWER:
            # igui on an adjacent enemy, and a capture there followed by a second step
            texts += [(p, sq + n + t) for n in neighbours(sq) if n in enemy for t in neighbours(n)]
    if any(p in LION_POWER for sq, p in board.items() if sq not in enemy):
        texts.append(("pass", "pass"))  # HaChu's pass names no piece: `@@@@`
    for p, text in texts:
        kirin_ok = judge.check(moves + [text])[0] == "ok"
        hachu_text = kirin_to_hachu(text, board)
        hachu_ok = e.tell(hachu_text) is None
        if hachu_ok:
            e.send("undo")
            e.sync()
        cross["probes"] += 1
        if kirin_ok == hachu_ok:
            cross["probes_agreed"] += 1
        else:
            disagree("lion move", f"{p} {text} ({hachu_text}): kirin {'legal' if kirin_ok else 'illegal'}, "
                     f"HaChu {'takes' if hachu_ok else 'refuses'} it")


def sfen_board(sfen: str) -> dict:
    """Square (kirin notation) -> piece text (`P`, `+h`, `L!`) of a dai SFEN."""
    out = {}
    for r, row in enumerate(sfen.split()[0].split("/")):
        file = FILES
        for tok in re.findall(r"\d+|\+?[A-Za-z]['!]?", row):
            if tok.isdigit():
                file -= int(tok)
                continue
            out[f"{file}{chr(ord('a') + r)}"] = tok
            file -= 1
    return out


def capture_check(judge: Judge, e: XBoardEngine, spec: Spec, moves: list, cross: dict, disagree) -> str:
    """The side to move (HaChu) can take all of the opponent's royals: asks for its move, which
    must do so by the judge.  Returns the detail for the game record."""
    cross["verdicts_compared"] += 1
    try:
        tok, _, claim, raw = e.ask(moves, spec.limit_ms(e.movetime))
    except EngineCrash as ex:
        disagree("verdict", f"royals en prise; {spec.name} crashed: {ex}")
        return f"{spec.name} crashed"
    if tok is None:
        disagree("verdict", f"royals en prise; {spec.name} answered {claim!r}")
        return f"{spec.name} answered {claim!r}"
    answer = judge.check(moves + [tok])
    side = COLOUR[len(moves) % 2]
    if answer[:2] == ["ok", "won"] and answer[2] == side and answer[3] == "royals-captured":
        cross["verdicts_agreed"] += 1
        return f"{spec.name} takes with {raw}"
    disagree("verdict", f"royals en prise; {spec.name} played {raw}: {' '.join(answer)}")
    return f"{spec.name} played {raw}"


def claim_winner(claim: str):
    """The winner a claim line names ('resign' is handled by the caller): 'black', 'white' or
    'draw'.  XBoard's 1-0 is a win for the side that moves first, Black in shogi."""
    m = RESULT.match(claim)
    return {"1-0": "black", "0-1": "white", "1/2-1/2": "draw"}[m.group(1)] if m else None


def play_game(judge: Judge, specs: dict, opening: list, movetime: int, max_plies: int, record: Path,
              lift: int = 0, seed: int = 0, log_dir: Path | None = None) -> dict:
    """specs: {BLACK: Spec, WHITE: Spec}.  Never raises for engine faults; a judge failure raises.
    Returns the result, per-engine times, the cross-check counts and every disagreement."""
    rng = random.Random(seed)
    moves: list = []  # kirin's canonical text
    hachu_moves: list = []  # the same moves as HaChu reads them
    stats = {c: {"moves": 0, "total_ms": 0.0, "max_ms": 0.0, "over_byoyomi": 0} for c in specs}
    cross = {"judged": 0, "hachu_moves_judged": 0, "told_hachu": 0, "lift_compared": 0, "lift_agreed": 0,
             "probes": 0, "probes_agreed": 0, "verdicts_compared": 0, "verdicts_agreed": 0, "played_on_mated": 0}
    disagreements: list = []
    engines: dict = {}
    result = reason = detail = faulty = None
    times: list = []  # ms per move, None for the opening plies

    def disagree(kind, what):
        disagreements.append({"kind": kind, "ply": len(moves) + 1, "detail": what,
                              "position": judge.position(moves)})

    def tell_all(hachu_text: str, skip=None):
        """Gives the move to every XBoard engine but `skip` (the HaChu that just made it);
        (who refused, complaint) or None."""
        for c, e in engines.items():
            if isinstance(e, XBoardEngine) and c != skip:
                complaint = e.tell(hachu_text)
                cross["told_hachu"] += 1
                if complaint:
                    return c, complaint
        return None

    try:
        for c in (BLACK, WHITE):
            try:
                log = (log_dir / f"{record.stem}-{'bw'[c]}-{specs[c].name}.log") if log_dir else None
                e = make_engine(specs[c], movetime, judge.start_sfen, log,
                                {"DaiDeclinedPawn": judge.declined_pawn})
                engines[c] = e
                e.start()
            except EngineError as ex:
                result, reason, detail, faulty = 1 - c, "crash", f"start: {ex}", c
                break
        # The opening: legal by construction (the judge drew it); every HaChu must take it.
        for u in opening if reason is None else []:
            try:
                h = kirin_to_hachu(u, sfen_board(judge.sfen(moves)))
                refused = tell_all(h)
            except EngineError as ex:
                result, reason, detail = None, "crash", f"opening: {ex}"
                break
            if refused:
                disagree("refused by HaChu", f"opening move {u} ({h}): {refused[1]}")
                result, reason, detail = None, "opening refused", f"{u} ({h}): {refused[1]}"
                break
            moves.append(u)
            hachu_moves.append(h)
        state = judge.check(moves)[1:] if reason is None else []
        times += [None] * len(moves)
        while reason is None:
            c = len(moves) % 2
            if state[:1] == ["won"] or state[:1] == ["draw"]:
                result = None if state[0] == "draw" else (BLACK if state[1] == "black" else WHITE)
                reason = state[-1]
                break
            if state == ["en-prise"]:
                result, reason = c, "royal en prise"
                if isinstance(engines[c], XBoardEngine):
                    # HaChu to move: it must take the royals (its verdict against the judge's).
                    detail = capture_check(judge, engines[c], specs[c], moves, cross, disagree)
                break
            if len(moves) >= max_plies:
                result, reason = None, "max plies"
                break
            e, spec = engines[c], specs[c]
            if lift and isinstance(e, XBoardEngine):
                try:
                    compare_moves(judge, e, moves, c, lift, rng, cross, disagree)
                except EngineCrash as ex:
                    result, reason, detail, faulty = 1 - c, "crash", f"lift: {ex}", c
                    break
            limit = spec.limit_ms(movetime)
            try:
                tok, ms, claim, raw = e.ask(moves, limit)
            except EngineCrash as ex:
                result, reason, detail, faulty = 1 - c, "crash", str(ex), c
                break
            s = stats[c]
            s["moves"] += 1
            s["total_ms"] += ms
            s["max_ms"] = max(s["max_ms"], ms)
            s["over_byoyomi"] += ms > movetime
            times.append(round(ms))
            if claim is not None:
                mated = state == ["mated"]
                winner = COLOUR[1 - c] if claim == "resign" else claim_winner(claim)
                if isinstance(e, XBoardEngine):
                    cross["verdicts_compared"] += 1
                    if winner == COLOUR[1 - c] and mated:
                        cross["verdicts_agreed"] += 1
                    else:
                        disagree("verdict", f"{spec.name} said {claim!r}; judge: {' '.join(state)}")
                if winner == COLOUR[1 - c]:
                    result, reason = 1 - c, "resign"
                    detail = f"{claim} (judge: {' '.join(state)})"
                else:
                    result, reason, faulty = 1 - c, "false claim", c
                    detail = f"{claim} (judge: {' '.join(state)})"
                break
            if tok is None:
                crashed = e.proc.poll() is not None
                result, reason, faulty = 1 - c, ("crash" if crashed else "time"), c
                detail = f"no move after {ms:.0f} ms (limit {limit:.0f})"
                break
            if ms > limit:
                result, reason, faulty = 1 - c, "time", c
                detail = f"move {tok} after {ms:.0f} ms (limit {limit:.0f})"
                break
            if state == ["mated"] and isinstance(e, XBoardEngine):
                # Not a rules question: at a small depth HaChu may not see that every move loses
                # its king (it resigns there at depth 5).  The capture that follows is checked.
                cross["played_on_mated"] += 1
            answer = judge.check(moves + [tok])
            cross["judged"] += 1
            if isinstance(e, XBoardEngine):
                cross["hachu_moves_judged"] += 1
            if answer[0] != "ok":
                result, reason, faulty = 1 - c, "illegal move", c
                detail = f"{tok!r}" + (f" (HaChu {raw})" if raw and raw != tok else "") + ": " + " ".join(answer)
                if isinstance(e, XBoardEngine):
                    disagree("HaChu move illegal in kirin", detail)
                break
            canon = judge.canonical(moves + [tok])[-1]
            hachu_text = raw if isinstance(e, XBoardEngine) else kirin_to_hachu(canon, sfen_board(judge.sfen(moves)))
            try:
                refused = tell_all(hachu_text, skip=c if isinstance(e, XBoardEngine) else None)
            except EngineCrash as ex:
                who = next((k for k, x in engines.items() if isinstance(x, XBoardEngine)), 1 - c)
                result, reason, detail, faulty = 1 - who, "crash", str(ex), who
                break
            if refused:
                disagree("refused by HaChu", f"{canon} ({hachu_text}): {refused[1]}")
                result, reason, faulty = 1 - c, "refused by HaChu", c
                detail = f"{canon} ({hachu_text}): {refused[1]}"
                break
            moves.append(canon)
            hachu_moves.append(hachu_text)
            state = answer[1:]
    finally:
        for c, e in engines.items():
            e.close("draw" if result is None else ("win" if result == c else "lose"))
    names = [specs[BLACK].name, specs[WHITE].name]
    res = {
        "winner": COLOUR[result], "reason": reason, "detail": detail,
        "faulty": None if faulty is None else COLOUR[faulty],
        "plies": len(moves), "black": names[0], "white": names[1], "opening_plies": len(opening),
        "moves": moves, "hachu_moves": hachu_moves, "ms": times,
        "stats": {COLOUR[c]: stats[c] for c in stats}, "cross": cross, "disagreements": disagreements,
    }
    record.write_text(
        f"# dai shogi, {names[0]} (black) vs {names[1]} (white), {movetime} ms a move\n"
        f"# opening: {len(opening)} random plies; ms per move (- for opening plies): "
        + " ".join("-" if t is None else str(t) for t in res["ms"]) + "\n"
        f"position startpos" + (" moves " + " ".join(moves) if moves else "") + "\n"
        f"# HaChu: " + " ".join(hachu_moves) + "\n"
        f"result {res['winner']} ({reason})" + (f": {detail}" if detail else "") + "\n"
        + "".join(f"# disagreement at ply {d['ply']}: {d['kind']}: {d['detail']}\n" for d in disagreements))
    return res


# ----------------------------------------------------------------------------------------------
# The match
# ----------------------------------------------------------------------------------------------
def check_engine(spec: Spec):
    cmd0 = spec.cmd[0]
    if spec.usi and spec.usi.build and not Path(cmd0).exists():
        games.build_revision(spec.usi.build)
    if not (Path(cmd0).exists() or shutil.which(cmd0)):
        hint = "install it: bash tuning/setup.sh" if spec.kind == "xboard" else "build kirin: cargo build --release"
        raise SystemExit(f"{spec.name}: {cmd0} not found ({hint})")


def run_match(args) -> dict:
    a = parse_engine(args.engine, args.margin)
    b = parse_engine(args.opponent, args.margin)
    for s in (a, b):
        check_engine(s)
    if a.name == b.name:
        b.name += "-B"
    judge = Judge(args.judge, declined_pawn=declined_pawn_rule(args.declined_pawn, (a, b)))
    pairs = (args.games + 1) // 2
    rng = random.Random(args.seed)
    openings = [random_opening(judge, rng, args.random_plies) for _ in range(pairs)]
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = Path(args.out) if args.out else data_dir() / "dai-match" / f"{stamp}-{a.name}-vs-{b.name}".replace("@", "_")
    out.mkdir(parents=True, exist_ok=True)
    meta = {"A": dataclasses.asdict(a), "B": dataclasses.asdict(b), "movetime": args.movetime,
            "games": args.games, "first_game": args.first_game, "seed": args.seed, "random_plies": args.random_plies,
            "openings": [" ".join(o) for o in openings], "max_plies": args.max_plies, "lift": args.lift,
            "judge": judge.cmd[0], "declined_pawn": judge.declined_pawn, "loadavg_start": os.getloadavg(), "start": stamp}
    done = finished_games(out, meta) if args.resume else []
    if done:
        meta["resumed"] = stamp
    (out / "match.json").write_text(json.dumps(meta, indent=1, default=str))
    if not args.quiet:
        print(f"dai shogi: {a.name} vs {b.name}, {args.movetime} ms a move; {args.games} games, "
              f"{args.random_plies} random plies (seed {args.seed}), ply cap {args.max_plies}, "
              f"lift {args.lift} pieces a position; declined pawns: {judge.declined_pawn}; records in {out}",
              flush=True)
    totals = Totals()
    for res in done:
        totals.add(res)
    if done and not args.quiet:
        s = totals.tally.summary()
        print(f"resuming after {len(done)} games: W{s['W']} D{s['D']} L{s['L']}", flush=True)
    with open(out / "results.jsonl", "a") as results_f, open(out / "disagreements.jsonl", "a") as dis_f:
        for i in range(args.first_game - 1 + len(done), args.games):
            pair, a_black = i // 2, i % 2 == 0
            specs = {BLACK: a, WHITE: b} if a_black else {BLACK: b, WHITE: a}
            res = play_game(judge, specs, openings[pair], args.movetime, args.max_plies,
                            out / f"game-{i + 1:05d}.txt", lift=args.lift, seed=args.seed * 100003 + i,
                            log_dir=out if args.logs else None)
            res.update(game=i + 1, pair=pair, a_colour="black" if a_black else "white",
                       loadavg=os.getloadavg()[0])
            for d in res["disagreements"]:
                d["game"] = i + 1
                dis_f.write(json.dumps(d) + "\n")
            totals.add(res)
            results_f.write(json.dumps(res) + "\n")
            results_f.flush()
            dis_f.flush()
            if not args.quiet:
                s = totals.tally.summary()
                r = res["winner"]
                sc = "draw" if r == "draw" else ("win" if r == res["a_colour"] else "loss")
                extra = f" [{res['detail']}]" if res["detail"] else ""
                print(f"game {i + 1:4d} {res['black']} vs {res['white']}: {sc} for {a.name} "
                      f"({res['reason']}, {res['plies']} plies, {len(res['disagreements'])} disagreements){extra}"
                      f"  W{s['W']} D{s['D']} L{s['L']}", flush=True)
    judge.close()
    s = totals.summary()
    s["loadavg_end"] = os.getloadavg()
    s["A"], s["B"] = a.name, b.name
    (out / "summary.json").write_text(json.dumps(s, indent=1))
    for f in (sys.stdout, open(out / "summary.txt", "w")):
        stats.print_summary(s, a.name, b.name, file=f)
        print_cross(s, totals.disagreements, file=f)
    s["results"] = totals.results
    s["disagreement_list"] = totals.disagreements
    s["out"] = str(out)
    return s


# What must match for a resumed match to go on where the first run stopped.
# The openings are checked apart: a longer match draws more of them from the same seed.
RESUME_KEYS = ("A", "B", "movetime", "first_game", "seed", "random_plies", "max_plies", "lift", "declined_pawn")
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
        s["cross"] = self.cross
        s["disagreements"] = len(self.disagreements)
        return s


def finished_games(out: Path, meta: dict) -> list:
    """The games an interrupted match in `out` finished, checked to be this match's."""
    try:
        old = json.loads((out / "match.json").read_text())
        lines = (out / "results.jsonl").read_text().splitlines()
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as e:
        raise SystemExit(f"--resume: cannot read the match in {out}: {e}")
    differs = match_difference(old, json.loads(json.dumps(meta, default=str)))
    if differs:
        raise SystemExit(f"--resume: {out} holds another match ({differs} differs)")
    done = []
    first = meta.get("first_game", 1)
    for n, line in enumerate(lines, first):
        try:
            res = json.loads(line)
        except ValueError:
            raise SystemExit(f"--resume: {out}/results.jsonl line {n} is not JSON")
        if res.get("game") != n:
            raise SystemExit(f"--resume: {out}/results.jsonl line {n} is game {res.get('game')}, expected {n}")
        done.append(res)
    if first - 1 + len(done) >= meta["games"]:
        raise SystemExit(f"--resume: {out} already has {len(done)} of {meta['games']} games")
    return done


def summarize(dirs: list, file=sys.stdout) -> dict:
    """One summary of a match played in parts (folders of `--first-game` runs): the folders must
    hold the same match (engines, settings, openings) and no game twice."""
    parts = []
    for d in dirs:
        d = Path(d)
        try:
            meta = json.loads((d / "match.json").read_text())
            lines = (d / "results.jsonl").read_text().splitlines()
        except (OSError, ValueError) as e:
            raise SystemExit(f"--summarize: cannot read the match in {d}: {e}")
        try:
            rows = [json.loads(line) for line in lines if line.strip()]
        except ValueError:
            raise SystemExit(f"--summarize: {d}/results.jsonl holds a line that is not JSON")
        parts.append((d, meta, rows))
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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default="kirin", help="engine A (results are from its view): "
                    "hachu[,depth=N][,st=S][,memory=MB] | kirin | kirin@REV | PATH[,key=value as match.py]")
    ap.add_argument("--opponent", default="hachu", help="engine B, same syntax")
    ap.add_argument("--movetime", type=int, default=1000,
                    help="ms per move (USI `go movetime`; HaChu's clock, unless depth= or st=)")
    ap.add_argument("--margin", type=int, default=1000, help="ms past --movetime before a move loses on time")
    ap.add_argument("--games", type=int, default=2, help="number of games (pairs of one opening)")
    ap.add_argument("--first-game", type=int, default=1,
                    help="play games FIRST..GAMES of the match only (the openings are drawn as for the whole "
                    "match), for a match whose earlier games were played elsewhere")
    ap.add_argument("--random-plies", type=int, default=6, help="random legal plies of each opening")
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
