"""A short match between two kirin processes under ShogiArena's tournament runner, with its
referee (rsshogi rules: illegal moves, time losses and crashes lose the game). Afterwards
the stored records are read back and checked: every game finished, none by an illegal move,
a time loss, a forfeit or an error, every move replays legally under cshogi's rules, and a
declaration win only where the declaring side had the right.

Usage: shogiarena_match.py <path to kirin> [games]. Run it under `timeout`.
"""

import asyncio
import json
import os
import sqlite3
import sys
import tempfile

import cshogi
from rsshogi.core import Move as StoredMove
from shogiarena.tournament import run_tournament

OPENINGS = [
    "7g7f 3c3d 2g2f 8c8d",
    "2g2f 8c8d 2f2e 8d8e 6i7h 4a3b",
    "7g7f 8c8d 7i6h 3c3d 6h7g",
    "5g5f 3c3d 2h5h 8b4b",
]

FINE_RESULTS = {
    "BLACK_WIN",
    "WHITE_WIN",
    "BLACK_WIN_BY_DECLARATION",
    "WHITE_WIN_BY_DECLARATION",
    "DRAW_BY_REPETITION",
    "DRAW_BY_MAX_PLIES",
    "DRAW_BY_IMPASSE",
    "DRAW_BY_ADJUDICATION",
}


def fail(message):
    print(f"shogiarena match: FAIL: {message}", flush=True)
    sys.exit(1)


def write_config(folder, kirin, games):
    for name in ("a", "b"):
        with open(os.path.join(folder, f"kirin_{name}.yaml"), "w") as f:
            json.dump(
                {
                    "name": f"kirin-{name}",
                    "engine_path": kirin,
                    "working_directory": os.path.dirname(kirin),
                    "options": {"Threads": 1, "USI_Hash": 16},
                },
                f,
            )
    openings = os.path.join(folder, "openings.txt")
    with open(openings, "w") as f:
        for line in OPENINGS:
            f.write(f"startpos moves {line}\n")
    config = os.path.join(folder, "tournament.yaml")
    with open(config, "w") as f:
        # JSON is YAML, and keeps this free of a YAML writer.
        json.dump(
            {
                "experiment_name": "kirin_protocol_check",
                "engines": [
                    {"engine_path": "kirin_a.yaml"},
                    {"engine_path": "kirin_b.yaml"},
                ],
                "tournament": {
                    "scheduler": "round_robin",
                    "games_per_pair": games,
                    "num_parallel": 1,
                },
                "rules": {
                    "time_control": {"time_ms": 1000, "byoyomi_ms": 100},
                    "repetition_occurrences_to_draw": 4,
                    "adjudication": {"enable_max_plies": True, "max_plies": 160},
                    "initial_positions": {
                        "type": "file",
                        "source": openings,
                        "source_format": "usi_line",
                    },
                },
                "dashboard": {"enabled": False},
            },
            f,
        )
    return config


def check_games(run_dir, games):
    with open(os.path.join(run_dir, "completion_status.json")) as f:
        status = json.load(f)
    if status.get("completed") != games or status.get("error_games", 0) != 0:
        fail(f"completion status {status}")
    db = sqlite3.connect(os.path.join(run_dir, "game.db"))
    rows = list(db.execute("select id, game_result, num_moves, initial_position_sfen from game"))
    if len(rows) != games:
        fail(f"{len(rows)} games stored for {games}")
    endings = []
    for game_id, result, num_moves, sfen in rows:
        if result not in FINE_RESULTS:
            fail(f"game {game_id} ended {result} after {num_moves} moves")
        moves = [m for (m,) in db.execute(
            "select next_move from game_move where game_id = ? order by ply", (game_id,)
        )]
        board = cshogi.Board(sfen)
        # Records may end with a marker after the last real move.
        for ply, stored in enumerate(moves[:num_moves], 1):
            # shogiarena stores moves in rsshogi's encoding, whose drops differ from cshogi's
            # move16: go through USI text, which both read the same way.
            move = board.move_from_usi(StoredMove(stored).to_usi())
            if not board.is_legal(move):
                fail(f"game {game_id}: illegal move at ply {ply} from {sfen}")
            board.push(move)
        if result.endswith("_BY_DECLARATION") and not board.is_nyugyoku():
            fail(f"game {game_id}: declaration without the right")
        endings.append(f"{result} after {num_moves}")
    return endings


async def play(config, run_dir):
    return await run_tournament(config, run_dir=run_dir)


def main():
    # Engines are started in their own folder: the path must not be relative.
    kirin = os.path.abspath(sys.argv[1])
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    with tempfile.TemporaryDirectory() as folder:
        config = write_config(folder, kirin, games)
        run_dir = os.path.join(folder, "run")
        result = asyncio.run(play(config, run_dir))
        if result is None or result.tournament.completed_games_count != games:
            fail(f"tournament result {result}")
        endings = check_games(run_dir, games)
    print(f"shogiarena match: ok ({'; '.join(endings)})", flush=True)


if __name__ == "__main__":
    main()
