#!/usr/bin/env bash
# Instructions executed per search node of `occam bench`, counted by valgrind's
# cachegrind: independent of other load on the machine, so it separates changes of
# 1-2% that wall-clock or CPU-time NPS on a busy shared machine cannot. It counts
# instructions, not time (cache misses and branch mispredictions are not in it), so
# pair it with scripts/nps_vs_ethereal.sh.
#
#   scripts/instructions_per_node.sh [bench depth, default 10] occam-binary...
#
# Prints per binary: nodes, instructions, instructions per node, and the ratio to
# the first binary. Depth 10 takes about 10 s per binary.
set -euo pipefail

depth=${1:-10}
shift || true
if ! [[ "$depth" =~ ^[1-9][0-9]*$ ]]; then
  echo "error: bench depth must be a positive integer, got '$depth'" >&2
  exit 2
fi
if (($# == 0)); then
  echo "usage: $0 [bench depth] occam-binary..." >&2
  exit 2
fi
command -v valgrind >/dev/null || { echo "error: valgrind is not installed" >&2; exit 2; }

first=""
for exe in "$@"; do
  [[ -x "$exe" ]] || { echo "error: '$exe' is not an executable occam binary" >&2; exit 2; }
  out=$(valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$exe" bench "$depth" 2>&1)
  nodes=$(awk '/ nodes .* nps$/ { n = $1 } END { print n }' <<<"$out")
  instr=$(awk '/I +refs:/ { gsub(",", "", $4); print $4 }' <<<"$out")
  per=$(awk -v i="$instr" -v n="$nodes" 'BEGIN { printf "%.1f", i / n }')
  [[ -z "$first" ]] && first=$per
  ratio=$(awk -v a="$per" -v b="$first" 'BEGIN { printf "%.3f", a / b }')
  printf '%-40s %9s nodes %14s instructions %8s per node (%s of the first)\n' "$exe" "$nodes" "$instr" "$per" "$ratio"
done
