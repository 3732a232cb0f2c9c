"""An exported package imported and called without torch or a GPU: a stand-in torch module
(custom_op, streams, device guard, empty/zeros over host memory) and a host library with the
shim's symbols, compiled here by cc. What this covers is the runtime's own path: the op and its
out= twin registered with their schemas, the outputs allocated, solve called through ctypes with
the tensors' addresses and the dims, the stream waits around the launch, and a failed launch
read from kopt_shim_last_error as one RuntimeError. Skips without a C compiler."""

import contextlib
import ctypes
import importlib
import json
import os
import shutil
import subprocess
import sys
import types

import pytest

PYTHON = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "python")

# solve adds on the host; N == 13 plays a launch that failed (the shim's last error, read once).
LIBRARY = r"""
static int last = 0;
void solve(const float* a, const float* b, float* c, int n) {
  if (n == 13) { last = 9; return; }
  for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
int kopt_shim_last_error(void) { int code = last; last = 0; return code; }
const char* kopt_shim_error_string(int code) { return code == 9 ? "invalid configuration argument" : "no error"; }
"""


class Tensor:
    """Host memory with the attributes the runtime asks of a tensor."""

    def __init__(self, values, dtype="float32"):
        self.buffer = (ctypes.c_float * max(len(values), 1))(*values)
        self.shape, self.dtype, self.device = (len(values),), f"torch.{dtype}", types.SimpleNamespace(type="cuda")

    def data_ptr(self):
        return ctypes.addressof(self.buffer)

    def is_contiguous(self):
        return True

    def values(self):
        return list(self.buffer)[: self.shape[0]]


class Stream:
    def __init__(self, handle, log):
        self.cuda_stream, self.log = handle, log

    def wait_stream(self, other):
        self.log.append(f"{self.cuda_stream} waits for {other.cuda_stream}")


class OpDef:
    def __init__(self, name, fn, mutates_args, schema):
        if "Tensor" in schema.split("->")[0].partition("*")[2]:  # as torch.library.custom_op does
            raise NotImplementedError(f"custom_op with kwarg-only Tensor args: {schema}")
        self.name, self.fn, self.mutates_args, self.schema, self.fake = name, fn, list(mutates_args), schema, None

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)

    def register_fake(self, fn):
        self.fake = fn


def fake_torch(log, current_stream=0):
    torch = types.ModuleType("torch")
    torch.float32 = "float32"
    torch.ops = {}

    def custom_op(name, fn, mutates_args, schema):
        torch.ops[name] = OpDef(name, fn, mutates_args, schema)
        return torch.ops[name]

    @contextlib.contextmanager
    def device(where):
        log.append(f"device {where}")
        yield

    torch.library = types.SimpleNamespace(custom_op=custom_op)
    torch.cuda = types.SimpleNamespace(device=device, current_stream=lambda: Stream(current_stream, log),
                                       default_stream=lambda: Stream(0, log))
    torch.empty = lambda shape, dtype, device: Tensor([float("nan")] * shape[0])
    torch.zeros = lambda shape, dtype, device: Tensor([0.0] * shape[0])
    return torch


@pytest.fixture
def package(tmp_path, monkeypatch):
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("needs a C compiler")
    folder = tmp_path / "vector_add"
    folder.mkdir()
    (tmp_path / "lib.c").write_text(LIBRARY)
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(folder / "libvector_add.so"), str(tmp_path / "lib.c")],
                   check=True)
    shutil.copy(os.path.join(PYTHON, "kopt_torch_export.py"), folder / "__init__.py")
    for module in ("kopt_torch_rules.py", "kopt_expression.py"):
        shutil.copy(os.path.join(PYTHON, module), folder / module)
    parameters = [{"name": n, "role": r, "dtype": "float32", "torch_dtype": "float32", "c_type": f"float* {n}",
                   "shape": ["N"], "zero_init": False} for n, r in (("A", "input"), ("B", "input"), ("C", "output"))]
    parameters.append({"name": "N", "role": "scalar", "dtype": "int32", "torch_dtype": "int32", "c_type": "int N",
                       "dim": "N"})
    manifest = {"schema": "kopt.torch_export/1", "op": "vector_add", "qualified_name": "kopt::vector_add",
                "kind": "cuda", "entry": "solve", "library": "libvector_add.so", "parameters": parameters,
                "dims": [{"name": "N", "type": "int", "parameter": True, "from": {"buffer": "A", "axis": 0},
                          "fixed": None}]}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield folder
    sys.modules.pop("vector_add", None)


def imported(monkeypatch, log, current_stream=0):
    torch = fake_torch(log, current_stream)
    monkeypatch.setitem(sys.modules, "torch", torch)
    sys.modules.pop("vector_add", None)
    return importlib.import_module("vector_add"), torch


def test_the_op_is_registered_allocates_and_calls_solve(package, monkeypatch):
    log = []
    module, torch = imported(monkeypatch, log)
    assert sorted(torch.ops) == ["kopt::vector_add", "kopt::vector_add_out"]
    assert torch.ops["kopt::vector_add"].schema == "(Tensor A, Tensor B) -> Tensor"
    assert torch.ops["kopt::vector_add_out"].mutates_args == ["C"]
    assert torch.ops["kopt::vector_add_out"].schema == "(Tensor A, Tensor B, Tensor(a!) C) -> ()"
    c = module.vector_add(Tensor([1, 2, 3]), Tensor([10, 20, 30]))
    assert c.values() == [11, 22, 33]
    assert not any("waits" in line for line in log)  # on the default stream already: no waits
    given = Tensor([0, 0, 0])
    assert module.vector_add(Tensor([1, 1, 1]), Tensor([2, 2, 2]), out=given) is given
    assert given.values() == [3, 3, 3]
    assert module.manifest["op"] == "vector_add" and module.DeviceError.__name__ == "DeviceError"


def test_on_another_stream_the_default_stream_waits_and_is_waited_for(package, monkeypatch):
    log = []
    module, _ = imported(monkeypatch, log, current_stream=7)
    module.vector_add(Tensor([1]), Tensor([2]))
    assert [line for line in log if "waits" in line] == ["0 waits for 7", "7 waits for 0"]


def test_a_failed_launch_is_one_runtime_error_with_the_shims_message(package, monkeypatch):
    module, _ = imported(monkeypatch, [])
    with pytest.raises(RuntimeError, match=r"kopt::vector_add: the kernel's launch failed: invalid configuration "
                                           r"argument \(CUDA error 9\)"):
        module.vector_add(Tensor([1.0] * 13), Tensor([1.0] * 13))
    assert module.vector_add(Tensor([1]), Tensor([1])).values() == [2]  # the error was read, not left behind


def test_the_fake_gives_the_outputs_shape_and_checks_the_call(package, monkeypatch):
    module, torch = imported(monkeypatch, [])
    assert torch.ops["kopt::vector_add"].fake(Tensor([1, 2]), Tensor([3, 4])).shape == (2,)
    with pytest.raises(ValueError, match=r"B has shape \(1,\), expected \(2,\)"):
        torch.ops["kopt::vector_add"].fake(Tensor([1, 2]), Tensor([3]))
    with pytest.raises(TypeError, match="A is torch.float64"):
        module.vector_add(Tensor([1], dtype="float64"), Tensor([1]))


def test_without_torch_the_import_says_so(package, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch raises ImportError
    sys.modules.pop("vector_add", None)
    with pytest.raises(ImportError, match=r"kopt::vector_add needs torch"):
        importlib.import_module("vector_add")
