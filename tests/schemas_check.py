#!/usr/bin/env python3
"""schemas_check.py KOPT REPO [--gpu-outputs DIR...]: every JSON file kopt writes, validated
against its schema in schemas/.

Without --gpu-outputs the files are real H200 output kept in tests/fixtures/ (a whole run
folder, and kopt roofline's evidence) and fresh output made here: the loop on the simulated
lab (init, close, status, finalize, and optimize with an external generator that fails once),
kopt check, bench and compare on a kernel that does not compile (needs nvcc), kopt sass (needs
cuobjdump), kopt plan and plan --validate, and kopt doctor. Every JSON file in a run folder must
have a schema, and every schema must validate at least one file; a schema whose only files
need a tool or a GPU that this machine lacks is reported as skipped, naming what is missing.

With --gpu-outputs (the gpu.schemas_outputs test) the JSON files under each DIR are validated
instead, each against the schema its own "schema" or "kind" names: what the GPU tests wrote
(kopt check, bench, compare, profile, roofline) and the peaks kopt doctor --peaks cached.

Skips (77) without the jsonschema package, and in --gpu-outputs mode when there are no files."""
import glob, json, os, shutil, subprocess, sys, tempfile

try:
    import jsonschema
except ImportError:
    print("SKIPPED: needs the jsonschema package (pip install jsonschema)")
    sys.exit(77)

kopt, repo = sys.argv[1], sys.argv[2]
gpu_dirs = sys.argv[sys.argv.index("--gpu-outputs") + 1:] if "--gpu-outputs" in sys.argv else None

schemas = {os.path.basename(p).split(".")[0]: json.load(open(p)) for p in glob.glob(f"{repo}/schemas/*.schema.json")}
for name, schema in schemas.items():
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$id"].endswith(f"/{name}.schema.json"), f"{name}: $id {schema['$id']} does not name the file"

# Schemas refer to each other ("check.schema.json", "env.schema.json#/$defs/device") by $id.
try:
    from referencing import Registry, Resource

    registry = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in schemas.values())

    def validator_for(name):
        return jsonschema.Draft202012Validator(schemas[name], registry=registry)
except ImportError:  # jsonschema before 4.18
    store = {s["$id"]: s for s in schemas.values()}

    def validator_for(name):
        resolver = jsonschema.RefResolver.from_schema(schemas[name], store=store)
        return jsonschema.Draft202012Validator(schemas[name], resolver=resolver)

# The schema of a document that names its own: "schema" (kopt.profile/1), or in an older file "kind" (check).
BY_SCHEMA = {"kopt.workload/1": "workload", "kopt.workload_freeze/1": "workload_freeze", "kopt.workload_run/1": "workload_run",
             "kopt.profile/1": "profile", "kopt.ncu_top/1": "ncu_top", "kopt.roofline/1": "roofline",
             "kopt.peaks/1": "peaks", "kopt.state/1": "state", "kopt.next/1": "next", "kopt.iteration/1": "iteration",
             "kopt.summary/1": "summary", "kopt.generator_context/1": "generator_context",
             "kopt.methods_check/1": "methods_check",
             "kopt.system_evidence/1": "system_evidence", "kopt.audit/1": "audit", "kopt.frozen/1": "frozen",
             "kopt.check/1": "check", "kopt.bench/1": "bench", "kopt.sass/1": "sass", "kopt.doctor/1": "doctor",
             "kopt.torch_export/1": "torch_export"}
# Files written before every output said "schema" (schema_version 1 and a "kind"): still read.
BY_KIND = {"check": "check", "bench": "bench", "sass": "sass", "doctor": "doctor"}

# The files of a run folder (docs/loop.md) by name; bench.json and sass.json by where they are.
RUN_FILES = {"state.json": "state", "summary.json": "summary", "env.json": "env", "iteration.json": "iteration",
             "variant.json": "variant", "methods.json": "methods", "roofline.json": "roofline", "plan.json": "plan",
             "history.json": "history", "profile.json": "profile", "ncu_top.json": "ncu_top",
             "evidence.json": "evidence", "screen.json": "measurement", "finals.json": "measurement",
             "ablation.json": "ablation", "screen_bench.json": "bench", "finals_bench.json": "bench",
             "baseline_bench.json": "bench", "first_look.json": "measurement", "first_look_bench.json": "bench", "ablation_bench.json": "bench",
             "generator_context.json": "generator_context", "audit.json": "audit", "frozen.json": "frozen",
             "experiment.json": "experiment"}


def self_named(document):
    if isinstance(document, dict):
        return BY_SCHEMA.get(document.get("schema")) or BY_KIND.get(document.get("kind"))
    return None


def run_file_schema(path):
    name, parent = os.path.basename(path), os.path.basename(os.path.dirname(path))
    if name == "bench.json":
        return "measurement" if parent == "baseline" else "outcome"
    if name == "sass.json":
        return "sass_methods"
    if name.startswith("rebaseline_"):
        return "measurement"
    return RUN_FILES.get(name)


files = {name: [] for name in schemas}
unavailable = {}   # schema → what this machine lacks to make its files
failures = 0


def fail(message):
    global failures
    print("FAIL:", message)
    failures += 1


def add_run_folder(root):
    """Every JSON file of a run: each must have a schema."""
    for path in sorted(glob.glob(f"{root}/**/*.json", recursive=True)):
        name = run_file_schema(path)
        if name is None:
            fail(f"{path}: a file of the run folder without a schema")
        else:
            files[name].append(path)


def validate_all():
    for name, paths in sorted(files.items()):
        validator = validator_for(name)
        for path in paths:
            errors = list(validator.iter_errors(json.load(open(path))))
            for e in errors[:3]:
                fail(f"{path}: /{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}")
        print(f"{name}: {len(paths)} file(s)")


if gpu_dirs is not None:
    for d in gpu_dirs:
        for path in sorted(glob.glob(f"{d}/**/*.json", recursive=True)):
            name = self_named(json.load(open(path)))
            if name:
                files[name].append(path)
    if not any(files.values()):
        print("SKIPPED: no output of the GPU tests (no GPU here?)")
        sys.exit(77)
    validate_all()
    for name in ("check", "bench", "profile", "ncu_top", "roofline", "peaks"):
        if not files[name]:
            fail(f"the GPU tests wrote no {name} file")
    sys.exit(1 if failures else 0)

work = tempfile.mkdtemp()
model = f"{repo}/tests/fixtures/loop/sgemm_tiled_model.json"
planted = f"{repo}/tests/gpu/kernels"
evidence = f"{repo}/tests/fixtures/evidence"


def kopt_run(*args, ok=(0,)):
    result = subprocess.run([kopt, *args], capture_output=True, text=True)
    if result.returncode not in ok:
        raise SystemExit(f"FAIL: kopt {' '.join(args)} exited {result.returncode}: {result.stderr[-500:]}")
    return result


def kopt_json(*args, name=None, ok=(0,)):
    """The --json document of one command, kept in a file and listed under its schema."""
    out = kopt_run(*args, "--json", ok=ok).stdout
    path = f"{work}/stdout_{len(os.listdir(work))}.json"
    open(path, "w").write(out)
    document = json.loads(out)
    if name:
        files[name].append(path)
    return document, path


# ---- a failing command's --json error document (kopt.error/1) ----
kopt_json("check", f"{planted}/good", "--timeout", "nan", name="error", ok=(2,))
kopt_json("status", f"{work}/no_such_run", name="error", ok=(2,))

# ---- the loop on the simulated lab ----
# On two simulated GPUs (the second close resumes on another: rebaseline_<uuid>.json), with a
# harmful method (SMEM padding slows the champion: iteration.json's best_after).
def model_on(uuid):
    document = json.load(open(model))
    document["evidence"] = os.path.normpath(os.path.join(os.path.dirname(model), document["evidence"]))
    document["environment"]["device"]["uuid"] = uuid
    document["factors"]["KOPT_USE_SMEM_PADDING=0"] = 0.9
    path = f"{work}/model_{uuid}.json"
    json.dump(document, open(path, "w"))
    return path
model_a, model_b = model_on("GPU-a"), model_on("GPU-b")
run = f"{work}/run"
nxt, _ = kopt_json("init", f"{repo}/examples/sgemm_tiled", "--run", run, "--iterations", "2", "--simulate", model_a,
                   name="next")
os.makedirs(f"{run}/iter1/branches/b1")
json.dump({"defines": {"BM": "64", "BN": "64", "TM": "4", "TN": "4"}}, open(f"{run}/iter1/branches/b1/variant.json", "w"))
json.dump({"schema": "kopt.experiment/1", "hypothesis": "smaller tiles fill more SMs", "expected_gain_percent": [5, 20],
           "cost": "less reuse per load"}, open(f"{run}/iter1/branches/b1/experiment.json", "w"))
json.dump({"methods": []}, open(f"{run}/iter1/methods.json", "w"))
closed, _ = kopt_json("close", run, "--simulate", model_a)
os.makedirs(f"{run}/iter2/branches/b1")
shutil.copy(f"{run}/iter1/champion/kernel.cu", f"{run}/iter2/branches/b1/kernel.cu")
json.dump({"methods": [{"id": "memory.smem_padding", "retry": "padding on the B tile too"}]},
          open(f"{run}/iter2/branches/b1/methods.json", "w"))
json.dump({"schema": "kopt.experiment/1", "hypothesis": "padding the B tile too removes its bank conflicts",
           "expected_gain_percent": [1, 5], "cost": "more shared memory per block"},
          open(f"{run}/iter2/branches/b1/experiment.json", "w"))
kopt_json("close", run, "--simulate", model_b)
if not glob.glob(f"{run}/iter2/rebaseline_GPU-b.json"):
    fail("a close on another GPU did not measure the baseline again")
status, _ = kopt_json("status", run)
for name, document in (("next", closed["next"]), ("iteration", closed["iteration"]), ("state", status["state"]),
                       ("next", status["next"])):
    path = f"{work}/{name}_{len(os.listdir(work))}.json"
    json.dump(document, open(path, "w"))
    files[name].append(path)
kopt_run("finalize", run, "--simulate", model)
add_run_folder(run)

# An external generator that writes a failing branch first (BK=32 fails in the model), then a
# good one: the retry's files (iter1/attempt1/) and a context with errors.
gen_run = f"{work}/gen"
generator = f"{work}/gen.sh"
open(generator, "w").write(f"""#!/bin/sh
n=$(ls {work}/context_*.json 2>/dev/null | wc -l)
cp "$1" {work}/context_$n.json
python3 - "$1" <<'EOF'
import json, os, sys
context = json.load(open(sys.argv[1]))
os.makedirs(context["write"]["branches"] + "/b1", exist_ok=True)
defines = {{"BK": "32"}} if not context["errors"] else {{"BM": "64"}}
json.dump({{"defines": defines}}, open(context["write"]["branches"] + "/b1/variant.json", "w"))
json.dump({{"methods": []}}, open(context["write"]["methods"], "w"))
EOF
""")
os.chmod(generator, 0o755)
kopt_run("optimize", f"{repo}/examples/sgemm_tiled", "--run", gen_run, "--iterations", "1", "--generator", generator,
         "--simulate", model)
add_run_folder(gen_run)
files["generator_context"] += sorted(glob.glob(f"{work}/context_*.json"))
if not glob.glob(f"{gen_run}/iter1/attempt1/screen.json"):
    fail("the generator's failed attempt was not put aside in iter1/attempt1/")
if not any(json.load(open(p))["errors"] for p in glob.glob(f"{work}/context_*.json")):
    fail("no generator context carried the errors of a failed attempt")

# The built-in tuner with more branches than the screen promotes: first_look.json, its bench
# report, the branches that stopped at the first look, and every step's cost.
staged_run = f"{work}/staged"
kopt_run("optimize", f"{repo}/examples/sgemm_tiled", "--run", staged_run, "--iterations", "2", "--branches", "12",
         "--strategy", "model", "--simulate", model)
add_run_folder(staged_run)
if not glob.glob(f"{staged_run}/iter*/first_look.json"):
    fail("the tuner's run with 12 branches had no first look")

# ---- real GPU output kept as fixtures ----
add_run_folder(f"{repo}/tests/fixtures/loop/h200_sgemm_tiled_run")
add_run_folder(f"{repo}/tests/fixtures/loop/h200_reduction_run")  # with iteration.json's "time"
for d in sorted(os.path.dirname(p) for p in glob.glob(f"{evidence}/*/profile.json")):
    for name in ("profile", "ncu_top", "roofline"):
        files[name].append(f"{d}/{name}.json")

# ---- two runs compared (kopt report --compare): the real GPU run and the simulated one ----
kopt_json("report", "--compare", f"{repo}/tests/fixtures/loop/h200_sgemm_tiled_run", run, "--out", f"{work}/compare",
          name="compare")
files["compare"].append(f"{work}/compare/compare.json")

# ---- single commands ----
kopt_json("plan", f"{evidence}/h200_sgemm_naive", "--out", f"{work}/plan.json", name="plan")
files["plan"].append(f"{work}/plan.json")
json.dump({"methods": []}, open(f"{work}/no_methods.json", "w"))
json.dump({"methods": ["memory.teleport"]}, open(f"{work}/bad_methods.json", "w"))
kopt_json("plan", f"{evidence}/h200_sgemm_naive", "--validate", f"{work}/no_methods.json", name="methods_check")
kopt_json("plan", f"{evidence}/h200_sgemm_naive", "--validate", f"{work}/bad_methods.json", name="methods_check", ok=(2,))
doctor, _ = kopt_json("doctor", "--no-ncu", name="doctor", ok=(0, 3))
kopt_json("evidence", f"{evidence}/handmade_torch_trace.json", name="system_evidence")

# ---- a workload session on the synthetic workload: workload.json, frozen.json, journal lines ----
workload_dir = f"{work}/workload"
os.makedirs(f"{workload_dir}/state")
open(f"{workload_dir}/workload.toml", "w").write(f"""command = ["python3", "{repo}/tests/fixtures/workload/synthetic_workload.py"]
[metric]
name = "step_ms"
json_key = "step_ms"
[tail]
json_key = "latencies_ms"
[[constraints]]
name = "p99"
max_worse = 0.05
[accuracy]
output = "out.bin"
dtype = "float32"
atol = 1e-3
[prediction]
trace = "{evidence}/handmade_torch_trace.json"
kernels = ["softmax"]
kernel_speedup = 2
[original]
env = {{ SYN_STATE = "state" }}
[[candidates]]
name = "fast"
env = {{ SYN_STATE = "state", SYN_SPEEDUP = "1.1" }}
[[candidates]]
name = "wrong"
env = {{ SYN_STATE = "state", SYN_WRONG = "1" }}
""")
kopt_json("workload", workload_dir, name="workload")
files["workload"].append(f"{workload_dir}/workload_session/workload.json")
files["workload_freeze"].append(f"{workload_dir}/workload_session/frozen.json")
for i, line in enumerate(open(f"{workload_dir}/workload_session/journal.jsonl")):
    open(f"{work}/journal_{i}.json", "w").write(line)
    files["workload_run"].append(f"{work}/journal_{i}.json")
for captured in ("torch_trace.json", "nsys_workload.sqlite"):  # real captures, once committed
    if os.path.exists(f"{evidence}/{captured}"):
        kopt_json("evidence", f"{evidence}/{captured}", name="system_evidence")

# check, bench and compare of a kernel that does not compile: real documents without a GPU.
compile_error = f"{planted}/spec_errors/compile_error.toml"
result = subprocess.run([kopt, "check", compile_error, "--arch", "sm_90", "--out", f"{work}/check.json"],
                        capture_output=True, text=True)
if result.returncode == 3:
    for name in ("check",):
        unavailable[name] = f"nvcc ({result.stderr.strip()})"
else:
    files["check"].append(f"{work}/check.json")
    kopt_json("check", compile_error, "--arch", "sm_90", "--out", f"{work}/check2.json", name="check", ok=(1,))
    for command in ("bench", "compare"):
        targets = [compile_error] * (2 if command == "compare" else 1)
        kopt_json(command, *targets, "--arch", "sm_90", "--out", f"{work}/{command}.json", name="bench", ok=(1,))
        files["bench"].append(f"{work}/{command}.json")

# kopt sass, with the methods the tuned SGEMM declares and an opcode diff against the naive one.
# Whether kopt finds cuobjdump is kopt's to say: it also looks where ./setup installs it.
if not doctor["cuobjdump"]["ok"]:
    unavailable["sass"] = "cuobjdump"
else:
    tuned = [item for define in ("BM=128", "BN=128", "BK=8", "TM=8", "TN=8", "VEC=4", "STAGES=2") for item in ("-D", define)]
    kopt_json("sass", f"{repo}/examples/sgemm_tiled", "--arch", "sm_90", *tuned, "--vs", f"{repo}/examples/sgemm_naive",
              "--out", f"{work}/sass.json", name="sass")
    files["sass"].append(f"{work}/sass.json")

# kopt export --torch: a Triton kernel's manifest (nothing compiled), and a .cu's (needs nvcc).
kopt_run("export", f"{repo}/examples/triton_softmax", "--torch", f"{work}/torch", "-D", "BLOCK=2048")
files["torch_export"].append(f"{work}/torch/triton_softmax/manifest.json")
exported = subprocess.run([kopt, "export", f"{repo}/examples/vector_add", "--torch", f"{work}/torch", "--arch", "sm_90"],
                          capture_output=True, text=True)
if exported.returncode == 0:
    files["torch_export"].append(f"{work}/torch/vector_add/manifest.json")
elif exported.returncode != 3:
    fail(f"kopt export examples/vector_add exited {exported.returncode}: {exported.stderr[-300:]}")

# Measured peaks exist only where a GPU measured them (kopt doctor --peaks).
unavailable["peaks"] = "a GPU: kopt doctor --peaks measures them (gpu.schemas_outputs validates them)"

validate_all()
for name, paths in sorted(files.items()):
    if paths:
        continue
    if name in unavailable:
        print(f"SKIPPED {name}: its files need {unavailable[name]}")
    else:
        fail(f"the {name} schema validated no file")
sys.exit(1 if failures else 0)
