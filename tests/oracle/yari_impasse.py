#!/usr/bin/env python3
"""Impasse oracle for kirin's yari tests: the match referee's own judgement of `bestmove win`
(tuning/referee/yari.py, `YariGame.impasse`, the rules document's count).

Reads SFENs from stdin, one a line, and prints for each what the referee rules if the side to
move calls the impasse there: `win`, `draw` or `loss` (a false declaration).

Exit status: 0 when every line was read, 3 if pyffish (which the referee needs) cannot be
imported.
"""

import sys
from pathlib import Path

try:
    import pyffish  # noqa: F401  (the referee needs it)
except ImportError as e:  # the Rust test turns this exit status into a failure
    sys.stderr.write(f"yari_impasse: cannot import pyffish: {e}\n")
    sys.exit(3)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tuning"))

from referee.yari import YariGame  # noqa: E402
from yari_oracle import sfen_to_fen  # noqa: E402


def main():
    for line in sys.stdin:
        sfen = line.strip()
        if not sfen:
            continue
        game = YariGame(start_fen=sfen_to_fen(sfen))
        winner, _ = game.impasse(game.turn)
        print("draw" if winner is None else "win" if winner == game.turn else "loss")


if __name__ == "__main__":
    main()
