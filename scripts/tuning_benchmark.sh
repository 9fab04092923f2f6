#!/usr/bin/env bash
# The tuner's benchmark: detune 16 search parameters of a pinned engine, then see how
# much of the loss `tuner spsa` wins back, Occam's design against fishtest's rules.
# The protocol, its cost and its knobs: docs/tuning-benchmark.md.
#
#   STATE=DIR scripts/tuning_benchmark.sh [STEP]
#
# STEP (default `all`: engine, loss, every seed, report):
#   engine               the pinned engine in STATE, the detune and its table
#   loss                 the match detuned vs the pinned defaults
#   seed N [PART]        seed N's legs; PART is one of
#                          design  the design's tune (BUDGET/4 games) and its recovery match
#                          grid    fishtest's tunes (BUDGET games each) and the selection
#                          h2h     the design's result against the best grid point
#                          deep    the same two results at H2H_DEEP_NODES per move
#                          gain    the design's tune again with its gain pairs, and the
#                                  match that verifies the gain it printed
#                          full    the design at fishtest's budget (BUDGET games) and its
#                                  recovery match
#                          ob      the design's budget on a local OpenBench instance: the
#                                  design's gains and OpenBench's own schedule, their
#                                  recoveries, and a head-to-head with the design (not
#                                  part of `all`; see step_ob)
#                        (default: all six)
#   report               the markdown table of what is done so far
#
# Every tune and match has its own files under STATE; a leg whose result exists is
# skipped and an interrupted one continues, so after a kill, a Ctrl-C or `timeout` the
# same command goes on where it stopped. The protocol's knobs are recorded in
# STATE/knobs.txt by the first run; a later run takes them from there and refuses a
# different value.
#
# Knobs of the protocol (environment): ENGINE_REV ENGINE_BENCH NODES BUDGET SEEDS GRID
#   DETUNED_PARAMS DETUNE_SEED DETUNE_MIN DETUNE_MAX LOSS_PAIRS SELECT_PAIRS H2H_PAIRS
#   H2H_DEEP_NODES H2H_DEEP_PAIRS OPENING_SEED FISHTEST_ARGS EXTRA_ARGS (defaults below;
#   DETUNED_PARAMS: the names of the pinned engine's integer parameters to detune, search
#   or evaluation, separated by spaces);
# of this run only: STATE (required), THREADS (default: all cores), ENGINE (an occam
#   binary whose bench must be ENGINE_BENCH; default: built at ENGINE_REV), TUNER (default:
#   this tree's target/release/tuner, built first).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)

# The pinned engine: the commit the benchmark plays, and its `occam bench` node count.
PINNED_REV=793d414a03a4a58fd3523f0fa62eae973182b0e7
PINNED_BENCH=2642500

# The parameters the first states detuned (the DETUNED_PARAMS knob's default): margins,
# reductions and SEE values whose moves cost Elo at 1000 nodes.
FIRST_DETUNED_PARAMS="rfp_margin fp_base fp_depth lmr_base lmr_div qs_delta_margin see_knight \
see_bishop see_rook see_queen nmp_eval_div razor_base lmp_base probcut_margin \
hist_bonus_mult seeprune_quiet_margin"

fail() {
    echo "tuning_benchmark: $*" >&2
    exit 2
}
say() { echo "tuning_benchmark: $*" >&2; }

# --- the knobs ----------------------------------------------------------------------

KNOBS=(ENGINE_REV ENGINE_BENCH NODES BUDGET SEEDS GRID DETUNED_PARAMS DETUNE_SEED DETUNE_MIN
    DETUNE_MAX LOSS_PAIRS SELECT_PAIRS H2H_PAIRS H2H_DEEP_NODES H2H_DEEP_PAIRS OPENING_SEED
    FISHTEST_ARGS EXTRA_ARGS)
declare -A DEFAULT=(
    [ENGINE_REV]=$PINNED_REV [ENGINE_BENCH]=$PINNED_BENCH [NODES]=1000 [BUDGET]=12000
    [SEEDS]="1 2 3 4 5"
    [GRID]="0.0005:0.5 0.0005:1 0.0005:2 0.001:0.5 0.001:1 0.001:2 0.002:0.5 0.002:1 0.002:2 0.004:0.5 0.004:1 0.004:2"
    [DETUNED_PARAMS]=$FIRST_DETUNED_PARAMS [DETUNE_SEED]=1 [DETUNE_MIN]=4 [DETUNE_MAX]=10
    [LOSS_PAIRS]=2000 [SELECT_PAIRS]=500 [H2H_PAIRS]=8000 [H2H_DEEP_NODES]=8000
    [H2H_DEEP_PAIRS]=2000 [OPENING_SEED]=1000
    [FISHTEST_ARGS]="--rules fishtest" [EXTRA_ARGS]=""
)

[[ -n ${STATE:-} ]] || fail "STATE=DIR is required: the folder that keeps the benchmark's files (a new one, or the one of a run to continue)"
mkdir -p "$STATE" || fail "cannot create STATE=$STATE"
STATE=$(cd "$STATE" && pwd)
KNOBS_FILE=$STATE/knobs.txt
command -v python3 >/dev/null || fail "python3 is needed (parameter files and the report)"
command -v setsid >/dev/null || fail "setsid (util-linux) is needed: each tuner runs in a session of its own"

# A commit given by another name is recorded as its hash.
if [[ -n ${ENGINE_REV:-} && ! $ENGINE_REV =~ ^[0-9a-f]{40}$ ]]; then
    ENGINE_REV=$(git -C "$ROOT" rev-parse --verify -q "$ENGINE_REV^{commit}" 2>/dev/null) ||
        fail "ENGINE_REV '$ENGINE_REV' is not a commit of this repository"
fi
# The recorded value wins; a knob given that differs from it is an error, so a resume
# cannot change the protocol halfway. SEEDS and GRID alone may grow (list_extends).
declare -A RECORDED=()
GREW=()
# More seeds, or more grid points, may be added to a state: SEEDS (or GRID) given as
# the recorded list and more (in the same order, new ones after them) extends the
# protocol without changing a leg. A search for fishtest's best point adds points.
list_extends() { # RECORDED GIVEN
    local -a old=($1) new=($2)
    ((${#new[@]} > ${#old[@]})) || return 1
    local i
    for i in "${!old[@]}"; do [[ ${old[i]} == "${new[i]}" ]] || return 1; done
}
if [[ -f $KNOBS_FILE ]]; then
    while IFS= read -r line; do
        [[ $line == *=* && $line != \#* ]] || continue
        RECORDED[${line%%=*}]=${line#*=}
    done <"$KNOBS_FILE"
    # States begun before DETUNED_PARAMS was a knob detuned the first states' list; those
    # begun before the deep head-to-head get its defaults.
    [[ -v RECORDED[DETUNED_PARAMS] ]] || RECORDED[DETUNED_PARAMS]=$FIRST_DETUNED_PARAMS
    for knob in H2H_DEEP_NODES H2H_DEEP_PAIRS; do
        [[ -v RECORDED[$knob] ]] || RECORDED[$knob]=${DEFAULT[$knob]}
    done
fi
for knob in "${KNOBS[@]}"; do
    if [[ -f $KNOBS_FILE ]]; then
        [[ -v RECORDED[$knob] ]] || fail "$KNOBS_FILE has no $knob: it was not written by this script"
        if [[ ($knob == SEEDS || $knob == GRID) && -v $knob ]] &&
            list_extends "${RECORDED[$knob]}" "${!knob}"; then
            RECORDED[$knob]=${!knob}
            GREW+=("$knob")
        elif [[ -v $knob && ${!knob} != "${RECORDED[$knob]}" ]]; then
            fail "$knob='${!knob}', but $STATE was started with $knob='${RECORDED[$knob]}': leave $knob out to continue it, or use another STATE"
        fi
        printf -v "$knob" '%s' "${RECORDED[$knob]}"
    elif [[ ! -v $knob ]]; then
        printf -v "$knob" '%s' "${DEFAULT[$knob]}"
    fi
done

for knob in NODES BUDGET LOSS_PAIRS SELECT_PAIRS H2H_PAIRS H2H_DEEP_NODES H2H_DEEP_PAIRS ENGINE_BENCH; do
    [[ ${!knob} =~ ^[1-9][0-9]*$ ]] || fail "$knob must be a positive integer, got '${!knob}'"
done
for knob in DETUNE_SEED OPENING_SEED; do
    [[ ${!knob} =~ ^[0-9]+$ ]] || fail "$knob must be a non-negative integer, got '${!knob}'"
done
for knob in DETUNE_MIN DETUNE_MAX; do
    [[ ${!knob} =~ ^[0-9]+(\.[0-9]+)?$ ]] || fail "$knob must be a non-negative number (in c_end), got '${!knob}'"
done
awk -v a="$DETUNE_MIN" -v b="$DETUNE_MAX" 'BEGIN { exit !(a <= b) }' ||
    fail "DETUNE_MIN ($DETUNE_MIN) must not exceed DETUNE_MAX ($DETUNE_MAX)"
((BUDGET >= 8 && BUDGET % 8 == 0)) ||
    fail "BUDGET must be a multiple of 8 games (the design plays BUDGET/4 games in pairs), got $BUDGET"
# The words a list names more than once.
repeated() { tr -s ' \t\n' '\n' <<<"$1" | grep . | sort | uniq -d; }
DETUNED_PARAMS=$(tr -s ' \t\n' ' ' <<<"$DETUNED_PARAMS" | sed 's/^ //; s/ $//')
[[ $DETUNED_PARAMS =~ ^[a-z][a-z0-9_]*( [a-z][a-z0-9_]*)*$ ]] ||
    fail "DETUNED_PARAMS must be parameter names (snake_case) separated by spaces, got '$DETUNED_PARAMS'"
[[ -z $(repeated "$DETUNED_PARAMS") ]] ||
    fail "DETUNED_PARAMS must not name a parameter twice, got '$DETUNED_PARAMS'"
[[ -n $SEEDS ]] || fail "SEEDS must name at least one seed"
for s in $SEEDS; do
    [[ $s =~ ^[1-9][0-9]{0,2}$ ]] || fail "SEEDS must be integers from 1 to 999, got '$s'"
done
[[ -z $(repeated "$SEEDS") ]] ||
    fail "SEEDS must not name a seed twice, got '$SEEDS'"
[[ -n $GRID ]] || fail "GRID must name at least one point R_END:C_SCALE"
[[ -z $(repeated "$GRID") ]] ||
    fail "GRID must not name a point twice, got '$GRID'"
for point in $GRID; do
    [[ $point =~ ^[0-9]*\.?[0-9]+:[0-9]*\.?[0-9]+$ ]] ||
        fail "GRID points are R_END:C_SCALE (e.g. 0.002:1), got '$point'"
done
[[ $ENGINE_REV =~ ^[0-9a-f]{40}$ ]] || fail "ENGINE_REV must be a commit, got '$ENGINE_REV'"

if [[ ! -f $KNOBS_FILE || ${#GREW[@]} -gt 0 ]]; then
    for knob in "${GREW[@]}"; do say "$knob grows to ${!knob} (recorded in $KNOBS_FILE)"; done
    {
        if [[ -f $KNOBS_FILE ]]; then
            head -n 1 "$KNOBS_FILE"
        else
            echo "# The protocol's knobs, written by scripts/tuning_benchmark.sh on $(date -u +%Y-%m-%d)."
        fi
        for knob in "${KNOBS[@]}"; do echo "$knob=${!knob}"; done
    } >"$KNOBS_FILE.tmp"
    mv "$KNOBS_FILE.tmp" "$KNOBS_FILE"
fi

THREADS=${THREADS:-$(nproc)}
[[ $THREADS =~ ^[1-9][0-9]*$ ]] || fail "THREADS must be a positive integer, got '$THREADS'"

DESIGN_PAIRS=$((BUDGET / 8))    # BUDGET/4 games
FISHTEST_PAIRS=$((BUDGET / 2))  # BUDGET games
# shellcheck disable=SC2206 # the knobs are lists of options
FISHTEST_FLAGS=($FISHTEST_ARGS)
# shellcheck disable=SC2206
GAME_ARGS=(--nodes "$NODES" $EXTRA_ARGS)

BIN=$STATE/engine/occam
PINNED=$STATE/params/pinned.spsa   # the 16 parameters at the pinned values, with c_end and r_end
DETUNED=$STATE/params/detuned.spsa # the detuned start, without c_end and r_end (the design's file)

# --- the binaries -------------------------------------------------------------------

bench_of() {
    "$1" bench 2>/dev/null | awk '/ nodes .* nps$/ { n = $1 } END { print n }'
}

# The pinned engine is copied into STATE, so every leg's command line (and with it the
# tuner's check that a resume plays the same engine) names the same path.
setup_engine() {
    if [[ -x $BIN ]]; then
        if [[ -n ${ENGINE:-} ]] && ! cmp -s "$ENGINE" "$BIN"; then
            fail "ENGINE=$ENGINE is not the engine $STATE already plays ($BIN): leave ENGINE out to continue"
        fi
        return
    fi
    mkdir -p "$STATE/engine"
    local exe
    if [[ -n ${ENGINE:-} ]]; then
        exe=$(command -v "$ENGINE") || fail "ENGINE=$ENGINE is not an executable"
    else
        local src=$STATE/engine/src
        if [[ ! -d $src ]]; then
            say "building occam at ${ENGINE_REV:0:12} in a detached worktree, $src"
            git -C "$ROOT" worktree add -q --detach "$src" "$ENGINE_REV" ||
                fail "git worktree add of $ENGINE_REV failed"
        fi
        (cd "$src" && env -u CARGO_TARGET_DIR cargo build --release -q -p occam) ||
            fail "cargo build --release -p occam failed in $src"
        exe=$src/target/release/occam
    fi
    local bench
    bench=$(bench_of "$exe")
    [[ $bench == "$ENGINE_BENCH" ]] ||
        fail "$exe bench reports ${bench:-nothing}, not the pinned $ENGINE_BENCH nodes of ${ENGINE_REV:0:12}: the benchmark plays only the pinned engine (ENGINE_REV with its ENGINE_BENCH)"
    cp "$exe" "$BIN.tmp" && mv "$BIN.tmp" "$BIN"
    say "engine: $BIN, bench $bench (${ENGINE_REV:0:12})"
}

TUNER_ID=
setup_tuner() {
    [[ -z $TUNER_ID ]] || return 0
    if [[ -z ${TUNER:-} ]]; then
        (cd "$ROOT" && cargo build --release -q -p tuner) || fail "cargo build --release -p tuner failed"
        TUNER=${CARGO_TARGET_DIR:-$ROOT/target}/release/tuner
        local rev dirty=
        rev=$(git -C "$ROOT" rev-parse --short=12 HEAD)
        git -C "$ROOT" diff --quiet HEAD || dirty=" with uncommitted changes"
        TUNER_ID="tree $rev$dirty"
    else
        TUNER=$(realpath "$(command -v "$TUNER")") || fail "TUNER=$TUNER is not an executable"
        TUNER_ID=$TUNER
    fi
    [[ -x $TUNER ]] || fail "no tuner binary at $TUNER"
    TUNER_ID="$TUNER_ID, sha256 $(sha256sum "$TUNER" | cut -c1-12)"
}

# --- the detune ---------------------------------------------------------------------

# Writes the pinned and the detuned parameter files from `occam params` of the pinned
# engine (its compiled values are its params/search.json) and the table of moves.
setup_detune() {
    [[ -s $DETUNED && -s $STATE/params/table.md ]] && return
    mkdir -p "$STATE/params"
    "$BIN" params >"$STATE/params/engine-params.txt" || fail "$BIN params failed"
    python3 - "$STATE/params" "$DETUNED_PARAMS" "$DETUNE_SEED" "$DETUNE_MIN" "$DETUNE_MAX" <<'EOF' ||
import random, sys
out, names, seed, lo, hi = sys.argv[1], sys.argv[2].split(), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
params = {}
for line in open(f"{out}/engine-params.txt"):
    f = [x.strip() for x in line.split(",")]
    if len(f) == 7:
        params[f[0]] = f
rng = random.Random(seed)
pinned, detuned = [], []
table = ["| parameter | pinned | c_end | min | max | move (c_end) | offset | detuned |",
         "|---|---|---|---|---|---|---|---|"]
for name in names:
    if name not in params:
        sys.exit(f"the pinned engine's `occam params` has no parameter {name}")
    _, kind, value, vmin, vmax, c_end, r_end = params[name]
    if kind != "int":
        sys.exit(f"{name} is a {kind} parameter; the detune moves integers")
    value, vmin, vmax, c_end = int(value), int(vmin), int(vmax), float(c_end)
    # Drawn in this order, one sign and one size per parameter: the detune is fixed by
    # the seed and the list.
    sign = rng.choice((-1, 1))
    k = rng.uniform(lo, hi)
    offset = round(sign * k * c_end)
    new = min(max(value + offset, vmin), vmax)
    clamped = " (clamped)" if new != value + offset else ""
    pinned.append(f"{name}, int, {value}, {vmin}, {vmax}, {c_end:g}, {r_end}")
    detuned.append(f"{name}, int, {new}, {vmin}, {vmax}")
    table.append(f"| {name} | {value} | {c_end:g} | {vmin} | {vmax} | {sign * k:+.2f} | {offset:+d} | {new}{clamped} |")
open(f"{out}/pinned.spsa", "w").write("\n".join(pinned) + "\n")
open(f"{out}/detuned.spsa.tmp", "w").write("\n".join(detuned) + "\n")
open(f"{out}/table.md", "w").write("\n".join(table) + "\n")
EOF
        fail "writing the detuned parameter files failed"
    mv "$DETUNED.tmp" "$DETUNED"
    say "detuned ${DETUNED_PARAMS// /, } (DETUNE_SEED $DETUNE_SEED, $DETUNE_MIN..$DETUNE_MAX c_end):"
    cat "$STATE/params/table.md" >&2
}

# The start of one fishtest grid point: the detuned values, c_end = scale × the pinned
# c_end, r_end the point's (R_END `pinned`: each parameter's pinned r_end).
grid_start() { # OUT R_END C_SCALE
    python3 - "$PINNED" "$DETUNED" "$@" <<'EOF' || fail "writing the grid point's file $1 failed"
import sys
pinned, detuned, out, r_end, scale = sys.argv[1:6]
start = {l.split(",")[0]: l.split(",")[2].strip() for l in open(detuned) if l.strip()}
lines = []
for l in open(pinned):
    if l.strip():
        name, kind, _, vmin, vmax, c_end, pinned_r = [x.strip() for x in l.split(",")]
        r = pinned_r if r_end == "pinned" else r_end
        lines.append(f"{name}, {kind}, {start[name]}, {vmin}, {vmax}, {float(c_end) * float(scale):g}, {r}")
open(out, "w").write("\n".join(lines) + "\n")
EOF
}

# The `option.NAME=VALUE` arguments that set a parameter file's values over UCI.
options_of() {
    python3 - "$1" <<'EOF' || fail "cannot read the values of $1"
import sys
for l in open(sys.argv[1]):
    if l.strip():
        f = [x.strip() for x in l.split(",")]
        print(f"option.{f[0]}={f[2]}")
EOF
}

# --- the legs -----------------------------------------------------------------------

# A tuner runs in a session of its own: a signal to this script (Ctrl-C, `timeout`, kill)
# reaches it once, forwarded by the trap, and the tuner then finishes the games in
# flight, saves its run and stops. The script waits for that, so a rerun never finds the
# run still locked by the tuner it stopped.
CHILD= STOPPED=
on_signal() { # SIGNAL
    [[ -n $CHILD ]] || fail "stopped by SIG$1: run the same command again to continue"
    [[ -n $STOPPED ]] || say "SIG$1: the running tuner saves its run and stops"
    STOPPED=$1
    kill -s "$1" "$CHILD" 2>/dev/null || true # a second signal makes it quit at once
}
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM

run_tuner() { # LOG COMMAND...
    local log=$1 rc=0
    shift
    setsid "$@" >>"$log" 2>&1 </dev/null &
    CHILD=$!
    # `wait` returns early when a trapped signal arrives; the tuner may still be saving.
    while :; do
        rc=0
        wait "$CHILD" || rc=$?
        kill -0 "$CHILD" 2>/dev/null || break
    done
    CHILD=
    [[ -z $STOPPED ]] || fail "stopped by SIG$STOPPED (log $log): run the same command again to continue"
    return "$rc"
}

# tune DIR START PAIRS SEED [FLAGS...]: `tuner spsa` of START's parameters over UCI into
# DIR/tuned.spsa, continued from its journal when one exists. GAIN_EVERY (default 0)
# is its --gain-every.
tune() {
    local dir=$1 start=$2 pairs=$3 seed=$4 label=${1#"$STATE"/}
    shift 4
    if [[ -s $dir/tuned.spsa ]]; then
        say "$label: done"
        return
    fi
    setup_tuner
    mkdir -p "$dir"
    local resume=()
    if [[ -s $dir/spsa.jsonl ]]; then
        resume=(--resume)
        say "$label: continuing the tune of $pairs pairs (log $dir/log)"
    else
        rm -f "$dir/spsa.result.json"
        cp "$start" "$dir/work.spsa"
        say "$label: tune of $pairs pairs (log $dir/log)"
    fi
    echo "$(date -u +%FT%TZ) $TUNER_ID" >>"$dir/tuner.txt"
    local rc=0
    # The gain pairs are left out unless asked for: every run plays its budget and no more.
    # Every tune writes its result, whatever the write-back gate would say: the benchmark
    # judges the algorithms, not the gate (a tuner older than the gate always writes).
    local force=()
    "$TUNER" spsa --help | grep -q -- '--force-write' && force=(--force-write)
    run_tuner "$dir/log" "$TUNER" spsa --engine cmd="$BIN" name=occam --params-file "$dir/work.spsa" \
        --journal "$dir/spsa.jsonl" --pairs "$pairs" --seed "$seed" --threads "$THREADS" \
        --gain-every "${GAIN_EVERY:-0}" "${force[@]}" "$@" "${GAME_ARGS[@]}" "${resume[@]}" || rc=$?
    if ((rc != 0)); then
        tail -15 "$dir/log" >&2
        fail "$label: tuner spsa stopped (exit $rc; log above): run the same command again to continue it"
    fi
    [[ -s $dir/spsa.result.json ]] || fail "$label: tuner spsa ended without its result file (log $dir/log)"
    cp "$dir/work.spsa" "$dir/tuned.spsa.tmp" && mv "$dir/tuned.spsa.tmp" "$dir/tuned.spsa"
}

# match DIR NAME_A FILE_A NAME_B FILE_B PAIRS SEED: both sides are the pinned engine over
# UCI with the files' values; DIR/result.txt gets "elo error games wins losses draws"
# (Elo of A, 95% half-width). MATCH_NODES (default NODES) is its nodes per move.
match() {
    local dir=$1 a=$2 file_a=$3 b=$4 file_b=$5 pairs=$6 seed=$7 label=${1#"$STATE"/}
    if [[ -s $dir/result.txt ]]; then
        say "$label: done: $a vs $b $(cut -d' ' -f1,2 "$dir/result.txt" | awk '{ printf "%+.1f ± %.1f Elo", $1, $2 }')"
        return
    fi
    setup_tuner
    mkdir -p "$dir"
    local resume=() opts_a opts_b
    [[ -s $dir/games.jsonl ]] && resume=(--resume)
    mapfile -t opts_a < <(options_of "$file_a")
    mapfile -t opts_b < <(options_of "$file_b")
    ((${#opts_a[@]} > 0 && ${#opts_b[@]} > 0)) || fail "$label: no parameter values in $file_a or $file_b"
    local game_args=("${GAME_ARGS[@]}")
    game_args[1]=${MATCH_NODES:-$NODES} # GAME_ARGS starts with --nodes NODES
    say "$label: $a vs $b, $pairs pairs at ${game_args[1]} nodes${resume:+, continued} (log $dir/log)"
    echo "$(date -u +%FT%TZ) $TUNER_ID" >>"$dir/tuner.txt"
    local rc=0
    run_tuner "$dir/log" "$TUNER" match --engine cmd="$BIN" name="$a" "${opts_a[@]}" \
        --engine cmd="$BIN" name="$b" "${opts_b[@]}" --pairs "$pairs" --seed "$seed" \
        --concurrency "$THREADS" --results "$dir/games.jsonl" "${game_args[@]}" "${resume[@]}" ||
        rc=$?
    if ((rc != 0)); then
        tail -15 "$dir/log" >&2
        fail "$label: tuner match stopped (exit $rc; log above): run the same command again to continue it"
    fi
    local elo err games wins losses draws
    read -r elo err < <(grep '^Elo: ' "$dir/log" | tail -1 | awk '{ print $2, $4 }') || true
    read -r games wins losses draws < <(grep '^Games: ' "$dir/log" | tail -1 | tr -d ',' |
        awk '{ print $2, $4, $6, $8 }') || true
    [[ -n ${elo:-} && ${games:-0} == $((2 * pairs)) ]] ||
        fail "$label: the match's report shows ${games:-no} games, not $((2 * pairs)) (log $dir/log)"
    echo "$elo $err $games $wins $losses $draws" >"$dir/result.txt.tmp"
    mv "$dir/result.txt.tmp" "$dir/result.txt"
    say "$label: $a vs $b $(awk '{ printf "%+.1f ± %.1f Elo", $1, $2 }' "$dir/result.txt")"
}

point_name() { echo "r${1%%:*}-c${1##*:}"; } # 0.002:1 -> r0.002-c1

step_engine() {
    setup_engine
    setup_detune
}

step_loss() {
    step_engine
    match "$STATE/loss" detuned "$DETUNED" pinned "$PINNED" "$LOSS_PAIRS" "$OPENING_SEED"
}

# The selection and the recovery of seed s are played from openings OPENING_SEED + s, the
# head-to-head from OPENING_SEED + 1000 + s: openings the selection never saw, so the
# luck that picked the best grid point does not carry into the head-to-head.
step_design() { # SEED
    local s=$1 dir=$STATE/seed-$1/design
    step_engine
    tune "$dir" "$DETUNED" "$DESIGN_PAIRS" "$s"
    match "$dir/recovery" design "$dir/tuned.spsa" detuned "$DETUNED" "$SELECT_PAIRS" $((OPENING_SEED + s))
}

step_grid() { # SEED
    local s=$1 point dir best= best_elo=
    step_engine
    if [[ -n $FISHTEST_ARGS ]]; then
        setup_tuner
        "$TUNER" spsa --help | grep -q -- '--rules' ||
            fail "$TUNER has no \`spsa --rules\` (FISHTEST_ARGS='$FISHTEST_ARGS'): build one that has it, or give it as TUNER="
    fi
    for point in $GRID; do
        dir=$STATE/seed-$s/grid/$(point_name "$point")
        mkdir -p "$dir"
        [[ -s $dir/start.spsa ]] || grid_start "$dir/start.spsa" "${point%%:*}" "${point##*:}"
        tune "$dir" "$dir/start.spsa" "$FISHTEST_PAIRS" "$s" "${FISHTEST_FLAGS[@]}"
        match "$dir/select" fishtest "$dir/tuned.spsa" detuned "$DETUNED" "$SELECT_PAIRS" $((OPENING_SEED + s))
    done
    # The best of the grid by its selection match (ties: the first in GRID).
    for point in $GRID; do
        local elo
        elo=$(cut -d' ' -f1 "$STATE/seed-$s/grid/$(point_name "$point")/select/result.txt")
        if [[ -z $best ]] || awk -v a="$elo" -v b="$best_elo" 'BEGIN { exit !(a > b) }'; then
            best=$point best_elo=$elo
        fi
    done
    echo "$(point_name "$best")" >"$STATE/seed-$s/grid/best.txt"
    say "seed-$s: best grid point $best (r_end:c scale), $(awk -v e="$best_elo" 'BEGIN { printf "%+.1f", e }') Elo against the detuned start"
}

step_h2h() { # SEED
    local s=$1
    step_design "$s"
    step_grid "$s"
    local best
    best=$(cat "$STATE/seed-$s/grid/best.txt")
    step_engine
    match "$STATE/seed-$s/h2h" design "$STATE/seed-$s/design/tuned.spsa" \
        "fishtest-$best" "$STATE/seed-$s/grid/$best/tuned.spsa" "$H2H_PAIRS" $((OPENING_SEED + 1000 + s))
}

# The same two results at H2H_DEEP_NODES per move, from openings no other leg plays: does
# what the tunes found at NODES hold where the engine searches deeper?
step_deep() { # SEED
    local s=$1
    step_h2h "$s"
    local best
    best=$(cat "$STATE/seed-$s/grid/best.txt")
    MATCH_NODES=$H2H_DEEP_NODES match "$STATE/seed-$s/h2h-deep" design "$STATE/seed-$s/design/tuned.spsa" \
        "fishtest-$best" "$STATE/seed-$s/grid/$best/tuned.spsa" "$H2H_DEEP_PAIRS" $((OPENING_SEED + 3000 + s))
}

# The gain the design prints: the same tune as step_design, with the gain pairs the
# tuner plays by default (one for every 4 SPSA pairs of the averaging window), and a
# match of its result against the detuned start from openings the tune never saw.
GAIN_PAIRS_EVERY=4
step_gain() { # SEED
    local s=$1 dir=$STATE/seed-$1/gain
    step_engine
    GAIN_EVERY=$GAIN_PAIRS_EVERY tune "$dir" "$DETUNED" "$DESIGN_PAIRS" "$s"
    match "$dir/verify" design "$dir/tuned.spsa" detuned "$DETUNED" "$SELECT_PAIRS" $((OPENING_SEED + 2000 + s))
}

# The design given fishtest's budget: does it win back as much as fishtest's best grid
# point with the same games? Its recovery match is played from the selection's openings
# (OPENING_SEED + s), so it compares with the grid's selection matches one to one.
step_full() { # SEED
    local s=$1 dir=$STATE/seed-$1/design-full
    step_engine
    tune "$dir" "$DETUNED" "$FISHTEST_PAIRS" "$s"
    match "$dir/recovery" design-full "$dir/tuned.spsa" detuned "$DETUNED" "$SELECT_PAIRS" $((OPENING_SEED + s))
}

# --- the same budget on OpenBench ----------------------------------------------------

# An OpenBench instance on this machine (scripts/openbench_local.sh: `up` done, its
# clients running) plays two tunes of the design's budget from the detuned start: the
# design's constant gains (`tuner openbench plan`, c scaled as the one-machine design's
# probe found, its probe's pairs counted in the budget), followed and averaged as the
# design averages; and OpenBench's own decaying schedule from the pinned files' c_end and
# r_end (the lines `tuner export --format openbench` writes), its last θ. Knobs of this run: OB_URL
# [http://127.0.0.1:8000], OB_PAIRS_PER (OpenBench's spsa_pairs_per) [10], OB_H2H_PAIRS
# [2000].
OB_URL=${OB_URL:-http://127.0.0.1:8000}
OB_PAIRS_PER=${OB_PAIRS_PER:-10}
OB_H2H_PAIRS=${OB_H2H_PAIRS:-2000}

# The c factor and the pairs of the probe the one-machine design's tune of seed s played
# ("1 0" when it played none), from its plan line.
probe_of() { # SEED
    local log=$STATE/seed-$1/design/log line
    line=$(grep -m1 '^spsa: plan: ' "$log") || fail "no plan line in $log"
    if [[ $line =~ times\ ([0-9.]+)\ as\ a\ probe\ of\ ([0-9]+)\ pairs ]]; then
        echo "${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
    else
        echo "1 0"
    fi
}

# ob_tune DIR MODE SEED: MODE design or default. Creates the workload once (its id in
# DIR/workload.txt), follows it to its end into DIR/follow.jsonl and writes DIR/tuned.spsa
# (the design: the average; default: the last θ, what OpenBench gives).
ob_tune() {
    local dir=$1 mode=$2 s=$3 label=${1#"$STATE"/} pairs scale probe id url
    if [[ -s $dir/tuned.spsa ]]; then
        say "$label: done"
        return
    fi
    setup_tuner
    mkdir -p "$dir"
    if [[ ! -s $dir/workload.txt ]]; then
        local alpha=0 gamma=0 a_ratio=0
        if [[ $mode == design ]]; then
            read -r scale probe < <(probe_of "$s")
            pairs=$(((DESIGN_PAIRS - probe) / OB_PAIRS_PER * OB_PAIRS_PER))
            ((pairs > 0)) || fail "$label: no pairs left for OpenBench after the probe's $probe"
            "$TUNER" openbench plan "$DETUNED" --pairs "$pairs" --pairs-per "$OB_PAIRS_PER" \
                --c-scale "$scale" -o "$dir/inputs.spsa" >"$dir/form.txt" 2>>"$dir/log" ||
                fail "$label: tuner openbench plan failed (log $dir/log)"
        else
            pairs=$((DESIGN_PAIRS / OB_PAIRS_PER * OB_PAIRS_PER))
            # OpenBench's input lines as `tuner export --format openbench` writes them
            # from a file with these values, c_end and r_end.
            grid_start "$dir/inputs.spsa" pinned 1
            alpha=0.602 gamma=0.101 a_ratio=0.1
        fi
        id=$("$ROOT/scripts/openbench_local.sh" REF="$ENGINE_REV" NODES="$NODES" \
            SPSA_INPUTS="$dir/inputs.spsa" ITERATIONS=$((pairs / OB_PAIRS_PER)) \
            PAIRS_PER="$OB_PAIRS_PER" ALPHA=$alpha GAMMA=$gamma A_RATIO=$a_ratio tune 2>>"$dir/log" |
            tail -1)
        [[ $id =~ ^[0-9]+$ ]] || fail "$label: openbench_local.sh tune gave no workload id (log $dir/log)"
        # The instance that plays it is recorded with it: a resume follows that one.
        echo "$id $pairs $OB_PAIRS_PER $OB_URL" >"$dir/workload.txt"
        say "$label: OpenBench workload $id, $pairs pairs ($((pairs / OB_PAIRS_PER)) iterations of $OB_PAIRS_PER)"
    fi
    read -r id _ _ url <"$dir/workload.txt"
    say "$label: following workload $id on $url (log $dir/log)"
    run_tuner "$dir/log" "$TUNER" openbench follow "$url" "$id" --journal "$dir/follow.jsonl" \
        --every 5 || fail "$label: tuner openbench follow stopped (log $dir/log)"
    local last=()
    [[ $mode == design ]] || last=(--last)
    cp "$DETUNED" "$dir/work.spsa"
    "$TUNER" openbench average "$dir/follow.jsonl" "$dir/work.spsa" "${last[@]}" 2>>"$dir/log" ||
        fail "$label: tuner openbench average failed (log $dir/log)"
    cp "$dir/work.spsa" "$dir/tuned.spsa.tmp" && mv "$dir/tuned.spsa.tmp" "$dir/tuned.spsa"
}

# Seed s on OpenBench: both tunes, their recoveries (from the selection's openings), and
# the OpenBench design against the one-machine design (from openings no leg saw).
step_ob() { # SEED
    local s=$1 dir=$STATE/seed-$1/openbench
    step_design "$s"
    ob_tune "$dir/design" design "$s"
    match "$dir/design/recovery" ob-design "$dir/design/tuned.spsa" detuned "$DETUNED" "$SELECT_PAIRS" $((OPENING_SEED + s))
    ob_tune "$dir/default" default "$s"
    match "$dir/default/recovery" ob-default "$dir/default/tuned.spsa" detuned "$DETUNED" "$SELECT_PAIRS" $((OPENING_SEED + s))
    match "$dir/h2h" ob-design "$dir/design/tuned.spsa" design "$STATE/seed-$s/design/tuned.spsa" \
        "$OB_H2H_PAIRS" $((OPENING_SEED + 3000 + s))
}

step_report() {
    python3 - "$STATE" "$KNOBS_FILE" "$DETUNED_PARAMS" "$DESIGN_PAIRS" "$FISHTEST_PAIRS" <<'EOF' | tee "$STATE/report.md"
import datetime, glob, json, math, os, sys
state, knobs_file, names, design_pairs, fishtest_pairs = sys.argv[1:6]
design_pairs, fishtest_pairs = int(design_pairs), int(fishtest_pairs)
knobs = dict(l.rstrip("\n").split("=", 1) for l in open(knobs_file) if "=" in l and not l.startswith("#"))
knobs.setdefault("H2H_DEEP_NODES", "8000")  # a state begun before the deep head-to-head

def result(path):
    try:
        elo, err, games, *_ = open(os.path.join(state, path, "result.txt")).read().split()
        return float(elo), float(err), int(games)
    except FileNotFoundError:
        return None

def fmt(r):
    return "—" if r is None else f"{r[0]:+.1f} ± {r[1]:.1f}"

def printed_gain(path):  # the gain interval `tuner spsa` printed at its end
    try:
        import json
        g = json.load(open(os.path.join(state, path, "spsa.result.json"))).get("gain")
        # Too few pairs for an estimate: elo or error95 is null.
        num = lambda x: float("nan") if x is None else float(x)
        return (num(g["elo"]), num(g["error95"]), int(g["pairs"])) if g else None
    except FileNotFoundError:
        return None

def point(name):  # r0.002-c1 -> r_end 0.002, c × 1
    r, c = name[1:].split("-c")
    return f"r_end {r}, c_end × {c}"

grid = [f"r{p.split(':')[0]}-c{p.split(':')[1]}" for p in knobs["GRID"].split()]
games = 0
loss = result("loss")
games += loss[2] if loss else 0
rows, cols = [], {"design": [], "fishtest": [], "h2h": [], "deep": []}
gain_rows, full_rows = [], []
for s in knobs["SEEDS"].split():
    base = f"seed-{s}"
    design = result(f"{base}/design/recovery")
    tuned_design = os.path.exists(f"{state}/{base}/design/tuned.spsa")
    tuned_grid = sum(os.path.exists(f"{state}/{base}/grid/{g}/tuned.spsa") for g in grid)
    games += 2 * design_pairs * tuned_design + 2 * fishtest_pairs * tuned_grid
    games += sum(r[2] for g in grid if (r := result(f"{base}/grid/{g}/select")))
    best = open(f"{state}/{base}/grid/best.txt").read().strip() if os.path.exists(f"{state}/{base}/grid/best.txt") else None
    fishtest = result(f"{base}/grid/{best}/select") if best else None
    h2h, deep = result(f"{base}/h2h"), result(f"{base}/h2h-deep")
    for r in (design, h2h, deep):
        games += r[2] if r else 0
    for key, r in (("design", design), ("fishtest", fishtest), ("h2h", h2h), ("deep", deep)):
        if r:
            cols[key].append(r)
    printed, verified = printed_gain(f"{base}/gain"), result(f"{base}/gain/verify")
    if os.path.exists(f"{state}/{base}/gain/tuned.spsa"):
        games += 2 * design_pairs + (2 * printed[2] if printed else 0)
    games += verified[2] if verified else 0
    full = result(f"{base}/design-full/recovery")
    if os.path.exists(f"{state}/{base}/design-full/tuned.spsa"):
        games += 2 * fishtest_pairs
    games += full[2] if full else 0
    if full:
        share = f"{100 * full[0] / fishtest[0]:.0f}%" if fishtest and fishtest[0] > 0 else "—"
        diff = f"{full[0] - fishtest[0]:+.1f} ± {math.hypot(full[1], fishtest[1]):.1f}" if fishtest else "—"
        full_rows.append(f"| {s} | {fmt(full)} | {point(best) if best else '—'} | {fmt(fishtest)} | {diff} | {share} |")
    if printed or verified:
        covers = width = "—"
        # Tiny smoke budgets give a match of all wins: an interval of 0 or nan.
        if printed and verified and printed[1] > 0 and verified[1] > 0:
            covers = "yes" if abs(printed[0] - verified[0]) <= printed[1] else "no"
            width = f"{printed[1] / verified[1]:.2f}"
        gain_rows.append(f"| {s} | {fmt(printed)} ({printed[2] if printed else 0} pairs) | {fmt(verified)} | {covers} | {width} |")
    rows.append(f"| {s} | {fmt(design)} | {point(best) if best else '—'} | {fmt(fishtest)} | {fmt(h2h)} | {fmt(deep)} "
                f"| {2 * design_pairs:,} × {int(tuned_design)} / {2 * fishtest_pairs:,} × {tuned_grid} |")

def mean(rs):  # independent matches: the mean's half-width is √(Σ err²)/n
    if not rs:
        return "—"
    n = len(rs)
    return f"{sum(r[0] for r in rs) / n:+.1f} ± {math.sqrt(sum(r[1] ** 2 for r in rs)) / n:.1f} ({n})"

# Student's t, 97.5%, by degrees of freedom (1..30); beyond, the normal's.
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042]

def across_seeds(rs, what):  # the seeds as the sample: a tune's own spread is in it
    n = len(rs)
    if n < 2:
        return None
    m = sum(r[0] for r in rs) / n
    sd = math.sqrt(sum((r[0] - m) ** 2 for r in rs) / (n - 1))
    half = (T975[n - 2] if n - 1 <= len(T975) else 1.96) * sd / math.sqrt(n)
    ahead = sum(r[0] >= 0 for r in rs)
    worse = sum(r[0] + r[1] < 0 for r in rs)
    return (f"{what}: mean {m:+.1f} ± {half:.1f} [{m - half:+.1f}, {m + half:+.1f}] across the {n} seeds "
            f"(t, {n - 1} degrees of freedom; SD {sd:.1f}); {ahead} of {n} at least even, {worse} significantly worse.")

tuners = sorted({l.split(" ", 1)[1].strip() for f in glob.glob(f"{state}/**/tuner.txt", recursive=True) for l in open(f)})
print(f"**Tuning benchmark, design against fishtest's rules** ({datetime.date.today()}): occam at "
      f"{knobs['ENGINE_REV'][:7]} (bench {knobs['ENGINE_BENCH']}), {len(names.split())} parameters "
      f"detuned by {knobs['DETUNE_MIN']}–{knobs['DETUNE_MAX']} c_end (DETUNE_SEED {knobs['DETUNE_SEED']}), "
      f"{knobs['NODES']} nodes per move.")
print()
print(f"Loss, detuned vs pinned: {fmt(loss)} Elo ({loss[2]:,} games)." if loss else "Loss, detuned vs pinned: not played yet.")
print()
print(f"| seed | design vs detuned (Elo) | best grid point | its match vs detuned (Elo) | design vs that fishtest result (Elo) | the same at {knobs['H2H_DEEP_NODES']} nodes (Elo) | tune games: design / fishtest (× runs) |")
print("|---|---|---|---|---|---|---|")
print("\n".join(rows))
print(f"| mean | {mean(cols['design'])} | | {mean(cols['fishtest'])} | {mean(cols['h2h'])} | {mean(cols['deep'])} | |")
print()
for key, what in (("h2h", f"Head-to-head at {knobs['NODES']} nodes"), ("deep", f"Head-to-head at {knobs['H2H_DEEP_NODES']} nodes")):
    line = across_seeds(cols[key], what)
    if line:
        print(line)
        print()
if loss and cols["design"] and loss[0] < 0:
    print(f"The design won back {100 * sum(r[0] for r in cols['design']) / len(cols['design']) / -loss[0]:.0f}% of the loss on average. ", end="")
print(f"Games played so far: {games:,}. The best grid point is the best of {len(grid)} noisy matches, which favours fishtest.")
if gain_rows:
    print()
    print("The gain the design printed (its tune again, with the gain pairs), against a match of its result:")
    print()
    print("| seed | printed gain (Elo, 95%) | verified: result vs detuned (Elo) | the interval covers it | width / the match's |")
    print("|---|---|---|---|---|")
    print("\n".join(gain_rows))
if full_rows:
    print()
    print(f"At the same budget: the design's tune of {2 * fishtest_pairs:,} games (fishtest's) against the detuned start, beside the best grid point's:")
    print()
    print("| seed | design vs detuned (Elo) | best grid point | its match vs detuned (Elo) | difference (Elo) | the design's share |")
    print("|---|---|---|---|---|---|")
    print("\n".join(full_rows))
ob_rows = []
for s in knobs["SEEDS"].split():
    ob = f"seed-{s}/openbench"
    if not os.path.isdir(f"{state}/{ob}"):
        continue
    played = []
    for leg in ("design", "default"):
        try:
            wid = open(f"{state}/{ob}/{leg}/workload.txt").read().split()[0]
            lines = open(f"{state}/{ob}/{leg}/follow.jsonl").read().splitlines()
            played.append(f"{json.loads(lines[-1])['games']:,} (workload {wid})")
        except (FileNotFoundError, IndexError, ValueError, KeyError):
            played.append("—")
    ob_rows.append(f"| {s} | {fmt(result(f'seed-{s}/design/recovery'))} | {fmt(result(f'{ob}/design/recovery'))} "
                   f"| {fmt(result(f'{ob}/default/recovery'))} | {fmt(result(f'{ob}/h2h'))} | {played[0]} / {played[1]} |")
if ob_rows:
    print()
    print("On OpenBench (`seed N ob`), the design's budget: recoveries against the detuned start, and the OpenBench design against the one-machine design:")
    print()
    print("| seed | design, one machine (Elo) | design on OpenBench (Elo) | OpenBench's schedule (Elo) | OpenBench design vs one-machine design (Elo) | OpenBench games: design / schedule |")
    print("|---|---|---|---|---|---|")
    print("\n".join(ob_rows))
print()
print("Knobs: " + ", ".join(f"{k}={v!r}" if (" " in v or not v) else f"{k}={v}" for k, v in knobs.items()) + ".")
print("Tuner: " + ("; ".join(tuners) if tuners else "none yet") + ".")

# The raw figures beside the report: every match (results.csv) and every tune's values
# (tuned.csv), one row each, by their folder under the state.
import csv
def write_csv(name, header, rows):
    with open(f"{state}/{name}.tmp", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    os.replace(f"{state}/{name}.tmp", f"{state}/{name}")
matches = []
for path in sorted(glob.glob(f"{state}/**/result.txt", recursive=True)):
    leg = os.path.relpath(os.path.dirname(path), state)
    elo, err, games, wins, losses, draws = open(path).read().split()[:6]
    log = os.path.join(os.path.dirname(path), "log")
    head = open(log).readline() if os.path.exists(log) else ""
    nodes = head.split("nodes=")[1].split()[0] if "nodes=" in head else ""
    matches.append([leg, head.split(":")[0].strip(), nodes, games, wins, losses, draws, elo, err])
write_csv("results.csv", ["match", "sides", "nodes", "games", "wins", "losses", "draws", "elo", "error95"], matches)
params = names.split()
def values_row(name, path):  # a parameter file's values in the order of `params`
    values = {l.split(",")[0].strip(): l.split(",")[2].strip() for l in open(path) if l.strip()}
    return [name] + [values.get(n, "") for n in params]
# (A state whose engine step has not run yet has no parameter files.)
tunes = [values_row(fixed, f"{state}/params/{fixed}.spsa") for fixed in ("pinned", "detuned")
         if os.path.exists(f"{state}/params/{fixed}.spsa")]
tunes += [values_row(os.path.relpath(os.path.dirname(path), state), path)
          for path in sorted(glob.glob(f"{state}/**/tuned.spsa", recursive=True))]
write_csv("tuned.csv", ["tune"] + params, tunes)
EOF
}

# --- the steps ----------------------------------------------------------------------

in_seeds() {
    local s
    for s in $SEEDS; do [[ $s == "$1" ]] && return 0; done
    fail "seed $1 is not one of SEEDS ($SEEDS)"
}

STEP=${1:-all}
case $STEP in
all)
    (($# <= 1)) || fail "\`all\` takes no arguments"
    step_loss
    for s in $SEEDS; do
        step_deep "$s"
        step_gain "$s"
        step_full "$s"
    done
    step_report
    ;;
engine)
    step_engine
    cat "$STATE/params/table.md"
    ;;
loss) step_loss ;;
seed)
    [[ ${2:-} =~ ^[0-9]+$ ]] || fail "usage: seed N [design|grid|h2h|deep|gain|full|ob]"
    in_seeds "$2"
    case ${3:-all} in
    design) step_design "$2" ;;
    grid) step_grid "$2" ;;
    h2h) step_h2h "$2" ;;
    deep) step_deep "$2" ;;
    gain) step_gain "$2" ;;
    full) step_full "$2" ;;
    ob) step_ob "$2" ;;
    all)
        step_deep "$2"
        step_gain "$2"
        step_full "$2"
        ;;
    *) fail "seed $2: the part is design, grid, h2h, deep, gain, full or ob, got '$3'" ;;
    esac
    ;;
report) step_report ;;
*) fail "unknown step '$STEP': all, engine, loss, seed N [design|grid|h2h|deep|gain|full|ob], report" ;;
esac
