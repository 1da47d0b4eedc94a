#!/usr/bin/env python3
"""The network's monitor on positions from real games: how close each evaluation comes to a deep
search on positions that no training game holds. Games decide; this only watches.

    # once per labelling build: label the positions by a deep search (kirin analyze)
    .venv/bin/python tuning/monitor.py label --kirin BUILD --nodes 200000 --out $KIRIN_DATA/monitor/N200k
    # per round: each evaluation's loss on those labels (USI `eval`, the static evaluation)
    .venv/bin/python tuning/monitor.py loss --labels $KIRIN_DATA/monitor/N200k/labels.tsv \\
        --engine r6=$KIRIN_DATA/kirin-3abb0eb --engine linear=$KIRIN_DATA/kirin-3abb0eb,EvalFile=linear

The positions: every position of the records in `../shared/data/kifu/` (professional and engine
games, read up to their end where a record stops at an illegal move), and of every `--every`-th
line of the held-out openings (`taya36.sfen` after line `--skip`, the lines the matches start
from and no generation run starts from; read at run time, never copied into the repository).
`kirin analyze --nodes N` searches each of them; its value of a position (the best move's, in
reported centipawns) becomes the label in the evaluation's units. Like the trainers' data, the
monitor keeps only quiet positions: not in check (cshogi decides) and a label under 3,000 units,
mate scores left out.

The loss is the trainers' with lambda 0: the mean of (sigmoid(eval / K) - sigmoid(label / K))^2,
K = 1182, over the positions of each source (`kifu`, `openings`) and over all. The labels favour
the labelling build's own network (its search agrees with its evaluation more than with another's),
so compare networks on labels of a build that is none of them, or relabel with each new round and
compare only within one labelling.
"""

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

import cshogi

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared"
K = 1182.0          # CP_PER_LOGIT: the evaluation's units per logit
REPORTED = 600.0    # the reported centipawns per logit (src/eval/scale.rs)
DECIDED = 3000      # labels at or beyond this are decided positions, as the trainers drop them


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def held_out_lines(path: Path, skip: int, every: int) -> list:
    lines = [ln.strip() for ln in path.read_text().splitlines() if ln.strip()]
    if skip >= len(lines):
        raise SystemExit(f"--skip {skip}: {path} has only {len(lines)} lines")
    return lines[skip::every]


def positions_of(record: dict):
    """(sfen, label in evaluation units from the side to move's view) for every position of one
    analysed record: the one before each move, and the last one."""
    board = cshogi.Board(record["start"])
    for m in record["moves"]:
        yield board.sfen(), board.turn, m.get("before_cp"), m.get("before_mate")
        board.push_usi(m["move"])
    if record["moves"]:
        last = record["moves"][-1]
        yield board.sfen(), board.turn, last.get("score_cp"), last.get("mate")


def quiet_label(sfen: str, turn: int, cp, mate):
    """The label in evaluation units from the side to move's view, or None for a position the
    trainers would not keep (in check, a mate score, decided)."""
    if cp is None or mate:
        return None
    if cshogi.Board(sfen).is_check():
        return None
    units = cp * K / REPORTED * (1 if turn == cshogi.BLACK else -1)
    return None if abs(units) >= DECIDED else round(units)


def label(args) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    lines = held_out_lines(Path(args.openings), args.skip, args.every)
    openings = out / "openings.sfen"
    openings.write_text("".join(ln + "\n" for ln in lines))
    for source, inputs in (("kifu", [args.kifu]), ("openings", [str(openings)])):
        cmd = [args.kirin, "analyze", "--nodes", str(args.nodes), "--format", "json", "--jobs", str(args.jobs),
               "--out", str(out / source), "--resume", "--quiet", *inputs]
        print(" ".join(cmd), file=sys.stderr)
        if subprocess.run(cmd).returncode != 0:
            raise SystemExit(f"kirin analyze failed on {source}")
    kept = {"kifu": 0, "openings": 0}
    seen = set()
    with open(out / "labels.tsv", "w") as f:
        for source in kept:
            for path in sorted((out / source).glob("*.json")):
                record = json.loads(path.read_text())
                for sfen, turn, cp, mate in positions_of(record):
                    units = quiet_label(sfen, turn, cp, mate)
                    key = " ".join(sfen.split()[:3])
                    if units is None or key in seen:
                        continue
                    seen.add(key)
                    f.write(f"{sfen}\t{units}\t{source}\n")
                    kept[source] += 1
    print(f"{out / 'labels.tsv'}: {kept['kifu']} positions of the records, {kept['openings']} of "
          f"{len(lines)} held-out opening lines (quiet, undecided, each once)")
    return 0


class Engine:
    """A kirin build over USI, asked for its static evaluation."""

    def __init__(self, spec: str):
        name, _, rest = spec.partition("=")
        binary, *opts = rest.split(",")
        self.name = name
        self.p = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.send("usi")
        self.wait(lambda ln: ln.startswith("usiok"))
        for o in opts:
            key, _, value = o.partition("=")
            self.send(f"setoption name {key} value {value}")
        self.send("isready")
        self.wait(lambda ln: ln.startswith("readyok"))

    def send(self, line: str):
        self.p.stdin.write(line + "\n")

    def wait(self, done) -> str:
        """The first line for which `done` holds; an engine's error line ends the run."""
        for line in self.p.stdout:
            if done(line):
                return line
            if line.startswith("info string") and "error" in line:
                raise SystemExit(f"{self.name}: {line.strip()}")
        raise SystemExit(f"{self.name}: the engine ended")

    def evaluate(self, sfen: str) -> int:
        self.send(f"position sfen {sfen}")
        self.send("eval")
        # `eval` lists each term, then `info string eval N (side to move, ...)`.
        line = self.wait(lambda ln: ln.startswith("info string eval ") and "(side to move" in ln)
        return int(line.split()[3])

    def close(self):
        self.send("quit")
        self.p.wait(timeout=10)


def loss(args) -> int:
    rows = []
    for line in Path(args.labels).read_text().splitlines():
        sfen, units, source = line.split("\t")
        rows.append((sfen, int(units), source))
    sources = sorted({r[2] for r in rows})
    print(f"{len(rows)} positions ({', '.join(f'{s} {sum(r[2] == s for r in rows)}' for s in sources)})")
    print("| evaluation | " + " | ".join(sources) + " | all |")
    print("|---" * (len(sources) + 2) + "|")
    for spec in args.engine:
        e = Engine(spec)
        sums = {s: [0.0, 0] for s in sources}
        for sfen, units, source in rows:
            d = sigmoid(e.evaluate(sfen) / K) - sigmoid(units / K)
            sums[source][0] += d * d
            sums[source][1] += 1
        e.close()
        total = sum(v[0] for v in sums.values()) / len(rows)
        cells = [f"{v[0] / v[1]:.6f}" for v in (sums[s] for s in sources)]
        print(f"| {e.name} | " + " | ".join(cells) + f" | {total:.6f} |", flush=True)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("label", help="label the positions by kirin analyze")
    a.add_argument("--kirin", required=True, help="the labelling build")
    a.add_argument("--nodes", type=int, default=200000)
    a.add_argument("--out", required=True)
    a.add_argument("--kifu", default=str(SHARED / "data" / "kifu"))
    a.add_argument("--openings", default=str(SHARED / "data" / "openings" / "taya36.sfen"))
    a.add_argument("--skip", type=int, default=1500, help="held-out lines start after this one")
    a.add_argument("--every", type=int, default=8, help="every n-th held-out line")
    a.add_argument("--jobs", type=int, default=1)
    b = sub.add_parser("loss", help="each evaluation's loss on the labels")
    b.add_argument("--labels", required=True)
    b.add_argument("--engine", action="append", required=True,
                   help="NAME=BINARY[,Option=value...], e.g. linear=kirin,EvalFile=linear")
    args = ap.parse_args(argv)
    return label(args) if args.cmd == "label" else loss(args)


if __name__ == "__main__":
    sys.exit(main())
