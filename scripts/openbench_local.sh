#!/usr/bin/env bash
# A real OpenBench instance on this machine, offline: its server (Django + SQLite), a
# local file server for Occam's source zips and an opening book, and one or more of
# its own clients playing Occam with its fastchess, all bound to 127.0.0.1. Workloads
# (GAMES tests and SPSA tunes) are created through OpenBench's ORM, so nothing asks
# the GitHub API; OpenBench itself is not changed, only configured (an engine entry
# Engines/Occam.json, a book entry, an enabled user).
#
#   scripts/openbench_local.sh [VAR=value ...] COMMAND
#
# COMMAND:
#   up        unpack the snapshots, make the venv and install the pinned packages,
#             build fastchess, build Occam at REF from a `git archive` zip (`make -j
#             EXE=`, as the client builds it) and read its bench, make the opening
#             book, register engine and book, migrate, create the user, start the
#             server and the file server. Every step is skipped once done, so `up`
#             twice is safe; it restarts the server when the configuration changed.
#   client    start client ID (default 1) in a restart loop in the background (the
#             client exits on "Bad Client Version", e.g. after a configuration change),
#             with --no-client-downloads and the pre-built fastchess as fastchess-ob.
#             The client kills processes by name after each workload, so every client
#             runs in its own PID namespace where `unshare` allows it (PIDNS=0: not).
#   test      create a GAMES workload: Occam at REF against Occam at BASE, GAMES games
#             at N=NODES fixed nodes (not rescaled by a bench under load). Prints its id.
#   tune      create an SPSA workload of Occam at REF at N=NODES. Its input lines are
#             SPSA_INPUTS (a file of `name, int|float, value, min, max, c_end, r_end`
#             lines, e.g. from `tuner export --format openbench`), or else the first
#             SPSA_PARAMS parameters of params/search.json at REF. Prints its id.
#   check ID  live check of workload ID: fetch /api/workload/ID/info/ and, for a tune,
#             /api/spsa/ID/{digest,outputs,inputs}/, and check them (the digest's header
#             and one row per input line, `name, value` outputs that round the digest's
#             current values, games = twice the pentanomial pairs). CAPTURE=DIR also
#             keeps the bodies, byte for byte, as DIR/{info.json,digest.txt,outputs.txt,
#             inputs.txt}; FROM=DIR checks such kept bodies instead of a live instance.
#   wait ID   wait until workload ID has at least MIN_GAMES games (default 2) or is
#             finished, at most WAIT_S seconds (default 1800).
#   status    processes, machines and workloads.
#   down      stop the clients, the server and the file server (their data stays;
#             PURGE=1 also deletes OB).
#
# Variables (environment or VAR=value arguments), defaults in brackets:
#   VENDOR      folder holding openbench-*.tar.gz and fastchess-*.tar.gz (for `up`,
#               until they are unpacked); the snapshots are unpacked, never copied
#               into the repository
#   OB          the instance's folder [runs/openbench] (git-ignored)
#   PORT FILE_PORT   server and file server ports on 127.0.0.1 [8000 8001]
#   OB_USER OB_PASSWORD   the enabled user the clients log in as [occam occam-local]
#   REF BASE    engine commits [HEAD, BASE=REF]; resolved at every call, so give a
#               commit id where HEAD may move between `up` and `test`/`tune`
#   NODES GAMES [500 8]   OPTIONS ["Threads=1 Hash=8"]   WORKLOAD_SIZE [1]
#   PAIRS_PER ITERATIONS [1 4]   ALPHA GAMMA A_RATIO [0.602 0.101 0.1]
#   REPORTING DISTRIBUTION [BATCHED SINGLE]   SPSA_INPUTS   SPSA_PARAMS [3]
#   BOOK_POSITIONS BOOK_SEED   the book: `occam "genfens N seed S book None"` [1000 1]
#   ID THREADS PIDNS   client number, its -T, PID namespaces [1 2 auto]
#   BENCH_TIMEOUT   seconds a client gives each bench [OpenBench's 60]
#   NICE        niceness of every build, bench and game [19]
#   NPS         Engines/Occam.json's reference speed [the bench's nps at REF, as measured]
#
# Needs: git, make, a C++ compiler (g++), cargo (the toolchain Occam builds with, its
# crates available), python3 with venv and pip (PyPI reachable for `up`'s first run:
# Django 4.2.1, django-htmlmin, requests, scipy; psutil, py-cpuinfo), curl, zip,
# unzip, sha256sum; unshare for PID namespaces.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

args=()
for a in "$@"; do
    case $a in
        [A-Z_]*=*) export "${a?}" ;;
        *) args+=("$a") ;;
    esac
done
set -- "${args[@]+"${args[@]}"}"
CMD=${1:-}
[[ $# -gt 0 ]] && shift

OB=${OB:-runs/openbench}
[[ $OB = /* ]] || OB=$ROOT/$OB
HOST=127.0.0.1
PORT=${PORT:-8000}
FILE_PORT=${FILE_PORT:-8001}
SERVER=http://$HOST:$PORT
FILES=http://$HOST:$FILE_PORT
OB_USER=${OB_USER:-occam}
OB_PASSWORD=${OB_PASSWORD:-occam-local}
NICE=${NICE:-19}
REF=${REF:-HEAD}
BASE=${BASE:-$REF}
BOOK_POSITIONS=${BOOK_POSITIONS:-1000}
BOOK_SEED=${BOOK_SEED:-1}
BOOK=occam_g${BOOK_POSITIONS}_s${BOOK_SEED}.epd
PY=$OB/venv/bin/python
SRV=$OB/OpenBench
NICE_CMD=(nice -n "$NICE")

say() { echo "openbench_local: $*" >&2; }
die() { say "error: $*"; exit 2; }
step() { # step NAME: prints the step and its start time; `done_step` its duration
    STEP_NAME=$1 STEP_T0=$(date +%s)
    say "$1 ..."
}
done_step() { say "$STEP_NAME: done in $(( $(date +%s) - STEP_T0 )) s"; }

alive() { [[ -f $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

# ---------------------------------------------------------------------------- up

unpack() {
    mkdir -p "$OB"/{log,pid,www/engines,www/books,engines,clients}
    if [[ ! -f $SRV/manage.py ]]; then
        [[ -n ${VENDOR:-} ]] || die "VENDOR=DIR (the folder with openbench-*.tar.gz) is needed to unpack"
        local tgz; tgz=$(ls "$VENDOR"/openbench-*.tar.gz 2>/dev/null | head -1)
        [[ -n $tgz ]] || die "no openbench-*.tar.gz in $VENDOR"
        step "unpack $(basename "$tgz")"
        tar -xzf "$tgz" -C "$OB"
        [[ -f $SRV/manage.py ]] || die "$tgz did not unpack into OpenBench/"
        cp "$SRV/Config/config.json" "$SRV/Config/config.json.orig"
        done_step
    fi
    if [[ ! -f $OB/fastchess/Makefile ]]; then
        [[ -n ${VENDOR:-} ]] || die "VENDOR=DIR (the folder with fastchess-*.tar.gz) is needed to unpack"
        local tgz; tgz=$(ls "$VENDOR"/fastchess-*.tar.gz 2>/dev/null | head -1)
        [[ -n $tgz ]] || die "no fastchess-*.tar.gz in $VENDOR"
        step "unpack $(basename "$tgz")"
        tar -xzf "$tgz" -C "$OB"
        done_step
    fi
}

venv() {
    [[ -f $OB/venv/.installed ]] && return
    step "venv and pip install"
    [[ -x $PY ]] || python3 -m venv "$OB/venv"
    # The server's and the client's requirements, as they pin them.
    "${NICE_CMD[@]}" "$PY" -m pip install -q -r "$SRV/requirements.txt" -r "$SRV/Client/requirements.txt"
    touch "$OB/venv/.installed"
    done_step
}

# fastchess_ok FILE: FILE answers --version with a version number, as the client asks.
fastchess_ok() {
    [[ -x $1 ]] || return 1
    local v; v=$("$1" --version 2>/dev/null) || true  # its exit status is not the answer
    [[ $v =~ [0-9]+\.[0-9]+ ]]
}

fastchess() {
    fastchess_ok "$OB/fastchess/fastchess" && return
    step "build fastchess (make -j2 CXX=g++)"
    # GIT_DIR: fastchess's Makefile stamps the version with `git rev-parse HEAD`, which
    # inside this repository would be Occam's commit.
    GIT_DIR=/dev/null "${NICE_CMD[@]}" make -C "$OB/fastchess" -j2 CXX=g++ >"$OB/log/fastchess-build.log" 2>&1 \
        || { tail -20 "$OB/log/fastchess-build.log" >&2; die "fastchess did not build"; }
    done_step
}

# sha_of REF: the full commit id.
sha_of() { git rev-parse --verify -q "$1^{commit}" || die "no commit '$1'"; }
# bin_name SHA: the client's name for an engine binary (Client/utils.py engine_binary_name).
bin_name() { local s=${1^^}; echo "Occam-${s:0:8}"; }

# engine SHA: the source zip served to clients, the binary built from it as the client
# builds it (unzip, `make -j EXE=<name>` in its one top folder), and its bench.
engine() {
    local sha=$1 name; name=$(bin_name "$sha")
    local zip=$OB/www/engines/occam-$sha.zip bin=$OB/engines/$name
    if [[ ! -f $zip ]]; then
        git archive --format=zip --prefix="occam-${sha:0:8}/" -o "$zip.tmp" "$sha"
        mv "$zip.tmp" "$zip"
    fi
    if [[ ! -x $bin ]]; then
        step "build Occam ${sha:0:8} (make -j EXE=$name)"
        local dir=$OB/build/$sha
        rm -rf "$dir"; mkdir -p "$dir"
        unzip -q "$zip" -d "$dir"
        # CARGO_TARGET_DIR keeps the dependencies between builds of several commits.
        ( cd "$dir/occam-${sha:0:8}" && CARGO_TARGET_DIR=$OB/cargo-target \
            "${NICE_CMD[@]}" make -j EXE="$name" ) >"$OB/log/build-${sha:0:8}.log" 2>&1 \
            || { tail -20 "$OB/log/build-${sha:0:8}.log" >&2; die "Occam ${sha:0:8} did not build"; }
        mv "$dir/occam-${sha:0:8}/$name" "$bin"
        rm -rf "$dir"
        done_step
    fi
    if [[ ! -s $bin.bench ]]; then
        step "bench Occam ${sha:0:8}"
        # OpenBench reads the last "<N> nodes" and "<M> nps" of `<engine> bench`.
        "${NICE_CMD[@]}" "$bin" bench | tail -1 >"$bin.bench.tmp"
        grep -Eq '^[0-9]+ nodes [0-9]+ nps$' "$bin.bench.tmp" || die "unexpected bench line: $(cat "$bin.bench.tmp")"
        mv "$bin.bench.tmp" "$bin.bench"
        done_step
    fi
}
bench_of() { cut -d' ' -f1 "$OB/engines/$(bin_name "$1").bench"; }
nps_of() { cut -d' ' -f3 "$OB/engines/$(bin_name "$1").bench"; }

# book SHA: BOOK_POSITIONS openings from Occam's genfens, served as a one-file zip.
book() {
    local sha=$1 epd=$OB/www/books/$BOOK
    if [[ ! -s $epd ]]; then
        step "book $BOOK"
        "${NICE_CMD[@]}" "$OB/engines/$(bin_name "$sha")" "genfens $BOOK_POSITIONS seed $BOOK_SEED book None" quit \
            | sed -n 's/^info string genfens //p' >"$epd.tmp"
        [[ $(wc -l <"$epd.tmp") -eq $BOOK_POSITIONS ]] || die "genfens gave $(wc -l <"$epd.tmp") of $BOOK_POSITIONS positions"
        mv "$epd.tmp" "$epd"
        done_step
    fi
    if [[ ! -s $epd.zip ]]; then
        ( cd "$OB/www/books" && zip -q "$BOOK.zip.tmp" "$BOOK" && mv "$BOOK.zip.tmp" "$BOOK.zip" )
    fi
}

# configure SHA: Engines/Occam.json, Books/<book>.json, both listed in Config/config.json.
configure() {
    local sha=$1
    OBL_SRV=$SRV OBL_BOOK=$BOOK OBL_BOOK_SHA=$(sha256sum "$OB/www/books/$BOOK" | cut -d' ' -f1) \
    OBL_FILES=$FILES OBL_NPS=${NPS:-$(nps_of "$sha")} OBL_CARGO=$(cargo --version | awk '{print $2}') \
    python3 - <<'EOF'
import json, os
srv, book = os.environ["OBL_SRV"], os.environ["OBL_BOOK"]
def write(path, doc):
    text = json.dumps(doc, indent=4) + "\n"
    if not os.path.exists(path) or open(path).read() != text:
        open(path, "w").write(text)
write(f"{srv}/Books/{book}.json", {
    "sha": os.environ["OBL_BOOK_SHA"],
    "source": f"{os.environ['OBL_FILES']}/books/{book}.zip",
})
major, minor = os.environ["OBL_CARGO"].split(".")[:2]
preset = {"book_name": book, "win_adj": "movecount=3 score=400",
          "draw_adj": "movenumber=40 movecount=8 score=10"}
write(f"{srv}/Engines/Occam.json", {
    "private": False,
    "nps": int(os.environ["OBL_NPS"]),
    "source": os.environ["OBL_FILES"] + "/engines/",
    "build": {"path": "", "compilers": [f"cargo>={major}.{minor}"],
              "cpuflags": ["POPCNT"], "systems": ["Linux"]},
    "test_presets": {"default": {**preset, "base_branch": "HEAD",
                                 "test_bounds": "[0.00, 5.00]", "test_confidence": "[0.05, 0.05]"},
                     "N=500": {"both_options": "Threads=1 Hash=8", "both_time_control": "N=500",
                               "workload_size": 1}},
    "tune_presets": {"default": preset,
                     "N=500": {"dev_options": "Threads=1 Hash=8", "dev_time_control": "N=500"}},
})
path = f"{srv}/Config/config.json"
conf = json.load(open(path))
for key, name in (("books", book), ("engines", "Occam")):
    if name not in conf[key]:
        conf[key].append(name)
write(path, conf)
EOF
}

manage() { ( cd "$SRV" && "$PY" manage.py "$@" ); }
# orm: runs the Python on stdin in `manage.py shell`, with OpenBench's models loaded.
orm() { ( cd "$SRV" && "$PY" manage.py shell ); }

user() {
    OBL_USER=$OB_USER OBL_PASSWORD=$OB_PASSWORD orm <<'EOF'
import os
from django.contrib.auth.models import User
from OpenBench.models import Profile
name, password = os.environ["OBL_USER"], os.environ["OBL_PASSWORD"]
user = User.objects.filter(username=name).first() or User.objects.create_user(name, password=password)
user.set_password(password); user.save()
profile = Profile.objects.filter(user=user).first() or Profile(user=user)
profile.enabled = profile.approver = True
profile.save()
EOF
}

config_sum() { cat "$SRV"/Config/config.json "$SRV"/Engines/Occam.json "$SRV/Books/$BOOK.json" | sha256sum | cut -c1-16; }

start_servers() {
    if ! alive "$OB/pid/files.pid"; then
        setsid nohup "$PY" -m http.server "$FILE_PORT" --bind "$HOST" --directory "$OB/www" \
            >>"$OB/log/files.log" 2>&1 </dev/null &
        echo $! >"$OB/pid/files.pid"
    fi
    local sum; sum=$(config_sum)
    if alive "$OB/pid/server.pid" && [[ $(cat "$OB/pid/server.config" 2>/dev/null) != "$sum" ]]; then
        say "configuration changed: restarting the server"
        stop_pid "$OB/pid/server.pid"
    fi
    if ! alive "$OB/pid/server.pid"; then
        ( cd "$SRV" && exec setsid nohup "$PY" manage.py runserver --noreload "$HOST:$PORT" ) \
            >>"$OB/log/server.log" 2>&1 </dev/null &
        echo $! >"$OB/pid/server.pid"
        echo "$sum" >"$OB/pid/server.config"
    fi
    local i
    for i in $(seq 120); do
        curl -fsS -o /dev/null "$SERVER/api/config/" 2>/dev/null \
            && curl -fsS -o /dev/null "$FILES/books/$BOOK.zip" 2>/dev/null && return
        sleep 1
    done
    die "the server did not answer on $SERVER (log: $OB/log/server.log)"
}

cmd_up() {
    local sha; sha=$(sha_of "$REF")
    unpack
    venv
    engine "$sha"
    book "$sha"
    configure "$sha"
    step "migrate and user"
    # OpenBench starts its PGN watcher in whichever process first takes its lock file;
    # on a fresh database the watcher would query tables migrate has not made yet, so
    # migrate runs holding that lock (unless the running server holds it).
    ( cd "$SRV" && "$PY" -c '
import fcntl, subprocess, sys
lock = open("openbench_watchers.lock", "a")
try: fcntl.lockf(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
except OSError: pass
sys.exit(subprocess.call([sys.executable, "manage.py", "migrate", "-v", "0"]))' )
    user
    done_step
    start_servers
    fastchess
    say "up: server $SERVER (user $OB_USER), files $FILES, Occam ${sha:0:8} bench $(bench_of "$sha")"
}

# ------------------------------------------------------------------------ client

# place: every built engine and the book into each client, so that they need not
# build again (the same `make -j EXE=` from the same zip) nor fetch the book.
place() {
    local c f
    for c in "$OB"/clients/*/; do
        [[ -d $c/Engines ]] || continue
        for f in "$OB"/engines/Occam-*; do
            [[ $f = *.bench* ]] && continue
            [[ -x $c/Engines/$(basename "$f") ]] || cp "$f" "$c/Engines/"
        done
        [[ -f $c/Books/$BOOK ]] || cp "$OB/www/books/$BOOK" "$c/Books/"
    done
}

cmd_client() {
    local id=${ID:-1} threads=${THREADS:-2}
    local dir=$OB/clients/$id
    [[ -f $SRV/manage.py ]] || die "run 'up' first"
    fastchess_ok "$OB/fastchess/fastchess" || die "fastchess is not built yet (run 'up')"
    if alive "$OB/pid/client-$id.pid"; then say "client $id runs already"; return; fi
    if [[ ! -f $dir/client.py ]]; then
        mkdir -p "$dir"
        cp -r "$SRV/Client/." "$dir/"
        mkdir -p "$dir"/{Engines,Books,PGNs,Networks}
    fi
    # OpenBench gives `<engine> bench` 60 s. On a host whose cores are busy with other
    # work, a niced bench can take longer: BENCH_TIMEOUT=S gives it S seconds in this
    # client's copy (the one change to OpenBench's code, and only when asked for).
    cp "$SRV/Client/bench.py" "$dir/bench.py"
    if [[ -n ${BENCH_TIMEOUT:-} ]]; then
        sed -i "s/^MAX_BENCH_TIME_SECONDS = .*/MAX_BENCH_TIME_SECONDS = $BENCH_TIMEOUT/" "$dir/bench.py"
        grep -q "^MAX_BENCH_TIME_SECONDS = $BENCH_TIMEOUT\$" "$dir/bench.py" || die "could not set the bench timeout"
    fi
    # The client keeps a fastchess-ob it finds of a sufficient version (no download).
    cp "$OB/fastchess/fastchess" "$dir/fastchess-ob"
    rm -f "$dir/openbench.exit" "$dir/stop"
    place
    local ns=()
    case ${PIDNS:-auto} in
        0) ;;
        *) if unshare --pid --fork --mount-proc --kill-child true 2>/dev/null; then
               ns=(unshare --pid --fork --mount-proc --kill-child)
           elif [[ ${PIDNS:-auto} = 1 ]]; then die "unshare --pid is not permitted here (PIDNS=0 to run without)"
           fi ;;
    esac
    # The restart loop: client.py exits when the server asks for a new client version
    # (a configuration change); the stop file ends it.
    setsid nohup "${ns[@]}" "${NICE_CMD[@]}" env OPENBENCH_USERNAME="$OB_USER" \
        OPENBENCH_PASSWORD="$OB_PASSWORD" OPENBENCH_SERVER="$SERVER" \
        bash -c 'cd "$1"; shift; while [[ ! -f stop ]]; do "$@"; sleep 5; done' _ "$dir" \
        "$PY" client.py --no-client-downloads -T "$threads" -N 1 -I "local-$id" \
        >>"$OB/log/client-$id.log" 2>&1 </dev/null &
    echo $! >"$OB/pid/client-$id.pid"
    say "client $id started (-T $threads${ns:+, own PID namespace}); log $OB/log/client-$id.log"
}

# --------------------------------------------------------------------- workloads

engine_row_env() { # the environment the ORM snippets read for engine SHA as PREFIX
    local p=$1 sha=$2
    export "${p}_SHA=$sha" "${p}_NAME=$(git rev-parse --short "$sha")" "${p}_BENCH=$(bench_of "$sha")" \
        "${p}_SOURCE=$FILES/engines/occam-$sha.zip"
}

cmd_test() {
    local dev base; dev=$(sha_of "$REF"); base=$(sha_of "$BASE")
    engine "$dev"; engine "$base"; place
    engine_row_env OBL_DEV "$dev"; engine_row_env OBL_BASE "$base"
    OBL_USER=$OB_USER OBL_BOOK=$BOOK OBL_FILES=$FILES OBL_NODES=${NODES:-500} OBL_GAMES=${GAMES:-8} \
    OBL_OPTIONS=${OPTIONS:-Threads=1 Hash=8} OBL_WORKLOAD_SIZE=${WORKLOAD_SIZE:-1} \
    OBL_NPS=$(nps_of "$base") orm <<'EOF'
import os
from OpenBench.models import Engine, Test, Profile
from OpenBench.utils import TimeControl
e = os.environ
def engine(p):
    return Engine.objects.create(name=e[p + "_NAME"], source=e[p + "_SOURCE"], sha=e[p + "_SHA"],
                                 bench=int(e[p + "_BENCH"]))
t = Test(author=e["OBL_USER"], book_name=e["OBL_BOOK"], upload_pgns="FALSE",
         info="Occam local test, N=%s" % e["OBL_NODES"])
t.dev, t.base = engine("OBL_DEV"), engine("OBL_BASE")
for side in ("dev", "base"):
    setattr(t, side + "_repo", e["OBL_FILES"] + "/engines/")
    setattr(t, side + "_engine", "Occam")
    setattr(t, side + "_options", e["OBL_OPTIONS"])
    setattr(t, side + "_time_control", TimeControl.parse("N=" + e["OBL_NODES"]))
t.workload_size, t.priority, t.throughput = int(e["OBL_WORKLOAD_SIZE"]), 0, 1000
t.scale_method, t.scale_nps = "BASE", int(e["OBL_NPS"])
t.test_mode, t.max_games = "GAMES", int(e["OBL_GAMES"])
t.approved = True
t.save()
p = Profile.objects.get(user__username=e["OBL_USER"]); p.tests += 1; p.save()
print(t.id)
EOF
}

# The default input lines: the first SPSA_PARAMS parameters of params/search.json at
# SHA, their c_end and r_end where the file gives them, else a twentieth of the range
# and 0.002.
default_inputs() {
    git show "$1:params/search.json" | OBL_N=${SPSA_PARAMS:-3} python3 -c '
import json, os, sys
for p in json.load(sys.stdin)["params"][: int(os.environ["OBL_N"])]:
    c = p.get("c_end", max(0.5, (p["max"] - p["min"]) / 20))
    r = p.get("r_end", 0.002)
    print(", ".join(map(str, [p["name"], "int", p["value"], p["min"], p["max"], c, r])))'
}

cmd_tune() {
    local sha inputs; sha=$(sha_of "$REF")
    engine "$sha"; place
    if [[ -n ${SPSA_INPUTS:-} ]]; then inputs=$(cat "$SPSA_INPUTS"); else inputs=$(default_inputs "$sha"); fi
    engine_row_env OBL_DEV "$sha"
    OBL_USER=$OB_USER OBL_BOOK=$BOOK OBL_FILES=$FILES OBL_NODES=${NODES:-500} \
    OBL_OPTIONS=${OPTIONS:-Threads=1 Hash=8} OBL_NPS=$(nps_of "$sha") OBL_INPUTS=$inputs \
    OBL_ALPHA=${ALPHA:-0.602} OBL_GAMMA=${GAMMA:-0.101} OBL_A_RATIO=${A_RATIO:-0.1} \
    OBL_ITERATIONS=${ITERATIONS:-4} OBL_PAIRS_PER=${PAIRS_PER:-1} \
    OBL_REPORTING=${REPORTING:-BATCHED} OBL_DISTRIBUTION=${DISTRIBUTION:-SINGLE} orm <<'EOF'
import os
from django.db import transaction
from OpenBench.models import Engine, Test, Profile
from OpenBench.spsa_utils import create_spsa_run
from OpenBench.utils import TimeControl
e = os.environ
class Form:  # create_spsa_run reads the tune form's fields from request.POST only
    POST = {"spsa_alpha": e["OBL_ALPHA"], "spsa_gamma": e["OBL_GAMMA"],
            "spsa_A_ratio": e["OBL_A_RATIO"], "spsa_iterations": e["OBL_ITERATIONS"],
            "spsa_pairs_per": e["OBL_PAIRS_PER"], "spsa_reporting_type": e["OBL_REPORTING"],
            "spsa_distribution_type": e["OBL_DISTRIBUTION"], "spsa_inputs": e["OBL_INPUTS"]}
t = Test(author=e["OBL_USER"], book_name=e["OBL_BOOK"], upload_pgns="FALSE",
         info="Occam local tune, N=%s" % e["OBL_NODES"])
t.dev = t.base = Engine.objects.create(name=e["OBL_DEV_NAME"], source=e["OBL_DEV_SOURCE"],
                                       sha=e["OBL_DEV_SHA"], bench=int(e["OBL_DEV_BENCH"]))
t.dev_repo = t.base_repo = e["OBL_FILES"] + "/engines/"
t.dev_engine = t.base_engine = "Occam"
t.dev_options = t.base_options = e["OBL_OPTIONS"]
t.dev_time_control = t.base_time_control = TimeControl.parse("N=" + e["OBL_NODES"])
t.workload_size, t.priority, t.throughput = int(e["OBL_PAIRS_PER"]), 0, 1000
t.scale_method, t.scale_nps = "BASE", int(e["OBL_NPS"])
t.test_mode, t.approved = "SPSA", True
with transaction.atomic():
    t.save()
    create_spsa_run(t, Form()).save()
p = Profile.objects.get(user__username=e["OBL_USER"]); p.tests += 1; p.save()
print(t.id)
EOF
}

# ------------------------------------------------------------------ check, status

cmd_check() {
    local id=${1:-} tmp; tmp=$(mktemp -d)
    if [[ -n ${FROM:-} ]]; then
        cp "$FROM"/* "$tmp/"
    else
        [[ -n $id ]] || die "check needs a workload id (or FROM=DIR of captured bodies)"
        curl -fsS -o "$tmp/info.json" "$SERVER/api/workload/$id/info/"
    fi
    local mode; mode=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["info"]["test_mode"])' "$tmp/info.json")
    if [[ $mode = SPSA && -z ${FROM:-} ]]; then
        curl -fsS -o "$tmp/digest.txt" "$SERVER/api/spsa/$id/digest/"
        curl -fsS -o "$tmp/outputs.txt" "$SERVER/api/spsa/$id/outputs/"
        curl -fsS -o "$tmp/inputs.txt" "$SERVER/api/spsa/$id/inputs/"
    fi
    python3 - "$tmp" "$mode" <<'EOF'
import json, os, re, sys
d, mode = sys.argv[1], sys.argv[2]
info = json.load(open(f"{d}/info.json"))["info"]
penta, tri = info["penta"], info["tri"]
assert info["games"] == 2 * sum(penta) == sum(tri), (info["games"], penta, tri)
print(f"info: workload {info['id']} {mode} {info['dev_time_control']}: {info['games']} games, "
      f"penta {penta}, finished {info['finished']}")
if mode == "SPSA":
    inputs = [l.split(", ") for l in open(f"{d}/inputs.txt").read().splitlines()]
    rows = [r.split(",") for r in open(f"{d}/digest.txt").read().splitlines()]
    assert rows[0] == ["Name", "Curr", "Start", "Min", "Max", "C", "C_end", "R", "R_end"], rows[0]
    assert [r[0] for r in rows[1:]] == [i[0] for i in inputs], "digest names differ from the inputs"
    for r in rows[1:]:
        assert len(r) == 9 and all(re.fullmatch(r"-?\d+(\.\d+)?", x) for x in r[1:]), r
    outs = [l.split(", ") for l in open(f"{d}/outputs.txt").read().splitlines()]
    assert [o[0] for o in outs] == [i[0] for i in inputs], "outputs names differ from the inputs"
    for (name, value), r, i in zip(outs, rows[1:], inputs):
        assert float(i[3]) <= float(value) <= float(i[4]), (name, value)
        if i[1] == "int":
            assert value == str(int(round(float(r[1])))), (name, value, r[1])
        else:
            assert abs(float(value) - float(r[1])) < 1e-4, (name, value, r[1])
    print("digest: " + "; ".join(f"{r[0]} {r[1]} (start {r[2]}, c {r[5]}, r {r[7]})" for r in rows[1:]))
    print("outputs: " + "; ".join(f"{n} {v}" for n, v in outs))
print("check: ok")
EOF
    if [[ -n ${CAPTURE:-} ]]; then
        mkdir -p "$CAPTURE"
        cp "$tmp/info.json" "$CAPTURE/info.json"
        [[ $mode != SPSA ]] || cp "$tmp/digest.txt" "$tmp/outputs.txt" "$tmp/inputs.txt" "$CAPTURE/"
        say "bodies kept in $CAPTURE"
    fi
    rm -rf "$tmp"
}

cmd_wait() {
    local id=${1:?wait needs a workload id} t0; t0=$(date +%s)
    while :; do
        local line; line=$(curl -fsS "$SERVER/api/workload/$id/info/" | python3 -c '
import json, sys; i = json.load(sys.stdin)["info"]; print(i["games"], int(i["finished"]))')
        set -- $line
        say "workload $id: $1 games, finished $2"
        (( $1 >= ${MIN_GAMES:-2} || $2 == 1 )) && return
        (( $(date +%s) - t0 < ${WAIT_S:-1800} )) || die "workload $id: still $1 games after ${WAIT_S:-1800} s"
        sleep 15
    done
}

cmd_status() {
    local f
    for f in "$OB"/pid/*.pid; do
        [[ -f $f ]] || continue
        printf '%-12s %s\n' "$(basename "$f" .pid)" "$(alive "$f" && echo "running, pid $(cat "$f")" || echo stopped)"
    done
    alive "$OB/pid/server.pid" || return 0
    orm <<'EOF'
from OpenBench.models import Test, Machine
for m in Machine.objects.order_by("id"):
    print("machine %d %s: workload %d, updated %s" % (m.id, m.info.get("machine_name"), m.workload, m.updated))
for t in Test.objects.order_by("id"):
    print("workload %d %s %s %s: %d games %s%s" % (t.id, t.test_mode, t.dev.name, t.dev_time_control,
          t.games, (t.LL, t.LD, t.DD, t.DW, t.WW), " finished" if t.finished else ""))
EOF
}

# -------------------------------------------------------------------------- down

# stop_pid FILE: ends the process group FILE names (every process was started by this
# script with setsid, so its pid is its group's id), then forgets it.
stop_pid() {
    local f=$1 pid
    [[ -f $f ]] || return 0
    pid=$(cat "$f")
    if kill -0 "$pid" 2>/dev/null; then
        kill -TERM -- "-$pid" 2>/dev/null || true
        for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
        kill -KILL -- "-$pid" 2>/dev/null || true
    fi
    rm -f "$f"
}

cmd_down() {
    local f
    for f in "$OB"/pid/client-*.pid; do
        [[ -f $f ]] || continue
        local id; id=$(basename "$f" .pid); id=${id#client-}
        touch "$OB/clients/$id/stop" "$OB/clients/$id/openbench.exit"
        stop_pid "$f"
    done
    stop_pid "$OB/pid/server.pid"
    stop_pid "$OB/pid/files.pid"
    rm -f "$OB/pid/server.config"
    if [[ ${PURGE:-0} = 1 ]]; then rm -rf "$OB"; say "down: $OB deleted"; else say "down: stopped (data kept in $OB)"; fi
}

# One compound command, read whole before it runs: a run of this script is not
# disturbed by an edit of the file while it runs.
{
case $CMD in
    up) cmd_up ;;
    client) cmd_client ;;
    test) cmd_test ;;
    tune) cmd_tune ;;
    check) cmd_check "$@" ;;
    wait) cmd_wait "$@" ;;
    status) cmd_status ;;
    down) cmd_down ;;
    *) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
exit
}
