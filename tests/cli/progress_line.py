#!/usr/bin/env python3
"""progress_line.py KOPT REPO: the live progress line is drawn only for a person at a terminal.

`kopt check` runs a worker at once (the GPU probe), which shows on the line, with or without a
GPU. With standard error on a pipe, and with --json on a terminal, no '\\r' may appear; with
standard error on a pseudo-terminal the line is drawn and erased before kopt exits, so that
nothing of it is left on the screen."""
import os, pty, re, select, subprocess, sys

kopt, repo = sys.argv[1], sys.argv[2]
command = [kopt, "check", f"{repo}/examples/vector_add", "--seeds", "1"]
elapsed = re.compile(r" · [0-9]+\.[0-9] s")
failures = []


def on_terminal(args):
    """Standard error of `args` as a terminal receives it."""
    master, slave = pty.openpty()
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    received = b""
    while True:
        ready, _, _ = select.select([master], [], [], 1.0)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the last writer closed the terminal
                break
            if not chunk:
                break
            received += chunk
        elif process.poll() is not None:
            break
    process.wait()
    os.close(master)
    return received.decode("utf-8", "replace")


def screen(text):
    """The rows a terminal shows after `text`: '\\r' returns to the start of the row."""
    rows, row, column = [], [], 0
    for c in text.replace("\r\n", "\n"):
        if c == "\r":
            column = 0
        elif c == "\n":
            rows.append("".join(row).rstrip())
            row, column = [], 0
        else:
            row[column:column + 1] = [c]
            column += 1
    rows.append("".join(row).rstrip())
    return rows


piped = subprocess.run(command, capture_output=True, text=True)
if "\r" in piped.stderr or "\r" in piped.stdout:
    failures.append(f"stderr on a pipe still got '\\r': {piped.stderr!r}")

drawn = on_terminal(command)
if "\r" not in drawn or not elapsed.search(drawn):
    failures.append(f"on a terminal no progress line was drawn: {drawn!r}")
left = [row for row in screen(drawn) if elapsed.search(row)]
if left:
    failures.append(f"the progress line was left on the screen: {left}")

quiet = on_terminal(command + ["--json"])
if "\r" in quiet.replace("\r\n", "\n"):
    failures.append(f"--json on a terminal still drew the line: {quiet!r}")

for f in failures:
    print("FAIL:", f)
print("progress line: drawn on a terminal only, and erased" if not failures else "")
sys.exit(1 if failures else 0)
