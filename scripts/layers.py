#!/usr/bin/env python3
"""Imports that point up a crate's layers.

    scripts/layers.py [source-dir...]    (default: tuner/src)

A crate declares its layers in its root file's module doc, bottom to top, one line
each, naming its top-level modules in backquotes:

    //! 0. base: `stats`, `text`, `run_files`
    //! 1. games and parameter files: `play`, `param_files`

A file may import modules of its own layer and of the layers below; an import of a
module in a higher layer is a crossing. The root file itself sits above every layer.
Every top-level module must be in exactly one layer. Imports are found as
`scripts/import_cycles.py` finds them (`use` lines and inline paths, comments and
strings left out, `#[cfg(test)]` modules included); cycles are that script's job.

Prints every crossing with the line that makes it and exits with status 1 when there
is one or the table is broken, 0 when there is none, 2 on bad arguments.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from import_cycles import Crate, crate_roots, source_dirs  # noqa: E402

DEFAULT_DIRS = ["tuner/src"]
LAYER_LINE = re.compile(r"^//!\s*(\d+)\.\s*([^:]+):\s*(.*)$")


def layer_table(root_file):
    """{top-level module: (layer number, layer name)} from the root's module doc, and
    the problems found in the table itself."""
    table, problems = {}, []
    for line in open(root_file, encoding="utf-8"):
        m = LAYER_LINE.match(line.strip())
        if not m:
            continue
        number, name = int(m.group(1)), m.group(2).strip()
        for module in re.findall(r"`(\w+)`", m.group(3)):
            if module in table:
                problems.append(f"`{module}` is in layers {table[module][0]} and {number}")
            table[module] = (number, name)
    return table, problems


def crossings_in(src):
    """(crossings, problems): each crossing as (from file, line, from layer, to file, to layer)."""
    crossings, problems = [], []
    for root in crate_roots(src):
        crate = Crate(root)
        table, broken = layer_table(root)
        problems += [f"{os.path.relpath(root)}: {p}" for p in broken]
        if not table:
            problems.append(f"{os.path.relpath(root)}: declares no layers (lines like `//! 0. base: `stats``)")
            continue
        top_of = {}  # file -> its top-level module ('' for the root file)
        for module, path in crate.file_of.items():
            top_of.setdefault(path, module[0] if module else "")
        for module in sorted(crate.children.get((), ())):
            if module not in table:
                problems.append(f"{os.path.relpath(root)}: module `{module}` has no layer")
        for module in sorted(table):
            if module not in crate.children.get((), ()):
                problems.append(f"{os.path.relpath(root)}: layer table names `{module}`, which is not a module")
        above_all = (max((n for n, _ in table.values()), default=0) + 1, "crate root")

        def layer(path):
            top = top_of.get(path, "")
            return above_all if top == "" else table.get(top, above_all)

        for a, b, line in crate.imports():
            if layer(b)[0] > layer(a)[0]:
                crossings.append((a, line, layer(a), b, layer(b)))
    return sorted(set(crossings)), problems


def main(argv):
    dirs = source_dirs(argv, __doc__.strip().splitlines()[2], DEFAULT_DIRS)
    if dirs is None:
        return 2
    bad = 0
    for src in dirs:
        crossings, problems = crossings_in(src)
        bad += len(crossings) + len(problems)
        print(f"{os.path.relpath(src)}: {len(crossings)} import(s) up the layers")
        for p in problems:
            print(f"  error: {p}")
        for a, line, (la, na), b, (lb, nb) in crossings:
            print(f"  {os.path.relpath(a)}:{line} ({la}. {na}) imports {os.path.relpath(b)} ({lb}. {nb})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
