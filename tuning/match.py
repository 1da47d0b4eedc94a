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
import math
import os
import queue
import random
import re
import shlex
import subprocess
import sys
import threading
import time
from pathlib import Path

import cshogi

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "tuning" / "out"
OPENING_CANDIDATES = [
    os.environ.get("KIRIN_OPENINGS", ""),
    str(REPO.parent / "shared" / "data" / "openings" / "taya36.sfen"),
]

# ----------------------------------------------------------------------------------------------
# Statistics: Elo, error margins, SPRT
# ----------------------------------------------------------------------------------------------
Z95 = 1.959963984540054


def elo_from_score(s: float) -> float:
    """Logistic Elo difference for an expected score s in (0, 1)."""
    if s <= 0.0:
        return -math.inf
    if s >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / s - 1.0)


def score_from_elo(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def _mean_var(values_counts):
    """Mean and (population) variance of a discrete distribution given as (value, count) pairs."""
    n = sum(c for _, c in values_counts)
    if n == 0:
        return 0.0, 0.0, 0
    mean = sum(v * c for v, c in values_counts) / n
    var = sum(c * (v - mean) ** 2 for v, c in values_counts) / n
    return mean, var, n


def _elo_interval(mean, var, n):
    se = math.sqrt(var / n) if n else math.inf
    lo, hi = elo_from_score(mean - Z95 * se), elo_from_score(mean + Z95 * se)
    margin = (hi - lo) / 2.0 if math.isfinite(lo) and math.isfinite(hi) else math.inf
    return elo_from_score(mean), margin, lo, hi


def elo_trinomial(w: int, d: int, l: int):
    """(elo, margin95, lo, hi) from W/D/L, games treated as independent.

    score mean s = (W + D/2)/N, per-game variance var = (W(1-s)^2 + D(1/2-s)^2 + L s^2)/N,
    standard error se = sqrt(var/N); the interval is elo(s -+ 1.96 se), the margin its half width.
    """
    return _elo_interval(*_mean_var([(1.0, w), (0.5, d), (0.0, l)]))


PENTA_VALUES = [0.0, 0.25, 0.5, 0.75, 1.0]


def elo_pentanomial(p):
    """(elo, margin95, lo, hi) from pair counts p[0..4] (pair score 0, 1/2, 1, 3/2, 2 points).

    A pair is the two games of one opening with colours swapped; its score per game is
    0, 1/4, 1/2, 3/4, 1 and the pairs (not the games) are the independent samples, which removes
    the opening's bias from the variance.
    """
    return _elo_interval(*_mean_var(list(zip(PENTA_VALUES, p))))


def sprt_llr(mean: float, var: float, n: int, elo0: float, elo1: float) -> float:
    """Log-likelihood ratio of H1 (elo1) against H0 (elo0), normal approximation.

    Derivation: the sample mean x of n i.i.d. scores with variance var is ~ N(s, var/n).  With
    s0 = score(elo0), s1 = score(elo1):
        LLR = log N(x; s1, var/n) - log N(x; s0, var/n)
            = n/(2 var) * ((x - s0)^2 - (x - s1)^2)
            = n (s1 - s0) (2x - s0 - s1) / (2 var).
    This is the approximation fishtest's (logistic-Elo) SPRT uses; for pentanomial data the
    samples are game pairs with per-game pair scores 0, 1/4, ..., 1.
    """
    if n == 0 or var <= 0.0:
        return 0.0
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    return n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)


def sprt_bounds(alpha: float, beta: float):
    """(lower, upper): accept H0 when LLR <= lower, H1 when LLR >= upper (Wald)."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def sprt_status(llr, alpha, beta):
    lo, hi = sprt_bounds(alpha, beta)
    if llr >= hi:
        return "H1 accepted"
    if llr <= lo:
        return "H0 accepted"
    return "continue"


def sprt_from_results(w, d, l, penta, elo0, elo1, model="penta"):
    """LLR from W/D/L (model 'tri') or pair counts (model 'penta').

    Empty categories get a count of 1e-3 (as fishtest regularises): otherwise a one-sided run
    (all wins) has zero variance and the LLR would stay 0 for ever."""
    if model == "penta" and sum(penta) > 0:
        vc = list(zip(PENTA_VALUES, penta))
    elif w + d + l > 0:
        vc = [(1.0, w), (0.5, d), (0.0, l)]
    else:
        return 0.0
    vc = [(v, c if c > 0 else 1e-3) for v, c in vc]
    mean, var, n = _mean_var(vc)
    return sprt_llr(mean, var, n, elo0, elo1)


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
# Engines
# ----------------------------------------------------------------------------------------------
@dataclasses.dataclass
class EngineSpec:
    name: str
    cmd: list
    options: dict
    byoyomi: int | None = None  # ms; None = the match's --byoyomi
    margin_ms: int = 0  # referee tolerance on top of byoyomi
    margin_pct: float = 0.0  # ... plus this fraction of byoyomi
    build: str | None = None  # git revision to build (kirin@REV)

    def limit_ms(self, byoyomi: int) -> float:
        return byoyomi + self.margin_ms + self.margin_pct * byoyomi


def kirin_default_path() -> str:
    return os.environ.get("KIRIN_BIN", str(REPO / "target" / "release" / "kirin"))


def parse_engine_spec(text: str) -> EngineSpec:
    """NAME[,key=value...] where NAME is a preset (kirin, kirin@REV, gpsshogi, fairy) or a path.

    keys: name=, cmd= (shell words), byoyomi= (ms), margin= (ms), margin_pct= (fraction),
    opt.<Option>=<value> (sent with setoption if the engine declares the option).
    """
    parts = text.split(",")
    head, kvs = parts[0], parts[1:]
    if head == "gpsshogi" or head == "gps":
        # gpsshogi ignores short byoyomi (about 1 s per move out of book) and runs 3-10 % over
        # longer periods, up to 60 % over 1 s at load 8 on 2 cores: give it >= 1 s and a wide
        # margin so that its overruns are not our wins.
        spec = EngineSpec("gpsshogi", ["/usr/games/gpsusi"], {"Thread": "1"}, byoyomi=1000,
                          margin_ms=1000, margin_pct=0.10)
    elif head in ("fairy", "fairy-stockfish", "fsf"):
        spec = EngineSpec("fairy-stockfish", ["/usr/games/fairy-stockfish"],
                          {"Threads": "1", "UCI_Variant": "shogi"}, margin_ms=100)
    elif head == "kirin":
        spec = EngineSpec("kirin", [kirin_default_path()], {"Threads": "1", "USI_Ponder": "false"})
    elif head.startswith("kirin@"):
        rev = head[len("kirin@"):]
        folder = re.sub(r"[^A-Za-z0-9._-]", "_", rev)  # as tuning/build_rev.sh names it
        spec = EngineSpec(f"kirin@{rev}", [str(OUT / f"kirin-{folder}" / "kirin")],
                          {"Threads": "1", "USI_Ponder": "false"}, build=rev)
    else:
        spec = EngineSpec(Path(head).name, [head], {"Threads": "1"})
    for kv in kvs:
        k, _, v = kv.partition("=")
        if k == "name":
            spec.name = v
        elif k == "cmd":
            spec.cmd = shlex.split(v)
        elif k == "byoyomi":
            spec.byoyomi = int(v)
        elif k == "margin":
            spec.margin_ms = int(v)
        elif k == "margin_pct":
            spec.margin_pct = float(v)
        elif k.startswith("opt."):
            spec.options[k[4:]] = v
        else:
            raise ValueError(f"unknown engine key {k!r} in {text!r}")
    return spec


class EngineError(Exception):
    pass


class EngineCrash(EngineError):
    pass


class EngineTimeout(EngineError):
    pass


def _engine_child_setup():
    """In an engine's process before it starts: SIGKILL when the referee goes away (Linux prctl
    PR_SET_PDEATHSIG), so a hung engine never outlives an interrupted match, and a process group
    of its own: a Ctrl-C at the terminal, or `timeout` signalling its whole group, must reach the
    referee alone.  Otherwise the engines die of the signal first and the games they were playing
    are scored as crashes before the referee hears of the interrupt."""
    try:
        os.setpgid(0, 0)
    except OSError:
        pass
    try:
        import ctypes
        import signal
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)
    except Exception:
        pass


# Every engine process not yet closed, so that an interrupted match can end its games at once.
_LIVE: set = set()
_LIVE_LOCK = threading.Lock()


def kill_live_engines():
    """SIGKILL every engine still running (the referee is being interrupted)."""
    with _LIVE_LOCK:
        procs = [e.proc for e in _LIVE]
    for p in procs:
        try:
            p.kill()
        except OSError:
            pass


class Engine:
    """One USI engine process; every read has a deadline, stdout is read by a thread that stamps
    each line with its arrival time (the move time is measured from the `go` write to that stamp)."""

    def __init__(self, spec: EngineSpec, log_path: Path | None = None):
        self.spec = spec
        self.log = open(log_path, "ab") if log_path else subprocess.DEVNULL
        try:
            self.proc = subprocess.Popen(spec.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self.log, bufsize=0, preexec_fn=_engine_child_setup)
        except OSError as e:
            raise EngineCrash(f"cannot start {spec.cmd}: {e}") from e
        with _LIVE_LOCK:
            _LIVE.add(self)
        self.q: queue.Queue = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.declared_options: set = set()
        self.id_name = spec.name

    def _read(self):
        f = self.proc.stdout
        for raw in iter(f.readline, b""):
            self.q.put((time.monotonic(), raw.decode("ascii", "replace").rstrip("\r\n")))
        self.q.put((time.monotonic(), None))

    def send(self, line: str):
        try:
            self.proc.stdin.write((line + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as e:
            raise EngineCrash(f"{self.spec.name}: write failed ({e})") from e

    def readline(self, deadline: float):
        """(arrival time, line) or raise EngineTimeout / EngineCrash."""
        remaining = deadline - time.monotonic()
        try:
            t, line = self.q.get(timeout=max(remaining, 0.0)) if remaining > 0 else self.q.get_nowait()
        except queue.Empty:
            raise EngineTimeout(self.spec.name) from None
        if line is None:
            self.q.put((t, None))  # stay at EOF
            raise EngineCrash(f"{self.spec.name}: exited (code {self.proc.poll()})")
        return t, line

    def wait_for(self, token: str, timeout: float):
        deadline = time.monotonic() + timeout
        while True:
            try:
                t, line = self.readline(deadline)
            except EngineTimeout:
                raise EngineTimeout(f"{self.spec.name}: no {token} within {timeout:.0f} s") from None
            if line.split()[:1] == [token]:
                return t, line
            yield_line = line.split()
            if yield_line[:2] == ["option", "name"] and len(yield_line) > 2:
                self.declared_options.add(yield_line[2])
            if yield_line[:2] == ["id", "name"]:
                self.id_name = line[len("id name "):]

    def start(self, extra_options=None):
        """usi / setoption (only for declared options, and USI_*) / isready.  extra_options are
        defaults the spec's own options override (e.g. MaxMovesToDraw from --max-plies)."""
        # gpsusi loads its tables before usiok: 4 s idle, over 10 s at load 10 on 2 cores
        self.send("usi")
        self.wait_for("usiok", 60.0)
        for k, v in dict(extra_options or {}, **self.spec.options).items():
            if k in self.declared_options or k.startswith("USI_"):
                self.send(f"setoption name {k} value {v}")
        self.send("isready")
        self.wait_for("readyok", 120.0)

    def new_game(self):
        self.send("usinewgame")

    def drain(self):
        while True:
            try:
                t, line = self.q.get_nowait()
            except queue.Empty:
                return
            if line is None:
                self.q.put((t, None))
                return

    def go(self, position: str, byoyomi: int, limit_ms: float, grace_s: float = 3.0):
        """Ask for a move.  Returns (token, elapsed_ms, late) where token is the bestmove
        argument ('resign', 'win', a move) or None if none came within limit + grace."""
        self.drain()
        self.send(position)
        self.send(f"go btime 0 wtime 0 byoyomi {byoyomi}")
        t0 = time.monotonic()
        hard = t0 + limit_ms / 1000.0 + grace_s  # past the limit we only wait to measure the overrun
        while True:
            try:
                t, line = self.readline(hard)
            except EngineTimeout:
                return None, (time.monotonic() - t0) * 1000.0
            toks = line.split()
            if toks[:1] == ["bestmove"]:
                return (toks[1] if len(toks) > 1 else ""), (t - t0) * 1000.0

    def close(self, result: str | None = None):
        try:
            if self.proc.poll() is None:
                try:
                    self.send("stop")
                    if result:
                        self.send(f"gameover {result}")
                    self.send("quit")
                except EngineError:
                    pass
                try:
                    self.proc.wait(timeout=2.0)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    try:
                        self.proc.wait(timeout=30.0)
                    except subprocess.TimeoutExpired:
                        # Killed, but starved of CPU (a low-priority run beside other work):
                        # it is reaped later, and the game's result stands.
                        print(f"{self.spec.name}: not yet gone 30 s after kill", file=sys.stderr)
        finally:
            with _LIVE_LOCK:
                _LIVE.discard(self)
            if self.log is not subprocess.DEVNULL:
                self.log.close()


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
                e = Engine(specs[c], log)
                engines[c] = e
                e.start({"MaxMovesToDraw": str(max_plies)})
                e.new_game()
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
                tok, ms = e.go(gs.position_command(), byo, limit)
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


class Tally:
    def __init__(self):
        self.w = self.d = self.l = 0
        self.pairs: dict = {}  # pair index -> list of scores for A
        self.penta = [0, 0, 0, 0, 0]
        self.time = {"A": self._t(), "B": self._t()}
        self.faults = {"A": {}, "B": {}}
        self.reasons: dict = {}

    @staticmethod
    def _t():
        return {"moves": 0, "total_ms": 0.0, "max_ms": 0.0, "over_byoyomi": 0}

    def add(self, pair: int, a_colour: str, res: dict):
        score = 0.5 if res["winner"] == "draw" else (1.0 if res["winner"] == a_colour else 0.0)
        if score == 1.0:
            self.w += 1
        elif score == 0.5:
            self.d += 1
        else:
            self.l += 1
        self.pairs.setdefault(pair, []).append(score)
        if len(self.pairs[pair]) == 2:
            self.penta[int(round(sum(self.pairs[pair]) * 2))] += 1
        b_colour = "white" if a_colour == "black" else "black"
        for who, col in (("A", a_colour), ("B", b_colour)):
            s, t = res["stats"][col], self.time[who]
            t["moves"] += s["moves"]
            t["total_ms"] += s["total_ms"]
            t["max_ms"] = max(t["max_ms"], s["max_ms"])
            t["over_byoyomi"] += s["over_byoyomi"]
        if res["faulty"]:
            who = "A" if res["faulty"] == a_colour else "B"
            self.faults[who][res["reason"]] = self.faults[who].get(res["reason"], 0) + 1
        self.reasons[res["reason"]] = self.reasons.get(res["reason"], 0) + 1

    def summary(self, sprt=None, model="penta"):
        n = self.w + self.d + self.l
        out = {"games": n, "W": self.w, "D": self.d, "L": self.l, "pentanomial": self.penta,
               "reasons": self.reasons, "faults": self.faults, "time": {}}
        if n:
            e, m, _, _ = elo_trinomial(self.w, self.d, self.l)
            out["elo_trinomial"] = [e, m]
        if sum(self.penta):
            e, m, _, _ = elo_pentanomial(self.penta)
            out["elo_pentanomial"] = [e, m]
        for who, t in self.time.items():
            out["time"][who] = dict(t, mean_ms=(t["total_ms"] / t["moves"]) if t["moves"] else 0.0)
        if sprt:
            llr = sprt_from_results(self.w, self.d, self.l, self.penta, sprt["elo0"], sprt["elo1"], model)
            lo, hi = sprt_bounds(sprt["alpha"], sprt["beta"])
            status = sprt_status(llr, sprt["alpha"], sprt["beta"])
            if n < sprt.get("min_games", 0):
                status = "continue"  # the regularised variance of a handful of games decides too fast
            out["sprt"] = {"llr": llr, "lower": lo, "upper": hi, "status": status, **sprt}
        return out


def fmt_elo(x):
    return f"{x + 0.0:+.1f}" if math.isfinite(x) else ("+inf" if x > 0 else "-inf")


def print_summary(s, a_name, b_name, file=sys.stdout):
    print(f"{a_name} vs {b_name}: {s['games']} games  W {s['W']}  D {s['D']}  L {s['L']}"
          f"  pentanomial {s['pentanomial']}", file=file)
    if "elo_trinomial" in s:
        e, m = s["elo_trinomial"]
        print(f"  Elo (trinomial)  {fmt_elo(e)} +- {m:.1f}", file=file)
    n = s["games"]
    if n and s["W"] + s["D"] == 0:  # no point scored: the one-sided bound 1 - 0.05^(1/N) on the score
        print(f"  Elo < {fmt_elo(elo_from_score(1 - 0.05 ** (1 / n)))} (95 %, no point in {n} games)", file=file)
    if n and s["L"] + s["D"] == 0:
        print(f"  Elo > {fmt_elo(elo_from_score(0.05 ** (1 / n)))} (95 %, every game won of {n})", file=file)
    if "elo_pentanomial" in s:
        e, m = s["elo_pentanomial"]
        note = "  (zero sample variance: every pair scored alike, the margin means nothing)" if m == 0 else ""
        print(f"  Elo (pentanomial) {fmt_elo(e)} +- {m:.1f}{note}", file=file)
    if "sprt" in s:
        p = s["sprt"]
        print(f"  SPRT elo0={p['elo0']} elo1={p['elo1']} alpha={p['alpha']} beta={p['beta']}: "
              f"LLR {p['llr']:.3f} [{p['lower']:.3f}, {p['upper']:.3f}] -> {p['status']}", file=file)
        if p.get("decided_after"):
            print(f"  sequentially, in the order the games finished: {p['first_decision']} "
                  f"after {p['decided_after']} games", file=file)
    for who, name in (("A", a_name), ("B", b_name)):
        t = s["time"][who]
        print(f"  time {name}: {t['moves']} moves, mean {t['mean_ms']:.0f} ms, max {t['max_ms']:.0f} ms, "
              f"over byoyomi {t['over_byoyomi']}; faults {s['faults'][who] or 'none'}", file=file)
    print(f"  endings {s['reasons']}", file=file)


def parse_sprt(words):
    d = {"elo0": 0.0, "elo1": 5.0, "alpha": 0.05, "beta": 0.05, "min_games": 20}
    for w in words:
        k, _, v = w.partition("=")
        if k not in d:
            raise SystemExit(f"--sprt: unknown key {k}")
        d[k] = float(v)
    return d


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
