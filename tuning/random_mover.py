#!/usr/bin/env python3
"""A USI engine that plays a uniformly random legal move (cshogi's move generator), the floor of
the strength ladder: `tuning/levels.py` checks that kirin's weakest level beats it.

Usage: random_mover.py [SEED]   (a seed makes its games replay; the default draws one)
It declares no options, answers `isready` at once, and resigns when it has no legal move.
"""

import random
import sys

import cshogi


def main():
    rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else None)
    board = cshogi.Board()
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        cmd = words[0]
        if cmd == "usi":
            print("id name random-mover\nid author kirin tuning\nusiok", flush=True)
        elif cmd == "isready":
            print("readyok", flush=True)
        elif cmd == "position":
            board = cshogi.Board()
            if words[1] == "sfen":
                board.set_sfen(" ".join(words[2:6]))
            if "moves" in words:
                for m in words[words.index("moves") + 1:]:
                    board.push_usi(m)
        elif cmd == "go":
            moves = [cshogi.move_to_usi(m) for m in board.legal_moves]
            print(f"bestmove {rng.choice(moves) if moves else 'resign'}", flush=True)
        elif cmd == "quit":
            return


if __name__ == "__main__":
    main()
