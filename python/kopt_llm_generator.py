#!/usr/bin/env python3
"""kopt's ready LLM generators: `kopt optimize KERNEL --generator kopt:http|kopt:claude|kopt:codex`.

    python3 kopt_llm_generator.py {http,claude,codex} GENERATOR_CONTEXT.json

kopt runs this once per iteration with the iteration's generator_context.json
(kopt.generator_context/1). It turns the context into one prompt (the best kernel's source
and defines, its median, the plan's methods, the roofline and top metrics, the history, the
failures of the previous attempt), asks the model for variants in a fixed text form, and
writes each as BRANCHES/bK/kernel.cu plus methods.json (the plan's methods the answers claim).

  http    an OpenAI-compatible chat-completions endpoint, with the standard library's urllib:
          KOPT_LLM_BASE_URL (default https://api.openai.com/v1), KOPT_LLM_MODEL (required),
          KOPT_LLM_API_KEY or else OPENAI_API_KEY (sent as a bearer token when set),
          KOPT_LLM_TIMEOUT_S (default 300)
  claude  `claude -p INSTRUCTION` with the prompt on standard input (Claude Code)
  codex   `codex exec --skip-git-repo-check INSTRUCTION` with the prompt on standard input
          KOPT_AGENT_COMMAND replaces the command before INSTRUCTION for either (e.g.
          "claude -p --model opus"), split as the shell would

Exit codes: 0 branches written; 2 nothing usable (no model named, the endpoint or agent
failed, an answer with no branch in it); the last line of stderr says which, in one line.
"""

import json
import os
import re
import shlex
import subprocess
import sys
import urllib.error
import urllib.request

EXIT_OK = 0
EXIT_FAILED = 2
EVIDENCE_CHARS = 6000  # per evidence document: enough for the top metrics, not the whole run
INSTRUCTION = "Follow the instructions on standard input; answer only in the form they ask for."
BRANCH = re.compile(r"^=== branch (b\d+) ===[ \t]*$", re.MULTILINE)
FENCE = re.compile(r"```[A-Za-z+]*[ \t]*\n(.*?)\n```", re.DOTALL)


class Failed(Exception):
    """Why no branch was written, in one line."""


# ---------------------------------------------------------------- the prompt

def trimmed(document):
    text = json.dumps(document, indent=1) if not isinstance(document, str) else document
    return text if len(text) <= EVIDENCE_CHARS else text[:EVIDENCE_CHARS] + "\n... (cut)"


def planned_methods(plan):
    """(id, why) of the methods the plan chose, in its order."""
    chosen = []
    for axis in ((plan or {}).get("axes") or {}).values():
        for method in axis.get("chosen", []):
            why = "%s (triggered by %s)" % (method.get("change", ""), method.get("trigger", ""))
            chosen.append((method.get("id"), why))
    return chosen


def prompt_of(context):
    with open(context["best_kernel"], encoding="utf-8", errors="replace") as f:
        source = f.read()
    count = int(context.get("branches") or 4)
    parts = [
        "You are optimizing a CUDA kernel for speed with kopt. kopt checks every variant against a "
        "reference on every case (within tolerance), times it against the best so far, and keeps "
        "only a significant speedup.",
        "Write %d different variants of the kernel below, each a complete .cu file that keeps the "
        "extern \"C\" entry point and its signature exactly as they are. Each must be correct on "
        "every size, not only the timed one." % count,
        "## The best kernel so far (iteration %s, median %.6g s per call; built with -D %s)"
        % (context.get("iteration"), float(context.get("best_median_s") or 0),
           json.dumps(context.get("best_defines") or {})),
        "```cuda\n%s\n```" % source.rstrip("\n"),
    ]
    methods = planned_methods(context.get("plan"))
    if methods:
        parts.append("## Methods the evidence calls for (kopt's plan; claim the ones a variant applies)")
        parts.extend("- %s: %s" % (method_id, why) for method_id, why in methods)
    for key, title in (("roofline", "Roofline"), ("ncu_top", "Top Nsight Compute readings"),
                       ("history", "History of this run")):
        if context.get(key) is not None:
            parts.append("## %s\n```json\n%s\n```" % (title, trimmed(context[key])))
    if context.get("errors"):
        parts.append("## Every variant of the previous attempt failed; do not repeat these")
        parts.extend("- %s: %s" % (e.get("branch"), e.get("failure")) for e in context["errors"])
    parts.append(
        "## Answer in exactly this form, once per variant, and nothing else:\n"
        "=== branch b1 ===\nmethods: METHOD_ID, METHOD_ID\n```cuda\n(the complete kernel file)\n```\n"
        "(then === branch b2 === and so on; the methods line may be empty)")
    return "\n\n".join(parts)


# ---------------------------------------------------------------- asking

def ask_http(prompt):
    model = os.environ.get("KOPT_LLM_MODEL")
    if not model:
        raise Failed("KOPT_LLM_MODEL is not set: name the model the endpoint serves")
    base = os.environ.get("KOPT_LLM_BASE_URL", "https://api.openai.com/v1").rstrip("/")
    key = os.environ.get("KOPT_LLM_API_KEY") or os.environ.get("OPENAI_API_KEY")
    body = json.dumps({"model": model, "messages": [{"role": "user", "content": prompt}]}).encode()
    request = urllib.request.Request(base + "/chat/completions", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    if key:
        request.add_header("Authorization", "Bearer " + key)
    timeout = float(os.environ.get("KOPT_LLM_TIMEOUT_S", "300"))
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            answer = json.loads(response.read().decode("utf-8", errors="replace"))
    except urllib.error.HTTPError as e:
        detail = e.read().decode("utf-8", errors="replace")[:200].replace("\n", " ")
        raise Failed("HTTP %d from %s/chat/completions: %s" % (e.code, base, detail))
    except (urllib.error.URLError, OSError) as e:
        raise Failed("cannot reach %s/chat/completions: %s" % (base, getattr(e, "reason", e)))
    except ValueError:
        raise Failed("%s/chat/completions answered with no JSON" % base)
    try:
        return answer["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise Failed("%s/chat/completions answered without choices[0].message.content" % base)


def agent_command(name):
    configured = os.environ.get("KOPT_AGENT_COMMAND")
    if configured:
        return shlex.split(configured)
    return ["claude", "-p"] if name == "claude" else ["codex", "exec", "--skip-git-repo-check"]


def ask_agent(name, prompt, workdir):
    argv = agent_command(name) + [INSTRUCTION]
    try:
        done = subprocess.run(argv, input=prompt, capture_output=True, text=True, cwd=workdir)
    except OSError as e:
        raise Failed("cannot run %s: %s (is it installed and on PATH?)" % (argv[0], e.strerror))
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or [""]
        raise Failed("%s exited with %d: %s" % (" ".join(argv[:2]), done.returncode, tail[0][:200]))
    return done.stdout


# ---------------------------------------------------------------- writing branches

def branches_in(answer):
    """[(name, kernel source, [method ids])] in the answer's order."""
    found = []
    marks = list(BRANCH.finditer(answer))
    for k, mark in enumerate(marks):
        section = answer[mark.end():marks[k + 1].start() if k + 1 < len(marks) else len(answer)]
        code = FENCE.search(section)
        if code is None:
            continue
        claimed = re.search(r"^methods:(.*)$", section[:code.start()], re.MULTILINE)
        ids = [m.strip() for m in claimed.group(1).split(",") if m.strip()] if claimed else []
        found.append((mark.group(1), code.group(1).rstrip("\n") + "\n", ids))
    return found


def write_atomic(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    temporary = "%s.tmp.%d" % (path, os.getpid())
    with open(temporary, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(temporary, path)


def write_branches(context, answer, generator):
    # K (the context's "branches") is the most an iteration takes: kopt close refuses more.
    found = branches_in(answer)[:int(context.get("branches") or 4)]
    if not found:
        first = " ".join(answer.split())[:160]
        raise Failed("the answer holds no '=== branch bK ===' section with a ```cuda block: %s" % first)
    allowed = {method_id for method_id, _ in planned_methods(context.get("plan"))}
    methods = []
    for k, (_, source, ids) in enumerate(found):
        # Numbered in the answer's order: a model that skips or repeats a name still yields b1..bK.
        write_atomic(os.path.join(context["write"]["branches"], "b%d" % (k + 1), "kernel.cu"), source)
        methods.extend(i for i in ids if i in allowed and i not in methods)
    write_atomic(context["write"]["methods"], json.dumps({"methods": methods, "generator": generator}) + "\n")
    return len(found)


def main(argv):
    if len(argv) != 3 or argv[1] not in ("http", "claude", "codex"):
        print("kopt_llm_generator: usage: kopt_llm_generator.py {http,claude,codex} CONTEXT.json", file=sys.stderr)
        return EXIT_FAILED
    name = argv[1]
    try:
        with open(argv[2], encoding="utf-8") as f:
            context = json.load(f)
        prompt = prompt_of(context)
        answer = ask_http(prompt) if name == "http" else ask_agent(name, prompt, context.get("run"))
        written = write_branches(context, answer, "kopt:" + name)
    except (OSError, ValueError, KeyError) as e:
        print("kopt_llm_generator: cannot use %s: %s" % (argv[2], e), file=sys.stderr)
        return EXIT_FAILED
    except Failed as e:
        print("kopt_llm_generator: %s" % e, file=sys.stderr)
        return EXIT_FAILED
    print("kopt:%s wrote %d branch(es) into %s" % (name, written, context["write"]["branches"]))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main(sys.argv))
