#!/usr/bin/env bash
# The write-back gate in the simulator: how often a tune's gain pairs open the gate
# (their estimate more than a quarter of a standard error above 0), the mean loss left
# with and without it, and the same at other thresholds (the frontier line), from
# starts 0, 5, 20 and 80 Elo off the optimum.
#
#   scripts/gate_study.sh [tuner binary] [output file]
#
# Budgets: the main job's (2,000 pairs, 78 parameters, as params/search.json tunes at
# fixed nodes) and a quarter of the tuning benchmark's (3,000 games, 16 parameters).
# Rule sets: the design, and Occam's rules at Stockfish's TUNE gains (range/20, r_end
# 0.002: the kind of hand-set gains the shipped files carry). One gain pair per SPSA
# pair of the averaging window, as `tuner spsa` plays them by default. Two sets of
# random streams: --seed 1, on which the gate's threshold was chosen, and --seed 2,
# on which it was judged. The output goes to docs/data/gate-study.txt, headed by the
# commit and date. About two minutes on two cores with a release build.
set -euo pipefail
cd "$(dirname "$0")/.."

tuner=${1:-target/release/tuner}
out=${2:-docs/data/gate-study.txt}
[[ -x $tuner ]] || { echo "error: '$tuner' is not a tuner binary (cargo build --release -p tuner)" >&2; exit 2; }
mkdir -p "$(dirname "$out")"
seeds=${SEEDS:-400}
{
  echo "# scripts/gate_study.sh: tuner of $(git rev-parse --short HEAD), $(date -u +%Y-%m-%d), $seeds seeds a row"
  for stream in 1 2; do
  for budget in "78 4000" "16 3000"; do
    set -- $budget
    for landscape in unequal bowls; do
      for rules in design occam; do
        for start in 0 5 20 80; do
          echo
          echo "## --seed $stream --rules $rules --landscape $landscape --params $1 --games $2 --start-loss $start"
          "$tuner" simulate --rules "$rules" --landscape "$landscape" --params "$1" --games "$2" \
            --start-loss "$start" --seeds "$seeds" --gain-every 1 --seed "$stream" |
            grep -e '^ *[0-9,]* *[0-9]* *[0-9.]*%' -e '^gain pairs' -e '^gate'
        done
      done
    done
  done
  done
} >"$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out"
