#!/usr/bin/env bash
# SPSA tunes of parameter groups, one after the other, each judged by an SPRT of its
# result against the values it started from; resumable.
#
#   STATE=DIR scripts/group_tunes.sh GROUP...   # e.g. 'king_danger_*' 'pawn_passed_*'
#   TC=5+0.05 STATE=DIR scripts/group_tunes.sh 'tm_*'
#
# A GROUP is a `tuner spsa --params` pattern (`prefix_*`, or names separated by
# commas), optionally after a label that names its folder (`LABEL=PATTERN`, e.g.
# `king_danger=king_danger_weight_*,king_danger_base`; without one the pattern does).
# The first run copies the tuner (whose compiled engine plays every game) to DIR/bin
# and the parameter files to DIR/start, and declares the conditions in
# DIR/declared.txt: every group starts from those files, whatever the checkout holds
# later. Each group tunes its own copy (DIR/GROUP/params/*.json, only the group's
# values move), the tuner's write-back gate left out (`--force-write`: the SPRT judges),
# then plays that copy against the start at fixed nodes (or TC) until the SPRT stops.
# Run the same command again after a kill: a tune continues from its journal, an SPRT
# from its games. Each finished group adds its final line to DIR/summary.txt; a group
# whose SPRT accepts H1 is one to merge into params/ (its values are in
# DIR/GROUP/params/), with its tune and match in the commit message.
#
# A tune at long searches (100,000 nodes or a clock: hours on two cores) is played in
# legs: LEG=SECONDS stops the queue cleanly after about that long (the pairs in flight
# finish, the journal stays whole), and KEEP=FOLDER copies everything in DIR but its
# binary to FOLDER after each tune, match or leg, a folder to commit (under docs/data/).
# On another machine the same command with the same KEEP starts from that copy; the
# missing binary is the TUNER given (build the commit named in FOLDER/origin.txt), and
# the declaration's sha256 refuses any other build.
#
# Knobs (environment):
#   TUNER     the tuner copied by the first run            [target/release/tuner]
#   PAIRS     SPSA pairs of each tune                      [3000]
#   R_END     the tunes' learning rate at the end (--r-end) [0.01]
#   NODES     nodes per move, tunes and SPRTs              [8000]
#   TC        a clock instead of nodes, e.g. 5+0.05        [unset]
#   ELO0 ELO1 the SPRT's bounds, normalized Elo            [0 5]
#   SPRT_PAIRS the SPRT's cap on game pairs                [6000]
#   SEED      seed of the tunes; the SPRTs play SEED + 1   [1]
#   THREADS   games at a time                              [all cores]
#   LEG       stop after about this many seconds           [unset: play to the end]
#   KEEP      a folder to copy the state to, and from      [unset]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/scripts/lib/declared.sh"
source "$ROOT/scripts/lib/knobs.sh"
source "$ROOT/scripts/lib/legs.sh"
fail() { echo "group_tunes: $*" >&2; exit 2; }
say() { echo "group_tunes: $*" >&2; }

[[ -n ${STATE:-} ]] || fail "give the queue's folder as STATE=DIR"
(($# > 0)) || fail "name at least one group, e.g. 'king_danger_*'"
cd "$ROOT"
TUNER=${TUNER:-$ROOT/target/release/tuner}
PAIRS=${PAIRS:-3000}
R_END=${R_END:-0.01}
NODES=${NODES:-8000}
TC=${TC:-}
ELO0=${ELO0:-0}
ELO1=${ELO1:-5}
SPRT_PAIRS=${SPRT_PAIRS:-6000}
SEED=${SEED:-1}
THREADS=${THREADS:-$(nproc)}
LEG=${LEG:-}
KEEP=${KEEP:-}
whole_numbers PAIRS NODES SPRT_PAIRS SEED THREADS
[[ -z $LEG ]] || whole_numbers LEG
numbers ELO0 ELO1 R_END
clock_or_empty TC
for group in "$@"; do
    [[ $group =~ ^([a-z0-9_]+=)?[a-z0-9_*,]+$ ]] ||
        fail "a group is [LABEL=]PATTERN, PATTERN a --params pattern of parameter names, '*' and ',', got '$group'"
done

bin=$STATE/bin/tuner
limit=(--nodes "$NODES")
[[ -n $TC ]] && limit=(--tc "$TC")

declaration() {
    echo "tuner sha256 $(sha256sum "$bin" | cut -c1-16), $("$bin" --version)"
    for f in "$STATE"/start/*.json; do echo "start $(basename "$f") sha256 $(sha256sum "$f" | cut -c1-16)"; done
    echo "${limit[*]}, tunes of $PAIRS pairs at r_end $R_END (seed $SEED)," \
        "sprt elo0=$ELO0 elo1=$ELO1 (normalized), at most $SPRT_PAIRS pairs (seed $((SEED + 1)))"
}

restore_kept
mkdir -p "$STATE/bin" "$STATE/start"
if [[ ! -x $bin ]]; then
    [[ -x $TUNER ]] || fail "TUNER=$TUNER is not an executable"
    cp "$TUNER" "$bin"
fi
if [[ ! -s $STATE/declared.txt ]]; then
    cp params/eval.json params/search.json params/schema.json "$STATE/start/"
    write_origin "$STATE/origin.txt"
fi
declare_or_check "$STATE/declared.txt" "queue" group_tunes
start=$STATE/start

# Runs a tune or match under the leg's limit. At the leg's end it keeps the state and
# stops the queue (exit 0); on a failure it keeps the state and names the step. After
# a step that finishes, the caller records that and keeps the state.
step() {
    local what=$1 log=$2 rc=0
    shift 2
    leg_limit || { say "the leg's $LEG seconds are spent: run the same command to go on"; exit 0; }
    "${leg[@]}" "$@" 2>&1 | tee -a "$log" || rc=$?
    ((rc == 0)) && return 0
    keep_state
    ((rc == 124)) && { say "$what: the leg is over; run the same command to go on"; exit 0; }
    fail "$what stopped unfinished (exit $rc): run the same command to go on"
}

for group in "$@"; do
    if [[ $group == *=* ]]; then
        name=${group%%=*}
        group=${group#*=}
    else
        name=${group//\*/}
        name=${name//,/+}
        name=${name%_}
    fi
    dir=$STATE/$name
    if grep -q "^$name " "$STATE/summary.txt" 2>/dev/null; then
        say "$name: finished before ($STATE/summary.txt)"
        continue
    fi
    if [[ ! -d $dir/params ]]; then
        mkdir -p "$dir"
        cp -r "$start" "$dir/params.tmp" && mv "$dir/params.tmp" "$dir/params"
    fi
    files=("$dir/params/eval.json" "$dir/params/search.json")
    if [[ ! -s $dir/tuned.txt ]]; then
        resume=()
        [[ -s $dir/spsa.jsonl ]] && resume=(--resume)
        say "$name: tune of $PAIRS pairs (${limit[*]}${resume:+, continued})"
        step "$name's tune" "$dir/tune.log" \
            "$bin" spsa "${files[@]}" --params "$group" --pairs "$PAIRS" --r-end "$R_END" \
            "${limit[@]}" --seed "$SEED" --threads "$THREADS" --force-write \
            --journal "$dir/spsa.jsonl" "${resume[@]}"
        date -u +%F >"$dir/tuned.txt"
        keep_state
    fi
    resume=()
    [[ -s $dir/sprt.jsonl ]] && resume=(--resume)
    say "$name: the tuned values against the start (${limit[*]}${resume:+, continued})"
    step "$name's match" "$dir/sprt.log" \
        "$bin" match --a "name=$name,$dir/params/eval.json,$dir/params/search.json" \
        --b "name=start,$start/eval.json,$start/search.json" "${limit[@]}" --hash 8 \
        --concurrency "$THREADS" --seed $((SEED + 1)) --sprt elo0="$ELO0" elo1="$ELO1" \
        --pairs "$SPRT_PAIRS" --results "$dir/sprt.jsonl" "${resume[@]}"
    report=$(for key in Elo Games LLR; do grep "^$key: " "$dir/sprt.log" | tail -n 1; done | paste -sd'|')
    echo "$name $(date -u +%F): ${report:-no report}" >>"$STATE/summary.txt"
    keep_state
done
say "done: $STATE/summary.txt"
cat "$STATE/summary.txt"
