#!/usr/bin/env python3
"""Mate-in-one oracle for kirin's yari tests, built on pyffish (Fairy-Stockfish's rules).

Reads lines from stdin, tab-separated:

    mate  <sfen>  <usi move>   the move is legal and leaves the opponent no legal move
    none  <sfen>               no legal move leaves the opponent without a legal move

and prints one line per input line: `ok`, or `bad <why>`. In yari shogi a side without a
legal move loses, in check (checkmate) or not (stalemate), so both count as mates here.

Exit status: 0 when every line was read (whatever the verdicts), 3 if pyffish cannot be
imported, 2 on a malformed line.
"""

import sys

try:
    import pyffish as sf
except ImportError as e:  # the Rust test turns this exit status into a failure
    sys.stderr.write(f"yari_mates: cannot import pyffish: {e}\n")
    sys.exit(3)

from yari_oracle import VARIANT, sfen_to_fen, usi_move


def no_reply(fen, move):
    return not sf.legal_moves(VARIANT, fen, [move])


def judge(fields):
    fen = sfen_to_fen(fields[1])
    legal = {usi_move(m): m for m in sf.legal_moves(VARIANT, fen, [])}
    if fields[0] == "mate" and len(fields) == 3:
        move = legal.get(fields[2])
        if move is None:
            return f"bad {fields[2]} is not legal"
        return "ok" if no_reply(fen, move) else f"bad {fields[2]} leaves a reply"
    if fields[0] == "none" and len(fields) == 2:
        mates = [u for u, m in legal.items() if no_reply(fen, m)]
        return f"bad {mates[0]} mates" if mates else "ok"
    sys.stderr.write(f"yari_mates: malformed line {fields!r}\n")
    sys.exit(2)


def main():
    for line in sys.stdin:
        line = line.rstrip("\n")
        if line:
            print(judge(line.split("\t")))


if __name__ == "__main__":
    main()
