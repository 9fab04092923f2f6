#!/usr/bin/env python3
"""What each player of a PGN thought of its games, by stage, beside how they ended.

    scripts/score_by_stage.py GAMES.pgn [STAGE]

Reads the mover's score from the move comments `tuner match --pgn` writes
(`{+0.35 0.231s}`, as clock_use.py does) and prints, per player, the mean score it gave
its own side at its 1st move after the opening and at every STAGE-th (default 10):
over all its games, and split by whether it went on to win, draw or lose. Scores are in
pawns, clamped to ±5 (a mate counts as ±5), so that a few lost causes do not swamp the
mean; a stage averages only the games that reached it.

Then, for games between two players, both views summed, one player's score plus the
other's at the same move: about 0 where the two agree, above 0 where each thinks itself the
better. Where the sum grows and one player's losses began with it thinking itself
fine, that player's evaluation is the one the results contradict: this says at what
stage of the game the evaluations part, which the clock and the result alone do not.
"""

import sys
from collections import defaultdict

from clock_use import games, pgn_and_stage, timed_moves

USAGE = "usage: scripts/score_by_stage.py GAMES.pgn [STAGE]"
CLAMP = 5.0
STAGES = 6
OUTCOMES = ("won", "drawn", "lost")


def pawns(word):
    """The score word in pawns, clamped; None when it is not a score."""
    try:
        value = float(word)
    except (TypeError, ValueError):
        if word and word[1:2] == "M" and word[0] in "+-":
            return CLAMP if word[0] == "+" else -CLAMP
        return None
    return max(-CLAMP, min(CLAMP, value))


def outcome(tags, player):
    """`player`'s result in the game of `tags`, or None when unfinished."""
    points = {"1-0": (1, 0), "0-1": (0, 1), "1/2-1/2": (0.5, 0.5)}.get(tags.get("Result"))
    if points is None:
        return None
    mine = points[0] if tags.get("White") == player else points[1]
    return OUTCOMES[0] if mine == 1 else OUTCOMES[1] if mine == 0.5 else OUTCOMES[2]


def mean(values):
    return f"{sum(values) / len(values):+6.2f}" if values else "     -"


def main():
    text, stage = pgn_and_stage(USAGE)
    points = sorted({1} | {k * stage for k in range(1, STAGES)})
    # scores[player][outcome][point]: the player's own scores at that move.
    scores = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    counts = defaultdict(lambda: defaultdict(int))
    summed = defaultdict(list)
    for tags, movetext in games(text):
        own = defaultdict(dict)
        for player, index, _, word in timed_moves(tags, movetext):
            value = pawns(word)
            if value is not None:
                own[player][index + 1] = value
        for player, by_move in own.items():
            result = outcome(tags, player)
            if result is None:
                continue
            counts[player][result] += 1
            for point in points:
                if point in by_move:
                    scores[player]["all"][point].append(by_move[point])
                    scores[player][result][point].append(by_move[point])
        if len(own) == 2:
            first, second = own.values()
            for point in points:
                if point in first and point in second:
                    summed[point].append(first[point] + second[point])
    if not counts:
        sys.exit(f"error: no scored moves in {sys.argv[1]} (PGN of tuner match --pgn)")
    moves = ", ".join(str(p) for p in points)
    print(f"mean score each player gave its own side at its move {moves} after the opening")
    print(f"(pawns, clamped to ±{CLAMP:g}; over the games that reached that move):")
    for player in counts:
        for group in ("all",) + OUTCOMES:
            n = sum(counts[player].values()) if group == "all" else counts[player][group]
            if n == 0:
                continue
            cells = "".join(mean(scores[player][group][p]) for p in points)
            print(f"{player:>12} {group:>5} ({n:4}):{cells}")
    if summed:
        cells = "".join(mean(summed[p]) for p in points)
        print(f"{'both views summed':>25}:{cells}")


if __name__ == "__main__":
    main()
