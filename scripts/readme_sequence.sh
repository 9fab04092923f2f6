#!/usr/bin/env bash
# README's set-up sequence as a new user meets it, on a clean clone: the main job
# through `cargo run` (with a small budget), stopped by Ctrl-C and continued with
# --resume; the test command then runs after it (.ci/run calls it next), so a run's
# files can never break the build again.
#
#   scripts/readme_sequence.sh
#
# It works in place and rewrites params/search.json as the main job does: run it on a
# clean clone (CI does), not in a checkout with work in it.
set -euo pipefail
cd "$(dirname "$0")/.."

journal=runs/search.spsa.jsonl
if [[ -e $journal ]]; then
  echo "error: $journal already holds a run; this script is for a clean clone" >&2
  exit 2
fi
main_job=(cargo run --release -p tuner -- spsa params/search.json)
budget=(--pairs 60 --nodes 300)

echo "== the main job, stopped by Ctrl-C after a few pairs"
status=0
python3 scripts/interrupt_run.py --when-lines "$journal" 6 -- "${main_job[@]}" "${budget[@]}" \
  2>&1 | tee /tmp/readme_sequence.$$ || status=${PIPESTATUS[0]}
if [[ $status -ne 130 ]]; then
  echo "error: the stopped run exited with $status, not 130 (a clean stop)" >&2
  exit 1
fi
grep -q -- "--resume" /tmp/readme_sequence.$$ || { echo "error: no line says how to continue" >&2; exit 1; }
rm -f /tmp/readme_sequence.$$

echo "== continued with --resume"
"${main_job[@]}" "${budget[@]}" --resume
pairs=$(($(wc -l <"$journal") - 1))
[[ $pairs -eq 60 ]] || { echo "error: the journal holds $pairs pairs, not 60" >&2; exit 1; }

echo "== nothing but parameter files beside the parameter files"
stray=$(git status --porcelain --ignored --untracked-files=all params | grep -v -e '^ M ' -e '\.lock$' || true)
[[ -z $stray ]] || { echo "error: files left in params/: $stray" >&2; exit 1; }
echo "readme sequence: ok"
