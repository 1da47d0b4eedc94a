#!/usr/bin/env python3
"""Game-record oracle for kirin's kifu tests, built on cshogi's own KIF, KI2 and CSA readers
(independent code, used here only through its Python API).

Usage:
    kifu_oracle.py files PATH...     read each record file with cshogi
    kifu_oracle.py moves             read Japanese move text from stdin with cshogi
    kifu_oracle.py replay            replay USI moves from stdin with cshogi

`files`: for every game, one tab-separated line
    path  start-sfen  move-count  final-sfen  endgame  win  usi-moves(space-separated)
where start-sfen is the position cshogi starts from, final-sfen the position after cshogi has
played every move it read (a move cshogi finds illegal stops the replay and is reported as
`ILLEGAL:<usi>` in place of final-sfen), endgame cshogi's CSA-style ending (`%TORYO`, ...; `-`
when none) and win cshogi's result code (0 draw, 1 Black, 2 White; `-` when none). KIF and KI2
files are decoded as UTF-8 when they are valid UTF-8 and as CP932 otherwise (cshogi's
`parse_file` guesses from the extension only); CSA goes through `CSA.Parser.parse_str`.

`moves`: each stdin line is
    start-sfen  usi-moves-played-before  kif-text  ki2-text
(tab-separated; the moves may be empty). The script sets up cshogi's board, plays the moves
(so `同` refers to the last one), then reads kif-text with `KIF.Parser.parse_move_str` and
ki2-text with `KI2.Parser.parse_move_str`, and prints `<kif-usi>\\t<ki2-usi>` per line, `ERROR`
for text cshogi cannot read. cshogi's KIF pattern has no `不成`, which KIF writers such as
ShogiHome and Kifu for Windows use for a declined promotion, so the word is removed before
cshogi reads the KIF text (its reading of the origin square does not depend on it).

`replay`: each stdin line is `start-sfen<TAB>usi-moves`; prints `<final-sfen>\\t<mated 0|1>`, or
`ILLEGAL <n>` when move n (1-based) is illegal for cshogi.

Exit status: 0 on success, 3 if cshogi cannot be imported, 2 on bad arguments.
"""

import re
import sys

try:
    import cshogi
    from cshogi import CSA, KI2, KIF
except ImportError as e:  # the Rust test turns this exit status into a failure
    sys.stderr.write(f"kifu_oracle: cannot import cshogi: {e}\n")
    sys.exit(3)


def decode(path):
    data = open(path, "rb").read()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp932")


def final_position(sfen, moves):
    board = cshogi.Board(sfen)
    for m in moves:
        if not board.is_legal(m):
            return "ILLEGAL:" + cshogi.move_to_usi(m)
        board.push(m)
    return board.sfen()


def games(path):
    text = decode(path)
    lower = path.lower()
    if lower.endswith(".csa"):
        return CSA.Parser.parse_str(text)
    if lower.endswith(".ki2") or lower.endswith(".ki2u"):
        # cshogi's KI2 reader loses its place on some lines that hold several moves, while it
        # reads each move alone correctly: give it one move per line.
        text = re.sub(r"[ \t\u3000]*([▲△])", r"\n\1", text)
        return [KI2.Parser.parse_str(text)]
    # cshogi's KIF pattern has no `不成` (see `moves` below); it names no square, so removing it
    # leaves the move as cshogi understands it.
    return [KIF.Parser.parse_str(text.replace("不成", ""))]


def files(paths):
    for path in paths:
        try:
            read = games(path)
        except Exception as e:  # reported per file, so the test names it
            print("\t".join([path, "ERROR", "-", "-", "-", "-", f"cshogi failed: {e!r}"]))
            continue
        for g in read:
            moves = list(g.moves)
            usi = " ".join(cshogi.move_to_usi(m) for m in moves)
            endgame = g.endgame or "-"
            win = "-" if g.win is None else str(g.win)
            print("\t".join([path, g.sfen, str(len(moves)), final_position(g.sfen, moves), endgame, win, usi]))


def moves_mode():
    for line in sys.stdin:
        line = line.rstrip("\n")
        if not line:
            continue
        sfen, played, kif_text, ki2_text = line.split("\t")
        board = cshogi.Board(sfen)
        for u in played.split():
            board.push_usi(u)
        out = []
        try:
            m, _, _ = KIF.Parser.parse_move_str("1 " + kif_text.replace("不成", ""), board)
            out.append(cshogi.move_to_usi(m) if m else "ERROR")
        except Exception:
            out.append("ERROR")
        try:
            ms = KI2.Parser.parse_move_str(ki2_text, board.copy())
            out.append(cshogi.move_to_usi(ms[0]) if len(ms) == 1 else "ERROR")
        except Exception:
            out.append("ERROR")
        print("\t".join(out))


def replay_mode():
    for line in sys.stdin:
        line = line.rstrip("\n")
        if not line:
            continue
        sfen, _, usi = line.partition("\t")
        board = cshogi.Board(sfen)
        bad = None
        for i, u in enumerate(usi.split()):
            m = board.move_from_usi(u)
            if m == 0 or not board.is_legal(m):
                bad = i + 1
                break
            board.push(m)
        if bad is not None:
            print(f"ILLEGAL {bad}")
        else:
            print(f"{board.sfen()}\t{1 if board.is_game_over() else 0}")


def main():
    if len(sys.argv) < 2:
        sys.stderr.write(__doc__)
        sys.exit(2)
    mode = sys.argv[1]
    if mode == "files":
        files(sys.argv[2:])
    elif mode == "moves":
        moves_mode()
    elif mode == "replay":
        replay_mode()
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
