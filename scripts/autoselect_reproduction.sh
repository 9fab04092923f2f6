#!/usr/bin/env bash
# The full reproduction of fishtest's Autoselect figures by the simulator: the ignored
# test `autoselect_reproduces` (the sweeps of n = 1, 2, 4 and 6 parameters, each
# crossing checked within 10% of fishtest's published figure), run in a release build,
# with what it printed written to docs/data/autoselect-reproduction.txt, headed by the
# commit and date, for docs/SIMULATOR.md to quote. About 9 minutes on two cores.
#
#   scripts/autoselect_reproduction.sh [output file]
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:-docs/data/autoselect-reproduction.txt}
mkdir -p "$(dirname "$out")"
commit=$(git rev-parse --short HEAD)
dirty=$(git status --porcelain --untracked-files=no -- tuner | head -1)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
cargo test --release -p tuner -- --ignored autoselect_reproduces --nocapture >"$log" 2>&1 || status=$?
{
  echo "# cargo test --release -p tuner -- --ignored autoselect_reproduces --nocapture"
  echo "# tuner of $commit${dirty:+ (with uncommitted changes under tuner/)}, $(date -u +%Y-%m-%d), exit status $status"
  grep -v -e '^ *Compiling ' -e '^ *Finished ' -e '^ *Running ' "$log"
} >"$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out (exit status $status)"
exit "$status"
