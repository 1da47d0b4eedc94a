#!/usr/bin/env bash
# Perft speed of kirin beside a C++ reference, run alternately in one session so that both
# see the same load: cshogi's rules core (Apery's move generator), built from cshogi's source
# release with tuning/perft_ref.cpp, which counts the way `kirin bench perft` counts.
#
#   bash tuning/perft_ref.sh [ROUNDS] [KIRIN_BINARY]
#
# The source is fetched from PyPI into $KIRIN_DATA/ref (default ~/kirin-data/ref) and used
# there; it is GPL and never enters the repository. ROUNDS (default 3) alternations of
# `perft_ref` and `kirin bench perft`; the binary defaults to target/release/kirin.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
kirin=${2:-target/release/kirin}
version=1.1.0
data=${KIRIN_DATA:-$HOME/kirin-data}/ref
src=$data/cshogi-$version/src
mkdir -p "$data"
if [ ! -d "$src" ]; then
    # The package index (PEP 503) names the file with its sha256, which is checked.
    link=$(curl -sf https://pypi.org/simple/cshogi/ |
        grep -o "https://[^\"]*/cshogi-$version\.tar\.gz#sha256=[0-9a-f]*" | head -n 1)
    [ -n "$link" ] || { echo "perft_ref.sh: cshogi $version not found on PyPI" >&2; exit 1; }
    curl -sf -o "$data/cshogi-$version.tar.gz" "${link%%#*}"
    echo "${link##*=}  $data/cshogi-$version.tar.gz" | sha256sum -c --quiet
    tar -xzf "$data/cshogi-$version.tar.gz" -C "$data"
fi
bin=$data/perft_ref-$version
if [ ! -x "$bin" ] || [ tuning/perft_ref.cpp -nt "$bin" ]; then
    echo "building $bin" >&2
    # The flags of cshogi's own build (setup.py) plus BMI2, which the machines have.
    g++ -std=c++17 -O3 -DNDEBUG -msse4.2 -mavx2 -mbmi2 -I"$src" tuning/perft_ref.cpp \
        "$src"/{bitboard,common,generateMoves,hand,init,move,mt64bit,position,square,usi,book,search}.cpp \
        -o "$bin" -lpthread
fi
[ -x "$kirin" ] || cargo build --release
for _ in $(seq "$rounds"); do
    "$bin" | sed 's/^/cshogi /'
    "$kirin" bench perft | sed 's/^/kirin  /'
done
