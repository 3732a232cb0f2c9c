#!/usr/bin/env python3
"""schemas_check.py KOPT REPO: every file kopt writes that schemas/ describes, validated
against its schema — from a real GPU run (tests/fixtures/loop/h200_sgemm_tiled_run) and from
a fresh run on the simulated lab (init, close, status, finalize, an external generator's
context, and the two runs compared by kopt report --compare). Skips (77) without the
jsonschema package."""
import glob, json, os, subprocess, sys, tempfile

try:
    import jsonschema
except ImportError:
    print("SKIPPED: needs the jsonschema package (pip install jsonschema)")
    sys.exit(77)

kopt, repo = sys.argv[1], sys.argv[2]
schemas = {os.path.basename(p).split(".")[0]: json.load(open(p)) for p in glob.glob(f"{repo}/schemas/*.schema.json")}
for name, schema in schemas.items():
    jsonschema.Draft202012Validator.check_schema(schema)

work = tempfile.mkdtemp()
model = f"{repo}/tests/fixtures/loop/sgemm_tiled_model.json"
run = f"{work}/run"


def kopt_json(*args, simulate=True):
    extra = ["--simulate", model] if simulate else []
    out = subprocess.run([kopt, *args, "--json", *extra], capture_output=True, text=True, check=True).stdout
    path = f"{work}/out_{len(os.listdir(work))}.json"
    open(path, "w").write(out)
    return json.loads(out), path


nxt, next_init = kopt_json("init", f"{repo}/examples/sgemm_tiled", "--run", run, "--iterations", "2")
os.makedirs(f"{run}/iter1/branches/b1")
json.dump({"defines": {"BM": "64", "BN": "64", "TM": "4", "TN": "4"}}, open(f"{run}/iter1/branches/b1/variant.json", "w"))
json.dump({"methods": []}, open(f"{run}/iter1/methods.json", "w"))
closed, _ = kopt_json("close", run)
json.dump(closed["next"], open(f"{work}/next_close.json", "w"))
status, _ = kopt_json("status", run, simulate=False)
json.dump(status["state"], open(f"{work}/state_status.json", "w"))
subprocess.run([kopt, "finalize", run], capture_output=True, check=True)
# An external generator's context: the generator below only copies it out.
gen_run = f"{work}/gen"
generator = f"{work}/gen.sh"
open(generator, "w").write("#!/bin/sh\ncp \"$1\" %s/context.json\nexit 1\n" % work)
os.chmod(generator, 0o755)
subprocess.run([kopt, "optimize", f"{repo}/examples/sgemm_tiled", "--run", gen_run, "--generator", generator,
                "--simulate", model], capture_output=True)

# Two runs compared: the real GPU run (A) and the fresh simulated one (B); the file and --json.
fixture = f"{repo}/tests/fixtures/loop/h200_sgemm_tiled_run"
compared, compare_stdout = kopt_json("report", "--compare", fixture, run, "--out", f"{work}/compare", simulate=False)

files = {
    "next": [next_init, f"{work}/next_close.json"],
    "compare": [f"{work}/compare/compare.json", compare_stdout],
    "state": [f"{run}/state.json", f"{work}/state_status.json"],
    "generator_context": [f"{work}/context.json"],
}
for root in (run, fixture):
    files["state"].append(f"{root}/state.json")
    files.setdefault("iteration", []).extend(glob.glob(f"{root}/iter*/iteration.json"))
    files.setdefault("summary", []).append(f"{root}/summary.json")
    files.setdefault("variant", []).extend(glob.glob(f"{root}/**/variant.json", recursive=True))
    files.setdefault("methods", []).extend(glob.glob(f"{root}/iter*/methods.json"))
    files.setdefault("roofline", []).extend(glob.glob(f"{root}/**/roofline.json", recursive=True))
    files.setdefault("plan", []).extend(glob.glob(f"{root}/iter*/plan.json"))
    files.setdefault("history", []).extend(glob.glob(f"{root}/iter*/history.json"))

failures = 0
for name, paths in files.items():
    validator = jsonschema.Draft202012Validator(schemas[name])
    if not paths:
        print(f"FAIL: no {name} file was produced")
        failures += 1
    for path in paths:
        errors = list(validator.iter_errors(json.load(open(path))))
        for e in errors[:3]:
            print(f"FAIL: {path}: {'/'.join(map(str, e.path))}: {e.message[:200]}")
        failures += bool(errors)
    print(f"{name}: {len(paths)} file(s)")
missing = set(schemas) - set(files)
if missing:
    print("FAIL: schemas never checked:", ", ".join(sorted(missing)))
    failures += 1
sys.exit(1 if failures else 0)
