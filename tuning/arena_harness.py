"""Plays one game under ShogiArena's real tournament runner (`shogiarena run tournament`, local
instance) between two scripted engines of tuning/fake_engine.py, and reads back its verdict.

Used by tuning/test_arena_rules.py, which records what ShogiArena judges right and wrong by
kirin's rules (tuning/arena/README.md has the table).  Every run has a wall-clock limit: a
runner that hangs is killed with its whole process group and reported, never waited on.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

FAKE = Path(__file__).resolve().parent / "fake_engine.py"
ARENA = Path(sys.executable).parent / "shogiarena"
START = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"


class ArenaHung(AssertionError):
    pass


def engine_file(folder: Path, name: str, mode: str, arg: str | None = None) -> Path:
    """An engine YAML for ShogiArena running `fake_engine.py MODE [ARG]` through a wrapper script
    (ShogiArena resolves engine_path's symlinks, which would take the venv's python out of its
    venv)."""
    script = folder / f"{name}.sh"
    words = [sys.executable, str(FAKE), mode] + ([arg] if arg is not None else [])
    script.write_text("#!/bin/sh\nexec " + " ".join(shlex.quote(w) for w in words) + "\n")
    script.chmod(0o755)
    cfg = folder / f"{name}.yaml"
    cfg.write_text(json.dumps({"name": name, "engine_path": str(script)}))
    return cfg


def play(folder: Path, black: tuple, white: tuple, *, sfen: str = START, byoyomi: int = 10000,
         margin: int | None = 0, black_margin: int | None = None, white_margin: int | None = None,
         max_plies: int = 40, repetition: int | None = 4, handshake_timeout: float | None = None,
         limit_s: float = 120) -> dict:
    """One game, `black` and `white` as (mode,) or (mode, arg) of fake_engine.py.  The default
    byoyomi is long: ShogiArena charges its own latency to the engine (hundreds of ms on a loaded
    machine), and only the cases about time may turn on it.  margin is ShogiArena's
    expiry_margin_ms for both; black_margin / white_margin give one engine its own
    time control.  margin or repetition None leaves ShogiArena's default.  handshake_timeout (s)
    is how long ShogiArena waits for usiok, readyok, and a bestmove after `stop`.  Returns the
    game's row: result (ShogiArena's GameResult name), plies, black, white; `games`, the number
    of rows; and `run`, the run folder."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "positions.sfen").write_text("sfen " + sfen + "\n")

    def tc(m):
        return {"time_ms": 0, "byoyomi_ms": byoyomi} | ({} if m is None else {"expiry_margin_ms": m})

    engines = []
    for name, spec, own in (("black", black, black_margin), ("white", white, white_margin)):
        e = {"name": name, "engine_path": str(engine_file(folder, name, *spec))}
        if own is not None:
            e["time_control"] = tc(own)
        if handshake_timeout is not None:
            e["handshake_timeout"] = handshake_timeout
        engines.append(e)
    rules = {
        "time_control": tc(margin),
        "initial_positions": {"type": "file", "source": str(folder / "positions.sfen"), "flip_policy": "none"},
        # the fakes declare no MaxMovesToDraw: do not wait for it
        "adjudication": {"max_plies": max_plies, "sync_max_plies_with_engine": False},
    }
    if repetition is not None:
        rules["repetition_occurrences_to_draw"] = repetition
    config = {"experiment_name": "arena-rules", "engines": engines, "rules": rules,
              "tournament": {"games_per_pair": 1, "num_parallel": 1}, "dashboard": {"enabled": False}}
    (folder / "tournament.yaml").write_text(json.dumps(config, indent=1))
    run = folder / "run"
    log = folder / "arena.log"
    proc = start([str(ARENA), "run", "tournament", str(folder / "tournament.yaml"), "--run-dir", str(run)], folder, log)
    code = finish(proc, log, limit_s)
    if code != 0:
        raise AssertionError(f"shogiarena exited {code}; its log ends:\n{tail(log)}")
    db = sqlite3.connect(run / "game.db")
    try:
        rows = db.execute(
            "select g.game_result, g.num_moves, pb.player_name, pw.player_name from game g "
            "join player pb on pb.id = g.black_player_id join player pw on pw.id = g.white_player_id").fetchall()
    finally:
        db.close()
    if not rows:
        return {"games": 0, "run": run}
    result, plies, b, w = rows[0]
    return {"games": len(rows), "result": result, "plies": plies, "black": b, "white": w, "run": run}


def start(command: list[str], folder: Path, log: Path, env: dict | None = None) -> subprocess.Popen:
    """Starts a ShogiArena command in folder, in a process group of its own, its output to log."""
    with open(log, "wb") as out:
        return subprocess.Popen(command, cwd=folder, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)


def finish(proc: subprocess.Popen, log: Path, limit_s: float) -> int:
    """Waits for a command of `start` and returns its exit status; past limit_s kills its process
    group and raises ArenaHung with the end of its log."""
    try:
        return proc.wait(timeout=limit_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise ArenaHung(f"shogiarena ran past {limit_s} s; its log ends:\n{tail(log)}") from None


def tail(log: Path, n: int = 3000) -> str:
    return log.read_text(errors="replace")[-n:]
