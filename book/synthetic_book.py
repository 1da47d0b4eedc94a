"""A large synthetic book in YaneuraOu's format, for measuring lookups in books too large to
load: every self-play position of the given files becomes an entry with its first legal moves
(from cshogi) and the position's recorded score. Not a book to play from.

usage: python book/synthetic_book.py OUT.db ../shared/data/selfplay/positions-1.tsv.xz ...
then `kirin book merge OUT.db --out SORTED.db` sorts it.
"""

import lzma
import sys

import cshogi


def main():
    out_path, inputs = sys.argv[1], sys.argv[2:]
    board = cshogi.Board()
    seen = set()
    with open(out_path, "w") as out:
        out.write("#YANEURAOU-DB2016 1.00\n")
        for path in inputs:
            opener = lzma.open if path.endswith(".xz") else open
            with opener(path, "rt") as f:
                for line in f:
                    sfen, score = line.split("\t")[:2]
                    key = sfen.rsplit(" ", 1)[0]
                    if key in seen:
                        continue
                    seen.add(key)
                    board.set_sfen(sfen)
                    moves = [cshogi.move_to_usi(m) for m in board.legal_moves][:4]
                    if not moves:
                        continue
                    out.write(f"sfen {sfen}\n")
                    for i, m in enumerate(moves):
                        out.write(f"{m} none {int(score) - 10 * i} 10 1\n")


if __name__ == "__main__":
    main()
