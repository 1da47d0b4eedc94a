"""A short match between two kirin processes under cshogi's match runner (cshogi.cli.main),
with cshogi as referee: its board rejects illegal moves (recorded as %ILLEGAL_MOVE) and its
clock records time losses (%TIME_UP). Afterwards every game record is replayed and checked:
no illegal move, no time loss, no false entering-king declaration, and the engines quit.

Usage: cshogi_match.py <path to kirin> [games]. cshogi's runner waits forever on an engine
that crashed, so the caller runs this under `timeout`.
"""

import os
import sys
import tempfile

import cshogi
import cshogi.cli
from cshogi import CSA


OPENINGS = [
    "7g7f 3c3d 2g2f 8c8d",
    "2g2f 8c8d 2f2e 8d8e 6i7h 4a3b",
    "7g7f 8c8d 7i6h 3c3d 6h7g",
    "5g5f 3c3d 2h5h 8b4b",
    "7g7f 3c3d 8h2b+ 3a2b B*4e",
]


def fail(message):
    print(f"cshogi match: FAIL: {message}", flush=True)
    sys.exit(1)


def main():
    # cshogi starts each engine in its own folder, so the path must be absolute.
    path = os.path.abspath(sys.argv[1])
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    options = {"USI_Hash": 16, "Threads": 1}
    with tempfile.TemporaryDirectory() as folder:
        record = os.path.join(folder, "games.csa")
        # Different openings, so the games differ even while the engines play alike.
        openings = os.path.join(folder, "openings.txt")
        with open(openings, "w") as f:
            for line in OPENINGS:
                f.write(f"startpos moves {line}\n")
        result = cshogi.cli.main(
            path,
            path,
            options1=options,
            options2=options,
            names=["kirin-a", "kirin-b"],
            games=games,
            byoyomi=100,
            # Main time as well, or cshogi keeps no clock and cannot see a time loss.
            time=1000,
            draw=120,
            # Sends USI_Ponder and ponders on the engines' predicted replies.
            ponder=True,
            opening=openings,
            opening_seed=1,
            csa=record,
            multi_csa=True,
            print_summary=False,
        )
        if result["total"] != games:
            fail(f"{result['total']} of {games} games finished: {result}")
        parsed = CSA.Parser.parse_file(record)
    if len(parsed) != games:
        fail(f"{len(parsed)} game records for {games} games")

    endings = []
    for number, game in enumerate(parsed, 1):
        if game.endgame in ("%ILLEGAL_MOVE", "%TIME_UP"):
            fail(f"game {number} ended {game.endgame} after {len(game.moves)} moves")
        board = cshogi.Board(game.sfen)
        for ply, move in enumerate(game.moves, 1):
            if not board.is_legal(move):
                fail(f"game {number}: illegal move at ply {ply}")
            board.push(move)
        if game.endgame == "%KACHI" and not board.is_nyugyoku():
            fail(f"game {number}: entering-king win declared without the right")
        endings.append(f"{game.endgame} after {len(game.moves)} moves")
    print(f"cshogi match: ok ({'; '.join(endings)})", flush=True)


if __name__ == "__main__":
    main()
