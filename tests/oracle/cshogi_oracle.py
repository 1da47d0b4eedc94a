#!/usr/bin/env python3
"""Move-generation oracle for kirin's differential test, built on cshogi (an independent C++ shogi
library derived from Apery, used here only through its Python API).

Usage:
    cshogi_oracle.py [--seed N] [--positions N] < start_sfens.txt

Standard input holds start positions, one SFEN per line (blank lines and lines starting with '#'
are ignored); with none given, the even-game start position is used. The script plays random
playouts with cshogi until it has visited --positions positions, and for every visited position
writes one tab-separated line to standard output:

    sfen  legal-moves  in-check  mated  checking-moves

- sfen: cshogi's own SFEN of the position (hands in R B G S N L P order, Black's first);
- legal-moves: every legal move in USI text, sorted, space-separated (empty when there is none);
- in-check: 1 or 0 from cshogi's `is_check()`;
- mated: 1 or 0 from cshogi's `is_game_over()` (no legal move);
- checking-moves: the legal moves that give check, from cshogi's `check_moves`, sorted.

Non-promotions: cshogi 1.1's `Board.legal_moves` is the full legal list (its C++ side generates
"LegalAll"): it includes useless non-promotions such as an unpromoted pawn, bishop or rook move in
the promotion zone and a lance move to the second rank, and its perft counts equal the
shared/data/perft.tsv counts, which include them. So the list printed here is compared with
kirin's full-mode `legal_moves` as it is. `check_moves` likewise includes checking non-promotions.

Where the playouts start (round robin over the game number, so every source is used):
1. a start position from stdin as given (handicaps there have White to move);
2. a start position from stdin with 1-30 random non-king pieces taken off the board and put in a
   random side's hand, with a random side to move;
3. a random legal setup: both kings, each of the 38 other pieces on a random square (possibly
   promoted), in a random hand, or left out, and a random side to move.
Each playout picks one move policy: uniform, capture-biased, drop-biased or check-biased, so hands
fill up, drops are common and checks and mates occur far more often than in uniform play.

The first output line is a comment, `# cshogi VERSION seed N`. A summary goes to stderr. Exit status
is 0 on success, 3 if cshogi cannot be imported, 2 on bad arguments.
"""

import argparse
import random
import sys

try:
    import cshogi
except ImportError as e:  # the Rust test turns this exit status into a failure
    sys.stderr.write(f"cshogi_oracle: cannot import cshogi: {e}\n")
    sys.exit(3)

START = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
# The 38 non-king pieces of one set.
POOL = "P" * 18 + "L" * 4 + "N" * 4 + "S" * 4 + "G" * 4 + "B" * 2 + "R" * 2
PROMOTABLE = set("PLNSBR")


def cshogi_version():
    try:
        from importlib.metadata import version

        return version("cshogi")
    except Exception:  # pragma: no cover - informational only
        return "unknown"


def parse_board(field):
    """SFEN board field -> 9x9 grid of piece strings ('P', '+p', ...) or None; grid[rank][col],
    col 0 being file 9 as SFEN writes it."""
    grid = []
    for rank in field.split("/"):
        row = []
        promoted = False
        for ch in rank:
            if ch.isdigit():
                row.extend([None] * int(ch))
            elif ch == "+":
                promoted = True
            else:
                row.append(("+" if promoted else "") + ch)
                promoted = False
        grid.append(row)
    return grid


def board_field(grid):
    ranks = []
    for row in grid:
        out, empty = "", 0
        for p in row:
            if p is None:
                empty += 1
                continue
            if empty:
                out += str(empty)
                empty = 0
            out += p
        if empty:
            out += str(empty)
        ranks.append(out)
    return "/".join(ranks)


def hand_field(hands):
    """hands: {'b': {letter: n}, 'w': {...}} -> SFEN hand field."""
    out = ""
    for side in "bw":
        for letter in "RBGSNLP":
            n = hands[side].get(letter, 0)
            if n:
                out += (str(n) if n > 1 else "") + (letter if side == "b" else letter.lower())
    return out or "-"


def parse_hand(field):
    hands = {"b": {}, "w": {}}
    if field == "-":
        return hands
    n = ""
    for ch in field:
        if ch.isdigit():
            n += ch
            continue
        side = "b" if ch.isupper() else "w"
        hands[side][ch.upper()] = hands[side].get(ch.upper(), 0) + (int(n) if n else 1)
        n = ""
    return hands


def opponent_in_check(board, hands, side):
    """Whether the side that is not to move is in check (an illegal position). cshogi's
    `is_check` ignores attacks by the king, so touching kings are tested here."""
    kings = [(r, c) for r in range(9) for c in range(9) if board[r][c] in ("K", "k")]
    if len(kings) == 2 and max(abs(kings[0][0] - kings[1][0]), abs(kings[0][1] - kings[1][1])) <= 1:
        return True
    other = "w" if side == "b" else "b"
    probe = cshogi.Board(f"{board_field(board)} {other} {hand_field(hands)} 1")
    return probe.is_check()


def dead(letter_upper, black, rank):
    """An unpromoted pawn/lance on its last rank or a knight on its last two ranks."""
    rel = rank if black else 8 - rank
    if letter_upper in "PL":
        return rel == 0
    if letter_upper == "N":
        return rel <= 1
    return False


def with_pieces_in_hand(rng, sfen):
    """The start position with random non-king pieces moved into random hands."""
    fields = sfen.split()
    for _ in range(100):
        grid = parse_board(fields[0])
        hands = parse_hand(fields[2])
        occupied = [(r, c) for r in range(9) for c in range(9) if grid[r][c] and grid[r][c][-1] not in "Kk"]
        if not occupied:
            return sfen
        rng.shuffle(occupied)
        for r, c in occupied[: rng.randint(1, min(30, len(occupied)))]:
            letter = grid[r][c][-1].upper()
            grid[r][c] = None
            side = rng.choice("bw")
            hands[side][letter] = hands[side].get(letter, 0) + 1
        side = rng.choice("bw")
        if not opponent_in_check(grid, hands, side):
            return f"{board_field(grid)} {side} {hand_field(hands)} 1"
    return sfen


def random_setup(rng):
    """A random legal position: two kings, every other piece on the board, in a hand or boxed."""
    while True:
        grid = [[None] * 9 for _ in range(9)]
        squares = [(r, c) for r in range(9) for c in range(9)]
        rng.shuffle(squares)
        grid[squares[0][0]][squares[0][1]] = "K"
        grid[squares[1][0]][squares[1][1]] = "k"
        free = squares[2:]
        hands = {"b": {}, "w": {}}
        p_board = rng.uniform(0.15, 0.7)
        p_hand = rng.uniform(0.2, 1.0) * (1.0 - p_board)
        p_promote = rng.uniform(0.0, 0.5)
        pawn_files = set()
        for letter in POOL:
            black = rng.random() < 0.5
            x = rng.random()
            if x < p_board:
                promoted = letter in PROMOTABLE and rng.random() < p_promote
                for _ in range(8):
                    r, c = free[rng.randrange(len(free))]
                    if not promoted and dead(letter, black, r):
                        continue
                    if letter == "P" and not promoted and (black, c) in pawn_files:
                        continue
                    if letter == "P" and not promoted:
                        pawn_files.add((black, c))
                    grid[r][c] = ("+" if promoted else "") + (letter if black else letter.lower())
                    free.remove((r, c))
                    break
                else:
                    hands["b" if black else "w"][letter] = hands["b" if black else "w"].get(letter, 0) + 1
            elif x < p_board + p_hand:
                side = "b" if black else "w"
                hands[side][letter] = hands[side].get(letter, 0) + 1
        side = rng.choice("bw")
        if not opponent_in_check(grid, hands, side):
            return f"{board_field(grid)} {side} {hand_field(hands)} 1"


def choose(rng, board, moves, policy):
    if policy == "capture":
        caps = [m for m in moves if cshogi.move_cap(m)]
        if caps and rng.random() < 0.8:
            return rng.choice(caps)
    elif policy == "drop":
        drops = [m for m in moves if cshogi.move_is_drop(m)]
        if drops and rng.random() < 0.6:
            return rng.choice(drops)
        caps = [m for m in moves if cshogi.move_cap(m)]
        if caps and rng.random() < 0.6:
            return rng.choice(caps)
    elif policy == "check":
        checks = list(board.check_moves)
        if checks and rng.random() < 0.5:
            return rng.choice(checks)
        caps = [m for m in moves if cshogi.move_cap(m)]
        if caps and rng.random() < 0.5:
            return rng.choice(caps)
    return rng.choice(moves)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--positions", type=int, default=100_000)
    ap.add_argument("--max-plies", type=int, default=256)
    args = ap.parse_args()
    if args.positions < 1 or args.max_plies < 1:
        ap.error("--positions and --max-plies must be positive")

    starts = []
    if not sys.stdin.isatty():
        for line in sys.stdin:
            line = line.strip()
            if line and not line.startswith("#"):
                starts.append(line)
    if not starts:
        starts = [START]

    rng = random.Random(args.seed)
    out = sys.stdout
    out.write(f"# cshogi {cshogi_version()} seed {args.seed}\n")
    usi = cshogi.move_to_usi
    emitted = checks_seen = mates = games = 0
    policies = ("uniform", "capture", "drop", "check")
    while emitted < args.positions:
        source = games % 3
        if source == 0:
            sfen = starts[(games // 3) % len(starts)]
        elif source == 1:
            sfen = with_pieces_in_hand(rng, rng.choice(starts))
        else:
            sfen = random_setup(rng)
        policy = policies[(games // 3) % len(policies)]
        games += 1
        board = cshogi.Board(sfen)
        for _ in range(rng.randint(1, args.max_plies)):
            moves = list(board.legal_moves)
            in_check = board.is_check()
            mated = board.is_game_over()
            check_moves = sorted(usi(m) for m in board.check_moves)
            out.write(
                f"{board.sfen()}\t{' '.join(sorted(usi(m) for m in moves))}\t"
                f"{int(in_check)}\t{int(mated)}\t{' '.join(check_moves)}\n"
            )
            emitted += 1
            checks_seen += in_check
            mates += mated
            if not moves or emitted >= args.positions:
                break
            board.push(choose(rng, board, moves, policy))
    out.flush()
    sys.stderr.write(
        f"cshogi_oracle: seed {args.seed}: {emitted} positions in {games} playouts, "
        f"{checks_seen} in check, {mates} without a legal move\n"
    )


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:
        sys.exit(1)
