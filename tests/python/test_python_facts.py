"""Tests of python/kopt_python_facts.py, run as kopt runs it: a subprocess printing JSON.

The AST reader never executes a file: every one written here imports a module that does not
exist, so the stand-in torch (kopt_suite_shim.py) cannot run its generators either, and what is
asserted is the reading of the source, kopt's fallback. The fixture challenge (SAXPY) runs under
the stand-in, so its functional tests are the ones its generator makes.
"""

import json
import os
import subprocess
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
READER = os.path.join(HERE, os.pardir, os.pardir, "python", "kopt_python_facts.py")
SAXPY = os.path.join(HERE, os.pardir, "fixtures", "import", "leetgpu_saxpy", "challenge.py")


def read(command, path):
    done = subprocess.run([sys.executable, READER, command, str(path)], capture_output=True, text=True)
    return done.returncode, json.loads(done.stdout) if done.returncode == 0 else done.stderr.splitlines()[-1]


def write(folder, source):
    path = folder / "challenge.py"
    path.write_text("import not_a_module_anywhere\n" + textwrap.dedent(source))
    return path


def test_tolerance_reads_module_level_literals(tmp_path):
    ref = tmp_path / "ref.py"
    ref.write_text("import not_a_module_anywhere\natol = 1e-3\nrtol: float = 0.5\n")
    assert read("tolerance", ref) == (0, {"atol": 1e-3, "rtol": 0.5})


def test_leetgpu_fixture_as_kopt_sees_it():
    code, facts = read("leetgpu", SAXPY)
    assert code == 0
    assert facts["dims"] == {"rows": 4096, "cols": 2048, "alpha": 1.25}
    assert facts["buffers"]["X"] == {"shape": ["rows", "cols"], "role": "input", "element_bytes": 4,
                                     "init": "uniform(-2.0,2.0)", "dtype": "float32"}
    assert facts["buffers"]["Y"]["role"] == "inout"
    # Every functional test, as the suite's generator runs it (the loop's sizes included), with its
    # own fills where they differ from the performance test's
    uniform = {"X": "uniform(-1.0,1.0)", "Y": "uniform(-1.0,1.0)"}
    assert facts["cases"] == [
        {"name": "test 1: rows=1 cols=1 alpha=0.5 X=uniform(-1.0,1.0) Y=uniform(-1.0,1.0)",
         "dims": {"rows": 1, "cols": 1, "alpha": 0.5}, "init": uniform},
        {"name": "test 2: rows=3 cols=5 alpha=0.5 X=uniform(-1.0,1.0) Y=uniform(-1.0,1.0)",
         "dims": {"rows": 3, "cols": 5, "alpha": 0.5}, "init": uniform},
        {"name": "test 3: rows=64 cols=33 alpha=0.5 X=uniform(-1.0,1.0) Y=uniform(-1.0,1.0)",
         "dims": {"rows": 64, "cols": 33, "alpha": 0.5}, "init": uniform},
        {"name": "test 4: rows=16 cols=16 alpha=-1.5 X=zeros Y=ones",
         "dims": {"rows": 16, "cols": 16, "alpha": -1.5}, "init": {"X": "zeros", "Y": "ones"}}]
    assert not any("left out" in note for note in facts["notes"])
    assert facts["tolerance"] == {"atol": 1e-05, "rtol": 1e-05}


def test_leetgpu_numbers_that_equal_one_dim_become_that_dim(tmp_path):
    path = write(tmp_path, """
        class Challenge(ChallengeBase):
            def get_solve_signature(self):
                return {"data": (ctypes.POINTER(ctypes.c_int), "in"),
                        "bins": (ctypes.POINTER(ctypes.c_int), "out"),
                        "N": (ctypes.c_int, "in"), "B": (ctypes.c_int, "in")}
            def generate_performance_test(self):
                BATCH, WIDTH = 4, 8
                data = torch.randint(0, 256, (50000,), device=self.device)
                bins = torch.zeros(BATCH * WIDTH, device=self.device)
                return {"data": data, "bins": bins, "N": 50000, "B": 256}
    """)
    code, facts = read("leetgpu", path)
    assert code == 0, facts
    assert facts["buffers"]["data"]["shape"] == ["N"]
    assert facts["buffers"]["data"]["init"] == "int[0,B)"
    assert facts["buffers"]["bins"] == {"shape": ["4 * 8"], "role": "output", "element_bytes": 4, "init": "zeros"}


def test_leetgpu_says_what_it_cannot_translate(tmp_path):
    path = write(tmp_path, """
        class Challenge(ChallengeBase):
            def get_solve_signature(self):
                return {"x": (ctypes.POINTER(ctypes.c_float), "in"), "N": (ctypes.c_int, "in")}
            def generate_performance_test(self):
                return self._make(1024)
    """)
    code, line = read("leetgpu", path)
    assert code == 2
    assert line.startswith("PYTHON_FACTS: ") and "generate_performance_test: the test is not a dict literal" in line


AUTOTUNED = """
import triton
import triton.language as tl

SMALL = [triton.Config({"BLOCK": 256}, num_warps=2)]


@triton.autotune(configs=[triton.Config({"BLOCK": 1024}, num_warps=4, num_stages=2),
                          triton.Config(kwargs={"BLOCK": 2048}, num_warps=8, pre_hook=None)], key=["cols"])
@triton.jit
def softmax_kernel(x, y, cols, BLOCK: tl.constexpr):
    pass


@triton.autotune(SMALL, key=["n"])
@triton.jit
def other_kernel(x, n, BLOCK: tl.constexpr):
    pass


@triton.jit
def plain_kernel(x):
    pass
"""


def test_autotune_reads_each_decorated_kernels_configs_in_order(tmp_path):
    code, facts = read("autotune", write(tmp_path, AUTOTUNED))
    assert code == 0, facts
    assert facts == {"kernels": [
        {"kernel": "softmax_kernel", "line": 9,
         "configs": [{"kwargs": {"BLOCK": 1024}, "num_warps": 4, "num_stages": 2},
                     {"kwargs": {"BLOCK": 2048}, "num_warps": 8}]},
        {"kernel": "other_kernel", "line": 16, "configs": [{"kwargs": {"BLOCK": 256}, "num_warps": 2}]}]}


def test_autotune_of_a_file_without_it_is_no_kernel(tmp_path):
    assert read("autotune", write(tmp_path, "def solve(x: 'float*'):\n    pass\n")) == (0, {"kernels": []})


def test_autotune_configs_built_by_code_are_named_with_their_line(tmp_path):
    source = """
    import triton
    @triton.autotune(configs=[triton.Config({"BLOCK": b}) for b in (256, 512)], key=["n"])
    @triton.jit
    def k(x, n, BLOCK: tl.constexpr):
        pass
    """
    code, reason = read("autotune", write(tmp_path, source))
    assert code == 2
    assert "challenge.py:4: the configs of k's @triton.autotune are [triton.Config" in reason
    assert "give [tune] in kopt.toml" in reason


LAUNCHED = """
import triton
import triton.language as tl
WARPS = 4
@triton.jit
def add_kernel(x, y, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    pass
def solve(x: "const float*", y: "float*", n: int):
    BLOCK = 1024
    add_kernel[(n,)](x, y, n, BLOCK=BLOCK, EVEN=n % 2 == 0, num_warps=WARPS, num_stages=3)
    add_kernel[(n,)](x, y, n, BLOCK=triton.next_power_of_2(n), EVEN=True, num_warps=WARPS)
"""


def test_launches_reads_literals_locals_and_module_variables_but_not_computed_values(tmp_path):
    code, facts = read("launches", write(tmp_path, LAUNCHED))
    assert code == 0, facts
    assert facts == {"constants": [
        {"kernel": "add_kernel", "name": "BLOCK", "variable": None, "value": 1024, "line": 10, "col": 12, "end_col": 16},
        {"kernel": "add_kernel", "name": "num_warps", "variable": "WARPS", "value": 4, "line": 11},
        {"kernel": "add_kernel", "name": "num_stages", "variable": None, "value": 3, "line": 11, "col": 88,
         "end_col": 89, "also": []}]}


def test_a_launch_literal_names_the_same_number_in_its_grid(tmp_path):
    source = """
    import triton
    @triton.jit
    def k(x, n, BLOCK: tl.constexpr):
        pass
    def solve(x: "float*", n: int):
        k[(triton.cdiv(n, 1024), 1)](x, n, BLOCK=1024)
    """
    code, facts = read("launches", write(tmp_path, source))
    assert code == 0, facts
    assert facts["constants"][0]["also"] == [{"line": 8, "col": 22, "end_col": 26}]


def test_launches_of_a_kernel_without_launches_finds_nothing(tmp_path):
    assert read("launches", write(tmp_path, "def solve(x: 'float*'):\n    pass\n")) == (0, {"constants": []})


# ---- tests built by a helper of the class, and buffers built from other buffers ----

HELPER_CHALLENGE = """
    class Challenge(ChallengeBase):
        def get_solve_signature(self):
            return {"x": (ctypes.POINTER(ctypes.c_float), "in"),
                    "w": (ctypes.POINTER(ctypes.c_float), "in"),
                    "out": (ctypes.POINTER(ctypes.c_float), "out"),
                    "N": (ctypes.c_int, "in"), "C": (ctypes.c_int, "in"), "K": (ctypes.c_int, "in")}

        def _make_test_case(self, N, C, K=3, zero_x=False):
            if zero_x:
                x = torch.zeros(N, C, device=self.device)
            else:
                x = torch.randn(N, C, device=self.device) * 2.0 + 1.0
            w = torch.rand(K, device=self.device) * 2 - 1
            C_out = (C + 2 * 1 - K) // 1 + 1
            out = torch.empty(N * C_out, device=self.device)
            return {"x": x.flatten(), "w": w, "out": out, "N": N, "C": C, "K": K}

        def generate_functional_test(self):
            tests = []
            tests.append(self._make_test_case(1, 4))
            tests.append(self._make_test_case(2, 8, zero_x=True))
            for n in [3, 5]:
                tests.append(self._make_test_case(n, n))
            return tests

        def generate_performance_test(self):
            return self._make_test_case(4096, 1024, K=5)
"""


def test_leetgpu_follows_a_helper_that_builds_the_test(tmp_path):
    code, facts = read("leetgpu", write(tmp_path, HELPER_CHALLENGE))
    assert code == 0, facts
    assert facts["dims"] == {"N": 4096, "C": 1024, "K": 5}
    # x: randn * 2 + 1, flattened; w: rand * 2 - 1; out: a computed size, as an expression of the dims
    # (the 2 of `C + 2 * 1` stays 2, though no dim is 2 here either)
    assert facts["buffers"]["x"] == {"shape": ["N * C"], "role": "input", "element_bytes": 4,
                                     "init": "normal(1.0,2.0)"}
    assert facts["buffers"]["w"]["init"] == "uniform(-1.0,1.0)"
    assert facts["buffers"]["out"]["shape"] == ["N * ((((C + (2 * 1)) - K) / 1) + 1)"]
    # Functional tests through the helper: its defaults fill in K; the loop's are left out.
    assert [c["name"] for c in facts["cases"]] == ["N=1 C=4 K=3", "N=2 C=8 K=3 x=zeros"]
    assert any("left out" in note for note in facts["notes"])
    # The test of zeros keeps them as its own fill; the other fills x as the performance test does
    # (randn * 2 + 1) and w alike: no fill of its own.
    assert facts["cases"][1]["init"] == {"x": "zeros"}
    assert "init" not in facts["cases"][0]


def test_leetgpu_takes_the_branch_a_helpers_switch_chooses(tmp_path):
    source = HELPER_CHALLENGE.replace("self._make_test_case(4096, 1024, K=5)",
                                      "self._make_test_case(4096, 1024, zero_x=True)")
    code, facts = read("leetgpu", write(tmp_path, source))
    assert code == 0, facts
    assert facts["buffers"]["x"]["init"] == "zeros"


def test_leetgpu_reads_buffers_built_like_others(tmp_path):
    path = write(tmp_path, """
        class Challenge(ChallengeBase):
            def get_solve_signature(self):
                return {"X": (ctypes.POINTER(ctypes.c_float), "in"),
                        "S": (ctypes.POINTER(ctypes.c_float), "in"),
                        "Y": (ctypes.POINTER(ctypes.c_float), "out"),
                        "q": (ctypes.POINTER(ctypes.c_int8), "in"),
                        "M": (ctypes.c_int, "in"), "T": (ctypes.c_int, "in")}
            def generate_performance_test(self):
                M, T = 8192, 128
                X = torch.randn(M, M, device=self.device)
                rows = (M + T - 1) // T
                S = torch.randn(rows, rows, device=self.device)
                Y = torch.empty_like(X)
                q = torch.randint(-128, 128, (M,), dtype=torch.int8)
                return {"X": X, "S": S, "Y": Y, "q": q, "M": M, "T": T}
    """)
    code, facts = read("leetgpu", path)
    assert code == 0, facts
    assert facts["buffers"]["Y"] == {"shape": ["M", "M"], "role": "output", "element_bytes": 4}
    assert facts["buffers"]["S"]["shape"] == ["((M + T) - 1) / T", "((M + T) - 1) / T"]
    # 128 is T's value, but a range from -128 is the type's, not [0, T)
    assert facts["buffers"]["q"]["init"] == "int[-128,128)"


def test_leetgpu_refuses_a_buffer_changed_after_it_is_built(tmp_path):
    path = write(tmp_path, """
        class Challenge(ChallengeBase):
            def get_solve_signature(self):
                return {"flags": (ctypes.POINTER(ctypes.c_int), "in"), "N": (ctypes.c_int, "in")}
            def generate_performance_test(self):
                N = 1000
                flags = torch.zeros(N, dtype=torch.int32)
                flags[0] = 1
                return {"flags": flags.to(self.device), "N": N}
    """)
    code, line = read("leetgpu", path)
    assert code == 2
    assert "buffer flags is changed after it is built (flags[0] = 1)" in line


def test_leetgpu_a_helper_that_calls_itself_is_one_line(tmp_path):
    path = write(tmp_path, """
        class Challenge(ChallengeBase):
            def get_solve_signature(self):
                return {"x": (ctypes.POINTER(ctypes.c_float), "in"), "N": (ctypes.c_int, "in")}
            def _make(self, n):
                return self._make(n)
            def generate_performance_test(self):
                return self._make(1024)
    """)
    code, line = read("leetgpu", path)
    assert code == 2 and "helpers that call helpers 8 deep" in line, line


def test_leetgpu_large_literals_in_arithmetic_are_dims_and_fixed_sizes_are_noted(tmp_path):
    path = write(tmp_path, """
        class Challenge(ChallengeBase):
            def get_solve_signature(self):
                return {"A": (ctypes.POINTER(ctypes.c_int8), "in"),
                        "T": (ctypes.POINTER(ctypes.c_float), "in"),
                        "C": (ctypes.POINTER(ctypes.c_int8), "out"),
                        "M": (ctypes.c_int, "in"), "K": (ctypes.c_int, "in")}
            def generate_functional_test(self):
                return [{"A": None, "T": None, "C": None, "M": 4, "K": 8}]
            def generate_performance_test(self):
                shape_A = (8192, 2048)
                A = torch.randint(-128, 128, (shape_A[0] * shape_A[1],), dtype=torch.int8)
                T = torch.rand(300, device=self.device)
                C = torch.empty(8192 * 2, dtype=torch.int8)
                return {"A": A, "T": T, "C": C, "M": 8192, "K": 2048}
    """)
    code, facts = read("leetgpu", path)
    assert code == 0, facts
    assert facts["buffers"]["A"]["shape"] == ["M * K"]      # 8192 is M, 2048 is K
    assert facts["buffers"]["C"]["shape"] == ["M * 2"]      # 2 is only 2
    assert "buffer T is 300 in every case (its size names no dim): check it" in facts["notes"]


def test_leetgpu_two_dims_of_one_value_are_told_apart_by_the_functional_tests(tmp_path):
    # 1024 is both N and d_model in the performance test; the functional tests, whose buffers
    # are built with literal sizes, show which axis is which.
    path = write(tmp_path, """
        class Challenge(ChallengeBase):
            def get_solve_signature(self):
                return {"Q": (ctypes.POINTER(ctypes.c_float), "in"),
                        "out": (ctypes.POINTER(ctypes.c_float), "out"),
                        "N": (ctypes.c_int, "in"), "d_model": (ctypes.c_int, "in")}
            def generate_functional_test(self):
                tests = []
                Q = torch.tensor([[1.0, 0.0, 2.0], [4.0, 5.0, 6.0]], device=self.device)
                tests.append({"Q": Q, "out": torch.empty(2, 3, device=self.device), "N": 2, "d_model": 3})
                tests.append({"Q": torch.empty(5, 5), "out": torch.empty(5, 5), "N": 5, "d_model": 5})
                return tests
            def generate_performance_test(self):
                return {"Q": RandTensor((1024, 1024), -1.0, 1.0), "out": OutTensor((1024, 1024)),
                        "N": 1024, "d_model": 1024}
    """)
    code, facts = read("leetgpu", path)
    assert code == 0, facts
    assert facts["buffers"]["Q"]["shape"] == ["N", "d_model"]
    assert facts["buffers"]["out"]["shape"] == ["N", "d_model"]
    assert not any("names no dim" in note for note in facts["notes"])


def test_leetgpu_functional_tests_read_the_locals_bound_before_them(tmp_path):
    path = write(tmp_path, """
        class Challenge(ChallengeBase):
            def get_solve_signature(self):
                return {"x": (ctypes.POINTER(ctypes.c_float), "in"), "N": (ctypes.c_int, "in"),
                        "K": (ctypes.c_int, "in")}
            def generate_functional_test(self):
                tests = []
                N, K = 4, 2
                tests.append({"x": torch.empty(N), "N": N, "K": K})
                N = 9
                tests.append({"x": torch.empty(N), "N": N, "K": K + 1})
                for N in [16, 32]:
                    tests.append({"x": torch.empty(N), "N": N, "K": K})
                tests.append({"x": torch.empty(N), "N": N, "K": K})
                return tests
            def generate_performance_test(self):
                return {"x": torch.empty(1000), "N": 1000, "K": 7}
    """)
    code, facts = read("leetgpu", path)
    assert code == 0, facts
    # the loop's N is not 9, and after the loop N is not known either: both left out, noted
    assert [c["name"] for c in facts["cases"]] == ["N=4 K=2", "N=9 K=3"]
    assert sum("left out" in note for note in facts["notes"]) == 2


def test_leetgpu_a_negated_fill_is_mirrored(tmp_path):
    path = write(tmp_path, """
        class Challenge(ChallengeBase):
            def get_solve_signature(self):
                return {"A": (ctypes.POINTER(ctypes.c_float), "in"),
                        "B": (ctypes.POINTER(ctypes.c_float), "in"),
                        "out": (ctypes.POINTER(ctypes.c_float), "out"), "N": (ctypes.c_int, "in")}
            def generate_performance_test(self):
                N = 1000000
                A = -torch.rand(N, device=self.device) - 0.01
                B = -(torch.randn(N, device=self.device) * 2.0 + 1.0)
                return {"A": A, "B": B, "out": torch.empty(N, device=self.device), "N": N}
    """)
    code, facts = read("leetgpu", path)
    assert code == 0, facts
    assert facts["buffers"]["A"]["init"] == "uniform(-1.01,-0.01)"
    assert facts["buffers"]["B"]["init"] == "normal(-1.0,2.0)"


def test_leetgpu_reads_the_base_classs_tensors_by_keyword(tmp_path):
    # core.challenge_base: RandTensor(shape, low, high), RandnTensor(shape, mean, std),
    # RandIntTensor(shape, low, high), FullTensor(shape, value); 84_swiglu_mlp_block writes std=0.02
    path = write(tmp_path, """
        class Challenge(ChallengeBase):
            def get_solve_signature(self):
                return {"x": (ctypes.POINTER(ctypes.c_float), "in"), "w": (ctypes.POINTER(ctypes.c_float), "in"),
                        "i": (ctypes.POINTER(ctypes.c_int), "in"), "b": (ctypes.POINTER(ctypes.c_float), "in"),
                        "out": (ctypes.POINTER(ctypes.c_float), "out"), "N": (ctypes.c_int, "in")}
            def generate_performance_test(self):
                N = 100000
                return {"x": RandnTensor((N,), std=0.02), "w": RandTensor((N,), high=3.0, low=-1.0),
                        "i": RandIntTensor((N,), low=0, high=N), "b": FullTensor((N,), value=1.0),
                        "out": OutTensor((N,)), "N": N}
    """)
    code, facts = read("leetgpu", path)
    assert code == 0, facts
    assert {k: b.get("init") for k, b in facts["buffers"].items()} == {
        "x": "normal(0.0,0.02)", "w": "uniform(-1.0,3.0)", "i": "int[0,N)", "b": "ones", "out": None}


def test_leetgpu_a_tensor_of_one_integer_is_a_fill_of_that_value(tmp_path):
    source = """
        class Challenge(ChallengeBase):
            def get_solve_signature(self):
                return {"logits": (ctypes.POINTER(ctypes.c_float), "in"),
                        "seed": (ctypes.POINTER(ctypes.c_int), "in"),
                        "w": (ctypes.POINTER(ctypes.c_int), "in"),
                        "token": (ctypes.POINTER(ctypes.c_int), "out"), "V": (ctypes.c_int, "in")}
            def generate_performance_test(self):
                V = 50000
                logits = torch.randn(V, device=self.device) * 3.0
                seed = torch.tensor([999], device=self.device, dtype=torch.int32)
                w = torch.tensor([[7, 7], [7, 7]], device=self.device, dtype=torch.int32)
                return {"logits": logits, "seed": seed, "w": w, "token": torch.zeros(1, dtype=torch.int32), "V": V}
    """
    code, facts = read("leetgpu", write(tmp_path, source))
    assert code == 0, facts
    # (the file imports a module that does not exist, so the stand-in torch cannot run it: no dtype is pinned)
    assert facts["buffers"]["seed"] == {"shape": ["1"], "role": "input", "element_bytes": 4, "init": "full(999)"}
    assert facts["buffers"]["w"]["shape"] == ["2", "2"] and facts["buffers"]["w"]["init"] == "full(7)"
    # a fraction is full(v) too; an infinity is no fill of kopt's; values that differ are listed, values(...)
    code, facts = read("leetgpu", write(tmp_path, source.replace("[999]", "[0.9]")))
    assert code == 0 and facts["buffers"]["seed"]["init"] == "full(0.9)", facts
    code, line = read("leetgpu", write(tmp_path, source.replace("[999]", "[float('inf')]")))
    assert code == 2 and "buffer seed is not built" in line and "by hand: write [buffers.seed] shape and init" in line, line
    code, facts = read("leetgpu", write(tmp_path, source.replace("[999]", "[999, 3]")))
    assert code == 0 and facts["buffers"]["seed"]["shape"] == ["2"] and facts["buffers"]["seed"]["init"] == "values(999,3)"
    code, facts = read("leetgpu", write(tmp_path, source.replace("[999]", "[0.5, -2.25]")))
    assert code == 0 and facts["buffers"]["seed"]["init"] == "values(0.5,-2.25)"


def test_leetgpu_a_small_identity_and_its_tiling_are_their_values(tmp_path):
    # 33_ordinary_least_squares' X = torch.eye(32).flatten(); 34_logistic_regression's eye(8).repeat(2, 1).
    source = """
        class Challenge(ChallengeBase):
            def get_solve_signature(self):
                return {"X": (ctypes.POINTER(ctypes.c_float), "in"), "Y": (ctypes.POINTER(ctypes.c_float), "out"),
                        "N": (ctypes.c_int, "in")}
            def generate_performance_test(self):
                N = 2
                return {"X": torch.eye(2, 3, device=self.device).flatten(), "Y": torch.empty(N), "N": N}
    """
    code, facts = read("leetgpu", write(tmp_path, source))
    assert code == 0 and facts["buffers"]["X"]["init"] == "values(1,0,0,0,1,0)", facts
    code, facts = read("leetgpu", write(tmp_path, source.replace("torch.eye(2, 3, device=self.device).flatten()",
                                                                 "torch.eye(2).repeat(2, 1)")))
    assert code == 0 and facts["buffers"]["X"]["init"] == "values(1,0,0,1,1,0,0,1)", facts
    code, line = read("leetgpu", write(tmp_path, source.replace("torch.eye(2, 3, device=self.device).flatten()",
                                                                "torch.eye(2).repeat(2, 2, 2)")))
    assert code == 2 and "repeats data no fill of kopt's lists" in line, line


def test_leetgpu_a_random_fill_sorted_is_sorted(tmp_path):
    # 71_parallel_merge: A, _ = torch.sort(torch.empty(M).uniform_(-1.0, 1.0)).
    source = """
        class Challenge(ChallengeBase):
            def get_solve_signature(self):
                return {"A": (ctypes.POINTER(ctypes.c_float), "in"), "C": (ctypes.POINTER(ctypes.c_float), "out"),
                        "M": (ctypes.c_int, "in")}
            def generate_performance_test(self):
                M = 1000
                A, _ = torch.sort(torch.empty(M, device=self.device).uniform_(-1.0, 1.0))
                return {"A": A, "C": torch.empty(M), "M": M}
    """
    code, facts = read("leetgpu", write(tmp_path, source))
    assert code == 0 and facts["buffers"]["A"]["init"] == "sorted(uniform(-1.0,1.0))", facts
    code, line = read("leetgpu", write(tmp_path, source.replace("uniform_(-1.0, 1.0))", "uniform_(-1.0, 1.0), descending=True)")))
    assert code == 2 and "buffer A is not built by a constructor this reader knows" in line, line


def test_leetgpu_a_tuple_argument_read_in_a_helper_of_a_helper(tmp_path):
    # 106_token_embedding_layer: _random_case(emb_range=(-0.3, 0.3)) builds
    # torch.empty(...).uniform_(emb_range[0], emb_range[1]) and passes it to _build_case.
    source = """
        class Challenge(ChallengeBase):
            def get_solve_signature(self):
                return {"E": (ctypes.POINTER(ctypes.c_float), "in"), "Y": (ctypes.POINTER(ctypes.c_float), "out"),
                        "N": (ctypes.c_int, "in")}
            def _build_case(self, E, N):
                return {"E": E, "Y": torch.empty(N), "N": N}
            def _random_case(self, N, emb_range=(-1.0, 1.0)):
                E = torch.empty(N, device=self.device).uniform_(emb_range[0], emb_range[1])
                return self._build_case(E, N)
            def generate_performance_test(self):
                return self._random_case(N=1000, emb_range=(-0.3, 0.3))
    """
    code, facts = read("leetgpu", write(tmp_path, source))
    assert code == 0 and facts["buffers"]["E"]["init"] == "uniform(-0.3,0.3)", facts
