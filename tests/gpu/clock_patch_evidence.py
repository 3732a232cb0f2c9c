#!/usr/bin/env python3
"""Reads the bench.json of cheat_clock_patch: the worker's own two clocks must agree (no
"outside the default stream's events"), so that only kopt's parent-side witness catches it.
Prints one line and exits 0 when so; 1 with what differs otherwise."""
import json
import sys

report = json.load(open(sys.argv[1]))
cheat = [v for v in report["variants"] if v["label"] != "reference"]
if not cheat:
    sys.exit("FAIL: no variant was timed")
v = cheat[0]
witness = v.get("witness") or {}
if v["escapes_events"]:
    sys.exit(f"FAIL: the worker's host clock disagreed with the events (gap {v['median_host_gap_seconds']:.3g} s): "
             "the clock patch did not take hold")
if witness.get("short_samples", 0) * 2 <= witness.get("witnessed", 0):
    sys.exit(f"FAIL: kopt's own clock did not see the samples short: {witness}")
print(f"the worker's clocks agree (host gap {v['median_host_gap_seconds'] * 1e6:.1f} us); kopt's own clock saw "
      f"{witness['median_span_seconds'] * 1e6:.1f} us for {witness['median_reported_seconds'] * 1e6:.1f} us reported")
