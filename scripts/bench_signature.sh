#!/usr/bin/env bash
# Checks the bench signature: the node count `occam bench` ends with must equal the
# one in bench.txt. A change that alters the search or the evaluation updates
# bench.txt in the same commit (and says `Bench: N` in its message); a change meant
# to be non-functional keeps it.
#
#   scripts/bench_signature.sh [occam binary, default target/release/occam]
set -euo pipefail
cd "$(dirname "$0")/.."

exe=${1:-target/release/occam}
[[ -x $exe ]] || { echo "error: '$exe' is not an occam binary (build it: cargo build --release -p occam)" >&2; exit 2; }
expected=$(tr -dc '0-9' <bench.txt)
got=$("$exe" bench | awk '/ nodes .* nps$/ { n = $1 } END { print n }')
if [[ $got != "$expected" ]]; then
  echo "error: bench signature $got, but bench.txt says $expected: a functional change updates bench.txt" >&2
  exit 1
fi
echo "bench signature: $got (bench.txt)"
