#!/usr/bin/env python3
"""Mutation run: does the unit suite notice a planted bug in kopt's core logic?

    tools/mutate.py [--list tools/mutations.toml] [--work DIR] [--only ID ...] [--jobs N]

For each mutation of the list (a file, an exact text, its replacement) the tool edits a
scratch copy of the tree (never the working tree), rebuilds the unit tests there and runs
them. A mutation is *killed* when the tests fail (or time out), *survived* when they pass.
The copy lives in DIR (default build/mutation) and is kept between runs, so that only what
changed is rebuilt; with ccache (CCACHE_DIR) a first run reuses the main build's objects.

Exit codes: 0 every mutation killed; 1 a mutation survived; 2 the list is stale (a text no
longer occurs exactly once) or a mutation does not compile; 3 the unmutated tree does not
build or its tests fail (then no mutation result would mean anything).
"""
import argparse
import os
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEST_TIMEOUT_S = 600


def tracked_files():
    """The tree as git sees it: tracked and untracked-but-not-ignored files (the working
    copy's contents, uncommitted edits included)."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                         check=True, capture_output=True).stdout
    return [Path(p.decode()) for p in out.split(b"\0") if p and (ROOT / p.decode()).is_file()]


def sync_tree(source_dir: Path):
    """Copies the working tree into source_dir, writing only files whose bytes differ, so the
    build there recompiles only what changed since the last run."""
    source_dir.mkdir(parents=True, exist_ok=True)
    wanted = set()
    for rel in tracked_files():
        wanted.add(rel)
        src, dst = ROOT / rel, source_dir / rel
        data = src.read_bytes()
        if dst.is_file() and dst.read_bytes() == data:
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(data)
        shutil.copymode(src, dst)
    for path in sorted(source_dir.rglob("*"), reverse=True):
        if path.is_file() and path.relative_to(source_dir) not in wanted:
            path.unlink()


def configure(source_dir: Path, build_dir: Path):
    if (build_dir / "build.ninja").exists():
        return
    command = ["cmake", "-S", str(source_dir), "-B", str(build_dir), "-G", "Ninja"]
    if shutil.which("ccache"):
        command.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def build(build_dir: Path, jobs):
    command = ["cmake", "--build", str(build_dir), "--target", "kopt_unit_tests"]
    if jobs:
        command += ["-j", str(jobs)]
    return subprocess.run(command, capture_output=True, text=True)


def run_tests(build_dir: Path):
    """(passed, seconds, last lines of the output)."""
    env = dict(os.environ, KOPT_CACHE_DIR=str(build_dir / "test-cache"))
    started = time.monotonic()
    try:
        result = subprocess.run([str(build_dir / "tests" / "kopt_unit_tests"), "--gtest_brief=1"], env=env,
                                capture_output=True, text=True, timeout=TEST_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return False, time.monotonic() - started, f"timed out after {TEST_TIMEOUT_S} s"
    failed = [line for line in result.stdout.splitlines() if line.startswith("[  FAILED  ]")]
    if failed:
        return False, time.monotonic() - started, "; ".join(failed[:3])
    # No test failed by assertion: a crash (negative: the signal) or a failure outside a test.
    last = (result.stdout + result.stderr).strip().splitlines()[-1:] or [""]
    return result.returncode == 0, time.monotonic() - started, f"exit {result.returncode}: {last[0][:200]}"


def load_mutations(path: Path, only):
    mutations = tomllib.loads(path.read_text())["mutation"]
    ids = [m["id"] for m in mutations]
    duplicates = {i for i in ids if ids.count(i) > 1}
    if duplicates:
        sys.exit(f"mutate.py: {path}: duplicate ids {sorted(duplicates)}")
    if only:
        unknown = set(only) - set(ids)
        if unknown:
            sys.exit(f"mutate.py: no mutation named {sorted(unknown)} in {path}")
        mutations = [m for m in mutations if m["id"] in only]
    return mutations


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", type=Path, default=ROOT / "tools" / "mutations.toml")
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "mutation")
    parser.add_argument("--only", nargs="+", metavar="ID")
    parser.add_argument("--jobs", type=int)
    args = parser.parse_args()

    mutations = load_mutations(args.list, args.only)
    source_dir, build_dir = args.work / "tree", args.work / "build"
    started = time.monotonic()
    sync_tree(source_dir)

    # Every text must occur exactly once before anything is built: a stale list fails at once.
    for m in mutations:
        count = (source_dir / m["file"]).read_text().count(m["find"])
        if count != 1:
            print(f"STALE {m['id']}: the text occurs {count} times in {m['file']}, not once")
            return 2

    configure(source_dir, build_dir)
    built = build(build_dir, args.jobs)
    if built.returncode != 0:
        print("the unmutated tree does not build:\n" + built.stdout[-2000:])
        return 3
    passed, seconds, detail = run_tests(build_dir)
    if not passed:
        print(f"the unmutated tree's unit tests fail: {detail}")
        return 3
    print(f"unmutated: unit tests pass in {seconds:.1f} s; {len(mutations)} mutations", flush=True)

    survivors, invalid = [], []
    for m in mutations:
        path = source_dir / m["file"]
        original = path.read_text()
        path.write_text(original.replace(m["find"], m["replace"], 1))
        try:
            mutation_started = time.monotonic()
            built = build(build_dir, args.jobs)
            if built.returncode != 0:
                invalid.append(m["id"])
                print(f"INVALID  {m['id']}: does not compile", flush=True)
                continue
            passed, _, detail = run_tests(build_dir)
            elapsed = time.monotonic() - mutation_started
            if passed:
                survivors.append(m["id"])
                print(f"SURVIVED {m['id']} ({m['file']}): {m['why']} [{elapsed:.0f} s]", flush=True)
            else:
                print(f"killed   {m['id']} [{elapsed:.0f} s]: {detail[:160]}", flush=True)
        finally:
            path.write_text(original)

    build(build_dir, args.jobs)  # leave the copy built as the tree is, for the next run
    total = time.monotonic() - started
    print(f"{len(mutations) - len(survivors) - len(invalid)} killed, {len(survivors)} survived, "
          f"{len(invalid)} invalid, of {len(mutations)} in {total / 60:.1f} min")
    if invalid:
        return 2
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
