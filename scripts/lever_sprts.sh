#!/usr/bin/env bash
# Fixed-node SPRTs of parameter variants against the compiled values, one after the
# other, resumable: a lever built off (its shipped values leave the bench unchanged)
# is judged by the match of its variant file, which turns it on.
#
#   STATE=DIR scripts/lever_sprts.sh VARIANT...   # e.g. qs_see_on lmr_noisy_on
#
# A VARIANT is a name under params/variants/ (with or without .json) or a path. Each
# plays `--a name=VARIANT,FILE --b name=base,compiled` in DIR/VARIANT/games.jsonl and
# goes on from there when run again, so the queue survives a killed session: run the
# same command. The first run copies the tuner (whose compiled engine plays both
# sides) into DIR/bin and declares the conditions in DIR/declared.txt (tuner sha256,
# nodes or clock, SPRT bounds, seed); each variant's file is declared beside its games
# (DIR/VARIANT/declared.txt), so a resume never continues a result under another
# engine, setting or variant. Each finished SPRT adds its final line to DIR/summary.txt.
#
# A long SPRT (a clock on two cores takes days) is played in legs: LEG=SECONDS stops the
# queue cleanly after about that long (the pairs in flight finish), and KEEP=FOLDER
# copies everything in DIR but its binary to FOLDER after each match or leg, a folder
# to commit (under docs/data/) so the result outlives the machine. On another machine,
# the same command with the same KEEP starts from that copy; the missing binary is the
# TUNER given (build the commit named in FOLDER/origin.txt), and the declaration's
# sha256 refuses any other build. Build it in the repository's own checkout (git
# checkout, not a worktree elsewhere): the binary holds its sources' paths, so the same
# commit built under another folder has another sha256.
#
# Knobs (environment):
#   TUNER     the tuner copied by the first run       [target/release/tuner]
#   NODES     nodes per move                          [8000]
#   TC        a clock instead of nodes, e.g. 10+0.1   [unset]
#   ELO0 ELO1 the SPRT's bounds, normalized Elo       [0 5]
#   PAIRS     the SPRT's cap on game pairs            [6000]
#   SEED      seed of the openings                    [1]
#   THREADS   games at a time                         [all cores]
#   LEG       stop after about this many seconds      [unset: play to the end]
#   KEEP      a folder to copy the state to, and from [unset]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/scripts/lib/declared.sh"
source "$ROOT/scripts/lib/knobs.sh"
source "$ROOT/scripts/lib/legs.sh"
fail() { echo "lever_sprts: $*" >&2; exit 2; }
say() { echo "lever_sprts: $*" >&2; }

[[ -n ${STATE:-} ]] || fail "give the queue's folder as STATE=DIR"
(($# > 0)) || fail "name at least one variant (params/variants/NAME.json or a path)"
cd "$ROOT"
TUNER=${TUNER:-$ROOT/target/release/tuner}
NODES=${NODES:-8000}
TC=${TC:-}
ELO0=${ELO0:-0}
ELO1=${ELO1:-5}
PAIRS=${PAIRS:-6000}
SEED=${SEED:-1}
THREADS=${THREADS:-$(nproc)}
LEG=${LEG:-}
KEEP=${KEEP:-}
whole_numbers NODES PAIRS SEED THREADS
[[ -z $LEG ]] || whole_numbers LEG
numbers ELO0 ELO1
clock_or_empty TC

# Every variant is found before the first game, so a typo does not stop the queue later.
files=()
for v in "$@"; do
    f=$v
    [[ -f $f ]] || f=params/variants/${v%.json}.json
    [[ -f $f ]] || fail "no variant '$v': neither a file nor params/variants/${v%.json}.json"
    files+=("$f")
done

bin=$STATE/bin/tuner
limit=(--nodes "$NODES")
[[ -n $TC ]] && limit=(--tc "$TC")

declaration() {
    echo "tuner sha256 $(sha256sum "$bin" | cut -c1-16), $("$bin" --version)"
    echo "${limit[*]}, sprt elo0=$ELO0 elo1=$ELO1 (normalized), at most $PAIRS pairs, seed $SEED"
}

restore_kept
mkdir -p "$STATE/bin"
if [[ ! -x $bin ]]; then
    [[ -x $TUNER ]] || fail "TUNER=$TUNER is not an executable"
    cp "$TUNER" "$bin"
fi
[[ -s $STATE/declared.txt ]] || write_origin "$STATE/origin.txt"
declare_or_check "$STATE/declared.txt" "queue" lever_sprts

for f in "${files[@]}"; do
    name=$(basename "$f" .json)
    dir=$STATE/$name
    mkdir -p "$dir"
    if grep -q "^$name " "$STATE/summary.txt" 2>/dev/null; then
        say "$name: finished before ($STATE/summary.txt)"
        continue
    fi
    # declare_or_check prints `declaration`: from here on, the variant's.
    declaration() { echo "variant $f sha256 $(sha256sum "$f" | cut -c1-16)"; }
    declare_or_check "$dir/declared.txt" "variant" lever_sprts
    resume=()
    [[ -s $dir/games.jsonl ]] && resume=(--resume)
    say "$name: $f against the compiled values (${limit[*]}${resume:+, continued})"
    leg_limit || { say "the leg's $LEG seconds are spent: run the same command to go on"; exit 0; }
    rc=0
    "${leg[@]}" "$bin" match --a "name=$name,$f" --b name=base,compiled "${limit[@]}" --hash 8 \
        --concurrency "$THREADS" --seed "$SEED" --sprt elo0="$ELO0" elo1="$ELO1" \
        --pairs "$PAIRS" --results "$dir/games.jsonl" "${resume[@]}" 2>&1 | tee -a "$dir/log" || rc=$?
    if ((rc != 0)); then
        keep_state
        ((rc == 124)) && { say "$name: the leg is over; run the same command to go on"; exit 0; }
        fail "$name stopped unfinished (exit $rc): run the same command to go on"
    fi
    # The match's final report: its Elo, Games and LLR lines, on one line.
    report=$(for key in Elo Games LLR; do grep "^$key: " "$dir/log" | tail -n 1; done | paste -sd'|')
    echo "$name $(date -u +%F): ${report:-no report}" >>"$STATE/summary.txt"
    keep_state
done
say "done: $STATE/summary.txt"
cat "$STATE/summary.txt"
