#!/usr/bin/env python3
"""HaChu 0.21 behind XBoard (tuning/xboard_match.py), with one fix: HaChu reads only the board field of a `setboard`
(the side to move, holdings and counters after it are an `Unknown piece` and it exits), so the
fields after the board are dropped. Everything else passes through unchanged, both ways."""
import os
import subprocess
import sys
import threading

HACHU = os.environ.get("HACHU", "/usr/games/hachu")


def main():
    child = subprocess.Popen([HACHU], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)

    def relay_out():
        for line in iter(child.stdout.readline, b""):
            sys.stdout.buffer.write(line)
            sys.stdout.buffer.flush()

    threading.Thread(target=relay_out, daemon=True).start()
    for line in sys.stdin.buffer:
        if line.startswith(b"setboard "):
            fields = line.split()
            if len(fields) > 2 and fields[2] != b"w":
                sys.stdout.buffer.write(b"tellusererror HaChu sets up only positions with Black to move\n")
                sys.stdout.buffer.flush()
                continue
            line = b"setboard " + fields[1] + b"\n"
        try:
            child.stdin.write(line)
            child.stdin.flush()
        except BrokenPipeError:
            break
    try:
        child.stdin.close()
    except BrokenPipeError:
        pass
    sys.exit(child.wait())


if __name__ == "__main__":
    main()
