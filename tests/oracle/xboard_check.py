#!/usr/bin/env python3
"""Checks kirin's dai description against the real XBoard (Debian's 4.9.1) under Xvfb.

Builds the description with `cargo run --example xboard_dai_description`, then runs
`tests/oracle/xboard_stub.py` as XBoard's engine three times and reads XBoard's debug log:
1. the start position: XBoard takes the setup and piece lines and draws the 15x15 board
   (with --screenshot FILE, a picture of it);
2. a match of two scripted stubs from a staged position, with legality testing off and on: a
   lion's double capture sent as two `move` legs, a pawn promotion, a knight promotion, a pass;
3. a move entered with the mouse (xdotool, when installed): XBoard sends `lift`/`put`;
4. the same with the engine marking the target magenta: XBoard makes it a promotion;
5. one promotion of each of the 26 promoting kinds, relayed with legality testing off: each
   must reach the other engine with its `+`.

Needs xboard, xvfb, imagemagick (and xdotool for 3). Exits 1 when a check fails.
Usage: python3 tests/oracle/xboard_check.py [--screenshot docs/xboard-dai-start.png]
         [--description FILE] (a description already printed by the example, to skip the build)
"""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STUB = os.path.join(ROOT, "tests", "oracle", "xboard_stub.py")
XVFB = ["xvfb-run", "-a", "-s", "-screen 0 1600x1400x24"]
failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


def xboard(tmp, name, engines, extra, actions, env=None, legality="false", timeout=120):
    """Runs XBoard with the stub engines; `actions` is shell run once the board is up."""
    log = os.path.join(tmp, name + ".log")
    args = ["/usr/games/xboard", "-fd", tmp, "-variant", "dai", "-debug", "-nameOfDebugFile",
            log, "-testLegality", legality, "-boardSize", "medium",
            # XBoard reads and rewrites a settings file (~/.xboardrc by default), which can move
            # the board between runs: each run gets a fresh one of its own.
            "-settingsFile", os.path.join(tmp, name + ".ini"), "-saveSettingsOnExit", "false"]
    for flag, engine in zip(["-fcp", "-scp"], engines):
        args += [flag, engine]
    quoted = " ".join("'" + a.replace("'", "'\\''") + "'" for a in args + extra)
    script = f"{quoted} & sleep 8; {actions}; kill $! 2>/dev/null; wait"
    subprocess.run(XVFB + ["sh", "-c", script], env={**os.environ, **(env or {})},
                   timeout=timeout, capture_output=True)
    return open(log, errors="replace").read() if os.path.exists(log) else ""


def main():
    shot = sys.argv[sys.argv.index("--screenshot") + 1] if "--screenshot" in sys.argv else None
    tmp = tempfile.mkdtemp(prefix="xboard-dai-")
    if "--description" in sys.argv:
        description = os.path.abspath(sys.argv[sys.argv.index("--description") + 1])
    else:
        description = os.path.join(tmp, "dai.txt")
        with open(description, "w") as out:
            subprocess.run(["cargo", "run", "-q", "--profile", "fast", "--example",
                            "xboard_dai_description"], cwd=ROOT, stdout=out, check=True)
    stub = f"python3 {STUB} {description}"

    # 1. The start position.
    raw = os.path.join(tmp, "start.png")
    log = xboard(tmp, "start", [stub], [], f"sleep 20; import -window root {raw}")
    check("<first : setup (" in log and "15x15+0_chu" in log, "XBoard read the setup line")
    check("recognized 'chu' (-1) as variant dai" in log, "XBoard took chu as dai's parent")
    check("<first : pong 1" in log, "the description arrived before the first ping's answer")
    check("Error" not in log and "Illegal" not in log, "no error or illegal-move line")
    if shot:
        subprocess.run(["convert", raw, "-trim", "+repage", "-colors", "96", shot], check=True)
        print(f"     screenshot in {shot}")

    # 2. Two scripted stubs from a staged position.
    staged = "14k/15/15/2N12/4P10/6p8/7p7/7L!7/15/15/15/15/15/15/K14 w - - 0 1"
    white = f"{stub} h8h9,h9g10 e11e12+ c12d14+ a1a2"
    black = f"{stub} o15o14 o14o13 @@@@ o13o12"
    # With legality testing off (kirin judges) and on (XBoard judges by the piece lines).
    for legality in ["false", "true"]:
        pgn = os.path.join(tmp, f"match-{legality}.pgn")
        log = xboard(tmp, f"match-{legality}", [white, black], ["-mg", "1", "-st", "0:02",
                     "-sgf", pgn, "-popupExitMessage", "false"], "sleep 25",
                     env={"XB_STUB_FEN": staged}, legality=legality)
        # XBoard logs a relayed `usermove X` as `>second: usermove ` then `>second: X`.
        relayed = lambda move: f">second: {move}\n" in log
        print(f"     -testLegality {legality}:")
        check(relayed("h8h9,h9g10"),
              "a lion double move sent as two `move` legs is relayed as `usermove h8h9,h9g10`")
        check(relayed("e11e12+"), "a pawn promotion is relayed with its `+`")
        check(relayed("c12d14+"), "a knight promotion is relayed with its `+`")
        check(">first : usermove @@@@\n" in log,
              "a pass (`@@@@`) is relayed to the other engine as `usermove @@@@`")

    # 3. A move made with the mouse.
    if subprocess.run(["which", "xdotool"], capture_output=True).returncode == 0:
        stub_log = os.path.join(tmp, "mouse-stub.log")
        drag = ("xdotool mousemove 264 469 mousedown 1; sleep 0.5; xdotool mousemove 264 452;"
                " sleep 0.3; xdotool mousemove 264 434; sleep 0.5; xdotool mouseup 1; sleep 3")
        xboard(tmp, "mouse", [f"{stub} h11h10"], [], drag, env={"XB_STUB_LOG": stub_log})
        said = open(stub_log).read() if os.path.exists(stub_log) else ""
        check("< lift h5\n< put h6\n" in said and "< usermove h5h6" in said,
              "dragging h5 to h6 sends `lift h5`, `put h6`, `usermove h5h6`")
        # 4. The engine marks h6 magenta (promotion) in answer to `lift h5`.
        stub_log = os.path.join(tmp, "promotion-stub.log")
        magenta = "highlight " + "/".join("7M7" if rank == 6 else "15" for rank in range(15, 0, -1))
        xboard(tmp, "promotion", [f"{stub} h11h10"], [], drag,
               env={"XB_STUB_LOG": stub_log, "XB_STUB_LIFT": magenta})
        said = open(stub_log).read() if os.path.exists(stub_log) else ""
        check(f"> {magenta}\n" in said and "< usermove h5h6+" in said,
              "a square marked magenta on `lift` makes the dragged move a promotion (`h5h6+`)")

    # 5. One promotion of each promoting kind, from a staged position: sente's promoting kinds
    # on ranks 10 and 12, each stepping forward (diagonally where it has no forward step, the
    # knight jumping) into or within the zone; gote's king shuffles. Under a parent other than
    # chu, XBoard relayed the `+` only for the kinds in its first 11 slots.
    diagonal = "B U T O C' F'".split()
    forward = "P R L I C S G A F E X W M V H D A' X' P'".split()
    rank10, rank12 = diagonal + forward[:9], forward[9:] + ["N"]
    files = "abcdefghijklmno"
    promotions = {}
    for i, kind in enumerate(rank10):
        promotions[kind] = f"{files[i]}10{files[i + (kind in diagonal)]}11+"
    for i, kind in enumerate(rank12):
        promotions[kind] = f"{files[i]}12{files[i + 1]}14+" if kind == "N" else f"{files[i]}12{files[i]}13+"
    row = lambda kinds: "".join(kinds) + str(15 - len(kinds))
    staged = "/".join(["14k", "15", "15", row(rank12), "15", row(rank10)] + ["15"] * 8 + ["14K"])
    white = f"{stub} " + " ".join(promotions[k] for k in rank10 + rank12)
    black = f"{stub} " + " ".join(["o15n15", "n15o15"] * 14)
    log = xboard(tmp, "promotions", [white, black], ["-mg", "1", "-st", "0:02",
                 "-popupExitMessage", "false"], "sleep 40",
                 env={"XB_STUB_FEN": staged + " w - - 0 1"}, timeout=180)
    kept = [k for k in rank10 + rank12 if f">second: {promotions[k]}\n" in log]
    check(len(promotions) == 26 and kept == rank10 + rank12,
          "every promoting kind's promotion reaches the other engine with its `+`"
          f" (kept: {' '.join(kept)})")
    print(f"logs in {tmp}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
