#!/usr/bin/env python3
"""A stand-in engine that speaks just enough CECP for the real XBoard to take kirin's dai
description: it answers `variant dai` with the lines printed by kirin's example
`xboard_dai_description` (file given as the first argument), answers `ping`, and on `go` plays
the next of a scripted list of moves (kirin's XBoard move text, separated by blanks), so a match
of two stubs shows what XBoard accepts and what it sends back. Every line in and out is logged to
the file named by XB_STUB_LOG, when set.

Usage: xboard_stub.py DESCRIPTION_FILE [MOVE ...]
  XB_STUB_FEN replaces the start position of the setup line (to stage a lion's double move).
  Out of force mode the stub answers each `usermove` with its next move, as an engine would.
  XB_STUB_LIFT / XB_STUB_PUT: a line to answer every `lift` / `put` with (`highlight ...`).
"""
import os
import sys

description = open(sys.argv[1]).read().splitlines()
moves = sys.argv[2:]
log = open(os.environ["XB_STUB_LOG"], "a") if os.environ.get("XB_STUB_LOG") else None
fen = os.environ.get("XB_STUB_FEN")
if fen:
    # `setup (TABLE) 15x15+0_PARENT FEN`: the FEN is all after the parent.
    head, size, rest = description[0].partition(" 15x15+0_")
    description[0] = f"{head}{size}{rest.split(' ', 1)[0]} {fen}"


def say(line):
    if log:
        log.write(f"> {line}\n")
        log.flush()
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


forced = False
for line in sys.stdin:
    line = line.strip()
    if log:
        log.write(f"< {line}\n")
        log.flush()
    word = line.split(" ")[0]
    if word == "protover":
        for feature in ['done=0', 'myname="kirin description stub"', 'variants="dai"',
                        'setboard=1', 'usermove=1', 'ping=1', 'colors=0', 'highlight=1', 'sigint=0',
                        'sigterm=0', 'done=1']:
            say(f"feature {feature}")
    elif word == "variant" and line.endswith(" dai"):
        for out in description:
            say(out)
    elif word in ("lift", "put") and os.environ.get(f"XB_STUB_{word.upper()}"):
        # A canned answer to the highlight protocol, to see what XBoard makes of it.
        say(os.environ[f"XB_STUB_{word.upper()}"])
    elif word == "ping":
        say("pong " + line.split(" ")[1])
    elif word in ("force", "result"):
        forced = True
    elif word in ("new", "playother"):
        forced = False
    elif word == "go" or (word == "usermove" and not forced):
        forced = False
        if moves:
            legs = moves.pop(0).split(",")
            # CECP sends a multi-leg move one leg per `move` command, a comma ending all but the last.
            for leg in legs[:-1]:
                say(f"move {leg},")
            say(f"move {legs[-1]}")
        else:
            say("resign")
    elif word == "quit":
        break
