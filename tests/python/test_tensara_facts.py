"""Tests of python/kopt_tensara_facts.py (a Tensara def.py as kopt facts), run as kopt runs
it: a subprocess printing JSON. The files it reads are never executed: each one here imports
a module that exists nowhere."""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
READER = os.path.join(HERE, os.pardir, os.pardir, "python", "kopt_tensara_facts.py")
FIXTURES = os.path.join(HERE, os.pardir, "fixtures", "import")


def read(path):
    done = subprocess.run([sys.executable, READER, "tensara", str(path)], capture_output=True, text=True)
    return done.returncode, json.loads(done.stdout) if done.returncode == 0 else done.stderr.splitlines()[-1]


def fixture(name):
    with open(os.path.join(FIXTURES, name, "def.py"), encoding="utf-8") as f:
        return f.read()


def written(tmp_path, text):
    path = tmp_path / "def.py"
    path.write_text("import not_a_module_anywhere\n" + text)
    return path


def test_leaky_relu_scalars_before_and_after_the_output():
    code, facts = read(os.path.join(FIXTURES, "tensara_leaky_relu", "def.py"))
    assert code == 0
    assert facts["dims"] == {"alpha": 0.01, "n": 2048, "m": 1024}
    assert facts["buffers"]["input"] == {"shape": ["n", "m"], "role": "input", "element_bytes": 4, "dtype": "float32",
                                         "init": "uniform(-3,3)"}
    assert facts["buffers"]["output"]["shape"] == ["n", "m"]
    assert [c["name"] for c in facts["cases"]] == ["2048x1024, alpha=0.2", "1000x3000, alpha=0.01",
                                                   "1000x3000, alpha=0.2"]
    assert facts["tolerance"] == {"atol": 1e-6, "rtol": 1e-4}
    assert facts["flops"] == "(n * m)"
    assert facts["inputs"] == ["input", "alpha"] and facts["class"] == "leaky_relu"


def test_matmul_axes_named_by_where_each_size_was_written():
    # The first case is 1024 cubed: by value alone A's second axis could be m, n or k.
    code, facts = read(os.path.join(FIXTURES, "tensara_matmul", "def.py"))
    assert code == 0
    assert facts["buffers"]["A"]["shape"] == ["m", "k"]
    assert facts["buffers"]["A"]["init"] == "normal(0,0.5)"
    assert facts["buffers"]["B"]["shape"] == ["k", "n"]
    assert facts["buffers"]["C"] == {"shape": ["m", "n"], "role": "output", "element_bytes": 4, "dtype": "float32"}
    assert facts["cases"] == [{"name": "512x768 by 768x256", "dims": {"m": 512, "n": 256, "k": 768}}]
    assert facts["flops"] == "(((2 * m) * n) * k)"


def test_a_local_def_is_read_as_a_lambda_and_module_numbers_are_known(tmp_path):
    # vector-multiply-ff's form: `def make_inputs(n=n, seed=seed): ... return (a, b)` in the loop,
    # its bounds a module constant written with a shift (P = (1 << 31) - 1).
    text = fixture("tensara_leaky_relu")
    text = text.replace("""                    "create_inputs": lambda r=rows, c=cols, a=slope, seed=seed, dtype=dtype: (
                        *(lambda g: (
                            torch.rand((r, c), device="cuda", dtype=dtype, generator=g) * 6.0 - 3.0,
                        ))(torch.Generator(device="cuda").manual_seed(seed)),
                        a,
                    ),""", """                    "create_inputs": make_inputs,""")
    text = text.replace("""                seed = Problem.get_seed(f"{self.name}_{name}")
""", """                seed = Problem.get_seed(f"{self.name}_{name}")
                def make_inputs(r=rows, c=cols, a=slope, seed=seed):
                    g = torch.Generator(device="cuda").manual_seed(seed)
                    x = torch.rand((r, c), device="cuda", generator=g) * (2 * HALF) - HALF
                    return (x, a)
""")
    text = text.replace("class ", "HALF = (3 << 2) >> 2\n\n\nclass ", 1)
    assert "def make_inputs" in text and "HALF = " in text
    code, facts = read(written(tmp_path, text))
    assert code == 0, facts
    assert facts["buffers"]["input"]["init"] == "uniform(-3,3)"
    assert [c["name"] for c in facts["cases"]] == ["2048x1024, alpha=0.2", "1000x3000, alpha=0.01",
                                                   "1000x3000, alpha=0.2"]


def test_an_input_it_cannot_fill_is_named_with_its_line(tmp_path):
    text = fixture("tensara_leaky_relu").replace("torch.rand((r, c)", "torch.linspace((r, c)")
    code, message = read(written(tmp_path, text))
    assert code == 2
    assert "def.py:" in message and "an input built by torch.linspace" in message


def test_a_def_py_without_parameters_is_refused(tmp_path):
    text = fixture("tensara_leaky_relu")
    start = text.index("    parameters = [")
    end = text.index("    ]\n", start) + len("    ]\n")
    code, message = read(written(tmp_path, text[:start] + text[end:]))
    assert code == 2
    assert "has no `parameters` list" in message


def test_more_values_than_parameters_is_refused(tmp_path):
    text = fixture("tensara_leaky_relu").replace("return [rows, cols]", "return [rows, cols, 3]")
    code, message = read(written(tmp_path, text))
    assert code == 2
    assert "gives 2 inputs and 3 extra parameters; `parameters` has 2 before the output and 2 after" in message


def test_a_verify_result_without_allclose_leaves_the_tolerance_to_kopt(tmp_path):
    text = fixture("tensara_leaky_relu").replace("torch.allclose(actual_output, expected_output, rtol=1e-4, atol=1e-6)",
                                                 "torch.equal(actual_output, expected_output)")
    code, facts = read(written(tmp_path, text))
    assert code == 0 and "tolerance" not in facts
    assert any("no torch.allclose" in note for note in facts["notes"])



RAND = "torch.rand((r, c), device=\"cuda\", dtype=dtype, generator=g) * 6.0 - 3.0"


def test_randint_by_keyword_annotated_locals_and_a_starred_shape(tmp_path):
    text = fixture("tensara_leaky_relu").replace(
        RAND, "torch.randint(low=1, high=100, size=(r, c), device=\"cuda\", generator=g)")
    text = text.replace("slopes = [0.01, 0.2]", "slopes: List[float] = [0.01, 0.2]")
    code, facts = read(written(tmp_path, text))
    assert code == 0, facts
    assert facts["buffers"]["input"]["init"] == "int[1,100)"
    assert [c["dims"]["alpha"] for c in facts["cases"]][:1] == [0.2]
    starred = fixture("tensara_leaky_relu").replace("torch.rand((r, c)", "torch.rand(*(r, c)")
    code, facts = read(written(tmp_path, starred))
    assert code == 0, facts
    assert facts["buffers"]["input"]["shape"] == ["n", "m"]


def test_randint_without_a_size_is_one_line_not_a_crash(tmp_path):
    text = fixture("tensara_leaky_relu").replace(RAND, "torch.randint(low=1, high=100, device=\"cuda\")")
    code, message = read(written(tmp_path, text))
    assert code == 2 and message.startswith("PYTHON_FACTS: ") and "torch.randint without a size" in message, message


def test_a_scalar_of_the_instance_and_a_loss_that_reduces_to_one_value(tmp_path):
    # elu-style: the extra parameter is self.scale, set in __init__; triplet-style: the output is
    # what an nn.*Loss module (moved to the device after) returns, one value.
    text = fixture("tensara_leaky_relu")
    text = text.replace('super().__init__(name="leaky-relu")', 'super().__init__(name="leaky-relu")\n        self.scale = 2.5')
    text = text.replace("return [rows, cols]", "return [rows, cols, self.scale]")
    text = text.replace('{"name": "m", "type": "size_t", "pointer": False, "const": False},',
                        '{"name": "m", "type": "size_t", "pointer": False, "const": False},\n'
                        '        {"name": "scale", "type": "float", "pointer": False, "const": False},')
    text = text.replace("return torch.nn.functional.leaky_relu(input_matrix, alpha)",
                        "loss_fn = torch.nn.HuberLoss(delta=alpha)\n"
                        "            loss_fn = loss_fn.to(input_matrix.device)\n"
                        "            out = loss_fn(input_matrix, input_matrix * 0)\n"
                        "            return out")
    code, facts = read(written(tmp_path, text))
    assert code == 0, facts
    assert facts["dims"]["scale"] == 2.5
    assert facts["buffers"]["output"] == {"shape": ["1"], "role": "output", "element_bytes": 4, "dtype": "float32"}
    assert "output is one element (reference_solution reduces to a scalar)" in facts["notes"]
    # reduction='none' keeps the elements: back to the input's shape, noted
    per_element = text.replace("HuberLoss(delta=alpha)", "HuberLoss(delta=alpha, reduction='none')")
    code, facts = read(written(tmp_path, per_element))
    assert code == 0, facts
    assert facts["buffers"]["output"]["shape"] == ["n", "m"]


def test_a_pools_output_shape_follows_its_window(tmp_path):
    text = fixture("tensara_leaky_relu").replace(
        "return torch.nn.functional.leaky_relu(input_matrix, alpha)",
        "out = torch.nn.functional.max_pool2d(input_matrix.view(1, 1, 4, 4), kernel_size=alpha, stride=2,\n"
        "                                                padding=1, dilation=3)\n"
        "            return out.view(-1)")
    code, facts = read(written(tmp_path, text))
    assert code == 0, facts
    assert facts["buffers"]["output"]["shape"] == ["(n + 2 * 1 - (3 * (alpha - 1) + 1)) / 2 + 1",
                                                   "(m + 2 * 1 - (3 * (alpha - 1) + 1)) / 2 + 1"]
    assert not any("taken to be" in note for note in facts["notes"])


def test_a_reduction_along_a_dim_drops_that_axis(tmp_path):
    text = fixture("tensara_leaky_relu").replace(
        "return torch.nn.functional.leaky_relu(input_matrix, alpha)",
        "return 1 - torch.nn.functional.cosine_similarity(input_matrix, input_matrix * alpha, dim=1)")
    code, facts = read(written(tmp_path, text))
    assert code == 0, facts
    assert facts["buffers"]["output"]["shape"] == ["n"]
    assert "output is input's shape less the axis reference_solution reduces" in facts["notes"]
    kept = text.replace("dim=1)", "dim=1, keepdim=True)")
    code, facts = read(written(tmp_path, kept))
    assert code == 0, facts
    assert facts["buffers"]["output"]["shape"] == ["n", "m"]  # keepdim: not this rule's (the input's, noted)


def test_an_einsums_output_takes_each_letters_axis(tmp_path):
    text = fixture("tensara_leaky_relu").replace(
        "return torch.nn.functional.leaky_relu(input_matrix, alpha)",
        "return torch.einsum(\"ij->ji\", input_matrix) * alpha")
    code, facts = read(written(tmp_path, text))
    assert code == 0, facts
    assert facts["buffers"]["output"]["shape"] == ["m", "n"]
    assert not any("taken to be" in note for note in facts["notes"])


def test_a_matmul_with_a_vector_contracts_its_axis():
    # matrix-vector: (m, k) @ (k,) is (m,), not m by k; torch.matmul's rules, shape by shape.
    sys.path.insert(0, os.path.dirname(READER))
    import kopt_tensara_facts as facts
    assert facts.matmul_shape(["m", "k"], ["k"]) == ["m"]
    assert facts.matmul_shape(["k"], ["k", "n"]) == ["n"]
    assert facts.matmul_shape(["k"], ["k"]) == ["1"]
    assert facts.matmul_shape(["b", "m", "k"], ["k", "n"]) == ["b", "m", "n"]


def test_a_whole_reduction_after_a_matmul_is_one_value(tmp_path):
    # matmul-sigmoid-sum: sum(sigmoid(A @ B)) is one element, whatever the matmul's shape.
    text = fixture("tensara_leaky_relu").replace(
        "return torch.nn.functional.leaky_relu(input_matrix, alpha)",
        "product = torch.matmul(input_matrix, input_matrix.T)\n"
        "            return torch.sum(torch.sigmoid(product))")
    code, facts = read(written(tmp_path, text))
    assert code == 0, facts
    assert facts["buffers"]["output"]["shape"] == ["1"]


def test_indexing_an_axis_by_a_number_drops_it(tmp_path):
    # grayscale: r, g, b = rgb[:, :, 0], rgb[:, :, 1], rgb[:, :, 2] is height by width.
    text = fixture("tensara_leaky_relu").replace(
        "return torch.nn.functional.leaky_relu(input_matrix, alpha)",
        "first, second = input_matrix[:, 0], input_matrix[:, 1]\n"
        "            return 0.5 * first + alpha * second")
    code, facts = read(written(tmp_path, text))
    assert code == 0, facts
    assert facts["buffers"]["output"]["shape"] == ["n"]
    assert "output is input's shape less the axes reference_solution indexes by a number" in facts["notes"]


def test_a_shape_array_names_the_axes_of_an_input_of_any_rank():
    # argmax: shape = torch.tensor(list(shape)) and ndim after the output, cases of rank 3 and 4,
    # the reduced axis given by the scalar dim.
    code, facts = read(os.path.join(FIXTURES, "suites", "tensara", "argmax", "def.py"))
    assert code == 0, facts
    assert facts["dims"] == {"dim": 1, "ndim": 3, "shape0": 16, "shape1": 128, "shape2": 256, "shape3": 1}
    assert facts["buffers"]["input"]["shape"] == ["shape0", "shape1", "shape2", "shape3"]
    assert facts["buffers"]["shape"] == {"shape": ["ndim"], "role": "input", "element_bytes": 4, "dtype": "int32",
                                         "init": "values(shape0,shape1,shape2)"}
    four = facts["cases"][2]
    assert four["dims"]["shape3"] == 128 and four["init"] == {"shape": "values(shape0,shape1,shape2,shape3)"}
    assert facts["buffers"]["output"]["shape"][1] == "max(1, shape1*min(1, (dim-1)*(dim-1)))"
    assert "output is input's shape keeping as 1 the axis dim names" in facts["notes"]


FROBENIUS = """
import torch
from problem import Problem

class frobenius_norm(Problem):
    parameters = [
        {"name": "X", "type": "float", "pointer": True, "const": True},
        {"name": "Y", "type": "float", "pointer": True, "const": False},
        {"name": "size", "type": "size_t", "pointer": False, "const": False},
    ]

    def reference_solution(self, x):
        return x / torch.norm(x, p='fro')

    def generate_test_cases(self):
        test_cases = []
        for shape in [(4, 1024, 1024), (8, 32, 256, 256)]:
            test_cases.append({"name": f"shape={shape}", "shape": shape,
                               "create_inputs": lambda shape=shape: (torch.randn(*shape, device="cuda"),)})
        return test_cases

    def get_extra_params(self, test_case):
        total = 1
        for extent in test_case["shape"]:
            total *= extent
        return [total]
"""


def test_an_input_of_varying_rank_is_flat_where_the_reference_reads_no_axis(tmp_path):
    # frobenius-norm: x of rank 3 to 5 beside its element count (a loop of *=), a whole-tensor norm.
    code, facts = read(written(tmp_path, FROBENIUS))
    assert code == 0, facts
    assert facts["dims"] == {"size": 4 * 1024 * 1024}
    assert facts["buffers"]["X"]["shape"] == ["size"] and facts["buffers"]["Y"]["shape"] == ["size"]
    assert facts["cases"][0]["dims"] == {"size": 8 * 32 * 256 * 256}
    # A reference that reads an axis (a sum along dim 1) is not flattened: refused, with the line.
    code, message = read(written(tmp_path, FROBENIUS.replace("torch.norm(x, p='fro')", "x.sum(dim=1)")))
    assert code != 0 and "def.py:16: input X has another rank in some test case" in message


def test_a_lower_triangle_of_a_random_matrix_is_tril_of_its_fill(tmp_path):
    # lower-trig-matmul: torch.tril(torch.rand(n, n) * 2 - 1) is tril(uniform(-1,1), n).
    text = FROBENIUS.replace("torch.randn(*shape, device=\"cuda\")", "torch.tril(torch.rand(shape[0], shape[0]) * 2 - 1)")
    text = text.replace("[(4, 1024, 1024), (8, 32, 256, 256)]", "[(64,), (128,)]").replace("total *= extent", "total *= extent * extent")
    text = text.replace('"name": "size"', '"name": "n"').replace("return [total]", "return [test_case[\"shape\"][0]]")
    code, facts = read(written(tmp_path, text))
    assert code == 0, facts
    assert facts["buffers"]["X"]["shape"] == ["n", "n"] and facts["buffers"]["X"]["init"] == "tril(uniform(-1,1), n)"
    code, message = read(written(tmp_path, text.replace("torch.tril(", "torch.triu(torch.ones(2, 2) + ")))
    assert code != 0 and "not of a square random matrix" in message


SUITES = os.path.join(FIXTURES, "suites", "tensara")


def test_two_values_a_softmax_and_an_identity_added_are_fills_of_their_own():
    # hinge-loss: torch.randint(0, 2, (n,)) * 2 - 1 draws {-1, 1}: choice(-1,1).
    code, facts = read(os.path.join(SUITES, "hinge-loss", "def.py"))
    assert code == 0, facts
    assert facts["buffers"]["targets"]["init"] == "choice(-1,1)"
    # kl-loss: torch.rand(n).softmax(dim=0) is softmax(uniform(0,1), n); its sparse targets (ten
    # scattered at n // 10 random indices of zeros) are each 10 with the chance one draw hits them.
    code, facts = read(os.path.join(SUITES, "kl-loss", "def.py"))
    assert code == 0, facts
    assert facts["buffers"]["predictions"]["init"] == "softmax(uniform(0,1), n)"
    sparse = facts["cases"][-1]
    assert sparse["name"] == "Sparse_targets"
    p = 1 - (1 - 1 / 1048576) ** (1048576 // 10)
    assert sparse["init"] == {"targets": "softmax(choice(0,10,%r), n)" % p}
    # matrix-power: torch.randn(size, size) * 0.01 + torch.eye(size) * 0.1 is plus_eye(normal(0,0.01), size, 0.1).
    code, facts = read(os.path.join(SUITES, "matrix-power", "def.py"))
    assert code == 0, facts
    assert facts["buffers"]["input_matrix"]["init"] == "plus_eye(normal(0,0.01), size, 0.1)"
    assert facts["buffers"]["input_matrix"]["shape"] == ["size", "size"]


def test_what_no_fill_draws_is_still_refused_with_its_line(tmp_path):
    # symmetric-matmul's x @ x.T / 2 stays refused, naming its line.
    code, message = read(os.path.join(SUITES, "symmetric-matmul", "def.py"))
    assert code != 0 and "def.py:57: an input built by torch.matmul" in message and "by hand" in message
    # randint(0, 3) * 2 draws three values; a softmax along another axis; an identity alone.
    text = FROBENIUS.replace("torch.randn(*shape, device=\"cuda\")", "torch.randint(0, 3, shape) * 2")
    code, message = read(written(tmp_path, text))
    assert code != 0 and "values no fill of kopt's draws" in message
    text = FROBENIUS.replace("torch.randn(*shape, device=\"cuda\")", "torch.rand(*shape).softmax(dim=0)")
    code, message = read(written(tmp_path, text))
    assert code != 0 and "not of random data along its last axis" in message
    text = FROBENIUS.replace("torch.randn(*shape, device=\"cuda\")", "torch.eye(shape[0])")
    code, message = read(written(tmp_path, text))
    assert code != 0 and "is an identity" in message
