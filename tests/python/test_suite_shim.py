"""Tests of python/kopt_suite_shim.py (a suite's generators under a stand-in torch) and of what
kopt import makes of the tests it records, on unmodified suite problems kept as fixtures
(tests/fixtures/import/suites, README there). No torch and no GPU: CI has neither."""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = os.path.join(HERE, os.pardir, os.pardir, "python")
SUITES = os.path.join(HERE, os.pardir, "fixtures", "import", "suites")
sys.path.insert(0, PYTHON)

import kopt_suite_shim  # noqa: E402


def leetgpu(name):
    return os.path.join(SUITES, "leetgpu", name, "challenge.py")


def facts(name):
    done = subprocess.run([sys.executable, os.path.join(PYTHON, "kopt_python_facts.py"), "leetgpu", leetgpu(name)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_torch_is_not_needed():
    assert "torch" not in sys.modules or not hasattr(sys.modules["torch"], "__version__")
    kopt_suite_shim.leetgpu(leetgpu("1_vector_add"))
    assert "torch" not in sys.modules  # the stand-in is put back out of the way


def test_every_functional_test_is_recorded_with_its_data():
    record = kopt_suite_shim.leetgpu(leetgpu("1_vector_add"))
    tests = record["functional"]
    assert len(tests) == 13 and [t["index"] for t in tests] == list(range(1, 14))
    assert record["performance"]["scalars"] == {"N": 25000000}
    assert record["performance"]["tensors"]["A"]["fill"] == ["uniform", -1000.0, 1000.0]
    assert tests[0]["tensors"]["B"] == {"shape": [1], "dtype": "float32", "fill": ["const", 2.0]}
    assert tests[1]["tensors"]["A"]["fill"] == ["values", [1.0, 2.0]]
    assert tests[4]["tensors"]["A"]["fill"] == ["const", 0.0]  # [0.0] * 16: an edge case, kept as one
    assert tests[10]["tensors"]["B"]["fill"] == ["uniform", 0.0, 64.0]  # uniform_(*b_range)


def test_dtypes_are_the_tensors_not_the_ctypes():
    record = kopt_suite_shim.leetgpu(leetgpu("22_gemm"))
    assert {t["dtype"] for t in record["performance"]["tensors"].values()} == {"float16"}
    record = kopt_suite_shim.leetgpu(leetgpu("13_histogramming"))
    assert record["functional"][1]["tensors"]["input"]["fill"] == ["const", 2]  # the all-2s case


def test_affine_fills_follow_arithmetic():
    assert kopt_suite_shim.affine(["uniform", 0.0, 1.0], "*", 2.0, False) == ["uniform", 0.0, 2.0]
    assert kopt_suite_shim.affine(["uniform", 0.0, 2.0], "-", 1.0, False) == ["uniform", -1.0, 1.0]
    assert kopt_suite_shim.affine(["uniform", 0.0, 1.0], "-", 1.0, True) == ["uniform", 0.0, 1.0]  # 1 - x
    assert kopt_suite_shim.affine(["normal", 0.0, 1.0], "*", -3.0, False) == ["normal", -0.0, 3.0]
    assert kopt_suite_shim.affine(["values", [1, 2]], "+", 1, False) == ["values", [2, 3]]
    assert kopt_suite_shim.affine(["int", 0, 4], "*", 2, False)[0] == "computed"


def test_tensara_cases_are_recorded_by_name():
    record = kopt_suite_shim.tensara(os.path.join(SUITES, "tensara", "leaky-relu", "def.py"))
    assert len(record["functional"]) == 8
    first = record["functional"][0]
    assert first["name"] == "4096x4096, alpha=0.01"
    assert first["tensors"]["input"]["fill"] == ["uniform", -1.0, 1.0]


def test_a_generator_that_reads_random_values_is_refused_in_one_line(tmp_path):
    path = tmp_path / "challenge.py"
    path.write_text("import torch\nfrom core.challenge_base import ChallengeBase\n"
                    "class Challenge(ChallengeBase):\n"
                    "    def generate_functional_test(self):\n"
                    "        n = int(torch.randint(1, 9, (1,)).item())\n"
                    "        return [{'x': torch.empty(n), 'N': n}]\n"
                    "    def generate_performance_test(self):\n"
                    "        return {'x': torch.empty(4), 'N': 4}\n")
    try:
        kopt_suite_shim.leetgpu(str(path))
        raise AssertionError("no failure")
    except kopt_suite_shim.ShimFailure as e:
        assert "a random value was read (.item()) and used otherwise than as the step of a random walk" in str(e)


def test_import_keeps_each_test_or_names_it():
    found = facts("1_vector_add")  # its literal tests are kept, as values(...)
    assert not [n for n in found["notes"] if n.startswith("test ")]
    names = [c["name"] for c in found["cases"]]
    assert names[:3] == ["test 1: N=1 A=ones B=full(2.0)", "test 2: N=2 A=2 literal values B=2 literal values",
                         "test 3: N=3 A=3 literal values B=3 literal values"]
    assert found["cases"][1]["init"] == {"A": "values(1.0,2.0)", "B": "values(3.0,4.0)"}
    assert found["buffers"]["A"]["dtype"] == "float32"
    pooling = facts("42_2d_max_pooling")  # every test kept: ±inf and channels written by code, as values
    assert not [n for n in pooling["notes"] if "left out" in n]
    extreme = next(c for c in pooling["cases"] if c["name"].startswith("test 9:"))
    assert extreme["init"]["input"].startswith("values(1000000.0,-1000000.0,0.0,1e-06,-1e-06,inf,-inf,1.0,")
    channels = next(c for c in pooling["cases"] if c["name"].startswith("test 8:"))
    listed = [float(v) for v in channels["init"]["input"][len("values("):-1].split(",")]
    assert listed[:36] == list(range(36))  # arange(36).reshape(6, 6), then .flip(0), then .flip(1)
    assert listed[36:42] == [30, 31, 32, 33, 34, 35] and listed[72:78] == [5, 4, 3, 2, 1, 0]


def test_import_is_exact_for_counts_and_poisons_what_the_tests_leave_uninitialised():
    histogram = facts("13_histogramming")
    assert histogram["buffers"]["histogram"]["exact"] is True
    assert histogram["buffers"]["histogram"]["init"] == "zeros"  # every test zeroes it
    assert any(c.get("init") == {"input": "full(2)"} for c in histogram["cases"])
    pooling = facts("42_2d_max_pooling")
    assert "init" not in pooling["buffers"]["output"]  # torch.empty in the tests
    agents = facts("14_multi_agent_sim")
    assert agents["buffers"]["agents"]["shape"] == ["N * 4"]  # the performance test wrote 40000
    gemm = facts("22_gemm")
    assert {b["dtype"] for b in gemm["buffers"].values()} == {"float16"}


def test_an_identity_and_its_tiling_are_their_values_and_a_shape_array_is_recorded():
    torch = kopt_suite_shim.make_torch()
    assert torch.eye(2).fill == ["values", [1.0, 0.0, 0.0, 1.0]]
    tiled = torch.eye(2).repeat(2, 1)
    assert list(tiled.shape) == [4, 2] and tiled.fill == ["values", [1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0]]
    assert torch.eye(2).repeat(2, 2, 2).fill[0] == "computed"
    # Tensara's shape array, made by get_extra_params after the output, is a tensor of the test.
    tests = kopt_suite_shim.tensara(os.path.join(SUITES, "tensara", "argmax", "def.py"))["functional"]
    assert tests[0]["tensors"]["shape"]["fill"] == ["values", [16, 128, 256]]
    assert tests[3]["tensors"]["shape"]["fill"] == ["values", [64, 128, 128, 128]]


def test_a_random_fill_sorted_ascending_is_recorded_as_sorted():
    torch = kopt_suite_shim.make_torch()
    drawn = torch.empty(8).uniform_(-1.0, 1.0)
    assert torch.sort(drawn)[0].fill == ["sorted", "uniform", -1.0, 1.0]
    assert torch.sort(drawn).values.fill == ["sorted", "uniform", -1.0, 1.0]
    assert torch.sort(drawn, descending=True)[0].fill[0] == "computed"  # kopt sorts ascending only


def test_a_triangle_of_a_random_matrix_is_recorded_with_its_row_length():
    torch = kopt_suite_shim.make_torch()
    drawn = torch.rand(4, 4) * 2 - 1
    assert torch.tril(drawn).fill == ["tril", 4, "uniform", -1.0, 1.0]
    assert torch.triu(drawn).fill == ["triu", 4, "uniform", -1.0, 1.0]
    assert torch.tril(drawn, diagonal=1).fill[0] == "computed"


def test_two_values_a_softmax_a_scatter_and_an_identity_added_are_recorded():
    torch = kopt_suite_shim.make_torch()
    assert (torch.randint(0, 2, (8,)) * 2 - 1).fill == ["choice", -1, 1, 0.5]
    assert (torch.randint(0, 3, (8,)) * 2).fill[0] == "computed"
    assert torch.rand(16).softmax(dim=0).fill == ["softmax", 16, "uniform", 0.0, 1.0]
    assert torch.softmax(torch.rand(2, 16), dim=-1).fill == ["softmax", 16, "uniform", 0.0, 1.0]
    assert torch.rand(2, 16).softmax(dim=0).fill[0] == "computed"
    sparse = torch.zeros(100).scatter_(0, torch.randint(0, 100, (10,)), torch.ones(10) * 10)
    assert sparse.fill == ["choice", 0, 10, 1 - (1 - 1 / 100) ** 10]
    assert torch.zeros(100).scatter_(0, torch.randint(0, 50, (10,)), 1.0).fill[0] == "computed"
    for n in (4, 512):  # an identity listed, and one too large to list
        shifted = torch.randn(n, n) * 0.01 + torch.eye(n) * 0.1
        assert shifted.fill[:3] == ["plus_eye", n, 0.1] and shifted.fill[3] == "normal"
    assert (torch.randn(4, 4) + torch.ones(4, 4)).fill[0] == "computed"


def test_elements_written_over_a_fill_are_recorded_in_order():
    torch = kopt_suite_shim.make_torch()
    grid = torch.randint(0, 2, (100,), dtype=torch.int32)
    grid[0] = 0
    grid[-1] = 0
    for i in range(0, 100, 10):  # the first 3 columns of each row of 10 cleared
        grid[i:i + 3] = 0
    assert grid.record()["fill"] == ["set", 0, [0, -1, ["slice", 0, None, 10, 3]], "int", 0, 2]
    flags = torch.zeros(1000, dtype=torch.int32)
    flags[0] = 1
    flags[torch.arange(256, 1000, 256)] = 1  # a range too short to list stays values; this one lists
    assert flags.record()["fill"][0] == "values" and flags.record()["fill"][1][512] == 1
    wide = torch.zeros(10 ** 7, dtype=torch.int32)
    wide[torch.arange(256, 10 ** 7, 256)] = 1
    assert wide.record()["fill"] == ["set", 1, [["slice", 256, None, 256, 1]], "const", 0]
    small = torch.zeros(5)
    small[2] = 7.0
    assert small.record()["fill"] == ["values", [0, 0, 7.0, 0, 0]]  # a literal stays literal
    assert torch.empty(5).__setitem__(0, 1) is None  # an uninitialised buffer written is built by code


def test_a_random_walk_of_writes_is_recorded_and_other_reads_refused():
    def walk(n, average):
        torch = kopt_suite_shim.make_torch()
        flags = torch.zeros(n, dtype=torch.int32)
        flags[0] = 1
        i = average
        while i < n:
            flags[i] = 1
            i += max(1, int(torch.randint(1, 2 * average + 1, (1,)).item()))
        return flags.record()["fill"]
    kopt_suite_shim.DRAWS.reset()
    assert walk(64, 8) == ["set", 1, [0, ["walk", 8, 1, 17]], "const", 0]
    kopt_suite_shim.DRAWS.check_explained()
    torch = kopt_suite_shim.make_torch()
    kopt_suite_shim.DRAWS.reset()
    digit = torch.randint(0, 10, (1,)).item()  # a random number used as data: no fill says it
    assert 0 <= digit < 10
    try:
        kopt_suite_shim.DRAWS.check_explained()
        assert False, "an unexplained draw passed"
    except kopt_suite_shim.ShimFailure as e:
        assert "step of a random walk" in str(e)


def test_half_copied_rows_and_concatenated_weights_are_recorded():
    torch = kopt_suite_shim.make_torch()
    table = torch.randn(4, 8)
    table[:, 4:] = table[:, :4]
    assert table.fill == ["halves", 8, "normal", 0.0, 1.0]
    other = torch.randn(4, 8)
    other[:, 4:] = table[:, :4]  # another tensor's half: data built by code
    assert other.fill[0] == "computed"
    weights = torch.cat([torch.empty(4).uniform_(0.8, 1.2), torch.zeros(3), torch.zeros(2),
                         torch.empty(2, 5).normal_(0, 0.02).flatten()])
    assert weights.shape == (19,)
    assert weights.fill == ["cat", [[4, ["uniform", 0.8, 1.2]], [5, ["const", 0]], [10, ["normal", 0.0, 0.02]]]]
    assert torch.cat([torch.randn(2, 2), torch.randn(2, 2)]).fill[0] == "computed"


def test_written_fills_import_as_set_and_are_audited_as_kept():
    bfs = facts("46_bfs_shortest_path")
    assert bfs["buffers"]["grid"]["init"] == "set(int[0,2),0,0,-1,0::500:10)"
    assert any("as the generator ran" in note for note in bfs["notes"])
    scan = facts("70_segmented_prefix_sum")
    assert scan["buffers"]["flags"]["init"] == "set(zeros,1,0,256::256)"
    walks = [c["init"]["flags"] for c in scan["cases"] if "walk(" in c.get("init", {}).get("flags", "")]
    assert walks[0] == "set(zeros,1,0,walk(8,1,17))" and len(walks) == 7


def test_literal_data_computed_by_the_test_is_recorded_as_its_values():
    torch = kopt_suite_shim.make_torch()
    columns = torch.empty((4, 2))  # written column by column: known once every element is
    for i in range(2):
        columns[:, i] = torch.linspace(-10 + i, 10 - i, 4)
    step = 20 / 3  # the first half stepped up from the start, the second down from the end, as torch does
    assert columns.record()["fill"] == ["values", [-10, -9, -10 + step, -3, 10 - step, 3, 10, 9]]
    half = torch.empty(4)
    half[:2] = 1.0  # the rest never written: built by code
    assert half.record()["fill"][0] == "computed"
    rows = torch.zeros((3, 2), dtype=torch.int32)
    for b in range(3):
        rows[b] = torch.tensor([b] * 2, dtype=torch.int32)  # x[b] of a matrix is a row
    assert rows.record()["fill"] == ["values", [0, 0, 1, 1, 2, 2]]
    assert (torch.arange(6) % 4).fill == ["values", [0, 1, 2, 3, 0, 1]]
    n = torch.arange(4, dtype=torch.float32)
    wave = torch.stack((torch.cos(n * 0.0), torch.sin(n * 0.0)), dim=1)  # real and imaginary interleaved
    assert list(wave.shape) == [4, 2] and wave.fill == ["values", [1.0, 0.0] * 4]
    assert list(torch.stack((torch.randn(3), torch.randn(3))).shape) == [2, 3]  # a random stack: its size still
    assert torch.linspace(-5, 5, 200).shape == (200,)  # steps, not -5 * 5 * 200 elements
    extreme = torch.tensor([float("inf"), float("-inf"), 1.0])
    assert extreme.record()["fill"] == ["values", [float("inf"), float("-inf"), 1.0]]


def test_a_drawn_fill_moved_in_place_or_negated_stays_a_fill():
    torch = kopt_suite_shim.make_torch()
    assert torch.randn(4, 4).sub_(0.5).fill == ["normal", -0.5, 1.0]
    assert torch.rand(4).mul_(2).add_(-1).fill == ["uniform", -1.0, 1.0]
    negated = torch.randn(4).neg()
    assert negated.fill == ["normal", 0.0, 1.0] and str(negated.fill[1]) == "0.0"  # never -0.0
    assert torch.randn(4).__mod__(2).fill[0] == "computed"


def test_non_finite_values_import_on_floating_buffers_only():
    import kopt_python_facts
    assert kopt_python_facts.fill_text(["values", [1.0, float("inf"), float("-inf"), float("nan")]], "float32") == \
        "values(1.0,inf,-inf,nan)"
    assert kopt_python_facts.fill_text(["values", [1, float("inf")]], "int32") is None
