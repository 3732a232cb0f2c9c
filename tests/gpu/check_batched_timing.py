#!/usr/bin/env python3
"""Batched cold timing of a short kernel (docs/measurement.md, "Short kernels"): runs
`kopt bench TARGET --json` twice, with its defaults and with --max-calls-per-sample 1, and
checks that the default run timed batches: calls_per_sample > 1 with the same n for every
variant, the L2 flushed before each batch, the resolution the tick / n, a sane per-call median
(within [LOW_US, HIGH_US], and at most MAX_VS_ONE times the median of one call per sample), no
FLAG, passed; and that the one-call run timed one call per sample.

A batch's per-call time is not one call's: the events' own cost is shared by n calls (lower),
but each call's outputs, left dirty in the L2, are written back while later calls of the batch
run (higher), where one call per sample leaves them for after its stop event. A compute-bound
kernel with small outputs should come out no slower (MAX_VS_ONE 1.05); a memory-bound one
whose outputs fit in the L2 may pay for its write-back (docs/measurement.md, "Short kernels").

    check_batched_timing.py KOPT LOW_US HIGH_US MAX_VS_ONE TARGET [kopt bench options...]

Prints "BATCHED: ..." and exits 0, or says what is wrong and exits 1.
"""

import json
import subprocess
import sys


def fail(message, output=""):
    sys.stdout.write(output[-4000:])
    print("WRONG: %s" % message)
    return 1


def bench(kopt, arguments):
    process = subprocess.run([kopt, "bench", "--json"] + arguments, capture_output=True, text=True)
    sys.stderr.write(process.stderr)
    try:
        return json.loads(process.stdout), process
    except ValueError:
        return None, process


def kernel_of(report):
    return [v for v in report["variants"] if v["label"] != "reference"][0]


def batch_problem(report, low, high):
    """What is wrong with the default (batched) run; None when nothing is."""
    if report["flags"] or not report["passed"]:
        return "no FLAG and passed; flags: %s" % report["flags"]
    calls = {v["calls_per_sample"] for v in report["variants"]}
    if len(calls) != 1 or min(calls) <= 1:
        return "one n > 1 for every variant; calls_per_sample: %s" % sorted(calls)
    n = calls.pop()
    tick = report["event_tick_seconds"]
    for v in report["variants"]:
        if v["l2"] != "flushed before each batch" or "batch of %d calls per sample" % n not in v["timing_note"]:
            return "the batch's L2 policy and note on %s; l2 %r, note %r" % (v["label"], v["l2"], v["timing_note"])
        if abs(v["resolution_seconds"] - tick / n) > 1e-15:
            return "resolution tick / n on %s: %g, tick %g, n %d" % (v["label"], v["resolution_seconds"], tick, n)
    median = kernel_of(report)["summary"]["median"] * 1e6
    if not low <= median <= high:
        return "a per-call median in [%g, %g] us: %.3f us" % (low, high, median)
    return None


def main(argv):
    kopt, low, high, max_vs_one, arguments = argv[1], float(argv[2]), float(argv[3]), float(argv[4]), argv[5:]
    batched, process = bench(kopt, arguments)
    if batched is None:
        return fail("kopt bench --json gave no JSON (exit %d)" % process.returncode, process.stdout + process.stderr)
    problem = batch_problem(batched, low, high)
    if problem:
        return fail(problem)
    single, process = bench(kopt, arguments + ["--max-calls-per-sample", "1"])
    if single is None:
        return fail("JSON from the --max-calls-per-sample 1 run (exit %d)" % process.returncode, process.stdout)
    one = kernel_of(single)
    if one["calls_per_sample"] != 1 or one["l2"] != "flushed before each call":
        return fail("one call per sample with --max-calls-per-sample 1: %d, %r" % (one["calls_per_sample"], one["l2"]))
    kernel = kernel_of(batched)
    per_call, alone = kernel["summary"]["median"], one["summary"]["median"]
    if per_call > max_vs_one * alone:
        return fail("a batch's per-call median at most %g x one call's: %.3f us vs %.3f us"
                    % (max_vs_one, per_call * 1e6, alone * 1e6))
    print("BATCHED: %d calls per sample, per-call median %.3f us [%.3f, %.3f] (%d samples, %s); one call per "
          "sample %.3f us [%.3f, %.3f] (%d samples, %s); ratio %.4f"
          % (kernel["calls_per_sample"], per_call * 1e6, kernel["summary"]["median_ci"]["low"] * 1e6,
             kernel["summary"]["median_ci"]["high"] * 1e6, kernel["summary"]["count"], kernel["stop_reason"],
             alone * 1e6, one["summary"]["median_ci"]["low"] * 1e6, one["summary"]["median_ci"]["high"] * 1e6,
             one["summary"]["count"], one["stop_reason"], per_call / alone))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
