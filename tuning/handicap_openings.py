#!/usr/bin/env python3
"""Openings for self-play from the handicap starts: each line one of the common handicaps
(`../shared/docs/rules.md`, "Handicaps": the giver, White, moves first) with a few random
legal plies after it, as `sfen <start> moves ...` lines that `kirin-tune gen --openings` reads.

The last position of a line is never in check and never over. A line depends only on the seed
and its number, so a file is made again exactly from its command:

    .venv/bin/python tuning/handicap_openings.py --out $KIRIN_DATA/nnue/handicap_openings.sfen \\
        --lines 4000 --seed 20261206
"""

import argparse
import random
import sys

import cshogi

# The handicap giver's side with the pieces removed from White's setup, White to move.
HANDICAPS = {
    "lance": "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "right lance": "1nsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "bishop": "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "rook": "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "rook and lance": "lnsgkgsn1/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "two pieces": "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "four pieces": "1nsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "six pieces": "2sgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
}


def line(start, rng, min_plies, max_plies):
    """`start` and random legal plies after it, ending in a position not in check and not over;
    None when no such ending is found (the caller draws again)."""
    board = cshogi.Board(start)
    moves = []
    for _ in range(rng.randint(min_plies, max_plies)):
        legal = list(board.legal_moves)
        if not legal:
            return None
        move = legal[rng.randrange(len(legal))]
        moves.append(cshogi.move_to_usi(move))
        board.push(move)
    if board.is_check() or board.is_game_over():
        return None
    return f"sfen {start} moves {' '.join(moves)}" if moves else f"sfen {start}"


# By default the handicaps up to two pieces: past them the giver stands more than 2,500 below,
# and the generator ends such games as decided after a few moves (3,000 confirmed by both sides).
DEFAULT = ["lance", "right lance", "bishop", "rook", "rook and lance", "two pieces"]


def openings(count, seed, min_plies, max_plies, names=None):
    """`count` lines, the handicaps taken in turn (those in `names`, or DEFAULT)."""
    starts = [HANDICAPS[n] for n in (names or DEFAULT)]
    out = []
    for number in range(count):
        rng = random.Random(f"{seed}:{number}")
        start = starts[number % len(starts)]
        while (text := line(start, rng, min_plies, max_plies)) is None:
            pass
        out.append(text)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--lines", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=20261206)
    ap.add_argument("--min-plies", type=int, default=2)
    ap.add_argument("--max-plies", type=int, default=8)
    ap.add_argument("--handicaps", default="",
                    help=f"comma-separated names of {', '.join(HANDICAPS)} (default: {', '.join(DEFAULT)})")
    args = ap.parse_args(argv)
    names = [n.strip() for n in args.handicaps.split(",") if n.strip()] or None
    unknown = [n for n in names or [] if n not in HANDICAPS]
    if unknown or args.lines < 1 or not 0 <= args.min_plies <= args.max_plies:
        print(f"handicap_openings: bad arguments ({', '.join(unknown) or 'counts'}); "
              f"the handicaps: {', '.join(HANDICAPS)}", file=sys.stderr)
        return 2
    lines = openings(args.lines, args.seed, args.min_plies, args.max_plies, names)
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(lines)} openings from {len(names or DEFAULT)} handicaps written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
