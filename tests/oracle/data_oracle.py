#!/usr/bin/env python3
"""Training-data oracle for kirin's `tests/data_formats.rs`: the real producers and readers of the
two binary formats kirin reads and writes, used only through their Python APIs.

* sbinpack: rsshogi (ShogiArena's record library) and ShogiArena's own sbinpack serializer;
* PackedSfenValue (`.bin`): cshogi's `PackedSfenValue` dtype, `Board.to_psfen`/`set_psfen` and
  `move16_to_psv`/`move16_from_psv`.

Usage:
    data_oracle.py sbinpack-write OUT < games.jsonl
    data_oracle.py sbinpack-read IN > games.jsonl
    data_oracle.py psv-write OUT < positions.jsonl
    data_oracle.py psv-read IN > positions.jsonl

A game line: {"start": sfen, "moves": [usi, ...], "scores": [int, ...], "result": code} where
code is rsshogi's GameResult number (0 Black won, 1 White won, 2 draw by repetition, ...).
`sbinpack-write` writes even-numbered games through ShogiArena's registered serializer (one
chunk per game, as its records writer does) and gathers odd-numbered runs of games into one
chunk with `rsshogi.record.write_sbinpack`, so both chunk layouts are produced.

A position line: {"sfen": sfen, "score": int, "move": usi, "ply": int, "result": -1|0|1}.
`psv-read` prints cshogi's SFEN of each unpacked position with the record's move number.
"""

import json
import sys

import numpy as np


def sbinpack_write(out_path):
    import rsshogi as rs
    from shogiarena._core.platform.records.codecs import get_serializer

    serializer = get_serializer("sbinpack")
    games = [json.loads(line) for line in sys.stdin if line.strip()]
    records = []
    for g in games:
        records.append(
            rs.record.Record.from_usi_main_line(
                g["start"],
                g["moves"],
                result=rs.record.GameResult(g["result"]),
                evals=g["scores"],
            )
        )
    with open(out_path, "wb") as f:
        i = 0
        while i < len(records):
            if i % 2 == 0:
                f.write(serializer.serialize(records[i]))
                i += 1
            else:
                run = records[i : i + 3]
                f.write(bytes(rs.record.write_sbinpack(run)))
                i += len(run)


def sbinpack_read(in_path):
    import rsshogi as rs

    for record, metadata in rs.record.decode_sbinpack_file(in_path):
        payload = record.to_dict()
        moves = [m["move"] for m in payload["moves"]]
        scores = [m["engine_info"]["eval"] for m in payload["moves"]]
        print(
            json.dumps(
                {
                    "start": record.init_position_sfen,
                    "moves": moves,
                    "scores": scores,
                    "result": int(record.result),
                    "metadata": bytes(metadata).hex(),
                }
            )
        )


def psv_write(out_path):
    import cshogi

    rows = [json.loads(line) for line in sys.stdin if line.strip()]
    data = np.zeros(len(rows), dtype=cshogi.PackedSfenValue)
    board = cshogi.Board()
    for i, r in enumerate(rows):
        board.set_sfen(r["sfen"])
        board.to_psfen(data[i : i + 1]["sfen"])
        data[i]["score"] = r["score"]
        data[i]["move"] = cshogi.move16_to_psv(cshogi.move16(board.move_from_usi(r["move"])))
        data[i]["gamePly"] = r["ply"]
        data[i]["game_result"] = r["result"]
    data.tofile(out_path)


def psv_read(in_path):
    import cshogi

    data = np.fromfile(in_path, dtype=cshogi.PackedSfenValue)
    board = cshogi.Board()
    for rec in data:
        board.set_psfen(rec["sfen"])
        board_sfen = " ".join(board.sfen().split()[:3])
        move = board.move_from_move16(cshogi.move16_from_psv(int(rec["move"])))
        print(
            json.dumps(
                {
                    "sfen": f"{board_sfen} {int(rec['gamePly'])}",
                    "score": int(rec["score"]),
                    "move": cshogi.move_to_usi(move),
                    "ply": int(rec["gamePly"]),
                    "result": int(rec["game_result"]),
                }
            )
        )


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    {
        "sbinpack-write": sbinpack_write,
        "sbinpack-read": sbinpack_read,
        "psv-write": psv_write,
        "psv-read": psv_read,
    }[cmd](path)


if __name__ == "__main__":
    main()
