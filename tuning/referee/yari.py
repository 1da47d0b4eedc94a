"""Yari shogi by pyffish's rules (Fairy-Stockfish's rules as a library): every move an engine
sends is checked against pyffish's legal moves; the game ends on checkmate or stalemate (no legal
move loses), the third occurrence of a position (a draw, or a loss for the side that gave check
with every move of the cycle), resignation, a judged `bestmove win` (the impasse count of the
rules document, which pyffish lacks) or the ply cap (a draw)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pyffish as sf

from . import games
from .engines import USIEngine
from .games import BLACK, WHITE, Ending, Rules

# The pyffish <-> USI text conversions are the yari test oracle's.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent / "tests" / "oracle"))

from yari_oracle import fen_to_sfen, usi_move  # noqa: E402

VARIANT = "yarishogi"
START_FEN = sf.start_fen(VARIANT)
START_SFEN = fen_to_sfen(START_FEN)
# Impasse points (rules document): yari rook and yari bishop 5, every other piece but the king 1,
# promotion ignored; below 26 loses.
IMPASSE_POINTS = {"r": 5, "b": 5, "n": 1, "p": 1}
IMPASSE_NEED = 26


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

    def game_after(moves):
        g = YariGame(max_plies=10**9)
        for u in moves:
            g.push(u)
        return g

    return games.random_opening(lambda moves: game_after(moves).legal(),
                                lambda moves: game_after(moves).adjudicate() is None, rng, plies, tries)


class YariRules(Rules):
    """A game from the start after `opening` (USI moves); go: {BLACK: go form, WHITE: go form}
    (`movetime` or `byoyomi`), sent with `movetime` ms."""

    def __init__(self, opening: list, movetime: int, max_plies: int, go: dict):
        self.g = YariGame(max_plies)
        for u in opening:
            if not self.g.push(u):
                raise ValueError(f"illegal opening move {u} after {self.g.usi_moves}")
        self.moves = self.g.usi_moves
        self.opening_plies, self.movetime, self.go = len(opening), movetime, go

    def turn(self) -> int:
        return self.g.turn

    def engine(self, colour, spec, ms, log_path):
        # An explicit 7-file SFEN rather than `startpos`: an engine that ignored the variant
        # option rejects it instead of quietly playing standard shogi.
        return USIEngine(spec, log_path, start=f"sfen {self.g.start_sfen}", variant=VARIANT,
                         options={"MaxMovesToDraw": str(self.g.max_plies)}, go=self.go[colour], ms=ms,
                         ready_s=60.0)

    def adjudicate(self):
        st = self.g.adjudicate()
        return Ending(*st) if st else None

    def declare(self, colour, reply):
        winner, reason = self.g.impasse(colour)
        if reason == "false declaration":
            return Ending(winner, reason, f"bestmove win in {self.g.fen()}", colour)
        return Ending(winner, reason)

    def play(self, colour, reply):
        if not self.g.push(reply.move):
            return Ending(1 - colour, "illegal move", f"illegal move {reply.move!r} after {self.g.position_command()}",
                          colour)
        return self.adjudicate()

    def result_fields(self, record, times):
        return {"opening_plies": self.opening_plies, "ms": [None if t is None else round(t) for t in times],
                "position": self.g.position_command()}

    def write_record(self, path, res, times):
        path.write_text(games.text_record("yari shogi", res, self.movetime, self.opening_plies, res["position"]))


def play_game(specs: dict, opening: list, movetime: int, max_plies: int, record: Path,
              log_dir: Path | None = None) -> dict:
    """specs: {BLACK: (EngineSpec, go form), WHITE: ...}.  Never raises for engine faults."""
    rules = YariRules(opening, movetime, max_plies, {c: go for c, (_, go) in specs.items()})
    return games.play_game(rules, {c: spec for c, (spec, _) in specs.items()}, {BLACK: movetime, WHITE: movetime},
                           record, log_dir)
