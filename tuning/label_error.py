#!/usr/bin/env python3
"""Label error of a generator's text data against a deeper search by any USI build.

Reads `sfen<TAB>score<TAB>result` lines (what `kirin-tune gen` writes as text: training positions
with the mover's search score), searches every K-th position afresh with `go nodes N` (new hash
for each: `usinewgame`), and prints the mean absolute difference in winning probability,
sigmoid(score / 1182), between the label (evaluation units) and that search's last score (USI
centipawns, whose probability is sigmoid(cp / 600): `src/eval/scale.rs`). It measures a build's
labels with that build's own deeper search, so that generators of different commits (which
`kirin-tune quality` cannot play) are compared the same way:

    .venv/bin/python tuning/label_error.py --engine BUILD/kirin --data gen.tsv --every 5 --nodes 24000
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import monitor  # noqa: E402

# A label's units (the evaluation's) and the USI output's centipawns, per logit.
CP_PER_LOGIT = monitor.K
USI_CP_PER_LOGIT = monitor.REPORTED


def win_probability(kind, value, per_logit):
    if kind == "mate":
        return 1.0 if value > 0 else 0.0
    return monitor.sigmoid(value / per_logit)


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


class Engine(monitor.Engine):
    """The monitor's USI driver, set as the generator searches (no book, one thread, a 16 MB
    table), asked for a search's score."""

    def __init__(self, binary):
        super().__init__(f"check={binary},USI_OwnBook=false,Threads=1,USI_Hash=16")

    def score(self, sfen, nodes):
        """The last score of a search of `nodes` nodes from a fresh table."""
        self.send("usinewgame")
        self.send("isready")
        self.wait(lambda ln: ln.startswith("readyok"))
        self.send(f"position sfen {sfen}")
        self.send(f"go nodes {nodes}")
        lines = []
        self.wait(lambda ln: lines.append(ln.strip()) or ln.startswith("bestmove"))
        return last_score(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", required=True, help="the build to check with (a kirin binary)")
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
