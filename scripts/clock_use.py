#!/usr/bin/env python3
"""How each player of a PGN spent its clock, by stage of the game.

    scripts/clock_use.py GAMES.pgn [STAGE]

Reads the move comments `tuner match --pgn` writes (`{+0.35 0.231s}`: the mover's
score and the time the move took; cutechess writes the same with the depth,
`{+0.35/12 0.231s}`, and is read too) and prints, per player:
- the moves timed and the mean time a move;
- the mean time a move in stages of STAGE moves after the opening (default 10; the
  last stage holds every later move); a late stage averages only the games that
  lasted that long;
- the mean time used by the end of each stage, over the games that reached it: a
  pace that does not depend on how long the games were or where adjudication cut
  them short, so two runs with games of different lengths compare.
Where `tuner match` says how much of its clock a side used, this says when it used
it: an engine that thinks longer early and lives on its increment later, or one that
keeps a reserve it never spends. Players are told apart by their names.
"""

import re
import sys
from collections import defaultdict

USAGE = "usage: scripts/clock_use.py GAMES.pgn [STAGE]"
TIME = re.compile(r"(\d+(?:\.\d+)?)s$")
# Comments, variation brackets, move numbers (`12.` or `12...`, glued to the move or
# not), and other words.
TOKEN = re.compile(r"\{[^}]*\}|[()]|\d+\.(?:\.\.)?|[^\s(){}]+")
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
STAGES = 7


def games(text):
    """(tags, movetext) of each game."""
    text = text.replace("\r\n", "\n")
    for chunk in re.split(r"\n(?=\[Event )", text.strip()):
        head, _, moves = chunk.partition("\n\n")
        tags = dict(re.findall(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]', head, re.M))
        if tags:
            yield tags, moves


def score_word(words):
    """The score of a move comment split into words (`+0.35 0.231s`, `+0.35/12 0.231s`):
    its first word without the depth, or None when the comment has only the time."""
    return words[0].split("/")[0] if len(words) > 1 else None


def timed_moves(tags, movetext):
    """(player, index of its move after the opening, seconds, score) for each timed
    move of the main line; score is the comment's first word (`+0.35`, `-M3`), or
    None when the comment has only the time."""
    players = {"w": tags.get("White", "?"), "b": tags.get("Black", "?")}
    mover, last, depth, counts = None, None, 0, defaultdict(int)
    for token in TOKEN.findall(movetext):
        if token == "(":
            depth += 1
        elif token == ")":
            depth = max(0, depth - 1)
        elif depth > 0:
            continue
        elif token.startswith("{"):
            words = token[1:-1].split()
            found = TIME.search(words[-1]) if words else None
            if found and last is not None:
                yield players[last], counts[last], float(found.group(1)), score_word(words)
                counts[last] += 1
                last = None
        elif token[0].isdigit() and token.endswith("."):
            mover = "b" if token.endswith("...") else "w"
        elif token in RESULTS:
            break
        elif token.startswith("$") or set(token) <= set("!?"):
            continue  # an annotation
        elif mover is not None:
            last = mover
            mover = "b" if mover == "w" else "w"


def pgn_and_stage(usage):
    """The PGN text and STAGE of the command line `GAMES.pgn [STAGE]` (10 by default);
    exits with one clear message when either is wrong."""
    if len(sys.argv) not in (2, 3):
        sys.exit(usage)
    stage = sys.argv[2] if len(sys.argv) == 3 else "10"
    if not stage.isdigit() or int(stage) < 1:
        sys.exit(f"error: STAGE must be a positive number of moves, got '{stage}'")
    try:
        with open(sys.argv[1], encoding="utf-8") as f:
            return f.read(), int(stage)
    except OSError as e:
        sys.exit(f"error: cannot read {sys.argv[1]}: {e.strerror}")


def main():
    text, stage = pgn_and_stage(USAGE)
    by_stage = defaultdict(lambda: defaultdict(list))
    used_by = defaultdict(lambda: defaultdict(list))
    game_count = defaultdict(int)
    for tags, movetext in games(text):
        spent = defaultdict(list)
        for player, index, seconds, _ in timed_moves(tags, movetext):
            by_stage[player][min(index // stage, STAGES - 1)].append(seconds)
            spent[player].append(seconds)
        for player, times in spent.items():
            game_count[player] += 1
            for k in range(1, STAGES):
                if len(times) >= k * stage:
                    used_by[player][k].append(sum(times[: k * stage]))
    if not by_stage:
        sys.exit(f"error: no timed moves in {sys.argv[1]} (PGN of tuner match --pgn)")
    bounds = [f"{k * stage + 1}-{(k + 1) * stage}" for k in range(STAGES - 1)]
    print(f"mean ms a move by moves after the opening ({', '.join(bounds)}, {(STAGES - 1) * stage + 1} on);")
    print(f"then mean s used by move {', '.join(str(k * stage) for k in range(1, STAGES))} after the opening (games that reached it)")
    for player in sorted(by_stage):
        stages = by_stage[player]
        every = [s for k in stages for s in stages[k]]
        means = "".join(f"{1000 * sum(v) / len(v):7.0f}" for _, v in sorted(stages.items()))
        used = "".join(f"{sum(v) / len(v):7.2f} ({len(v)})" for _, v in sorted(used_by[player].items()))
        print(
            f"{player}: {game_count[player]} games, {len(every)} moves, "
            f"{1000 * sum(every) / len(every):.0f} ms a move; by stage{means}; used by{used}"
        )


if __name__ == "__main__":
    main()
