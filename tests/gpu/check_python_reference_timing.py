#!/usr/bin/env python3
"""Runs `kopt bench FOLDER --json` on a spec whose reference is a .py file and checks that
the reference was timed (torch on the GPU): a "reference" variant with samples, not
interleaved, and a verdict with a speedup against it on every case.

    check_python_reference_timing.py KOPT FOLDER [kopt bench options...]

Prints "PYTHON REFERENCE TIMED: ..." and exits 0, or says what is missing and exits 1.
"""

import json
import subprocess
import sys


def fail(message, output=""):
    sys.stdout.write(output[-4000:])
    print("MISSING: %s" % message)
    return 1


def main(argv):
    kopt, folder, extra = argv[1], argv[2], argv[3:]
    process = subprocess.run([kopt, "bench", folder, "--json"] + extra, capture_output=True, text=True)
    sys.stderr.write(process.stderr)
    try:
        report = json.loads(process.stdout)
    except ValueError:
        return fail("kopt bench --json gave no JSON (exit %d)" % process.returncode, process.stdout)
    if report.get("untimed"):
        return fail("a timed reference; kopt says %s" % report["untimed"][0]["reason"])
    references = [v for v in report["variants"] if v["label"] == "reference"]
    cases = {v["case"] for v in report["variants"]}
    if not references or {v["case"] for v in references} != cases:
        return fail("a reference variant on every case (%s)" % ", ".join(sorted(cases)))
    for v in references:
        if not v["samples_seconds"] or len(v["host_seconds"]) != len(v["samples_seconds"]):
            return fail("samples of the reference on case %s" % v["case"])
        if v["interleaved"] is not False or v["sm_clock_mhz"]:
            return fail("interleaved: false and no SM clock for the reference on case %s" % v["case"])
    verdicts = {p["case"]: p for p in report["verdicts"] if p["variant"] == "reference"}
    if set(verdicts) != cases or any(p["interleaved"] is not False or p["speedup"] <= 0
                                     for p in verdicts.values()):
        return fail("a not-interleaved verdict with a speedup against the reference on every case; verdicts: %s; variants: %s"
                    % (json.dumps(report["verdicts"]), [(v["label"], v["case"]) for v in report["variants"]]))
    print("PYTHON REFERENCE TIMED: " + "; ".join(
        "case %s: reference median %.4g s (%d samples, %s), %s, speedup x%.3f"
        % (v["case"], v["summary"]["median"], len(v["samples_seconds"]), v["stop_reason"],
           verdicts[v["case"]]["verdict"], verdicts[v["case"]]["speedup"])
        for v in references))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
