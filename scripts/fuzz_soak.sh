#!/usr/bin/env bash
# UCI fuzz soak: feeds the real occam binary generated hostile input (see
# tests/src/fuzz.rs) in sessions of 100-400 lines and prints the totals
# (lines, sessions, hangs, panics, malformed bestmoves).
#
#   scripts/fuzz_soak.sh [lines, default 1000000] [seed, default 1] [engine binary]
#
# Runs in the test profile (overflow checks on) against that profile's occam,
# unless an engine binary is given. Each failing session's input is kept in
# target/fuzz-failures/ for replay: occam < target/fuzz-failures/fuzz-SEED-N.txt
set -euo pipefail
cd "$(dirname "$0")/.."

export OCCAM_FUZZ_LINES=${1:-1000000}
export OCCAM_FUZZ_SEED=${2:-1}
if [ -n "${3:-}" ]; then
    OCCAM_FUZZ_BINARY=$(realpath "$3")
    export OCCAM_FUZZ_BINARY
fi
cargo test --quiet -p occam-tests --test fuzz soak_run -- --ignored --nocapture
