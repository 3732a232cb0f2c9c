"""Tests of python/kopt_reference_runner.py, run as kopt runs it: a subprocess on a manifest.

numpy only; every manifest forces "device": "cpu", so torch is never needed.
"""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir,
                      "python", "kopt_reference_runner.py")


class Case:
    """A reference file, its inputs and its manifest in one temporary folder."""

    def __init__(self, folder, source):
        self.folder = folder
        self.reference = folder / "ref.py"
        self.reference.write_text(textwrap.dedent(source))
        self.params = []

    def input(self, name, array, dtype=None, role="input"):
        array = np.asarray(array)
        path = self.folder / ("%s.npy" % name)
        np.save(path, array.reshape(-1))
        param = {"name": name, "kind": "buffer", "dtype": dtype or array.dtype.name,
                 "shape": list(array.shape), "role": role, "path": str(path)}
        if role == "inout":
            param["output_path"] = str(self.folder / "out" / ("%s.npy" % name))
        self.params.append(param)

    def output(self, name, shape, dtype="float32"):
        self.params.append({"name": name, "kind": "buffer", "dtype": dtype, "shape": list(shape),
                            "role": "output",
                            "output_path": str(self.folder / "out" / ("%s.npy" % name))})

    def scalar(self, name, value, dtype="int32"):
        self.params.append({"name": name, "kind": "scalar", "dtype": dtype, "value": value})

    def run(self, manifest=None):
        manifest = manifest or {"reference": str(self.reference), "device": "cpu",
                                "params": self.params}
        path = self.folder / "manifest.json"
        path.write_text(json.dumps(manifest))
        return subprocess.run([sys.executable, RUNNER, str(path)], capture_output=True, text=True,
                              timeout=120)

    def result(self, name):
        return np.load(self.folder / "out" / ("%s.npy" % name), allow_pickle=False)


def ok(process):
    assert process.returncode == 0, process.stderr
    lines = process.stdout.splitlines()
    assert len(lines) == 1, process.stdout
    summary = json.loads(lines[0])
    assert summary["backend"] == "numpy" and summary["device"] == "cpu"
    assert summary["seconds"] >= 0
    # What kopt's check.json splits its reference phase by (reference_seconds).
    assert summary["load_seconds"] >= 0 and summary["save_seconds"] >= 0
    return summary


def failed(process, code=2):
    assert process.returncode == code, (process.stdout, process.stderr)
    last = process.stderr.strip().splitlines()[-1]
    assert last.startswith("REFERENCE_ERROR: "), process.stderr
    return last


def vector_add(tmp_path, source):
    case = Case(tmp_path, source)
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.full((2, 3), 10, dtype=np.float32)
    case.input("A", a)
    case.input("B", b)
    case.output("C", (2, 3))
    case.scalar("N", 6)
    return case, a + b


def test_in_place_reference(tmp_path):
    case, expected = vector_add(tmp_path, """
        def reference(A, B, C, N):
            assert C.shape == (2, 3)
            C[...] = A + B
        """)
    ok(case.run())
    got = case.result("C")
    assert got.dtype == np.float32 and got.shape == (6,)
    np.testing.assert_array_equal(got, expected.reshape(-1))
    assert sorted(os.listdir(tmp_path / "out")) == ["C.npy"]  # no temporary left behind


@pytest.mark.parametrize("body", ["return A + B", "return (A + B,)", "return [A + B]",
                                  "return {'C': A + B}", "return (A + B).astype('float64')"])
def test_returned_values(tmp_path, body):
    case, expected = vector_add(tmp_path, """
        def reference(A, B, C, N):
            %s
        """ % body)
    ok(case.run())
    np.testing.assert_array_equal(case.result("C"), expected.reshape(-1))


def test_returned_scalar_fills_one_element_output(tmp_path):
    case = Case(tmp_path, """
        def reference(input, output, N):
            return input.astype('float64').sum()
        """)
    case.input("input", np.ones(5, dtype=np.float32))
    case.output("output", (1,))
    case.scalar("N", 5)
    ok(case.run())
    np.testing.assert_array_equal(case.result("output"), [5.0])


def test_two_outputs_returned_as_tuple(tmp_path):
    case = Case(tmp_path, """
        def reference(x, lo, hi, N):
            return x - 1, x + 1
        """)
    case.input("x", np.arange(4, dtype=np.float32))
    case.output("lo", (4,))
    case.output("hi", (4,))
    case.scalar("N", 4)
    ok(case.run())
    np.testing.assert_array_equal(case.result("lo"), [-1, 0, 1, 2])
    np.testing.assert_array_equal(case.result("hi"), [1, 2, 3, 4])


def test_inout_buffer_starts_from_its_data(tmp_path):
    case = Case(tmp_path, """
        def reference(x, y, N):
            y += 2 * x
        """)
    case.input("x", np.arange(4, dtype=np.float32))
    case.input("y", np.full(4, 100, dtype=np.float32), role="inout")
    case.scalar("N", 4)
    ok(case.run())
    np.testing.assert_array_equal(case.result("y"), [100, 102, 104, 106])


def test_output_that_starts_at_zero_is_accumulated_into(tmp_path):
    case = Case(tmp_path, """
        import numpy as np

        def reference(x, histogram, N, num_bins):
            np.add.at(histogram, x, 1)
        """)
    case.input("x", np.array([0, 2, 2, 3], dtype=np.int32))
    case.output("histogram", [4], dtype="int32")
    case.params[-1]["init"] = "zeros"
    case.scalar("N", 4)
    case.scalar("num_bins", 4)
    ok(case.run())
    np.testing.assert_array_equal(case.result("histogram"), [1, 0, 2, 1])


# kopt's generator fills init = "zeros" with all-zero bits in every type (FillBuffer.
# ZerosAreAllZeroBitsInEveryType in tests/unit/run/host_data_test.cpp); the runner, which
# makes these zeros itself, must hand the reference the same bits.
@pytest.mark.parametrize("dtype", ["float32", "float16", "float64", "int8", "uint32", "int64"])
def test_zero_start_outputs_are_zero_bits_like_the_generators(tmp_path, dtype):
    case = Case(tmp_path, "def reference(y):\n    pass\n")  # writes nothing: no "did not write"
    case.output("y", [5], dtype=dtype)
    case.params[-1]["init"] = "zeros"
    ok(case.run())
    result = case.result("y")
    assert result.tobytes() == bytes(result.nbytes)


def test_challenge_class(tmp_path):
    case, expected = vector_add(tmp_path, """
        class Challenge:
            def __init__(self):
                self.name = "vector add"

            def reference_impl(self, A, B, C, N):
                C[:] = A + B
        """)
    ok(case.run())
    np.testing.assert_array_equal(case.result("C"), expected.reshape(-1))


def test_leetgpu_challenge_file_runs_without_its_repository(tmp_path):
    case, expected = vector_add(tmp_path, """
        from core.challenge_base import ChallengeBase, OutTensor

        class Challenge(ChallengeBase):
            def __init__(self):
                super().__init__(name="Vector Addition", atol=1e-05, rtol=1e-05, num_gpus=1)

            def reference_impl(self, A, B, C, N):
                C[:] = A + B
        """)
    ok(case.run())
    np.testing.assert_array_equal(case.result("C"), expected.reshape(-1))


def test_leetgpu_challenge_finds_its_device_as_its_base_would_set_it(tmp_path):
    # LeetGPU's ChallengeBase sets self.device; a reference_impl that makes a tensor of its own
    # there (70_segmented_prefix_sum) failed on the stand-in with an AttributeError.
    case, expected = vector_add(tmp_path, """
        from core.challenge_base import ChallengeBase

        class Challenge(ChallengeBase):
            def reference_impl(self, A, B, C, N):
                assert self.device == "cpu", self.device
                C[:] = A + B
        """)
    ok(case.run())
    np.testing.assert_array_equal(case.result("C"), expected.reshape(-1))


def test_reference_raising(tmp_path):
    case, _ = vector_add(tmp_path, """
        def helper():
            raise ValueError("planted\\nsecond line")

        def reference(A, B, C, N):
            helper()
        """)
    process = case.run()
    assert failed(process) == "REFERENCE_ERROR: ref.py:3: ValueError: planted second line"
    assert "Traceback" in process.stderr
    assert process.stdout == ""
    assert not (tmp_path / "out" / "C.npy").exists()


def test_reference_importing_a_missing_package_is_the_environment(tmp_path):
    case, _ = vector_add(tmp_path, """
        import kopt_no_such_package_anywhere

        def reference(A, B, C, N):
            C[:] = A + B
        """)
    assert failed(case.run(), code=3).startswith(
        "REFERENCE_ERROR: ref.py:2: ModuleNotFoundError: No module named 'kopt_no_such_package_anywhere'")


def test_reference_with_syntax_error(tmp_path):
    case, _ = vector_add(tmp_path, """
        def reference(A, B, C, N):
            C[...] = (A + B
        """)
    last = failed(case.run())
    assert last.startswith("REFERENCE_ERROR: ref.py:3: SyntaxError"), last


def test_reference_without_entry_point(tmp_path):
    case, _ = vector_add(tmp_path, """
        def solve(A, B, C, N):
            pass
        """)
    assert "no reference(**kwargs)" in failed(case.run())


def test_output_not_written(tmp_path):
    case, _ = vector_add(tmp_path, """
        def reference(A, B, C, N):
            D = A + B  # computed, never written into C
        """)
    last = failed(case.run())
    assert "reference did not write output C" in last
    assert "C.copy_(...)" in last


def test_partly_written_output_is_accepted(tmp_path):
    case, _ = vector_add(tmp_path, """
        def reference(A, B, C, N):
            C[0, 0] = 1.0
        """)
    ok(case.run())
    assert np.isnan(case.result("C")[1:]).all()  # poisoned elements travel back as NaN


def test_wrong_returned_shape(tmp_path):
    case, _ = vector_add(tmp_path, """
        def reference(A, B, C, N):
            return (A + B)[:, :2]
        """)
    last = failed(case.run())
    assert "output C" in last and "[2, 2]" in last and "[2, 3]" in last, last


def test_wrong_number_of_returned_values(tmp_path):
    case, _ = vector_add(tmp_path, """
        def reference(A, B, C, N):
            return A, B
        """)
    assert "2 values for 1 outputs" in failed(case.run())


def test_scalar_passing(tmp_path):
    case = Case(tmp_path, """
        def reference(x, y, N, alpha):
            assert type(N) is int and N == 3, repr(N)
            assert type(alpha) is float and alpha == 2.5, repr(alpha)
            y[...] = alpha * x + N
        """)
    case.input("x", np.arange(3, dtype=np.float32))
    case.output("y", (3,))
    case.scalar("N", 3, "int64")
    case.scalar("alpha", 2.5, "float32")
    ok(case.run())
    np.testing.assert_array_equal(case.result("y"), [3.0, 5.5, 8.0])


def test_integer_scalar_given_as_float_is_an_int(tmp_path):
    case = Case(tmp_path, """
        def reference(y, N):
            assert type(N) is int
            y[...] = N
        """)
    case.output("y", (2,), "int32")
    case.scalar("N", 7.0, "uint32")
    ok(case.run())
    got = case.result("y")
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, [7, 7])


def test_float16_round_trip(tmp_path):
    case = Case(tmp_path, """
        import numpy as np

        def reference(x, y, N):
            assert x.dtype == np.float16 and y.dtype == np.float16
            y[...] = x * np.float16(2)
        """)
    x = np.array([0.5, -1.25, 65504 / 2, 1e-3], dtype=np.float16)
    case.input("x", x)
    case.output("y", (4,), "float16")
    case.scalar("N", 4)
    ok(case.run())
    got = case.result("y")
    assert got.dtype == np.dtype("<f2")
    np.testing.assert_array_equal(got, x * np.float16(2))


def test_prints_in_reference_stay_off_stdout(tmp_path):
    case, _ = vector_add(tmp_path, """
        import os
        print("hello from the reference")
        def reference(A, B, C, N):
            print("called")
            os.write(1, b"raw write to fd 1\\n")
            C[...] = A + B
        """)
    process = case.run()
    ok(process)
    assert "hello from the reference" in process.stderr and "raw write" in process.stderr


def test_missing_input_file(tmp_path):
    case, _ = vector_add(tmp_path, """
        def reference(A, B, C, N):
            C[...] = A + B
        """)
    os.remove(tmp_path / "A.npy")
    last = failed(case.run())
    assert "buffer A" in last, last


def test_input_of_wrong_size(tmp_path):
    case, _ = vector_add(tmp_path, """
        def reference(A, B, C, N):
            C[...] = A + B
        """)
    case.params[0]["shape"] = [2, 4]
    assert "expected 1-D of 8 elements" in failed(case.run())


@pytest.mark.parametrize("manifest, message", [
    ({"device": "cpu", "params": []}, "missing \"reference\""),
    ({"reference": "/no/such/ref.py", "device": "cpu", "params": []}, "not found"),
    ({"device": "gpu"}, "device must be"),
    ({"params": [{"name": "X", "kind": "buffer", "dtype": "complex64", "shape": [1],
                  "role": "input", "path": "x"}]}, "unknown dtype"),
    ({"params": [{"name": "X", "kind": "buffer", "dtype": "float32", "shape": [1],
                  "role": "output"}]}, "output_path"),
    ({"params": [{"name": "X", "kind": "buffer", "dtype": "float32", "shape": [1],
                  "role": "output", "output_path": "x", "init": "ones"}]}, "only \"zeros\""),
])
def test_bad_manifest(tmp_path, manifest, message):
    case = Case(tmp_path, "def reference(): pass\n")
    full = {"reference": str(case.reference), "device": "cpu", "params": []}
    full.update(manifest)
    if "reference" not in manifest and manifest.get("params") == []:
        del full["reference"]
    assert message in failed(case.run(full))


def test_bfloat16_without_torch_or_ml_dtypes(tmp_path):
    try:
        import ml_dtypes  # noqa: F401
        pytest.skip("ml_dtypes is installed")
    except ImportError:
        pass
    case = Case(tmp_path, "def reference(x, y): y[...] = x\n")
    case.input("x", np.zeros(2, dtype=np.uint16), dtype="bfloat16")
    case.output("y", (2,), "bfloat16")
    assert "need torch" in failed(case.run(), code=3)


def test_bfloat16_travels_as_bits_with_ml_dtypes(tmp_path):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    case = Case(tmp_path, """
        def reference(x, y):
            y[...] = x * 2
        """)
    x = np.array([1.0, -2.5, 3.0], dtype=ml_dtypes.bfloat16)
    case.input("x", x.view(np.uint16), dtype="bfloat16")
    case.output("y", (3,), "bfloat16")
    ok(case.run())
    got = case.result("y")
    assert got.dtype == np.dtype("<u2")
    np.testing.assert_array_equal(got.view(ml_dtypes.bfloat16).astype(np.float32), [2, -5, 6])


def test_several_manifests_in_one_process(tmp_path):
    case = Case(tmp_path, """
        calls = []  # module state: survives between manifests when the module is imported once

        def reference(x, y, N):
            calls.append(N)
            y[...] = x * len(calls)
        """)
    manifests = []
    for n in (2, 3):
        folder = tmp_path / ("m%d" % n)
        folder.mkdir()
        np.save(folder / "x.npy", np.ones(n, dtype=np.float32))
        manifest = {"reference": str(case.reference), "device": "cpu", "params": [
            {"name": "x", "kind": "buffer", "dtype": "float32", "shape": [n], "role": "input",
             "path": str(folder / "x.npy")},
            {"name": "y", "kind": "buffer", "dtype": "float32", "shape": [n], "role": "output",
             "output_path": str(folder / "y.npy")},
            {"name": "N", "kind": "scalar", "dtype": "int32", "value": n}]}
        (folder / "manifest.json").write_text(json.dumps(manifest))
        manifests.append(str(folder / "manifest.json"))
    process = subprocess.run([sys.executable, RUNNER] + manifests, capture_output=True, text=True,
                             timeout=120)
    assert process.returncode == 0, process.stderr
    assert [json.loads(line)["backend"] for line in process.stdout.splitlines()] == ["numpy"] * 2
    np.testing.assert_array_equal(np.load(tmp_path / "m2" / "y.npy"), [1, 1])
    np.testing.assert_array_equal(np.load(tmp_path / "m3" / "y.npy"), [2, 2, 2])


def test_no_manifest_is_a_usage_error():
    process = subprocess.run([sys.executable, RUNNER], capture_output=True, text=True, timeout=60)
    assert "usage:" in failed(process)


FAKE_TORCH = '''
import os
RECORD = os.environ["KOPT_FAKE_TORCH_RECORD"]
def note(what):
    with open(RECORD, "a") as f:
        f.write(what + "\\n")
class cuda:
    @staticmethod
    def is_available():
        note("is_available")
        return os.environ.get("KOPT_FAKE_CUDA") == "1"
    @staticmethod
    def device_count():
        return 1
    @staticmethod
    def set_device(device):
        note("set_device %d" % device)
    @staticmethod
    def synchronize():
        note("synchronize")
def zeros(*shape, device=None):
    note("zeros on %s" % device)
'''


def served_warm_up(tmp_path, warm_device, cuda_available):
    """What a served runner asked of torch (a stand-in that records each call) before it was
    told to stop: it sets up CUDA only when asked to, on the GPU kopt named, and only where one
    is there."""
    (tmp_path / "fake" / "torch").mkdir(parents=True)
    (tmp_path / "fake" / "torch" / "__init__.py").write_text(FAKE_TORCH)
    record = tmp_path / "record.txt"
    serve_dir = tmp_path / "serve"
    serve_dir.mkdir()
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "fake"), KOPT_FAKE_TORCH_RECORD=str(record),
               KOPT_FAKE_CUDA="1" if cuda_available else "0")
    command = [sys.executable, RUNNER, "--serve", str(serve_dir)]
    if warm_device is not None:
        command += ["--warm-cuda", str(warm_device)]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    (serve_dir / "stop").write_text("")  # read only after the imports and the warm-up
    assert process.wait(timeout=60) == 0
    return record.read_text().split("\n")[:-1] if record.exists() else []


def test_served_runner_sets_up_cuda_ahead_on_the_gpu_it_was_named(tmp_path):
    assert served_warm_up(tmp_path, 0, True) == ["is_available", "set_device 0", "zeros on cuda",
                                                 "synchronize"]


def test_served_runner_without_a_gpu_or_the_flag_or_that_gpu_touches_no_cuda(tmp_path):
    assert served_warm_up(tmp_path / "no_gpu", 0, False) == ["is_available"]
    assert served_warm_up(tmp_path / "not_asked", None, True) == []
    assert served_warm_up(tmp_path / "no_such_gpu", 3, True) == ["is_available"]
