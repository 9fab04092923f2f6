#!/usr/bin/env python3
"""Which of Occam's evaluation terms stand out where two engines' views of a game part.

    scripts/terms_where_views_part.py GAMES.pgn OCCAM PLAYER [MOVE] [SUM]

For each game of GAMES.pgn (a `tuner match --pgn` between PLAYER, an Occam, and one
opponent), takes the position before PLAYER's MOVE-th move after the opening (default
10) and asks the Occam binary OCCAM for its `eval` breakdown, every term tapered by the
position's phase and seen from PLAYER's side. The games are split by the two scores
of that stage (PLAYER's at its MOVE-th move, the opponent's at its own): where they sum
to SUM pawns or more (default 0.6), each rated its own side higher than the other did,
so the views have parted; the rest is the comparison. Prints each term's mean in both
groups and the difference with its 95% interval: a term that stands far lower or
higher where the views part is one the two engines weigh differently, a lead for the
evaluation (a lead only: the opponent's score is a search's, not a term's).

Needs python-chess to replay the games (`pip install chess`). scores_by_stage.py says
at which stage the views part; this says in which terms.
"""

import math
import re
import statistics
import subprocess
import sys
from collections import Counter, defaultdict

from clock_use import score_word
from score_by_stage import pawns

USAGE = "usage: scripts/terms_where_views_part.py GAMES.pgn OCCAM PLAYER [MOVE] [SUM]"
TERM = re.compile(r"^(\S.*?)\s{2,}(-?\d+)\s+(-?\d+)\s+(-?\d+)\s+(-?\d+)\s+(-?\d+)\s+(-?\d+)$")
PHASE_MAX = 24


def stage_of(game, player, move):
    """(FEN before `player`'s `move`-th move after the opening, its score, the
    opponent's score at its own `move`-th move), or None when the game is shorter or
    a score is missing."""
    board = game.board()
    player_white = game.headers.get("White") == player
    after, counts, fen, scores = False, {True: 0, False: 0}, None, {}
    for node in game.mainline():
        mover_white = board.turn  # python-chess: True for White
        if after:
            mine = mover_white == player_white
            counts[mine] += 1
            if counts[mine] == move:
                scores[mine] = pawns(score_word(node.comment.split()))
                if mine:
                    fen = board.fen()
        if "end of opening" in node.comment:
            after = True
        board.push(node.move)
        if len(scores) == 2:
            break
    if fen is None or scores.get(True) is None or scores.get(False) is None:
        return None
    return fen, scores[True], scores[False]


def tapered_terms(occam, fens):
    """Per FEN, {term: White's total, tapered by the position's phase}."""
    commands = "".join(f"position fen {fen}\neval\n" for fen in fens) + "quit\n"
    out = subprocess.run([occam], input=commands, capture_output=True, text=True, check=True).stdout
    blocks = re.split(r"(?m)^term ", out)[1:]
    if len(blocks) != len(fens):
        sys.exit(f"error: {occam} printed {len(blocks)} eval breakdowns for {len(fens)} positions")
    result = []
    for block in blocks:
        phase = int(re.search(r"phase (\d+)", block).group(1))
        terms = {}
        for line in block.splitlines()[1:]:
            m = TERM.match(line)
            if m:
                mg, eg = int(m.group(6)), int(m.group(7))
                terms[m.group(1)] = (mg * phase + eg * (PHASE_MAX - phase)) / PHASE_MAX
        result.append(terms)
    return result


def main():
    if len(sys.argv) not in (4, 5, 6):
        sys.exit(USAGE)
    path, occam, player = sys.argv[1:4]
    try:
        move = int(sys.argv[4]) if len(sys.argv) > 4 else 10
        threshold = float(sys.argv[5]) if len(sys.argv) > 5 else 0.6
    except ValueError:
        sys.exit("error: MOVE must be a whole number and SUM a number of pawns")
    if move < 1:
        sys.exit(f"error: MOVE must be 1 or more, got {move}")
    try:
        import chess.pgn
    except ImportError:
        sys.exit("error: this needs python-chess (pip install chess)")
    try:
        with open(path, encoding="utf-8") as f:
            stages = []
            while (game := chess.pgn.read_game(f)) is not None:
                if player in (game.headers.get("White"), game.headers.get("Black")):
                    found = stage_of(game, player, move)
                    if found:
                        stages.append(found)
    except OSError as e:
        sys.exit(f"error: cannot read {path}: {e.strerror}")
    if not stages:
        sys.exit(f"error: no game of {path} has scores for '{player}' at move {move} after the opening")
    groups = defaultdict(lambda: defaultdict(list))
    n = Counter()
    for (fen, mine, theirs), terms in zip(stages, tapered_terms(occam, [s[0] for s in stages])):
        sign = 1 if " w " in fen else -1  # the position is PLAYER's to move
        group = "parted" if mine + theirs >= threshold else "rest"
        n[group] += 1
        for term, value in terms.items():
            groups[group][term].append(sign * value)
    print(f"{path}: {player} at its move {move} after the opening; views parted (scores summing "
          f"to {threshold:+g} pawns or more) in {n['parted']} games, the rest {n['rest']}")
    print(f"{'term (cp, ' + player + ' side)':26} {'parted':>8} {'rest':>8} {'difference':>16}")
    for term in groups["rest"]:
        a, b = groups["parted"].get(term), groups["rest"][term]
        if not a or len(a) < 2 or len(b) < 2:
            continue
        ma, mb = statistics.fmean(a), statistics.fmean(b)
        half = 1.96 * math.sqrt(statistics.variance(a) / len(a) + statistics.variance(b) / len(b))
        print(f"{term:26} {ma:+8.1f} {mb:+8.1f} {ma - mb:+8.1f} ± {half:5.1f}")


if __name__ == "__main__":
    main()
