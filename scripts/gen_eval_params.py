#!/usr/bin/env python3
"""Writes params/eval.json (starting values) and params/variants/material_only.json.

Material and piece-square tables start from PeSTO (Ronald Friederich's published
figures, chessprogramming.org "PeSTO's Evaluation Function"); the other terms start
from the values given in issue 4 or common hand-crafted defaults. Re-running this
script resets every value to its default, so run it only to change the term list.

Usage: python3 scripts/gen_eval_params.py
"""
import json, os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

PIECES = ["pawn", "knight", "bishop", "rook", "queen", "king"]
MATERIAL_MG = [82, 337, 365, 477, 1025]
MATERIAL_EG = [94, 281, 297, 512, 936]

# PeSTO tables as printed: first row is rank 8 (a8..h8), last row rank 1, White's view.
T = {}
T["pawn", "mg"] = """
  0   0   0   0   0   0   0   0
 98 134  61  95  68 126  34 -11
 -6   7  26  31  65  56  25 -20
-14  13   6  21  23  12  17 -23
-27  -2  -5  12  17   6  10 -25
-26  -4  -4 -10   3   3  33 -12
-35  -1 -20 -23 -15  24  38 -22
  0   0   0   0   0   0   0   0"""
T["pawn", "eg"] = """
  0   0   0   0   0   0   0   0
178 173 158 134 147 132 165 187
 94 100  85  67  56  53  82  84
 32  24  13   5  -2   4  17  17
 13   9  -3  -7  -7  -8   3  -1
  4   7  -6   1   0  -5  -1  -8
 13   8   8  10  13   0   2  -7
  0   0   0   0   0   0   0   0"""
T["knight", "mg"] = """
-167 -89 -34 -49  61 -97 -15 -107
 -73 -41  72  36  23  62   7  -17
 -47  60  37  65  84 129  73   44
  -9  17  19  53  37  69  18   22
 -13   4  16  13  28  19  21   -8
 -23  -9  12  10  19  17  25  -16
 -29 -53 -12  -3  -1  18 -14  -19
-105 -21 -58 -33 -17 -28 -19  -23"""
T["knight", "eg"] = """
-58 -38 -13 -28 -31 -27 -63 -99
-25  -8 -25  -2  -9 -25 -24 -52
-24 -20  10   9  -1  -9 -19 -41
-17   3  22  22  22  11   8 -18
-18  -6  16  25  16  17   4 -18
-23  -3  -1  15  10  -3 -20 -22
-42 -20 -10  -5  -2 -20 -23 -44
-29 -51 -23 -15 -22 -18 -50 -64"""
T["bishop", "mg"] = """
-29   4 -82 -37 -25 -42   7  -8
-26  16 -18 -13  30  59  18 -47
-16  37  43  40  35  50  37  -2
 -4   5  19  50  37  37   7  -2
 -6  13  13  26  34  12  10   4
  0  15  15  15  14  27  18  10
  4  15  16   0   7  21  33   1
-33  -3 -14 -21 -13 -12 -39 -21"""
T["bishop", "eg"] = """
-14 -21 -11  -8  -7  -9 -17 -24
 -8  -4   7 -12  -3 -13  -4 -14
  2  -8   0  -1  -2   6   0   4
 -3   9  12   9  14  10   3   2
 -6   3  13  19   7  10  -3  -9
-12  -3   8  10  13   3  -7 -15
-14 -18  -7  -1   4  -9 -15 -27
-23  -9 -23  -5  -9 -16  -5 -17"""
T["rook", "mg"] = """
 32  42  32  51  63   9  31  43
 27  32  58  62  80  67  26  44
 -5  19  26  36  17  45  61  16
-24 -11   7  26  24  35  -8 -20
-36 -26 -12  -1   9  -7   6 -23
-45 -25 -16 -17   3   0  -5 -33
-44 -16 -20  -9  -1  11  -6 -71
-19 -13   1  17  16   7 -37 -26"""
T["rook", "eg"] = """
 13  10  18  15  12  12   8   5
 11  13  13  11  -3   3   8   3
  7   7   7   5   4  -3  -5  -3
  4   3  13   1   2   1  -1   2
  3   5   8   4  -5  -6  -8 -11
 -4   0  -5  -1  -7 -12  -8 -16
 -6  -6   0   2  -9  -9 -11  -3
 -9   2   3  -1  -5 -13   4 -20"""
T["queen", "mg"] = """
-28   0  29  12  59  44  43  45
-24 -39  -5   1 -16  57  28  54
-13 -17   7   8  29  56  47  57
-27 -27 -16 -16  -1  17  -2   1
 -9 -26  -9 -10  -2  -4   3  -3
-14   2 -11  -2  -5   2  14   5
-35  -8  11   2   8  15  -3   1
 -1 -18  -9  10 -15 -25 -31 -50"""
T["queen", "eg"] = """
 -9  22  22  27  27  19  10  20
-17  20  32  41  58  25  30   0
-20   6   9  49  47  35  19   9
  3  22  24  45  57  40  57  36
-18  28  19  47  31  34  39  23
-16 -27  15   6   9  17  10   5
-22 -23 -30 -16 -16 -23 -36 -32
-33 -28 -22 -43  -5 -32 -20 -41"""
T["king", "mg"] = """
-65  23  16 -15 -56 -34   2  13
 29  -1 -20  -7  -8  -4 -38 -29
 -9  24   2 -16 -20   6  22 -22
-17 -20 -12 -27 -30 -25 -14 -36
-49  -1 -27 -39 -46 -44 -33 -51
-14 -14 -22 -46 -44 -30 -15 -27
  1   7  -8 -64 -43 -16   9   8
-15  36  12 -54   8 -28  24  14"""
T["king", "eg"] = """
-74 -35 -18 -18 -11  15   4 -17
-12  17  14  17  17  38  23  11
 10  17  23  15  20  45  44  13
 -8  22  24  27  26  33  26   3
-18  -4  21  24  27  23   9 -11
-19  -3  11  21  23  16   7  -9
-27 -11   4  13  14   4  -5 -17
-53 -34 -21 -11 -28 -14 -24 -43"""

PHASES = {"mg": "middlegame", "eg": "endgame"}
params = []


def add(name, value, lo, hi, c_end, unit, desc, material=False):
    assert lo <= value <= hi and lo <= 0 <= hi or material, name
    params.append({"name": name, "value": value, "start": value, "min": lo, "max": hi,
                   "c_end": c_end, "r_end": 0.002, "unit": unit, "description": desc})


def pair(base, mg, eg, lo, hi, c_end, unit, desc):
    for ph, v in (("mg", mg), ("eg", eg)):
        add(f"{base}_{ph}", v, lo, hi, c_end, unit, f"{desc} ({PHASES[ph]}).")


# Material
for i, p in enumerate(PIECES[:5]):
    for ph, vals in (("mg", MATERIAL_MG), ("eg", MATERIAL_EG)):
        hi = 400 if p == "pawn" else 2000
        add(f"material_{p}_{ph}", vals[i], 0, hi, max(4, vals[i] // 40), "centipawns",
            f"Value of a {p} in the {PHASES[ph]}.", material=True)

# Piece-square tables
for p in PIECES:
    for ph in ("mg", "eg"):
        rows = [list(map(int, r.split())) for r in T[p, ph].strip().splitlines()]
        assert len(rows) == 8 and all(len(r) == 8 for r in rows)
        for sq in range(64):
            f, r = sq % 8, sq // 8
            name = "abcdefgh"[f] + str(r + 1)
            v = rows[7 - r][f]
            add(f"pst_{p}_{ph}_{name}", v, -300, 300, 4, "centipawns",
                f"Bonus for a white {p} on {name} in the {PHASES[ph]} (Black reads the square mirrored).")

# Mobility
for p, mg, eg in (("knight", 4, 4), ("bishop", 5, 5), ("rook", 3, 4), ("queen", 2, 3)):
    pair(f"mobility_{p}", mg, eg, -20, 40, 1, "centipawns per square",
         f"Per safe square a {p} attacks (not own-occupied, not attacked by enemy pawns), counted from a typical mobility")

# Pawn structure
for rank, mg, eg in zip(range(2, 8), (0, 5, 10, 20, 35, 55), (5, 10, 20, 35, 55, 80)):
    pair(f"pawn_passed_rank_{rank}", mg, eg, -50, 300, 3, "centipawns",
         f"Passed pawn on relative rank {rank}, on top of its piece-square value")
pair("pawn_isolated", -10, -12, -100, 50, 2, "centipawns", "Pawn with no own pawn on an adjacent file")
pair("pawn_doubled", -8, -20, -100, 50, 2, "centipawns", "Pawn with an own pawn in front of it on the same file")
pair("pawn_backward", -6, -8, -100, 50, 2, "centipawns",
     "Pawn behind all own pawns of the adjacent files whose stop square an enemy pawn attacks")
pair("pawn_connected", 8, 6, -50, 100, 2, "centipawns", "Pawn defended by an own pawn")
pair("pawn_phalanx", 5, 5, -50, 100, 2, "centipawns", "Pawn with an own pawn beside it on the same rank")
pair("pawn_passed_free_path", 5, 20, -50, 200, 2, "centipawns",
     "Passed pawn whose squares up to promotion are all empty")
add("pawn_passed_king_own_eg", -4, -50, 50, 1, "centipawns per square",
    "Per Chebyshev square between a passed pawn's stop square and its own king (endgame).")
add("pawn_passed_king_enemy_eg", 8, -50, 50, 1, "centipawns per square",
    "Per Chebyshev square between a passed pawn's stop square and the enemy king (endgame).")

# Rooks and majors
pair("rook_open_file", 25, 25, -50, 150, 3, "centipawns", "Rook on a file without pawns")
pair("rook_semi_open_file", 15, 15, -50, 150, 2, "centipawns", "Rook on a file without own pawns but with an enemy pawn")
pair("major_seventh", 50, 50, 0, 200, 4, "centipawns",
     "Rook or queen on the relative 7th rank while the enemy king is on the back rank")
pair("major_seventh_connected", 80, 80, 0, 250, 5, "centipawns",
     "Two majors on the 7th that defend each other along the rank, enemy king on the back rank")

# Knight tropism
pair("knight_tropism", 2, 2, -20, 20, 1, "centipawns per square",
     "Penalty per Chebyshev square between a knight and the enemy king")

# King safety
add("king_shield_near_mg", 12, -50, 100, 2, "centipawns",
    "Own pawn on the rank right in front of the king, on its file or an adjacent one (middlegame).")
add("king_shield_far_mg", 6, -50, 100, 2, "centipawns",
    "Own pawn two ranks in front of the king, on its file or an adjacent one (middlegame).")
add("king_open_file_mg", -20, -150, 50, 3, "centipawns",
    "File at or beside the king without any pawn (middlegame).")
add("king_semi_open_file_mg", -10, -150, 50, 2, "centipawns",
    "File at or beside the king without an own pawn but with an enemy pawn (middlegame).")
for p, v in (("knight", 6), ("bishop", 4), ("rook", 5), ("queen", 5)):
    add(f"king_attack_{p}_mg", v, -20, 60, 1, "centipawns per square",
        f"Bonus per enemy king-zone square a {p} attacks (middlegame).")
for n, v in zip(range(1, 8), (0, 15, 40, 70, 100, 120, 140)):
    label = f"{n}" if n < 7 else "7 or more"
    add(f"king_attackers_{n}_mg", v, -50, 400, 4, "centipawns",
        f"Bonus when {label} pieces attack the enemy king zone (middlegame).")

# Bishop pair, tempo, threats
pair("bishop_pair", 30, 50, -50, 150, 3, "centipawns", "Two or more bishops")
pair("tempo", 15, 8, -20, 60, 2, "centipawns", "Bonus for the side to move")
pair("threat_by_pawn", 50, 35, -20, 200, 3, "centipawns", "Enemy knight, bishop, rook or queen attacked by an own pawn")
pair("threat_by_minor", 30, 25, -20, 200, 3, "centipawns", "Enemy rook or queen attacked by an own knight or bishop")
pair("threat_by_rook", 35, 20, -20, 200, 3, "centipawns", "Enemy queen attacked by an own rook")

# Drawish endgames
add("scale_opposite_bishops_pct", 50, 0, 100, 5, "percent",
    "Scale of the score with one bishop each on opposite colours and no other pieces than pawns.")
add("scale_no_pawns_pct", 10, 0, 100, 5, "percent",
    "Scale of the score when the stronger side has no pawns and is less than a rook of non-pawn material ahead.")

doc = {"$schema": "./schema.json", "group": "eval",
       "description": "Evaluation weights: material and PeSTO piece-square tables, mobility, pawn structure, rooks and majors, knight tropism, king safety, bishop pair, tempo, threats and drawish-endgame scales. Signed: positive is good for the side that has the feature.",
       "params": params}


def dump(path, doc):
    lines = ["{", f'  "$schema": {json.dumps(doc["$schema"])},', f'  "group": {json.dumps(doc["group"])},',
             f'  "description": {json.dumps(doc["description"])},', '  "params": [']
    body = [f"    {json.dumps(p)}" for p in doc["params"]]
    lines.append(",\n".join(body))
    lines += ["  ]", "}"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


dump(os.path.join(ROOT, "params/eval.json"), doc)

# Material only: every non-material weight zero, scales at 100 (no scaling).
mo = json.loads(json.dumps(doc))
mo["$schema"] = "../schema.json"
mo["description"] = "Material-only evaluation (PeSTO material; every other term zero, no scaling): the baseline for matches against the full evaluation."
for p in mo["params"]:
    if p["name"].startswith("material_"):
        continue
    v = 100 if p["name"].startswith("scale_") else 0
    p["value"] = p["start"] = v
dump(os.path.join(ROOT, "params/variants/material_only.json"), mo)
print(len(params), "parameters")
