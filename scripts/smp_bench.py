#!/usr/bin/env python3
"""Lazy SMP figures over the bench positions, 1 thread against N in one run.

    scripts/smp_bench.py [--depth 12] [--threads 2] [--hash 16] [--engine target/release/occam]

For every position of engine/src/bench.rs (read from its POSITIONS list) the engine
searches `go depth D` once with Threads 1 and once with Threads N, interleaved
(1, N, 1, N, ...) so drifts in machine load hit both alike, each after `ucinewgame`.
Prints per position the time to reach depth D (the `time` of its `info depth D`
line) and the nodes, then the totals: NPS of each (all threads' nodes over wall
time), the NPS ratio, and time-to-depth as the ratio of summed times and the
geometric mean of per-position ratios. Wall-clock figures: run it on an otherwise idle
machine (or under a CPU lock shared with other jobs) and report the machine load with them.
"""

import argparse
import math
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def bench_positions():
    text = open(os.path.join(ROOT, "engine/src/bench.rs")).read()
    body = text[text.index("pub const POSITIONS"):]
    body = body[: body.index("];")]
    fens = re.findall(r'"([^"]+)"', body)
    if "crate::position::START_FEN" in body:
        fens.insert(0, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    return fens


class Engine:
    def __init__(self, path):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.send("uci")
        self.until("uciok")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def until(self, token):
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                sys.exit(f"engine ended while waiting for '{token}'")
            lines.append(line.strip())
            if line.startswith(token):
                return lines

    def setoption(self, name, value):
        self.send(f"setoption name {name} value {value}")

    def search(self, fen, depth):
        self.send("ucinewgame")
        self.send(f"position fen {fen}")
        self.send("isready")
        self.until("readyok")
        self.send(f"go depth {depth}")
        lines = self.until("bestmove")
        last = None
        for line in lines:
            f = line.split()
            if f[:2] == ["info", "depth"] and int(f[2]) == depth and "time" in f:
                last = (int(f[f.index("time") + 1]), int(f[f.index("nodes") + 1]))
        if last is None:
            sys.exit(f"no 'info depth {depth}' line for {fen}")
        return last

    def quit(self):
        self.send("quit")
        self.p.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--depth", type=int, default=12)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--hash", type=int, default=16)
    ap.add_argument("--engine", default=os.path.join(ROOT, "target/release/occam"))
    a = ap.parse_args()
    if a.depth < 1 or a.threads < 2 or a.hash < 1:
        sys.exit("error: --depth and --hash must be positive and --threads at least 2")
    engines = {}
    for t in (1, a.threads):
        e = Engine(a.engine)
        e.setoption("Hash", a.hash)
        e.setoption("Threads", t)
        engines[t] = e
    totals = {1: [0, 0], a.threads: [0, 0]}
    ratios = []
    print(f"{'pos':>3} {'ms@1':>7} {'ms@' + str(a.threads):>7} {'nodes@1':>10} {'nodes@' + str(a.threads):>10}")
    for i, fen in enumerate(bench_positions()):
        r = {t: engines[t].search(fen, a.depth) for t in (1, a.threads)}
        for t in r:
            totals[t][0] += r[t][0]
            totals[t][1] += r[t][1]
        ratios.append(max(r[a.threads][0], 1) / max(r[1][0], 1))
        print(f"{i:>3} {r[1][0]:>7} {r[a.threads][0]:>7} {r[1][1]:>10} {r[a.threads][1]:>10}")
    for e in engines.values():
        e.quit()
    nps = {t: totals[t][1] * 1000 // max(totals[t][0], 1) for t in totals}
    n = a.threads
    print(f"depth {a.depth}, hash {a.hash} MB, load average {os.getloadavg()[0]:.1f} at the end")
    print(f"NPS: 1 thread {nps[1]}, {n} threads {nps[n]}, ratio {nps[n] / max(nps[1], 1):.2f}")
    print(
        f"time to depth {a.depth}: 1 thread {totals[1][0]} ms, {n} threads {totals[n][0]} ms, "
        f"ratio {totals[n][0] / max(totals[1][0], 1):.2f} (geometric mean per position "
        f"{math.exp(sum(map(math.log, ratios)) / len(ratios)):.2f})"
    )


if __name__ == "__main__":
    main()
