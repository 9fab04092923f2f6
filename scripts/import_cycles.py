#!/usr/bin/env python3
"""Import cycles between the source files of a Rust crate.

    scripts/import_cycles.py [source-dir...]    (default: engine/src tuner/src)

A file imports another when it names a module that lives there: in a `use` line
(`use crate::search::tt::Bound`, `use super::{S, Tracer}`, `use history::ContKeys`)
or in an inline path (`crate::eval::S`, `super::pawns::FRONT`, `tt::Bound::Exact`
naming a child module). A path is followed through the module tree as far as it
names modules: `crate::search::MATE` points at the file of `search`, not at the
file that defines `MATE`. Comments, strings, `mod` declarations, `pub(in ...)`
visibilities and `$crate` are not imports; `#[cfg(test)]` modules are.

A cycle is any closed chain of imports between distinct files, of any length,
except one made only of a module file (a `mod.rs`, or `foo.rs` for `foo/`) and
its own children: a parent that re-exports its children's items while they use
its shared types is one unit, not a circle. Each crate root (`lib.rs`, `main.rs`,
`bin/*.rs`) starts its own module tree.

Prints every cycle, shortest first, with the line that makes each link, and exits
with status 1 when there is one, 0 when there is none, 2 on bad arguments.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DIRS = ["engine/src", "tuner/src"]
# Enough for any real tree; a guard against an explosion of cycles in a dense one.
MAX_CYCLES = 20000


def strip_comments_and_strings(text):
    """`text` with comments and string/char literals blanked out, positions kept."""
    out = list(text)
    i, n = 0, len(text)

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            blank(i, j)
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 8]) and not re.match(r"\w", text[i - 1:i] or " "):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            end = text.find('"' + hashes, i + 2 + len(hashes))
            j = n if end < 0 else end + 1 + len(hashes)
            blank(i, j)
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            blank(i, j + 1)
            i = j + 1
        elif c == "'":
            # A char literal ('a', '\n', '\u{..}'), not a lifetime ('a).
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'", text[i:i + 12])
            if m:
                blank(i, i + m.end())
                i += m.end()
            else:
                i += 1
        else:
            i += 1
    return "".join(out)


def expand_use_tree(tree):
    """`a::{b, c::{self, d}}` -> [['a','b'], ['a','c'], ['a','c','d']]."""
    tree = re.sub(r"\s+as\s+\w+", "", tree)
    tree = re.sub(r"\s+", "", tree)

    def parse(s, prefix):
        paths, parts = [], []
        depth, start = 0, 0
        for i, ch in enumerate(s):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append(s[start:i])
                start = i + 1
        parts.append(s[start:])
        for part in parts:
            part = part.strip()
            if not part:
                continue
            brace = part.find("{")
            if brace >= 0:
                head = [p for p in part[:brace].split("::") if p]
                paths.extend(parse(part[brace + 1:part.rindex("}")], prefix + head))
            else:
                segs = [p for p in part.split("::") if p]
                if segs == ["self"]:
                    paths.append(prefix)
                elif segs == ["*"]:
                    paths.append(prefix)
                else:
                    paths.append(prefix + [s for s in segs if s != "*"])
        return paths

    return parse(tree, [])


class Crate:
    """The module tree of one crate: module path -> file, and each module's children."""

    def __init__(self, root_file):
        self.file_of = {}  # tuple(module path) -> file
        self.children = {}  # tuple(module path) -> set of child names
        self.files = {}  # file -> (stripped text, [(position, module from there on)])
        self.parent_file = {}  # file -> file that declares it
        self._load(root_file, (), is_root=True)

    def _load(self, path, module, is_root=False):
        if path in self.files or not os.path.exists(path):
            return
        raw = open(path, encoding="utf-8").read()
        text = strip_comments_and_strings(raw)
        self.file_of[module] = path
        self.children.setdefault(module, set())
        # Directory where this file's `mod x;` children live.
        base = os.path.basename(path)
        if is_root or base == "mod.rs":
            child_dir = os.path.dirname(path)
        else:
            child_dir = os.path.join(os.path.dirname(path), base[:-3])
        regions = [(0, module)]  # (position, module from there on)
        stack = []  # (brace depth at which an inline module closes, its module path)
        depth = 0
        for m in re.finditer(r"\bmod\s+(\w+)\s*([;{])|[{}]", text):
            current = stack[-1][1] if stack else module
            if m.group(0) == "{":
                depth += 1
            elif m.group(0) == "}":
                depth -= 1
                if stack and stack[-1][0] == depth:
                    stack.pop()
                    regions.append((m.end(), stack[-1][1] if stack else module))
            elif m.group(2) == "{":
                child = current + (m.group(1),)
                self.children.setdefault(current, set()).add(m.group(1))
                self.file_of[child] = path
                self.children.setdefault(child, set())
                stack.append((depth, child))
                depth += 1
                regions.append((m.end(), child))
            else:
                self.children.setdefault(current, set()).add(m.group(1))
                child_path = self._child_file(raw, m.start(), path, child_dir, m.group(1))
                if child_path and child_path not in self.files:
                    self.parent_file[child_path] = path
                    self._load(child_path, current + (m.group(1),))
        self.files[path] = (text, sorted(regions))

    @staticmethod
    def _child_file(raw, pos, path, child_dir, name):
        """The file of `mod name;` declared at `pos` of `path`: `#[path]` or the usual place."""
        attr = re.search(r'#\[path\s*=\s*"([^"]+)"\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?$',
                         raw[max(0, pos - 300):pos])
        if attr:
            # Outside inline modules, relative to the declaring file's directory.
            candidates = [os.path.normpath(os.path.join(os.path.dirname(path), attr.group(1)))]
        else:
            candidates = [os.path.join(child_dir, name + ".rs"), os.path.join(child_dir, name, "mod.rs")]
        return next((c for c in candidates if os.path.exists(c)), None)

    def module_at(self, path, pos):
        module = None
        for start, mod in self.files[path][1]:
            if start <= pos:
                module = mod
            else:
                break
        return module

    def resolve(self, module, segs):
        """The module a path names from inside `module`, or None for another crate's."""
        if not segs:
            return None
        if segs[0] == "crate":
            target, rest = (), segs[1:]
        elif segs[0] in ("super", "self"):
            target = module
            i = 0
            while i < len(segs) and segs[i] in ("super", "self"):
                if segs[i] == "super":
                    target = target[:-1]
                i += 1
            rest = segs[i:]
        elif segs[0] in self.children.get(module, ()):
            target, rest = module + (segs[0],), segs[1:]
        else:
            return None
        for seg in rest:
            if seg in self.children.get(target, ()):
                target = target + (seg,)
            else:
                break
        return target

    def imports(self):
        """(from file, to file, line number) for every import between distinct files."""
        edges = []
        for path, (text, _) in self.files.items():
            uses = list(re.finditer(r"\buse\s+([^;]+);", text))
            masked = text
            for m in uses:
                masked = masked[:m.start()] + " " * (m.end() - m.start()) + masked[m.end():]
                module = self.module_at(path, m.start())
                for segs in expand_use_tree(m.group(1)):
                    self._add(edges, path, module, segs, text, m.start())
            masked = re.sub(r"\bin\s+(crate|super|self)(::\w+)*", lambda m: " " * len(m.group(0)), masked)
            for m in re.finditer(r"(?<![\w:$])(\w+)((?:\s*::\s*\w+)+)", masked):
                segs = [m.group(1)] + [s for s in re.split(r"\s*::\s*", m.group(2)) if s]
                module = self.module_at(path, m.start())
                if segs[0] in ("crate", "super", "self") or segs[0] in self.children.get(module, ()):
                    self._add(edges, path, module, segs, text, m.start())
        return edges

    def _add(self, edges, path, module, segs, text, pos):
        target = self.resolve(module, segs)
        if target is None:
            return
        while target not in self.file_of and target:
            target = target[:-1]
        to = self.file_of.get(target)
        if to and to != path:
            edges.append((path, to, text.count("\n", 0, pos) + 1))


def crate_roots(src):
    roots = [os.path.join(src, f) for f in ("lib.rs", "main.rs") if os.path.exists(os.path.join(src, f))]
    bin_dir = os.path.join(src, "bin")
    if os.path.isdir(bin_dir):
        roots += sorted(os.path.join(bin_dir, f) for f in os.listdir(bin_dir) if f.endswith(".rs"))
    return roots


def simple_cycles(graph):
    """Johnson's algorithm: every elementary cycle of a directed graph {node: set(nodes)}."""
    nodes = sorted(graph)
    index = {v: i for i, v in enumerate(nodes)}
    found = []
    for start in nodes:
        # Search only among nodes not before `start`, so each cycle is found once.
        allowed = {v for v in nodes if index[v] >= index[start]}
        blocked, block_map, path = set(), {}, [start]

        def unblock(v):
            stack = [v]
            while stack:
                w = stack.pop()
                if w in blocked:
                    blocked.discard(w)
                    stack.extend(block_map.pop(w, ()))

        def circuit(v):
            closed = False
            blocked.add(v)
            for w in sorted(graph[v] & allowed):
                if len(found) >= MAX_CYCLES:
                    return True
                if w == start:
                    found.append(list(path))
                    closed = True
                elif w not in blocked:
                    path.append(w)
                    if circuit(w):
                        closed = True
                    path.pop()
            if closed:
                unblock(v)
            else:
                for w in graph[v] & allowed:
                    block_map.setdefault(w, set()).add(v)
            return closed

        circuit(start)
    return found


def cycles_in(src):
    edges, parent_file = [], {}
    for root in crate_roots(src):
        crate = Crate(root)
        edges += crate.imports()
        parent_file.update(crate.parent_file)
    graph, evidence = {}, {}
    for a, b, line in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
        evidence.setdefault((a, b), line)

    def exempt(cycle):
        # A module file and its own children only.
        return any(all(f == p or parent_file.get(f) == p for f in cycle) for p in cycle)

    cycles = [c for c in simple_cycles(graph) if not exempt(c)]
    cycles.sort(key=lambda c: (len(c), c))
    return cycles, evidence


def source_dirs(argv, usage, defaults):
    """The crate source folders a command line names (else `defaults`, relative to the
    repository), or None after printing why they cannot be read."""
    if any(a.startswith("-") for a in argv):
        print(usage, file=sys.stderr)
        return None
    dirs = argv or [os.path.join(ROOT, d) for d in defaults]
    for src in dirs:
        if not os.path.isdir(src) or not crate_roots(src):
            print(f"error: '{src}' is not a crate source directory (no lib.rs or main.rs)", file=sys.stderr)
            return None
    return dirs


def main(argv):
    dirs = source_dirs(argv, __doc__.strip().splitlines()[2], DEFAULT_DIRS)
    if dirs is None:
        return 2
    total = 0
    for src in dirs:
        cycles, evidence = cycles_in(src)
        total += len(cycles)
        rel = os.path.relpath
        print(f"{rel(src)}: {len(cycles)} import cycle(s)")
        for cycle in cycles:
            links = []
            for a, b in zip(cycle, cycle[1:] + cycle[:1]):
                links.append(f"{rel(a)}:{evidence[(a, b)]}")
            print("  " + " -> ".join(links) + f" -> {rel(cycle[0])}")
        if len(cycles) >= MAX_CYCLES:
            print(f"  (stopped after {MAX_CYCLES} cycles)")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
