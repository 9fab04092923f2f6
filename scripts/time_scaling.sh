#!/usr/bin/env bash
# How Occam's result against one UCI opponent changes with the time a move: a match at
# each fixed time a move, on the same openings, one after the other. A search that
# falls behind as it grows (values tuned at a few thousand nodes) shows as a score
# that drops from the shortest time to the longest, which a fixed-node self-play test
# cannot see. Fixed times rather than nodes because an opponent need not obey
# `go nodes` (Ethereal 12.75 stops at once).
#
#   OPPONENT=PATH OPPONENT_BUILD="Ethereal 12.75, make popcnt" STATE=DIR \
#     scripts/time_scaling.sh [MS...]        # default: 10 40
#
# Each time plays into DIR/msN.jsonl and goes on from there when run again; a finished
# one is only reported. DIR/summary.txt gets one line per finished time, and the
# opponent's build and sha256 head it.
#
# Knobs (environment):
#   OCCAM     Occam's side, a `tuner match --a` spec   [name=occam,compiled]
#   TUNER     the tuner that plays Occam in-process    [target/release/tuner]
#   PAIRS     game pairs at each time                  [150]
#   SEED      seed of the openings                     [9102]
#   HASH      hash of each engine, MB                  [8]
#   THREADS   games at a time                          [all cores]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/scripts/lib/knobs.sh"
fail() { echo "time_scaling: $*" >&2; exit 2; }

[[ -n ${STATE:-} ]] || fail "give the folder for the results as STATE=DIR"
[[ -x ${OPPONENT:-} ]] || fail "give the opponent's binary as OPPONENT=PATH (an executable UCI engine)"
[[ -n ${OPPONENT_BUILD:-} ]] || fail "name the opponent's build as OPPONENT_BUILD (for example \"Ethereal 12.75, make popcnt\")"
cd "$ROOT"
OCCAM=${OCCAM:-name=occam,compiled}
TUNER=${TUNER:-$ROOT/target/release/tuner}
PAIRS=${PAIRS:-150}
SEED=${SEED:-9102}
HASH=${HASH:-8}
THREADS=${THREADS:-$(nproc)}
whole_numbers PAIRS SEED HASH THREADS
times=("$@")
((${#times[@]})) || times=(10 40)
for ms in "${times[@]}"; do
    [[ $ms =~ ^[1-9][0-9]*$ ]] || fail "each time a move is a positive whole number of milliseconds, got '$ms'"
done
[[ -x $TUNER ]] || cargo build --release --quiet -p tuner

mkdir -p "$STATE"
summary=$STATE/summary.txt
[[ -s $summary ]] || echo "opponent: $OPPONENT_BUILD, sha256 $(sha256sum "$OPPONENT" | cut -c1-16); Occam: $OCCAM, tuner sha256 $(sha256sum "$TUNER" | cut -c1-16); seed $SEED, $PAIRS pairs, hash $HASH MB" > "$summary"
for ms in "${times[@]}"; do
    results=$STATE/ms$ms.jsonl
    resume=()
    [[ -s $results ]] && resume=(--resume)
    "$TUNER" match --a "$OCCAM" --engine "cmd=$OPPONENT" name=opponent option.Threads=1 "option.Hash=$HASH" \
        --movetime "$ms" --pairs "$PAIRS" --concurrency "$THREADS" --seed "$SEED" --hash "$HASH" \
        --results "$results" "${resume[@]}" | tee "$STATE/ms$ms.log"
    line=$(grep -m1 '^Elo:' "$STATE/ms$ms.log" || true)
    games=$(grep -m1 '^Games:' "$STATE/ms$ms.log" || true)
    grep -q "^$ms ms:" "$summary" || echo "$ms ms: $games; $line" >> "$summary"
done
cat "$summary"
