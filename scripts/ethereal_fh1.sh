#!/usr/bin/env bash
# Ethereal 12's first-move fail-high rate, counted the way `occam bench --stats` counts
# its own: beta cut-offs in the main search's move loop (root excluded) on the first
# move searched, overall and at nodes without a TT move. A reference point for
# Occam's own rate: what the engine we measure ourselves against reaches.
#
#   scripts/ethereal_fh1.sh [depth, default 13] [work dir, default /tmp/ethereal-fh1]
#
# Source: Debian's ethereal-chess 12.00+ds1 tarball, the source of the opponent binary
# in ../shared/OPPONENTS.md (fetched into the work dir), or ETHEREAL_SRC=dir, a copy of
# Ethereal (GPL-3) at tag V12.00. The script adds four counters to a scratch copy
# (nothing of Ethereal is kept in this repository), builds it and runs its bench
# twice: as shipped (TT cleared between positions, histories kept) and with the
# histories reset too, as Occam's bench does ("cold"). Needs curl, gcc, python3, and
# for the Debian source (which leaves out the bundled Fathom) libfathom-dev, installed
# with apt-get when missing. Single-threaded; at depth 13 each bench takes a few seconds.
set -euo pipefail

depth=${1:-13}
work=${2:-/tmp/ethereal-fh1}
if ! [[ "$depth" =~ ^[1-9][0-9]*$ ]]; then
  echo "error: depth must be a positive integer, got '$depth'" >&2
  exit 2
fi
mkdir -p "$work"
src="$work/src"
debian=https://deb.debian.org/debian/pool/main/e/ethereal-chess/ethereal-chess_12.00+ds1.orig.tar.xz
if [[ -n "${ETHEREAL_SRC:-}" ]]; then
  rm -rf "$src" && cp -r "$ETHEREAL_SRC" "$src"
elif [[ ! -d "$src" ]]; then
  curl -sSf -o "$work/ethereal.tar.xz" "$debian" \
    || { echo "error: could not download $debian (or set ETHEREAL_SRC)" >&2; exit 1; }
  mkdir -p "$src" && tar -xf "$work/ethereal.tar.xz" -C "$src" --strip-components 1
fi
[[ -f "$src/src/search.c" ]] || { echo "error: $src/src/search.c not found: not Ethereal's source" >&2; exit 1; }

python3 - "$src/src" <<'EOF'
import sys, pathlib
d = pathlib.Path(sys.argv[1])
search = (d / "search.c").read_text()
board = (d / "board.c").read_text()
if "FH_ALL" not in search:
    cut = "                // Search failed high\n                if (alpha >= beta) break;"
    assert cut in search, "search.c is not Ethereal 12's: the fail-high break was not found"
    search = search.replace(cut,
        "                // Search failed high\n"
        "                if (alpha >= beta) {\n"
        "                    if (!RootNode) {\n"
        "                        FH_ALL++, FH_FIRST += played == 1;\n"
        "                        if (ttMove == NONE_MOVE) FH_NOTT++, FH_NOTT_FIRST += played == 1;\n"
        "                    }\n"
        "                    break;\n"
        "                }", 1)
    search = search.replace('#include "search.h"',
        '#include "search.h"\nunsigned long long FH_ALL, FH_FIRST, FH_NOTT, FH_NOTT_FIRST;', 1)
    (d / "search.c").write_text(search)
if "FH_COLD" not in board:
    clear = "        clearTT(); // Reset TT for new search"
    report = '    printf("Time  : %dms\\n"'
    assert clear in board and report in board, "board.c is not Ethereal 12's bench"
    board = board.replace(clear, clear + '\n        if (getenv("FH_COLD")) resetThreadPool(threads);', 1)
    board = board.replace(report,
        "    { extern unsigned long long FH_ALL, FH_FIRST, FH_NOTT, FH_NOTT_FIRST;\n"
        '      printf("fh1 %.2f%% of %llu cut-offs; without a TT move %.2f%% of %llu\\n",\n'
        "             100.0 * FH_FIRST / FH_ALL, FH_ALL, 100.0 * FH_NOTT_FIRST / FH_NOTT, FH_NOTT); }\n"
        + report, 1)
    board = "#include <stdlib.h>\n" + board
    (d / "board.c").write_text(board)
EOF

# Ethereal's makefile flags (popcnt target); the bundled Fathom if present, else the system's.
flags=(-std=gnu11 -DNDEBUG -O3 -march=native -flto -DUSE_POPCNT -msse3 -mpopcnt)
if [[ -f "$src/src/fathom/tbprobe.c" ]]; then
  sources=("$src"/src/*.c "$src/src/fathom/tbprobe.c"); libs=(-lpthread -lm)
else
  if [[ ! -f /usr/include/tbprobe.h ]]; then
    apt-get install -y -q libfathom-dev >"$work/apt.log" 2>&1 \
      || { echo "error: libfathom-dev is needed (apt-get install libfathom-dev), see $work/apt.log" >&2; exit 1; }
  fi
  sed -i 's|"fathom/tbprobe.h"|<tbprobe.h>|' "$src"/src/*.c
  sources=("$src"/src/*.c); libs=(-lfathom -lpthread -lm)
fi
bin="$src/src/ethereal-fh1"
gcc "${flags[@]}" "${sources[@]}" "${libs[@]}" -o "$bin" >"$work/build.log" 2>&1 \
  || { echo "error: the build failed, see $work/build.log" >&2; exit 1; }
for mode in shipped cold; do
  if [[ $mode == cold ]]; then out=$(FH_COLD=1 "$bin" bench "$depth"); else out=$("$bin" bench "$depth"); fi
  echo "ethereal 12 bench $depth ($mode): $(grep '^fh1' <<<"$out"), $(grep '^Nodes' <<<"$out" | tr -s ' ')"
done
