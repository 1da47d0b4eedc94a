"""Average thinking time over the first plies of games kirin plays against itself, with and
without its book: what the book saves on the clock.

usage: python book/think_time.py KIRIN [--games 10] [--plies 30] [--byoyomi 300]
Each game starts from the start position; one engine process plays both sides. Prints the
mean milliseconds from `go` to `bestmove` per ply and the share of book answers (an `info`
line without a node count), for USI_OwnBook true and false.
"""

import argparse
import subprocess
import time


def run(kirin, own_book, games, plies, byoyomi):
    p = subprocess.Popen([kirin], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                         bufsize=1)

    def send(line):
        p.stdin.write(line + "\n")
        p.stdin.flush()

    def until(prefix):
        lines = []
        while True:
            line = p.stdout.readline().strip()
            lines.append(line)
            if line.startswith(prefix):
                return lines

    send("usi")
    until("usiok")
    for name, value in (("Threads", 1), ("USI_Hash", 64), ("USI_OwnBook", own_book)):
        send(f"setoption name {name} value {value}")
    send("isready")
    until("readyok")
    total_ms, answers, from_book = 0.0, 0, 0
    for _ in range(games):
        send("usinewgame")
        moves = []
        for _ in range(plies):
            send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
            t = time.perf_counter()
            send(f"go btime 0 wtime 0 byoyomi {byoyomi}")
            lines = until("bestmove")
            total_ms += (time.perf_counter() - t) * 1000
            answers += 1
            best = lines[-1].split()[1]
            if any(l.startswith("info depth") and " nodes " not in l for l in lines):
                from_book += 1
            if best in ("resign", "win"):
                break
            moves.append(best)
        send("gameover draw")
    send("quit")
    p.wait()
    return total_ms / answers, from_book / answers, answers


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kirin")
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--plies", type=int, default=30)
    ap.add_argument("--byoyomi", type=int, default=300)
    a = ap.parse_args()
    for own_book in ("true", "false"):
        ms, share, n = run(a.kirin, own_book, a.games, a.plies, a.byoyomi)
        print(f"USI_OwnBook {own_book}: {n} moves, {ms:.1f} ms per move, "
              f"{100 * share:.1f} % from the book")


if __name__ == "__main__":
    main()
