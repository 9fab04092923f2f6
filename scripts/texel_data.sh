#!/usr/bin/env bash
# Texel data in resumable legs, and the fit of the evaluation to it.
#
#   STATE=DIR scripts/texel_data.sh data [SECONDS]   # play (or go on playing) the games
#   STATE=DIR scripts/texel_data.sh fit              # fit params/eval.json -> DIR/fit.json (FIT_FILE)
#   STATE=DIR scripts/texel_data.sh sprt             # the fit against the compiled weights
#
# `data` copies the tuner (whose compiled engine plays the games) into DIR/bin on its
# first run and declares the data in DIR/declared.txt: the tuner's sha256, the nodes
# and the seed (the checkout's commit and bench go to DIR/origin.txt). Later runs play
# that copy and refuse a declaration that differs, so a file grown over many legs and
# machines is one reproducible data set: game i depends only on (SEED, i), and a larger
# GAMES extends it. With SECONDS a leg stops cleanly after about that many seconds (the
# games in flight finish); the same command continues after the last complete game.
# Each leg is logged in DIR/legs.txt.
# The data is too big for git; anyone regenerates it with the same knobs.
#
# `fit` reads what `data` has written so far (a file still being written is read up to
# its last complete game) and fits every evaluation weight from the committed values;
# its report (positions read, distinct, quiet; loss before and after, train and held
# out) goes to DIR/fit.log. `sprt` plays DIR/fit.json against the compiled weights at
# fixed nodes, resumable, results in DIR/sprt.jsonl. Keep a fit only if the match says
# so (docs/texel.md).
#
# Knobs (environment):
#   TUNER     the tuner copied by the first `data` run  [target/release/tuner]
#   GAMES     games the data set holds when done       [90000, about 6M positions]
#   NODES     nodes per move                           [5000]
#   SEED      seed of the openings                     [5101]
#   THREADS   worker threads; not part of the data     [all cores]
#   LAMBDA    weight of the game result in the fit's target ([1]: results only)
#   FIT_PARAMS the weights the fit moves, comma-separated, `prefix_*` allowed (e.g. the
#             groups shipped at 0: space_*,closedness_*); every other weight keeps its
#             committed value  [unset: every weight]
#   FIT_FILE  the parameter file the fit fits: params/eval.json, or params/pknet.json
#             for the pawn-king network (its fit goes to DIR/fit-pknet.json, and `sprt`
#             plays that)                              [params/eval.json]
#   RESTART   1: a network's fit starts from its seeded random network, not from the
#             file's weights (tuner texel --restart; a refit on grown data)  [0]
#   MORE_DATA further position files the fit reads with DIR's own, separated by ':'
#             (e.g. an older set's runs/texel-a/selfplay.bin: data of several engines
#             at once)                                 [unset]
#   EPOCHS    epochs of the fit                        [500]
#   LR        the fit's Adam learning rate (tuner texel --lr)  [0.5]
#   PAIRS     the SPRT's cap on game pairs             [6000]
#   SPRT_NODES nodes per move in the SPRT              [8000]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/scripts/lib/declared.sh"
fail() { echo "texel_data: $*" >&2; exit 2; }
say() { echo "texel_data: $*" >&2; }

[[ -n ${STATE:-} ]] || fail "give the data's folder as STATE=DIR"
MODE=${1:-}
LIMIT=${2:-}
[[ $MODE =~ ^(data|fit|sprt)$ ]] || fail "say what to do: data [SECONDS], fit or sprt (got '${MODE}')"
[[ -z $LIMIT || ($MODE == data && $LIMIT =~ ^[0-9]+$) ]] ||
    fail "SECONDS is a whole number and only for data, got '$LIMIT'"
mkdir -p "$STATE"
cd "$ROOT"
TUNER=${TUNER:-$ROOT/target/release/tuner}
GAMES=${GAMES:-90000}
NODES=${NODES:-5000}
SEED=${SEED:-5101}
THREADS=${THREADS:-$(nproc)}
LAMBDA=${LAMBDA:-1}
FIT_PARAMS=${FIT_PARAMS:-}
EPOCHS=${EPOCHS:-500}
FIT_FILE=${FIT_FILE:-params/eval.json}
LR=${LR:-0.5}
RESTART=${RESTART:-0}
MORE_DATA=${MORE_DATA:-}
PAIRS=${PAIRS:-6000}
SPRT_NODES=${SPRT_NODES:-8000}
for knob in GAMES NODES SEED THREADS EPOCHS PAIRS SPRT_NODES; do
    [[ ${!knob} =~ ^[1-9][0-9]*$ ]] || fail "$knob must be a positive whole number, got '${!knob}'"
done
[[ $LAMBDA =~ ^(0|1|0?\.[0-9]+|1\.0*)$ ]] || fail "LAMBDA must be a number from 0 to 1, got '$LAMBDA'"
[[ $RESTART =~ ^[01]$ ]] || fail "RESTART must be 0 or 1, got '$RESTART'"
[[ $LR =~ ^([0-9]+\.?[0-9]*|\.[0-9]+)$ ]] || fail "LR must be a positive number, got '$LR'"
[[ -f $ROOT/$FIT_FILE || -f $FIT_FILE ]] || fail "FIT_FILE=$FIT_FILE is not a parameter file"
more_data=()
if [[ -n $MORE_DATA ]]; then
    IFS=: read -r -a more_data <<<"$MORE_DATA"
    for f in "${more_data[@]}"; do
        [[ -s $f ]] || fail "MORE_DATA names '$f', not a file with positions"
    done
fi
[[ -z $FIT_PARAMS || $FIT_PARAMS =~ ^[a-z0-9_*]+(,[a-z0-9_*]+)*$ ]] ||
    fail "FIT_PARAMS must be parameter names or prefix_* patterns separated by commas, got '$FIT_PARAMS'"

data=$STATE/selfplay.bin
# The fit of eval.json keeps its old name; another file's fit is named after it.
fitted=$STATE/fit.json
[[ $(basename "$FIT_FILE") == eval.json ]] || fitted=$STATE/fit-$(basename "$FIT_FILE")
declared=$STATE/declared.txt
bin=$STATE/bin/tuner

declaration() {
    echo "tuner sha256 $(sha256sum "$bin" | cut -c1-16), $("$bin" --version)"
    echo "nodes $NODES seed $SEED, openings generated from the seed"
}

generate() {
    if [[ ! -s $declared ]]; then
        [[ -x $TUNER ]] || fail "TUNER=$TUNER is not an executable"
        mkdir -p "$STATE/bin"
        cp "$TUNER" "$bin"
        # Where the copy came from: the engine that plays is the checkout's at this commit.
        write_origin "$STATE/origin.txt"
    fi
    declare_or_check "$declared" "data set" texel_data
    local args=(datagen -o "$data" --games "$GAMES" --nodes "$NODES" --seed "$SEED" --threads "$THREADS")
    local started rc=0 log_before
    started=$(date -u +%FT%TZ)
    log_before=$(stat -c %s "$STATE/log" 2>/dev/null || echo 0)
    if [[ -n $LIMIT ]]; then
        # INT is Ctrl-C: the games in flight finish and are written; KILL, two minutes
        # later, is the backstop (the file keeps every complete game). --foreground
        # signals the tuner alone: otherwise timeout signals its process group as well,
        # and a second INT makes the tuner quit without finishing its games.
        timeout --foreground -s INT -k 120 "$LIMIT" "$bin" "${args[@]}" 2>&1 | tee -a "$STATE/log" || rc=$?
    else
        "$bin" "${args[@]}" 2>&1 | tee -a "$STATE/log" || rc=$?
    fi
    local holds
    # What this leg's own lines say (an earlier leg's figure would be stale).
    holds=$(tail -c +$((log_before + 1)) "$STATE/log" | grep -o 'holds [0-9]* games, [0-9]* positions' | tail -n 1 || true)
    echo "$started to $(date -u +%FT%TZ): $THREADS threads on $(nproc) cores, exit $rc, ${holds:-no count reported, the next leg prints it first}" >>"$STATE/legs.txt"
    say "the data ${holds:-gave no count}; $GAMES games asked (legs: $STATE/legs.txt)"
}

fit() {
    [[ -s $data ]] || fail "no data in $data yet: run data first"
    local extra=()
    [[ -n $FIT_PARAMS ]] && extra=(--params "$FIT_PARAMS")
    [[ $RESTART == 1 ]] && extra+=(--restart)
    "$TUNER" texel "$data" "${more_data[@]}" "$FIT_FILE" -o "$fitted" --reg 0 "${extra[@]}" --lr "$LR" \
        --lambda "$LAMBDA" --epochs "$EPOCHS" --threads "$THREADS" 2>&1 | tee "${fitted%.json}.log"
}

sprt() {
    [[ -s $fitted ]] || fail "no $fitted yet: run fit first"
    local resume=() games=${fitted%.json}
    games=$STATE/sprt${games#"$STATE/fit"}.jsonl
    [[ -s $games ]] && resume=(--resume)
    "$TUNER" match --a "name=fit,$fitted" --b name=committed,compiled \
        --nodes "$SPRT_NODES" --hash 8 --concurrency "$THREADS" --sprt elo0=0 elo1=5 \
        --pairs "$PAIRS" --results "$games" "${resume[@]}" 2>&1 | tee -a "${games%.jsonl}.log"
}

case $MODE in
data) generate ;;
fit) fit ;;
sprt) sprt ;;
esac
