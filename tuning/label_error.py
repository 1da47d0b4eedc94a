#!/usr/bin/env python3
"""Label error of a generator's text data against a deeper search by any USI build.

Reads `sfen<TAB>score<TAB>result` lines (what `kirin-tune gen` writes as text: training positions
with the mover's search score), searches every K-th position afresh with `go nodes N` (new hash
for each: `usinewgame`), and prints the mean absolute difference in winning probability,
sigmoid(score / 1182), between the label (evaluation units) and that search's last score (USI
centipawns, whose probability is sigmoid(cp / 600): `src/eval/scale.rs`). It measures a build's
labels with that build's own deeper search, so that generators of different commits (which
`kirin-tune quality` cannot play) are compared the same way:

    python3 tuning/label_error.py --engine BUILD/kirin --data gen.tsv --every 5 --nodes 24000
"""

import argparse
import math
import subprocess
import sys

# A label's units (the evaluation's) and the USI output's centipawns, per logit.
CP_PER_LOGIT = 1182.0
USI_CP_PER_LOGIT = 600.0


def win_probability(kind, value, per_logit):
    if kind == "mate":
        return 1.0 if value > 0 else 0.0
    return 1.0 / (1.0 + math.exp(-value / per_logit))


def last_score(lines):
    """The score of the last `info ... score` line: ('cp', n) or ('mate', n)."""
    found = None
    for line in lines:
        words = line.split()
        if words[:1] != ["info"] or "score" not in words:
            continue
        i = words.index("score")
        if i + 2 < len(words) and words[i + 1] in ("cp", "mate"):
            value = words[i + 2]
            if value in ("+", "-"):  # mate without a count
                found = ("mate", 1 if value == "+" else -1)
            else:
                found = (words[i + 1], int(value))
    return found


class Engine:
    def __init__(self, cmd):
        self.proc = subprocess.Popen(
            cmd, shell=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self.send("usi")
        self.wait("usiok")
        # As the generator searches: no book, one thread, a 16 MB table.
        self.send("setoption name USI_OwnBook value false")
        self.send("setoption name Threads value 1")
        self.send("setoption name USI_Hash value 16")
        self.send("isready")
        self.wait("readyok")

    def send(self, line):
        self.proc.stdin.write(line + "\n")

    def wait(self, word):
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"engine ended while waiting for {word}")
            lines.append(line.strip())
            if line.split()[:1] == [word]:
                return lines

    def score(self, sfen, nodes):
        self.send("usinewgame")
        self.send("isready")
        self.wait("readyok")
        self.send(f"position sfen {sfen}")
        self.send(f"go nodes {nodes}")
        return last_score(self.wait("bestmove"))

    def close(self):
        self.send("quit")
        self.proc.wait(timeout=10)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", required=True, help="the USI command of the build to check with")
    ap.add_argument("--data", required=True, help="the generator's text lines")
    ap.add_argument("--every", type=int, default=5, help="check every K-th position")
    ap.add_argument("--nodes", type=int, default=24000, help="the check's node budget")
    ap.add_argument("--limit", type=int, default=0, help="stop after this many checks (0: all)")
    args = ap.parse_args(argv)
    engine = Engine(args.engine)
    total, checked = 0.0, 0
    try:
        with open(args.data) as f:
            for n, line in enumerate(f, 1):
                if n % args.every:
                    continue
                fields = line.rstrip("\n").split("\t")
                if len(fields) < 3:
                    print(f"{args.data}:{n}: expected sfen, score and result", file=sys.stderr)
                    return 2
                sfen, label = fields[0], int(float(fields[1]))
                deep = engine.score(sfen, args.nodes)
                if deep is None:
                    continue
                total += abs(
                    win_probability("cp", label, CP_PER_LOGIT) - win_probability(*deep, USI_CP_PER_LOGIT)
                )
                checked += 1
                if args.limit and checked >= args.limit:
                    break
    finally:
        engine.close()
    print(f"{checked} positions checked at {args.nodes} nodes: mean winning-probability error "
          f"{total / max(checked, 1):.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
