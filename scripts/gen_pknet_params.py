#!/usr/bin/env python3
"""Writes params/pknet.json: the pawn-king network's weights, every one zero.

The network (engine/src/eval/pknet.rs) reads 224 inputs -- our pawns on a2..h7 (48),
their pawns (48), our king (64), their king (64), squares as the side whose view it
is sees them -- into HIDDEN rectified units, then a middlegame and an endgame output.
Its weights are ordinary parameters, named

    pknet_our_pawn_e4_3    input (our pawn on e4) to hidden unit 3
    pknet_bias_3           hidden unit 3's bias
    pknet_out_mg_3         hidden unit 3 to the middlegame output (out_eg_: endgame)

in the engine's layout order (input-major, then biases, then outputs). All zero, the
network is skipped; `tuner texel POSITIONS params/pknet.json` fits them. This script
writes the zero file once; it refuses to replace a file that exists (a fit lives
there) unless given --force.

    python3 scripts/gen_pknet_params.py [--force]
"""
import json, os, sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
PATH = os.path.join(ROOT, "params", "pknet.json")
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))
from param_json import dump  # noqa: E402
HIDDEN = 16
FILES = "abcdefgh"


def square(sq):
    return f"{FILES[sq % 8]}{sq // 8 + 1}"


def inputs():
    """(name part, description part) of each input, in the engine's order."""
    for sq in range(8, 56):
        yield f"our_pawn_{square(sq)}", f"our pawn on {square(sq)}"
    for sq in range(8, 56):
        yield f"their_pawn_{square(sq)}", f"their pawn on {square(sq)}"
    for sq in range(64):
        yield f"our_king_{square(sq)}", f"our king on {square(sq)}"
    for sq in range(64):
        yield f"their_king_{square(sq)}", f"their king on {square(sq)}"


def entry(name, lo, hi, c_end, unit, description):
    return {"name": name, "value": 0, "start": 0, "min": lo, "max": hi, "c_end": c_end,
            "r_end": 0.002, "unit": unit, "description": description}


def params():
    act = "1/256 of an activation"
    out = "1/64 centipawn per activation"
    for name, what in inputs():
        for j in range(HIDDEN):
            yield entry(f"pknet_{name}_{j}", -1024, 1024, 32, act,
                        f"Input weight: {what} (as the side whose view it is sees the board) to hidden unit {j}.")
    for j in range(HIDDEN):
        yield entry(f"pknet_bias_{j}", -1024, 1024, 32, act, f"Bias of hidden unit {j}.")
    for phase, word in (("mg", "middlegame"), ("eg", "endgame")):
        for j in range(HIDDEN):
            yield entry(f"pknet_out_{phase}_{j}", -4096, 4096, 256, out,
                        f"Weight of hidden unit {j} in the network's {word} score.")


def main():
    if os.path.exists(PATH) and "--force" not in sys.argv[1:]:
        sys.exit(f"gen_pknet_params: {PATH} exists (a fit may live there); --force replaces it with zeros")
    doc = {
        "$schema": "./schema.json",
        "group": "pknet",
        "description": "The pawn-king network's weights (engine/src/eval/pknet.rs): from the pawns and kings, as one side sees them, through "
        f"{HIDDEN} rectified hidden units to a middlegame and an endgame score; the evaluation adds White's view minus Black's. "
        "All zero, the network is skipped. Fitted as the residual of the hand-written evaluation by `tuner texel POSITIONS params/pknet.json`.",
        "params": list(params()),
    }
    dump(PATH, doc)
    print(f"wrote params/pknet.json: {len(doc['params'])} weights")


if __name__ == "__main__":
    main()
