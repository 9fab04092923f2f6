#!/usr/bin/env bash
# Profile-guided build of the `occam` engine (the fastest binary this project makes),
# the way Stockfish's `make profile-build` does it:
#
#   1. build an instrumented engine (rustc -Cprofile-generate),
#   2. run `occam bench` with it to record which branches and calls are hot,
#   3. merge the raw profiles with llvm-profdata (the one from rustup's llvm-tools
#      component: its LLVM must be the one rustc uses, older ones cannot read the files),
#   4. build again with -Cprofile-use, so LLVM lays out, inlines and orders code for
#      the measured paths.
#
#   scripts/build_pgo.sh [--frozen] [--tuner] [EXE]
#
#   --frozen  build with `--features frozen` (every parameter a compiled-in constant);
#             the profile is recorded with a frozen instrumented build, so it matches.
#   --tuner   also build the `tuner` binary with the same profile (its in-process games
#             run the same engine code; functions the profile does not cover are
#             compiled as usual).
#   EXE       where to copy the engine (default target/pgo/occam, or
#             target/pgo/occam-frozen with --frozen); the tuner goes next to it as
#             `tuner` (or `tuner-frozen`).
#
# The search is unchanged: the script checks that the optimised engine's bench node
# count equals the instrumented one's. Needs the Rust toolchain from rustup with the
# llvm-tools component (`rustup component add llvm-tools`); LLVM_PROFDATA=path
# overrides the llvm-profdata it uses (its LLVM major version must match rustc's).
# Work files go to target/pgo/ (separate target dirs, so ordinary builds are untouched).
set -euo pipefail
cd "$(dirname "$0")/.."

frozen=0 tuner=0 exe=""
for arg in "$@"; do
  case "$arg" in
    --frozen) frozen=1 ;;
    --tuner) tuner=1 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "error: unknown option '$arg' (allowed: --frozen, --tuner, EXE path)" >&2; exit 2 ;;
    *)
      [[ -z "$exe" ]] || { echo "error: more than one EXE given ('$exe', '$arg')" >&2; exit 2; }
      exe=$arg ;;
  esac
done

die() { echo "error: $*" >&2; exit 2; }
command -v cargo >/dev/null && command -v rustc >/dev/null ||
  die "cargo/rustc not found: install the Rust toolchain (https://rustup.rs)"

host=$(rustc -vV | sed -n 's/^host: //p')
rustc_llvm=$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
[[ -n "$host" && -n "$rustc_llvm" ]] || die "cannot read the host triple and LLVM version from 'rustc -vV'"

# llvm-profdata whose LLVM major version is rustc's.
profdata=${LLVM_PROFDATA:-$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata}
if [[ ! -x "$profdata" ]]; then
  die "llvm-profdata for LLVM $rustc_llvm not found at $profdata: run 'rustup component add llvm-tools' (or set LLVM_PROFDATA to an llvm-profdata of LLVM $rustc_llvm)"
fi
# (Old llvm-profdata builds reject `--version`: then the version reads as unknown.)
profdata_llvm=$({ "$profdata" --version 2>/dev/null || true; } | sed -n 's/.*LLVM version \([0-9]*\).*/\1/p' | head -n 1)
if [[ "$profdata_llvm" != "$rustc_llvm" ]]; then
  die "$profdata is LLVM ${profdata_llvm:-unknown}, rustc uses LLVM $rustc_llvm: run 'rustup component add llvm-tools' (or set LLVM_PROFDATA to an llvm-profdata of LLVM $rustc_llvm)"
fi

suffix="" features=()
if ((frozen)); then suffix="-frozen"; features=(--features occam/frozen); fi
work=$PWD/target/pgo
profiles=$work/profiles$suffix
exe=${exe:-$work/occam$suffix}
pkgs=(-p occam --bin occam)
((tuner)) && pkgs+=(-p tuner --bin tuner)

# The extra rustflags go into target.<host>.rustflags, which cargo joins with the
# project's target.'cfg(...)'.rustflags (.cargo/config.toml: POPCNT), and `--target`
# keeps them off build scripts (an instrumented build.rs would write profiles too).
build() { # <target dir> <rustflag>
  local tdir=$1 flag=$2
  CARGO_TARGET_DIR=$tdir cargo build --release --locked --target "$host" \
    -p occam --bin occam "${features[@]}" \
    --config "target.$host.rustflags=[\"$flag\"]"
}

echo "== 1/4 instrumented build (target/pgo/gen$suffix)" >&2
rm -rf "$profiles"
mkdir -p "$profiles"
build "$work/gen$suffix" "-Cprofile-generate=$profiles"
gen_exe=$work/gen$suffix/$host/release/occam

echo "== 2/4 training run: occam bench" >&2
gen_nodes=$("$gen_exe" bench | awk '/ nodes .* nps$/ { n = $1 } END { print n }')
[[ -n "$gen_nodes" ]] || die "the instrumented engine's bench printed no node count"
compgen -G "$profiles/*.profraw" >/dev/null || die "the training run wrote no profile to $profiles"

echo "== 3/4 merging profiles ($profdata)" >&2
"$profdata" merge -o "$profiles/occam.profdata" "$profiles"/*.profraw

echo "== 4/4 optimised build (target/pgo/use$suffix)" >&2
CARGO_TARGET_DIR=$work/use$suffix cargo build --release --locked --target "$host" \
  "${pkgs[@]}" "${features[@]}" \
  --config "target.$host.rustflags=[\"-Cprofile-use=$profiles/occam.profdata\"]"
out_dir=$work/use$suffix/$host/release

use_nodes=$("$out_dir/occam" bench | awk '/ nodes .* nps$/ { n = $1 } END { print n }')
if [[ "$use_nodes" != "$gen_nodes" ]]; then
  die "bench node counts differ: instrumented $gen_nodes, optimised $use_nodes (the optimised build is not the same engine)"
fi
mkdir -p "$(dirname "$exe")"
cp "$out_dir/occam" "$exe"
echo "PGO engine: $exe (bench $use_nodes nodes, same as the instrumented build)"
if ((tuner)); then
  cp "$out_dir/tuner" "$(dirname "$exe")/tuner$suffix"
  echo "PGO tuner:  $(dirname "$exe")/tuner$suffix"
fi
