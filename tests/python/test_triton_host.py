"""python/kopt_triton_host.py without torch or a GPU: words to arguments, shapes from the
spec's cases, and the one-line refusals. Run by ctest (python.triton_host) with unittest."""

import json
import os
import struct
import subprocess
import sys
import tempfile
import types
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
import kopt_triton_host as host  # noqa: E402

BRIDGE = {
    "library": "/nowhere/bridge.so", "kernel": "/nowhere/kernel.py", "entry": "solve",
    "params": [{"name": "x", "kind": "pointer", "dtype": "float32"},
               {"name": "y", "kind": "pointer", "dtype": "bfloat16"},
               {"name": "rows", "kind": "integer", "dtype": "int32"},
               {"name": "scale", "kind": "real", "dtype": "float32"}],
    "cases": [{"scalars": [4, 0.5], "shapes": {"x": [4, 8], "y": [4, 8]}},
              {"scalars": [2, 0.5], "shapes": {"x": [2, 3], "y": [2, 3]}}],
}


def words(address_x, address_y, rows, scale):
    return [address_x, address_y, rows & (2**64 - 1), struct.unpack("<Q", struct.pack("<d", scale))[0]]


def fake_tensor(address, shape, dtype):
    return ("tensor", address, tuple(shape), dtype)


def call_once_in_a_process(bridge):
    """The bridge's callback called once in a python3 of its own (the host ends its process on
    a failure): that process's result."""
    script = (f"import sys; sys.path.insert(0, {os.path.dirname(host.__file__)!r}); import json, struct\n"
              "import kopt_triton_host as host\n"
              f"bridge = json.loads({json.dumps(json.dumps(bridge))})\n"
              "cb = host.bridge_callback(bridge, lambda *a: a, lambda: None)\n"
              "d = struct.unpack('<Q', struct.pack('<d', 0.5))[0]\n"
              "cb(4, (host.ctypes.c_uint64 * 4)(1, 2, 4, d))\nprint('not reached')\n")
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)


class ArgumentsTest(unittest.TestCase):
    def test_pointers_become_tensors_of_the_calls_case_and_scalars_stay_numbers(self):
        arguments = host.call_arguments(BRIDGE, words(0x7F0000001000, 0x7F0000002000, 2, 0.5), fake_tensor)
        self.assertEqual(arguments, [("tensor", 0x7F0000001000, (2, 3), "float32"),
                                     ("tensor", 0x7F0000002000, (2, 3), "bfloat16"), 2, 0.5])

    def test_a_float32_scalar_matches_its_case_as_rounded_when_passed(self):
        bridge = dict(BRIDGE, cases=[{"scalars": [2, 0.1], "shapes": {"x": [2], "y": [2]}}])
        passed = struct.unpack("<f", struct.pack("<f", 0.1))[0]
        self.assertEqual(host.call_arguments(bridge, words(1, 2, 2, passed), fake_tensor)[0][2], (2,))

    def test_integers_are_signed(self):
        self.assertEqual(host.decode_words(BRIDGE["params"], words(1, 2, -3, 1.0))[2], -3)

    def test_a_call_no_case_describes_is_refused(self):
        with self.assertRaisesRegex(host.HostError, r"scalars \[3, 0.5\], which no case of the spec has"):
            host.call_arguments(BRIDGE, words(1, 2, 3, 0.5), fake_tensor)

    def test_a_word_count_other_than_the_signatures_is_refused(self):
        with self.assertRaisesRegex(host.HostError, "passed 2 arguments, the signature has 4"):
            host.decode_words(BRIDGE["params"], [1, 2])

    def test_the_cuda_array_interface_describes_kopts_memory_without_a_stream(self):
        array = host.CudaArray(0x1000, [4, 8], "bfloat16")
        self.assertEqual(array.__cuda_array_interface__,
                         {"shape": (4, 8), "typestr": "<i2", "data": (0x1000, False), "version": 3})
        with self.assertRaisesRegex(host.HostError, "cannot be float8_e4m3"):
            host.CudaArray(0x1000, [1], "float8_e4m3")


class RememberedTensorsTest(unittest.TestCase):
    """Wrapping an address costs host time the hold would count against the kernel: a tensor
    is made once per memory, shape and dtype, and again only when solve changed it."""

    def setUp(self):
        self.made = []

        def make(address, shape, dtype):
            self.made.append((address, tuple(shape), dtype))
            return {"address": address, "shape": tuple(shape)}
        self.make = make

    def test_the_same_memory_shape_and_dtype_is_wrapped_once(self):
        make = host.remembered(self.make, lambda t, a, s: True)
        first = make(16, [4, 8], "float32")
        self.assertIs(make(16, [4, 8], "float32"), first)
        self.assertEqual(self.made, [(16, (4, 8), "float32")])

    def test_another_address_shape_or_dtype_is_another_tensor(self):
        make = host.remembered(self.make, lambda t, a, s: True)
        for call in ((16, [4, 8], "float32"), (32, [4, 8], "float32"), (16, [8, 4], "float32"),
                     (16, [4, 8], "int32")):
            make(*call)
        self.assertEqual(len(self.made), 4)

    def test_a_tensor_solve_changed_in_place_is_made_again(self):
        make = host.remembered(self.make, lambda t, a, s: t["shape"] == s)
        make(16, [4, 8], "float32")["shape"] = (32,)  # as x.resize_(32) would
        self.assertEqual(make(16, [4, 8], "float32")["shape"], (4, 8))
        self.assertEqual(len(self.made), 2)

    def test_a_full_memory_starts_over_instead_of_growing(self):
        make = host.remembered(self.make, lambda t, a, s: True, capacity=2)
        for address in (1, 2, 3, 1):
            make(address, [1], "float32")
        self.assertEqual([m[0] for m in self.made], [1, 2, 3, 1])


class CallbackTest(unittest.TestCase):
    def test_the_callback_imports_kernel_py_at_the_first_call_and_calls_its_solve(self):
        with tempfile.TemporaryDirectory() as folder:
            kernel = os.path.join(folder, "kernel.py")
            with open(kernel, "w", encoding="utf-8") as out:  # solve records its calls where the test sees them
                out.write("import unittest\n\ndef solve(x, y, rows, scale):\n"
                          "    unittest.kopt_test_calls.append((x, y, rows, scale))\n")
            unittest.kopt_test_calls = []
            firsts = []
            callback = host.bridge_callback(dict(BRIDGE, kernel=kernel), fake_tensor, lambda: firsts.append(1))
            packed = (host.ctypes.c_uint64 * 4)(*words(16, 32, 4, 0.5))
            callback(4, packed)
            callback(4, packed)
            self.assertEqual(firsts, [1])  # torch meets the device once, at the first call
            self.assertEqual(unittest.kopt_test_calls, [(("tensor", 16, (4, 8), "float32"),
                                                         ("tensor", 32, (4, 8), "bfloat16"), 4, 0.5)] * 2)

    def test_an_exception_in_solve_ends_the_worker_with_its_traceback(self):
        with tempfile.TemporaryDirectory() as folder:
            kernel = os.path.join(folder, "kernel.py")
            with open(kernel, "w", encoding="utf-8") as out:
                out.write("def solve(x, y, rows, scale):\n    raise ValueError('planted')\n")
            done = call_once_in_a_process(dict(BRIDGE, kernel=kernel))
            self.assertEqual(done.returncode, 1)
            self.assertIn("kernel.py's solve raised", done.stderr)
            self.assertIn("ValueError: planted", done.stderr)
            self.assertNotIn("not reached", done.stdout)


class DefinesTest(unittest.TestCase):
    KERNEL = ("import unittest\nBLOCK = 1024\nNUM_WARPS = 4\nMODE = 'fast'\n\n"
              "def solve(x, y, rows, scale):\n"
              "    unittest.kopt_test_calls.append((BLOCK, NUM_WARPS, MODE))\n")

    def test_values_are_python_literals_where_they_are_one(self):
        self.assertEqual(host.define_value("512"), 512)
        self.assertEqual(host.define_value("0x10"), 16)
        self.assertEqual(host.define_value("0.5"), 0.5)
        self.assertEqual(host.define_value("True"), True)
        self.assertEqual(host.define_value("'a'"), "a")
        self.assertEqual(host.define_value("fast_path"), "fast_path")  # not a literal: the text

    def test_each_bridge_calls_its_own_module_with_its_defines(self):
        with tempfile.TemporaryDirectory() as folder:
            kernel = os.path.join(folder, "kernel.py")
            with open(kernel, "w", encoding="utf-8") as out:
                out.write(self.KERNEL)
            unittest.kopt_test_calls = []
            packed = (host.ctypes.c_uint64 * 4)(*words(16, 32, 4, 0.5))
            tuned = host.bridge_callback(dict(BRIDGE, kernel=kernel, defines=[["BLOCK", "256"], ["MODE", "slow"]]),
                                         fake_tensor, lambda: None)
            default = host.bridge_callback(dict(BRIDGE, kernel=kernel, defines=[]), fake_tensor, lambda: None)
            tuned(4, packed)
            default(4, packed)
            tuned(4, packed)
            self.assertEqual(unittest.kopt_test_calls, [(256, 4, "slow"), (1024, 4, "fast"), (256, 4, "slow")])

    def test_a_define_kernel_py_does_not_have_ends_the_worker_in_one_line(self):
        with tempfile.TemporaryDirectory() as folder:
            kernel = os.path.join(folder, "kernel.py")
            with open(kernel, "w", encoding="utf-8") as out:
                out.write(self.KERNEL)
            done = call_once_in_a_process(dict(BRIDGE, kernel=kernel, defines=[["BLOKC", "256"]]))
            self.assertEqual(done.returncode, 1)
            self.assertEqual(done.stderr.strip().splitlines(),
                             ["kopt: kernel.py has no module-level variable BLOKC for -D BLOKC=256 "
                              "(docs/triton.md, \"Parameters\")"])
            self.assertNotIn("not reached", done.stdout)


class AutotuneConfigTest(unittest.TestCase):
    """-D KOPT_TRITON_CONFIG_<kernel>=I: the kernel's @triton.autotune list cut to its I-th
    config while kernel.py is imported, with a fake triton module standing in."""
    KERNEL = ("import kopt_fake_triton as triton\n\n"
              "@triton.autotune(configs=['c0', 'c1', 'c2'], key=['n'])\n@triton.jit\ndef first(x):\n    pass\n\n"
              "@triton.autotune(['d0', 'd1'], key=['n'])\n@triton.jit\ndef second(x):\n    pass\n\n"
              "def solve(x, y, rows, scale):\n    pass\n")

    def setUp(self):
        fake = types.ModuleType("kopt_fake_triton")
        fake.kept = {}

        def autotune(configs, key):
            def decorate(function):
                fake.kept[function.__name__] = (list(configs), key)
                return function
            return decorate
        fake.autotune = autotune
        fake.jit = lambda function: function
        sys.modules["kopt_fake_triton"] = self.fake = fake
        self.folder = tempfile.TemporaryDirectory()
        self.kernel = os.path.join(self.folder.name, "kernel.py")
        with open(self.kernel, "w", encoding="utf-8") as out:
            out.write(self.KERNEL)

    def tearDown(self):
        del sys.modules["kopt_fake_triton"]
        self.folder.cleanup()

    def load(self, *defines):
        return host.load_kernel(self.kernel, "solve", list(defines), triton_module=self.fake)

    def test_a_chosen_config_is_the_only_one_its_kernel_keeps(self):
        self.load(("KOPT_TRITON_CONFIG_first", "2"))
        self.assertEqual(self.fake.kept, {"first": (["c2"], ["n"]), "second": (["d0", "d1"], ["n"])})

    def test_all_leaves_the_list_as_written_and_the_real_autotune_comes_back(self):
        real = self.fake.autotune
        self.load(("KOPT_TRITON_CONFIG_first", "all"), ("KOPT_TRITON_CONFIG_second", "1"))
        self.assertEqual(self.fake.kept, {"first": (["c0", "c1", "c2"], ["n"]), "second": (["d1"], ["n"])})
        self.assertIs(self.fake.autotune, real)

    def test_an_index_past_the_list_or_not_a_number_is_refused(self):
        with self.assertRaisesRegex(host.HostError, "second's @triton.autotune has 2 configs \\(0 to 1\\)"):
            self.load(("KOPT_TRITON_CONFIG_second", "2"))
        with self.assertRaisesRegex(host.HostError, "chosen by its index in the @triton.autotune list, or all"):
            self.load(("KOPT_TRITON_CONFIG_second", "fast"))

    def test_a_kernel_with_no_autotune_list_is_refused_by_name(self):
        with self.assertRaisesRegex(host.HostError, "kernel.py has no @triton.autotune kernel third for "
                                                    "-D KOPT_TRITON_CONFIG_third=0"):
            self.load(("KOPT_TRITON_CONFIG_third", "0"))


class PlanAndRefusalTest(unittest.TestCase):
    def run_host(self, plan):
        with tempfile.TemporaryDirectory() as folder:
            plan_file = os.path.join(folder, "plan.json")
            with open(plan_file, "w", encoding="utf-8") as out:
                out.write(json.dumps(plan))
            return subprocess.run([sys.executable, host.__file__, plan_file, "/nowhere/libkopt_worker.so", "worker",
                                   os.path.join(folder, "job.json"), os.path.join(folder, "result.json")],
                                  capture_output=True, text=True, timeout=120)

    def test_a_plan_of_another_schema_is_refused_in_one_line(self):
        done = self.run_host({"schema": "kopt.triton_plan/9", "bridges": []})
        self.assertEqual(done.returncode, 2)
        self.assertIn("plan schema is 'kopt.triton_plan/9'", done.stderr)

    def test_python_without_torch_or_triton_is_named(self):
        try:
            import torch  # noqa: F401
            import triton  # noqa: F401
            self.skipTest("torch and triton are importable here")
        except ImportError:
            pass
        done = self.run_host({"schema": host.PLAN_SCHEMA, "bridges": [BRIDGE]})
        self.assertEqual(done.returncode, 3)
        self.assertEqual(len(done.stderr.strip().splitlines()), 1)
        self.assertIn("needs torch and triton importable by python3", done.stderr)


if __name__ == "__main__":
    unittest.main()
