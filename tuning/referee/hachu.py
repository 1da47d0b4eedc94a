"""HaChu (XBoard protocol, `variant dai`) for the dai referee: the notation conversion between
HaChu and kirin, HaChu's move highlighting, and the engine process in force mode."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

from .engines import EngineProcess, EngineTimeout, Reply

FILES = 15

# ----------------------------------------------------------------------------------------------
# Notation.  kirin (../shared/docs/dai.md): files 1-15 from Black's right to left, ranks a-o from
# White's side: `8k8j`, promotion `8k8j+`, lion moves from-mid-to `8h8g9f`, igui and pass
# from-mid-from.  HaChu: file letters a-o from Black's left, ranks 1-15 from Black's side: `h5h6`,
# `h5h6+` (or `=` for a declined promotion), a lion's double move or igui as two legs
# `h8h9,h9g10`, and a pass as `@@@@` only (HaChu refuses a pass written as a step and back).
# ----------------------------------------------------------------------------------------------
class NotationError(ValueError):
    pass


KIRIN_SQ = re.compile(r"(1[0-5]|[1-9])([a-o])")
HACHU_SQ = re.compile(r"([a-o])(1[0-5]|[1-9])")


def hachu_to_kirin_square(text: str) -> str:
    m = HACHU_SQ.fullmatch(text)
    if not m:
        raise NotationError(f"bad HaChu square {text!r}")
    file = FILES - (ord(m.group(1)) - ord("a"))
    rank = chr(ord("a") + FILES - int(m.group(2)))
    return f"{file}{rank}"


def kirin_to_hachu_square(text: str) -> str:
    m = KIRIN_SQ.fullmatch(text)
    if not m:
        raise NotationError(f"bad kirin square {text!r}")
    letter = chr(ord("a") + FILES - int(m.group(1)))
    rank = FILES - (ord(m.group(2)) - ord("a"))
    return f"{letter}{rank}"


def _squares(text: str, pattern: re.Pattern) -> list:
    """The squares of `text` in order; NotationError unless the text is squares only."""
    out, at = [], 0
    while at < len(text):
        m = pattern.match(text, at)
        if not m:
            raise NotationError(f"bad move text {text!r}")
        out.append(m.group(0))
        at = m.end()
    return out


def hachu_to_kirin(move: str) -> str:
    """A HaChu move (`h5h6`, `h5h6+`, `h5h6=`, `h8h9,h9g10`, `@@@@`) in kirin's notation."""
    if move == "@@@@":
        return "pass"
    promote = move.endswith("+")
    body = move[:-1] if move[-1:] in "+=" else move
    legs = body.split(",")
    if len(legs) not in (1, 2):
        raise NotationError(f"bad HaChu move {move!r}")
    squares = []
    for leg in legs:
        sq = _squares(leg, HACHU_SQ)
        if len(sq) != 2:
            raise NotationError(f"bad HaChu move {move!r}: each leg is two squares")
        squares.append(sq)
    if len(legs) == 2:
        if squares[0][1] != squares[1][0]:
            raise NotationError(f"bad HaChu move {move!r}: the second leg must start where the first ends")
        if promote:
            raise NotationError(f"bad HaChu move {move!r}: a double move does not promote")
        path = [squares[0][0], squares[0][1], squares[1][1]]
    else:
        path = squares[0]
    return "".join(hachu_to_kirin_square(s) for s in path) + ("+" if promote else "")


def kirin_to_hachu(move: str, occupied=None) -> str:
    """A kirin move (two or three squares, optional `+`, or `pass`) in HaChu's notation.  HaChu
    takes a pass only as `@@@@`, so a step and back through an empty square needs `occupied`
    (the occupied squares, kirin notation) to tell it from an igui; without it, it is an igui."""
    if move == "pass":
        return "@@@@"
    promote = move.endswith("+")
    body = move[:-1] if promote else move
    kirin_sq = _squares(body, KIRIN_SQ)
    sq = [kirin_to_hachu_square(s) for s in kirin_sq]
    if len(sq) == 2:
        return sq[0] + sq[1] + ("+" if promote else "")
    if len(sq) == 3 and not promote:
        if occupied is not None and sq[0] == sq[2] and kirin_sq[1] not in occupied:
            return "@@@@"
        return f"{sq[0]}{sq[1]},{sq[1]}{sq[2]}"
    raise NotationError(f"bad kirin move {move!r}")


def parse_highlight(line: str) -> set:
    """The marked squares (kirin notation) of a HaChu `highlight <board>` line: 15 rows from rank 15
    (top) down, files a-o from the left, digits for runs of unmarked squares, a colour letter on
    each marked one."""
    rows = line.split()[1].split("/")
    if len(rows) != FILES:
        raise NotationError(f"bad highlight {line!r}")
    marked = set()
    for i, row in enumerate(rows):
        rank, file = FILES - i, 0
        for tok in re.findall(r"\d+|.", row):
            if tok.isdigit():
                file += int(tok)
            else:
                marked.add(hachu_to_kirin_square(f"{chr(ord('a') + file)}{rank}"))
                file += 1
        if file != FILES:
            raise NotationError(f"bad highlight row {row!r}")
    return marked




RESULT = re.compile(r"^(1-0|0-1|1/2-1/2)\s*(\{.*\})?")


class XBoardEngine(EngineProcess):
    """HaChu in force mode: it is told every move (`usermove`) and asked to move with `go`, after
    which it goes back to force mode.  `ping`/`pong` tells when it has taken a move.  `spec`: a
    dai referee's engine spec (referee/dai.py, Spec) of kind `xboard`."""

    def __init__(self, spec, movetime: int, log_path: Path | None = None):
        self.spec = spec
        self.movetime = movetime
        self.log = open(log_path, "a") if log_path else None
        try:
            super().__init__(spec.name, spec.cmd, subprocess.STDOUT)
        except Exception:
            self.closed()
            raise
        self.pings = 0
        self.strays: list = []  # lines nobody asked for (result claims after a move, errors)

    def send(self, line: str):
        if self.log:
            self.log.write(f"> {line}\n")
        super().send(line)

    def readline(self, deadline: float):
        """(time, line) of the next line that is not a `#` debug line."""
        while True:
            t, line = super().readline(deadline)
            if self.log:
                self.log.write(f"< {line}\n")
            if not line.startswith("#"):
                return t, line

    def sync(self, timeout: float = 30.0) -> list:
        """Lines up to the answer of a fresh ping."""
        self.pings += 1
        self.send(f"ping {self.pings}")
        deadline = time.monotonic() + timeout
        out = []
        while True:
            _, line = self.readline(deadline)
            if line == f"pong {self.pings}":
                return out
            out.append(line)

    def start(self):
        self.send("xboard")
        self.send("protover 2")
        deadline = time.monotonic() + 30.0
        while True:
            _, line = self.readline(deadline)
            if line.startswith("feature") and "done=1" in line:
                break
        # `new` selects chu shogi and drops any depth limit: the variant and limits come after it.
        for cmd in ("new", "variant dai", f"memory {self.spec.memory}", "easy", "nopost", "force"):
            self.send(cmd)
        if self.spec.depth is not None:
            self.send(f"sd {self.spec.depth}")
        else:
            self.send(f"st {max(1, round(self.move_ms() / 1000))}")
        self.sync()

    def move_ms(self) -> int:
        return self.spec.st * 1000 if self.spec.st is not None else self.movetime

    def setboard(self, sfen: str):
        """Sets up a position from a kirin SFEN with Black to move.  HaChu 0.21 reads kirin's board
        field as its own FEN (the same piece letters, ranks from White's side down), but no field
        after it: a space there is an `Unknown piece` and HaChu exits; without one it gives the move
        to Black.  What HaChu remembers of the game (its declined pawns) starts afresh."""
        fields = sfen.split()
        if not fields or (len(fields) > 1 and fields[1] != "b"):
            raise NotationError(f"HaChu can set up only positions with Black to move: {sfen!r}")
        self.send(f"setboard {fields[0]}")
        self.sync()

    def tell(self, hachu_text: str) -> str | None:
        """Plays a move on HaChu's board; None if taken, else HaChu's complaint."""
        self.send(f"usermove {hachu_text}")
        lines = self.sync()
        bad = [ln for ln in lines if ln.startswith("Illegal move") or ln.startswith("Error")]
        self.strays += [ln for ln in lines if ln not in bad]
        return "; ".join(bad) if bad else None

    def targets(self, square: str) -> set:
        """The squares HaChu highlights for the piece on `square` (kirin notation)."""
        h = kirin_to_hachu_square(square)
        self.send(f"lift {h}")
        lines = self.sync()
        self.send(f"put {h}")
        self.sync()
        marked = set()
        for ln in lines:
            if ln.startswith("highlight "):
                marked |= parse_highlight(ln)
        return marked

    def ask(self, moves: list, limit_ms: float, grace_s: float = 3.0) -> Reply:
        """HaChu's move (kirin text; HaChu has been told `moves`) or its claim, a result line or
        `resign`."""
        if self.spec.depth is None:
            # HaChu 0.21 thinks only as long as its clock allows, and the clock is what `time`
            # says (centiseconds): with `st` alone it is empty and HaChu moves in milliseconds.
            # It may spend about its whole clock on one move, so the clock is set to the move
            # time before every move (measured at 1 s: 0.18-1.12 s a move, 3 s: 0.6-2.97 s;
            # with twice the move time on the clock it took up to twice the move time).
            clock = self.move_ms() // 10
            self.send(f"time {clock}")
            self.send(f"otim {clock}")
        self.send("go")
        t0 = time.monotonic()
        hard = t0 + limit_ms / 1000.0 + grace_s
        legs = []
        try:
            while True:
                t, line = self.readline(hard)
                words = line.split()
                if words[:1] == ["move"] and len(words) > 1:
                    legs.append(words[1])
                    if not words[1].endswith(","):
                        break
                elif RESULT.match(line) or words[:1] == ["resign"]:
                    self.send("force")
                    return Reply(None, (t - t0) * 1000.0, line, None)
                elif line.startswith("Illegal move") or line.startswith("Error"):
                    self.strays.append(line)
        except EngineTimeout:
            return Reply(None, (time.monotonic() - t0) * 1000.0, None, None)
        self.send("force")
        raw = "".join(legs)
        try:
            return Reply(hachu_to_kirin(raw), (t - t0) * 1000.0, None, raw)
        except NotationError:
            return Reply(raw, (t - t0) * 1000.0, None, raw)  # the judge will refuse it, by name

    def closed(self):
        if self.log:
            self.log.close()
