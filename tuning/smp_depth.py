#!/usr/bin/env python3
"""Depth and nodes that kirin reaches with 1 thread and with N threads in the same time, on the
positions of `kirin bench` (read from src/bench.rs), so that a change to lazy SMP can be checked
for the property "more threads never search shallower".

    python3 tuning/smp_depth.py [--engine target/release/kirin] [--movetime 3000] [--threads 2]

Each position is searched once per thread count with `go movetime`, after `usinewgame` so that
the transposition table starts empty. The depth is the last `info depth` line before `bestmove`.
Run it on an otherwise idle machine: the threads must have a core each.
"""
import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def bench_positions():
    """(name, sfen) pairs of the standard bench, in the order `kirin bench` searches them."""
    text = (ROOT / "src" / "bench.rs").read_text()
    block = text[text.index("pub const POSITIONS"):]
    block = block[:block.index("];")]
    return re.findall(r'\(\s*"([^"]+)",\s*"([^"]+)",?\s*\)', block)


def search(engine: str, threads: int, sfen: str, movetime: int, hash_mb: int):
    proc = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def send(line):
        proc.stdin.write(line + "\n")
        proc.stdin.flush()

    def wait_for(word):
        for line in proc.stdout:
            if line.startswith(word):
                return line
        raise RuntimeError(f"{engine} ended before '{word}'")

    send("usi")
    wait_for("usiok")
    send(f"setoption name Threads value {threads}")
    send(f"setoption name USI_Hash value {hash_mb}")
    send("setoption name USI_OwnBook value false")
    send("isready")
    wait_for("readyok")
    send("usinewgame")
    send(f"position sfen {sfen}")
    send(f"go movetime {movetime}")
    depth = nodes = 0
    for line in proc.stdout:
        if line.startswith("info") and " depth " in line and " pv " in line:
            m = re.search(r" depth (\d+)", line)
            n = re.search(r" nodes (\d+)", line)
            depth = int(m.group(1)) if m else depth
            nodes = int(n.group(1)) if n else nodes
        elif line.startswith("bestmove"):
            break
    send("quit")
    proc.wait(timeout=10)
    return depth, nodes


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", default=str(ROOT / "target" / "release" / "kirin"))
    ap.add_argument("--movetime", type=int, default=3000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--hash", type=int, default=256)
    args = ap.parse_args(argv)
    rows = []
    print(f"{'position':<22} {'depth 1':>7} {'depth ' + str(args.threads):>7} "
          f"{'nodes 1':>10} {'nodes ' + str(args.threads):>10}")
    for name, sfen in bench_positions():
        d1, n1 = search(args.engine, 1, sfen, args.movetime, args.hash)
        dn, nn = search(args.engine, args.threads, sfen, args.movetime, args.hash)
        rows.append((d1, dn))
        print(f"{name:<22} {d1:>7} {dn:>7} {n1:>10} {nn:>10}", flush=True)
    shallower = sum(dn < d1 for d1, dn in rows)
    print(f"{args.threads} threads shallower than 1 on {shallower} of {len(rows)} positions; "
          f"mean depth {sum(d for d, _ in rows) / len(rows):.1f} against "
          f"{sum(d for _, d in rows) / len(rows):.1f}")
    return 1 if shallower else 0


if __name__ == "__main__":
    sys.exit(main())
