"""Writes a parameter file as the repository keeps them: one entry per line."""
import json, os


def dump(path, doc):
    """Writes `doc` (a parameter file's JSON) to `path` atomically, one entry per line."""
    lines = ["{", f'  "$schema": {json.dumps(doc["$schema"])},', f'  "group": {json.dumps(doc["group"])},',
             f'  "description": {json.dumps(doc["description"])},', '  "params": [']
    lines.append(",\n".join(f"    {json.dumps(p)}" for p in doc["params"]))
    lines += ["  ]", "}"]
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path)
