#!/usr/bin/env bash
# The write-back gate in real games: the main job's tune (2,000 pairs at 8,000 nodes,
# `tuner spsa params/search.json` on its defaults) from the shipped, tuned values, on
# several seeds; where the gate wrote, the written values against the start in a
# 2,000-pair match at 8,000 nodes.
#
#   scripts/gate_real_games.sh [seeds...]        (default: 1 2 3 4 5)
#
# GAINS=file (the default) tunes a copy of params/search.json as it is, with its
# hand-set c_end/r_end; GAINS=design a copy without them, so that the design chooses c
# and r. Each seed is a leg of its own, in runs/gate-real/<gains>-seed<N>/: the tune,
# then the match if the gate wrote. A leg killed midway continues where it stopped
# when the script is run again (the tune's --resume, the match's --resume); a
# finished leg is skipped. Each finished leg adds one row to
# docs/data/gate-real-games.csv: seed, gains, the tuner's commit, the gate's figure,
# and the match's W-D-L, pentanomial counts and Elo where one was played. About 36
# minutes a tune and 28 a match on two cores with a release build. For a smoke test
# of the script itself: SPSA_ARGS="--pairs 20 --nodes 200 --force-write" MATCH_PAIRS=3
# OUT=/tmp/x.csv (its rows then say nothing of the gate).
set -euo pipefail
cd "$(dirname "$0")/.."

tuner=${TUNER:-target/release/tuner}
out=${OUT:-docs/data/gate-real-games.csv}
[[ -x $tuner ]] || { echo "error: '$tuner' is not a tuner binary (cargo build --release -p tuner)" >&2; exit 2; }
seeds=("$@")
[[ ${#seeds[@]} -gt 0 ]] || seeds=(1 2 3 4 5)
commit=$(git rev-parse --short HEAD)
gains=${GAINS:-file}
[[ $gains == file || $gains == design ]] || { echo "error: GAINS must be 'file' or 'design', got '$gains'" >&2; exit 2; }
[[ -f $out ]] || echo "seed,gains,tuner,date,gate,gain_pairs,gain_elo,gain_error95,match_pairs,w,d,l,penta,match_elo,match_error95" >"$out"

# The copy the leg tunes: params/search.json as it is, or without c_end and r_end
# (the design plays every parameter).
start_copy() {
    if [[ $gains == file ]]; then
        cp params/search.json "$1"
        return
    fi
    python3 - "$1" <<'EOF'
import json, sys
doc = json.load(open("params/search.json"))
for p in doc["params"]:
    p.pop("c_end", None)
    p.pop("r_end", None)
json.dump(doc, open(sys.argv[1], "w"), indent=1)
EOF
}

leg() {
    local seed=$1 dir=runs/gate-real/$gains-seed$1
    if grep -q "^$seed,$gains," "$out"; then
        echo "seed $seed: done (row in $out)"
        return
    fi
    [[ -z ${SPSA_ARGS:-} ]] || dir=$dir-smoke
    mkdir -p "$dir/params"
    local journal=$dir/search.spsa.jsonl resume=()
    if [[ -f $journal ]]; then
        resume=(--resume)
    else
        start_copy "$dir/params/search.json"
    fi
    if [[ ! -f $dir/tune.log ]] || ! grep -qE '^(wrote|spsa: kept)' "$dir/tune.log"; then
        "$tuner" spsa "$dir/params/search.json" --journal "$journal" --seed "$seed" "${resume[@]}" \
            ${SPSA_ARGS:-} 2>&1 |
            tee "$dir/tune.log"
    fi
    local gate_line figure gate=kept
    gate_line=$(grep -E '^(wrote|spsa: kept)' "$dir/tune.log" | tail -1)
    [[ $gate_line == wrote* ]] && gate=wrote
    # "the gain pairs measured +1.2 ± 3.4 Elo (95%, 1000 pairs)"
    figure=$(grep -oE 'measured [-+0-9.]+ ± [0-9.]+ Elo \(95%, [0-9]+ pairs' <<<"$gate_line" |
        sed -E 's/measured ([-+0-9.]+) ± ([0-9.]+) Elo \(95%, ([0-9]+) pairs/\3,\1,\2/')
    local match_cells=",,,,,,"
    if [[ $gate == wrote ]]; then
        local results=$dir/match.jsonl mresume=()
        [[ -f $results ]] && mresume=(--resume)
        "$tuner" match --a "name=tuned,$dir/params/search.json" --b name=start,params/search.json \
            --nodes 8000 --pairs "${MATCH_PAIRS:-2000}" --concurrency 2 --seed $((1000 + seed)) \
            --results "$results" "${mresume[@]}" 2>&1 | tee "$dir/match.log"
        match_cells=$(python3 - "$dir/match.log" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
games = re.findall(r"Games: (\d+), Wins: (\d+), Losses: (\d+), Draws: (\d+)", text)[-1]
penta = re.findall(r"Ptnml\(0-2\): \[([0-9, ]+)\]", text)[-1].replace(" ", "").replace(",", " ")
elo = re.findall(r"^Elo: ([-+]?[0-9.]+) \+/- ([0-9.nan]+)", text, re.M)[-1]
n, w, l, d = games
print(f"{int(n) // 2},{w},{d},{l},{penta},{elo[0]},{elo[1]}")
EOF
)
    fi
    echo "$seed,$gains,$commit,$(date -u +%Y-%m-%d),$gate,${figure:-,,},$match_cells" >>"$out"
    echo "seed $seed: $gate_line"
}

for seed in "${seeds[@]}"; do
    leg "$seed"
done
echo "wrote $out"
