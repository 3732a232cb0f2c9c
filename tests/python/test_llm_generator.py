"""Tests of python/kopt_llm_generator.py (kopt's --generator kopt:http|claude|codex), run as
kopt runs it: a subprocess given a generator context. The HTTP adapter talks to a local
OpenAI-compatible stand-in (http.server on a free port); the agent adapters to the fake CLIs
in tests/fixtures/generators/bin, put first on PATH."""

import http.server
import json
import os
import subprocess
import sys
import threading

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ADAPTER = os.path.join(HERE, os.pardir, os.pardir, "python", "kopt_llm_generator.py")
FAKE_BIN = os.path.join(HERE, os.pardir, "fixtures", "generators", "bin")
KERNEL = '#include <cuda_runtime.h>\nextern "C" void solve(const float* x, float* y, int n) {}\n'
PLAN = {"axes": {"memory": {"chosen": [{"id": "memory.vectorized_access", "trigger": "dram_gap > 0.3",
                                        "change": "load float4"}]}}}


def context(tmp_path, errors=()):
    kernel = tmp_path / "best.cu"
    kernel.write_text(KERNEL)
    path = tmp_path / "generator_context.json"
    path.write_text(json.dumps({
        "schema": "kopt.generator_context/1", "run": str(tmp_path), "iteration": 2, "branches": 3,
        "best_kernel": str(kernel), "best_defines": {"BLOCK": "256"}, "best_median_s": 1.5e-5,
        "plan": PLAN, "roofline": {"bound": "memory"}, "ncu_top": None, "history": None,
        "write": {"methods": str(tmp_path / "methods.json"), "branches": str(tmp_path / "branches")},
        "errors": list(errors)}))
    return path


def run(kind, context_path, env):
    full = dict(os.environ, **env)
    done = subprocess.run([sys.executable, ADAPTER, kind, str(context_path)], capture_output=True, text=True,
                          env=full, timeout=60)
    return done.returncode, done.stdout, done.stderr.strip().splitlines()[-1:] or [""]


ANSWER = ("Two variants.\n=== branch b1 ===\nmethods: memory.vectorized_access, made.up\n```cuda\n// one\n%s```\n"
          "=== branch b7 ===\nmethods:\n```cpp\n// two\n%s```\n=== branch b3 ===\nno code here\n" % (KERNEL, KERNEL))


class FakeEndpoint(http.server.BaseHTTPRequestHandler):
    requests = []
    reply = (200, {"choices": [{"message": {"role": "assistant", "content": ANSWER}}]})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeEndpoint.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        status, document = FakeEndpoint.reply
        data = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def endpoint():
    server = http.server.HTTPServer(("127.0.0.1", 0), FakeEndpoint)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    FakeEndpoint.requests = []
    FakeEndpoint.reply = (200, {"choices": [{"message": {"role": "assistant", "content": ANSWER}}]})
    yield "http://127.0.0.1:%d/v1" % server.server_address[1]
    server.shutdown()


def test_http_writes_each_answered_branch(tmp_path, endpoint):
    path = context(tmp_path, errors=[{"branch": "iter2/b1", "failure": "wrong result at index 7"}])
    code, out, _ = run("http", path, {"KOPT_LLM_BASE_URL": endpoint, "KOPT_LLM_MODEL": "test-model",
                                      "KOPT_LLM_API_KEY": "", "OPENAI_API_KEY": "sk-test"})
    assert code == 0, out
    request = FakeEndpoint.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["auth"] == "Bearer sk-test"
    assert request["body"]["model"] == "test-model"
    prompt = request["body"]["messages"][0]["content"]
    for part in (KERNEL, '{"BLOCK": "256"}', "memory.vectorized_access: load float4 (triggered by dram_gap > 0.3)",
                 '"bound": "memory"', "iter2/b1: wrong result at index 7", "Write 3 different variants"):
        assert part in prompt
    # Renumbered in the answer's order; the section without code is skipped.
    assert (tmp_path / "branches" / "b1" / "kernel.cu").read_text() == "// one\n" + KERNEL
    assert (tmp_path / "branches" / "b2" / "kernel.cu").read_text() == "// two\n" + KERNEL
    assert not (tmp_path / "branches" / "b3").exists()
    methods = json.loads((tmp_path / "methods.json").read_text())
    assert methods == {"methods": ["memory.vectorized_access"], "generator": "kopt:http"}  # only planned ids


def test_http_names_the_failure_in_one_line(tmp_path, endpoint):
    FakeEndpoint.reply = (401, {"error": {"message": "bad key"}})
    code, _, last = run("http", context(tmp_path), {"KOPT_LLM_BASE_URL": endpoint, "KOPT_LLM_MODEL": "m"})
    assert code == 2
    assert "HTTP 401 from %s/chat/completions" % endpoint in last[0] and "bad key" in last[0]
    FakeEndpoint.reply = (200, {"choices": [{"message": {"content": "I cannot help with that."}}]})
    code, _, last = run("http", context(tmp_path), {"KOPT_LLM_BASE_URL": endpoint, "KOPT_LLM_MODEL": "m"})
    assert code == 2 and "no '=== branch bK ===' section" in last[0] and "I cannot help" in last[0]
    assert not (tmp_path / "methods.json").exists()


def test_http_needs_a_model(tmp_path):
    env = {"KOPT_LLM_MODEL": ""}
    code, _, last = run("http", context(tmp_path), env)
    assert code == 2 and "KOPT_LLM_MODEL is not set" in last[0]


@pytest.mark.parametrize("agent, argv", [("claude", ["claude", "-p"]),
                                         ("codex", ["codex", "exec", "--skip-git-repo-check"])])
def test_agent_cli_gets_the_prompt_on_stdin(tmp_path, agent, argv):
    log = tmp_path / "agent.log"
    path = context(tmp_path)
    code, out, _ = run(agent, path, {"PATH": FAKE_BIN + os.pathsep + os.environ["PATH"],
                                     "KOPT_FAKE_AGENT_LOG": str(log)})
    assert code == 0 and "kopt:%s wrote 1 branch(es)" % agent in out
    call = json.loads(log.read_text().splitlines()[0])
    assert call["argv"][:len(argv)] == argv and KERNEL in call["prompt"]
    assert (tmp_path / "branches" / "b1" / "kernel.cu").read_text() == KERNEL
    assert json.loads((tmp_path / "methods.json").read_text())["methods"] == ["memory.vectorized_access"]


def test_agent_failure_and_absence_are_one_line(tmp_path):
    env = {"PATH": FAKE_BIN + os.pathsep + os.environ["PATH"], "KOPT_FAKE_AGENT_FAIL": "1"}
    code, _, last = run("claude", context(tmp_path), env)
    assert code == 2 and last[0] == "kopt_llm_generator: claude -p exited with 1: error: not logged in"
    code, _, last = run("codex", context(tmp_path), {"KOPT_AGENT_COMMAND": "/no/such/codex exec"})
    assert code == 2 and "cannot run /no/such/codex" in last[0]
