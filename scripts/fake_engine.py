#!/usr/bin/env python3
"""A deliberately broken UCI engine, for testing that matches survive bad opponents.

Usage: fake_engine.py MODE [SECONDS]
  crash    exits with status 3 when asked to move
  illegal  answers every `go` with an illegal move (bestmove a1a1)
  hang     never answers `go` (still answers isready, and quits on `quit`)
  slow     sleeps SECONDS (default 1.5) before answering, then plays a1a1;
           under a clock shorter than that it loses on time
  nostart  exits at once without answering `uci`

It handles the UCI handshake correctly so that the fault shows up in the game.
When FAKE_ENGINE_LOG names a file, every start appends a line to it (tests count the
restarts).
"""

import os
import sys
import time

MODES = ("crash", "illegal", "hang", "slow", "nostart")


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in MODES:
        print(f"usage: fake_engine.py {{{'|'.join(MODES)}}} [SECONDS]", file=sys.stderr)
        return 2
    mode = sys.argv[1]
    delay = float(sys.argv[2]) if len(sys.argv) > 2 else 1.5
    log = os.environ.get("FAKE_ENGINE_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(f"start {mode}\n")
    if mode == "nostart":
        return 1
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        command = words[0]
        if command == "uci":
            print(f"id name fake-{mode}")
            print("id author Occam tests")
            print("option name Hash type spin default 16 min 1 max 1024")
            print("uciok", flush=True)
        elif command == "isready":
            print("readyok", flush=True)
        elif command == "quit":
            return 0
        elif command == "go":
            if mode == "crash":
                sys.stdout.flush()
                return 3
            if mode == "hang":
                continue
            if mode == "slow":
                time.sleep(delay)
            print("info depth 1 score cp 0 nodes 1 pv a1a1")
            print("bestmove a1a1", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
