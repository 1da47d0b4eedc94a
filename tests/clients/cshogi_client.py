"""Drives kirin with cshogi's USI client (cshogi.usi.Engine), as Python tools and
notebooks do: handshake, options, a short game at byoyomi 100 ms with every move checked
by cshogi's own rules, ponder hit and miss, `go mate`, gameover and quit.

Usage: cshogi_client.py <path to kirin>. Exits non-zero on the first failure. cshogi
reads without timeouts, so the caller runs this under `timeout`; the blocking calls
here also run on threads joined with deadlines, to fail with a message instead.
"""

import os
import sys
import threading
import time

import cshogi
from cshogi.usi import Engine, InfoListener

DEADLINE = 20.0


def within(what, fn, *args, **kwargs):
    """Runs fn on a thread and fails if it has not returned within DEADLINE."""
    result = {}

    def run():
        try:
            result["value"] = fn(*args, **kwargs)
        except BaseException as e:  # noqa: BLE001 - reported below
            result["error"] = e

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(DEADLINE)
    if thread.is_alive():
        fail(f"{what}: no answer within {DEADLINE} s")
    if "error" in result:
        fail(f"{what}: {result['error']!r}")
    return result.get("value")


def fail(message):
    print(f"cshogi client: FAIL: {message}", flush=True)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def legal(board, usi):
    move = board.move_from_usi(usi)
    return move != 0 and board.is_legal(move)


def main():
    # cshogi starts the engine in its own folder, so a relative path would not resolve.
    path = os.path.abspath(sys.argv[1])
    engine = within("connect (usi)", Engine, path)
    check(engine.name.startswith("kirin"), f"id name: {engine.name!r}")

    lines = within("usi", engine.usi)
    names = {line.split()[2] for line in lines if line.startswith("option name ")}
    for name in ("USI_Hash", "USI_Ponder", "Threads", "MultiPV", "EnteringKingRule", "BookFile"):
        check(name in names, f"option {name} not declared: {sorted(names)}")

    for name, value in (("USI_Hash", 16), ("Threads", 1), ("USI_Ponder", "true"), ("MultiPV", 1)):
        engine.setoption(name, value)
    within("isready", engine.isready)
    engine.usinewgame()

    # A short game, kirin playing both sides, every answer checked by cshogi.
    board = cshogi.Board()
    moves = []
    listener = InfoListener()
    for _ in range(30):
        engine.position(moves)
        best, ponder = within(
            "go", engine.go, btime=1000, wtime=1000, byoyomi=100, listener=listener.listen()
        )
        if best in ("resign", "win"):
            check(best != "win" or board.is_nyugyoku(), "false entering-king declaration")
            break
        check(legal(board, best), f"illegal bestmove {best} in {board.sfen()}")
        if ponder is not None:
            after = board.copy()
            after.push_usi(best)
            check(legal(after, ponder), f"illegal ponder move {ponder} after {best}")
        board.push_usi(best)
        moves.append(best)
        if board.is_game_over():
            break
    check(len(moves) > 0, "no move played")

    # Ponder hit: `go ponder` must not answer until `ponderhit`.
    engine.position(moves)
    answer = {}
    thread = threading.Thread(
        target=lambda: answer.setdefault("best", engine.go(ponder=True, btime=1000, wtime=1000, byoyomi=100)),
        daemon=True,
    )
    thread.start()
    time.sleep(0.2)
    check(thread.is_alive(), f"bestmove before ponderhit: {answer}")
    engine.ponderhit()
    thread.join(DEADLINE)
    check(not thread.is_alive(), "no bestmove after ponderhit")
    check(legal(board, answer["best"][0]), f"illegal move after ponderhit: {answer}")

    # Ponder miss: `stop`, and the answer is still one bestmove.
    answer.clear()
    thread = threading.Thread(
        target=lambda: answer.setdefault("best", engine.go(ponder=True, byoyomi=100)), daemon=True
    )
    thread.start()
    time.sleep(0.1)
    check(thread.is_alive(), f"bestmove before stop: {answer}")
    engine.stop()
    thread.join(DEADLINE)
    check(not thread.is_alive(), "no bestmove after stop")

    # Tsume: cshogi reads the `checkmate` answer.
    engine.position(sfen="sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G 1")
    mate = within("go mate", engine.go_mate, byoyomi=1000)
    check(
        mate in ("notimplemented", "nomate", "timeout") or mate.split()[0] == "G*5b",
        f"checkmate answer {mate!r}",
    )

    engine.gameover("win")
    within("isready after gameover", engine.isready)
    proc = engine.proc
    within("quit", engine.quit)
    check(proc.returncode == 0, f"exit status {proc.returncode}")
    print(f"cshogi client: ok ({len(moves)} moves played)", flush=True)


if __name__ == "__main__":
    main()
