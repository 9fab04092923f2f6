#!/usr/bin/env bash
# Frozen vs runtime parameters: bench NPS of both release builds, measured in one run.
#
#   scripts/frozen_nps.sh [runs per build, default 3] [bench depth, default: bench's own]
#
# Builds the runtime engine (target/release/occam) and the frozen one (--features
# frozen, into target/frozen-release so neither replaces the other), runs `occam bench`
# alternately (runtime, frozen, runtime, ...) so machine load drifts hit both alike,
# checks both searched the same number of nodes, and prints the median NPS of each and
# the ratio frozen / runtime.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-3}
depth=${2:-}
frozen_dir=target/frozen-release

cargo build --release --quiet -p occam --bin occam
CARGO_TARGET_DIR=$frozen_dir cargo build --release --quiet -p occam --bin occam --features frozen
runtime_exe=target/release/occam
frozen_exe=$frozen_dir/release/occam

# Last line of bench: "<nodes> nodes <nps> nps".
bench() { "$1" bench $depth | tail -n 1; }

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

runtime_nps=() frozen_nps=()
runtime_nodes="" frozen_nodes=""
for ((i = 1; i <= runs; i++)); do
  read -r n _ nps _ < <(bench "$runtime_exe")
  runtime_nodes=$n; runtime_nps+=("$nps")
  read -r n _ nps _ < <(bench "$frozen_exe")
  frozen_nodes=$n; frozen_nps+=("$nps")
  echo "run $i: runtime ${runtime_nps[-1]} nps, frozen ${frozen_nps[-1]} nps"
done

if [[ "$runtime_nodes" != "$frozen_nodes" ]]; then
  echo "ERROR: node counts differ: runtime $runtime_nodes, frozen $frozen_nodes" >&2
  exit 1
fi

rt=$(printf '%s\n' "${runtime_nps[@]}" | median)
fz=$(printf '%s\n' "${frozen_nps[@]}" | median)
echo "bench nodes: $runtime_nodes (identical in both builds)"
echo "runtime median: $rt nps"
echo "frozen  median: $fz nps"
awk -v f="$fz" -v r="$rt" 'BEGIN { printf "ratio frozen/runtime: %.3f\n", f / r }'
