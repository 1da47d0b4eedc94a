#!/usr/bin/env python3
"""Dai shogi games refereed by the real XBoard: kirin as the first engine, HaChu or kirin second.

    .venv/bin/python tuning/xboard_match.py --out $KIRIN_DATA/xboard/NAME [--opponent hachu|kirin]
        [--games 2] [--st 1 | --depth 2] [--max-plies 600] [--kirin target/release/kirin]

Each game is one run of Debian's XBoard 4.9.1 under Xvfb (`xvfb-run`), in a folder of its own
(`game-NNN/`: XBoard's debug log, its PGN and `result.json`), so an interrupted match resumes at
the first game without a result. kirin is the first engine, so XBoard takes the board from kirin's
description of dai (`setup` and `piece` lines); it plays Black (moves first) in odd games and White
in even ones (`-firstPlaysBlack`). XBoard judges nothing here: legality testing is off (its piece
table cannot hold every dai piece), and so are its repetition, 50-move, material and claim
adjudications; the one adjudication left is the ply cap (`-adjudicateDrawMoves`), a draw.

So that "no illegal move" means something, every game is checked three ways from the debug log:
- relay: every move an engine sent reached the other engine as the same text (XBoard rewrites a
  move it cannot represent, e.g. a promotion whose promoted kind has no slot in its table);
- the other engine: HaChu answers a move it refuses with `Illegal move` (a refusal ends the game);
- `kirin judge`: the whole move list is replayed by kirin's dai rules (with HaChu's declined-pawn
  rule when HaChu plays), and the result XBoard recorded must agree with the judge's state.
A time loss, a crash, an illegal move, a refusal or a relay mismatch is a fault, listed per game.

kirin describes dai under XBoard's parent variant `chu`, the one under which XBoard relays every
promotion's `+` (docs/xboard.md). HaChu 0.21 runs behind `tuning/hachu_xboard.py`, which passes everything through but XBoard's
`setboard`, of which HaChu reads only the board field (it exits on the fields after it).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from referee.hachu import NotationError, hachu_to_kirin  # noqa: E402  (XBoard and HaChu share notation)

XVFB = ["xvfb-run", "-a", "-s", "-screen 0 1600x1400x24"]
XBOARD = "/usr/games/xboard"

# Debug-log lines: `1234 <first : move h5h6`, `1234 >second: usermove 1234 >second: h5h6`,
# `1234 >first : result 1-0 {comment}`, `1234 <second: Illegal move...`.
SENT = re.compile(r"^\d+ <(first |second): move (\S+)")
# XBoard writes `usermove ` and the move as two log entries on one line, but a pass (`@@@@`) as one.
RELAYED = re.compile(r">(first |second): usermove (?:\d+ >(?:first |second): )?(\S+)")
RESULT = re.compile(r"^\d+ >first : result (1-0|0-1|1/2-1/2|\*) \{(.*)\}")
REFUSED = re.compile(r"^\d+ <(first |second): (Illegal move.*|Error.*)$")
ENGINE = {"first ": "first", "second": "second"}


def xboard_args(args, game: int, folder: Path) -> list:
    """XBoard's command line for one game; `folder` gets its debug log and PGN."""
    first = f"{shlex.quote(args.kirin)} xboard"
    if args.opponent == "hachu":
        second = f"{shlex.quote(sys.executable)} {shlex.quote(str(HERE / 'hachu_xboard.py'))}"
    else:
        second = first
    argv = [XBOARD, "-fd", str(folder), "-sd", str(folder), "-variant", "dai",
            "-fcp", first, "-scp", second, "-mg", "1",
            "-debug", "-nameOfDebugFile", str(folder / "xboard.log"),
            "-sgf", str(folder / "game.pgn"), "-popupExitMessage", "false",
            "-testLegality", "false", "-ruleMoves", "0", "-repeatsToDraw", "0",
            "-materialDraws", "false", "-trivialDraws", "false", "-testClaims", "false",
            "-adjudicateLossThreshold", "0", "-adjudicateDrawMoves", str(args.max_plies // 2),
            "-ponderNextMove", "false", "-autoCallFlag", "true",
            "-st", f"0:{args.st:02d}", "-firstPlaysBlack", "true" if game % 2 == 0 else "false",
            "-boardSize", "small",
            # XBoard reads and rewrites a settings file: one per game keeps runs apart.
            "-settingsFile", str(folder / "xboard.ini"), "-saveSettingsOnExit", "false"]
    if args.depth:
        argv += ["-searchDepth", str(args.depth)]
    return argv


def read_log(text: str) -> dict:
    """What the debug log says of a game: the moves each engine sent (a move in two `move` legs
    joined with a comma, as XBoard relays it), the moves XBoard relayed, refusals, the result."""
    sent, relayed, refused, result, pending = [], [], [], None, None
    for line in text.splitlines():
        m = SENT.match(line)
        if m:
            move = m.group(2)
            if move.endswith(","):
                pending = move
                continue
            if pending:
                move, pending = pending + move, None
            sent.append((ENGINE[m.group(1)], move))
            continue
        m = RELAYED.search(line)
        if m:
            relayed.append((ENGINE[m.group(1)], m.group(2)))
            continue
        m = REFUSED.match(line)
        if m:
            refused.append((ENGINE[m.group(1)], m.group(2)))
            continue
        m = RESULT.match(line)
        if m and result is None:
            result = (m.group(1), m.group(2))
    return {"sent": sent, "relayed": relayed, "refused": refused, "result": result}


def judge_state(kirin: str, moves: list, declined_pawn: str) -> str:
    """`kirin judge`'s answer to `check startpos moves ...`."""
    cmd = [kirin, "judge", "--variant", "dai", "--declined-pawn", declined_pawn]
    request = "check startpos" + ("" if not moves else " moves " + " ".join(moves)) + "\n"
    out = subprocess.run(cmd, input=request, capture_output=True, text=True, timeout=120)
    return out.stdout.strip()


def verdict(log: dict, kirin_black: bool, judge) -> dict:
    """The game's result from kirin's side and its faults, from the log and the judge."""
    faults = []
    # The last move of a finished game is not relayed: zip stops at the shorter list.
    for i, ((who, move), relay) in enumerate(zip(log["sent"], log["relayed"])):
        if relay[1] != move:
            faults.append(f"relay: ply {i + 1} {who} sent {move}, XBoard relayed {relay[1]}")
    for who, line in log["refused"]:
        mover = "second" if who == "first" else "first"
        faults.append(f"refused: {who} answered {line!r} to {mover}'s move")
    try:
        state = judge([hachu_to_kirin(m) for _, m in log["sent"]])
        judged = not state.startswith("illegal")
        if not judged:
            faults.append(f"judge: {state}")
    except NotationError as e:
        state, judged = f"unreadable move: {e}", False
        faults.append(state)
    result, comment = log["result"] or ("*", "no result")
    lowered = comment.lower()
    if any(w in lowered for w in ("time", "flag", "forfeit", "error", "exit", "crash", "illegal")):
        faults.append(f"ended: {result} {{{comment}}}")
    score = None
    if result == "1/2-1/2":
        score = 0.5
    elif result in ("1-0", "0-1"):
        # XBoard's 1-0 is a win for the side that moves first (Black in shogi terms).
        winner = "black" if result == "1-0" else "white"
        score = 1.0 if (winner == "black") == kirin_black else 0.0
        if judged and not any(s in state for s in (f"won {winner}", "en-prise", "mated")):
            faults.append(f"result {result} {{{comment}}} but the judge says {state!r}")
    return {"kirin_black": kirin_black, "result": result, "comment": comment,
            "score": score, "plies": len(log["sent"]), "judge": state, "faults": faults}


def play(args, game: int, out: Path) -> dict:
    folder = out / f"game-{game:03d}"
    done = folder / "result.json"
    if done.exists():
        return json.loads(done.read_text())
    folder.mkdir(parents=True, exist_ok=True)
    for stale in ("xboard.log", "game.pgn"):
        (folder / stale).unlink(missing_ok=True)
    per_ply = (args.st if not args.depth else 1) + 1.0
    limit = 120 + args.max_plies * per_ply * 2
    t0 = time.monotonic()
    try:
        subprocess.run(XVFB + xboard_args(args, game, folder), cwd=folder, timeout=limit,
                       stdin=subprocess.DEVNULL, capture_output=True)
        timed_out = False
    except subprocess.TimeoutExpired:
        timed_out = True
    log_text = (folder / "xboard.log").read_text(errors="replace") if (folder / "xboard.log").exists() else ""
    declined = "last-rank" if args.opponent == "hachu" else "keep-chances"
    res = verdict(read_log(log_text), game % 2 == 1,
                  lambda moves: judge_state(args.kirin, moves, declined))
    if timed_out:
        res["faults"].append(f"XBoard still running after {limit:.0f} s")
    res.update(game=game, opponent=args.opponent, seconds=round(time.monotonic() - t0, 1))
    done.write_text(json.dumps(res, indent=1))
    return res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kirin", default=str(HERE.parent / "target" / "release" / "kirin"))
    ap.add_argument("--opponent", choices=("hachu", "kirin"), default="hachu")
    ap.add_argument("--games", type=int, default=2)
    ap.add_argument("--st", type=int, default=1, help="seconds a move (XBoard's -st)")
    ap.add_argument("--depth", type=int, default=0, help="a depth limit for both engines (quick checks)")
    ap.add_argument("--max-plies", type=int, default=600, help="the ply cap, a draw")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    args.kirin = os.path.abspath(args.kirin)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results = []
    for game in range(1, args.games + 1):
        r = play(args, game, out)
        results.append(r)
        colour = "black" if r["kirin_black"] else "white"
        print(f"game {game}: kirin {colour}, {r['result']} {{{r['comment']}}} after {r['plies']} plies, "
              f"judge {r['judge']!r}, {r['seconds']} s" + "".join(f"\n  fault: {f}" for f in r["faults"]))
    scored = [r["score"] for r in results if r["score"] is not None]
    faults = sum(len(r["faults"]) for r in results)
    summary = {"games": len(results), "kirin_points": sum(scored), "scored": len(scored),
               "capped": sum(1 for r in results if r["plies"] >= args.max_plies), "faults": faults}
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    print(f"kirin {summary['kirin_points']} of {summary['scored']} against {args.opponent}; "
          f"{summary['capped']} games reached the cap; {faults} faults")
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
