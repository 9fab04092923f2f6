#!/usr/bin/env bash
# Runs the shell blocks of README.md and docs/*.md that are marked runnable, each block on
# a fresh copy of the repository, and fails at the first block that fails. The lines of
# one block run in order in one copy, so a block may build on its own earlier lines.
#
#   scripts/run_docs.sh [PAGE.md ...]      (default: README.md and docs/*.md)
#
# The marker is the fence's info string (tests/tests/docs.rs checks that every shell
# block has one):
#
#   ```sh runnable                    run as written
#   ```sh runnable budget="ARGS"      run with a small budget. ARGS are `--flag value`
#                                     pairs and `VAR=value` items. On each line that runs a
#                                     game-playing `tuner` command (spsa, match, verify,
#                                     datagen; directly or as `cargo run ... -p tuner --`),
#                                     a budget flag the line has gets the budget's value, and
#                                     one it lacks is appended when that subcommand accepts it
#                                     (its --help says so). VAR=value items are exported.
#   ```sh not-runnable (reason)       never run
#
# The copy: the files git sees (tracked, and untracked but not ignored, so uncommitted
# edits count; no target/, no runs/), committed into a new git repository in a temporary
# folder. Cargo never runs in a copy (a build there would share this checkout's target
# folder with paths that are gone afterwards); instead, to stay within minutes on two
# cores:
#   - `occam` and `tuner` are built once, here, in the dev profile (what `cargo test`
#     builds), and put first on PATH; TUNER (read by scripts/tuning_benchmark.sh) points
#     at that tuner;
#   - `cargo run [--release] -p occam|tuner -- ARGS` runs that binary with ARGS;
#   - `cargo build …` and `cargo test …` are skipped: CI builds and tests before this
#     script, and runs README's sequence through cargo itself.
# Each block runs in bash (`set -euo pipefail`) from the copy's root, within BLOCK_TIMEOUT
# seconds (default 300). KEEP=1 keeps the copies and prints their paths.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BLOCK_TIMEOUT=${BLOCK_TIMEOUT:-300}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
command -v python3 >/dev/null || { echo "run_docs: python3 is needed" >&2; exit 2; }

cd "$ROOT"
if (($# == 0)); then
    set -- README.md docs/*.md
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/occam-docs.XXXXXX")
cleanup() { [[ ${KEEP:-} == 1 ]] && echo "run_docs: kept $WORK" >&2 || rm -rf "$WORK"; }
trap cleanup EXIT

# A fresh copy of the repository's files, as its own git repository.
fresh_copy() {
    local dest=$1
    mkdir -p "$dest"
    (cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
        while IFS= read -r -d '' f; do [[ -e $f ]] && printf '%s\0' "$f"; done |
        tar --null -T - -cf -) | tar -xf - -C "$dest"
    git -C "$dest" init -q
    git -C "$dest" add -A
    git -C "$dest" -c user.name=docs -c user.email=docs@localhost commit -qm "fresh copy"
}

# The binaries, once, built here.
BIN=$WORK/bin
build_binaries() {
    echo "run_docs: building occam and tuner (dev profile)" >&2
    (cd "$ROOT" && cargo build --quiet -p occam -p tuner --bins)
    mkdir -p "$BIN"
    ln -sf "$CARGO_TARGET_DIR/debug/occam" "$BIN/occam"
    ln -sf "$CARGO_TARGET_DIR/debug/tuner" "$BIN/tuner"
}

# Writes one script per runnable block of PAGE into DIR (NNN.sh, with NNN.txt naming the
# block's page and line), applying the substitutions above.
extract_blocks() {
    python3 - "$1" "$2" "$BIN/tuner" <<'EOF'
import os, re, shlex, subprocess, sys

page, out_dir, tuner = sys.argv[1], sys.argv[2], sys.argv[3]
GAME_COMMANDS = {"spsa", "match", "verify", "datagen"}
accepted = {}

def accepts(sub, flag):
    if sub not in accepted:
        help_text = subprocess.run([tuner, sub, "--help"], capture_output=True, text=True).stdout
        accepted[sub] = set(re.findall(r"--[a-z0-9][a-z0-9-]*", help_text))
    return flag in accepted[sub]

def split_comment(line):
    """(code, comment) of one shell line: a # after whitespace, outside quotes."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i:]
    return line.rstrip(), ""

def segments(code):
    """The code split at |, &&, ||, ; outside quotes, separators kept."""
    parts, start, quote, i = [], 0, None, 0
    while i < len(code):
        ch = code[i]
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif code.startswith(("&&", "||"), i):
            parts += [code[start:i], code[i:i + 2]]
            start = i = i + 2
            continue
        elif ch in "|;":
            parts += [code[start:i], ch]
            start = i + 1
        i += 1
    parts.append(code[start:])
    return parts

def tuner_subcommand(segment):
    words = shlex.split(segment, comments=False, posix=True) if segment.strip() else []
    for i, w in enumerate(words):
        if os.path.basename(w) == "tuner" and i + 1 < len(words):
            # `tuner SUB` or `cargo run ... -p tuner [...] -- SUB`
            rest = words[i + 1:]
            if "--" in rest and words[i - 1] == "-p":
                rest = rest[rest.index("--") + 1:]
            return rest[0] if rest else None
    return None

def apply_budget(segment, flags):
    sub = tuner_subcommand(segment)
    if sub not in GAME_COMMANDS:
        return segment
    for flag, value in flags:
        pattern = re.compile(r"(?<![\w-])" + re.escape(flag) + r"(\s+|=)(\S+)")
        if pattern.search(segment):
            segment = pattern.sub(lambda m: flag + m.group(1) + value, segment)
        elif accepts(sub, flag):
            segment = segment.rstrip() + " " + flag + " " + value + " "
    return segment

def substitute(line, flags):
    code, comment = split_comment(line)
    # `cargo run [flags] -p occam|tuner [flags] [-- ARGS]` -> the binary with ARGS.
    code = re.sub(r"\bcargo run\b[^|;&]*?-p (occam|tuner)\b[^|;&]*?(?: -- |\s*$)",
                  lambda m: m.group(1) + " ", code)
    # `cargo build …`, `cargo test …`: done by CI before this script.
    code = re.sub(r"\bcargo (?:build|test)\b[^|;&]*", "true ", code)
    if flags:
        code = "".join(apply_budget(s, flags) if s not in ("|", ";", "&&", "||") else s
                       for s in segments(code))
    return (code.rstrip() + ("  " + comment if comment else "")).rstrip()

text = open(page, encoding="utf-8").read().split("\n")
n, i = 0, 0
while i < len(text):
    m = re.match(r"\s*```(\S*)\s*(.*)$", text[i])
    if not m:
        i += 1
        continue
    lang, marker = m.group(1), m.group(2).strip()
    start, body = i + 1, []
    i += 1
    while i < len(text) and not text[i].strip().startswith("```"):
        body.append(text[i])
        i += 1
    i += 1
    if lang not in ("sh", "bash", "shell", "console") or not marker.startswith("runnable"):
        continue
    flags, env = [], []
    b = re.match(r'runnable budget="([^"]*)"$', marker)
    if b:
        words = b.group(1).split()
        k = 0
        while k < len(words):
            if words[k].startswith("--") and k + 1 < len(words):
                flags.append((words[k], words[k + 1]))
                k += 2
            else:
                env.append(words[k])
                k += 1
    # Indented blocks (in list items) lose their indentation; continued lines are joined.
    indent = min((len(l) - len(l.lstrip()) for l in body if l.strip()), default=0)
    lines, pending = [], ""
    for l in body:
        l = l[indent:]
        if l.rstrip().endswith("\\"):
            pending += l.rstrip()[:-1] + " "
            continue
        lines.append(pending + l)
        pending = ""
    if pending:
        lines.append(pending)
    n += 1
    with open(os.path.join(out_dir, "%03d.sh" % n), "w") as f:
        f.write("set -euo pipefail\n")
        for e in env:
            f.write("export %s\n" % e)
        for l in lines:
            f.write(substitute(l, flags) + "\n")
    with open(os.path.join(out_dir, "%03d.txt" % n), "w") as f:
        f.write("%s:%d" % (page, start))
EOF
}

build_binaries
blocks=0
for page in "$@"; do
    [[ -f $ROOT/$page ]] || { echo "run_docs: no page $page" >&2; exit 2; }
    name=$(basename "$page" .md)
    scripts_dir=$WORK/$name
    mkdir -p "$scripts_dir"
    extract_blocks "$ROOT/$page" "$scripts_dir"
    for script in "$scripts_dir"/*.sh; do
        [[ -e $script ]] || continue
        where=$(<"${script%.sh}.txt")
        blocks=$((blocks + 1))
        echo "run_docs: $where" >&2
        log=${script%.sh}.log
        copy=${script%.sh}.repo
        fresh_copy "$copy"
        if ! (cd "$copy" && PATH="$BIN:$PATH" TUNER="$BIN/tuner" \
            timeout "$BLOCK_TIMEOUT" bash "$script") >"$log" 2>&1; then
            echo "run_docs: FAILED: the block at $where, run as:" >&2
            sed 's/^/    /' "$script" >&2
            echo "run_docs: its output (last 40 lines):" >&2
            tail -40 "$log" | sed 's/^/    /' >&2
            exit 1
        fi
    done
done
echo "run_docs: $blocks runnable blocks passed" >&2
