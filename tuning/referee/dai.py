"""Dai shogi by kirin's rules: `kirin judge` (src/judge.rs), kirin's own dai rules as a line
service, checks every move; every move is also given to each HaChu in the game, which must accept
it, and HaChu's verdicts, move highlighting and lion moves are compared with the judge's (see
tuning/dai_match.py for what is compared and why)."""

from __future__ import annotations

import dataclasses
import os
import random
import re
import threading
import time
from pathlib import Path

from . import engines, games
from .games import BLACK, COLOUR, WHITE, Ending, Rules
from .hachu import FILES, KIRIN_SQ, RESULT, XBoardEngine, kirin_to_hachu

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
        except engines.EngineError as e:
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
            except engines.EngineCrash as e:
                raise JudgeError(f"judge gone: {e}") from e
            try:
                return self.readline(time.monotonic() + self.timeout)[1]
            except engines.EngineTimeout:
                raise JudgeError(f"judge silent on {request[:80]!r}") from None
            except engines.EngineCrash:
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
    return games.random_opening(judge.legal, lambda moves: judge.check(moves) == ["ok", "ongoing"], rng, plies,
                                tries)


# ----------------------------------------------------------------------------------------------
# Engines.  Both kinds answer `ask(moves, limit_ms)` with a Reply (the move in kirin text).
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
    except engines.EngineCrash as ex:
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


class DaiRules(Rules):
    """A game from the start after `opening` (kirin text), judged by `judge`, every move given
    to each HaChu; the cross-check counts go to `cross`, the disagreements to `disagreements`.
    A judge failure raises."""

    move_word = "move"
    # A resignation or a result claim is compared with the judge's state, late or not.
    claims_beat_the_clock = True

    def __init__(self, judge: Judge, opening: list, movetime: int, max_plies: int, lift: int = 0, seed: int = 0):
        self.judge, self.opening = judge, list(opening)
        self.movetime, self.max_plies, self.lift = movetime, max_plies, lift
        self.rng = random.Random(seed)
        self.moves: list = []  # kirin's canonical text
        self.hachu_moves: list = []  # the same moves as HaChu reads them
        self.cross = {"judged": 0, "hachu_moves_judged": 0, "told_hachu": 0, "lift_compared": 0, "lift_agreed": 0,
                      "probes": 0, "probes_agreed": 0, "verdicts_compared": 0, "verdicts_agreed": 0,
                      "played_on_mated": 0}
        self.disagreements: list = []
        self.engines: dict = {}
        self.specs: dict = {}
        self.state: list = []  # the judge's state after the last move

    def turn(self) -> int:
        return len(self.moves) % 2

    def engine(self, colour, spec, ms, log_path):
        self.specs[colour] = spec
        return make_engine(spec, ms, self.judge.start_sfen, log_path, {"DaiDeclinedPawn": self.judge.declined_pawn})

    def disagree(self, kind, what):
        self.disagreements.append({"kind": kind, "ply": len(self.moves) + 1, "detail": what,
                                   "position": self.judge.position(self.moves)})

    def tell_all(self, hachu_text: str, skip=None):
        """Gives the move to every XBoard engine but `skip` (the HaChu that just made it);
        (who refused, complaint) or None."""
        for c, e in self.engines.items():
            if isinstance(e, XBoardEngine) and c != skip:
                complaint = e.tell(hachu_text)
                self.cross["told_hachu"] += 1
                if complaint:
                    return c, complaint
        return None

    def begin(self, engines_by_colour):
        # The opening: legal by construction (the judge drew it); every HaChu must take it.
        self.engines = engines_by_colour
        for u in self.opening:
            try:
                h = kirin_to_hachu(u, sfen_board(self.judge.sfen(self.moves)))
                refused = self.tell_all(h)
            except engines.EngineError as ex:
                return Ending(None, "crash", f"opening: {ex}")
            if refused:
                self.disagree("refused by HaChu", f"opening move {u} ({h}): {refused[1]}")
                return Ending(None, "opening refused", f"{u} ({h}): {refused[1]}")
            self.moves.append(u)
            self.hachu_moves.append(h)
        self.state = self.judge.check(self.moves)[1:]
        return None

    def before_move(self, colour):
        state, e = self.state, self.engines[colour]
        if state[:1] == ["won"] or state[:1] == ["draw"]:
            return Ending(None if state[0] == "draw" else (BLACK if state[1] == "black" else WHITE), state[-1])
        if state == ["en-prise"]:
            detail = None
            if isinstance(e, XBoardEngine):
                # HaChu to move: it must take the royals (its verdict against the judge's).
                detail = capture_check(self.judge, e, self.specs[colour], self.moves, self.cross, self.disagree)
            return Ending(colour, "royal en prise", detail)
        if len(self.moves) >= self.max_plies:
            return Ending(None, "max plies")
        if self.lift and isinstance(e, XBoardEngine):
            try:
                compare_moves(self.judge, e, self.moves, colour, self.lift, self.rng, self.cross, self.disagree)
            except engines.EngineCrash as ex:
                return Ending(1 - colour, "crash", f"lift: {ex}", colour)
        return None

    def claim(self, colour, reply):
        claim, judged = reply.claim, " ".join(self.state)
        winner = COLOUR[1 - colour] if claim == "resign" else claim_winner(claim)
        if isinstance(self.engines[colour], XBoardEngine):
            self.cross["verdicts_compared"] += 1
            if winner == COLOUR[1 - colour] and self.state == ["mated"]:
                self.cross["verdicts_agreed"] += 1
            else:
                self.disagree("verdict", f"{self.specs[colour].name} said {claim!r}; judge: {judged}")
        if winner == COLOUR[1 - colour]:
            return Ending(1 - colour, "resign", f"{claim} (judge: {judged})")
        return Ending(1 - colour, "false claim", f"{claim} (judge: {judged})", colour)

    def declare(self, colour, reply):
        return self.play(colour, reply)  # no declaration in dai shogi: the judge refuses `win`

    def play(self, colour, reply):
        tok, raw = reply.move, reply.raw
        xboard = isinstance(self.engines[colour], XBoardEngine)
        if self.state == ["mated"] and xboard:
            # Not a rules question: at a small depth HaChu may not see that every move loses
            # its king (it resigns there at depth 5).  The capture that follows is checked.
            self.cross["played_on_mated"] += 1
        answer = self.judge.check(self.moves + [tok])
        self.cross["judged"] += 1
        if xboard:
            self.cross["hachu_moves_judged"] += 1
        if answer[0] != "ok":
            detail = f"{tok!r}" + (f" (HaChu {raw})" if raw and raw != tok else "") + ": " + " ".join(answer)
            if xboard:
                self.disagree("HaChu move illegal in kirin", detail)
            return Ending(1 - colour, "illegal move", detail, colour)
        canon = self.judge.canonical(self.moves + [tok])[-1]
        hachu_text = raw if xboard else kirin_to_hachu(canon, sfen_board(self.judge.sfen(self.moves)))
        try:
            refused = self.tell_all(hachu_text, skip=colour if xboard else None)
        except engines.EngineCrash as ex:
            who = next((k for k, x in self.engines.items() if isinstance(x, XBoardEngine)), 1 - colour)
            return Ending(1 - who, "crash", str(ex), who)
        if refused:
            self.disagree("refused by HaChu", f"{canon} ({hachu_text}): {refused[1]}")
            return Ending(1 - colour, "refused by HaChu", f"{canon} ({hachu_text}): {refused[1]}", colour)
        self.moves.append(canon)
        self.hachu_moves.append(hachu_text)
        self.state = answer[1:]
        return None

    def result_fields(self, record, times):
        return {"opening_plies": len(self.opening), "hachu_moves": self.hachu_moves,
                "ms": [None if t is None else round(t) for t in times], "cross": self.cross,
                "disagreements": self.disagreements, "final_pieces": self.final_pieces()}

    def final_pieces(self) -> dict:
        """Each colour's pieces on the board at the end: a finer measure of a game that ends at
        the ply cap than the draw."""
        board = sfen_board(self.judge.sfen(self.moves))
        black = sum(1 for p in board.values() if p.lstrip("+")[0].isupper())
        return {"black": black, "white": len(board) - black}

    def write_record(self, path, res, times):
        path.write_text(games.text_record(
            "dai shogi", res, self.movetime, len(self.opening), "position " + self.judge.position(self.moves),
            notes=["# HaChu: " + " ".join(self.hachu_moves)],
            after=[f"# disagreement at ply {d['ply']}: {d['kind']}: {d['detail']}" for d in self.disagreements]))


def play_game(judge: Judge, specs: dict, opening: list, movetime: int, max_plies: int, record: Path,
              lift: int = 0, seed: int = 0, log_dir: Path | None = None) -> dict:
    """specs: {BLACK: Spec, WHITE: Spec}.  Never raises for engine faults; a judge failure raises.
    Returns the result, per-engine times, the cross-check counts and every disagreement."""
    rules = DaiRules(judge, opening, movetime, max_plies, lift, seed)
    return games.play_game(rules, specs, {BLACK: movetime, WHITE: movetime}, record, log_dir)
