"""Standard shogi by cshogi's rules: sennichite at the fourth occurrence with the perpetual-check
rule, the CSA 24/27-point entering-king declaration, CSA records, and the openings files."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import cshogi

from . import games
from .engines import REPO, EngineSpec, USIEngine
from .games import Ending, Rules

OPENING_CANDIDATES = [
    os.environ.get("KIRIN_OPENINGS", ""),
    str(REPO.parent / "shared" / "data" / "openings" / "taya36.sfen"),
]


def load_openings(path: str | None):
    cands = [path] if path else [p for p in OPENING_CANDIDATES if p]
    for p in cands:
        if p and Path(p).is_file():
            lines = [l.strip() for l in Path(p).read_text().splitlines() if l.strip() and not l.startswith("#")]
            return p, lines
    raise SystemExit(f"no openings file found (tried {cands}); set --openings or KIRIN_OPENINGS")


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




CSA_END = {
    "resign": "%TORYO", "checkmate": "%TSUMI", "sennichite": "%SENNICHITE",
    "perpetual check": "%OUTE_SENNICHITE", "illegal move": "%ILLEGAL_MOVE",
    "false declaration": "%ILLEGAL_MOVE", "declaration": "%KACHI", "time": "%TIME_UP",
    "crash": "%CHUDAN", "max plies": "%MAX_MOVES", "no bestmove": "%CHUDAN",
}


def write_csa(path: Path, gs: GameState, names, times_ms, winner: str, reason: str, comments):
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
    lines.append(f"'result: {winner} ({reason})")
    path.write_text("\n".join(lines) + "\n", encoding="ascii", errors="replace")


class StandardRules(Rules):
    """A game from an opening line (`startpos moves ...`, `sfen ... moves ...`) with its CSA
    record; byoyomi: {BLACK: ms, WHITE: ms}, for the record."""

    def __init__(self, opening: str, byoyomi: dict, max_plies: int = 320, rule: str = "27", comments=()):
        sfen, opening_moves = parse_position_line(opening)
        self.gs = GameState(sfen, max_plies)
        for u in opening_moves:
            if not self.gs.push(u):
                raise ValueError(f"illegal opening move {u} in {opening!r}")
        self.moves = self.gs.moves
        self.byoyomi, self.rule, self.comments = byoyomi, rule, list(comments)

    def turn(self) -> int:
        return self.gs.board.turn

    def plies(self) -> int:
        return self.gs.ply

    def engine(self, colour, spec, ms, log_path):
        start = "startpos" if self.gs.start_sfen is None else f"sfen {self.gs.start_sfen}"
        return USIEngine(spec, log_path, start=start, options={"MaxMovesToDraw": str(self.gs.max_plies)}, ms=ms)

    def adjudicate(self):
        st = self.gs.adjudicate()
        return Ending(*st) if st else None

    def declare(self, colour, reply):
        b = self.gs.board
        if declaration_ok(b, self.rule):
            return Ending(colour, "declaration")
        cnt, pts = declaration_points(b, colour)
        return Ending(cshogi.opponent(colour), "false declaration",
                      f"bestmove win with {cnt} pieces in camp, {pts} points, check={b.is_check()}", colour)

    def play(self, colour, reply):
        if not self.gs.push(reply.move):
            return Ending(cshogi.opponent(colour), "illegal move",
                          f"illegal move {reply.move!r} in {position_key(self.gs.board)}", colour)
        return self.adjudicate()

    def result_fields(self, record, times):
        return {"record": str(record)}

    def write_record(self, path, res, times):
        comm = self.comments + [f"byoyomi black {self.byoyomi[cshogi.BLACK]} ms, white {self.byoyomi[cshogi.WHITE]} ms"]
        if res["detail"]:
            comm.append(f"detail: {res['detail']}")
        write_csa(path, self.gs, [res["black"], res["white"]], times[: len(self.gs.moves)], res["winner"],
                  res["reason"], comm)


def play_game(black: EngineSpec, white: EngineSpec, opening: str, byoyomi: dict, record: Path,
              max_plies: int = 320, log_dir: Path | None = None, rule: str = "27",
              comments=()):
    """Play one game.  byoyomi: {BLACK: ms, WHITE: ms}.  Returns a result dict; never raises for
    engine faults (they are losses)."""
    rules = StandardRules(opening, byoyomi, max_plies, rule, comments)
    return games.play_game(rules, {cshogi.BLACK: black, cshogi.WHITE: white}, byoyomi, record, log_dir)
