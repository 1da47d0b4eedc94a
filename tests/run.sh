#!/usr/bin/env bash
# The whole test suite, on a fresh machine: installs what it needs, then checks format, lints,
# and runs every Rust and Python test. Usage: bash tests/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "Environment: gpsshogi and fairy-stockfish (Debian), .venv with cshogi, shogiarena, pytest"
bash tuning/setup.sh

step "Rust version: rust-version in Cargo.toml, the README, the toolchain and the dependencies agree"
cargo test --profile fast --test toolchain

step "Format and lints"
cargo fmt --check
cargo clippy --all-targets --all-features --profile fast -- -D warnings

step "Rust tests (optimised 'fast' profile)"
cargo test --profile fast

if ls tuning/test_*.py >/dev/null 2>&1; then
    step "Python tests (tuning/)"
    .venv/bin/python -m pytest -q tuning/
fi
