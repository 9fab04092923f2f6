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

# Runs bench once; prints "<nodes> <wall nps> <cpu nps>". The CPU figure (nodes per
# second of user CPU time) is far less sensitive to other load on the machine.
bench() {
  local out cpu
  out=$(mktemp)
  cpu=$( { TIMEFORMAT=%3U; time "$1" bench $depth >"$out"; } 2>&1 )
  tail -n 1 "$out" | awk -v cpu="$cpu" '{ printf "%d %d %d\n", $1, $3, (cpu > 0 ? $1 / cpu : 0) }'
  rm -f "$out"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

runtime_nps=() frozen_nps=() runtime_cpu=() frozen_cpu=()
runtime_nodes="" frozen_nodes=""
for ((i = 1; i <= runs; i++)); do
  read -r runtime_nodes nps cpu < <(bench "$runtime_exe")
  runtime_nps+=("$nps"); runtime_cpu+=("$cpu")
  read -r frozen_nodes nps cpu < <(bench "$frozen_exe")
  frozen_nps+=("$nps"); frozen_cpu+=("$cpu")
  echo "run $i: runtime ${runtime_nps[-1]} nps (${runtime_cpu[-1]} per CPU s), frozen ${frozen_nps[-1]} nps (${frozen_cpu[-1]} per CPU s)"
done

if [[ "$runtime_nodes" != "$frozen_nodes" ]]; then
  echo "ERROR: node counts differ: runtime $runtime_nodes, frozen $frozen_nodes" >&2
  exit 1
fi

rt=$(printf '%s\n' "${runtime_nps[@]}" | median)
fz=$(printf '%s\n' "${frozen_nps[@]}" | median)
rt_cpu=$(printf '%s\n' "${runtime_cpu[@]}" | median)
fz_cpu=$(printf '%s\n' "${frozen_cpu[@]}" | median)
echo "bench nodes: $runtime_nodes (identical in both builds)"
echo "runtime median: $rt nps, $rt_cpu nodes per CPU second"
echo "frozen  median: $fz nps, $fz_cpu nodes per CPU second"
awk -v f="$fz" -v r="$rt" -v fc="$fz_cpu" -v rc="$rt_cpu" \
  'BEGIN { printf "ratio frozen/runtime: %.3f (wall-clock nps), %.3f (per CPU second)\n", f / r, fc / rc }'
