#!/usr/bin/env python3
"""Scripted misbehaving USI engines for the referee tests (tuning/test_match.py) and for the
measurement of ShogiArena's runner against kirin's rules (tuning/test_arena_rules.py).

Usage: python tuning/fake_engine.py MODE [ARG]

MODE, what the engine does at `go`:
  first      plays the first legal move in cshogi's order (resigns when it has none)
  resign     resigns
  crash      exits (code 3) at its first go; crash3 at its third
  dead       exits (code 3) at once: an engine that fails to start
  slow       sleeps 0.4 s, then plays as `first`
  over       sleeps byoyomi + ARG ms (default 50), then plays as `first`: always a little late
  hang       never answers, nor reads another command: exits when its parent is gone
  illegal    answers `bestmove 5e5d`, a move no position here allows
  win, falsewin   answers `bestmove win` (the test picks a position where it is true or false)
  cycle      ARG is a comma-separated list of moves; the k-th move of this side in the game is
             ARG[k % len]: two cycle engines repeat a position for ever (sennichite)
  gated      ARG is a folder.  The first engine process in the folder to get a `go` plays as
             `first`; every later one writes ARG/thinking-PID at its first `go` and then waits
             until ARG/release exists before playing as `first`.  A test uses it to know, without
             racing the clock, that games are under way and cannot finish before it lets them.
  held       ARG is a folder.  At its first `go` the engine writes ARG/thinking-PID, holding its
             working folder, and waits until ARG/go-PID or ARG/go-all exists (or its parent is
             gone) before playing as `first`: a test of SSH workers, whose games run in a folder
             of their host's, knows where each game is under way and decides whether it goes on.

Every engine but `dead` declares `Threads` and answers `usi`, `isready`, `position`, `go`, `quit`.
"""

import os
import sys
import time
from pathlib import Path

import cshogi


def hold(folder):
    """The `held` engine's wait at its first go (see the module's docstring)."""
    pid = os.getpid()
    (folder / f".thinking-{pid}").write_text(os.getcwd())
    os.replace(folder / f".thinking-{pid}", folder / f"thinking-{pid}")  # seen whole or not at all
    parent, deadline = os.getppid(), time.monotonic() + 600  # never outlive a broken test for long
    while not ((folder / f"go-{pid}").exists() or (folder / "go-all").exists()):
        if os.getppid() != parent or time.monotonic() > deadline:
            sys.exit(0)
        time.sleep(0.05)


def main(argv):
    mode = argv[1]
    arg = argv[2] if len(argv) > 2 else None
    if mode == "dead":
        sys.exit(3)
    board = cshogi.Board()
    ngo = 0
    nmoves = 0  # moves in the last position command
    gate_checked = False

    def out(s):
        sys.stdout.write(s + "\n")
        sys.stdout.flush()

    def first_move():
        if board.is_game_over():
            return "resign"
        return cshogi.move_to_usi(sorted(board.legal_moves)[0])

    for line in sys.stdin:
        t = line.split()
        if not t:
            continue
        if t[0] == "usi":
            out("id name fake-" + mode)
            out("option name Threads type spin default 1 min 1 max 4")
            out("usiok")
        elif t[0] == "isready":
            out("readyok")
        elif t[0] == "position":
            if t[1] == "startpos":
                board.reset()
                rest = t[2:]
            else:
                board.set_sfen(" ".join(t[2:6]))
                rest = t[6:]
            moves = rest[1:] if rest[:1] == ["moves"] else []
            for m in moves:
                board.push_usi(m)
            nmoves = len(moves)
        elif t[0] == "go":
            ngo += 1
            if mode == "crash" or (mode == "crash3" and ngo == 3):
                sys.exit(3)
            if mode == "slow":
                time.sleep(0.4)
            if mode == "over":
                byo = int(t[t.index("byoyomi") + 1]) if "byoyomi" in t else 0
                time.sleep((byo + int(arg or 50)) / 1000)
            if mode == "hang":
                # never answers, reads nothing more; gone when its parent is (or after 10 min)
                parent, end = os.getppid(), time.monotonic() + 600
                while os.getppid() == parent and time.monotonic() < end:
                    time.sleep(0.1)
                sys.exit(0)
            if mode == "illegal":
                out("bestmove 5e5d")
                continue
            if mode in ("win", "falsewin"):
                out("bestmove win")
                continue
            if mode == "resign":
                out("bestmove resign")
                continue
            if mode == "cycle":
                script = arg.split(",")
                want = script[(nmoves // 2) % len(script)]
                legal = {cshogi.move_to_usi(m) for m in board.legal_moves}
                out("bestmove " + (want if want in legal else first_move()))
                continue
            if mode == "gated" and not gate_checked:
                gate_checked = True
                gate = Path(arg)
                try:
                    os.close(os.open(gate / "ticket", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
                except FileExistsError:
                    (gate / f"thinking-{os.getpid()}").write_text("")
                    deadline = time.monotonic() + 120  # never outlive a broken test for long
                    while not (gate / "release").exists() and time.monotonic() < deadline:
                        time.sleep(0.02)
            if mode == "held" and ngo == 1:
                hold(Path(arg))
            out("bestmove " + first_move())
        elif t[0] == "quit":
            break


if __name__ == "__main__":
    main(sys.argv)
