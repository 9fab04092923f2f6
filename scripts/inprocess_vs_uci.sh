#!/usr/bin/env bash
# Games per second of the same engine at the same fixed nodes, played in-process by the
# tuner and over UCI pipes (two `occam` processes), measured back to back in one run.
#
#   scripts/inprocess_vs_uci.sh                 # 40 pairs at 5000 nodes, 1 game at a time
#   NODES=2000 PAIRS=100 CONCURRENCY=2 scripts/inprocess_vs_uci.sh
#   OCCAM_UCI=/path/to/occam scripts/inprocess_vs_uci.sh   # another UCI build of the engine
#   ROUNDS=5 scripts/inprocess_vs_uci.sh        # more alternations on a busy machine
#
# Both matches play the same openings with the same hash size, so they do the same work.
# The two routes alternate ROUNDS times so that background load hits both alike; the
# median ratio is the figure to quote.
set -euo pipefail
cd "$(dirname "$0")/.."
NODES=${NODES:-5000}
PAIRS=${PAIRS:-40}
CONCURRENCY=${CONCURRENCY:-1}
HASH=${HASH:-8}
ROUNDS=${ROUNDS:-3}
cargo build --release --quiet -p occam -p tuner
TUNER=target/release/tuner
ENGINE=${OCCAM_UCI:-target/release/occam}
common=(--nodes "$NODES" --pairs "$PAIRS" --concurrency "$CONCURRENCY" --hash "$HASH" --seed 1)

speed() { grep -o 'Speed: [0-9.]* games/s' | grep -o '[0-9.]*' | head -1; }
play() {
    local out
    out=$("$TUNER" match "$@" "${common[@]}" 2>/dev/null)
    # A faulting engine ends its games early: its speed would mean nothing.
    if grep -q 'Faults of' <<<"$out"; then
        echo "engine faults during the measurement:" >&2
        grep 'Faults of' <<<"$out" >&2
        exit 1
    fi
    speed <<<"$out"
}

# One quick game pair first: an engine that does not play over UCI fails here, fast.
"$TUNER" match --engine "cmd=$ENGINE" name=probe-A timeout=5 --engine "cmd=$ENGINE" name=probe-B \
    timeout=5 --nodes 100 --pairs 1 2>/dev/null | grep -q 'Faults of' && {
    echo "$ENGINE does not play games over UCI (faults in a probe pair)" >&2
    exit 1
}
echo "nodes=$NODES pairs=$PAIRS concurrency=$CONCURRENCY hash=${HASH}MB rounds=$ROUNDS"
ratios=()
for round in $(seq "$ROUNDS"); do
    inprocess=$(play --a name=A,compiled --b name=B,compiled)
    uci=$(play --engine "cmd=$ENGINE" name=uci-A "option.Hash=$HASH" \
        --engine "cmd=$ENGINE" name=uci-B "option.Hash=$HASH")
    ratio=$(awk -v a="$inprocess" -v b="$uci" 'BEGIN { printf "%.2f", a / b }')
    ratios+=("$ratio")
    echo "round $round: in-process $inprocess games/s, UCI $uci games/s, ratio ${ratio}x"
done
median=$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
echo "median ratio in-process / UCI: ${median}x"
