#!/usr/bin/env python3
"""Yari shogi oracle for kirin's yari tests, built on pyffish (Fairy-Stockfish's rules as a
Python library, independent code used only through its Python API).

Usage:
    yari_oracle.py SEED POSITIONS

Plays random games until at least POSITIONS positions have been listed: a few games from fixed
setups (SPECIAL), then games from the start position and from random legal setups (pieces
scattered over board and hands). Prints,
tab-separated:

    game  <start-sfen>  <in-check 0|1>
    pos   <legal moves, space-separated USI, sorted>  <played move or ->  <gives-check 0|1 or ->

one `game` line per game, then one `pos` line per position of the game in order: its legal
moves as pyffish lists them, the random move played from it (`-` at the end of a game), and
whether that move gives check (so also whether the next position is in check).

Conventions translated here: pyffish writes squares as file letter a-g from Black's left (shogi
file 7) and rank digit 1-9 from Black's side (shogi rank i), drops as `P@e5`; its FEN side letter
`w` means the first player (Black in SFEN terms) and the hands follow the board in brackets. The
board field itself is the same as SFEN's.

Exit status: 0 on success, 3 if pyffish cannot be imported, 2 on bad arguments.
"""

import random
import sys

try:
    import pyffish as sf
except ImportError as e:  # the Rust test turns this exit status into a failure
    sys.stderr.write(f"yari_oracle: cannot import pyffish: {e}\n")
    sys.exit(3)

VARIANT = "yarishogi"
# Setups played before the random games: the perft table's middle-game and drop positions, and a
# pawn-drop mate (P*1b), legal in yari shogi unlike in standard shogi.
SPECIAL = [
    "rn1k1br/7/p1pp+Bp1/1p3P1/7/2P1+p2/PP1P2P/1+R5/R2K1N1 b BNPbnp 1",
    "5nk/1B1P3/2N2+P1/7/7/7/7/7/3K3 b RPrb2p 1",
    "6k/7/4N+P1/7/7/7/7/7/3K3 b P 1",
]
FILES = 7
RANKS = 9


def usi_square(sq):
    """pyffish `e5` -> USI `3e`."""
    f = FILES - (ord(sq[0]) - ord("a"))
    r = chr(ord("a") + RANKS - int(sq[1:]))
    return f"{f}{r}"


def usi_move(m):
    """pyffish `a3a4`, `f6f7+`, `P@e5` -> USI `7g7f`, `2c2b+`, `P*3e`."""
    if "@" in m:
        piece, sq = m.split("@")
        return f"{piece.upper()}*{usi_square(sq)}"
    promote = m.endswith("+")
    body = m[:-1] if promote else m
    # Squares are a letter and one digit (9 ranks), so the split is fixed.
    return usi_square(body[:2]) + usi_square(body[2:4]) + ("+" if promote else "")


def fen_to_sfen(fen):
    """pyffish FEN (`board[hands] side ...`) -> SFEN `board side hands 1`."""
    fields = fen.split()
    board, hands = fields[0].split("[")
    hands = hands.rstrip("]")
    side = "b" if fields[1] == "w" else "w"
    return f"{board} {side} {write_hands(hands)} 1"


def write_hands(hands):
    counts = {}
    for ch in hands:
        counts[ch] = counts.get(ch, 0) + 1
    out = ""
    for ch in "RBNPrbnp":
        n = counts.get(ch, 0)
        if n:
            out += (str(n) if n > 1 else "") + ch
    return out or "-"


def sfen_to_fen(sfen):
    board, side, hands = sfen.split()[:3]
    letters = ""
    if hands != "-":
        n = ""
        for ch in hands:
            if ch.isdigit():
                n += ch
            else:
                letters += ch * int(n or "1")
                n = ""
    return f"{board}[{letters}] {'w' if side == 'b' else 'b'} - - 0 1"


def random_setup(rng):
    """A random legal setup: kings, then each piece of the set on the board, in a hand or absent.
    Unpromoted pawns, knights and bishops stay off their last rank, and no file holds two
    unpromoted pawns of one side. Returns an SFEN or None when the side not to move is in check."""
    board = [[None] * FILES for _ in range(RANKS)]  # board[rank][column from the left]
    empty = [(r, c) for r in range(RANKS) for c in range(FILES)]
    rng.shuffle(empty)
    board[empty[0][0]][empty[0][1]] = "K"
    board[empty[1][0]][empty[1][1]] = "k"
    free = empty[2:]
    hands = ""
    pawn_cols = {"b": set(), "w": set()}
    for kind, count in (("P", 14), ("N", 4), ("B", 4), ("R", 4)):
        for _ in range(count):
            x = rng.random()
            black = rng.random() < 0.5
            if x < 0.3:
                continue
            if x < 0.55:
                hands += kind if black else kind.lower()
                continue
            promoted = rng.random() < 0.3
            for i, (r, c) in enumerate(free):
                last = r == (0 if black else RANKS - 1)
                if not promoted and kind != "R" and last:
                    continue
                if kind == "P" and not promoted and c in pawn_cols["b" if black else "w"]:
                    continue
                if kind == "P" and not promoted:
                    pawn_cols["b" if black else "w"].add(c)
                text = kind if black else kind.lower()
                board[r][c] = ("+" if promoted else "") + text
                del free[i]
                break
    rows = []
    for r in range(RANKS):
        row, run = "", 0
        for c in range(FILES):
            p = board[r][c]
            if p is None:
                run += 1
                continue
            if run:
                row += str(run)
                run = 0
            row += p
        if run:
            row += str(run)
        rows.append(row)
    side = rng.choice("bw")
    sfen = f"{'/'.join(rows)} {side} {write_hands(hands)} 1"
    other = sfen.split()
    other[1] = "w" if side == "b" else "b"
    if sf.gives_check(VARIANT, sfen_to_fen(" ".join(other)), []):
        return None
    if sf.validate_fen(sfen_to_fen(sfen), VARIANT) != 1:
        return None
    return sfen


def play(rng, sfen, max_plies, out):
    fen = sfen_to_fen(sfen)
    out.append(f"game\t{sfen}\t{int(bool(sf.gives_check(VARIANT, fen, [])))}")
    played = []
    for _ in range(max_plies):
        legal = sf.legal_moves(VARIANT, fen, played)
        if not legal:
            break
        m = rng.choice(legal)
        check = sf.gives_check(VARIANT, fen, played + [m])
        out.append(f"pos\t{' '.join(sorted(usi_move(x) for x in legal))}\t{usi_move(m)}\t{int(bool(check))}")
        played.append(m)
    else:
        legal = sf.legal_moves(VARIANT, fen, played)
        out.append(f"pos\t{' '.join(sorted(usi_move(x) for x in legal))}\t-\t-")
        return len(played) + 1
    out.append("pos\t\t-\t-")
    return len(played) + 1


def main():
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        sys.exit(2)
    rng = random.Random(int(sys.argv[1]))
    target = int(sys.argv[2])
    start = fen_to_sfen(sf.start_fen(VARIANT))
    out = []
    positions = 0
    game = 0
    for sfen in SPECIAL:
        positions += play(rng, sfen, 20, out)
    while positions < target:
        game += 1
        if game % 2 == 0:
            sfen = None
            while sfen is None:
                sfen = random_setup(rng)
            positions += play(rng, sfen, 20, out)
        else:
            positions += play(rng, start, 160, out)
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
