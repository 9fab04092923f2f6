#!/usr/bin/env bash
# The declared strength match: Occam against Ethereal at 10+0.1, one thread each,
# Hash 16, Move Overhead 30, on openings generated from a fixed seed, played to a
# declared number of game pairs and reported whatever its result.
#
#   STATE=DIR scripts/ethereal_match.sh [SECONDS]
#
# The first run copies both engines into DIR/bin and writes the declaration to
# DIR/declared.txt: Occam's bench signature and sha256, Ethereal's sha256, the time
# control, the pairs, the seed and the options. A later run plays those copies and
# continues the same match (`tuner match --resume`); it refuses a knob that differs from
# the declaration. DIR, under the repository (for example runs/ethereal-<commit>), is
# self-contained: copied to another machine's checkout, the match goes on there. With
# SECONDS, the run stops cleanly after about that many seconds (the pairs in flight
# finish, up to a minute at 10+0.1), so a long match can be played in legs that each
# fit a time limit; the same command continues it. Each leg is logged in DIR/legs.txt.
# The leg that plays the last pair writes DIR/report.txt, the match's record as a whole
# (declaration, legs, final report with each engine's clock use, how the games ended,
# when each engine spent its clock, what each thought of its games by stage, the
# runner's log): the file to keep under docs/data/
# beside the pairs file. The games are in DIR/games.pgn.
#
# KEEP=FOLDER copies DIR but its binaries to FOLDER after each leg, a folder to commit
# so a match outlives its machine; on another machine the same command with the same
# KEEP starts from that copy, the binaries given as OCCAM and ETHEREAL (the commit in
# FOLDER/origin.txt rebuilt; Ethereal rebuilt the same way), and the declaration's
# sha256 refuses any other build. `make popcnt` builds for the CPU it runs on
# (-march=native), so Ethereal rebuilt from the same source on a machine of another CPU
# has another sha256: ETHEREAL_REBUILT=1 accepts it when the declared build's name
# agrees. Occam's build is reproducible and is always checked. Each leg's line in
# DIR/legs.txt names the sha256 of the Ethereal it played.
#
# Knobs (environment):
#   OCCAM        the engine under test, copied by the first run [target/release/occam]
#   ETHEREAL     the opponent, copied by the first run [/usr/games/ethereal-chess]
#   ETHEREAL_BUILD  the opponent's version and build, declared with it; required with
#                ETHEREAL (e.g. "Ethereal 12.75, make popcnt": `cd src && make popcnt`
#                on the machine that plays, as its author builds it) [without ETHEREAL:
#                "Ethereal 12.00, Debian's package build", a generic x86-64 build]
#   TUNER        the match runner               [target/release/tuner]
#   TC           time control                   [10+0.1]
#   PAIRS        game pairs (two games each)    [200]
#   SEED         seed of the generated openings [4401]
#   HASH         MB of hash, each engine        [16]
#   OVERHEAD     Move Overhead, ms, each engine [30]
#   CONCURRENCY  games at once; not part of the declaration [cores − 2, at least 1]
#   KEEP         a folder to copy the match to after each leg, and from [unset]
#   ETHEREAL_REBUILT  1: continue with Ethereal rebuilt on this machine, as above [unset]
# Debian's Ethereal needs libfathom: the first run copies it beside the engines.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/scripts/lib/declared.sh"
fail() { echo "ethereal_match: $*" >&2; exit 2; }
say() { echo "ethereal_match: $*" >&2; }

[[ -n ${STATE:-} ]] || fail "give the match's folder as STATE=DIR"
mkdir -p "$STATE"
STATE=$(realpath --relative-base="$ROOT" "$STATE")
cd "$ROOT" # the results file names the engines by these paths: relative ones travel
LIMIT=${1:-}
[[ -z $LIMIT || $LIMIT =~ ^[0-9]+$ ]] || fail "SECONDS must be a whole number, got '$LIMIT'"
OCCAM=${OCCAM:-$ROOT/target/release/occam}
# A match under way keeps the build it declared.
if [[ -z ${ETHEREAL_BUILD:-} && -s $STATE/declared.txt ]]; then
    ETHEREAL_BUILD=$(sed -n 's/^ethereal build \(.*\) sha256 .*/\1/p' "$STATE/declared.txt")
fi
if [[ -n ${ETHEREAL:-} ]]; then
    [[ -n ${ETHEREAL_BUILD:-} ]] || fail "name the build of ETHEREAL=$ETHEREAL in ETHEREAL_BUILD (e.g. \"Ethereal 12.75, make popcnt\")"
else
    ETHEREAL=/usr/games/ethereal-chess
    ETHEREAL_BUILD=${ETHEREAL_BUILD:-"Ethereal 12.00, Debian's package build"}
fi
TUNER=${TUNER:-target/release/tuner} # relative, as the log's continue line then travels too
TC=${TC:-10+0.1}
PAIRS=${PAIRS:-200}
SEED=${SEED:-4401}
HASH=${HASH:-16}
OVERHEAD=${OVERHEAD:-30}
cores=$(nproc)
CONCURRENCY=${CONCURRENCY:-$((cores > 3 ? cores - 2 : 1))}
for knob in PAIRS SEED HASH OVERHEAD CONCURRENCY; do
    [[ ${!knob} =~ ^[1-9][0-9]*$ ]] || fail "$knob must be a positive whole number, got '${!knob}'"
done
[[ -x $TUNER ]] || fail "TUNER=$TUNER is not an executable"
KEEP=${KEEP:-}
declared=$STATE/declared.txt
if [[ ! -s $declared && -n $KEEP && -s $KEEP/declared.txt ]]; then
    say "continuing from the copy in $KEEP"
    cp -R "$KEEP/." "$STATE/"
fi
# A match continued from a kept copy plays the binaries given, if the declaration's
# sha256 agrees (checked below).
if [[ -s $declared && ! -x $STATE/bin/occam ]]; then
    for bin in OCCAM ETHEREAL; do
        [[ -x ${!bin} ]] || fail "$bin=${!bin} is not an executable"
    done
    mkdir -p "$STATE/bin"
    cp "$OCCAM" "$STATE/bin/occam"
    cp "$ETHEREAL" "$STATE/bin/ethereal"
fi
if [[ ! -s $declared ]]; then
    for bin in OCCAM ETHEREAL; do
        [[ -x ${!bin} ]] || fail "$bin=${!bin} is not an executable"
    done
    mkdir -p "$STATE/bin"
    write_origin "$STATE/origin.txt"
    cp "$OCCAM" "$STATE/bin/occam"
    cp "$ETHEREAL" "$STATE/bin/ethereal"
    # Debian's Ethereal links libfathom: the copy travels with it.
    fathom=$({ ldd "$ETHEREAL" 2>/dev/null || true; } | awk '/libfathom/ && $3 ~ /^\// { print $3 }')
    if [[ -n $fathom ]]; then
        mkdir -p "$STATE/lib"
        cp "$fathom" "$STATE/lib/"
    fi
fi
lib=$STATE/lib
[[ $lib == /* ]] || lib=$ROOT/$lib
export LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
OCCAM=$STATE/bin/occam
ETHEREAL=$STATE/bin/ethereal

bench=$("$OCCAM" bench 2>/dev/null | awk '/ nodes .* nps$/ { n = $1 } END { print n }')
[[ -n $bench ]] || fail "$OCCAM bench printed no node count"
echo uci | timeout 10 "$ETHEREAL" 2>/dev/null | grep -q '^uciok' ||
    fail "$ETHEREAL does not answer uci (is libfathom on LD_LIBRARY_PATH?)"

ethereal_sha=$(sha256sum "$ETHEREAL" | cut -c1-16)
ethereal_line="ethereal build $ETHEREAL_BUILD sha256 $ethereal_sha"
if [[ ${ETHEREAL_REBUILT:-} == 1 && -s $declared ]]; then
    declared_line=$(grep '^ethereal build ' "$declared" || true)
    if [[ ${declared_line% sha256 *} == "${ethereal_line% sha256 *}" && $declared_line != "$ethereal_line" ]]; then
        say "Ethereal rebuilt on this machine: sha256 $ethereal_sha, declared ${declared_line##* }"
        ethereal_line=$declared_line
    fi
fi

declaration() {
    echo "occam bench $bench sha256 $(sha256sum "$OCCAM" | cut -c1-16)"
    echo "$ethereal_line"
    echo "tc $TC pairs $PAIRS seed $SEED hash $HASH overhead $OVERHEAD threads 1"
    echo "openings generated by tuner match from the seed"
}

resume=()
[[ -s $declared ]] && resume=(--resume)
declare_or_check "$declared" match ethereal_match

args=(match
    --engine "cmd=$OCCAM" name=occam "option.Hash=$HASH" "option.Move Overhead=$OVERHEAD" option.Threads=1
    --engine "cmd=$ETHEREAL" name=ethereal "option.Hash=$HASH" "option.MoveOverhead=$OVERHEAD" option.Threads=1
    --tc "$TC" --hash "$HASH" --pairs "$PAIRS" --seed "$SEED" --concurrency "$CONCURRENCY"
    --results "$STATE/pairs.jsonl" --pgn "$STATE/games.pgn" --report-every 25 "${resume[@]}")

recorded() {
    local n
    n=$(grep -c '"pair":' "$STATE/pairs.jsonl" 2>/dev/null || true)
    echo "${n:-0}"
}
started=$(date -u +%FT%TZ)
rc=0
leg=true
if (($(recorded) >= PAIRS)); then
    leg=false
    say "all $PAIRS pairs were played before: no leg, the report is written again"
elif [[ -n $LIMIT ]]; then
    # TERM asks the match to stop after the pairs in flight; KILL, a minute and a half
    # later, is the backstop (the results file keeps every finished pair). --foreground
    # signals the tuner alone: otherwise timeout signals its process group as well,
    # the engines in the games still in flight included.
    timeout --foreground -s TERM -k 90 "$LIMIT" "$TUNER" "${args[@]}" 2>&1 | tee -a "$STATE/log" || rc=$?
else
    "$TUNER" "${args[@]}" 2>&1 | tee -a "$STATE/log" || rc=$?
fi
played=$(recorded)
if $leg; then
    echo "$started to $(date -u +%FT%TZ): concurrency $CONCURRENCY on $cores cores, ethereal sha256 $ethereal_sha, exit $rc, $played of $PAIRS pairs recorded" >>"$STATE/legs.txt"
fi
say "$played of $PAIRS pairs recorded (legs: $STATE/legs.txt)"
if [[ -n $KEEP ]]; then
    mkdir -p "$KEEP"
    tar -C "$STATE" --exclude=./bin --exclude='.*.lock' -cf - . | tar -C "$KEEP" -xf -
    say "kept in $KEEP (commit it so the match outlives this machine)"
fi
if ((played < PAIRS)); then
    say "to continue: STATE=$STATE $0 ${LIMIT}"
    exit 0
fi

# The whole match in one file: what was declared, how it was played, what it gave.
write_report() {
    local games=$((2 * played)) day commit
    day=$(tail -n 1 "$STATE/legs.txt" | awk '{ print substr($3, 1, 10) }')
    commit=$(origin_commit "$STATE/origin.txt")
    echo "# Occam against $ETHEREAL_BUILD, $TC, $played pairs ($games games), played in legs by scripts/ethereal_match.sh, $day."
    echo "# Engine: ${commit:-?} (bench $bench). The declaration, written before the first game:"
    cat "$declared"
    echo "# The legs (start to end, UTC):"
    cat "$STATE/legs.txt"
    echo "# The final report (tuner match, Occam's point of view):"
    awk '/^Results of / { block = "" } /^Results of /, /^Speed: / { block = block $0 "\n" }
         END { printf "%s", block }' "$STATE/log"
    echo "# How the $games games ended (tuner match's reasons, from the pairs file):"
    # Split at `","` only: a reason may hold a comma of its own.
    grep -o '"reasons":\["[^]]*"\]' "$STATE/pairs.jsonl" | sed 's/^"reasons":\["//; s/"\]$//; s/","/\n/g' |
        sort | uniq -c | sort -rn | sed 's/^ *//'
    if [[ -s $STATE/games.pgn ]]; then
        echo "# When each engine spent its clock (scripts/clock_use.py on games.pgn):"
        python3 "$ROOT/scripts/clock_use.py" "$STATE/games.pgn" || true
        echo "# What each engine thought of its games (scripts/score_by_stage.py on games.pgn):"
        python3 "$ROOT/scripts/score_by_stage.py" "$STATE/games.pgn" || true
    fi
    echo "# The runner's log of every leg:"
    cat "$STATE/log"
}
# Paths inside the checkout are written relative to it: the report travels.
write_report | sed "s|$ROOT/||g" >"$STATE/report.txt.tmp"
mv "$STATE/report.txt.tmp" "$STATE/report.txt"
say "the match is complete: $STATE/report.txt (keep it in docs/data/ with $STATE/pairs.jsonl)"
