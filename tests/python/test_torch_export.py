"""Tests of an exported op's torch-free rules (python/kopt_expression.py, kopt_torch_rules.py,
kopt_torch_export.py's ctypes types): the same grammar as kopt's expressions, the schema, the
dims inferred or taken, and one clear exception for each bad argument. Torch is not needed:
tensors are stand-ins with .dtype, .device, .shape and .is_contiguous()."""

import ctypes
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "python"))

import kopt_expression as expression  # noqa: E402
import kopt_torch_export as runtime  # noqa: E402
import kopt_torch_rules as rules  # noqa: E402


class Device:
    def __init__(self, text):
        self.type = text.split(":")[0]
        self.text = text

    def __str__(self):
        return self.text


class FakeTensor:
    def __init__(self, shape, dtype="torch.float32", device="cuda:0", contiguous=True):
        self.shape, self.dtype, self.device, self.contiguous = tuple(shape), dtype, Device(device), contiguous

    def is_contiguous(self):
        return self.contiguous


def param(name, role, shape=None, dtype="float32", c_type=None, **extra):
    entry = {"name": name, "role": role, "dtype": dtype, "torch_dtype": dtype, "c_type": c_type or f"{dtype} {name}"}
    if role == "scalar":
        entry["dim"] = name
    else:
        entry["shape"] = shape
    entry.update(extra)
    return entry


def dim(name, source=None, fixed=None, type_="int", parameter=True):
    return {"name": name, "type": type_, "parameter": parameter, "from": source, "fixed": fixed}


VECTOR_ADD = {
    "schema": rules.SCHEMA, "op": "vector_add", "qualified_name": "kopt::vector_add", "kind": "cuda",
    "entry": "solve", "library": "libvector_add.so",
    "parameters": [param("A", "input", ["N"], c_type="const float * A"), param("B", "input", ["N"]),
                   param("C", "output", ["N"]), param("N", "scalar", dtype="int32", c_type="int N")],
    "dims": [dim("N", {"buffer": "A", "axis": 0})],
}

# x [M, K] in; w flat K*D; y [M, D] out; acc in-out; K a keyword; D fixed at 8; alpha a float.
MIXED = {
    "schema": rules.SCHEMA, "op": "mixed", "kind": "cuda", "entry": "solve", "library": "libmixed.so",
    "parameters": [param("x", "input", ["M", "K"]), param("w", "input", ["K*D"]), param("y", "output", ["M", "D"]),
                   param("acc", "in-out", ["M"]), param("M", "scalar", dtype="int32"),
                   param("K", "scalar", dtype="int64"), param("alpha", "scalar", dtype="float32")],
    "dims": [dim("M", {"buffer": "x", "axis": 0}), dim("K", None), dim("D", None, fixed=8, parameter=False),
             dim("alpha", None, type_="float")],
}


@pytest.mark.parametrize("text, dims, value", [
    ("N", {"N": 3}, 3), ("7/2", {}, 3), ("-7/2", {}, -3), ("-7%2", {}, -1), ("cdiv(N,4)", {"N": 9}, 3),
    ("cdiv(-7,2)", {}, -3), ("floor(N*0.75)*K", {"N": 5, "K": 2}, 6), ("floor(7/2)", {}, 3), ("ceil(2.5)", {}, 3),
    ("min(M, N) + max(M, N)", {"M": 2, "N": 3}, 5), ("M > 2 && N", {"M": 3, "N": 0}, 0), ("!0 || 1/0", {}, 1),
    ("2*(M+1)", {"M": 4}, 10), ("1e6", {}, 1e6), ("N/2.0", {"N": 3}, 1.5), ("-(-5)", {}, 5), ("+4", {}, 4),
])
def test_expressions_evaluate_as_kopt_does(text, dims, value):
    assert expression.Expression(text).evaluate(dims) == value


@pytest.mark.parametrize("text, message", [
    ("N*", 'cannot parse expression "N*": expected a number, a name or "(" but the text ends at column 3'),
    ("foo(1)", 'unknown function "foo" (known: cdiv, ceil, floor, max, min) at column 1'),
    ("min(1)", "min() takes 2 arguments, not 1"),
    ("9223372036854775807*2", "integer overflow in 9223372036854775807 * 2"),
    ("Q", 'unknown dim "Q" (known: N)'),
    ("N/0", "division by zero in 1 / 0"),
    ("(N", 'expected ")" but the text ends'),
    ("99999999999999999999", "does not fit in 64 bits"),
])
def test_bad_expressions_say_why_in_one_line(text, message):
    with pytest.raises(expression.ExpressionError) as raised:
        expression.Expression(text).evaluate({"N": 1})
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_a_size_is_an_integer_and_a_whole_float_counts():
    assert expression.Expression("N*0.5").evaluate_integer({"N": 4}) == 2
    with pytest.raises(expression.ExpressionError, match="gives 1.5, not an integer"):
        expression.Expression("N*0.5").evaluate_integer({"N": 3})
    assert expression.Expression("K*D + M").names() == ["D", "K", "M"]


class SymbolicInt:
    """Stands for torch's SymInt: not an int, with the operators a size uses."""

    def __init__(self, value):
        self.value = value

    def __mul__(self, other):
        return SymbolicInt(self.value * (other.value if isinstance(other, SymbolicInt) else other))

    __rmul__ = __mul__

    def __floordiv__(self, other):
        return SymbolicInt(self.value // (other.value if isinstance(other, SymbolicInt) else other))


def test_symbolic_sizes_go_through_pythons_operators():
    result = expression.Expression("2*N/4").evaluate({"N": SymbolicInt(10)})
    assert isinstance(result, SymbolicInt) and result.value == 5


def test_the_schema_takes_inputs_by_position_and_marks_what_is_written():
    vector_add, mixed = rules.OpRules(VECTOR_ADD), rules.OpRules(MIXED)
    assert vector_add.schema() == "(Tensor A, Tensor B) -> Tensor"
    assert vector_add.schema(out=True) == "(Tensor A, Tensor B, Tensor(a!) C) -> ()"
    assert vector_add.mutated() == [] and vector_add.mutated(out=True) == ["C"]
    assert mixed.schema() == "(Tensor x, Tensor w, Tensor(a!) acc, *, int K, float alpha) -> Tensor"
    # torch.library.custom_op refuses keyword-only tensors: the out= op takes every buffer by
    # position, in solve's order.
    assert mixed.schema(out=True) == "(Tensor x, Tensor w, Tensor(a!) y, Tensor(b!) acc, *, int K, float alpha) -> ()"
    assert mixed.mutated(out=True) == ["y", "acc"]
    for op in (vector_add, mixed):
        for out in (False, True):
            assert "Tensor" not in op.schema(out).split("->")[0].partition("*")[2]


def test_dims_come_from_the_inputs_axes_and_shapes_are_checked():
    op = rules.OpRules(VECTOR_ADD)
    values = op.bind((FakeTensor([5]), FakeTensor([5])), {})
    dims, device = op.check_call(values)
    assert dims == {"N": 5} and str(device) == "cuda:0"
    assert op.call_arguments({**values, "C": "c"}, dims)[2:] == ["c", 5]
    with pytest.raises(ValueError, match=r"kopt::vector_add: B has shape \(4,\), expected \(5,\) = \[N\] with "
                                         r"N=5 \(from A's axis 0\)"):
        op.check_call(op.bind((FakeTensor([5]), FakeTensor([4])), {}))
    with pytest.raises(ValueError, match=r"A has 2 dimension\(s\) \(5, 1\), expected 1: \[N\]"):
        op.check_call(op.bind((FakeTensor([5, 1]), FakeTensor([5])), {}))


@pytest.mark.parametrize("a, error, message", [
    (FakeTensor([5], dtype="torch.float16"), TypeError,
     r"kopt::vector_add: A is torch.float16, expected torch.float32 \(const float \* A in solve\)"),
    (FakeTensor([5], device="cpu"), rules.DeviceError, r"A is on cpu, expected a CUDA device \(move it with A.cuda\(\)\)"),
    (FakeTensor([5], device="cuda:1"), rules.DeviceError, "B is on cuda:0 but A is on cuda:1"),
    (FakeTensor([5], contiguous=False), ValueError, r"A is not contiguous .*A.contiguous\(\)"),
    ([1.0] * 5, TypeError, "A must be a torch.Tensor, not list"),
    (FakeTensor([0]), ValueError, "extent N is 0 with N=0; a size must be > 0"),
])
def test_each_bad_tensor_is_one_exception_naming_it(a, error, message):
    op = rules.OpRules(VECTOR_ADD)
    with pytest.raises(error, match=message) as raised:
        op.check_call(op.bind((a, FakeTensor([5])), {}))
    assert "\n" not in str(raised.value)


def test_a_device_error_is_a_value_error():
    assert issubclass(rules.DeviceError, ValueError) and runtime.DeviceError is rules.DeviceError


def test_keyword_dims_fixed_dims_and_scalar_ranges():
    op = rules.OpRules(MIXED)
    x, w, acc = FakeTensor([3, 4]), FakeTensor([32]), FakeTensor([3])
    dims, _ = op.check_call(op.bind((x, w, acc), {"K": 4, "alpha": 0.5}))
    assert dims == {"M": 3, "K": 4, "D": 8, "alpha": 0.5}
    assert op.expected_shape("y", dims) == (3, 8)
    with pytest.raises(TypeError, match="is missing K"):
        op.bind((x, w, acc), {"alpha": 0.5})
    with pytest.raises(TypeError, match="K must be an int, not 4.0"):
        op.check_call(op.bind((x, w, acc), {"K": 4.0, "alpha": 0.5}))
    with pytest.raises(ValueError, match=r"x has shape \(3, 4\), expected \(3, 5\) = \[M, K\] with M=3 "
                                         r"\(from x's axis 0\), K=5 \(given\), D=8 \(fixed\), alpha=0.5"):
        op.check_call(op.bind((x, w, acc), {"K": 5, "alpha": 0.5}))
    with pytest.raises(TypeError, match="unexpected or repeated argument 'D'"):
        op.bind((x, w, acc), {"K": 4, "alpha": 0.5, "D": 8})
    big = rules.OpRules({**MIXED, "parameters": [p if p["name"] != "M" else {**p, "dtype": "int8", "c_type": "int8_t M"}
                                                 for p in MIXED["parameters"]]})
    with pytest.raises(ValueError, match=r"M=300 does not fit solve's int8_t M \(-128 to 127\)"):
        big.check_call(big.bind((FakeTensor([300, 4]), w, FakeTensor([300])), {"K": 4, "alpha": 0.5}))


def test_a_fixed_dim_read_from_an_input_must_be_the_built_value():
    manifest = {**MIXED, "dims": [dim("M", {"buffer": "x", "axis": 0}, fixed=3, parameter=False)] + MIXED["dims"][1:]}
    op = rules.OpRules(manifest)
    with pytest.raises(ValueError, match=r"M is 4 \(from x's axis 0\), but the kernel was built for M=3 only"):
        op.check_call(op.bind((FakeTensor([4, 4]), FakeTensor([32]), FakeTensor([4])), {"K": 4, "alpha": 0.5}))


def test_out_tensors_and_results():
    op = rules.OpRules(VECTOR_ADD)
    assert op.out_tensors("c") == {"C": "c"} and op.out_tensors(("c",)) == {"C": "c"}
    assert op.out_tensors({"C": "c"}) == {"C": "c"}
    with pytest.raises(TypeError, match=r"out= names \['D'\], its outputs are \['C'\]"):
        op.out_tensors({"D": "c"})
    assert op.out_arguments(("a", "b"), "c") == ["a", "b", "c"]
    with pytest.raises(TypeError, match=r"takes 2 tensors \(A, B\), 1 were given"):
        op.out_arguments(("a",), "c")
    mixed = rules.OpRules(MIXED)
    assert mixed.out_arguments(("x", "w", "acc"), {"y": "y"}) == ["x", "w", "y", "acc"]
    values = op.bind((FakeTensor([5]), FakeTensor([5]), FakeTensor([5])), {}, out=True)
    assert op.check_call(values, out=True)[0] == {"N": 5}
    with pytest.raises(ValueError, match=r"C has shape \(6,\), expected \(5,\)"):
        op.check_call(op.bind((FakeTensor([5]), FakeTensor([5]), FakeTensor([6])), {}, out=True), out=True)
    assert op.result({"C": "c"}) == "c"


def test_ctypes_types_follow_solves_parameters():
    assert runtime.argument_types(rules.OpRules(MIXED)) == [ctypes.c_void_p] * 4 + [ctypes.c_int32, ctypes.c_int64,
                                                                                     ctypes.c_float]
    half = {**VECTOR_ADD, "parameters": VECTOR_ADD["parameters"][:3] + [param("N", "scalar", dtype="float16")]}
    with pytest.raises(rules.ManifestError, match="scalar N is float16"):
        runtime.argument_types(rules.OpRules(half))


def test_the_manifest_is_read_and_its_version_checked(tmp_path):
    (tmp_path / "manifest.json").write_text('{"schema": "kopt.torch_export/9"}')
    with pytest.raises(rules.ManifestError, match="this runtime reads 'kopt.torch_export/1'"):
        rules.read_manifest(str(tmp_path))
    with pytest.raises(rules.ManifestError, match="cannot be read"):
        rules.read_manifest(str(tmp_path / "missing"))
    with pytest.raises(rules.ManifestError, match="unknown role 'sideways'"):
        rules.OpRules({**VECTOR_ADD, "parameters": [param("A", "sideways", ["N"])]})


def test_importing_the_runtime_alone_registers_nothing():
    assert not hasattr(runtime, "op") and not hasattr(runtime, "manifest")
