#!/usr/bin/env python3
"""A deliberately broken UCI engine, for testing that matches survive bad opponents.

Usage: fake_engine.py MODE [SECONDS]
       fake_engine.py proxy ENGINE [FAULTS]
  crash    exits with status 3 when asked to move
  illegal  answers every `go` with an illegal move (bestmove a1a1)
  hang     never answers `go` (still answers isready, and quits on `quit`)
  slow     sleeps SECONDS (default 1.5) before answering, then plays a1a1;
           under a clock shorter than that it loses on time
  nostart  exits at once without answering `uci`
  proxy    passes everything to the real engine ENGINE (its options too, so it can be
           tuned) and injects FAULTS at chosen moves: a comma-separated list of
           crash@N, illegal@N, hang@N, slow@N:SECONDS, where N counts the `go` commands
           of every process of a run (through the FAKE_ENGINE_LOG file, which is then
           required; run one game at a time for a fixed schedule)

It handles the UCI handshake correctly so that the fault shows up in the game.
When FAKE_ENGINE_LOG names a file, every start appends a line to it (tests count the
restarts), and in proxy mode every `go` too.
"""

import os
import subprocess
import sys
import threading
import time

MODES = ("crash", "illegal", "hang", "slow", "nostart", "proxy")


def proxy(engine: str, faults: str, log: str) -> int:
    """Relays UCI between stdin/stdout and ENGINE, with the scheduled faults."""
    schedule = {}
    for item in filter(None, faults.split(",")):
        kind, _, at = item.partition("@")
        number, _, seconds = at.partition(":")
        schedule[int(number)] = (kind, float(seconds or 0))
    child = subprocess.Popen(
        [engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
    )

    def relay() -> None:
        for line in child.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()

    threading.Thread(target=relay, daemon=True).start()
    try:
        for raw in sys.stdin:
            words = raw.split()
            if words and words[0] == "go":
                with open(log, "a", encoding="utf-8") as f:
                    f.write("go\n")
                with open(log, encoding="utf-8") as f:
                    n = sum(1 for line in f if line.startswith("go"))
                kind, seconds = schedule.get(n, ("", 0.0))
                if kind == "crash":
                    return 3
                if kind == "hang":
                    continue
                if kind == "illegal":
                    print("bestmove a1a1", flush=True)
                    continue
                if kind == "slow":
                    time.sleep(seconds)
            child.stdin.write(raw)
            child.stdin.flush()
            if words and words[0] == "quit":
                child.wait(timeout=5)
                return 0
    finally:
        child.kill()
    return 0


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in MODES:
        print(f"usage: fake_engine.py {{{'|'.join(MODES)}}} [SECONDS]", file=sys.stderr)
        return 2
    mode = sys.argv[1]
    log = os.environ.get("FAKE_ENGINE_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(f"start {mode}\n")
    if mode == "proxy":
        if len(sys.argv) < 3 or not log:
            print("usage: FAKE_ENGINE_LOG=FILE fake_engine.py proxy ENGINE [FAULTS]", file=sys.stderr)
            return 2
        return proxy(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "", log)
    delay = float(sys.argv[2]) if len(sys.argv) > 2 else 1.5
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
