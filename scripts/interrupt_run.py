#!/usr/bin/env python3
"""Runs a command as a terminal runs a foreground job and presses Ctrl-C for it.

    scripts/interrupt_run.py --when-lines FILE N [--timeout SECONDS] -- COMMAND...

The command gets a process group of its own; once FILE holds N lines, SIGINT goes to
that whole group (cargo and the program it runs), as a Ctrl-C at a terminal sends it.
A shell script cannot do this with a background job: a non-interactive shell starts
those with SIGINT ignored. Exits with the command's exit status (130 after a clean
stop), or 2 when FILE never reached N lines within the timeout (the command is then
killed).
"""

import argparse
import os
import signal
import subprocess
import sys
import time


def lines_in(path):
    try:
        with open(path, "rb") as f:
            return sum(1 for _ in f)
    except OSError:
        return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--when-lines", nargs=2, metavar=("FILE", "N"), required=True)
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given")
    path, wanted = args.when_lines[0], int(args.when_lines[1])

    def default_sigint():
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    child = subprocess.Popen(command, start_new_session=True, preexec_fn=default_sigint)
    deadline = time.monotonic() + args.timeout
    while lines_in(path) < wanted:
        if child.poll() is not None:
            print(f"interrupt_run: the command ended before {path} held {wanted} lines",
                  file=sys.stderr)
            return child.returncode if child.returncode != 0 else 2
        if time.monotonic() > deadline:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            print(f"interrupt_run: {path} did not reach {wanted} lines in {args.timeout:.0f} s",
                  file=sys.stderr)
            return 2
        time.sleep(0.05)
    os.killpg(child.pid, signal.SIGINT)
    return child.wait()


if __name__ == "__main__":
    sys.exit(main())
