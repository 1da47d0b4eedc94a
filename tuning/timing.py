#!/usr/bin/env python3
"""Timing harness: does kirin answer `go` within the clock, under load?

kirin plays itself (one process, the side to move alternating) from openings read at run time,
while this script keeps both clocks the way a server does and times every `go` from the moment
the line is written to the moment `bestmove` is read (time.perf_counter, harness side, so pipe
and scheduling delays count against the engine, as they would on a real clock).

Controls (each plays --moves moves, restarting from a new opening after a game ends or after
--max-plies plies):
  byo1000        go btime 0 wtime 0 byoyomi 1000
  byo100         go btime 0 wtime 0 byoyomi 100
  byo300         go btime 0 wtime 0 byoyomi 300
  main30_byo1000 30 s main time each, then 1 s byoyomi (main time is charged with the real
                 latency; once it is gone every move must fit the period)
  fischer60_1    60 s + 1 s increment (added after each move)
  sudden60       60 s sudden death
  byo1000_t4     byo1000 with Threads 4 (more threads than the machine has cores)
  roundup_byo3000  byoyomi 3000 with RoundUpToFullSecond on: reports elapsed mod 1000
  stop_t1, stop_t2 `go infinite` with Threads 1 / 2, then `stop` after a random 200-800 ms:
                 the latency is timed from `stop` written to `bestmove` read, and an answer
                 later than STOP_LIMIT_MS counts as an overrun

Overrun = the move came later than the clock allowed: latency > main + byoyomi for byoyomi
controls, latency > main time left for increment and sudden-death controls. A time loss ends
the game, and the next move starts a new one.

While measuring, --load busy-loop processes (default 2) keep the cores busy; the harness
starts them and kills them when it ends.

--quick: byo1000 only, at least 100 moves, exit status 1 on any overrun or hang.

Standard library only. The openings file is GPL data kept outside the repository: it is read
at run time from --openings (default ../shared/data/openings/taya36.sfen from the repo root).
"""

import argparse
import json
import os
import random
import selectors
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_ENGINE = os.path.join(REPO, "target", "release", "kirin")
DEFAULT_OPENINGS = os.path.join(REPO, "..", "shared", "data", "openings", "taya36.sfen")

# name -> (main ms, byoyomi ms, increment ms, extra options)
CONTROLS = {
    "byo1000": (0, 1000, 0, {}),
    "byo100": (0, 100, 0, {}),
    "byo300": (0, 300, 0, {}),
    "main30_byo1000": (30000, 1000, 0, {}),
    "fischer60_1": (60000, 0, 1000, {}),
    "sudden60": (60000, 0, 0, {}),
    "byo1000_t4": (0, 1000, 0, {"Threads": "4"}),
    "roundup_byo3000": (0, 3000, 0, {"RoundUpToFullSecond": "true"}),
    "stop_t1": (0, 0, 0, {"Threads": "1"}),
    "stop_t2": (0, 0, 0, {"Threads": "2"}),
}
# A GUI's stop (the user's "move now", the end of pondering) should be answered at once.
STOP_LIMIT_MS = 100
DEFAULT_SET = ["byo1000", "byo100", "main30_byo1000", "fischer60_1", "sudden60",
               "byo1000_t4", "roundup_byo3000", "stop_t2"]
DEFAULT_MOVES = {"roundup_byo3000": 60, "stop_t1": 100, "stop_t2": 100}


class Hang(Exception):
    pass


class Engine:
    """A USI engine on pipes, read with select so every read has its own timeout."""

    def __init__(self, path, options, stderr=None):
        self.proc = subprocess.Popen(
            [path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=stderr or subprocess.DEVNULL, bufsize=0)
        self.fd = self.proc.stdout.fileno()
        os.set_blocking(self.fd, False)
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.fd, selectors.EVENT_READ)
        self.buf = b""
        self.lines = []
        self.send("usi")
        self.wait_for("usiok", 10)
        for name, value in options.items():
            self.send(f"setoption name {name} value {value}")
        self.ready()

    def send(self, line):
        self.proc.stdin.write((line + "\n").encode())

    def readline(self, timeout):
        """The next line and the perf_counter when it was read; Hang after `timeout` s."""
        deadline = time.perf_counter() + timeout
        while not self.lines:
            left = deadline - time.perf_counter()
            if left <= 0 or not self.sel.select(left):
                if time.perf_counter() >= deadline:
                    raise Hang(f"no line within {timeout} s")
                continue
            chunk = os.read(self.fd, 65536)
            now = time.perf_counter()
            if not chunk:
                raise Hang("engine closed its output")
            self.buf += chunk
            *done, self.buf = self.buf.split(b"\n")
            self.lines.extend((d.decode("ascii", "replace").strip(), now) for d in done)
        return self.lines.pop(0)

    def wait_for(self, word, timeout):
        while True:
            line, t = self.readline(timeout)
            if line.split()[:1] == [word]:
                return line, t

    def ready(self):
        self.send("isready")
        self.wait_for("readyok", 30)

    def close(self):
        try:
            self.send("quit")
            self.proc.wait(3)
        except Exception:
            self.proc.kill()
            self.proc.wait()


def load_openings(path):
    with open(path) as f:
        lines = [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]
    if not lines:
        sys.exit(f"no openings in {path}")
    return lines


def opening_parts(line):
    """`startpos moves a b` / `sfen ... moves a b` -> (position head, moves, black to move)."""
    words = line.split()
    if "moves" in words:
        i = words.index("moves")
        head, moves = words[:i], words[i + 1:]
    else:
        head, moves = words, []
    black = True
    if head[0] == "sfen":
        black = head[2] == "b"
    if len(moves) % 2:
        black = not black
    return " ".join(head), moves, black


def start_load(n):
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def stop_load(procs):
    for p in procs:
        p.kill()
    for p in procs:
        p.wait()


def percentile(sorted_xs, q):
    """Nearest rank."""
    if not sorted_xs:
        return float("nan")
    k = max(0, min(len(sorted_xs) - 1, int(-(-q * len(sorted_xs) // 100)) - 1))
    return sorted_xs[k]


def run_stop_latency(name, args, openings, rng, log):
    """`go infinite`, `stop` after a random wait, and the time to `bestmove`, from openings."""
    extra = CONTROLS[name][3]
    moves_wanted = args.moves or DEFAULT_MOVES.get(name, 100)
    options = {"Threads": "1", "USI_Hash": "64", "USI_OwnBook": "false"}
    options.update(extra)
    err = open(args.engine_stderr, "a") if args.engine_stderr else None
    eng = Engine(args.engine, options, err)
    lat, overruns, hangs = [], 0, 0
    try:
        while len(lat) < moves_wanted:
            head, moves, _ = opening_parts(rng.choice(openings))
            eng.send(f"position {head} moves {' '.join(moves)}" if moves else f"position {head}")
            eng.send("go infinite")
            time.sleep(rng.uniform(0.2, 0.8))
            t0 = time.perf_counter()
            eng.send("stop")
            try:
                _, t1 = eng.wait_for("bestmove", 10)
            except Hang as e:
                hangs += 1
                log(f"  {name}: HANG ({e}); restarting the engine")
                eng.proc.kill()
                eng.proc.wait()
                eng = Engine(args.engine, options, err)
                continue
            ms = (t1 - t0) * 1000.0
            lat.append(ms)
            if ms > STOP_LIMIT_MS:
                overruns += 1
                log(f"  {name}: OVERRUN {ms:.1f} ms after stop (move {len(lat)})")
    finally:
        eng.close()
        if err:
            err.close()
    s = sorted(lat)
    return {
        "control": name, "moves": len(lat), "games": 0,
        "min": s[0] if s else None, "median": statistics.median(s) if s else None,
        "p99": percentile(s, 99), "max": s[-1] if s else None,
        "overruns": overruns, "hangs": hangs, "max_depth": 0,
    }


def run_control(name, args, openings, rng, log):
    if name.startswith("stop_"):
        return run_stop_latency(name, args, openings, rng, log)
    main, byo, inc, extra = CONTROLS[name]
    moves_wanted = args.moves or DEFAULT_MOVES.get(name, 200)
    options = {"Threads": "1", "USI_Hash": "64"}
    options.update(extra)
    err = open(args.engine_stderr, "a") if args.engine_stderr else None
    eng = Engine(args.engine, options, err)
    lat = []            # every move's latency, ms
    pure_byo = []       # latency of moves made with no main time left (byoyomi controls)
    overruns = []
    hangs = 0
    games = 0
    max_depth_seen = 0
    try:
        while len(lat) < moves_wanted:
            head, moves, black = opening_parts(rng.choice(openings))
            games += 1
            eng.send("usinewgame")
            eng.ready()
            clock = {True: main, False: main}
            plies = 0
            while plies < args.max_plies and len(lat) < moves_wanted:
                mine = clock[black]
                go = f"go btime {clock[True]} wtime {clock[False]}"
                if byo:
                    go += f" byoyomi {byo}"
                if inc:
                    go += f" binc {inc} winc {inc}"
                eng.send(f"position {head} moves {' '.join(moves)}" if moves
                          else f"position {head}")
                allowed = mine + byo
                timeout = (allowed if allowed else main) / 1000 + 10
                t0 = time.perf_counter()
                eng.send(go)
                try:
                    while True:
                        line, t1 = eng.readline(timeout - (time.perf_counter() - t0))
                        w = line.split()
                        if w[:1] == ["info"] and "depth" in w:
                            max_depth_seen = max(max_depth_seen, int(w[w.index("depth") + 1]))
                        if w[:1] == ["bestmove"]:
                            break
                except Hang as e:
                    hangs += 1
                    log(f"  {name}: HANG ({e}); restarting the engine")
                    eng.proc.kill()
                    eng.proc.wait()
                    eng = Engine(args.engine, options, err)
                    break
                ms = (t1 - t0) * 1000.0
                lat.append(ms)
                if byo and mine == 0:
                    pure_byo.append(ms)
                over = ms > allowed if byo else ms > mine
                if over:
                    overruns.append((ms, mine, byo, inc))
                    log(f"  {name}: OVERRUN {ms:.1f} ms with main {mine} byoyomi {byo} inc {inc}"
                        f" (move {len(lat)})")
                    break  # a time loss ends the game
                clock[black] = max(0, round(mine - ms)) + inc if (main or inc) else 0
                mv = w[1]
                if mv in ("resign", "win"):
                    break
                moves.append(mv)
                black = not black
                plies += 1
    finally:
        eng.close()
        if err:
            err.close()
    s = sorted(lat)
    res = {
        "control": name, "moves": len(lat), "games": games,
        "min": s[0] if s else None, "median": statistics.median(s) if s else None,
        "p99": percentile(s, 99), "max": s[-1] if s else None,
        "overruns": len(overruns), "hangs": hangs, "max_depth": max_depth_seen,
    }
    if byo and main:
        res["moves_in_byoyomi"] = len(pure_byo)
        if pure_byo:
            pb = sorted(pure_byo)
            res["byoyomi_only"] = {"median": statistics.median(pb), "p99": percentile(pb, 99),
                                   "max": pb[-1]}
    if name.startswith("roundup"):
        mods = [int(x) % 1000 for x in lat]
        hist = {}
        for m in mods:
            b = f"{m // 10 * 10:03d}-{m // 10 * 10 + 9:03d}"
            hist[b] = hist.get(b, 0) + 1
        res["mod1000_hist"] = dict(sorted(hist.items()))
        ms_ = sorted(mods)
        res["mod1000"] = {"min": ms_[0], "median": statistics.median(ms_), "max": ms_[-1]}
    return res


def fmt_row(r):
    return (f"{r['control']:<16} {r['moves']:>5} {r['min']:>8.1f} {r['median']:>8.1f} "
            f"{r['p99']:>8.1f} {r['max']:>8.1f} {r['overruns']:>8} {r['hangs']:>5}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--engine", default=DEFAULT_ENGINE)
    ap.add_argument("--openings", default=DEFAULT_OPENINGS)
    ap.add_argument("--controls", nargs="+", choices=list(CONTROLS), default=None)
    ap.add_argument("--moves", type=int, default=0, help="moves per control (default 200)")
    ap.add_argument("--max-plies", type=int, default=150)
    ap.add_argument("--load", type=int, default=2, help="busy-loop processes while measuring")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--engine-stderr", help="append the engine's stderr to this file")
    ap.add_argument("--json", help="write the results here too")
    ap.add_argument("--quick", action="store_true",
                    help="byo1000, >= 100 moves, exit 1 on any overrun")
    args = ap.parse_args()
    if args.quick:
        args.controls = args.controls or ["byo1000"]
        args.moves = max(args.moves, 100)
    controls = args.controls or DEFAULT_SET
    if not os.access(args.engine, os.X_OK):
        sys.exit(f"engine not found: {args.engine} (cargo build --release)")
    openings = load_openings(args.openings)
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    log(f"seed {seed}, {len(openings)} openings, load {args.load}, engine {args.engine}")
    load = start_load(args.load)
    results = []
    try:
        for name in controls:
            t = time.perf_counter()
            r = run_control(name, args, openings, rng, log)
            r["wall_s"] = round(time.perf_counter() - t, 1)
            results.append(r)
            log(fmt_row(r) + f"   ({r['wall_s']} s)")
    finally:
        stop_load(load)
    print(f"{'control':<16} {'moves':>5} {'min':>8} {'median':>8} {'p99':>8} {'max':>8} "
          f"{'overruns':>8} {'hangs':>5}   (latency ms, go (stop_*: stop) written -> bestmove read)")
    for r in results:
        print(fmt_row(r))
        if "byoyomi_only" in r:
            b = r["byoyomi_only"]
            print(f"  {r['moves_in_byoyomi']} moves in byoyomi: median {b['median']:.1f}"
                  f" p99 {b['p99']:.1f} max {b['max']:.1f}")
        if "mod1000" in r:
            m = r["mod1000"]
            print(f"  elapsed mod 1000: min {m['min']} median {m['median']} max {m['max']};"
                  f" histogram {r['mod1000_hist']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seed": seed, "load": args.load, "results": results}, f, indent=1)
    bad = sum(r["overruns"] + r["hangs"] for r in results)
    if args.quick and bad:
        print(f"FAIL: {bad} overrun(s)/hang(s)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
