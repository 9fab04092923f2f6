#!/usr/bin/env bash
# Occam's bench speed against Ethereal's, as a ratio measured in one run.
#
#   scripts/nps_vs_ethereal.sh [runs, default 5] [other occam binary ...]
#
# Runs `occam bench` (target/release/occam, built if missing; OCCAM=path overrides)
# and Ethereal's `bench` interleaved. The opponent is ETHEREAL=path, named by
# ETHEREAL_BUILD (for example "Ethereal 12.75, make popcnt": Ethereal as its author
# builds it, compiled on the machine that measures, -march=native); without ETHEREAL,
# Debian's Ethereal 12.00 package at /usr/games/ethereal-chess, a generic x86-64 build
# about 30% slower than `make popcnt` (skipped when not installed). The output names
# the opponent's build and sha256, so that a ratio says against what. Runs are
# interleaved -- occam, [other binaries,] ethereal, occam, ... -- so drifts
# in machine load hit every engine alike. Extra arguments are further occam binaries
# (e.g. a baseline build) run in the same rotation, each compared with the first.
#
# Prints per run and as medians: wall-clock NPS as each bench reports it, and nodes
# per second of user CPU time, which is far less sensitive to other jobs on a shared
# machine (prefer it there). The spread (min..max) of each series says how noisy the
# run was. Each ratio is given twice: of the medians, and "paired", the median of
# the per-run ratios.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-5}
shift || true
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "error: runs must be a positive integer, got '$runs'" >&2
  exit 2
fi
occam=${OCCAM:-target/release/occam}
ethereal=${ETHEREAL:-/usr/games/ethereal-chess}
if [[ ! -x "$occam" && -z "${OCCAM:-}" ]]; then
  cargo build --release --quiet -p occam --bin occam
fi
engines=("$occam" "$@")
for e in "${engines[@]}"; do
  [[ -x "$e" ]] || { echo "error: '$e' is not an executable occam binary" >&2; exit 2; }
done
have_ethereal=0
[[ -x "$ethereal" ]] && have_ethereal=1
if [[ -n ${ETHEREAL:-} ]]; then
  ethereal_build=${ETHEREAL_BUILD:?set ETHEREAL_BUILD to name the build of $ethereal (e.g. "Ethereal 12.75, make popcnt")}
else
  ethereal_build="Ethereal 12.00, Debian's package build"
fi
if ((have_ethereal)); then
  echo "opponent: $ethereal_build: $ethereal, sha256 $(sha256sum "$ethereal" | cut -d' ' -f1)"
fi

# One bench; prints "<nodes> <wall nps> <nodes per user-CPU second>".
bench_occam() {
  local out cpu
  out=$(mktemp)
  cpu=$( { TIMEFORMAT=%3U; time "$1" bench >"$out"; } 2>&1 )
  tail -n 1 "$out" | awk -v cpu="$cpu" '{ printf "%d %d %d\n", $1, $3, (cpu > 0 ? $1 / cpu : 0) }'
  rm -f "$out"
}
bench_ethereal() {
  local out cpu
  out=$(mktemp)
  cpu=$( { TIMEFORMAT=%3U; time "$ethereal" bench >"$out" 2>&1; } 2>&1 )
  # Ethereal 12.00 ends with `Nodes : N` and `NPS : N`, 12.75 with `OVERALL: N nodes M nps`.
  awk -v cpu="$cpu" '/^Nodes/ { n = $3 } /^NPS/ { s = $3 } /^OVERALL:/ { n = $2; s = $4 } END { printf "%d %d %d\n", n, s, (cpu > 0 ? n / cpu : 0) }' "$out"
  rm -f "$out"
}

# median, min and max of the numbers on stdin
stats() { sort -n | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2); print m, v[1], v[NR] }'; }

declare -A nps cpu nodes
names=()
for i in "${!engines[@]}"; do names+=("occam$i"); done
((have_ethereal)) && names+=(ethereal)
for ((r = 1; r <= runs; r++)); do
  line="run $r:"
  for i in "${!engines[@]}"; do
    read -r n w c < <(bench_occam "${engines[$i]}")
    if [[ -n "${nodes[occam$i]:-}" && "${nodes[occam$i]}" != "$n" ]]; then
      echo "error: ${engines[$i]} bench node count changed between runs (${nodes[occam$i]} vs $n)" >&2
      exit 1
    fi
    nodes[occam$i]=$n; nps[occam$i]+="$w "; cpu[occam$i]+="$c "
    line+=" occam$i $w nps ($c/CPU s)"
  done
  if ((have_ethereal)); then
    read -r n w c < <(bench_ethereal)
    nodes[ethereal]=$n; nps[ethereal]+="$w "; cpu[ethereal]+="$c "
    line+=" ethereal $w nps ($c/CPU s)"
  fi
  echo "$line"
done

declare -A med_nps med_cpu
echo "medians of $runs interleaved runs (min..max in brackets):"
for k in "${names[@]}"; do
  read -r m lo hi < <(tr ' ' '\n' <<<"${nps[$k]}" | grep . | stats)
  read -r mc loc hic < <(tr ' ' '\n' <<<"${cpu[$k]}" | grep . | stats)
  med_nps[$k]=$m; med_cpu[$k]=$mc
  label=$k
  [[ $k == occam* ]] && label="$k (${engines[${k#occam}]})"
  printf '  %-40s nodes %9s  %9s nps [%s..%s]  %9s nodes/CPU-s [%s..%s]\n' \
    "$label" "${nodes[$k]}" "$m" "$lo" "$hi" "$mc" "$loc" "$hic"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }
# The median of the per-run ratios of two series (same run order): the two benches
# of one run ran seconds apart, so a drift of the host's speed between runs, which
# moves both, cancels. Steadier than the ratio of the medians when the host is noisy.
# The ratios go through `stats` in millionths, as the integers it takes.
paired() {
  awk -v a="$1" -v b="$2" 'BEGIN {
    n = split(a, x, " "); split(b, y, " ")
    for (i = 1; i <= n; i++) printf "%d\n", (y[i] > 0 ? 1e6 * x[i] / y[i] : 0)
  }' | stats | awk '{ printf "%.3f", $1 / 1e6 }'
}
if ((have_ethereal)); then
  for i in "${!engines[@]}"; do
    echo "ratio occam$i/ethereal ($ethereal_build): $(ratio "${med_nps[occam$i]}" "${med_nps[ethereal]}") (wall nps), $(ratio "${med_cpu[occam$i]}" "${med_cpu[ethereal]}") (per CPU second); paired: $(paired "${nps[occam$i]}" "${nps[ethereal]}") (wall), $(paired "${cpu[occam$i]}" "${cpu[ethereal]}") (per CPU s)"
  done
else
  echo "ethereal not installed at $ethereal: occam only"
fi
for ((i = 1; i < ${#engines[@]}; i++)); do
  echo "ratio occam0/occam$i: $(ratio "${med_nps[occam0]}" "${med_nps[occam$i]}") (wall nps), $(ratio "${med_cpu[occam0]}" "${med_cpu[occam$i]}") (per CPU second); paired: $(paired "${nps[occam0]}" "${nps[occam$i]}") (wall), $(paired "${cpu[occam0]}" "${cpu[occam$i]}") (per CPU s)"
done
