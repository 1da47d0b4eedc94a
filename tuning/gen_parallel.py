#!/usr/bin/env python3
"""Self-play data from several `kirin-tune gen` processes at once, one a core.

A game of `kirin-tune gen` is fixed by the seed and its game number (its opening, the nodes of
each move), so processes that play disjoint ranges of game numbers can run side by side and their
data is the same as one process would write. Process i plays, in each run, the games from
`FIRST + i * STRIDE` on; its games go to a part file of its own, run after run; the output is the
parts in process order.

A run is `FIRST:COUNTS`, the number of games each process plays (regenerates a run exactly), or
`FIRST:MINUTES:PROCS` (plays for that long; the counts it printed regenerate it):

    tuning/gen_parallel.py --tune target/release/kirin-tune --out positions.tsv --stride 1000 \\
        --run 1360:8.4:16 --run 1760:3.9:16 -- --openings book_openings.sfen --seed 10006 \\
        --nodes-min 4000 --nodes-max 8000 --eval default

Options after `--` go to every `kirin-tune gen` unchanged.
"""
import argparse
import subprocess
import sys
import tempfile
from pathlib import Path


def parse_run(text: str):
    """`FIRST:A,B,C` -> (first, [A, B, C], None); `FIRST:MINUTES:PROCS` -> (first, None, (m, p))."""
    parts = text.split(":")
    try:
        first = int(parts[0])
        if len(parts) == 2:
            counts = [int(c) for c in parts[1].split(",")]
            if first >= 0 and counts and min(counts) >= 0:
                return first, counts, None
        elif len(parts) == 3:
            minutes, procs = float(parts[1]), int(parts[2])
            if first >= 0 and minutes > 0 and procs > 0:
                return first, None, (minutes, procs)
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"a run is FIRST:COUNT,COUNT.. or FIRST:MINUTES:PROCS, not {text!r}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tune", default="target/release/kirin-tune", help="the kirin-tune binary")
    ap.add_argument("--out", required=True, help="the data file to write (must not exist)")
    ap.add_argument("--stride", type=int, default=1000, help="game numbers between processes")
    ap.add_argument("--run", type=parse_run, action="append", required=True)
    ap.add_argument("gen", nargs=argparse.REMAINDER, help="-- then options for kirin-tune gen")
    args = ap.parse_args(argv)
    gen = args.gen[1:] if args.gen[:1] == ["--"] else args.gen
    if any(a in ("--out", "--first", "--games", "--minutes") for a in gen):
        ap.error("--out, --first, --games and --minutes are set per process")
    out = Path(args.out)
    if out.exists():
        ap.error(f"{out} exists")
    procs = max(len(c) if c else p[1] for _, c, p in args.run)
    counts_played = []
    with tempfile.TemporaryDirectory(prefix="gen-parallel-", dir=out.parent) as tmp:
        # kirin-tune gen picks the format by the file's name, so each part is named like the output.
        suffix = ".sbinpack" if out.name.endswith(".sbinpack") else ".tsv"
        parts = [Path(tmp) / f"part-{i}{suffix}" for i in range(procs)]
        for first, counts, timed in args.run:
            n = len(counts) if counts else timed[1]
            running = []
            for i in range(n):
                games = counts[i] if counts else args.stride
                if games > args.stride:
                    ap.error(f"{games} games overlap the next process's range (stride {args.stride})")
                cmd = [args.tune, "gen", *gen, "--out", str(parts[i]), "--first", str(first + i * args.stride),
                       "--games", str(games)]
                if timed:
                    cmd += ["--minutes", str(timed[0])]
                if parts[i].exists():
                    cmd += ["--append", "true"]  # the process's games of the runs before
                running.append(subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True))
            played = []
            for i, p in enumerate(running):
                err = p.communicate()[1]
                last = err.strip().splitlines()[-1] if err.strip() else ""
                print(f"run {first} process {i}: {last}", file=sys.stderr)
                if p.returncode != 0:
                    print(f"kirin-tune gen failed: {last}", file=sys.stderr)
                    return 1
                try:
                    played.append(int(last.split("done: ")[1].split()[0]))
                except (IndexError, ValueError):
                    print(f"no game count in {last!r}", file=sys.stderr)
                    return 1
            counts_played.append(f"{first}:{','.join(map(str, played))}")
        with out.open("wb") as f:
            for part in parts:
                if part.exists():
                    f.write(part.read_bytes())
    print(f"wrote {out}; to regenerate it: " + " ".join(f"--run {r}" for r in counts_played))
    return 0


if __name__ == "__main__":
    sys.exit(main())
