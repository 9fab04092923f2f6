#!/usr/bin/env python3
"""Writes params/variants/material_only.json from params/eval.json.

The material-only variant is the baseline of `tuner match` against the full
evaluation: the entries of eval.json, every weight (an entry with an `_mg` or
`_eg` token, see engine/src/eval/features.rs) zero except material, the king-danger
inputs zero, divisors (`*_div`) kept, the `scale_*` percentages at 100 (no scaling), and
the pawn-king network's output weights (`pknet_out_*` of params/pknet.json) zero. eval.json is the one
source of the term list: after adding, renaming or removing an entry there, run

    python3 scripts/gen_material_only.py

(`material_only_variant_has_the_same_names_and_zero_extras` fails until you do).
"""
import json, os, sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))
from param_json import dump  # noqa: E402


with open(os.path.join(ROOT, "params/eval.json")) as f:
    doc = json.load(f)
doc["$schema"] = "../schema.json"
doc["description"] = ("Material-only evaluation (PeSTO material; every other term zero, no scaling): "
                      "the baseline for matches against the full evaluation.")
for p in doc["params"]:
    name = p["name"]
    if name.startswith("material_"):
        p["value"] = p["start"]  # PeSTO's material, the start values
        continue
    if name.endswith("_div"):
        continue  # divisors (never zero) of terms zeroed elsewhere
    v = 100 if name.startswith("scale_") else 0
    p["value"] = p["start"] = v
# The pawn-king network off: its output weights zero (params/pknet.json).
with open(os.path.join(ROOT, "params/pknet.json")) as f:
    network = json.load(f)
for p in network["params"]:
    if p["name"].startswith("pknet_out_"):
        doc["params"].append(dict(p, value=0, start=0))
dump(os.path.join(ROOT, "params/variants/material_only.json"), doc)
print(len(doc["params"]), "parameters")
