#!/usr/bin/env python3
"""skip_reasons.py FOLDER: why the tests of the last ctest run that skipped themselves did.

ctest prints only "***Skipped" for a test that exits 77 (or matches a skip pattern) and shows
its output with -V alone. The build folder's CTestCustom.cmake runs this after every ctest on
Testing/Temporary (where the running ctest's log is still LastTest.log.tmp: it is renamed to
LastTest.log only after this runs), so the reasons are printed without -V: each test's
"SKIPPED: reason" line (kopt's test scripts) or the message of a GTEST_SKIP, grouped by reason.
Prints nothing when nothing skipped or the log is missing.
"""
import os
import re
import sys

NAMES_SHOWN = 4


def skip_reasons(log_text):
    """{reason: [test names]} from a LastTest.log."""
    reasons = {}
    for name, output in re.findall(r'^\d+/\d+ Test: (\S+)\n.*?^Output:\n-+\n(.*?)^<end of output>', log_text,
                                   re.S | re.M):
        lines = output.splitlines()
        reason = next((line[len("SKIPPED:"):].strip() for line in lines if line.startswith("SKIPPED:")), None)
        if reason is None:  # GoogleTest: "file:line: Skipped", then the message
            at = next((i for i, line in enumerate(lines) if line.endswith(": Skipped")), None)
            if at is not None:
                reason = lines[at + 1].strip() if at + 1 < len(lines) and lines[at + 1].strip() else "GTEST_SKIP"
        if reason is not None:
            reasons.setdefault(reason, []).append(name)
    return reasons


def format_reasons(reasons):
    if not reasons:
        return ""
    text = "Why tests skipped (ctest -V shows each one's output):\n"
    for reason, names in sorted(reasons.items(), key=lambda item: -len(item[1])):
        shown = ", ".join(names[:NAMES_SHOWN]) + (f" and {len(names) - NAMES_SHOWN} more" if len(names) > NAMES_SHOWN else "")
        text += f"  {len(names)} × {reason}: {shown}\n"
    return text


def main():
    folder = sys.argv[1]
    running = os.path.join(folder, "LastTest.log.tmp")
    log = running if os.path.exists(running) else os.path.join(folder, "LastTest.log")
    try:
        log_text = open(log, encoding="utf-8", errors="replace").read()
    except OSError:
        return 0
    sys.stdout.write(format_reasons(skip_reasons(log_text)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
