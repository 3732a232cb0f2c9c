#!/usr/bin/env python3
"""How far each timed variant stood from the witnesses' rules (data/witness.toml), from the
bench.json files under the folders given (a GPU round's outputs): per variant, the parent's
span against the reported time per sample beyond kopt's own overhead as its empty samples
showed (the sample witness; baseline_us) and the worker's host clock
against its events per call (the escape rule), each as a share of what the rule allows, and
whether bench flagged it; and the parent's median time from each sample's end to its digests
(digest_us: measured, not yet held to a rule), and how many of its samples' outputs kopt read back
before the digests and how many of those differed (readback: differing/read; a difference is a flag). Honest variants' shares are the margin the rules leave; a share of
1 or more is a flag.

    tools/witness_margins.py build/tests/gpu [more folders]   # one line per variant, sorted
"""
import json
import pathlib
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent


def rules():
    data = tomllib.loads((ROOT / "data" / "witness.toml").read_text())
    return data["sample"], data["escape"]


def rows(folder, sample, escape):
    for path in sorted(pathlib.Path(folder).rglob("*.json")):
        try:
            doc = json.loads(path.read_text())
        except (OSError, ValueError, UnicodeDecodeError):
            continue
        if not isinstance(doc, dict) or "variants" not in doc or "flags" not in doc:
            continue
        for v in doc["variants"]:
            w = v.get("witness") or {}
            n = max(int(v.get("calls_per_sample") or 1), 1)
            reported, span = w.get("median_reported_seconds"), w.get("median_span_seconds")
            if reported is None or span is None:
                continue
            excess = span - reported
            baseline = w.get("baseline_seconds") or 0
            allowed = max(sample["slack_seconds"], sample["slack_fraction"] * span)
            median = (v.get("summary") or {}).get("median") or 0
            gap = v.get("median_host_gap_seconds") or 0
            gap_allowed = max(escape["floor_seconds"] / n, escape["fraction"] * median)
            flagged = any(f.startswith(f"{v['label']} (case {v['case']})") for f in doc["flags"])
            yield ((excess - baseline) / allowed, path.relative_to(folder), v["label"], v["case"], n, reported, excess,
                   w.get("short_samples"), w.get("witnessed"), gap / gap_allowed if gap_allowed else 0, flagged,
                   w.get("median_digest_seconds") or 0, baseline,
                   f"{w.get('readback_mismatches', '-')}/{w.get('readback_samples', '-')}")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sample, escape = rules()
    found = [r for folder in sys.argv[1:] for r in rows(folder, sample, escape)]
    print("witness_share escape_share flagged  calls  reported_us  excess_us baseline_us  digest_us  readback  "
          "short/seen  file  variant (case)")
    for share, path, label, case, n, reported, excess, short, seen, gap_share, flagged, digest, baseline, readback in sorted(
            found, key=lambda r: r[0]):
        print(f"{share:13.2f} {gap_share:12.2f} {'FLAG' if flagged else '-':>7} {n:6d} {reported * 1e6:12.1f} "
              f"{excess * 1e6:10.1f} {baseline * 1e6:11.1f} {digest * 1e6:10.1f} {readback:>9} {short}/{seen:<6} {path}  {label} ({case})")
    print(f"{len(found)} variants; rules: sample slack baseline + max({sample['slack_seconds'] * 1e6:.0f} µs, "
          f"{100 * sample['slack_fraction']:.0f} %), escape floor {escape['floor_seconds'] * 1e6:.0f} µs / calls, "
          f"{100 * escape['fraction']:.0f} %")


if __name__ == "__main__":
    main()
