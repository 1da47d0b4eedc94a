#!/usr/bin/env bash
# Installs what the match harness needs: the opponents (Debian packages gpsshogi, fairy-stockfish
# and hachu, /usr/games/gpsusi, /usr/games/fairy-stockfish and /usr/games/hachu, the dai shogi
# opponent of tuning/dai_match.py), openssh-server (/usr/sbin/sshd, which tuning/test_arena_hosts.py
# starts on a loopback port of its own as ShogiArena's SSH hosts) and a Python virtual
# environment at the repo root (.venv) with cshogi, shogiarena (pinned), uv (pinned: ShogiArena
# builds and installs its SSH workers with it), pytest and pyffish (Fairy-Stockfish's
# rules as a library, the reference for yari shogi's moves in tests/yari.rs and the referee of
# tuning/yari_match.py), and the yari shogi opponent: Fairy-Stockfish compiled to WebAssembly (npm
# package fairy-stockfish-nnue.wasm, version pinned in tuning/package-lock.json, installed in
# tuning/node_modules, run with node), and tsshogi for the record tests (tests/oracle/node_modules).
# Idempotent: skips what is already there.  Usage: bash tuning/setup.sh
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
[ -x /usr/games/gpsusi ] || missing+=(gpsshogi)
[ -x /usr/games/fairy-stockfish ] || missing+=(fairy-stockfish)
[ -x /usr/games/hachu ] || missing+=(hachu)
command -v npm >/dev/null || missing+=(nodejs npm)
# The real XBoard under a virtual screen, for the dai description checks and XBoard-refereed games
# (tests/oracle/xboard_check.py, tuning/xboard_match.py): screenshots with ImageMagick, mouse
# moves with xdotool.
[ -x /usr/games/xboard ] || missing+=(xboard)
command -v xvfb-run >/dev/null || missing+=(xvfb)
command -v import >/dev/null || missing+=(imagemagick)
command -v xdotool >/dev/null || missing+=(xdotool)
# sshd for the two-host ShogiArena test (tuning/test_arena_hosts.py).
[ -x /usr/sbin/sshd ] || missing+=(openssh-server)
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    echo "installing ${missing[*]} with apt-get" >&2
    $sudo apt-get update -q
    # No service may start on install (openssh-server's would take port 22): where no policy
    # forbids it yet, one does for the length of the install.
    policy=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        policy=/usr/sbin/policy-rc.d
        printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
        $sudo chmod 755 "$policy"
    fi
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
    [ -z "$policy" ] || $sudo rm -f "$policy"
fi

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
# shogiarena is pinned, as the npm opponent is: what its runner judges right and wrong is
# measured on this version, and a new one must be measured again before it is trusted.
.venv/bin/python -m pip install --quiet --disable-pip-version-check cshogi "shogiarena==1.3.2" "uv==0.13.9" pytest pyffish
.venv/bin/python -c "import cshogi, shogiarena, pyffish; print('cshogi, shogiarena and pyffish importable')"

# The yari shogi opponent, with node and npm (installed above when missing).
if [ ! -f tuning/node_modules/fairy-stockfish-nnue.wasm/uci.js ]; then
    command -v npm >/dev/null || { echo "npm not found: install nodejs and npm, then rerun" >&2; exit 1; }
    npm ci --prefix tuning --no-audit --no-fund
fi
# The test suite's record oracle: tsshogi, ShogiHome's record library (pinned in
# tests/oracle/package-lock.json), which tests/tsshogi.rs runs with node.
if [ ! -f tests/oracle/node_modules/tsshogi/package.json ]; then
    npm ci --prefix tests/oracle --no-audit --no-fund
fi
echo "ready: .venv/bin/python tuning/match.py --help, .venv/bin/python tuning/yari_match.py --help," \
    ".venv/bin/python tuning/dai_match.py --help" >&2
