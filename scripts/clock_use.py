#!/usr/bin/env python3
"""How each player of a PGN spent its clock, by stage of the game.

    scripts/clock_use.py GAMES.pgn [STAGE]

Reads the move comments `tuner match --pgn` writes (`{+0.35 0.231s}`: the mover's
score and the time the move took, as cutechess writes them) and prints, per player,
the moves timed, the mean time a move, and the mean time a move in stages of STAGE
moves after the opening (default 10; the last stage holds every later move). Where
`tuner match` says how much of its clock a side used, this says when it used it: an
engine that thinks longer early and lives on its increment later, or one that keeps
a reserve it never spends.
"""

import re
import sys
from collections import defaultdict

TIME = re.compile(r"(\d+(?:\.\d+)?)s$")
TOKEN = re.compile(r"\{[^}]*\}|\S+")
STAGES = 7


def games(text):
    """(tags, movetext) of each game."""
    for chunk in re.split(r"\n(?=\[Event )", text.strip()):
        if not chunk.strip():
            continue
        head, _, moves = chunk.partition("\n\n")
        tags = dict(re.findall(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]', head, re.M))
        yield tags, moves


def timed_moves(tags, movetext):
    """(player, index of its move after the opening, seconds) for each timed move."""
    players = {"w": tags.get("White", "?"), "b": tags.get("Black", "?")}
    mover, last, counts = None, None, defaultdict(int)
    for token in TOKEN.findall(movetext):
        if token.startswith("{"):
            found = TIME.search(token[1:-1].strip())
            if found and last is not None:
                yield players[last], counts[last], float(found.group(1))
                counts[last] += 1
            continue
        number = re.fullmatch(r"\d+(\.\.\.|\.)", token)
        if number:
            mover = "w" if number.group(1) == "." else "b"
        elif token in ("1-0", "0-1", "1/2-1/2", "*"):
            break
        elif mover is not None:
            last = mover
            mover = "b" if mover == "w" else "w"


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.strip().splitlines()[2].strip().join(["usage: ", ""]))
    stage = sys.argv[2] if len(sys.argv) == 3 else "10"
    if not stage.isdigit() or int(stage) < 1:
        sys.exit(f"error: STAGE must be a positive number of moves, got '{stage}'")
    stage = int(stage)
    try:
        text = open(sys.argv[1], encoding="utf-8").read()
    except OSError as e:
        sys.exit(f"error: cannot read {sys.argv[1]}: {e.strerror}")
    by_stage = defaultdict(lambda: defaultdict(list))
    game_count = defaultdict(int)
    for tags, movetext in games(text):
        seen = set()
        for player, index, seconds in timed_moves(tags, movetext):
            by_stage[player][min(index // stage, STAGES - 1)].append(seconds)
            seen.add(player)
        for player in seen:
            game_count[player] += 1
    if not by_stage:
        sys.exit(f"error: no timed moves in {sys.argv[1]} (PGN of tuner match --pgn)")
    bounds = [f"{k * stage + 1}-{(k + 1) * stage}" for k in range(STAGES - 1)]
    print(f"mean ms a move by moves after the opening ({', '.join(bounds)}, {(STAGES - 1) * stage + 1} on)")
    for player in sorted(by_stage):
        stages = by_stage[player]
        every = [s for k in stages for s in stages[k]]
        means = "".join(f"{1000 * sum(v) / len(v):7.0f}" for _, v in sorted(stages.items()))
        print(
            f"{player}: {game_count[player]} games, {len(every)} moves, "
            f"{1000 * sum(every) / len(every):.0f} ms a move; by stage{means}"
        )


if __name__ == "__main__":
    main()
