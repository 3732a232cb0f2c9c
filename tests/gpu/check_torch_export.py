#!/usr/bin/env python3
"""check_torch_export.py KOPT REPO: kopt export --torch used from PyTorch on the GPU (docs/export.md).

examples/vector_add and its reference (ref.cu, exported the same way) as kopt::vector_add and
kopt::vector_add_ref: the op equals the reference (and A + B) on every case of the spec, with
out= too and on a side stream; a wrong dtype, a wrong shape and a CPU tensor each raise one
clear exception naming the tensor; torch.compile of a function calling the op runs and matches.
Where Triton imports, examples/triton_softmax the same way against torch's float64 softmax.

Skips (77) where the machine has no GPU or python3 has no torch; fails where it has a GPU that
torch cannot use. Prints "EXPORT OK:" lines and ends with "PASS".
"""
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

kopt, repo = sys.argv[1], sys.argv[2]


def machine_has_gpu():
    listed = shutil.which("nvidia-smi") and subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout
    return bool(listed and "GPU " in listed) or os.path.exists("/dev/nvidia0")


if not machine_has_gpu():
    print("SKIPPED: no GPU here (nvidia-smi -L lists none, no /dev/nvidia0)")
    sys.exit(77)
try:
    import torch
except ImportError as error:
    print(f"SKIPPED: python3 cannot import torch ({error})")
    sys.exit(77)
if not torch.cuda.is_available():
    sys.exit("FAILED: this machine has a GPU but torch.cuda.is_available() is False")

work = tempfile.mkdtemp(prefix="kopt-torch-export-")
out = os.path.join(work, "out")
sys.path.insert(0, out)


def export(*args):
    done = subprocess.run([kopt, "export", *args, "--torch", out], capture_output=True, text=True)
    print(done.stdout + done.stderr, end="")
    if done.returncode != 0:
        sys.exit(f"FAILED: kopt export {' '.join(args)} exited {done.returncode}")


def raises(expected, words, call):
    """call() raises exactly one `expected` whose message names `words`."""
    try:
        call()
    except Exception as error:  # noqa: BLE001 (the type is what is checked)
        if type(error) is not expected or any(w not in str(error) for w in words):
            sys.exit(f"FAILED: expected {expected.__name__} naming {words}, got {type(error).__name__}: {error}")
        print(f"EXPORT OK: {expected.__name__}: {error}")
        return
    sys.exit(f"FAILED: expected {expected.__name__} naming {words}, nothing was raised")


def close(got, want, tolerance, what):
    if not torch.allclose(got, want, atol=tolerance["atol"], rtol=tolerance["rtol"]):
        worst = (got.double() - want.double()).abs().max().item()
        sys.exit(f"FAILED: {what}: differs by up to {worst}")


def vector_add_checks():
    export(f"{repo}/examples/vector_add")
    export(f"{repo}/examples/vector_add/ref.cu", "--spec", f"{repo}/examples/vector_add/kopt.toml",
           "--name", "vector_add_ref")
    package, reference = importlib.import_module("vector_add"), importlib.import_module("vector_add_ref")
    manifest = package.manifest
    tolerance = next(p["tolerance"] for p in manifest["parameters"] if p["name"] == "C")
    for case in manifest["cases"]:
        n = case["dims"]["N"]
        a, b = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
        c = package.vector_add(a, b)
        close(c, reference.vector_add_ref(a, b), tolerance, f"case {case['name']} against ref.cu")
        close(c, a + b, tolerance, f"case {case['name']} against A + B")
        given = torch.empty_like(a)
        assert package.vector_add(a, b, out=given) is given
        close(given, a + b, tolerance, f"case {case['name']} with out=")
        print(f"EXPORT OK: case {case['name']} (N={n}) equals ref.cu, A + B, and with out=")
    a, b = torch.randn(1000003, device="cuda"), torch.randn(1000003, device="cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        c = torch.ops.kopt.vector_add(a * 2, b)  # a * 2 on the side stream, then the op
        d = c + 1
    torch.cuda.current_stream().wait_stream(side)
    close(d, a * 2 + b + 1, tolerance, "on a side stream")
    print("EXPORT OK: on a side stream, ordered with the ops around it")
    raises(TypeError, ["A", "torch.float64", "torch.float32"], lambda: package.vector_add(a.double(), b))
    raises(ValueError, ["B", "(1000002,)", "(1000003,)"], lambda: package.vector_add(a, b[:-1]))
    raises(package.DeviceError, ["A", "cpu"], lambda: package.vector_add(a.cpu(), b))
    raises(ValueError, ["A", "not contiguous"], lambda: package.vector_add(a[::2], b[::2]))

    def model(x, y):
        return torch.relu(package.vector_add(x * 2, y)) + 1

    compiled = torch.compile(model, fullgraph=True)
    close(compiled(a, b), model(a, b), tolerance, "torch.compile")
    small = torch.randn(4099, device="cuda")
    close(compiled(small, small), model(small, small), tolerance, "torch.compile at another size")
    print("EXPORT OK: torch.compile(fullgraph=True) of a function calling the op matches eager")


def triton_checks():
    try:
        import triton  # noqa: F401
    except ImportError:
        print("EXPORT OK: (Triton skipped: python3 cannot import triton)")
        return
    export(f"{repo}/examples/triton_softmax")
    package = importlib.import_module("triton_softmax")
    tolerance = next(p["tolerance"] for p in package.manifest["parameters"] if p["name"] == "output")
    for case in package.manifest["cases"]:
        rows, cols = case["dims"]["rows"], case["dims"]["cols"]
        x = torch.randn(rows, cols, device="cuda")
        close(package.triton_softmax(x), torch.softmax(x.double(), dim=1).float(), tolerance, f"softmax {case['name']}")
        print(f"EXPORT OK: triton_softmax case {case['name']} ({rows}x{cols}) equals float64 softmax")
    raises(ValueError, ["input", "expected 2"], lambda: package.triton_softmax(torch.randn(10, device="cuda")))
    compiled = torch.compile(lambda x: package.triton_softmax(x) * 2, fullgraph=True)
    x = torch.randn(7, 1001, device="cuda")
    close(compiled(x), torch.softmax(x.double(), dim=1).float() * 2, tolerance, "torch.compile of the Triton op")
    print("EXPORT OK: torch.compile of the Triton op matches")


vector_add_checks()
triton_checks()
print(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name()}))
print("PASS")
shutil.rmtree(work, ignore_errors=True)
