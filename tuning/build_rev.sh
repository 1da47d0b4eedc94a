#!/usr/bin/env bash
# Builds kirin at a git revision into tuning/out/kirin-REV/kirin, for matches against older
# versions (match.py --opponent kirin@REV calls this when the binary is missing).
#
# Usage: bash tuning/build_rev.sh REV [REPO]
#   REV   any git revision (commit, branch, tag, HEAD~3); the folder is named after REV as given
#         (characters other than [A-Za-z0-9._-] become '_'), and a file 'commit' records the hash.
#   REPO  the repository to take REV from (default: this one; e.g. ../main).
#
# The source is exported with `git archive` (like a throw-away worktree, but leaving no worktree
# administration behind) into tuning/out/src-REV and built with cargo build --release; all
# revisions share one target folder (tuning/out/target) so dependencies are compiled once.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
rev="${1:?usage: build_rev.sh REV [REPO]}"
repo="${2:-$here}"
name="$(printf '%s' "$rev" | tr -c 'A-Za-z0-9._-' '_')"
commit="$(git -C "$repo" rev-parse --verify "$rev^{commit}")"
out="$here/tuning/out"
dest="$out/kirin-$name"
if [ -x "$dest/kirin" ] && [ "$(cat "$dest/commit" 2>/dev/null)" = "$commit" ]; then
    echo "$dest/kirin is up to date ($commit)" >&2
    exit 0
fi
src="$out/src-$name"
rm -rf "$src"
mkdir -p "$src" "$dest"
# -m: the files get the time of extraction, not of the commit; with the commit's older times cargo
# would take the last revision built in the shared target folder as up to date.
git -C "$repo" archive "$commit" | tar -x -m -C "$src"
CARGO_TARGET_DIR="$out/target" cargo build --release --manifest-path "$src/Cargo.toml" --bin kirin >&2
cp "$out/target/release/kirin" "$dest/kirin.tmp"
mv "$dest/kirin.tmp" "$dest/kirin"
echo "$commit" > "$dest/commit"
rm -rf "$src"  # the exported tree is only needed for the build (and would confuse pytest)
echo "$dest/kirin ($commit)" >&2
