#!/usr/bin/env bash
# Games per second of `tuner spsa` on Occam in-process and on Occam over UCI
# (`--engine cmd=occam`: θ± by setoption to two long-lived processes per worker), at
# each node count, interleaved in one run so that background load hits both alike.
#
#   scripts/spsa_inprocess_vs_uci.sh                       # 1000 and 8000 nodes, 2 threads
#   NODES="1000 8000" PAIRS="200 40" THREADS=2 ROUNDS=1 scripts/spsa_inprocess_vs_uci.sh
#   TUNER=... OCCAM=... scripts/spsa_inprocess_vs_uci.sh   # other builds (default: release, built first)
#
# Both routes tune every search parameter of a copy of params/search.json with the same
# seed, openings and hash size; nothing is written back (--no-write). Run it on an idle
# machine, or under a CPU lock shared with other jobs (flock LOCKFILE scripts/...).
set -euo pipefail
cd "$(dirname "$0")/.."
read -r -a nodes <<<"${NODES:-1000 8000}"
read -r -a pairs <<<"${PAIRS:-200 40}"
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-1}
if [[ -z "${TUNER:-}" || -z "${OCCAM:-}" ]]; then
    cargo build --release --quiet -p occam -p tuner
fi
TUNER=${TUNER:-target/release/tuner}
OCCAM=$(realpath "${OCCAM:-target/release/occam}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# games/s of one tune, from its closing line `spsa: N games in S s (G games/s)`.
tune() {
    local dir
    dir=$(mktemp -d -p "$work")
    cp params/search.json "$dir/"
    # The journal in the tune's own folder, not in the run folder: every round is a new run.
    "$TUNER" spsa "$dir/search.json" --journal "$dir/search.spsa.jsonl" --threads "$THREADS" \
        --no-write --seed 1 "$@" 2>&1 >/dev/null |
        tee "$dir/log" | grep -o '([0-9.]* games/s)' | grep -o '[0-9.]*' | tail -1
    if grep -q 'faults of' "$dir/log"; then
        echo "engine faults during the measurement:" >&2
        grep 'faults of' "$dir/log" >&2
        exit 1
    fi
}

echo "threads=$THREADS rounds=$ROUNDS tuner=$TUNER occam=$OCCAM"
for round in $(seq "$ROUNDS"); do
    for i in "${!nodes[@]}"; do
        n=${nodes[$i]}
        p=${pairs[$i]:-${pairs[0]}}
        inprocess=$(tune --nodes "$n" --pairs "$p")
        uci=$(tune --nodes "$n" --pairs "$p" --engine "cmd=$OCCAM")
        ratio=$(awk -v a="$inprocess" -v b="$uci" 'BEGIN { printf "%.2f", a / b }')
        echo "round $round, nodes $n, $p pairs: in-process $inprocess games/s, UCI $uci games/s, in-process/UCI ${ratio}x"
    done
done
