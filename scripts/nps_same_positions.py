#!/usr/bin/env python3
"""Occam's search speed against another UCI engine's on the same positions.

    scripts/nps_same_positions.py OPPONENT --build "Ethereal 12.75, make popcnt"
        [--ms 250] [--rounds 2] [--hash 16] [--engine target/release/occam]

Each engine's own `bench` searches its own positions, so a ratio of two benches
(scripts/nps_vs_ethereal.sh) mixes speed with what the positions ask of a search.
Here both engines search the positions of engine/src/bench.rs for the same time
(`go movetime MS` after `ucinewgame`), each in one long-lived process as in a game,
interleaved (the order alternating by position) so drifts in machine load hit both
alike. Nodes and time are each engine's own last `info` line with a PV: both count a
node at every entry of the main search and of the q-search (Ethereal's and Occam's
convention), so the ratio is of nodes per second, not of work per node.

Prints per position each engine's depth, nodes and time, then the ratio of total
nodes over total time, the median of the per-position ratios, the name and sha256 of
the opponent's build and the load average. Wall-clock figures: run it on an otherwise
idle machine and report the load with them.
"""

import argparse
import hashlib
import os
import statistics
import sys

from smp_bench import ROOT, Engine, bench_positions


def search(engine, fen, ms):
    """(depth, nodes, time in ms) of the last info line with a PV."""
    engine.send("ucinewgame")
    engine.send(f"position fen {fen}")
    engine.send("isready")
    engine.until("readyok")
    engine.send(f"go movetime {ms}")
    last = None
    for line in engine.until("bestmove"):
        f = line.split()
        if f[:1] == ["info"] and "pv" in f and "nodes" in f and "time" in f:
            last = tuple(int(f[f.index(k) + 1]) for k in ("depth", "nodes", "time"))
    if last is None:
        sys.exit(f"error: no info line with depth, nodes, time and a PV for {fen}")
    return last


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:8]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("opponent", help="the other engine's binary")
    ap.add_argument("--build", required=True, help='how the opponent was built, e.g. "Ethereal 12.75, make popcnt"')
    ap.add_argument("--ms", type=int, default=250, help="time a position, in ms [250]")
    ap.add_argument("--rounds", type=int, default=2, help="passes over the positions [2]")
    ap.add_argument("--hash", type=int, default=16, help="hash in MB, both engines [16]")
    ap.add_argument("--engine", default=os.path.join(ROOT, "target/release/occam"))
    a = ap.parse_args()
    if a.ms < 1 or a.rounds < 1 or a.hash < 1:
        sys.exit("error: --ms, --rounds and --hash must be positive")
    for path in (a.engine, a.opponent):
        if not os.access(path, os.X_OK):
            sys.exit(f"error: '{path}' is not an executable")
    engines = {"occam": Engine(a.engine), "opponent": Engine(a.opponent)}
    for e in engines.values():
        e.setoption("Hash", a.hash)
        e.setoption("Threads", 1)
    totals = {k: [0, 0] for k in engines}
    ratios = []
    print(f"{'pos':>5} {'occam depth/nodes/ms':>24} {'opponent depth/nodes/ms':>26}")
    fens = bench_positions()
    for r in range(a.rounds):
        for i, fen in enumerate(fens):
            order = ["occam", "opponent"] if (i + r) % 2 == 0 else ["opponent", "occam"]
            got = {k: search(engines[k], fen, a.ms) for k in order}
            for k, (_, nodes, ms) in got.items():
                totals[k][0] += nodes
                totals[k][1] += ms
            nps = {k: got[k][1] / max(got[k][2], 1) for k in got}
            ratios.append(nps["occam"] / max(nps["opponent"], 1e-9))
            o, p = got["occam"], got["opponent"]
            print(f"{r}.{i:<3} {o[0]:>6} {o[1]:>10} {o[2]:>6} {p[0]:>8} {p[1]:>10} {p[2]:>6}")
    for e in engines.values():
        e.quit()
    nps = {k: totals[k][0] * 1000 // max(totals[k][1], 1) for k in totals}
    print(f"opponent: {a.build}, sha256 {sha256(a.opponent)}; occam sha256 {sha256(a.engine)}")
    print(f"{len(fens)} positions x {a.rounds} rounds, movetime {a.ms} ms, hash {a.hash} MB, "
          f"load average {os.getloadavg()[0]:.1f} at the end")
    print(f"NPS: occam {nps['occam']}, opponent {nps['opponent']}, ratio {nps['occam'] / max(nps['opponent'], 1):.3f}"
          f" (median per position {statistics.median(ratios):.3f})")


if __name__ == "__main__":
    main()
