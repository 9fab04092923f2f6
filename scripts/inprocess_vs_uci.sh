#!/usr/bin/env bash
# Games per second of the same engine at the same fixed nodes, played in-process by the
# tuner and over UCI pipes (two `occam` processes), measured back to back in one run.
#
#   scripts/inprocess_vs_uci.sh                 # 40 pairs at 5000 nodes, 1 game at a time
#   NODES=2000 PAIRS=100 CONCURRENCY=2 scripts/inprocess_vs_uci.sh
#   OCCAM_UCI=/path/to/occam scripts/inprocess_vs_uci.sh   # another UCI build of the engine
#
# Both matches play the same openings with the same hash size, so they do the same work.
set -euo pipefail
cd "$(dirname "$0")/.."
NODES=${NODES:-5000}
PAIRS=${PAIRS:-40}
CONCURRENCY=${CONCURRENCY:-1}
HASH=${HASH:-8}
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

inprocess=$(play --a name=A,compiled --b name=B,compiled)
uci=$(play --engine "cmd=$ENGINE" name=uci-A "option.Hash=$HASH" \
    --engine "cmd=$ENGINE" name=uci-B "option.Hash=$HASH")
echo "nodes=$NODES pairs=$PAIRS concurrency=$CONCURRENCY hash=${HASH}MB"
echo "in-process: $inprocess games/s"
echo "UCI:        $uci games/s"
awk -v a="$inprocess" -v b="$uci" 'BEGIN { printf "ratio in-process / UCI: %.2fx\n", a / b }'
