#!/usr/bin/env python3
"""Facts kopt reads from Python files without running them.

    python3 kopt_python_facts.py tolerance REF.py
    python3 kopt_python_facts.py leetgpu CHALLENGE.py
    python3 kopt_python_facts.py autotune KERNEL.py
    python3 kopt_python_facts.py launches KERNEL.py

Parses the file with Python's own `ast` module (nothing in it is imported or executed) and
prints one JSON object on stdout:

  tolerance  the module-level `atol` and `rtol` of a seed-style ref.py (either may be absent):
             {"atol": 1e-3, "rtol": 1e-2}
  leetgpu    a LeetGPU challenge.py as a kopt problem: its name, atol/rtol, the performance
             test's dims and buffers (shape as an expression of the dims, init, role) and
             every functional test that gives its dims as numbers, as further cases:
             {"format": "leetgpu", "name": ..., "tolerance": {...}, "dims": {...},
              "buffers": {NAME: {"shape": [...], "init": ..., "role": ...}},
              "cases": [{"name": ..., "dims": {...}}], "notes": [...]}
  autotune   a Triton kernel.py's @triton.autotune config lists, per decorated kernel:
             {"kernels": [{"kernel": "softmax_kernel", "line": 12,
                           "configs": [{"kwargs": {"BLOCK": 1024}, "num_warps": 4, ...}]}]}
             (a list written out, or a module-level name bound to one)
  launches   a Triton kernel.py's launch constants: each integer that a @triton.jit kernel's
             launch (kernel[grid](...)) passes as a tl.constexpr argument or as num_warps /
             num_stages, written as a literal, as a local bound once to a literal (the literal
             is reported: the grid reading the same local follows it), or as a module-level
             variable bound once to one:
             {"constants": [{"kernel": "add_kernel", "name": "BLOCK_SIZE", "value": 1024,
                             "line": 30, "col": 52, "end_col": 56, "variable": null}]}
             (line 1-based, col and end_col 0-based UTF-8 byte offsets of the literal; a
             module-level variable's name in "variable", and no offsets; a literal written in
             the launch lists in "also" where its grid writes the same number, as in
             k[(triton.cdiv(n, 1024),)](..., BLOCK=1024))

Exit codes: 0 ok; 2 the file cannot be read or says something this reader cannot take (the
last line of stderr is `PYTHON_FACTS: message`, naming the file, the line and the thing).
"""

import ast
import copy
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kopt_suite_shim  # noqa: E402  the suite's generators under a stand-in torch

EXIT_OK = 0
EXIT_FAILED = 2


class CannotRead(Exception):
    """A fact that is in the file but not in a form this reader takes."""


def parse(path):
    try:
        with open(path, "r", encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise CannotRead("cannot read %s: %s" % (path, e.strerror))
    except UnicodeDecodeError:
        raise CannotRead("%s is not UTF-8 text" % path)
    try:
        return ast.parse(text, filename=path)
    except SyntaxError as e:
        raise CannotRead("%s:%s: not valid Python: %s" % (path, e.lineno, e.msg))


def number(node, what, path):
    """A number written as a literal (1e-3, -2, 5)."""
    try:
        value = ast.literal_eval(node)
    except ValueError:
        value = None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CannotRead("%s:%d: %s is %s, not a number literal"
                         % (path, node.lineno, what, ast.unparse(node)))
    return value


def module_assignments(tree):
    """name -> value node of every `NAME = value` at the top level (the last one wins)."""
    found = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = statement.value
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) \
                and statement.value is not None:
            found[statement.target.id] = statement.value
    return found


def tolerance(path):
    assigned = module_assignments(parse(path))
    return {name: number(assigned[name], name, path) for name in ("atol", "rtol") if name in assigned}


# ---------------------------------------------------------------- LeetGPU challenge.py

# ctypes scalar types of get_solve_signature; a pointer to any of them is a buffer.
# ctype -> bytes per element (LeetGPU passes fp16 buffers as POINTER(c_uint16)).
CTYPES = {"c_float": 4, "c_double": 8, "c_int": 4, "c_uint": 4, "c_int8": 1, "c_uint8": 1,
          "c_int16": 2, "c_uint16": 2, "c_int32": 4, "c_uint32": 4, "c_int64": 8, "c_uint64": 8,
          "c_size_t": 8, "c_long": 8, "c_ulong": 8, "c_char": 1, "c_ubyte": 1, "c_byte": 1,
          "c_short": 2, "c_ushort": 2, "c_bool": 1, "c_longlong": 8, "c_ulonglong": 8}
ROLES = {"in": "input", "out": "output", "inout": "inout"}
# kopt's expression operators for Python's (integer sizes: // and / agree on them).
OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "/", ast.Mod: "%"}


class Tensor:
    """A buffer as the test builds it: its shape (expressions of the dims) and its fill."""

    def __init__(self, shape, init):
        self.shape = shape
        self.init = init


def line_of(node):
    return getattr(node, "lineno", 0)


def class_named(tree, name, path):
    for statement in tree.body:
        if isinstance(statement, ast.ClassDef) and statement.name == name:
            return statement
    raise CannotRead("%s: no class %s" % (path, name))


def method(cls, name, path):
    for statement in cls.body:
        if isinstance(statement, ast.FunctionDef) and statement.name == name:
            return statement
    raise CannotRead("%s: class %s has no method %s" % (path, cls.name, name))


def class_constants(cls, path):
    """`atol = 0.05`-style class attributes that are literals."""
    found = {}
    for statement in cls.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                and isinstance(statement.targets[0], ast.Name):
            try:
                found[statement.targets[0].id] = ast.literal_eval(statement.value)
            except ValueError:
                pass
    return found


def returned_value(function, path):
    for statement in function.body:
        if isinstance(statement, ast.Return) and statement.value is not None:
            return statement.value
    raise CannotRead("%s:%d: %s returns nothing" % (path, function.lineno, function.name))


def solve_signature(cls, path):
    """name -> (kind, role, bytes per element) from get_solve_signature's returned dict."""
    function = method(cls, "get_solve_signature", path)
    table = returned_value(function, path)
    if not isinstance(table, ast.Dict):
        raise CannotRead("%s:%d: get_solve_signature does not return a dict literal" % (path, line_of(table)))
    params = {}
    for key, value in zip(table.keys, table.values):
        name = ast.literal_eval(key)
        if not isinstance(value, ast.Tuple) or len(value.elts) != 2:
            raise CannotRead("%s:%d: signature entry %s is not (ctype, role)" % (path, line_of(value), name))
        ctype, role = value.elts
        role = ast.literal_eval(role)
        if role not in ROLES:
            raise CannotRead("%s:%d: parameter %s has role %r (in, out or inout)" % (path, line_of(value), name, role))
        text = ast.unparse(ctype)
        pointer = "POINTER(" in text
        leaf = text.rstrip(")").split(".")[-1]
        if leaf not in CTYPES:
            raise CannotRead("%s:%d: parameter %s has type %s" % (path, line_of(value), name, text))
        params[name] = ("buffer" if pointer else "scalar", ROLES[role], CTYPES[leaf])
    return params


class TestReader:
    module_values = {}  # the module-level numbers of the file being read (module_numbers)

    """Evaluates the straight-line body of a generate_*_test method: local assignments of
    numbers, and tensor constructors, with sizes kept as expressions of the locals. A test
    built by a helper of the class (`return self._make_test_case(4096, 4096)`) is read in the
    helper, its parameters bound to the call's arguments and defaults, and an `if` on a
    parameter given as True or False taken the way it goes."""

    def __init__(self, path, function, cls=None, depth=0):
        self.path = path
        self.function = function
        self.cls = cls
        self.depth = depth     # helpers followed to get here
        self.values = dict(TestReader.module_values)  # local (or module constant) -> number
        self.flags = {}        # local -> True or False (a helper's switches)
        self.tensors = {}      # local -> Tensor
        self.expressions = {}  # local -> the source of its value, for shapes
        self.changed = {}      # local -> the statement that changed its elements after it was built
        self.dims = {}         # the test's scalar parameters, once known

    def fail(self, node, what):
        raise CannotRead("%s:%d: %s: %s" % (self.path, line_of(node), self.function.name, what))

    def number(self, node):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
                and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.Name) and node.id in self.values:
            return self.values[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -self.number(node.operand)
        element = self.element(node)
        if element is not None:
            return self.number(element)
        if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
            left, right = self.number(node.left), self.number(node.right)
            return {ast.Add: lambda: left + right, ast.Sub: lambda: left - right,
                    ast.Mult: lambda: left * right, ast.FloorDiv: lambda: left // right,
                    ast.Mod: lambda: left % right}[type(node.op)]()
        self.fail(node, "%s is not a number this reader can follow" % ast.unparse(node))

    def size(self, node, dim_of, whole=True):
        """A size as a kopt expression: locals passed as scalars become their dim's name, and
        a number that is the value of exactly one integer dim becomes that dim (a test that
        writes 50000000 for N sizes its buffer by N in every case)."""
        if isinstance(node, ast.Name):
            if node.id in dim_of:
                return dim_of[node.id]
            computed = self.expressions.get(node.id)
            if isinstance(computed, ast.BinOp):  # H_out = (H + 2 * pad - k) // stride + 1: as the dims say
                try:
                    return self.size(computed, dim_of)
                except CannotRead:
                    pass
            if node.id in self.values:
                return self.by_value(self.values[node.id])
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            if whole or node.value > SMALL_LITERAL:
                return self.by_value(node.value)
            return str(node.value)
        element = self.element(node)
        if element is not None:  # shape_A[0] of shape_A = (8192, 2048)
            return self.size(element, dim_of, whole)
        if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
            # inside arithmetic a small literal is itself: the 2 of H + 2 * padding is no dim that happens
            # to be 2, while the 8192 of 8192 * 2048 is M
            return "(%s %s %s)" % (self.size(node.left, dim_of, False), OPERATORS[type(node.op)],
                                   self.size(node.right, dim_of, False))
        self.fail(node, "size %s is not an expression of the dims" % ast.unparse(node))

    def element(self, node):
        """The node of `t[i]` for a tuple t written out (a local, or in place) and a literal i, else None."""
        if not (isinstance(node, ast.Subscript) and isinstance(node.value, (ast.Name, ast.Tuple, ast.List))
                and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int)):
            return None
        tuple_node = node.value if not isinstance(node.value, ast.Name) else self.expressions.get(node.value.id)
        if not isinstance(tuple_node, (ast.Tuple, ast.List)) or not -len(tuple_node.elts) <= node.slice.value < len(tuple_node.elts):
            return None
        return tuple_node.elts[node.slice.value]

    def by_value(self, value):
        named = [name for name, dim in self.dims.items()
                 if isinstance(dim, int) and not isinstance(dim, bool) and dim == value]
        return named[0] if len(named) == 1 and value not in (0, 1) else str(value)

    def bound_text(self, node, dim_of):
        try:
            return self.size(node, dim_of)
        except CannotRead:
            return str(self.number(node))

    def shape(self, node, dim_of):
        if isinstance(node, (ast.Tuple, ast.List)):
            return [strip_parentheses(self.size(element, dim_of)) for element in node.elts]
        return [strip_parentheses(self.size(node, dim_of))]

    def local_tensor(self, node, dim_of):
        """The Tensor a local names (`x` of `torch.empty_like(x)`), or None."""
        if isinstance(node, ast.Name) and node.id in self.expressions and self.expressions[node.id] is not node:
            tensor = self.tensor(self.expressions[node.id], dim_of)
            if tensor is not None and tensor.init is not None and node.id in self.changed:
                self.fail(self.changed[node.id], "buffer %s is changed after it is built (%s), which no fill of "
                          "kopt's says" % (node.id, ast.unparse(self.changed[node.id]).strip()))
            return tensor
        return None

    def tensor(self, node, dim_of):
        """A Tensor for a constructor call, or None when `node` builds none."""
        if isinstance(node, ast.Name):
            return self.local_tensor(node, dim_of)
        if isinstance(node, ast.BinOp):
            return self.scaled(node, dim_of)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return self.negated(node, dim_of)
        if not isinstance(node, ast.Call):
            return None
        callee = ast.unparse(node.func)
        args = node.args
        if isinstance(node.func, ast.Attribute) and (isinstance(node.func.value, ast.Call) or (
                isinstance(node.func.value, ast.Name) and node.func.value.id in self.expressions)):
            base = self.tensor(node.func.value, dim_of)  # torch.empty(...).uniform_(a, b), x.flatten()
            if base is None:
                return None
            if node.func.attr in KEPT_BY:
                return Tensor(flattened(base.shape) if node.func.attr in FLATTENING else base.shape, base.init)
            if node.func.attr == "repeat":
                return self.repeated(node, base)
            return Tensor(base.shape, self.fill_method(node, node.func.attr, args))
        shape_of = lambda index: self.shape(args[index], dim_of) if len(args) > index \
            else self.fail(node, "%s without a shape" % callee)
        def argument(index, keyword):  # LeetGPU's RandnTensor((M, K), std=0.02): by place or by name
            return args[index] if len(args) > index else next((k.value for k in node.keywords if k.arg == keyword), None)

        def required(index, keyword):
            given = argument(index, keyword)
            return given if given is not None else self.fail(node, "%s without its %s" % (callee, keyword))

        def bound(index, keyword, default):
            given = argument(index, keyword)
            return default if given is None else self.number(given)
        leaf = callee.split(".")[-1]
        if leaf == "OutTensor":
            return Tensor(shape_of(0), None)
        if leaf in ("empty", "zeros", "ones"):  # torch.empty(M, K) and torch.empty((M, K)) alike
            return Tensor(self.shape_args(node, dim_of), {"empty": None}.get(leaf, leaf))
        if leaf == "rand":
            return Tensor(self.shape_args(node, dim_of), "uniform(0,1)")
        if leaf == "randn":
            return Tensor(self.shape_args(node, dim_of), "normal")
        if leaf == "randint":
            low, high = (("0", self.bound_text(args[0], dim_of)) if len(args) == 2
                         else (self.bound_text(args[0], dim_of), self.bound_text(args[1], dim_of)))
            if low != "0" and len(args) > 2 and isinstance(args[1], ast.Constant):
                high = str(self.number(args[1]))  # randint(-128, 128): a type's range, not [0, a dim)
            return Tensor(self.shape(args[-1], dim_of), "int[%s,%s)" % (low, high))
        if leaf == "RandTensor":
            return Tensor(shape_of(0), "uniform(%s,%s)" % (bound(1, "low", 0.0), bound(2, "high", 1.0)))
        if leaf == "RandnTensor":
            return Tensor(shape_of(0), "normal(%s,%s)" % (bound(1, "mean", 0.0), bound(2, "std", 1.0)))
        if leaf == "RandIntTensor":
            return Tensor(shape_of(0), "int[%s,%s)" % (self.bound_text(required(1, "low"), dim_of),
                                                       self.bound_text(required(2, "high"), dim_of)))
        if leaf == "FullTensor":
            return Tensor(shape_of(0), self.constant_fill(node, bound(1, "value", 0.0)))
        if leaf == "full":
            return Tensor(shape_of(0), self.constant_fill(node, bound(1, "fill_value", 0.0)))
        if leaf == "tensor" and args:  # torch.tensor([0.9]): one value everywhere; [100.0, 200.0]: those
            leaves = list(literal_leaves(args[0])) if nested_extents(args[0]) else [None]
            if None in leaves or not all(math.isfinite(v) for v in leaves):
                return None
            extents = [str(e) for e in nested_extents(args[0])]
            if len(set(leaves)) == 1:
                return Tensor(extents, self.constant_fill(node, leaves[0]))
            return Tensor(extents, values_text(leaves))
        if leaf == "eye" and args:  # a small identity (33_ordinary_least_squares' X) as its values
            n, m = self.number(args[0]), self.number(args[1]) if len(args) > 1 else self.number(args[0])
            if n * m > kopt_suite_shim.MAX_VALUES:
                return None
            return Tensor([str(n), str(m)], values_text(kopt_suite_shim.identity(n, m)))
        if callee == "torch.sort" and len(args) == 1 and not node.keywords:  # ascending: sorted(FILL)
            base = self.tensor(args[0], dim_of)
            if base is None or not (base.init or "").startswith(("uniform", "normal", "int")):
                return None
            return Tensor(base.shape, "sorted(%s)" % base.init)
        if leaf in LIKE_FILLS and args:
            base = self.tensor(args[0], dim_of)
            if base is None:
                self.fail(node, "%s of %s, whose shape this reader cannot follow" % (leaf, ast.unparse(args[0])))
            return Tensor(base.shape, LIKE_FILLS[leaf])
        return None

    def scaled(self, node, dim_of):
        """`torch.rand(n) * 2 - 1`, `torch.randn(n) * 3.0`: the fill moved and stretched."""
        if type(node.op) not in (ast.Add, ast.Sub, ast.Mult, ast.Div):
            return None
        base = self.tensor(node.left, dim_of)
        if base is None or base.init is None:
            return None
        try:
            amount = self.number(node.right)
        except CannotRead:
            return None  # a tensor times a tensor: no fill of kopt's
        init = affine_fill(base.init, type(node.op), amount)
        if init is None:
            self.fail(node, "a buffer filled with %s (kopt fills with zeros, ones or random values)" % ast.unparse(node))
        return Tensor(base.shape, init)

    def negated(self, node, dim_of):
        """`-torch.rand(n)`: the fill mirrored (94_ssm_selective_scan's negative A)."""
        base = self.tensor(node.operand, dim_of)
        if base is None or base.init is None or base.init == "zeros":
            return base
        init = affine_fill(base.init, ast.Mult, -1.0)
        if init is None:
            self.fail(node, "a buffer filled with %s (kopt fills with zeros, ones or random values)" % ast.unparse(node))
        return Tensor(base.shape, init)

    def shape_args(self, node, dim_of):
        """torch.rand(M, N) and torch.rand((M, N)) alike."""
        if len(node.args) == 1:
            return self.shape(node.args[0], dim_of)
        return [strip_parentheses(self.size(arg, dim_of)) for arg in node.args]

    def constant_fill(self, node, value):
        """One value everywhere: zeros, ones, or full(v) (torch.full(n, 0.9), FullTensor(shape, 999))."""
        if value in (0, 1):
            return "zeros" if value == 0 else "ones"
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            return "full(%r)" % value
        self.fail(node, "a buffer filled with %s (kopt fills with zeros, ones, full(v) of a finite v or random values)" % value)

    def repeated(self, node, base):
        """A literal matrix or vector tiled (torch.eye(8).repeat(2, 1)); refused for anything else."""
        repeats = [self.number(a) for a in node.args]
        if not (base.init or "").startswith("values(") or len(repeats) != len(base.shape) \
                or not all(extent.isdigit() for extent in base.shape):
            self.fail(node, "%s repeats data no fill of kopt's lists" % ast.unparse(node))
        shape = [int(extent) for extent in base.shape]
        values = kopt_suite_shim.tiled(listed_values(base.init), shape, repeats)
        return Tensor([str(e * r) for e, r in zip(shape, repeats)], values_text(values))

    def fill_method(self, node, name, args):
        if name == "uniform_":
            low = self.number(args[0]) if args else 0.0
            high = self.number(args[1]) if len(args) > 1 else 1.0
            return "uniform(%s,%s)" % (low, high)
        if name == "normal_":
            mean = self.number(args[0]) if args else 0.0
            std = self.number(args[1]) if len(args) > 1 else 1.0
            return "normal(%s,%s)" % (mean, std)
        if name == "zero_":
            return "zeros"
        self.fail(node, "a buffer filled by .%s(...)" % name)

    def returned_test(self):
        """(reader, node): the value the method returns and the reader that knows its locals
        (the helper's, where the method returns a helper's test)."""
        returned = self.walk(self.function.body)
        if returned is None:
            self.fail(self.function, "no return")
        if isinstance(returned, ast.Name) and returned.id in self.expressions:
            returned = self.expressions[returned.id]
        helper = self.helper_reader(returned)
        return helper.returned_test() if helper is not None else (self, returned)

    def walk(self, statements):
        """Follows assignments and `if`s on known switches; the returned node, or None."""
        for statement in statements:
            if isinstance(statement, ast.Return):
                return statement.value
            if isinstance(statement, (ast.Assign, ast.AugAssign, ast.Expr)):
                self.note_change(statement)
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
                for name, value in assigned_pairs(statement.targets[0], statement.value):
                    self.assign(name, value)
            elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) \
                    and statement.value is not None:
                self.assign(statement.target.id, statement.value)
            elif isinstance(statement, ast.If):
                taken = self.switch(statement.test)
                if taken is None:
                    continue  # a branch it cannot decide: its assignments stay unknown
                returned = self.walk(statement.body if taken else statement.orelse)
                if returned is not None:
                    return returned
        return None

    def note_change(self, statement):
        """`x[0] = 1`, `x += 1`, `x.clamp_(0, 1)`: the elements of local x are no longer its fill's."""
        targets = [t for t in statement.targets if isinstance(t, (ast.Subscript, ast.Attribute))] \
            if isinstance(statement, ast.Assign) else [statement.target] if isinstance(statement, ast.AugAssign) else []
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) \
                and isinstance(statement.value.func, ast.Attribute) and statement.value.func.attr.endswith("_"):
            targets = [statement.value.func.value]
        for target in targets:
            while isinstance(target, (ast.Subscript, ast.Attribute)):
                target = target.value
            if isinstance(target, ast.Name):
                self.changed.setdefault(target.id, statement)

    def without(self, names):
        """A copy that no longer knows `names`: inside a loop or a branch they are what it binds
        there, not what they were before it."""
        other = copy.copy(self)
        other.values = {k: v for k, v in self.values.items() if k not in names}
        other.expressions = {k: v for k, v in self.expressions.items() if k not in names}
        other.flags = {k: v for k, v in self.flags.items() if k not in names}
        return other

    def assign(self, name, value):
        if name in self.expressions:  # `x = x.flatten()`: the x it reads is the one before
            value = Substituted(name, self.expressions[name]).visit(copy.deepcopy(value))
        self.expressions[name] = value
        self.values.pop(name, None)
        try:
            self.values[name] = self.number(value)
        except CannotRead:
            pass

    def switch(self, test):
        """True or False for `if flag:` / `if not flag:` on a known switch, else None."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self.switch(test.operand)
            return None if inner is None else not inner
        if isinstance(test, ast.Name):
            return self.flags.get(test.id)
        return None

    def helper_reader(self, node):
        """A reader of the helper that `self.NAME(...)` calls, its parameters bound; None when
        `node` is no call of a method of the class."""
        if self.cls is None or not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute) \
                or not isinstance(node.func.value, ast.Name) or node.func.value.id != "self":
            return None
        try:
            helper = method(self.cls, node.func.attr, self.path)
        except CannotRead:
            return None
        if self.depth >= MAX_HELPER_DEPTH:
            self.fail(node, "helpers that call helpers %d deep" % MAX_HELPER_DEPTH)
        reader = TestReader(self.path, helper, self.cls, self.depth + 1)
        for name, value in bound_arguments(helper, node, self.path).items():
            value = self.inlined(self.resolved(value))
            if isinstance(value, ast.Constant) and isinstance(value.value, bool):
                reader.flags[name] = value.value
            reader.assign(name, value)
        return reader

    def inlined(self, node):
        """An argument with the caller's tuple locals written in (`uniform_(emb_range[0], ...)`
        passed on to a helper that has no emb_range of its own)."""
        for name, value in self.expressions.items():
            if isinstance(value, (ast.Tuple, ast.List)):
                node = Substituted(name, value).visit(copy.deepcopy(node))
        return node

    def resolved(self, node):
        """A local passed on to a helper, as what it was bound to."""
        while isinstance(node, ast.Name) and node.id in self.expressions and self.expressions[node.id] is not node:
            node = self.expressions[node.id]
        return node


# Inside arithmetic, a literal up to this stays a number even where one dim has its value.
SMALL_LITERAL = 16
# How many helpers deep a test may be built (a helper that calls itself stops here).
MAX_HELPER_DEPTH = 8
# Tensor methods that keep the values: the shape too, or (FLATTENING) one axis of all of them.
KEPT_BY = {"to", "contiguous", "float", "half", "bfloat16", "cuda", "clone", "detach", "flatten", "ravel"}
FLATTENING = {"flatten", "ravel"}
# torch.X_like(t): t's shape, this fill (None: a pure output).
LIKE_FILLS = {"empty_like": None, "zeros_like": "zeros", "ones_like": "ones", "rand_like": "uniform(0,1)",
              "randn_like": "normal"}


class Substituted(ast.NodeTransformer):
    """Every read of one local replaced by the node it was bound to."""

    def __init__(self, name, value):
        self.name = name
        self.value = value

    def visit_Name(self, node):
        return self.value if node.id == self.name else node


def flattened(shape):
    if len(shape) <= 1:
        return shape
    return [" * ".join(dim if dim.isidentifier() or dim.isdigit() else "(%s)" % dim for dim in shape)]


def random_fill(init):
    """(kind, a, b) of a normal or uniform fill as this reader spells it (`normal` is normal(0,1));
    None for any other."""
    if init == "normal":
        return "normal", 0.0, 1.0
    kind, _, rest = (init or "").partition("(")
    if kind not in ("uniform", "normal") or not rest.endswith(")"):
        return None
    try:
        a, b = (float(x) for x in rest[:-1].split(","))
    except ValueError:
        return None
    return kind, a, b


def affine_fill(init, op, amount):
    """A random fill after `* a`, `/ a`, `+ b`, `- b`; None for anything else."""
    parsed = random_fill(init)
    if parsed is None:
        return None
    kind, a, b = parsed
    if op is ast.Div:
        if amount == 0:
            return None
        op, amount = ast.Mult, 1.0 / amount
    if op is ast.Mult:
        if kind == "normal":
            return "normal(%s,%s)" % (a * amount, b * abs(amount))
        low, high = sorted((a * amount, b * amount))
        return "uniform(%s,%s)" % (low, high)
    shift = amount if op is ast.Add else -amount
    return "%s(%s,%s)" % (kind, a + shift, b + (shift if kind == "uniform" else 0))


def bound_arguments(function, call, path):
    """parameter -> argument node of `call` to `function` (a method: `self` skipped), defaults
    filling what the call leaves out."""
    params = [a.arg for a in function.args.args][1:]
    defaults = function.args.defaults
    bound = dict(zip(params[len(params) - len(defaults):], defaults)) if defaults else {}
    if len(call.args) > len(params) or any(isinstance(a, ast.Starred) for a in call.args):
        raise CannotRead("%s:%d: a call of %s this reader cannot bind" % (path, line_of(call), function.name))
    bound.update(zip(params, call.args))
    for keyword in call.keywords:
        if keyword.arg is None or keyword.arg not in params:
            raise CannotRead("%s:%d: a call of %s this reader cannot bind" % (path, line_of(call), function.name))
        bound[keyword.arg] = keyword.value
    return bound


def assigned_pairs(target, value):
    """(name, value node) of `N = 5`, of `M, N = 4, 5` and of `A, _ = torch.sort(x)` (A is the sort:
    its values)."""
    if isinstance(target, ast.Name):
        return [(target.id, value)]
    if isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name) \
            and isinstance(value, ast.Call) and ast.unparse(value.func) == "torch.sort":
        return [(target.elts[0].id, value)]
    if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
        return [pair for t, v in zip(target.elts, value.elts) for pair in assigned_pairs(t, v)]
    return []


def strip_parentheses(text):
    return text[1:-1] if text.startswith("(") and text.endswith(")") else text


def test_dict(reader, node):
    if not isinstance(node, ast.Dict) or any(key is None for key in node.keys):
        reader.fail(node, "the test is not a dict literal")
    return {ast.literal_eval(key): value for key, value in zip(node.keys, node.values)}


def scalar_dims(reader, entries, params):
    """The scalar parameters' values, and which local each one was written as."""
    dims, dim_of = {}, {}
    for name, (kind, _, _) in params.items():
        if kind != "scalar":
            continue
        if name not in entries:
            reader.fail(reader.function, "the test gives no value for %s" % name)
        dims[name] = reader.number(entries[name])
        if isinstance(entries[name], ast.Name):
            dim_of[entries[name].id] = name
    return dims, dim_of


def performance_problem(path, cls, function, params, record=None, notes=None):
    """The performance test's dims and buffers as the source says them; a buffer the source
    reading cannot follow (built by a helper it does not know, changed after it is built) is taken
    from the test as the stand-in ran it (`record`), where kopt has a fill for what it holds."""
    reader, returned = TestReader(path, function, cls).returned_test()
    entries = test_dict(reader, returned)
    dims, dim_of = scalar_dims(reader, entries, params)
    reader.dims = dims
    buffers = {}
    for name, (kind, role, element_bytes) in params.items():
        if kind != "buffer":
            continue
        node = entries.get(name)  # a local is followed by tensor(), which knows what changed it since
        try:
            tensor = reader.tensor(node, dim_of) if node is not None else None
            if tensor is None:
                reader.fail(node or function, "buffer %s is not built by a constructor this reader knows"
                            % name)
        except CannotRead as unread:
            tensor = recorded_tensor(reader, record, name)
            if tensor is None:
                raise CannotRead("%s (%s)" % (unread, recorded_reason(record, name))) from None
            if notes is not None:
                notes.append("buffer %s of the performance test is %s as the generator ran (the source reading "
                             "stops at %s)" % (name, tensor.init, str(unread).split(": ", 1)[0].rsplit("/", 1)[-1]))
        buffer = {"shape": tensor.shape, "role": role, "element_bytes": element_bytes}
        if role != "input" and tensor.init not in (None, "zeros"):
            buffer["role"] = "inout"  # the kernel reads what the test put there
        if tensor.init is not None and (role != "output" or tensor.init == "zeros"):
            buffer["init"] = tensor.init
        buffers[name] = buffer
    return dims, buffers


def recorded_tensor(reader, record, name):
    """A performance test's buffer as the stand-in recorded it (shape and fill), its sizes named by
    the dims they equal; None where there is no record or kopt spells no fill of what it holds."""
    tensor = record["performance"]["tensors"].get(name) if record else None
    if tensor is None:
        return None
    named = lambda n: reader.by_value(n) if isinstance(n, int) and n > SMALL_LITERAL else str(n)
    init = None if tensor["fill"][0] == "empty" else fill_text(tensor["fill"], tensor["dtype"], named)
    if init is None and tensor["fill"][0] != "empty":
        return None
    return Tensor([named(n) for n in tensor["shape"]], init)


def recorded_reason(record, name):
    """Why the performance test's buffer could not be taken as the generator ran it either."""
    if record is None:
        return "nor do the generators run under kopt's stand-in torch"
    tensor = record["performance"]["tensors"].get(name)
    if tensor is None:
        return "nor does the test as run build it"
    return "as the generator ran it, it holds %s, which no fill of kopt's draws" % fill_reason(tensor["fill"])


def functional_cases(path, cls, params, notes, observed=None, buffers=None):
    """Each functional test whose scalars are numbers, as a case; others are left out, noted.
    The method's statements are followed in order, so a test reads the locals bound before it
    (`N, C = 1, 4` then `tests.append({... "N": N ...})`); a test built by a helper of the class
    is read in the helper. `observed` gets (dims, {buffer: its extents}) of each such test whose
    buffers are built with literal sizes in the method itself (what tells apart two dims of one
    value: axis_names). `buffers`: the performance test's; a test that fills an input otherwise
    keeps its fill as the case's own `init` (other_fills)."""
    try:
        function = method(cls, "generate_functional_test", path)
    except CannotRead:
        return []
    cases = []
    local = TestReader(path, function, cls)  # the method's locals as its statements bind them
    for statement in function.body:
        reader = local if not hasattr(statement, "body") else local.without(names_bound_in(statement))
        for node in ast.walk(statement):
            take_functional_test(reader, node, params, notes, cases, observed, buffers)
        try:
            local.walk([statement])
        except CannotRead:
            pass
        if hasattr(statement, "body") and not (isinstance(statement, ast.If) and local.switch(statement.test) is not None):
            local = local.without(names_bound_in(statement))  # after a loop, its locals are what it left
    return cases


def names_bound_in(statement):
    """Every local a statement binds anywhere inside it (a loop's variable, a branch's locals)."""
    return {n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def take_functional_test(local, node, params, notes, cases, observed, buffers=None):
    """Appends the case of `node` when it is a functional test (a dict literal, or a helper's)."""
    reader = local
    try:
        helper = local.helper_reader(node)
        if helper is not None:  # tests.append(self._make_test_case(1, 4))
            reader, node = helper.returned_test()
    except CannotRead:
        notes.append("functional test at line %d left out: its helper cannot be followed" % node.lineno)
        return
    if not (isinstance(node, ast.Dict) and all(isinstance(k, ast.Constant) for k in node.keys)):
        return
    keys = {k.value for k in node.keys}
    if not all(name in keys for name, (kind, _, _) in params.items() if kind == "scalar"):
        return
    try:
        dims, dim_of = scalar_dims(reader, test_dict(reader, node), params)
    except CannotRead:
        notes.append("functional test at line %d left out: its sizes are computed" % node.lineno)
        return
    name = " ".join("%s=%s" % (k, v) for k, v in dims.items())
    fills = other_fills(reader, test_dict(reader, node), dim_of, buffers or {})
    name += "".join(" %s=%s" % (k, v) for k, v in fills.items())
    if all(case["name"] != name for case in cases):
        cases.append(dict({"name": name, "dims": dims}, **({"init": fills} if fills else {})))
    if observed is not None and reader.function is local.function:
        observed.append((dims, literal_extents(reader.path, reader.function, test_dict(reader, node), node.lineno)))


def other_fills(reader, entries, dim_of, buffers):
    """buffer -> fill of each input a functional test fills otherwise than the performance test
    (a test of zeros, a narrower range): the case's own `init`, so that an edge case stays one."""
    fills = {}
    for name, buffer in buffers.items():
        if buffer["role"] == "output" or name not in entries:
            continue
        try:
            tensor = reader.tensor(entries[name], dim_of)
        except CannotRead:
            continue
        if tensor is None or tensor.init is None:
            continue  # values written out, or built by code: nothing to hold against the fill
        if canonical_fill(tensor.init) != canonical_fill(buffer.get("init")):
            fills[name] = tensor.init
    return fills


def canonical_fill(init):
    """One spelling of a fill: normal is normal(0.0,1.0), numbers as floats."""
    parsed = random_fill(init)
    return init if parsed is None else "%s(%r,%r)" % parsed


def last_assignment(function, name, before_line):
    """The value last bound to `name` by a plain assignment before `before_line`, or None."""
    found = None
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and node.lineno < before_line and (found is None or node.lineno > found.lineno) \
                and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            found = node
    return found.value if found is not None else None


def values_text(values):
    """values(...) of a list of numbers, whole ones written as integers."""
    return "values(%s)" % ",".join(str(int(v)) if float(v).is_integer() else repr(float(v)) for v in values)


def listed_values(init):
    """The numbers of a values(...) text."""
    return [float(v) for v in init[len("values("):-1].split(",")]


def literal_leaves(node):
    """The numbers of a nested list literal (None for anything that is not one)."""
    if isinstance(node, (ast.List, ast.Tuple)):
        for element in node.elts:
            yield from literal_leaves(element)
        return
    try:
        value = ast.literal_eval(node)
    except ValueError:
        value = None
    yield value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def nested_extents(node):
    """The extents of a nested list literal ([[1, 2], [3, 4]] is [2, 2]), or None."""
    extents = []
    while isinstance(node, (ast.List, ast.Tuple)):
        extents.append(len(node.elts))
        if not node.elts:
            break
        node = node.elts[0]
    return extents or None


def literal_extents(path, function, entries, line):
    """buffer -> its extents as numbers, for the buffers of one functional test built with
    literal sizes (torch.empty(2, 4), torch.tensor([[...], [...]]), bound to a local before)."""
    extents = {}
    for name, value in entries.items():
        if isinstance(value, ast.Name):
            value = last_assignment(function, value.id, line)
        if isinstance(value, ast.Call) and ast.unparse(value.func).split(".")[-1] == "tensor" and value.args:
            found = nested_extents(value.args[0])
            if found:
                extents[name] = found
            continue
        try:
            tensor = TestReader(path, function).tensor(value, {}) if value is not None else None
            if tensor is not None and all(dim.isdigit() for dim in tensor.shape):
                extents[name] = [int(dim) for dim in tensor.shape]
        except CannotRead:
            continue
    return extents


def axis_names(buffers, dims, observed):
    """An axis the performance test sized by a literal that two dims equal (1024 for N and
    d_model) becomes the one dim whose value that axis has in every functional test that shows
    it, where exactly one does."""
    for name, buffer in buffers.items():
        for axis, text in enumerate(buffer["shape"]):
            if not text.isdigit():
                continue
            candidates = [d for d, v in dims.items() if isinstance(v, int) and not isinstance(v, bool) and v == int(text)]
            seen = [(case_dims, shapes[name]) for case_dims, shapes in observed
                    if name in shapes and len(shapes[name]) == len(buffer["shape"])]
            if len(candidates) < 2 or not seen:
                continue
            fitting = [d for d in candidates if all(case_dims.get(d) == extents[axis] for case_dims, extents in seen)]
            if len(fitting) == 1:
                buffer["shape"][axis] = fitting[0]


def module_numbers(tree):
    """name -> number of each module-level `D = 768` (a constant the tests size buffers by)."""
    numbers = {}
    for name, value in module_assignments(tree).items():
        if isinstance(value, ast.Constant) and isinstance(value.value, (int, float)) and not isinstance(value.value, bool):
            numbers[name] = value.value
    return numbers


def leetgpu(path):
    tree = parse(path)
    TestReader.module_values = module_numbers(tree)
    cls = class_named(tree, "Challenge", path)
    constants = class_constants(cls, path)
    params = solve_signature(cls, path)
    try:
        record, shim_failure = kopt_suite_shim.leetgpu(path), None
    except kopt_suite_shim.ShimFailure as e:  # the source's reading stands, with its notes
        record, shim_failure = None, e
    notes = []
    dims, buffers = performance_problem(path, cls, method(cls, "generate_performance_test", path), params,
                                        record, notes)
    facts = {"format": "leetgpu", "name": str(constants.get("name", "")), "dims": dims,
             "buffers": buffers, "params": [{"name": n, "kind": k, "role": r} for n, (k, r, _) in params.items()],
             "notes": notes}
    observed, read_notes = [], []
    facts["cases"] = functional_cases(path, cls, params, read_notes, observed, buffers)
    axis_names(buffers, dims, observed)
    if record is None:
        notes.extend(read_notes)
        notes.append("the functional tests were read from the source, not run: %s"
                     % str(shim_failure).split(": ", 1)[-1])
    else:
        facts["cases"] = recorded_cases(record, dims, buffers, params, notes)
    for name, buffer in buffers.items():
        fixed = not any(any(c.isalpha() or c == "_" for c in dim) for dim in buffer["shape"])
        if facts["cases"] and fixed and any(dim != "1" for dim in buffer["shape"]):  # a scalar result is 1 everywhere
            notes.append("buffer %s is %s in every case (its size names no dim): check it" % (name, " x ".join(buffer["shape"])))
    tolerance = {k: constants[k] for k in ("atol", "rtol") if isinstance(constants.get(k), (int, float))}
    if tolerance:
        facts["tolerance"] = tolerance
    return facts


# ---------------------------------------------------------------- the tests as the suite runs them

# torch's dtype names that kopt spells otherwise (data/dtypes.toml); bool is pinned by no dtype.
KOPT_DTYPES = {"float8_e4m3fn": "float8_e4m3"}
INTEGER_DTYPES = {"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"}


def fill_text(fill, dtype, named=str):
    """kopt's spelling of a recorded fill (kopt_suite_shim), or None where no fill of kopt's draws it.
    `named`: how a row length n is written (a performance test's: the dim it equals)."""
    kind = fill[0]
    if kind in ("set", "cat"):
        return written_text(fill, dtype, named)
    if kind == "const":
        value = fill[1]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return None
        if value in (0, 1):
            return "zeros" if value == 0 else "ones"
        if dtype in INTEGER_DTYPES and value != int(value):
            return None
        return "full(%d)" % value if dtype in INTEGER_DTYPES else "full(%r)" % float(value)
    if kind in ("uniform", "normal"):
        return "%s(%s,%s)" % (kind, float(fill[1]), float(fill[2]))
    if kind == "int":
        return "int[%d,%d)" % (fill[1], fill[2])
    if kind == "sorted":
        inner = fill_text(fill[1:], dtype)
        return None if inner is None else "sorted(%s)" % inner
    if kind == "choice":
        if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in fill[1:3]) or \
                (dtype in INTEGER_DTYPES and any(v != int(v) for v in fill[1:3])):
            return None
        pair = ",".join(str(int(v)) if dtype in INTEGER_DTYPES else repr(float(v)) for v in fill[1:3])
        return "choice(%s)" % pair if fill[3] == 0.5 else "choice(%s,%r)" % (pair, fill[3])
    if kind in ("tril", "triu", "softmax", "plus_eye", "halves"):  # [kind, n, (v,) FILL...], as the stand-in records
        after = 2 if kind == "plus_eye" else 1
        inner = fill_text(fill[1 + after:], dtype)
        return None if inner is None else "%s(%s,%s)" % (kind, inner, ",".join([named(fill[1])] + [str(x) for x in fill[2:1 + after]]))
    if kind == "values" and all(isinstance(v, (int, float)) for v in fill[1]):
        integer = dtype in INTEGER_DTYPES or dtype == "bool"
        if integer and any(not math.isfinite(v) or v != int(v) for v in fill[1]):
            return None
        # repr writes inf, -inf and nan as kopt's values(...) reads them (a floating buffer's edge data)
        return "values(%s)" % ",".join(str(int(v)) if integer else repr(float(v)) for v in fill[1])
    return None


def written_text(fill, dtype, named=str):
    """set(FILL, v, SELECTOR...) of a fill with elements written over it, cat(FILL:n, ...) of
    flat tensors concatenated; None where a part has no spelling."""
    if fill[0] == "cat":
        parts = [(fill_text(segment, dtype), count) for count, segment in fill[1]]
        return None if any(p is None for p, _ in parts) else "cat(%s)" % ",".join("%s:%d" % p for p in parts)
    inner = fill_text(fill[3:], dtype, named)
    value = fill[1]
    if inner is None or (dtype in INTEGER_DTYPES and value != int(value)):
        return None
    value_text = str(int(value)) if dtype in INTEGER_DTYPES else repr(float(value))
    return "set(%s,%s,%s)" % (inner, value_text, ",".join(selector_text(s) for s in fill[2]))


def selector_text(selector):
    """An index (-1: the last), a slice start:stop[:step[:width]] (an end left open empty), or
    walk(start,lo,hi)."""
    if isinstance(selector, int):
        return str(selector)
    if selector[0] == "walk":
        return "walk(%d,%d,%d)" % tuple(selector[1:])
    _, start, stop, step, width = selector
    parts = ["" if start is None else str(start), "" if stop is None else str(stop)]
    if step != 1 or width != 1:
        parts.append(str(step))
    if width != 1:
        parts.append(str(width))
    return ":".join(parts)


def short_init(init):
    """A fill as a case's name shows it: a literal list by its length."""
    return "%d literal values" % (init.count(",") + 1) if init.startswith("values(") else init


def fill_reason(fill):
    """Why a recorded fill has no kopt spelling, for the note that leaves its test out."""
    if fill[0] == "values":  # values(...) holds whole numbers only on an integer buffer
        return "%d literal values, not all whole finite numbers of its integer type" % len(fill[1])
    if fill[0] == "const":
        return "the value %r everywhere" % (fill[1],)
    return "data built by code (%s)" % fill[1]


def same_init(a, b):
    return a == b or canonical_fill(a) == canonical_fill(b)


def pin_dtypes(record, buffers, notes):
    """Each buffer's dtype as the performance test builds it ([buffers.x] dtype), where its
    width is the signature's; an integer output compared exactly."""
    tests = [record["performance"]] + record["functional"]
    for name, buffer in buffers.items():
        seen = {t["tensors"][name]["dtype"] for t in tests if name in t["tensors"]}
        if len(seen) != 1:
            if seen:
                notes.append("buffer %s is %s in different tests: its dtype is not pinned" % (name, " and ".join(sorted(seen))))
            continue
        torch_name = seen.pop()
        dtype = KOPT_DTYPES.get(torch_name, torch_name)
        if dtype == "bool" or kopt_suite_shim.DTYPES[torch_name].itemsize != buffer["element_bytes"]:
            continue
        buffer["dtype"] = dtype
        if buffer["role"] != "input" and dtype in INTEGER_DTYPES:
            buffer["exact"] = True


def output_starts(record, buffers):
    """An output starts at zeros only where every test zeroes it: one the tests leave
    uninitialised is poisoned, so that a kernel must write every element."""
    tests = [record["performance"]] + record["functional"]
    for name, buffer in buffers.items():
        if buffer["role"] != "output" or buffer.get("init") != "zeros":
            continue
        if any(t["tensors"].get(name, {}).get("fill", ["const", 0]) != ["const", 0] for t in tests):
            del buffer["init"]


def sized_by_dims(record, buffers, params):
    """A buffer the performance test sizes by a number (agents of 4 * 10000 floats) takes the dims
    its size follows in every test: one dim, or two, times a whole number (N * 4)."""
    tests = [record["performance"]] + record["functional"]
    scalars = [name for name, (kind, _, _) in params.items() if kind == "scalar"]
    for name, buffer in buffers.items():
        if any(re.search(r"[A-Za-z_]", extent) for extent in buffer["shape"]):
            continue  # a number or numbers only (32 * 32, a flattened identity): sized by no dim yet
        seen = [(t["scalars"], math.prod(t["tensors"][name]["shape"])) for t in tests if name in t["tensors"]]
        if len({count for _, count in seen}) < 2:
            continue  # one size in every test: the number is right
        for factors in [[d] for d in scalars] + [[a, b] for i, a in enumerate(scalars) for b in scalars[i + 1:]]:
            products = [math.prod(s.get(d, 0) for d in factors) for s, _ in seen]
            if not all(isinstance(p, int) and p > 0 and count % p == 0 for p, (_, count) in zip(products, seen)):
                continue
            ratios = {count // p for p, (_, count) in zip(products, seen)}
            if len(ratios) == 1:
                ratio = ratios.pop()
                buffer["shape"] = [" * ".join(factors + ([str(ratio)] if ratio != 1 else []))]
                break


def recorded_case(test, dims, buffers, params):
    """(dims, own fills) of one recorded functional test, or (None, why it is left out)."""
    case_dims = dict(dims)
    for name, (kind, _, _) in params.items():
        if kind != "scalar":
            continue
        if name not in test["scalars"]:
            return None, "it gives no number for %s" % name
        case_dims[name] = test["scalars"][name]
    inits = {}
    for name, buffer in buffers.items():
        tensor = test["tensors"].get(name)
        if tensor is None:
            return None, "it builds no tensor for %s" % name
        try:
            elements = kopt_suite_shim.size_of(buffer["shape"], case_dims)
        except (KeyError, ValueError, ZeroDivisionError):
            elements = None
        if elements != math.prod(tensor["shape"]):
            return None, "its %s has %d elements where the spec's shape %s gives %s" % (
                name, math.prod(tensor["shape"]), " x ".join(buffer["shape"]), elements)
        if buffer["role"] == "output" or tensor["fill"][0] == "empty":
            continue
        init = fill_text(tensor["fill"], tensor["dtype"])
        if init is None:
            return None, "its %s holds %s, which no fill of kopt's draws" % (name, fill_reason(tensor["fill"]))
        if not same_init(init, buffer.get("init")):
            inits[name] = init
    return (case_dims, inits), None


def recorded_cases(record, dims, buffers, params, notes):
    """Every functional test the suite runs (kopt_suite_shim) as a case, its own fills kept; one
    that no case can hold (literal values, data built by code, a shape the spec cannot give) is
    left out and named in the notes, each one."""
    pin_dtypes(record, buffers, notes)
    output_starts(record, buffers)
    sized_by_dims(record, buffers, params)
    cases, seen, left_out = [], {(json.dumps(dims, sort_keys=True), "{}")}, []
    for test in record["functional"]:
        found, why = recorded_case(test, dims, buffers, params)
        scalars = " ".join("%s=%s" % (k, v) for k, v in test["scalars"].items())
        if found is None:
            left_out.append(test["index"])
            notes.append("test %d (%s) left out: %s" % (test["index"], scalars, why))
            continue
        case_dims, inits = found
        key = (json.dumps(case_dims, sort_keys=True), json.dumps(inits, sort_keys=True))
        if key in seen:
            continue  # the same sizes and fills as a case before: that case checks it
        seen.add(key)
        own = ["%s=%s" % (buffer, short_init(init)) for buffer, init in inits.items()]
        name = "test %d: %s" % (test["index"], " ".join([scalars] + own).strip())
        cases.append(dict({"name": name, "dims": case_dims}, **({"init": inits} if inits else {})))
    if left_out:
        notes.insert(0, "%d of %d functional tests left out (tests %s); each is named below"
                     % (len(left_out), len(record["functional"]), ", ".join(str(i) for i in left_out)))
    return cases


# ---------------------------------------------------------------- Triton @triton.autotune

# triton.Config's keyword arguments besides the kernel's own (its first argument, a dict).
CONFIG_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")


def called_name(node):
    """`triton.autotune` / `autotune` / `triton.Config` / `Config` of a call's function."""
    function = node.func if isinstance(node, ast.Call) else node
    if isinstance(function, ast.Attribute):
        return function.attr
    return function.id if isinstance(function, ast.Name) else None


def literal(node, what, path):
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise CannotRead("%s:%d: %s is %s, not a literal (kopt reads configs without running kernel.py)"
                         % (path, line_of(node), what, ast.unparse(node)))


def triton_config(node, kernel, path):
    if not isinstance(node, ast.Call) or called_name(node) != "Config":
        raise CannotRead("%s:%d: a config of %s's @triton.autotune is %s, not triton.Config(...)"
                         % (path, line_of(node), kernel, ast.unparse(node)))
    config = {"kwargs": literal(node.args[0], "a triton.Config's dict", path) if node.args else {}}
    if not isinstance(config["kwargs"], dict):
        raise CannotRead("%s:%d: a triton.Config's first argument is not a dict" % (path, line_of(node)))
    for keyword in node.keywords:
        if keyword.arg == "kwargs":
            config["kwargs"] = literal(keyword.value, "a triton.Config's kwargs", path)
        elif keyword.arg in CONFIG_OPTIONS:
            config[keyword.arg] = literal(keyword.value, "a triton.Config's " + keyword.arg, path)
        # pre_hook and the like change how a config runs, not which one: not part of its name
    return config


def autotune_configs(decorator, kernel, assigned, path):
    """The configs list of one @triton.autotune(...) decorator."""
    given = next((k.value for k in decorator.keywords if k.arg == "configs"), None)
    if given is None and decorator.args:
        given = decorator.args[0]
    if isinstance(given, ast.Name) and given.id in assigned:
        given = assigned[given.id]
    if not isinstance(given, (ast.List, ast.Tuple)):
        raise CannotRead("%s:%d: the configs of %s's @triton.autotune are %s, not a list of triton.Config(...) "
                         "written out (or a module-level name bound to one): write them out, or give [tune] "
                         "in kopt.toml" % (path, line_of(decorator), kernel,
                                           ast.unparse(given) if given is not None else "missing"))
    return [triton_config(element, kernel, path) for element in given.elts]


def autotune(path):
    tree = parse(path)
    assigned = module_assignments(tree)
    kernels = []
    for statement in tree.body:
        if not isinstance(statement, ast.FunctionDef):
            continue
        for decorator in statement.decorator_list:
            if isinstance(decorator, ast.Call) and called_name(decorator) == "autotune":
                kernels.append({"kernel": statement.name, "line": decorator.lineno,
                                "configs": autotune_configs(decorator, statement.name, assigned, path)})
    return {"kernels": kernels}


# ---------------------------------------------------------------- Triton launch constants

LAUNCH_OPTIONS = ("num_warps", "num_stages")


def jit_kernels(tree):
    """Each module-level @triton.jit (or @jit) function's tl.constexpr parameters, by name."""
    kernels = {}
    for statement in tree.body:
        if not isinstance(statement, ast.FunctionDef):
            continue
        if not any(called_name(d) == "jit" for d in statement.decorator_list):
            continue
        arguments = statement.args.posonlyargs + statement.args.args + statement.args.kwonlyargs
        kernels[statement.name] = {a.arg for a in arguments
                                   if a.annotation is not None and called_name(a.annotation) == "constexpr"}
    return kernels


def single_integer_assignments(statements):
    """NAME = <int literal> or NAME = OTHER_NAME among `statements`, for names assigned exactly
    once there."""
    counts, found = {}, {}
    for statement in statements:
        for node in ast.walk(statement):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                    if isinstance(target, ast.Name):
                        counts[target.id] = counts.get(target.id, 0) + 1
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                and isinstance(statement.targets[0], ast.Name) and is_integer_or_name(statement.value):
            found[statement.targets[0].id] = statement.value
    return {name: value for name, value in found.items() if counts.get(name) == 1}


def is_integer_or_name(node):
    return (isinstance(node, ast.Constant) and type(node.value) is int) or isinstance(node, ast.Name)


def same_literals(node, value):
    """Where the integer `value` is written as a literal inside `node` (a launch's grid)."""
    return [{"line": n.lineno, "col": n.col_offset, "end_col": n.end_col_offset} for n in ast.walk(node)
            if isinstance(n, ast.Constant) and type(n.value) is int and n.value == value]


def launch_constant(keyword, kernel, local, module, grid):
    """The constant a launch keyword passes: a literal, a local bound once to a literal (its
    literal is what changes, so the grid that reads the same local follows), or a module-level
    variable (settable as it is)."""
    value = keyword.value
    entry = {"kernel": kernel, "name": keyword.arg, "variable": None}
    if isinstance(value, ast.Name) and value.id in local:
        value = local[value.id]  # BLOCK_SIZE = 1024 (or = KOPT_BLOCK_SIZE) in solve, then BLOCK_SIZE=BLOCK_SIZE
    if isinstance(value, ast.Name) and isinstance(module.get(value.id), ast.Constant):
        entry.update(value=module[value.id].value, line=value.lineno, variable=value.id)
        return entry
    if not isinstance(value, ast.Constant) or type(value.value) is not int:
        return None  # computed (triton.next_power_of_2(n), an argument): not a constant
    entry.update(value=value.value, line=value.lineno, col=value.col_offset, end_col=value.end_col_offset)
    if value is keyword.value:  # written in the launch: the same literal in its grid is the same size
        entry["also"] = same_literals(grid, value.value)
    return entry


def launches(path):
    tree = parse(path)
    kernels = jit_kernels(tree)
    module = single_integer_assignments(tree.body)
    constants, seen = [], set()
    for function in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name not in kernels]:
        local = single_integer_assignments(function.body)
        for node in ast.walk(function):
            # kernel[grid](...): a call of a subscript of a @triton.jit function's name
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Subscript):
                continue
            launched = node.func.value
            if not isinstance(launched, ast.Name) or launched.id not in kernels:
                continue
            for keyword in node.keywords:
                if keyword.arg not in kernels[launched.id] and keyword.arg not in LAUNCH_OPTIONS:
                    continue
                entry = launch_constant(keyword, launched.id, local, module, node.func.slice)
                if entry is None:
                    continue
                # One entry per variable, or per literal: two launches passing the same local share it.
                where = entry["variable"] or (entry["line"], entry["col"])
                if where not in seen:
                    seen.add(where)
                    constants.append(entry)
    constants.sort(key=lambda c: (c["line"], c.get("col", 0)))
    return {"constants": constants}


COMMANDS = {"tolerance": tolerance, "leetgpu": leetgpu, "autotune": autotune, "launches": launches}

# What a refusal of `kopt import` leaves to write by hand: the part of kopt.toml (docs/check.md)
# that would say what the reader could not, by what the refusal names.
BY_HAND = [
    (r"(?:buffer|input) (\w+) is (?:not built|changed)", r"[buffers.\1] shape and init"),
    (r"parameter (\w+) has type", r"the solution's signature and [buffers.\1] (shape, init, dtype)"),
    (r"axis \d+ of buffer (\w+)", r"[buffers.\1] shape"),
    (r"(?:an input built|a buffer filled with|filled by)", "[buffers.NAME] init of that buffer, or a [[cases]] "
                                                               "without that test"),
    (r"(?:not a number|sizes are computed|is not an expression of the dims|scalar parameter)", "[dims] and "
                                                                                              "[buffers.NAME] shape"),
    (r"(?:non-const pointer|one output)", "one [buffers.NAME] per output, and a ref.py that fills them"),
    (r"(?:gives no test case|not code this reader follows|test case gives|create_inputs)", "[dims] and [[cases]]"),
]


def by_hand(message):
    """The refusal with what to write by hand: `...; write ... in kopt.toml by hand (docs/check.md)`."""
    import re
    for pattern, part in BY_HAND:
        found = re.search(pattern, message)
        if found:
            return "%s; by hand: write %s in kopt.toml (docs/check.md)" % (message, found.expand(part))
    return "%s; by hand: write kopt.toml's [dims], [buffers.NAME] shape and init, [tolerance] (docs/check.md)" % message


def main(argv):
    if len(argv) != 3 or argv[1] not in COMMANDS:
        print("PYTHON_FACTS: usage: kopt_python_facts.py {%s} FILE" % "|".join(COMMANDS),
              file=sys.stderr)
        return EXIT_FAILED
    try:
        facts = COMMANDS[argv[1]](argv[2])
    except CannotRead as e:
        print("PYTHON_FACTS: %s" % (by_hand(str(e)) if argv[1] == "leetgpu" else e), file=sys.stderr)
        return EXIT_FAILED
    print(json.dumps(facts))  # in the file's order: dims and buffers as the signature lists them
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main(sys.argv))
