#!/usr/bin/env bash
# The tuner's own benchmark: how much of a known loss does `tuner spsa` win
# back with a fixed budget? This is how a change to the tuner is judged.
#
#   1. detune: a copy of params/search.json (in a temporary directory) with ten search
#      parameters moved by a fixed amount each (the DETUNE table below);
#   2. loss: `tuner match` detuned vs defaults (the repository's params/search.json);
#   3. tune: `tuner spsa` of those ten parameters in the detuned copy, fixed budget;
#   4. recovery: tuned vs detuned and tuned vs defaults, with 95% intervals;
#   5. one summary line: loss, recovered Elo, % recovered, budget in CPU-minutes.
#
# Budget knobs (environment):
#   PAIRS=6000        SPSA game pairs          NODES=1000      nodes per move (tune and matches)
#   THREADS=2         SPSA worker threads      CONCURRENCY=$THREADS   match concurrency
#   MATCH_PAIRS=300   pairs of each match      SEED=1          SPSA seed (MATCH_SEED=SEED+1000:
#                                                              the matches use other openings)
#   R_END=0.01        r_end of the ten detuned parameters; R_END= (empty) keeps the file's
#                     0.002, which is meant for long tunes (tens of thousands of pairs):
#                     its steps are too small to judge within this budget
#   TUNER=            tuner binary [default: target/release/tuner, built first]
#   EXTRA_ARGS=       more game options for every tune and match, e.g. "--max-plies 120"
#   KEEP=1            keep the work directory (files, journal, logs) and print its path
#
# Smoke test (seconds): PAIRS=4 MATCH_PAIRS=2 NODES=300 THREADS=1 scripts/tuning_benchmark.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PAIRS=${PAIRS:-6000}
NODES=${NODES:-1000}
THREADS=${THREADS:-2}
CONCURRENCY=${CONCURRENCY:-$THREADS}
MATCH_PAIRS=${MATCH_PAIRS:-300}
SEED=${SEED:-1}
MATCH_SEED=${MATCH_SEED:-$((SEED + 1000))}
R_END=${R_END-0.01}
EXTRA_ARGS=${EXTRA_ARGS:-}

fail() {
    echo "tuning_benchmark: $*" >&2
    exit 2
}
for knob in PAIRS NODES THREADS CONCURRENCY MATCH_PAIRS; do
    [[ ${!knob} =~ ^[1-9][0-9]*$ ]] || fail "$knob must be a positive integer, got '${!knob}'"
done
for knob in SEED MATCH_SEED; do
    [[ ${!knob} =~ ^[0-9]+$ ]] || fail "$knob must be a non-negative integer, got '${!knob}'"
done
if [[ -n $R_END ]] && ! [[ $R_END =~ ^(0|[1-9][0-9]*)?(\.[0-9]+)?$ && $R_END =~ [1-9] ]]; then
    fail "R_END must be a positive decimal number such as 0.002, got '$R_END'"
fi
command -v python3 >/dev/null || fail "python3 is needed to write the detuned copy"

if [[ -z ${TUNER:-} ]]; then
    (cd "$ROOT" && cargo build --release -q -p tuner) || fail "cargo build --release -p tuner failed"
    TUNER=$ROOT/target/release/tuner
fi
[[ -x $TUNER ]] || fail "no tuner binary at $TUNER"

# The fixed detune: parameter and offset from its value in params/search.json (clamped
# to [min, max]), 6-17 c_end each, all towards pruning and reducing too much and wrong
# SEE values. It costs about 190 Elo at 1000 nodes (-190.1 +/- 27.4 over
# 600 games on 613a770). The earlier table (the other direction for the margins)
# cost ~244 Elo on the search of early 2026-11 but only -22 +/- 25 after the histories
# and king danger made the search more forgiving of wide margins: a loss that small
# makes "% recovered" a ratio of two noises, so the table was made harsher.
DETUNE="rfp_margin:-55 fp_base:-100 fp_depth:-70 lmr_base:+100 lmr_div:-105 \
qs_delta_margin:-200 see_pawn:+100 see_knight:-150 see_rook:+300 see_queen:-300"
NAMES=$(tr ' ' '\n' <<<"$DETUNE" | cut -d: -f1 | paste -sd, -)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/occam-tuning-benchmark.XXXXXX")
if [[ ${KEEP:-} == 1 ]]; then
    echo "tuning_benchmark: work directory $WORK" >&2
else
    trap 'rm -rf "$WORK"' EXIT
fi
DEFAULTS=$ROOT/params/search.json
DETUNED=$WORK/detuned.json
TUNED=$WORK/tuned.json

# Only the `value` (and, with R_END, the `r_end`) of the named entries change; the
# file keeps its one-entry-per-line layout, so the tuner can write values back.
python3 - "$DEFAULTS" "$DETUNED" "$DETUNE" "$R_END" <<'EOF'
import json, re, sys
src, dst, detune, r_end = sys.argv[1:5]
text = open(src).read()
entries = {p["name"]: p for p in json.loads(text)["params"]}
lines = text.split("\n")
for item in detune.split():
    name, offset = item.split(":")
    if name not in entries:
        sys.exit(f"tuning_benchmark: {src} has no parameter {name}")
    p = entries[name]
    new = min(max(p["value"] + int(offset), p["min"]), p["max"])
    hits = [i for i, l in enumerate(lines) if f'"name": "{name}"' in l]
    if len(hits) != 1:
        sys.exit(f"tuning_benchmark: {name} is not on exactly one line of {src}")
    l = re.sub(r'"value": -?\d+', f'"value": {new}', lines[hits[0]], count=1)
    if r_end:
        l = re.sub(r'"r_end": [0-9.eE+-]+', f'"r_end": {r_end}', l, count=1)
    lines[hits[0]] = l
    print(f"  {name}: {p['value']} -> {new} ({(new - p['value']) / p['c_end']:+.1f} c_end)", file=sys.stderr)
open(dst, "w").write("\n".join(lines))
EOF
cp "$DETUNED" "$TUNED"

# shellcheck disable=SC2086 # EXTRA_ARGS is a list of options
GAME_ARGS=(--nodes "$NODES" $EXTRA_ARGS)

# match NAME_A FILE_A NAME_B FILE_B: prints "elo error" of A vs B (95% half-width).
match() {
    local log=$WORK/match-$1-vs-$3.log
    "$TUNER" match --a "name=$1,$2" --b "name=$3,$4" --pairs "$MATCH_PAIRS" \
        --concurrency "$CONCURRENCY" --seed "$MATCH_SEED" "${GAME_ARGS[@]}" >"$log" 2>&1 ||
        { tail -20 "$log" >&2; fail "tuner match $1 vs $3 failed (log above)"; }
    local line
    line=$(grep -m1 '^Elo: ' "$log") || fail "no Elo line in the match log $log"
    awk '{ print $2, $4 }' <<<"$line"
}

echo "tuning_benchmark: detuned $NAMES; matches of $MATCH_PAIRS pairs, tune of $PAIRS pairs, $NODES nodes per move" >&2
read -r LOSS LOSS_ERR < <(match detuned "$DETUNED" defaults "$DEFAULTS")

SPSA_LOG=$WORK/spsa.log
# The tune's CPU time: user + system of this shell's finished children (bash's
# `times`, second line) after the tune minus before it.
# (`times` runs in this shell, not in a $(...) subshell, which has no children yet.)
child_cpu() {
    times >"$WORK/times"
    tail -1 "$WORK/times" | sed 's/[ms]/ /g' | awk '{ print $1 * 60 + $2 + $3 * 60 + $4 }'
}
child_cpu >"$WORK/cpu0"
START=$(date +%s.%N)
# The journal in the work directory, not in the caller's run folder: every benchmark is a
# new run.
"$TUNER" spsa "$TUNED" --journal "$WORK/tuned.spsa.jsonl" --params "$NAMES" --pairs "$PAIRS" \
    --threads "$THREADS" --seed "$SEED" "${GAME_ARGS[@]}" >"$SPSA_LOG" 2>&1 ||
    { tail -20 "$SPSA_LOG" >&2; fail "tuner spsa failed (log above)"; }
END=$(date +%s.%N)
child_cpu >"$WORK/cpu1"
read -r CPU0 <"$WORK/cpu0"
read -r CPU1 <"$WORK/cpu1"

read -r GAIN GAIN_ERR < <(match tuned "$TUNED" detuned "$DETUNED")
read -r NET NET_ERR < <(match tuned "$TUNED" defaults "$DEFAULTS")

awk -v loss="$LOSS" -v loss_err="$LOSS_ERR" -v gain="$GAIN" -v gain_err="$GAIN_ERR" \
    -v net="$NET" -v net_err="$NET_ERR" -v start="$START" -v end="$END" \
    -v cpu0="$CPU0" -v cpu1="$CPU1" -v pairs="$PAIRS" -v nodes="$NODES" \
    -v threads="$THREADS" -v seed="$SEED" -v mpairs="$MATCH_PAIRS" -v r_end="${R_END:-file}" 'BEGIN {
    pct = (-loss > 0) ? sprintf("%.0f%%", 100 * gain / -loss) : "n/a (no loss)"
    printf "tuning benchmark: loss %+.1f ± %.1f Elo (detuned vs defaults); recovered %+.1f ± %.1f Elo (tuned vs detuned) = %s of the loss; tuned vs defaults %+.1f ± %.1f Elo; budget %d pairs at %d nodes, threads %d, seed %d, r_end %s: %.1f CPU-min (%.1f min wall); matches %d pairs each\n",
        loss, loss_err, gain, gain_err, pct, net, net_err, pairs, nodes, threads, seed, r_end,
        (cpu1 - cpu0) / 60, (end - start) / 60, mpairs
}'
