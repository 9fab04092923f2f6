#!/usr/bin/env bash
# What a distributed server's way of handing out pairs does to the design, in the
# simulator: `batch` pairs at one θ± per handout (an OpenBench client whose runners
# share one perturbation, or a `spsa_pairs_per` above 1) and `in_flight` handouts out
# at once, each applied only after those drawn before it (OpenBench's clients
# reporting in turn), against one pair at a time as `tuner spsa` plays them.
#
#   scripts/handouts_study.sh [tuner binary] [output file]
#
# Budgets: a quarter of the tuning benchmark's (3,000 games, 16 parameters), as a
# distributed tune of it would play, and the main job's (4,000 games, 78 parameters);
# starts 0, 20 and 80 Elo off; the unequal and bowls landscapes; --seed 1. Handouts
# (batch × in flight): 1×1 (serial), 2×2 (two clients of two threads), 8×4, 8×16 and
# 8×64 (dozens of eight-thread clients). The output goes to
# docs/data/handouts-study.txt, headed by the commit and date. About a minute on two
# cores with a release build.
set -euo pipefail
cd "$(dirname "$0")/.."

tuner=${1:-target/release/tuner}
out=${2:-docs/data/handouts-study.txt}
[[ -x $tuner ]] || { echo "error: '$tuner' is not a tuner binary (cargo build --release -p tuner)" >&2; exit 2; }
mkdir -p "$(dirname "$out")"
seeds=${SEEDS:-400}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
{
  echo "# scripts/handouts_study.sh: tuner of $(git rev-parse --short HEAD), $(date -u +%Y-%m-%d), $seeds seeds a row, --seed 1"
  echo "# mean loss left (Elo) by handouts, batch x in flight"
  printf '%-40s %8s %8s %8s %8s %8s\n' "budget, landscape, start" 1x1 2x2 8x4 8x16 8x64
  for budget in "16 3000" "78 4000"; do
    set -- $budget
    for landscape in unequal bowls; do
      for start in 0 20 80; do
        row=$(printf '%-40s' "$1 params, $2 games, $landscape, $start off")
        for handouts in "1 1" "2 2" "8 4" "8 16" "8 64"; do
          read -r batch flight <<<"$handouts"
          "$tuner" simulate --rules design --landscape "$landscape" --params "$1" --games "$2" \
            --start-loss "$start" --seeds "$seeds" --seed 1 --batch "$batch" --in-flight "$flight" >"$tmp"
          loss=$(awk '/^ *[0-9,]+ +[0-9]+ +[0-9.]+%/ { v = $4 } END { print v }' "$tmp")
          row+=$(printf ' %8s' "$loss")
        done
        echo "$row"
      done
    done
  done
} >"$out"
cat "$out"
