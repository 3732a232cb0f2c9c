#!/usr/bin/env python3
"""Checks a `kopt profile --json` document: exactly the expected kernels were profiled.

    profile_checks.py PROFILE_JSON KERNEL_PREFIX [KERNEL_PREFIX ...]

Each launch in the report must start with one of the prefixes, in that order, one launch per
prefix: a profile that also caught another kernel (a fill, a framework's) fails.
"""
import json
import sys


def main():
    document = json.load(open(sys.argv[1]))
    prefixes = sys.argv[2:]
    if document.get("degraded"):
        sys.exit(f"FAIL: the profile is degraded: {document.get('reason')}")
    names = [k["name"] for k in document["kernels"]]
    if len(names) != len(prefixes):
        sys.exit(f"FAIL: profiled {len(names)} launches {names}, expected {len(prefixes)}")
    for name, prefix in zip(names, prefixes):
        if not name.startswith(prefix):
            sys.exit(f"FAIL: profiled {name!r}, expected a kernel named {prefix}...")
    shares = sum(k["share"] for k in document["kernels"])
    if abs(shares - 1) > 1e-6:
        sys.exit(f"FAIL: the launches' shares add up to {shares}, not 1")
    print(f"PASS: profiled exactly {names}; whole call {document['whole']['duration_s'] * 1e6:.1f} us")


if __name__ == "__main__":
    main()
