#!/usr/bin/env bash
# Profile-guided (PGO) release build of the `occam` engine and, with --tuner, of the
# `tuner` (whose in-process games are the lab's throughput), the way Stockfish's
# `make profile-build` does it:
#
#   1. build instrumented binaries (rustc -Cprofile-generate) in target/pgo/gen,
#   2. training run, deterministic and short: `occam bench` (default depth) and, with
#      --tuner, a few fixed-node in-process games of the instrumented tuner (the game
#      loop around the same search: new games, TT reuse between moves, adjudication),
#   3. merge the raw profiles with llvm-profdata (rustup's llvm-tools component: its
#      LLVM must be rustc's, older ones cannot read the files),
#   4. build again with -Cprofile-use in target/pgo/use, so LLVM lays out, inlines and
#      orders code for the measured paths.
#
#   scripts/build_pgo.sh [--frozen] [--tuner] [EXE]
#
#   --frozen  build with `--features occam/frozen` (every parameter a compiled-in
#             constant); the profile is recorded with a frozen instrumented build.
#   --tuner   also build the `tuner` with the profile, and train on its games too.
#   EXE       where to copy the engine (default target/pgo/occam, or
#             target/pgo/occam-frozen with --frozen); the tuner goes next to it as
#             `tuner` (or `tuner-frozen`).
#
# Both builds compile the same packages with the same features: the profile names
# functions by their mangled symbols, whose hashes depend on the crate graph (the tuner
# turns on features of shared crates), so a different graph would silently match
# nothing. The ordinary `cargo build --release` output (target/release) is untouched.
#
# The search is unchanged: the script checks that the optimised engine's bench node
# count equals the instrumented one's (and, on x86-64, that the binary uses POPCNT, the
# project's .cargo/config.toml flag, which the extra flags here are added to, not
# replacing it). Needs the Rust toolchain from rustup with the llvm-tools component
# (`rustup component add llvm-tools`); LLVM_PROFDATA=path overrides the llvm-profdata it
# uses (its LLVM major version must match rustc's). Safe to rerun: old raw profiles are
# deleted first. Two fat-LTO builds: run it under `nice -n 19` on a busy machine.
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

# llvm-profdata whose LLVM major version is rustc's (the system's is usually older).
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

# The extra flags go into target.<host>.rustflags, which cargo joins with the project's
# target.'cfg(...)'.rustflags (.cargo/config.toml: POPCNT); RUSTFLAGS would replace
# them. `--target` keeps them off build scripts and proc macros (an instrumented
# build.rs would write profiles too; a proc macro must be position-independent). On
# x86-64 Linux both builds are non-PIE executables, as the Makefile's (see there).
host_flags=()
[[ "$host" == x86_64-unknown-linux-gnu ]] && host_flags=(-Crelocation-model=static)
build() { # <target dir> <rustflag>
  local flags=("$2" "${host_flags[@]}") list="" f
  for f in "${flags[@]}"; do list+="${list:+,}\"$f\""; done
  CARGO_TARGET_DIR=$1 cargo build --release --locked --target "$host" \
    "${pkgs[@]}" "${features[@]}" --config "target.$host.rustflags=[$list]"
}
bench_nodes() { # <occam binary>: the node count of `occam bench` (last line `N nodes M nps`)
  "$1" bench | awk '/ nodes .* nps$/ { n = $1 } END { print n }'
}
put() { # <file> <destination>: replaced atomically
  mkdir -p "$(dirname "$2")"
  cp "$1" "$2.tmp.$$"
  mv -f "$2.tmp.$$" "$2"
}

echo "== 1/4 instrumented build (target/pgo/gen$suffix)" >&2
build "$work/gen$suffix" "-Cprofile-generate=$profiles"
gen_dir=$work/gen$suffix/$host/release

echo "== 2/4 training run" >&2
unset LLVM_PROFILE_FILE # would send the profiles elsewhere
rm -rf "$profiles"
mkdir -p "$profiles"
echo "occam bench" >&2
gen_nodes=$(bench_nodes "$gen_dir/occam")
[[ -n "$gen_nodes" ]] || die "the instrumented engine's bench printed no node count"
if ((tuner)); then
  # Fixed nodes and one game at a time: the same games, hence the same profile, on
  # every run. 2000 nodes per move over 8 games is about as many nodes as the bench.
  training=(match --a name=a,compiled --b name=b,compiled --nodes 2000 --pairs 4 --concurrency 1)
  echo "tuner ${training[*]}" >&2
  "$gen_dir/tuner" "${training[@]}" >"$work/training$suffix.log" 2>&1 ||
    die "the instrumented tuner's training games failed (output: $work/training$suffix.log)"
fi
compgen -G "$profiles/*.profraw" >/dev/null || die "the training run wrote no profile to $profiles"

echo "== 3/4 merging profiles ($profdata)" >&2
merged=$profiles/merged.profdata
"$profdata" merge -o "$merged" "$profiles"/*.profraw
# The profile's content in its name: a new profile changes the rustflags, so cargo
# rebuilds with it instead of reusing artifacts optimised for an older one.
sum=$(cksum <"$merged" | cut -d ' ' -f 1)
mv -f "$merged" "$profiles/occam-$sum.profdata"

echo "== 4/4 optimised build (target/pgo/use$suffix)" >&2
build "$work/use$suffix" "-Cprofile-use=$profiles/occam-$sum.profdata"
out_dir=$work/use$suffix/$host/release

use_nodes=$(bench_nodes "$out_dir/occam")
if [[ "$use_nodes" != "$gen_nodes" ]]; then
  die "bench node counts differ: instrumented $gen_nodes, optimised $use_nodes (the optimised build is not the same engine)"
fi
if [[ "$host" == x86_64-* ]] && command -v objdump >/dev/null; then
  popcnts=$(objdump -d --no-show-raw-insn "$out_dir/occam" | grep -c popcnt || true)
  ((popcnts > 0)) || die "$out_dir/occam has no POPCNT instruction: the target-feature of .cargo/config.toml was lost"
fi

put "$out_dir/occam" "$exe"
echo "PGO engine: $exe (bench $use_nodes nodes, same as the instrumented build)"
if ((tuner)); then
  put "$out_dir/tuner" "$(dirname "$exe")/tuner$suffix"
  echo "PGO tuner:  $(dirname "$exe")/tuner$suffix"
fi
