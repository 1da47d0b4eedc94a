"""Engine processes under the referee's deadlines: every read has a deadline, a crash or a hang
is an exception (EngineCrash, EngineTimeout), never a hang of the referee, and an engine that
will not quit is killed with its process group.  The USI engine is here; HaChu's XBoard engine
(hachu.py) and the `kirin judge` client (dai.py) run on the same process class."""

from __future__ import annotations

import collections
import dataclasses
import os
import queue
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
OUT = REPO / "tuning" / "out"


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
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)
    except Exception:
        pass


# Every engine process not yet closed, so that an interrupted match can end its games at once.
_LIVE: set = set()
_LIVE_LOCK = threading.Lock()


def kill_live_engines():
    """SIGKILL every engine still running (the referee is being interrupted)."""
    with _LIVE_LOCK:
        procs = list(_LIVE)
    for p in procs:
        p.kill()


class EngineProcess:
    """A child process spoken to line by line.  Its stdout is read by a thread that stamps each
    line with its arrival time (a move's time is measured from the `go` write to that stamp), so
    that every read can have a deadline.  `stderr`: a file, subprocess.STDOUT or DEVNULL."""

    def __init__(self, name: str, cmd: list, stderr=subprocess.DEVNULL):
        self.name = name
        try:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=stderr, bufsize=0, preexec_fn=_engine_child_setup)
        except OSError as e:
            raise EngineCrash(f"cannot start {cmd}: {e}") from e
        with _LIVE_LOCK:
            _LIVE.add(self)
        self.q: queue.Queue = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

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
            raise EngineCrash(f"{self.name}: write failed ({e})") from e

    def readline(self, deadline: float):
        """(arrival time, line) or raise EngineTimeout / EngineCrash."""
        remaining = deadline - time.monotonic()
        try:
            t, line = self.q.get(timeout=max(remaining, 0.0)) if remaining > 0 else self.q.get_nowait()
        except queue.Empty:
            raise EngineTimeout(self.name) from None
        if line is None:
            self.q.put((t, None))  # stay at EOF
            raise EngineCrash(f"{self.name}: exited (code {self.proc.poll()})")
        return t, line

    def drain(self):
        while True:
            try:
                t, line = self.q.get_nowait()
            except queue.Empty:
                return
            if line is None:
                self.q.put((t, None))
                return

    def kill(self):
        """SIGKILL the process group (an engine run by a wrapper takes its children along), or
        the process alone where it has no group of its own."""
        try:
            if os.getpgid(self.proc.pid) == self.proc.pid:
                os.killpg(self.proc.pid, signal.SIGKILL)
            else:
                self.proc.kill()
        except OSError:
            pass

    def goodbye(self, result: str | None):
        """The protocol's last words before the process is waited for."""
        self.send("quit")

    def close(self, result: str | None = None):
        """Says goodbye (`result`: 'win', 'lose' or 'draw' from this engine's view, where the
        protocol tells it), waits 2 s for the exit and kills it after that."""
        try:
            if self.proc.poll() is None:
                try:
                    self.goodbye(result)
                except EngineError:
                    pass
                try:
                    self.proc.wait(timeout=2.0)
                except subprocess.TimeoutExpired:
                    self.kill()
                    try:
                        self.proc.wait(timeout=30.0)
                    except subprocess.TimeoutExpired:
                        # Killed, but starved of CPU (a low-priority run beside other work):
                        # it is reaped later, and the game's result stands.
                        print(f"{self.name}: not yet gone 30 s after kill", file=sys.stderr)
        finally:
            with _LIVE_LOCK:
                _LIVE.discard(self)
            self.closed()

    def closed(self):
        """After the process is gone: close what the engine kept open."""


# An engine's answer to `go`: the move (the rules' text) or None, the ms it took, a claim
# instead of a move ('resign', or an XBoard result line) or None, and the move as the engine wrote it.
Reply = collections.namedtuple("Reply", "move ms claim raw")


class USIEngine(EngineProcess):
    """One USI engine.  `start`: the position the game starts from (`startpos`, `sfen ...`),
    `variant`: UCI_Variant, sent whether declared or not; `options`: defaults the spec's own
    options override, sent (as the spec's) only where the engine declares them or for USI_*;
    `go`: `byoyomi` (`go btime 0 wtime 0 byoyomi MS`) or `movetime` (`go movetime MS`);
    `ready_s`: the deadline of `readyok`."""

    def __init__(self, spec: EngineSpec, log_path: Path | None = None, *, start: str = "startpos",
                 variant: str | None = None, options: dict | None = None, go: str = "byoyomi",
                 ms: int = 0, ready_s: float = 120.0):
        self.spec = spec
        self.log = open(log_path, "ab") if log_path else subprocess.DEVNULL
        self.start_position, self.variant, self.ready_s = start, variant, ready_s
        self.options = dict(options or {}, **spec.options)
        self.go_mode, self.ms = go, ms
        self.declared_options: set = set()
        self.id_name = spec.name
        try:
            super().__init__(spec.name, spec.cmd, self.log)
        except EngineError:
            self.closed()
            raise

    def wait_for(self, token: str, timeout: float):
        deadline = time.monotonic() + timeout
        while True:
            try:
                t, line = self.readline(deadline)
            except EngineTimeout:
                raise EngineTimeout(f"{self.name}: no {token} within {timeout:.0f} s") from None
            if line.split()[:1] == [token]:
                return t, line
            yield_line = line.split()
            if yield_line[:2] == ["option", "name"] and len(yield_line) > 2:
                self.declared_options.add(yield_line[2])
            if yield_line[:2] == ["id", "name"]:
                self.id_name = line[len("id name "):]

    def start(self):
        """usi / setoption / isready / usinewgame."""
        # gpsusi loads its tables before usiok: 4 s idle, over 10 s at load 10 on 2 cores;
        # Fairy-Stockfish (WebAssembly) needs about 2 s on an idle core.
        self.send("usi")
        self.wait_for("usiok", 60.0)
        if self.variant:
            self.send(f"setoption name UCI_Variant value {self.variant}")
        for k, v in self.options.items():
            if k in self.declared_options or k.startswith("USI_"):
                self.send(f"setoption name {k} value {v}")
        self.send("isready")
        self.wait_for("readyok", self.ready_s)
        self.send("usinewgame")

    def ask(self, moves: list, limit_ms: float, grace_s: float = 3.0) -> Reply:
        """The engine's move after `moves` from the start position.  Past the limit the referee
        waits `grace_s` more, only to measure the overrun."""
        self.drain()
        self.send(f"position {self.start_position}" + (" moves " + " ".join(moves) if moves else ""))
        self.send(f"go movetime {self.ms}" if self.go_mode == "movetime" else f"go btime 0 wtime 0 byoyomi {self.ms}")
        t0 = time.monotonic()
        hard = t0 + limit_ms / 1000.0 + grace_s
        while True:
            try:
                t, line = self.readline(hard)
            except EngineTimeout:
                return Reply(None, (time.monotonic() - t0) * 1000.0, None, None)
            toks = line.split()
            if toks[:1] == ["bestmove"]:
                tok = toks[1] if len(toks) > 1 else ""
                ms = (t - t0) * 1000.0
                return Reply(None, ms, tok, tok) if tok == "resign" else Reply(tok, ms, None, tok)

    def goodbye(self, result: str | None):
        self.send("stop")
        if result:
            self.send(f"gameover {result}")
        self.send("quit")

    def closed(self):
        if self.log is not subprocess.DEVNULL:
            self.log.close()
