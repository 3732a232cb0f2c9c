#!/usr/bin/env bash
# skill_walkthrough.sh KOPT_DIR REPO: an agent following skill/SKILL.md literally. Runs its
# ```bash blocks in order (init, read the evidence, write branches and methods, close,
# finalize) against the tiled SGEMM, with measurements from the simulated lab
# (KOPT_SIMULATE), and fails when a step fails or leaves no verdict. Then checks that every
# kopt command and option the skill names exists (`kopt --help`), and that every JSON field
# it names appears in the files the walkthrough produced.
set -euo pipefail
kopt_dir=$1 repo=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PATH="$kopt_dir:$PATH"
export KOPT_SIMULATE="$repo/tests/fixtures/loop/sgemm_tiled_model.json"
export KERNEL="$repo/examples/sgemm_tiled" RUN="$work/run"
cd "$work"

python3 - "$repo/skill/SKILL.md" "$work" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
blocks = re.findall(r"```bash\n(.*?)```", text, re.S)
for i, block in enumerate(blocks, 1):
    open(f"{sys.argv[2]}/step{i}.sh", "w").write("set -euo pipefail\n" + block)
print(f"{len(blocks)} steps")
PY
for step in "$work"/step*.sh; do
  echo "== $(basename "$step")"
  bash "$step"
done
test -f "$RUN/iter1/iteration.json" || { echo "no iteration.json: the iteration did not close"; exit 1; }
test -f "$RUN/summary.md" || { echo "no summary.md"; exit 1; }

# The skill's path from kernel to workload names workload.json's fields: a session on the
# synthetic workload (tests/fixtures/workload) writes them for the field check below.
mkdir -p "$work/workload/state"
cat > "$work/workload/workload.toml" <<TOML
command = ["python3", "$repo/tests/fixtures/workload/synthetic_workload.py"]
[metric]
name = "step_ms"
json_key = "step_ms"
[prediction]
trace = "$repo/tests/fixtures/evidence/handmade_torch_trace.json"
kernels = ["softmax"]
kernel_speedup = 2
[original]
env = { SYN_STATE = "state" }
[[candidates]]
name = "fast"
env = { SYN_STATE = "state", SYN_SPEEDUP = "1.1" }
TOML
kopt workload "$work/workload" >/dev/null

# The handoff a second agent would start from, after the walkthrough's iteration and finalize:
# every section, the champion among what worked with its record, the losers among what did
# not with the reason, the audited speedup, and the next command.
kopt handoff "$RUN" >/dev/null
python3 - "$RUN" <<'PY'
import json, sys
run = sys.argv[1]
md = open(f"{run}/handoff.md").read()
it = json.load(open(f"{run}/iter1/iteration.json"))
problems = []
sections = ["## State", "## Champion", "## What worked", "## What did not, and why", "## Open questions", "## Next step"]
positions = [md.find(h) for h in sections]
if -1 in positions or positions != sorted(positions):
    problems.append(f"sections missing or out of order: {positions}")
else:
    worked = md[positions[2]:positions[3]]
    did_not = md[positions[3]:positions[4]]
    for b in it["branches"]:
        line = f"- iter 1 {b['name']} ("
        where = worked if b["name"] == it["champion"] else did_not
        if line not in where:
            problems.append(f"branch {b['name']} is not under {'What worked' if where is worked else 'What did not'}")
    if it["champion"] and "reuse each load more" not in worked:
        problems.append("the champion's hypothesis (its experiment.json) is not quoted")
    if it["champion"] and "measured +" not in worked:
        problems.append("the champion's measured gain is not given")
if "Iteration 2 of at most 3 is open" not in md:
    problems.append("the state does not say iteration 2 is open")
if it["champion"] and "**Final audit:" not in md:
    problems.append("the champion's audited speedup (audit.json) is not quoted")
if f"Run `kopt close {run}" not in md:
    problems.append("the next step is not the next close")
for p in problems:
    print("handoff.md:", p)
if problems:
    print(md)
sys.exit(1 if problems else 0)
PY

python3 - "$repo/skill/SKILL.md" "$kopt_dir/kopt" "$RUN" "$work" <<'PY'
import glob, json, re, subprocess, sys
skill, kopt, run, work = sys.argv[1:]
text = open(skill).read()
problems = []
commands = subprocess.run([kopt, "--help"], capture_output=True, text=True).stdout
# Commands as the skill shows them: code spans that start with kopt, and the code blocks.
code = "\n".join(re.findall(r"```bash\n(.*?)```", text, re.S) + re.findall(r"`(kopt [^`\n]+)`", text))
for command, rest in re.findall(r"\bkopt ([a-z]+)((?: [^\n]*)?)", code):
    if not re.search(rf"^\s+{command}\b", commands, re.M):
        problems.append(f"command kopt {command} is not in kopt --help")
        continue
    options = subprocess.run([kopt, command, "--help"], capture_output=True, text=True).stdout
    sub = re.match(r" ([a-z]+)\b", rest)  # a subcommand's options are in its own help (kopt skill rehearsal)
    if sub and re.search(rf"^\s+{sub.group(1)}\b", options, re.M):
        options = subprocess.run([kopt, command, sub.group(1), "--help"], capture_output=True, text=True).stdout
    for option in re.findall(r"(--[a-z][a-z-]*)", rest):
        if option not in options:
            problems.append(f"kopt {command} has no option {option}")
# Every key and string value of every JSON file the walkthrough produced.
known = set()
def walk(node):
    if isinstance(node, dict):
        for k, v in node.items():
            known.add(k); walk(v)
    elif isinstance(node, list):
        for v in node: walk(v)
    elif isinstance(node, str):
        known.add(node)
# The rehearsal model kopt skill rehearsal wrote is one of them: the skill names its keys.
for path in glob.glob(f"{run}/**/*.json", recursive=True) + glob.glob(f"{work}/*.json") + glob.glob(f"{work}/rehearsal/*.json") + \
        glob.glob(f"{work}/workload/workload_session/*.json"):
    walk(json.load(open(path)))
# Field-like words in backticks: `gaps`, `branches[].outcome.failure`, `axes.<axis>.chosen[]`.
for token in re.findall(r"`([a-z_][a-z_0-9.\[\]<>]*)`", text):
    if "." in token and token.split(".")[-1] in ("json", "md", "cu", "toml"):
        continue  # a file name
    for part in re.split(r"[.\[\]]+", token):
        if part and not part.startswith("<") and part not in known:
            problems.append(f"field {part!r} (in `{token}`) is in no file kopt wrote")
for p in problems:
    print("SKILL.md:", p)
print(f"{len(problems)} problem(s)")
sys.exit(1 if problems else 0)
PY
