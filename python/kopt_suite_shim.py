#!/usr/bin/env python3
"""A suite's own test generators, run under a stand-in torch that records how each tensor is built.

    python3 kopt_suite_shim.py leetgpu CHALLENGE.py
    python3 kopt_suite_shim.py tensara DEF.py

kopt import reads a definition's sizes with Python's ast module (kopt_python_facts.py,
kopt_tensara_facts.py); which tests the suite runs, and with which data, is easier to learn by
running its generators, loops, helpers and comprehensions included. torch is not needed (CI
has none, and a CUDA wheel is too big to install for this): a module named `torch` is put in
its place whose constructors return a Recorded tensor, its shape, dtype and fill, and nothing
else. No GPU is touched and no buffer is allocated beyond the literals the file writes.

A fill is one of (JSON lists):
  ["empty"]                      torch.empty / OutTensor: left uninitialised
  ["const", v]                   one value everywhere (zeros, ones, full, [0.0] * 16)
  ["uniform", lo, hi]            torch.rand / uniform_ (moved and stretched by + - * /)
  ["normal", mean, std]          torch.randn / normal_
  ["int", lo, hi]                torch.randint: integers in [lo, hi)
  ["values", [v, ...]]           literal values written out (torch.tensor([...]), arange, linspace,
                                 and what a test computes from them: flip, stack, cos, elements written)
  ["computed", what]             built by code no fill of kopt's says (sorted, masked, matmul)

Prints {"performance": TEST, "functional": [TEST, ...]} where a TEST is
{"index": i, "scalars": {name: number}, "tensors": {name: {"shape": [...], "dtype": ...,
"fill": FILL}}, "name": ... (Tensara's)}; exit 2 with `SUITE_SHIM: message` on stderr where the
generators do not run under the stand-in (the message names the exception and the line).
"""

import json
import math
import os
import sys
import traceback
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kopt_shim_values  # noqa: E402  literal data a test computes, element by element

EXIT_OK = 0
EXIT_FAILED = 2
# torch.tensor / arange literals larger than this are kept as ["computed", ...]: a data file,
# not a fill, would hold them, and none of the suites' edge cases is that large.
MAX_VALUES = 4096


class ShimFailure(Exception):
    """The generators raised under the stand-in torch."""


# ---------------------------------------------------------------- sizes

SIZE_FUNCTIONS = {"cdiv": lambda a, b: -(-a // b), "ceil": math.ceil, "floor": math.floor, "max": max, "min": min}


def size_of(shape, dims):
    """The element count of a spec's shape (kopt size expressions: M*K, (H + 2*pad - k)/stride + 1,
    cdiv(n, 32)) at a case's dims; a shape is one expression or a list of them."""
    shape = shape if isinstance(shape, list) else [shape]
    return math.prod(evaluate(str(extent), dims) for extent in shape)


def evaluate(expression, dims):
    import ast

    def value(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.Name):
            return dims[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in SIZE_FUNCTIONS:
            return SIZE_FUNCTIONS[node.func.id](*[value(a) for a in node.args])
        if isinstance(node, ast.BinOp) and type(node.op) in (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Mod, ast.FloorDiv):
            a, b = value(node.left), value(node.right)
            if isinstance(node.op, (ast.Div, ast.FloorDiv)):
                return a // b if isinstance(a, int) and isinstance(b, int) else a / b
            return {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                    ast.Mod: lambda: a % b}[type(node.op)]()
        raise ValueError("cannot evaluate %s" % expression)
    return value(ast.parse(expression, mode="eval").body)


# ---------------------------------------------------------------- dtypes

class DType:
    def __init__(self, name, floating, bits):
        self.name, self.is_floating_point, self.itemsize = name, floating, bits // 8

    def __repr__(self):
        return "torch." + self.name


DTYPES = {name: DType(name, floating, bits) for name, floating, bits in [
    ("float64", True, 64), ("float32", True, 32), ("float16", True, 16), ("bfloat16", True, 16),
    ("float8_e4m3fn", True, 8), ("float8_e5m2", True, 8), ("int64", False, 64), ("int32", False, 32),
    ("int16", False, 16), ("int8", False, 8), ("uint8", False, 8), ("uint16", False, 16),
    ("uint32", False, 32), ("uint64", False, 64), ("bool", False, 8), ("complex64", True, 64)]}
ALIASES = {"float": "float32", "double": "float64", "half": "float16", "long": "int64", "int": "int32",
           "short": "int16", "cfloat": "complex64"}


def dtype_of(value, default="float32"):
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        return DTYPES[ALIASES.get(value, value)]
    return DTYPES[default]


class Info:
    """torch.finfo / torch.iinfo of one dtype."""

    LIMITS = {"float32": (3.4028234663852886e38, 1.1920928955078125e-07, 1.1754943508222875e-38),
              "float16": (65504.0, 0.0009765625, 6.103515625e-05),
              "bfloat16": (3.3895313892515355e38, 0.0078125, 1.1754943508222875e-38),
              "float64": (sys.float_info.max, sys.float_info.epsilon, sys.float_info.min)}

    def __init__(self, dtype):
        name = dtype_of(dtype).name
        if name in Info.LIMITS:
            self.max, self.eps, self.tiny = Info.LIMITS[name]
            self.min = -self.max
        else:
            bits = dtype_of(dtype).itemsize * 8
            signed = not name.startswith("uint") and name != "bool"
            self.min = -(1 << (bits - 1)) if signed else 0
            self.max = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
        self.bits = dtype_of(dtype).itemsize * 8


# ---------------------------------------------------------------- the recorded tensor

def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def flat_shape(args, keywords):
    """torch.empty(M, K), torch.empty((M, K)), torch.empty(size=(M, K)) alike."""
    if "size" in keywords:
        args = (keywords["size"],)
    if len(args) == 1 and isinstance(args[0], (tuple, list, Size)):
        args = tuple(args[0])
    return tuple(int(a) for a in args)


class Size(tuple):
    def numel(self):
        return math.prod(self)


class Recorded:
    """A tensor as the test builds it: shape, dtype and fill, no data (beyond a literal's)."""

    def __init__(self, shape, dtype, fill):
        self.shape = Size(int(s) for s in shape)
        self.dtype = dtype_of(dtype)
        self.fill = fill
        self.device = "cuda"
        self.view_of = None  # the tensor whose elements this one shares (a view): written through, it changes

    # -- what a generator asks of a tensor
    def numel(self):
        return math.prod(self.shape)

    def size(self, dim=None):
        return self.shape if dim is None else self.shape[dim]

    def dim(self):
        return len(self.shape)

    ndim = property(dim)
    T = property(lambda self: self.computed("transposed", tuple(reversed(self.shape))))

    def __len__(self):
        return self.shape[0] if self.shape else 0

    def item(self):
        if self.fill[0] == "const":
            return self.fill[1]
        if self.fill[0] == "values" and len(self.fill[1]) == 1:
            return self.fill[1][0]
        if self.fill[0] == "int" and self.numel() == 1:  # a step of a random walk (x[i] = 1; i += draw)
            return DRAWS.draw(self.fill[1], self.fill[2])
        raise ShimFailure("the value of a %s tensor was read (.item())" % self.fill[0])

    def tolist(self):
        if self.fill[0] == "values":
            return list(self.fill[1])
        raise ShimFailure("the values of a %s tensor were read (.tolist())" % self.fill[0])

    __float__ = lambda self: float(self.item())
    __int__ = lambda self: int(self.item())
    __index__ = lambda self: int(self.item())

    def __bool__(self):
        return bool(self.item())

    def __iter__(self):
        return iter([self.computed("an element of a tensor", self.shape[1:]) for _ in range(len(self))])

    def computed(self, what, shape=None, dtype=None):
        return Recorded(self.shape if shape is None else shape, dtype or self.dtype, ["computed", what])

    # -- what keeps the values (and the fill): casts, copies, views
    def to(self, *args, **keywords):
        dtype = keywords.get("dtype") or next((a for a in args if isinstance(a, (DType, str)) and
                                               ALIASES.get(a, a) in DTYPES), None)
        return Recorded(self.shape, dtype or self.dtype, self.cast_fill(dtype))

    def cast_fill(self, dtype):
        if dtype is None or self.fill[0] not in ("values", "const") or dtype_of(dtype).is_floating_point:
            return self.fill
        return ["values", [int(v) for v in self.fill[1]]] if self.fill[0] == "values" else ["const", int(self.fill[1])]

    float = lambda self: self.to(DTYPES["float32"])
    half = lambda self: self.to(DTYPES["float16"])
    bfloat16 = lambda self: self.to(DTYPES["bfloat16"])
    int = lambda self: self.to(DTYPES["int32"])
    long = lambda self: self.to(DTYPES["int64"])
    double = lambda self: self.to(DTYPES["float64"])
    def cuda(self, *a, **k):
        copy = Recorded(self.shape, self.dtype, self.fill)
        if self.__dict__.get("source") is not None:  # a half of to_mx stays one
            copy.source = self.__dict__["source"]
        return copy

    cpu = contiguous = clone = detach = cuda

    def view(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], (DType, str)):
            if dtype_of(shape[0]).name == self.dtype.name:
                return self  # as its own dtype: the same bytes (to_mx's uint8 halves viewed as uint8)
            return self.computed("reinterpreted as another dtype", dtype=shape[0])
        return self.reshape(*shape)

    def reshape(self, *shape):
        shape = list(flat_shape(shape, {}))
        if -1 in shape:
            known = math.prod(s for s in shape if s != -1)
            shape[shape.index(-1)] = self.numel() // known if known else 0
        return self.viewed(Recorded(shape, self.dtype, self.fill))

    def flatten(self, *a):
        return self.viewed(Recorded([self.numel()], self.dtype, self.fill))

    def viewed(self, view):
        view.view_of = self.view_of or self
        return view

    def written_through(self):
        """A view written: the tensor it views holds data built by code (kopt follows no write
        through a view)."""
        if self.view_of is not None:
            self.view_of.fill = ["computed", "elements written through a view"]

    ravel = flatten

    def unsqueeze(self, dim):
        shape = list(self.shape)
        shape.insert(dim if dim >= 0 else len(shape) + dim + 1, 1)
        return self.viewed(Recorded(shape, self.dtype, self.fill))

    def expand(self, *shape):
        return self.computed("expanded", flat_shape(shape, {}))

    def repeat(self, *repeats):
        """A literal matrix or vector tiled (torch.eye(8).repeat(2, 1)); anything else computed."""
        repeats = flat_shape(repeats, {})
        if self.fill[0] != "values" or len(repeats) != len(self.shape) or len(self.shape) not in (1, 2):
            return self.computed("repeated", [s * r for s, r in zip(self.shape, repeats)])
        return Recorded([s * r for s, r in zip(self.shape, repeats)], self.dtype,
                        values_fill(tiled(self.fill[1], list(self.shape), repeats)))

    def transpose(self, a, b):
        shape = list(self.shape)
        shape[a], shape[b] = shape[b], shape[a]
        return Recorded(shape, self.dtype, self.fill if self.fill[0] != "values" else ["computed", "transposed"])

    def t(self):
        return self.transpose(0, 1)

    def permute(self, *dims):
        dims = flat_shape(dims, {})
        return self.computed("permuted", [self.shape[d] for d in dims])

    # -- fills in place
    def uniform_(self, low=0.0, high=1.0, **k):
        return self.refill(["uniform", float(low), float(high)])

    def normal_(self, mean=0.0, std=1.0, **k):
        return self.refill(["normal", float(mean), float(std)])

    def zero_(self):
        return self.refill(["const", 0])

    def fill_(self, value):
        return self.refill(["const", plain(value)])

    def copy_(self, other):
        return self.refill(list(other.fill) if isinstance(other, Recorded) else ["computed", "copied"])

    def random_(self, low=0, high=None, **k):
        return self.refill(["int", low, high] if high is not None else ["int", 0, low])

    def refill(self, fill):
        self.fill = fill
        self.written_through()
        return self

    def __setitem__(self, index, value):
        self.fill = written(self, index, value)
        self.written_through()

    def __getitem__(self, index):
        part = self.computed("an indexed part of a tensor", self.indexed_shape(index))
        part.part_of = (self, index)  # what x[:, n//2:] = x[:, :n//2] copies (halves)
        return self.viewed(part)

    def indexed_shape(self, index):
        index = index if isinstance(index, tuple) else (index,)
        shape, axis = [], 0
        for part in index:
            if part is None:
                shape.append(1)
                continue
            if part is Ellipsis:
                keep = len(self.shape) - axis - sum(1 for p in index if p is not None and p is not Ellipsis) + 1
                shape.extend(self.shape[axis:axis + keep - 1])
                axis += keep - 1
                continue
            if isinstance(part, slice):
                shape.append(len(range(*part.indices(self.shape[axis]))))
            elif isinstance(part, Recorded):
                shape.extend(part.shape)
            axis += 1
        return shape + list(self.shape[axis:])

    # -- arithmetic: a random fill moved and stretched stays one; a constant stays one
    def arithmetic(self, other, op, reflected=False):
        if isinstance(other, Recorded):
            if op == "+" and self.shape == other.shape:  # random data + torch.eye(n) * v: plus_eye(FILL, n, v)
                found = plus_eye(self, other)  # (never `or`: a tensor's truth is its value)
                found = plus_eye(other, self) if found is None else found
                if found is not None:
                    return found
            shape = self.shape if len(self.shape) >= len(other.shape) else other.shape
            return self.computed("a tensor computed from tensors", shape)
        if not is_number(other):
            return self.computed("a tensor computed from %r" % (other,))
        return Recorded(self.shape, self.dtype, affine(self.fill, op, other, reflected))

    __add__ = lambda self, o: self.arithmetic(o, "+")
    __radd__ = lambda self, o: self.arithmetic(o, "+", True)
    __sub__ = lambda self, o: self.arithmetic(o, "-")
    __rsub__ = lambda self, o: self.arithmetic(o, "-", True)
    __mul__ = lambda self, o: self.arithmetic(o, "*")
    __rmul__ = lambda self, o: self.arithmetic(o, "*", True)
    __truediv__ = lambda self, o: self.arithmetic(o, "/")
    __rtruediv__ = lambda self, o: self.arithmetic(o, "/", True)
    # of literal data, each value as Python computes it (torch's % and // floor alike): arange(T) % P
    __floordiv__ = lambda self, o: self.arithmetic(o, "//")
    __mod__ = lambda self, o: self.arithmetic(o, "%")
    __pow__ = lambda self, o: self.arithmetic(o, "**")
    __rpow__ = __and__ = __or__ = __xor__ = __lshift__ = __rshift__ = \
        lambda self, o: self.computed("a tensor computed from a tensor")
    __neg__ = neg = lambda self: self.arithmetic(-1, "*")
    # in place (torch.randn(M, N).sub_(0.5)): the fill moved as by the operator
    add_ = lambda self, o, alpha=1: self.refill(self.arithmetic(o * alpha if is_number(o) else o, "+").fill)
    sub_ = lambda self, o, alpha=1: self.refill(self.arithmetic(o * alpha if is_number(o) else o, "-").fill)
    mul_ = lambda self, o: self.refill(self.arithmetic(o, "*").fill)
    div_ = lambda self, o: self.refill(self.arithmetic(o, "/").fill)
    neg_ = lambda self: self.refill(self.arithmetic(-1, "*").fill)

    def flip(self, *dims):
        """A literal tensor reversed along dims (a channel of arange(H * W).reshape(H, W).flip(0))."""
        dims = flat_shape(dims, {})
        if self.fill[0] == "const":
            return Recorded(self.shape, self.dtype, list(self.fill))
        if self.fill[0] != "values":
            return self.computed(".flip(...)")
        return Recorded(self.shape, self.dtype, ["values", kopt_shim_values.flipped(self.fill[1], self.shape, dims)])
    __matmul__ = lambda self, o: self.computed("a product of tensors", None)
    __lt__ = __le__ = __gt__ = __ge__ = lambda self, o: self.computed("a comparison", dtype="bool")
    __abs__ = lambda self: self.computed("abs")
    __iadd__ = __add__
    __isub__ = __sub__
    __imul__ = __mul__
    __itruediv__ = __truediv__

    def softmax(self, dim=None, *a, **k):
        """A softmax of random data along its last axis: kopt's softmax(FILL, n)."""
        if self.fill[0] not in RANDOM_FILLS or not self.shape or dim not in (-1, len(self.shape) - 1):
            return self.computed(".softmax(...)")
        return Recorded(self.shape, self.dtype, ["softmax", self.shape[-1]] + list(self.fill))

    def scatter_(self, dim, index, src=None, **k):
        """A constant with another scattered at k uniform random indices: each element that other
        with probability 1 - (1 - 1/n)^k, kopt's choice(c, v, p)."""
        n = self.shape[0] if len(self.shape) == 1 else None
        value = src.fill[1] if isinstance(src, Recorded) and src.fill[0] == "const" and src.shape == index.shape \
            else src if is_number(src) else None
        if dim != 0 or n is None or self.fill[0] != "const" or value is None or not isinstance(index, Recorded) \
                or index.fill != ["int", 0, n] or len(index.shape) != 1:
            return self.refill(["computed", "scattered (.scatter_(...))"])
        return self.refill(["choice", self.fill[1], value, 1 - (1 - 1 / n) ** index.shape[0]])

    def __getattr__(self, name):  # any other method: a tensor computed from this one
        if name.startswith("__"):
            raise AttributeError(name)
        if name.endswith("_"):  # in place (x.clamp_(0, 1), x.fill_diagonal_(0)): its own data is built by code
            return lambda *a, **k: self.refill(["computed", ".%s(...)" % name])
        return lambda *a, **k: self.computed(".%s(...)" % name)

    def record(self):
        fill = PARTLY_WRITTEN if self.fill[0] == "elements" else settled(self.fill, self.numel())
        entry = {"shape": list(self.shape), "dtype": self.dtype.name, "fill": fill}
        if self.__dict__.get("source") is not None:  # a half of to_mx: which quantization it belongs to
            entry["source"] = self.__dict__["source"]
        return entry


RANDOM_FILLS = ("uniform", "normal", "int", "choice")


def eye_scale(t):
    """v of a recorded torch.eye(n) * v (a square identity listed, or one too large to list), else None."""
    if len(t.shape) != 2 or t.shape[0] != t.shape[1]:
        return None
    if t.fill[0] == "computed" and len(t.fill) == 3 and t.fill[2][0] == "eye":
        return t.fill[2][2]
    if t.fill[0] == "values":
        n, v = t.shape[0], t.fill[1][0]
        return v if v != 0 and t.fill[1] == [v if i == j else 0 for i in range(n) for j in range(n)] else None
    return None


def plus_eye(matrix, eye):
    scale = eye_scale(eye)
    if scale is None or matrix.fill[0] not in RANDOM_FILLS or len(matrix.shape) != 2:
        return None
    return Recorded(matrix.shape, matrix.dtype, ["plus_eye", matrix.shape[-1], scale] + list(matrix.fill))


def plain(value):
    if isinstance(value, Recorded):
        return value.item()
    return value


def affine(fill, op, amount, reflected):
    """The fill of `tensor op amount` (or `amount op tensor`), or ["computed", ...]."""
    kind = fill[0]
    if kind == "const":
        a = fill[1]
        value = {"+": lambda: a + amount, "-": lambda: amount - a if reflected else a - amount,
                 "*": lambda: a * amount, "/": lambda: amount / a if reflected else a / amount,
                 "//": lambda: a // amount, "%": lambda: a % amount, "**": lambda: a ** amount}[op]()
        return ["const", value]
    if kind == "values":
        return ["values", [affine(["const", v], op, amount, reflected)[1] for v in fill[1]]]
    if op in ("//", "%", "**"):  # of a drawn fill: no fill of kopt's says it
        return ["computed", "a %s fill %s a number" % (kind, op)]
    if kind == "int" and fill[2] - fill[1] == 2 and op in ("*", "+", "-"):  # randint(0, 2) * 2 - 1: two values
        kind, fill = "choice", ["choice", fill[1], fill[1] + 1, 0.5]
    if kind == "choice":  # each of the two values moved as a constant would be
        if reflected and op == "/":
            return ["computed", "a number divided by a choice"]
        return ["choice", affine(["const", fill[1]], op, amount, reflected)[1],
                affine(["const", fill[2]], op, amount, reflected)[1], fill[3]]
    if kind == "computed" and len(fill) == 3 and op in ("*", "/") and not reflected:  # torch.eye(n) * v
        return ["computed", fill[1], ["eye", fill[2][1], fill[2][2] * (amount if op == "*" else 1.0 / amount)]]
    if kind not in ("uniform", "normal") or (reflected and op == "/"):
        return ["computed", "a %s fill %s a number" % (kind, op)]
    a, b = fill[1], fill[2]
    if reflected and op == "-":  # c - x: the mirror, then shifted
        op, amount, a, b = "+", amount, (-b if kind == "uniform" else -a), (-a if kind == "uniform" else b)
    if op == "/":
        op, amount = "*", 1.0 / amount
    if op == "*":  # + 0.0: a bound negated from 0 is 0, not -0 (normal(0,1), as kopt writes it)
        if kind == "normal":
            return ["normal", a * amount + 0.0, b * abs(amount)]
        low, high = sorted((a * amount + 0.0, b * amount + 0.0))
        return ["uniform", low, high]
    shift = amount if op == "+" else -amount
    return [kind, a + shift, b + shift if kind == "uniform" else b]


# ---------------------------------------------------------------- elements written after a fill

# A fill with elements written over it, in the order the test writes them (kopt's set(FILL, v,
# SELECTOR...); nested sets apply innermost first):
#   ["set", v, [SELECTOR, ...], *FILL]
# where a SELECTOR is an index i (Python's: negative counts from the end), ["slice", start,
# stop, step, width] (each step-th run of width elements from start to stop, None for an end
# left open: a Python slice has width 1, x.view(-1, n)[:, lo:hi] is [lo, None, n, hi - lo]), or
# ["walk", start, lo, hi] (start, then each position the last plus a draw from [lo, hi), until
# past the end: a test's `while i < n: x[i] = 1; i += randint(lo, hi)`).
WRITTEN_BY_CODE = ["computed", "elements written one by one (x[...] = ...)"]


class Written(int):
    """An index written, with how many random values had been read (.item()) before: what tells
    a random walk's positions from literal ones."""

    def __new__(cls, value, serial):
        made = super().__new__(cls, value)
        made.serial = serial
        return made


class Draws:
    """The random integers a test reads (.item() of a one-element randint): each is a concrete
    value from the stand-in's own generator, and must turn out to be the step of a random walk
    (walked); one read for anything else leaves the test data no fill of kopt's draws."""

    def __init__(self):
        self.reset()

    def reset(self):
        import random
        self.generator = random.Random(57)
        self.drawn = []  # [lo, hi, value, explained]

    def draw(self, lo, hi):
        value = self.generator.randrange(int(lo), int(hi))
        self.drawn.append([int(lo), int(hi), value, False])
        return value

    def check_explained(self):
        if any(not explained for _, _, _, explained in self.drawn):
            raise ShimFailure("a random value was read (.item()) and used otherwise than as the step of a random walk")


DRAWS = Draws()


def written(tensor, index, value):
    """The fill of `tensor` after `tensor[index] = value`."""
    copied = halves_copy(tensor, index, value)
    if copied is not None:
        return copied
    number = plain(value) if isinstance(value, Recorded) and value.numel() == 1 and value.fill[0] == "const" else value
    selectors = index_selectors(index, tensor)
    if not is_number(number) or not math.isfinite(number) or selectors is None \
            or tensor.fill[0] in ("empty", "computed", "elements"):
        listed = listed_write(tensor, index, value)
        return listed if listed is not None else list(WRITTEN_BY_CODE)
    if tensor.fill[0] == "set" and tensor.fill[1] == number:  # the same value again: one set, more elements
        return ["set", number, coalesced(tensor.fill[2] + selectors)] + tensor.fill[3:]
    return ["set", number, coalesced(selectors)] + list(tensor.fill)


def listed_write(tensor, index, value):
    """The fill of a small tensor after `tensor[index] = value` where every value it holds is
    known (a constant, a list, or uninitialised: torch.empty) and value is a number or a literal
    tensor: values(...) once every element is known, ["elements", list] (None: not yet written)
    while some are not; None where that is not so (a random fill, a mask, a computed value)."""
    n = tensor.numel()
    base = settled(tensor.fill, n) if tensor.fill[0] == "set" else tensor.fill
    known = {"const": lambda: [base[1]] * n, "values": lambda: list(base[1]), "empty": lambda: [None] * n,
             "elements": lambda: list(base[1])}
    if n > MAX_VALUES or base[0] not in known:
        return None
    if isinstance(value, Recorded):
        if value.fill[0] not in ("const", "values"):
            return None
        value = [value.fill[1]] if value.fill[0] == "const" else list(value.fill[1])
    elif not is_number(value):
        return None
    result = kopt_shim_values.written_over(known[base[0]](), list(tensor.shape), index, value)
    if result is None:
        return None
    return ["elements", result] if any(v is None for v in result) else values_fill(result)


# An uninitialised tensor written in part: the rest holds whatever memory held.
PARTLY_WRITTEN = ["computed", "elements written one by one over an uninitialised tensor, some never written"]


def index_selectors(index, tensor):
    """The selectors of an index of a 1-D tensor (an int, a slice, a tensor of indices or of a
    range) or of a 2-D one (x[r, c], x[:, c], x[:, lo:hi]); None for any other (x[r] of a
    matrix is a row: listed_write)."""
    if isinstance(index, bool):
        return None
    if isinstance(index, int) and len(tensor.shape) == 1:
        return [Written(index, len(DRAWS.drawn))] if -tensor.numel() <= index < tensor.numel() else None
    if len(tensor.shape) == 1 and isinstance(index, slice):
        return [python_slice(index)]
    if len(tensor.shape) == 1 and isinstance(index, Recorded):
        if index.fill[0] == "values" and all(isinstance(v, int) for v in index.fill[1]):
            return [Written(v, len(DRAWS.drawn)) for v in index.fill[1]]
        if index.fill[0] == "computed" and len(index.fill) == 3 and index.fill[2][0] == "range":
            return [python_slice(slice(*index.fill[2][1:]))]
        return None
    if len(tensor.shape) == 2 and isinstance(index, tuple) and len(index) == 2:
        rows, columns = tensor.shape
        row, column = index
        if isinstance(row, int) and isinstance(column, int) and not isinstance(row, bool):
            return [Written((row % rows) * columns + column % columns, len(DRAWS.drawn))]
        if row == slice(None) and isinstance(column, int) and not isinstance(column, bool):
            return [["slice", column % columns, None, columns, 1]]
        if row == slice(None) and isinstance(column, slice) and column.step in (None, 1):
            lo, hi, _ = column.indices(columns)
            return [["slice", lo, None, columns, hi - lo]] if hi > lo else []
    return None


def python_slice(part):
    return ["slice", part.start, part.stop, 1 if part.step is None else part.step, 1]


def selected(selector, n):
    """The indices a selector names in a buffer of n elements (a walk: none it can know)."""
    if isinstance(selector, int):
        return [selector % n] if -n <= selector < n else []
    if selector[0] != "slice":
        return []
    _, start, stop, step, width = selector
    begin, end, _ = slice(start, stop).indices(n)
    return [i for i in range(begin, end) if (i - begin) % step < width]


def coalesced(selectors):
    """Runs of one width written at a constant period (`for i in range(0, n, cols): x[i:i + 10]
    = 0`) as one selector, [0, stop, cols, 10]."""
    result = []
    for selector in selectors:
        last = result[-1] if result else None
        block = contiguous(selector)
        if block is not None and last is not None and not isinstance(last, int) and last[0] == "slice":
            start, stop = block
            previous = contiguous(last)
            if previous is not None and stop - start == previous[1] - previous[0] and start >= previous[1]:
                result[-1] = ["slice", previous[0], stop, start - previous[0], stop - start]
                continue
            if previous is None and None not in last[1:3] and last[1] >= 0 and last[3] > 1 \
                    and stop - start == last[4] and start == last[2] - last[4] + last[3]:
                result[-1] = ["slice", last[1], stop, last[3], last[4]]
                continue
        result.append(selector)
    return result


def contiguous(selector):
    """(start, stop) of a slice of consecutive elements with both ends given, else None."""
    if isinstance(selector, int) or selector[0] != "slice" or selector[3] != 1 or selector[4] != 1:
        return None
    start, stop = selector[1], selector[2]
    return (start, stop) if isinstance(start, int) and isinstance(stop, int) and 0 <= start < stop else None


def canonical_selector(selector, n):
    """One spelling of a selector: a run of width w every w elements is a plain slice, and a slice
    whose last run ends the buffer is open at its end."""
    if isinstance(selector, int) or selector[0] != "slice":
        return int(selector) if isinstance(selector, int) else list(selector)
    _, start, stop, step, width = selector
    if step == width:
        step = width = 1
    if isinstance(start, int) and start >= 0 and isinstance(stop, int) and stop > start:
        last = start + (stop - 1 - start) // step * step
        if last + step >= n and (stop >= n or stop >= last + width):
            stop = None
    return ["slice", start, stop, step, width]


def settled(fill, n):
    """A recorded fill as kopt spells it: a random walk's writes found (walked), and a small
    literal written over element by element listed, values(...)."""
    fill = walked(fill, n)
    writes = []
    base = fill
    while base[0] == "set":
        writes.append(base[:3])
        base = base[3:]
    if not writes or base[0] not in ("const", "values") or n > MAX_VALUES or \
            any(not isinstance(s, int) and s[0] == "walk" for w in writes for s in w[2]):
        return fill
    values = [base[1]] * n if base[0] == "const" else list(base[1])
    for _, value, selectors in reversed(writes):  # innermost first, as the test wrote them
        for selector in selectors:
            for i in selected(selector, n):
                values[i] = value
    return values_fill(values)


def walked(fill, n):
    """A set's run of indices, each the last plus the random value read between them, whose next
    step passes the end: a random walk, ["walk", start, lo, hi]; its draws are then explained."""
    if fill[0] != "set":
        return fill
    selectors, result, i = fill[2], [], 0
    while i < len(selectors):
        end = walk_end(selectors, i, n)
        if end is None:
            result.append(canonical_selector(selectors[i], n))
            i += 1
            continue
        lo, hi = DRAWS.drawn[selectors[i].serial][:2]
        for serial in range(selectors[i].serial, selectors[end].serial + 1):
            DRAWS.drawn[serial][3] = True
        result.append(["walk", int(selectors[i]), lo, hi])
        i = end + 1
    return ["set", fill[1], result] + walked(fill[3:], n)


def walk_end(selectors, first, n):
    """The last index of a random walk that starts at selectors[first], or None."""
    def step(j):  # the draw read after selectors[j] was written
        if not isinstance(selectors[j], Written) or selectors[j].serial >= len(DRAWS.drawn):
            return None
        return DRAWS.drawn[selectors[j].serial]
    last = first
    while last + 1 < len(selectors) and step(last) is not None and isinstance(selectors[last + 1], Written) \
            and selectors[last + 1].serial == selectors[last].serial + 1 \
            and selectors[last + 1] - selectors[last] == step(last)[2] and step(last)[:2] == step(first)[:2]:
        last += 1
    final = step(last)
    if last == first or final is None or final[:2] != step(first)[:2] or selectors[last] + final[2] < n:
        return None
    return last


def halves_copy(tensor, index, value):
    """`t[:, n//2:] = t[:, :n//2]` of random data (RoPE's cos and sin tables): kopt's halves(FILL, n)."""
    if len(tensor.shape) != 2 or tensor.fill[0] not in RANDOM_FILLS or not isinstance(value, Recorded):
        return None
    source = getattr(value, "part_of", None)
    n = tensor.shape[1]
    if source is None or source[0] is not tensor or n % 2 or not all(isinstance(i, tuple) and len(i) == 2
                                                                     for i in (index, source[1])):
        return None
    half = lambda part: part[0] == slice(None) and isinstance(part[1], slice) and part[1].step in (None, 1) \
        and part[1].indices(n)[:2]
    if half(index) != (n // 2, n) or half(source[1]) != (0, n // 2):
        return None
    return ["halves", n] + list(tensor.fill)


def concatenated(tensors, dim=0, **k):
    """torch.cat of flat tensors each filled element by element (a model's packed weights):
    ["cat", [[count, FILL], ...]], kopt's cat(FILL:count, ...); anything else computed."""
    tensors = [unwrapped(t) for t in tensors]
    drawn = ("const", "uniform", "normal", "int")
    if not tensors or not all(isinstance(t, Recorded) and len(t.shape) == 1 and t.fill[0] in drawn for t in tensors):
        first = next((t for t in tensors if isinstance(t, Recorded)), None)
        shape = [sum(t.numel() for t in tensors if isinstance(t, Recorded))] if dim == 0 and first is not None else []
        return Recorded(shape, first.dtype if first is not None else "float32", ["computed", "torch.cat(...)"])
    segments = []
    for t in tensors:
        if segments and segments[-1][1] == t.fill:
            segments[-1][0] += t.numel()  # two neighbours drawn alike are one segment
        else:
            segments.append([t.numel(), list(t.fill)])
    return Recorded([sum(t.numel() for t in tensors)], tensors[0].dtype, ["cat", segments])


# ---------------------------------------------------------------- the stand-in torch

def literal(data):
    """(shape, flat values) of a nested list literal, or None."""
    if isinstance(data, Recorded):
        return None
    if is_number(data) or isinstance(data, bool):
        return [], [data]
    if isinstance(data, (list, tuple)):
        if not data:
            return [0], []
        parts = [literal(d) for d in data]
        if any(p is None for p in parts) or any(p[0] != parts[0][0] for p in parts):
            return None
        return [len(data)] + parts[0][0], [v for p in parts for v in p[1]]
    return None


def tiled(values, shape, repeats):
    """A row-major vector or matrix's values tiled repeats[0] times down (and repeats[1] across)."""
    columns = shape[-1]
    rows = [values[i:i + columns] for i in range(0, len(values), columns)]
    across = repeats[1] if len(repeats) == 2 else 1
    return [v for _ in range(repeats[0]) for row in rows for v in row * across]


def identity(n, m=None):
    """torch.eye(n, m)'s values, row by row."""
    return [1.0 if i == j else 0.0 for i in range(n) for j in range(n if m is None else m)]


def values_fill(values):
    if values and all(v == values[0] for v in values) and not any(isinstance(v, float) and math.isnan(v) for v in values):
        return ["const", values[0]]
    if len(values) > MAX_VALUES:
        return ["computed", "%d literal values" % len(values)]
    return ["values", list(values)]


def linspace(start, end, steps=None, **k):
    """torch.linspace: evenly spaced values, as torch computes them (kopt_shim_values.linspace)."""
    steps = int(k.pop("steps", steps))
    dtype = dtype_of(k.get("dtype"))
    if steps > MAX_VALUES:
        return Recorded([steps], dtype, ["computed", "%d evenly spaced values" % steps])
    values = kopt_shim_values.linspace(plain(start), plain(end), steps)
    return Recorded([steps], dtype, values_fill(values if dtype.is_floating_point else [int(v) for v in values]))


def stack(tensors, dim=0, **k):
    """torch.stack: tensors of one shape along a new axis; literal ones stay literal (a sinusoid's
    real and imaginary parts interleaved: torch.stack((cos, sin), dim=1))."""
    tensors = [unwrapped(t) for t in tensors]
    first = tensors[0]
    shape = list(first.shape)
    dim = dim % (len(shape) + 1)
    stacked_shape = shape[:dim] + [len(tensors)] + shape[dim:]
    if not all(t.fill[0] in ("values", "const") and list(t.shape) == shape for t in tensors):
        return Recorded(stacked_shape, first.dtype, ["computed", "torch.stack(...)"])
    lists = [list(t.fill[1]) if t.fill[0] == "values" else [t.fill[1]] * t.numel() for t in tensors]
    return Recorded(stacked_shape, first.dtype, values_fill(kopt_shim_values.stacked(lists, shape, dim)))


def elementwise(name, otherwise):
    """torch.cos(x) and its kin of literal data: its values; of anything else, `otherwise`."""
    def make(t, *a, **k):
        if isinstance(t, Recorded) and t.fill[0] in ("values", "const") and not a and not k:
            values = kopt_shim_values.mapped(name, t.fill[1] if t.fill[0] == "values" else [t.fill[1]])
            if values is not None:
                dtype = t.dtype if t.dtype.is_floating_point else DTYPES["float32"]
                return Recorded(t.shape, dtype, values_fill(values) if t.fill[0] == "values" else ["const", values[0]])
        return otherwise(t, *a, **k)
    return make


def computed_like(what):
    def make(*a, **k):
        first = next((x for x in a if isinstance(x, Recorded)), None)
        if isinstance(first, Recorded):
            return first.computed(what)
        if first is None and a and isinstance(a[0], (list, tuple)) and a[0] and isinstance(a[0][0], Recorded):
            return a[0][0].computed(what)
        return Recorded(flat_shape(a, k) if a and all(isinstance(x, int) for x in a) else [], dtype_of(k.get("dtype")),
                        ["computed", what])
    return make


def triangle(which):
    """torch.tril / torch.triu of a random fill: kopt's tril(FILL, n) / triu(FILL, n)."""
    def make(t, diagonal=0, **k):
        if diagonal != 0 or t.fill[0] not in ("uniform", "normal", "int") or len(t.shape) < 2 \
                or t.shape[-1] != t.shape[-2]:
            return t.computed("torch.%s(...)" % which)
        return Recorded(t.shape, t.dtype, [which, t.shape[-1]] + list(t.fill))
    return make


def eye(n, m=None, **k):
    fill = values_fill(identity(n, m))
    if fill[0] == "computed" and m in (None, n):  # too large to list: still what plus_eye adds
        fill = fill + [["eye", n, 1.0]]
    return Recorded([n, n if m is None else m], dtype_of(k.get("dtype")), fill)


def softmax(t, dim=None, *a, **k):
    return t.softmax(dim) if isinstance(t, Recorded) else Recorded([], "float32", ["computed", "torch.softmax(...)"])


def sort(t, *a, **k):
    """A random fill sorted ascending is kopt's sorted(FILL); anything else is data built by code."""
    ascending = t.fill[0] in ("uniform", "normal", "int") and not k.get("descending") and not a
    values = Recorded(t.shape, t.dtype, ["sorted"] + list(t.fill)) if ascending else t.computed("sorted")
    return Sorted((values, t.computed("sort indices", dtype="int64")))


def randint(*a, **k):
    a = list(a)
    if "size" in k:
        a.append(k.pop("size"))
    if "low" in k or "high" in k:
        a = [k.pop("low", 0), k.pop("high")] + a
    low, high, size = (0, a[0], a[1]) if len(a) == 2 else (a[0], a[1], a[2])
    return Recorded(flat_shape((size,), {}), dtype_of(k.get("dtype"), "int64"), ["int", int(low), int(high)])


def tensor(data, **k):
    found = literal(data)
    if found is None:
        base = data if isinstance(data, Recorded) else None
        shape = base.shape if base is not None else []
        return Recorded(shape, dtype_of(k.get("dtype")), ["computed", "torch.tensor of computed data"])
    shape, values = found
    floating = any(isinstance(v, float) for v in values)
    default = "float32" if floating or not values else ("bool" if all(isinstance(v, bool) for v in values) else "int64")
    dtype = dtype_of(k.get("dtype"), default)
    if not dtype.is_floating_point:
        values = [int(v) for v in values]
    return Recorded(shape, dtype, values_fill(values))


def arange(*a, **k):
    start, end, step = (0, a[0], 1) if len(a) == 1 else (a[0], a[1], a[2] if len(a) > 2 else 1)
    values = list(range(int(start), int(end), int(step))) if all(isinstance(x, int) for x in (start, end, step)) \
        else [start + i * step for i in range(int(math.ceil((end - start) / step)))]
    floating = any(isinstance(x, float) for x in (start, end, step))
    fill = values_fill(values)
    if fill[0] == "computed" and not floating:  # too long to list: still a slice when it indexes
        fill = fill + [["range", int(start), int(end), int(step)]]
    return Recorded([len(values)], dtype_of(k.get("dtype"), "float32" if floating else "int64"), fill)


def make_torch():
    torch = types.ModuleType("torch")
    for name, dtype in DTYPES.items():
        setattr(torch, name, dtype)
    for alias, name in ALIASES.items():
        setattr(torch, alias, DTYPES[name])
    torch.Tensor = Recorded
    torch.Size = Size
    torch.pi, torch.inf, torch.nan, torch.e = math.pi, math.inf, math.nan, math.e
    torch.finfo = torch.iinfo = Info

    def dtype_keyword(k, default="float32"):
        return dtype_of(k.get("dtype"), default)

    def empty(*a, **k):
        return Recorded(flat_shape(a, k), dtype_keyword(k), ["empty"])

    def constant(value):
        return lambda *a, **k: Recorded(flat_shape(a, k), dtype_keyword(k), ["const", value])

    def full(size, fill_value, **k):
        return Recorded(flat_shape((size,), {}), dtype_keyword(k), ["const", plain(fill_value)])

    def rand(*a, **k):
        return Recorded(flat_shape(a, k), dtype_keyword(k), ["uniform", 0.0, 1.0])

    def randn(*a, **k):
        return Recorded(flat_shape(a, k), dtype_keyword(k), ["normal", 0.0, 1.0])

    def like(fill):
        def make(t, **k):
            return Recorded(t.shape, dtype_of(k.get("dtype"), t.dtype.name), list(fill) if fill else ["empty"])
        return make

    def full_like(t, value, **k):
        return Recorded(t.shape, dtype_of(k.get("dtype"), t.dtype.name), ["const", plain(value)])

    torch.empty = empty
    torch.zeros, torch.ones = constant(0), constant(1)
    torch.full, torch.rand, torch.randn, torch.randint = full, rand, randn, randint
    torch.tensor = torch.as_tensor = tensor
    torch.arange = arange
    torch.empty_like, torch.zeros_like, torch.ones_like = like(None), like(["const", 0]), like(["const", 1])
    torch.rand_like, torch.randn_like = like(["uniform", 0.0, 1.0]), like(["normal", 0.0, 1.0])
    torch.full_like = full_like
    torch.sort = sort
    torch.eye = eye
    torch.tril, torch.triu = triangle("tril"), triangle("triu")
    torch.softmax = softmax
    torch.cat = concatenated
    torch.linspace, torch.stack = linspace, stack
    torch.flip = lambda t, dims, **k: t.flip(dims)
    for name in ("randperm", "multinomial", "where", "cumsum",
                 "matmul", "sum", "mean", "clamp", "sigmoid", "bmm", "mm", "max", "min",
                 "searchsorted", "minimum", "maximum", "topk", "argsort", "complex", "from_numpy",
                 "bincount", "einsum", "outer", "erf", "round", "relu", "pow", "square",
                 "var", "norm", "rsqrt", "mv", "dot", "argmin", "argmax", "add", "unique", "roll"):
        setattr(torch, name, computed_like("torch.%s(...)" % name))
    for name in kopt_shim_values.ELEMENTWISE:
        setattr(torch, name, elementwise(name, computed_like("torch.%s(...)" % name)))
    torch.manual_seed = lambda *a, **k: None
    torch.Generator = Generator
    torch.device = lambda *a, **k: "cuda"
    torch.no_grad = torch.inference_mode = NoGrad
    torch.is_tensor = lambda x: isinstance(x, Recorded)
    torch.__getattr__ = lambda name: Anything("torch." + name)  # torch.special.x(...) and the like
    return torch


def torch_modules():
    """torch and the submodules a definition imports (import torch.nn.functional as F)."""
    torch = make_torch()
    modules = {"torch": torch}
    for name in ("nn", "nn.functional", "linalg", "fft", "nn.init"):
        module = types.ModuleType("torch." + name)
        module.__getattr__ = (lambda prefix: lambda attr: Anything("%s.%s" % (prefix, attr)))("torch." + name)
        modules["torch." + name] = module
    torch.nn, torch.linalg, torch.fft = modules["torch.nn"], modules["torch.linalg"], modules["torch.fft"]
    torch.nn.functional, torch.nn.init = modules["torch.nn.functional"], modules["torch.nn.init"]
    return modules


class Sorted(tuple):
    values = property(lambda self: self[0])
    indices = property(lambda self: self[1])


class Generator:
    def __init__(self, *a, **k):
        pass

    def manual_seed(self, seed):
        return self


class NoGrad:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False

    def __call__(self, f):
        return f


class Anything:
    """torch.nn.functional, torch.linalg, ...: attribute chains whose call yields a computed tensor."""

    def __init__(self, what):
        self.what = what

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Anything("%s.%s" % (self.what, name))

    def __call__(self, *a, **k):
        first = next((x for x in a if isinstance(x, Recorded)), None)
        return first.computed(self.what + "(...)") if first is not None else Recorded([], "float32", ["computed", self.what])


# ---------------------------------------------------------------- the suites' base classes

def leetgpu_base():
    """core.challenge_base as LeetGPU's: the tensor descriptions recorded like torch's."""
    module = types.ModuleType("core.challenge_base")

    def described(fill_of):
        def init(self, shape, *a, dtype=None, **k):
            self.recorded = Recorded(shape, dtype or "float32", fill_of(*a, **k))
        return init

    def rand_int(low, high, **k):
        return ["int", int(low), int(high)]
    module.RandTensor = type("RandTensor", (), {"__init__": described(
        lambda low=0.0, high=1.0: ["uniform", float(low), float(high)])})
    module.RandnTensor = type("RandnTensor", (), {"__init__": described(
        lambda mean=0.0, std=1.0: ["normal", float(mean), float(std)])})
    module.RandIntTensor = type("RandIntTensor", (), {"__init__": lambda self, shape, low, high, dtype="int32":
                                                      setattr(self, "recorded", Recorded(shape, dtype, rand_int(low, high)))})
    module.FullTensor = type("FullTensor", (), {"__init__": described(lambda value=0.0: ["const", value])})
    module.OutTensor = type("OutTensor", (), {"__init__": described(lambda: ["empty"])})

    class ChallengeBase:
        def __init__(self, device="cuda"):
            self.device = device
    module.ChallengeBase = ChallengeBase
    return module


def tensara_base():
    module = types.ModuleType("problem")
    types_of = {"float": "float32", "double": "float64", "half": "float16", "__half": "float16",
                "__nv_bfloat16": "bfloat16", "int": "int32", "int32_t": "int32", "int64_t": "int64",
                "uint8_t": "uint8", "int8_t": "int8", "uint32_t": "uint32", "size_t": "int64",
                "unsigned int": "uint32", "uint64_t": "uint64", "long": "int64", "bool": "bool"}

    class Problem:
        def __init__(self, name=None, **k):
            self.name = name

        @staticmethod
        def get_seed(text):
            return 0

        def param_dtype(self, which):
            parameters = type(self).parameters
            entry = parameters[which] if isinstance(which, int) else next(p for p in parameters if p["name"] == which)
            return DTYPES[types_of.get(entry["type"], "float32")]
    module.Problem = Problem
    return module


def torchao_modules():
    """torchao's mx_tensor module as the mxfp4/mxfp8 problems import it: to_mx records the two
    halves of one quantization of its source (the scales, then the packed elements, both uint8 as
    the solution takes them), each naming the source it came from; to_dtype a computed tensor."""
    import kopt_block_scaled_facts
    names = ["torchao", "torchao.prototype", "torchao.prototype.mx_formats", "torchao.prototype.mx_formats.mx_tensor"]
    modules = {name: types.ModuleType(name) for name in names}
    sources = []

    def to_mx(data_hp, elem_dtype, block_size, scaling_mode=None, is_swizzled_scales=False):
        dtype = elem_dtype.name if isinstance(elem_dtype, DType) else \
            elem_dtype.what.split(".")[-1] if isinstance(elem_dtype, Anything) else str(elem_dtype)
        element = kopt_block_scaled_facts.element_formats().get(dtype)
        if element is None or len(data_hp.shape) != 2 or data_hp.shape[-1] % block_size:
            raise ShimFailure("to_mx of a %s tensor to %s in blocks of %s" % (list(data_hp.shape), dtype, block_size))
        rows, columns = data_hp.shape
        if not any(s is data_hp for s in sources):
            sources.append(data_hp)
        label = next(i for i, s in enumerate(sources) if s is data_hp)
        if is_swizzled_scales:
            scale = Recorded([-(-rows // 128) * 32, -(-columns // 128) * 16], "uint8",
                             ["mx_scale_blocked", element["name"], block_size, rows, columns] + list(data_hp.fill))
        else:
            scale = Recorded([rows, columns // block_size], "uint8",
                             ["mx_scale", element["name"], block_size] + list(data_hp.fill))
        data = Recorded([rows, columns // element["per_byte"]], "uint8",
                        ["mx_data", element["name"], block_size] + list(data_hp.fill))
        scale.source = data.source = label
        return scale, data

    def to_dtype(data_lp, scale, elem_dtype, block_size, target_dtype):
        return data_lp.computed("to_dtype(...)", dtype=target_dtype)
    mx_tensor = modules["torchao.prototype.mx_formats.mx_tensor"]
    mx_tensor.to_mx, mx_tensor.to_dtype = to_mx, to_dtype
    for parent, child in zip(names, names[1:]):
        setattr(modules[parent], child.split(".")[-1], modules[child])
    return modules


def with_modules(modules, call):
    """call() with `modules` in sys.modules, which are restored after it."""
    saved = {name: sys.modules.get(name) for name in modules}
    sys.modules.update(modules)
    try:
        return call()
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def unwrapped(value):
    return value if isinstance(value, Recorded) else getattr(value, "recorded", value)


def recorded_test(index, entries):
    test = {"index": index, "scalars": {}, "tensors": {}}
    for name, value in entries.items():
        value = unwrapped(value)
        if isinstance(value, Recorded):
            test["tensors"][name] = value.record()
        elif is_number(value) or isinstance(value, bool):
            test["scalars"][name] = value
        elif isinstance(value, str) and name == "name":
            test["name"] = value
    return test


def run_definition(path, modules):
    """The definition's module, executed with the stand-ins in sys.modules."""
    def execute():
        with open(path, "r", encoding="utf-8") as f:
            code = compile(f.read(), path, "exec")
        namespace = {"__name__": "kopt_suite_definition", "__file__": path}
        exec(code, namespace)
        return namespace
    return with_modules(modules, execute)


def failure_line(error, path):
    """`ValueError: ... (line 42)` of the definition's own frame nearest the raise."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if os.path.abspath(f.filename) == os.path.abspath(path)]
    where = " (line %d)" % frames[-1].lineno if frames else ""
    return "%s: %s%s" % (type(error).__name__, error, where)


def guarded(path, run):
    try:
        return run()
    except ShimFailure:
        raise
    except Exception as error:  # the suite's own code: any exception is the stand-in's limit
        raise ShimFailure("%s: the test generators do not run under kopt's stand-in torch: %s"
                          % (path, failure_line(error, path)))


def leetgpu(path):
    def run():
        core = types.ModuleType("core")
        base = leetgpu_base()
        core.challenge_base = base
        namespace = run_definition(path, dict(torch_modules(), core=core, **{"core.challenge_base": base}))
        challenge = namespace["Challenge"]()
        DRAWS.reset()
        generated = getattr(challenge, "generate_functional_test", lambda: [])()  # a challenge may have none
        functional = [recorded_test(i + 1, t) for i, t in enumerate(generated)]
        performance = recorded_test(0, challenge.generate_performance_test())
        DRAWS.check_explained()
        return {"performance": performance, "functional": functional}
    return guarded(path, run)


def tensara(path):
    def run():
        torchao = torchao_modules()  # imported when a test is made (create_inputs), not when the module loads
        namespace = run_definition(path, dict(torch_modules(), problem=tensara_base(), **torchao))
        base = sys.modules.get("problem")
        classes = [v for v in namespace.values() if isinstance(v, type) and v.__name__ != "Problem"
                   and any(b.__name__ == "Problem" for b in v.__mro__[1:])]
        if not classes:
            raise ShimFailure("%s: no class derived from Problem" % path)
        problem = classes[0]()
        DRAWS.reset()
        parameters = type(problem).parameters
        output = next(i for i, p in enumerate(parameters) if p.get("pointer") and not p.get("const"))
        # create_inputs makes the inputs before the output; get_extra_params those after it (a
        # shape array: torch.tensor(list(test_case["shape"])))
        inputs, extras = ([p["name"] for p in side if p.get("pointer")]
                          for side in (parameters[:output], parameters[output + 1:]))
        tests = []
        for index, case in enumerate(problem.generate_test_cases()):
            made = with_modules(torchao, case["create_inputs"])
            made = made if isinstance(made, tuple) else (made,)
            entries = {"name": case.get("name", "")}
            tensors = [m for m in made if isinstance(m, Recorded)]
            for name, value in zip(inputs, tensors):
                entries[name] = value
            extra_tensors = [unwrapped(v) for v in problem.get_extra_params(case)]
            for name, value in zip(extras, [v for v in extra_tensors if isinstance(v, Recorded)]):
                entries[name] = value
            test = recorded_test(index + 1, entries)
            test["scalars"] = {k: v for k, v in case.items() if is_number(v)}
            tests.append(test)
        del base
        DRAWS.check_explained()
        return {"performance": None, "functional": tests}
    return guarded(path, run)


COMMANDS = {"leetgpu": leetgpu, "tensara": tensara}


def main(argv):
    if len(argv) != 3 or argv[1] not in COMMANDS:
        print("SUITE_SHIM: usage: kopt_suite_shim.py {leetgpu|tensara} FILE", file=sys.stderr)
        return EXIT_FAILED
    try:
        print(json.dumps(COMMANDS[argv[1]](argv[2])))
    except ShimFailure as e:
        print("SUITE_SHIM: %s" % e, file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main(sys.argv))
