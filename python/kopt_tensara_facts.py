#!/usr/bin/env python3
"""A Tensara problem definition (def.py) as kopt facts, read with Python's ast module.

    python3 kopt_tensara_facts.py tensara DEF.py

Prints one JSON object like kopt_python_facts.py's `leetgpu` (format, name, tolerance, dims,
buffers, cases, notes), with "flops" from get_flops and "class", "inputs" and "output" for
the ref.py kopt writes around reference_solution. Exit codes as there: 0 ok; 2 the file says
something this reader cannot take (last stderr line `PYTHON_FACTS: message`, naming the file,
the line and the thing). Nothing in the file is imported or run.
A def.py declares a class derived from Problem with

  parameters           the solution's arguments in order: name, type, pointer, const
  generate_test_cases  a list of test-case dicts, each with a create_inputs lambda that
                       builds the inputs with torch constructors (torch.rand(...) * 2 - 1)
  get_extra_params     the scalars passed after the output, from the test case
  get_flops            the FLOP count, from the test case
  verify_result        torch.allclose(..., rtol=..., atol=...)
  reference_solution   returns the output tensor

The harness calls solution(*create_inputs(), output, *get_extra_params(case)). This reader
follows generate_test_cases by evaluating its straight-line code over literals (loops over
literal lists included), so each case's inputs come out with numeric shapes; each axis is
then named by the scalar parameter that equals it in every case.
"""

import ast
import re
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kopt_block_scaled_facts as block_scaled  # noqa: E402  to_mx's halves (mxfp4, mxfp8)

EXIT_OK = 0
EXIT_FAILED = 2


class CannotRead(Exception):
    """A fact that is in the file but not in a form this reader takes."""


def line_of(node):
    return getattr(node, "lineno", 0)


def method(cls, name, path):
    for statement in cls.body:
        if isinstance(statement, ast.FunctionDef) and statement.name == name:
            return statement
    raise CannotRead("%s: class %s has no method %s" % (path, cls.name, name))


def parse(path):
    try:
        with open(path, "r", encoding="utf-8") as f:
            return ast.parse(f.read(), filename=path)
    except OSError as e:
        raise CannotRead("cannot read %s: %s" % (path, e.strerror))
    except UnicodeDecodeError:
        raise CannotRead("%s is not UTF-8 text" % path)
    except SyntaxError as e:
        raise CannotRead("%s:%s: not valid Python: %s" % (path, e.lineno, e.msg))

# def.py parameter types -> bytes per element.
TYPE_BYTES = {"float": 4, "double": 8, "int": 4, "size_t": 8, "uint32_t": 4, "uint64_t": 8,
              "uint8_t": 1, "int8_t": 1, "int32_t": 4, "int64_t": 8, "float16": 2, "half": 2,
              "bfloat16": 2, "uint16_t": 2, "int16_t": 2}
# The dtype each C type of `parameters` is in kopt (data/dtypes.toml), pinned in the spec.
TYPE_DTYPES = {"float": "float32", "double": "float64", "int": "int32", "size_t": "uint64", "uint32_t": "uint32",
               "uint64_t": "uint64", "uint8_t": "uint8", "int8_t": "int8", "int32_t": "int32", "int64_t": "int64",
               "float16": "float16", "half": "float16", "bfloat16": "bfloat16", "uint16_t": "uint16", "int16_t": "int16"}
MATMULS = ("matmul", "mm", "bmm")


class Opaque:
    """A value the reader does not follow (a seed, a generator, a dtype)."""


OPAQUE = Opaque()


class Tensor:
    """An input as create_inputs builds it: numeric shape and its distribution."""

    def __init__(self, shape, kind, a=0.0, b=1.0, values=None, arranged=None, p=0.5, diagonal=None):
        self.shape, self.kind, self.a, self.b = tuple(shape), kind, a, b
        self.values = values  # kind "values": the literal list, each a number or a dim's name
        self.p = p  # kind "choice": b's probability (a otherwise)
        # "tril" or "triu" of a square random matrix, "softmax" of random rows, "plus_eye" (a
        # square random matrix plus torch.eye(n) * diagonal)
        self.arranged, self.diagonal = arranged, diagonal
        self.width = shape[-1] if shape else None  # its row length; named once the axes are
        # one half of torchao's to_mx of a random source (kopt_block_scaled_facts.Quantized), and
        # that source's named axes once they are
        self.block_scaled, self.source_axes = None, None

    def scaled(self, factor):
        if self.arranged or self.block_scaled is not None:
            return None  # tril(rand) * 2 is tril(uniform(0, 2)), but no suite writes it so
        if self.kind in ("uniform", "normal"):
            low, high = (self.a * factor, self.b * factor) if self.kind == "uniform" \
                else (self.a * factor, self.b * abs(factor))
            if self.kind == "uniform" and low > high:
                low, high = high, low
            return Tensor(self.shape, self.kind, low, high)
        if self.kind == "eye":
            return Tensor(self.shape, "eye", self.a * factor)
        if self.kind == "zeros" or factor == 1:
            return self
        if self.kind == "values":
            return None  # a literal list stays as written
        if self.kind in ("ones", "full"):
            return Tensor(self.shape, "full", self.constant() * factor)
        if self.kind == "int" and self.b - self.a == 2:  # randint(0, 2) * 2 draws {0, 2}: a choice of two
            return Tensor(self.shape, "choice", self.a * factor, (self.a + 1) * factor)
        if self.kind == "choice":
            return Tensor(self.shape, "choice", self.a * factor, self.b * factor, p=self.p)
        return None  # randint(0, 3) * 2 draws {0, 2, 4}: no fill of kopt's

    def shifted(self, offset):
        if self.arranged or self.block_scaled is not None:
            return None
        if self.kind == "uniform":
            return Tensor(self.shape, self.kind, self.a + offset, self.b + offset)
        if self.kind == "normal":
            return Tensor(self.shape, self.kind, self.a + offset, self.b)
        if self.kind == "int" and float(offset).is_integer():
            return Tensor(self.shape, "int", self.a + int(offset), self.b + int(offset))
        if self.kind == "choice":
            return Tensor(self.shape, "choice", self.a + offset, self.b + offset, p=self.p)
        if self.kind in ("zeros", "ones", "full"):
            return Tensor(self.shape, "full", self.constant() + offset)
        return None

    def constant(self):
        return {"zeros": 0, "ones": 1}.get(self.kind, self.a)

    def random(self):
        """Whether kopt can arrange it: a random fill as drawn."""
        return self.kind in ("uniform", "normal", "int", "choice") and not self.arranged

    def init(self):
        if self.block_scaled is not None:
            drawn = Tensor(self.shape, self.kind, self.a, self.b).init()
            return block_scaled.init_text(self, drawn, self.source_axes)
        if self.arranged:
            drawn = Tensor(self.shape, self.kind, self.a, self.b, p=self.p).init()
            if self.arranged == "plus_eye":
                return "plus_eye(%s, %s, %s)" % (drawn, self.width, clean(self.diagonal))
            return "%s(%s, %s)" % (self.arranged, drawn, self.width)
        if self.kind in ("uniform", "normal"):
            return "%s(%s,%s)" % (self.kind, clean(self.a), clean(self.b))
        if self.kind == "int":
            return "int[%d,%d)" % (self.a, self.b)
        if self.kind == "choice":
            pair = "%s,%s" % (clean(self.a), clean(self.b))
            return "choice(%s)" % pair if self.p == 0.5 else "choice(%s,%r)" % (pair, self.p)
        if self.kind == "values":
            return "values(%s)" % ",".join(v if isinstance(v, str) else str(clean(v)) for v in self.values)
        if self.kind == "full":
            value = self.constant()
            return "zeros" if value == 0 else "ones" if value == 1 else "full(%r)" % value
        return self.kind  # zeros, ones


def plus_eye(matrix, eye):
    """A square random matrix plus torch.eye(n) * v: kopt's plus_eye(FILL, n, v); None otherwise."""
    if eye.kind != "eye" or not matrix.random() or matrix.shape != eye.shape:
        return None
    return Tensor(matrix.shape, matrix.kind, matrix.a, matrix.b, arranged="plus_eye", p=matrix.p, diagonal=eye.a)


def clean(number):
    return int(number) if float(number).is_integer() and abs(number) < 1e15 else round(number, 12)


class Tagged(int):
    """An integer literal that remembers where it was written: the same literal reaching a
    tensor's shape and a scalar parameter names that axis even when other dims equal it."""

    def __new__(cls, value, tag):
        number = int.__new__(cls, value)
        number.tag = tag
        return number


class Closure:
    def __init__(self, node, env):
        self.node, self.env = node, env


class Evaluator:
    """Evaluates the restricted Python of generate_test_cases and the lambdas in it."""

    def __init__(self, path, problem_name, attributes=None, module=None, cls=None):
        self.path, self.problem_name = path, problem_name
        # the class's helper methods a test case is built by (self._make_case(m, k, name))
        self.methods = {f.name: f for f in (cls.body if cls is not None else []) if isinstance(f, ast.FunctionDef)}
        self.attributes = attributes or {}  # self.X of the class's __init__, where a number (instance_numbers)
        self.module = {}  # the module's numbers (`P = (1 << 31) - 1`), which every method sees
        for statement in (module.body if module is not None else []):
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                    and isinstance(statement.targets[0], ast.Name):
                value = self.value(statement.value, dict(self.module))
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    self.module[statement.targets[0].id] = value

    def scope(self, names):
        """A method's starting names: the module's numbers, then its own."""
        return dict(self.module, **names)

    def fail(self, node, what):
        raise CannotRead("%s:%d: %s" % (self.path, line_of(node), what))

    def run(self, statements, env, out):
        """Runs statements; appended test cases go to `out`; returns a returned value or None."""
        for statement in statements:
            if isinstance(statement, ast.Assign):
                value = self.value(statement.value, env)
                for target in statement.targets:
                    self.bind(target, value, env)
            elif isinstance(statement, ast.AnnAssign) and statement.value is not None:  # n: int = 4
                self.bind(statement.target, self.value(statement.value, env), env)
            elif isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name):  # total *= d
                whole = ast.BinOp(left=ast.Name(id=statement.target.id, ctx=ast.Load()), op=statement.op,
                                  right=statement.value)
                self.bind(statement.target, self.value(ast.copy_location(whole, statement), env), env)
            elif isinstance(statement, ast.For):
                for item in self.iterable(statement.iter, env):
                    self.bind(statement.target, item, env)
                    returned = self.run(statement.body, env, out)
                    if returned is not None:
                        return returned
            elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) \
                    and isinstance(statement.value.func, ast.Attribute) \
                    and statement.value.func.attr in ("append", "extend"):
                value = self.value(statement.value.args[0], env)
                out.extend(value if statement.value.func.attr == "extend" else [value])
            elif isinstance(statement, ast.Return):
                return self.value(statement.value, env) if statement.value is not None else OPAQUE
            elif isinstance(statement, ast.FunctionDef):  # def make_inputs(n=n, seed=seed): a named lambda
                env[statement.name] = self.closure(statement, env)
            elif isinstance(statement, ast.If):  # if k % BLOCK_SIZE != 0: raise ...
                test = self.value(statement.test, env)
                if not isinstance(test, bool):
                    self.fail(statement, "an if on %s, which the reader cannot decide" % ast.unparse(statement.test))
                returned = self.run(statement.body if test else statement.orelse, env, out)
                if returned is not None:
                    return returned
            elif isinstance(statement, ast.Raise):
                self.fail(statement, "a test case its own code refuses (%s)" % ast.unparse(statement))
            elif isinstance(statement, (ast.Expr, ast.Pass)):
                continue
            else:
                self.fail(statement, "%s (%s) is not code this reader follows"
                          % (type(statement).__name__, ast.unparse(statement).splitlines()[0]))
        return None

    def iterable(self, node, env):
        value = self.value(node, env)
        if not isinstance(value, (list, tuple)):
            self.fail(node, "the loop over %s is not over a literal list" % ast.unparse(node))
        return value

    def bind(self, target, value, env):
        if isinstance(value, Opaque) and isinstance(target, (ast.Tuple, ast.List)):  # to_mx, _ = self._api()
            for element in target.elts:
                self.bind(element, OPAQUE, env)
            return
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            if not isinstance(value, (list, tuple)) or len(value) != len(target.elts):
                self.fail(target, "cannot unpack into %s" % ast.unparse(target))
            for element, item in zip(target.elts, value):
                self.bind(element, item, env)
        else:
            self.fail(target, "assignment to %s" % ast.unparse(target))

    def value(self, node, env):
        kind = type(node).__name__
        handler = getattr(self, "value_" + kind, None)
        return handler(node, env) if handler else OPAQUE

    def value_Constant(self, node, env):
        if isinstance(node.value, int) and not isinstance(node.value, bool):
            return Tagged(node.value, (node.lineno, node.col_offset))
        return node.value

    def value_JoinedStr(self, node, env):
        parts = []
        for part in node.values:
            value = self.value(part.value, env) if isinstance(part, ast.FormattedValue) else part.value
            parts.append("?" if isinstance(value, Opaque) else str(int(value) if isinstance(value, Tagged) else value))
        return "".join(parts)

    def value_Name(self, node, env):
        return env.get(node.id, OPAQUE)

    def value_Tuple(self, node, env):
        items = []
        for element in node.elts:
            if isinstance(element, ast.Starred):
                inner = self.value(element.value, env)
                items.extend(inner if isinstance(inner, (list, tuple)) else [inner])
            else:
                items.append(self.value(element, env))
        return tuple(items)

    def value_List(self, node, env):
        return list(self.value_Tuple(node, env))

    def value_Dict(self, node, env):
        return {self.value(k, env): self.value(v, env) for k, v in zip(node.keys, node.values) if k is not None}

    def value_Subscript(self, node, env):
        container, index = self.value(node.value, env), self.value(node.slice, env)
        try:
            return container[index]
        except (TypeError, KeyError, IndexError):
            return OPAQUE

    def value_ListComp(self, node, env):
        """[f(m, k) for m, k in configs]: one generator over a literal list, no condition."""
        if len(node.generators) != 1 or node.generators[0].ifs:
            return OPAQUE
        items, scope = [], dict(env)
        for item in self.iterable(node.generators[0].iter, env):
            self.bind(node.generators[0].target, item, scope)
            items.append(self.value(node.elt, scope))
        return items

    def value_Lambda(self, node, env):
        return self.closure(node, env)

    def closure(self, node, env):
        """A lambda or a local def, its defaults evaluated where it is written (as Python does)."""
        closure_env = dict(env)
        defaults = node.args.defaults
        names = [a.arg for a in node.args.args]
        for name, default in zip(names[len(names) - len(defaults):], defaults):
            closure_env[name] = self.value(default, env)
        return Closure(node, closure_env)

    def value_IfExp(self, node, env):
        test = self.value(node.test, env)
        return self.value(node.orelse if test is False else node.body, env)

    def value_Compare(self, node, env):
        left, right = self.value(node.left, env), self.value(node.comparators[0], env)
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq)) \
                and not isinstance(left, Opaque) and not isinstance(right, Opaque):
            return (left == right) == isinstance(node.ops[0], ast.Eq)
        return OPAQUE

    def value_UnaryOp(self, node, env):
        operand = self.value(node.operand, env)
        if isinstance(node.op, ast.USub) and isinstance(operand, (int, float)):
            return -operand
        return OPAQUE

    def value_BinOp(self, node, env):
        left, right = self.value(node.left, env), self.value(node.right, env)
        number = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
        if number(left) and number(right):
            ops = {ast.Add: lambda: left + right, ast.Sub: lambda: left - right, ast.Mult: lambda: left * right,
                   ast.FloorDiv: lambda: left // right, ast.Div: lambda: left / right, ast.Pow: lambda: left ** right,
                   ast.LShift: lambda: int(left) << int(right), ast.RShift: lambda: int(left) >> int(right),
                   ast.Mod: lambda: left % right}
            return ops[type(node.op)]() if type(node.op) in ops else OPAQUE
        found = OPAQUE
        if isinstance(left, Tensor) and number(right):
            if isinstance(node.op, ast.Mult):
                found = left.scaled(right)
            elif isinstance(node.op, ast.Div):
                found = left.scaled(1.0 / right)
            elif isinstance(node.op, (ast.Add, ast.Sub)):
                found = left.shifted(right if isinstance(node.op, ast.Add) else -right)
        elif isinstance(right, Tensor) and number(left) and isinstance(node.op, (ast.Mult, ast.Add)):
            found = right.scaled(left) if isinstance(node.op, ast.Mult) else right.shifted(left)
        elif isinstance(left, Tensor) and isinstance(right, Tensor) and isinstance(node.op, ast.Add):
            found = plus_eye(left, right) or plus_eye(right, left) or OPAQUE
        if found is None:  # the values it draws are no range of kopt's: refused, never loosened
            self.fail(node, "an input built as %s (values no fill of kopt's draws)" % ast.unparse(node))
        return found

    def value_Attribute(self, node, env):
        if ast.unparse(node) == "self.name":
            return self.problem_name
        if isinstance(node.value, ast.Name) and node.value.id == "self" and node.attr in self.attributes:
            return self.attributes[node.attr]  # get_extra_params' [M, N, self.alpha]
        return OPAQUE

    def value_Call(self, node, env):
        callee = self.value(node.func, env) if isinstance(node.func, (ast.Name, ast.Lambda)) else None
        if isinstance(callee, Closure):
            return self.call(callee, [self.value(a, env) for a in node.args])
        name = ast.unparse(node.func)
        helper = self.helper_method(name)
        if helper is not None:  # self._make_case(m, k, name): its self is opaque
            return self.call(Closure(helper, self.scope({})), [OPAQUE] + [self.value(a, env) for a in node.args])
        if name == "to_mx":
            return block_scaled.to_mx_pair(self, node, env)
        leaf = name.split(".")[-1]
        if isinstance(node.func, ast.Attribute) and (not name.startswith("torch.")
                                                     or isinstance(node.func.value, ast.Call)):
            base = self.value(node.func.value, env)  # torch.rand(n).softmax(dim=0): a method of what a call built
            if isinstance(base, Tensor):
                return self.tensor_method(node, base, leaf, env)
            if isinstance(node.func.value, ast.Call):  # (lambda g: ...)(gen) is a Call, a Name
                return OPAQUE
        if name.startswith("torch."):
            return self.constructor(node, leaf, env)
        if name in ("range", "len", "list", "tuple", "min", "max", "int", "float"):
            args = [self.value(a, env) for a in node.args]
            if any(isinstance(a, Opaque) for a in args):
                return OPAQUE
            return {"range": lambda: list(range(*args)), "len": lambda: len(args[0]), "list": lambda: list(args[0]),
                    "tuple": lambda: tuple(args[0]), "min": lambda: min(*args), "max": lambda: max(*args),
                    "int": lambda: int(args[0]), "float": lambda: float(args[0])}[name]()
        return OPAQUE

    def helper_method(self, name):
        """The class's method `self.NAME` where it only computes (a method that imports or catches,
        as one fetching torchao's API, is not followed: its value is opaque)."""
        if not name.startswith("self.") or name[5:] not in self.methods:
            return None
        function = self.methods[name[5:]]
        if any(isinstance(n, (ast.Import, ast.ImportFrom, ast.Try)) for n in ast.walk(function)):
            return None
        return function

    def call(self, closure, args):
        env = dict(closure.env)
        for parameter, arg in zip(closure.node.args.args, args):
            env[parameter.arg] = arg
        if isinstance(closure.node, ast.FunctionDef):
            returned = self.run(closure.node.body, env, [])
            return OPAQUE if returned is None else returned
        return self.value(closure.node.body, env)

    def shape(self, node, args, env):
        if len(args) == 1:
            only = args[0].value if isinstance(args[0], ast.Starred) else args[0]  # randn(*shape) as randn(shape)
            value = self.value(only, env)
            extents = value if isinstance(value, (list, tuple)) else (value,)
        else:
            extents = tuple(self.value(a, env) for a in args)
        if not all(isinstance(e, int) and not isinstance(e, bool) for e in extents):
            self.fail(node, "the shape of %s is not a number the reader can follow" % ast.unparse(node))
        return extents

    def constructor(self, node, leaf, env):
        args = node.args
        if leaf in ("rand", "randn", "zeros", "ones", "empty"):
            kind = {"rand": "uniform", "randn": "normal", "ones": "ones"}.get(leaf, "zeros")
            return Tensor(self.shape(node, args, env), kind, 0.0, 1.0)
        if leaf == "randint":
            low, high, size = self.randint_arguments(node, env)
            if not all(isinstance(n, int) and not isinstance(n, bool) for n in (low, high)):
                self.fail(node, "randint bounds that are not numbers")
            return Tensor(self.shape(node, [size], env), "int", low, high)
        if leaf in ("Generator", "manual_seed", "no_grad"):
            return OPAQUE
        if leaf == "tensor" and args:
            return self.literal_tensor(node, self.value(args[0], env))
        if leaf in ("tril", "triu") and len(args) == 1 and not node.keywords:
            return self.triangle(node, leaf, self.value(args[0], env))
        if leaf == "softmax" and args:
            return self.softmax(node, self.value(args[0], env), node.args[1:], env)
        if leaf == "eye" and len(args) == 1:  # only as what plus_eye adds: x + torch.eye(n) * v
            n = self.value(args[0], env)
            if isinstance(n, int) and not isinstance(n, bool):
                return Tensor((n, n), "eye", 1.0)
        self.fail(node, "an input built by torch.%s (kopt fills inputs with rand, randn, randint, zeros or ones)"
                  % leaf)

    def triangle(self, node, which, base):
        """torch.tril / torch.triu of a square random matrix: kopt's tril(FILL, n) / triu(FILL, n)."""
        if not isinstance(base, Tensor) or not base.random() or len(base.shape) != 2 or base.shape[0] != base.shape[1]:
            self.fail(node, "torch.%s of %s, not of a square random matrix" % (which, ast.unparse(node.args[0])))
        return Tensor(base.shape, base.kind, base.a, base.b, arranged=which, p=base.p)

    def softmax(self, node, base, args, env):
        """x.softmax(dim) / torch.softmax(x, dim) of random data along its last axis: kopt's softmax(FILL, n)."""
        dims = [self.value(a, env) for a in args] + [self.value(k.value, env) for k in node.keywords if k.arg == "dim"]
        if not isinstance(base, Tensor) or not base.random() or len(dims) != 1 or not base.shape \
                or dims[0] not in (-1, len(base.shape) - 1):
            self.fail(node, "a softmax of %s, not of random data along its last axis" % ast.unparse(node))
        return Tensor(base.shape, base.kind, base.a, base.b, arranged="softmax", p=base.p)

    def scattered(self, node, base, env):
        """zeros(n).scatter_(0, torch.randint(0, n, (k,)), ones(k) * v): each element v where one of k
        uniform draws of an index hits it (probability 1 - (1 - 1/n)^k), else the base's constant:
        kopt's choice(c, v, p)."""
        args = [self.value(a, env) for a in node.args]
        if len(args) == 3 and base.kind in ("zeros", "ones", "full") and len(base.shape) == 1 and args[0] == 0:
            index, source = args[1], args[2]
            n = base.shape[0]
            value = source.constant() if isinstance(source, Tensor) and source.kind in ("zeros", "ones", "full") \
                else source if isinstance(source, (int, float)) and not isinstance(source, bool) else None
            if isinstance(index, Tensor) and index.kind == "int" and (index.a, index.b) == (0, n) \
                    and len(index.shape) == 1 and value is not None \
                    and (not isinstance(source, Tensor) or source.shape == index.shape):
                p = 1 - (1 - 1 / n) ** index.shape[0]
                return Tensor(base.shape, "choice", base.constant(), value, p=p)
        self.fail(node, "an input changed by %s, not a constant scattered at random indices" % ast.unparse(node))

    def literal_tensor(self, node, data):
        """torch.tensor of a flat list of numbers (a shape array passed as a parameter): its values."""
        number = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
        if not isinstance(data, (list, tuple)) or not data or not all(number(v) for v in data):
            self.fail(node, "an input built by torch.tensor of %s, not a flat list of numbers this reader "
                      "can follow" % ast.unparse(node.args[0]))
        return Tensor((len(data),), "values", values=list(data))

    def randint_arguments(self, node, env):
        """(low, high, size node) of torch.randint(high, size), randint(low, high, size) or any of
        them given by keyword."""
        keywords = {k.arg: k.value for k in node.keywords if k.arg in ("low", "high", "size")}
        positional = list(node.args)
        if "size" not in keywords:
            if not positional:
                self.fail(node, "torch.randint without a size")
            keywords["size"] = positional.pop()
        if "high" not in keywords and positional:
            keywords["high"] = positional.pop()
        if "low" not in keywords and positional:
            keywords["low"] = positional.pop()
        if positional or "high" not in keywords:
            self.fail(node, "the arguments of %s" % ast.unparse(node))
        low = self.value(keywords["low"], env) if "low" in keywords else 0
        return low, self.value(keywords["high"], env), keywords["size"]

    def tensor_method(self, node, tensor, leaf, env):
        if leaf in ("float", "contiguous", "to", "cuda", "clone"):
            return tensor
        if leaf == "view" and tensor.block_scaled is not None and len(node.args) == 1 \
                and ast.unparse(node.args[0]) == "torch.uint8":
            return tensor  # to_mx's halves as the bytes the solution takes
        if leaf in ("uniform_", "normal_"):
            bounds = [self.value(a, env) for a in node.args] + [0.0, 1.0][len(node.args):]
            return Tensor(tensor.shape, leaf[:-1], bounds[0], bounds[1])
        if leaf == "softmax":
            return self.softmax(node, tensor, node.args, env)
        if leaf == "scatter_":
            return self.scattered(node, tensor, env)
        self.fail(node, "an input changed by .%s(...)" % leaf)


# ---------------------------------------------------------------- symbolic formulas

class Symbol:
    """A value of the test case as an expression of the dims (get_flops, get_extra_params)."""

    def __init__(self, text, key=None):
        self.text, self.key = text, key


def symbolic(node, env, path):
    """`node` as a kopt expression over the symbols in env; None where it is not one."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return Symbol(repr(node.value))
    if isinstance(node, ast.Name):
        return env.get(node.id)
    if isinstance(node, ast.Subscript):
        base, index = symbolic_key(node.value, env), ast.literal_eval(node.slice) \
            if isinstance(node.slice, ast.Constant) else None
        if base is None or index is None:
            return None
        key = base + (index,)
        return env.get(("case",) + key) or Symbol("?", key)
    if isinstance(node, ast.BinOp) and type(node.op) in (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Div):
        left, right = symbolic(node.left, env, path), symbolic(node.right, env, path)
        if left is None or right is None or "?" in (left.text + right.text):
            return None
        op = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "/", ast.Div: "/"}[type(node.op)]
        return Symbol("(%s %s %s)" % (left.text, op, right.text))
    return None


def symbolic_key(node, env):
    """test_case["dims"] -> ("dims",); a Name bound to such a key -> its key."""
    if isinstance(node, ast.Name) and node.id == "test_case":
        return ()
    if isinstance(node, ast.Name) and isinstance(env.get(node.id), Symbol) and env[node.id].key is not None:
        return env[node.id].key
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        base = symbolic_key(node.value, env)
        return None if base is None else base + (node.slice.value,)
    return None


def symbolic_body(function, env, path):
    """Runs `NAME = expr`, `A, B = test_case[...]` and returns the returned expression's value."""
    for statement in function.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if isinstance(target, ast.Name):
                env[target.id] = symbolic(statement.value, env, path)
            elif isinstance(target, ast.Tuple):
                key = symbolic_key(statement.value, env)
                for i, element in enumerate(target.elts):
                    if isinstance(element, ast.Name):
                        env[element.id] = (env.get(("case",) + key + (i,)) or Symbol("?", key + (i,))) \
                            if key is not None else None
        elif isinstance(statement, ast.Return):
            return statement.value
        elif not isinstance(statement, (ast.Expr, ast.Pass)):
            return None
    return None


# ---------------------------------------------------------------- the problem

def problem_class(tree, path):
    for statement in tree.body:
        if isinstance(statement, ast.ClassDef) and any(ast.unparse(b).split(".")[-1] == "Problem"
                                                      for b in statement.bases):
            return statement
    raise CannotRead("%s: no class derived from Problem" % path)


def class_attribute(cls, name):
    for statement in cls.body:
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name
                                                    for t in statement.targets):
            return statement.value
    return None


def parameters(cls, path):
    node = class_attribute(cls, "parameters")
    if node is None:
        raise CannotRead("%s: class %s has no `parameters` list (the def.py format before it, with "
                         "get_function_signature only, is not read)" % (path, cls.name))
    try:
        params = ast.literal_eval(node)
    except ValueError:
        raise CannotRead("%s:%d: `parameters` is not a literal list" % (path, node.lineno))
    for param in params:
        if param.get("type") not in TYPE_BYTES:
            raise CannotRead("%s:%d: parameter %s has type %r (kopt import reads %s)"
                             % (path, node.lineno, param.get("name"), param.get("type"), ", ".join(TYPE_BYTES)))
    return params


def problem_name(cls):
    init = next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
    for node in ast.walk(init) if init else []:
        if isinstance(node, ast.keyword) and node.arg == "name" and isinstance(node.value, ast.Constant):
            return str(node.value.value)
    return cls.name


def tolerance(cls, path):
    try:
        function = method(cls, "verify_result", path)
    except CannotRead:
        return {}
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] == "allclose":
            found = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg in ("atol", "rtol")
                     and isinstance(k.value, ast.Constant)}
            return {k: found[k] for k in ("atol", "rtol") if k in found}
    return {}


def case_entry(name, dims, tensors, buffers):
    """One test case: its dims, and its own fill of each input filled otherwise than the first
    case's (histogram's image drawn from [0, 256) in its 256-bin cases)."""
    entry = {"name": name, "dims": dims}
    inits = {n: t.init() for n, t in tensors.items() if n in buffers and t.init() != buffers[n].get("init")}
    if inits:
        entry["init"] = inits
    return entry


def class_flag(cls, name):
    """A class attribute `name = True` (Tensara's is_exact)."""
    for statement in cls.body:
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in statement.targets):
            return isinstance(statement.value, ast.Constant) and statement.value.value is True
    return False


def instance_numbers(cls):
    """attribute -> number of each `self.alpha = 1.0` in the class's __init__."""
    numbers = {}
    for statement in next((f.body for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), []):
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                and isinstance(statement.targets[0], ast.Attribute) and isinstance(statement.targets[0].value, ast.Name) \
                and statement.targets[0].value.id == "self":
            try:
                value = ast.literal_eval(statement.value)
            except ValueError:
                continue
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                numbers[statement.targets[0].attr] = value
    return numbers


def case_arguments(evaluator, case, extra_params, path):
    """(the values create_inputs gives, the values get_extra_params gives) for one test case."""
    create = case.get("create_inputs") if isinstance(case, dict) else None
    if create is None or not hasattr(create, "node"):
        raise CannotRead("%s: a test case without a create_inputs lambda" % path)
    inputs = evaluator.call(create, [])
    inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    extras = evaluator.run(extra_params.body, evaluator.scope({"test_case": case}), [])
    if not isinstance(extras, (list, tuple)):
        evaluator.fail(extra_params, "get_extra_params does not return a list this reader can follow")
    return inputs, list(extras)


def axis_name(buffer, axis, extents, dims_per_case, path):
    """The scalar parameter written as the same literal as this axis in every case, else the one
    equal to it in every case, else the axis's constant."""
    for dim in dims_per_case[0]:
        values = [dims[dim] for dims in dims_per_case]
        if all(getattr(v, "tag", None) is not None and getattr(v, "tag", None) == getattr(e, "tag", -1)
               for v, e in zip(values, extents)):
            return dim
    for dim in dims_per_case[0]:
        values = [dims[dim] for dims in dims_per_case]
        if all(isinstance(v, int) and not isinstance(v, bool) and v == e for v, e in zip(values, extents)):
            return dim
    if len(set(extents)) == 1:
        return str(extents[0])
    raise CannotRead("%s: axis %d of buffer %s (%s) equals no scalar parameter in every test case"
                     % (path, axis, buffer, ", ".join(map(str, extents))))


def shape_arrays(tensors_per_case, dims_per_case):
    """Inputs sized by a shape array: a buffer of literal values that is another input's shape in
    every case (Tensara's `torch.tensor(list(test_case["shape"]))` beside `ndim`). That input's
    axes are named after the array (shape0, shape1, ...; a case of lower rank has 1 for each axis
    it lacks, which changes no element count and no reduction along a dim it has), the axes
    become dims of every case, and the array lists them by name. Returns input -> axis names."""
    named = {}
    for array, first in tensors_per_case[0].items():
        if first.kind != "values":
            continue
        followers = [n for n, t in tensors_per_case[0].items() if t.kind != "values"
                     and all(list(case[n].shape) == list(case[array].values) for case in tensors_per_case)]
        rank = max(len(case[array].values) for case in tensors_per_case)
        axes = ["%s%d" % (array, i) for i in range(rank)]
        if not followers or any(axis in dims_per_case[0] for axis in axes):
            continue
        for dims, tensors in zip(dims_per_case, tensors_per_case):
            listed = tensors[array].values
            dims.update({axis: listed[i] if i < len(listed) else 1 for i, axis in enumerate(axes)})
            tensors[array] = Tensor(tensors[array].shape, "values", values=axes[:len(listed)])
        named.update({n: axes for n in followers})
    return named


# What reads an input's axes: where none of these is in reference_solution, a flat tensor of the
# same elements gives the same result (an elementwise map, a whole-tensor norm).
AXIS_READERS = {"dim", "axis", "dims", "view", "reshape", "shape", "size", "transpose", "permute", "t", "T",
                "flatten", "unsqueeze", "squeeze", "expand"} | set(MATMULS)


def reads_no_axis(function):
    for node in ast.walk(function):
        if isinstance(node, (ast.Subscript, ast.MatMult)) \
                or (isinstance(node, ast.keyword) and node.arg in AXIS_READERS) \
                or (isinstance(node, ast.Attribute) and node.attr in AXIS_READERS):
            return False
    return True


def flat_extent(name, tensors_per_case, dims_per_case, cls, path):
    """The scalar parameter that counts an input's elements in every case, where its rank differs
    between cases and reference_solution reads no axis of it (frobenius-norm's 3-D to 5-D x
    beside its element count); else None."""
    if len({len(t[name].shape) for t in tensors_per_case}) == 1 \
            or not reads_no_axis(method(cls, "reference_solution", path)):
        return None
    counts = [math.prod(t[name].shape) for t in tensors_per_case]
    return next((d for d in dims_per_case[0] if all(dims.get(d) == n for dims, n in zip(dims_per_case, counts))), None)


def operand_shape(node, kopt_of, shapes):
    """An operand's shape: an input by name, or its transpose (X.t(), X.T)."""
    transposed = False
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "t":
        node, transposed = node.func.value, True
    elif isinstance(node, ast.Attribute) and node.attr == "T":
        node, transposed = node.value, True
    if not isinstance(node, ast.Name) or kopt_of.get(node.id) not in shapes:
        return None
    shape = shapes[kopt_of[node.id]]
    return shape[::-1] if transposed else shape


# Calls that reduce a whole tensor to one value when given no dim (torch.mean(x), x.sum()).
WHOLE_REDUCTIONS = {"mean", "sum", "norm", "prod", "amax", "amin", "max", "min", "logsumexp", "dot", "vdot"}


# Calls that reduce along `dim` (dropping it unless keepdim=True) or compare along it.
ALONG_A_DIM = WHOLE_REDUCTIONS | {"cosine_similarity", "argmax", "argmin", "std", "var", "count_nonzero"}


# Tensor methods that change a tensor's dtype or layout, never its shape.
CONVERSIONS = {"to", "float", "double", "half", "int", "long", "contiguous", "clone"}


def callee(call):
    """`mean` of torch.mean(x), x.mean(), F.mean(x)."""
    return ast.unparse(call.func).split(".")[-1]


def is_method_call(call):
    """x.sum() rather than torch.sum(x): the tensor is the call's object, not its first argument."""
    return isinstance(call.func, ast.Attribute) and not ast.unparse(call.func).startswith("torch.")


def last_returned(function):
    """The value of the function's last `return` (None without one)."""
    returned = None
    for node in ast.walk(function):
        if isinstance(node, ast.Return) and node.value is not None:
            returned = node.value
    return returned


def returned_call(function):
    """The call reference_solution returns, through `1 - f(...)`, `f(...) * 2` and the like."""
    returned = last_returned(function)
    while isinstance(returned, ast.BinOp) and (isinstance(returned.left, ast.Constant) or isinstance(returned.right, ast.Constant)):
        returned = returned.right if isinstance(returned.left, ast.Constant) else returned.left
    # argmax(x, dim=d).to(torch.int32): a conversion keeps the shape of what it converts
    # torch.max(x, dim=d, keepdim=True)[0]: the values of (values, indices), each of one shape
    while (isinstance(returned, ast.Call) and isinstance(returned.func, ast.Attribute)
           and returned.func.attr in CONVERSIONS and isinstance(returned.func.value, ast.Call)) \
            or (isinstance(returned, ast.Subscript) and isinstance(returned.value, ast.Call)
                and isinstance(returned.slice, ast.Constant)):
        returned = returned.value if isinstance(returned, ast.Subscript) else returned.func.value
    return returned if isinstance(returned, ast.Call) else None


def reduced_along_a_dim(function, kopt_of, shapes):
    """(input, shape, how) where reference_solution returns a reduction along a literal dim of an
    input it passes first (`1 - cosine_similarity(p, t, dim=1)`, `x.sum(dim=0)`), without
    keepdim: the input's shape less that axis; along a dim a scalar parameter gives
    (`torch.argmax(x, dim=dim)`, keepdim or not): the input's shape with that axis 1 in each case.
    None for anything else."""
    call = returned_call(function)
    if call is None or callee(call) not in ALONG_A_DIM:
        return None
    keywords = {k.arg: k.value for k in call.keywords}
    dim, keep = keywords.get("dim"), keywords.get("keepdim")
    operand = call.func.value if is_method_call(call) else (call.args[0] if call.args else None)
    name = kopt_of.get(operand.id) if isinstance(operand, ast.Name) else None
    if name in shapes and isinstance(dim, ast.Name) and kopt_of.get(dim.id) not in (None, *shapes):
        kept = [dim_kept_as_one(extent, axis, kopt_of[dim.id]) for axis, extent in enumerate(shapes[name])]
        return name, kept, "keeping as 1 the axis %s names" % kopt_of[dim.id]
    if not (isinstance(dim, ast.Constant) and isinstance(dim.value, int)) or (isinstance(keep, ast.Constant) and keep.value):
        return None
    if name not in shapes or not -len(shapes[name]) <= dim.value < len(shapes[name]):
        return None
    shape = list(shapes[name])
    del shape[dim.value]
    return name, shape or ["1"], "less the axis reference_solution reduces"


def dim_kept_as_one(extent, axis, dim):
    """Axis `axis` of an input reduced along the axis a scalar parameter `dim` names, which differs
    from case to case: 1 where dim is this axis, else the axis (min(1, (dim - axis)^2) is 0 or 1,
    so every case gets its own output size: keepdim's shape, the same element count without)."""
    differs = "%s*%s" % (dim, dim) if axis == 0 else "(%s-%d)*(%s-%d)" % (dim, axis, dim, axis)
    return "max(1, %s*min(1, %s))" % (extent, differs)


def reduces_to_one_value(function):
    """Whether reference_solution returns one value: a whole-tensor reduction (no dim), or a loss
    of torch.nn (a functional *_loss or an nn.*Loss module) without reduction='none'."""
    assigned, every = {}, {}  # name -> its last value; name -> all of them
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            assigned[node.targets[0].id] = node.value
            every.setdefault(node.targets[0].id, []).append(node.value)
    returned = last_returned(function)
    for _ in range(4):  # loss = loss_fn(a, p, n); return loss
        if isinstance(returned, ast.Name) and returned.id in assigned:
            returned = assigned[returned.id]
    if not isinstance(returned, ast.Call):
        return False
    keywords = {k.arg: k.value for k in returned.keywords}
    if "dim" in keywords or "axis" in keywords:
        return False
    name = callee(returned)
    if name in WHOLE_REDUCTIONS:
        return len(returned.args) == (0 if is_method_call(returned) else 1)
    # loss_fn = nn.TripletMarginLoss(...), perhaps moved after (loss_fn = loss_fn.to(device))
    modules = [v for v in every.get(name, []) if isinstance(returned.func, ast.Name) and isinstance(v, ast.Call)
               and ast.unparse(v.func).endswith("Loss")]
    loss = returned if name.endswith("_loss") else modules[0] if modules else None
    if loss is None:
        return False
    reduction = next((k.value for k in loss.keywords if k.arg == "reduction"), None)
    return not (isinstance(reduction, ast.Constant) and reduction.value == "none")


def einsum_shape(function, kopt_of, shapes):
    """The output of torch.einsum("bijl,lk->bijk", A, B): each output letter's extent from the
    input axis it names; None for anything else."""
    for node in ast.walk(function):
        if not (isinstance(node, ast.Call) and callee(node) == "einsum" and node.args
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            continue
        inputs, arrow, output = node.args[0].value.replace(" ", "").partition("->")
        operands = [kopt_of.get(a.id) if isinstance(a, ast.Name) else None for a in node.args[1:]]
        terms = inputs.split(",")
        if not arrow or len(terms) != len(operands) or any(o not in shapes for o in operands):
            return None
        extent = {}
        for term, operand in zip(terms, operands):
            if len(term) != len(shapes[operand]) or not term.isalpha():
                return None
            for letter, axis in zip(term, shapes[operand]):
                extent.setdefault(letter, axis)
        if not all(letter in extent for letter in output):
            return None
        return [extent[letter] for letter in output] or ["1"]
    return None


POOLS = re.compile(r"(avg|max)_pool([123])d$")


def pooled_shape(function, kopt_of, shapes):
    """The output of torch.nn.functional.{avg,max}_pool{1,2,3}d over the first input tensor: its
    last 1-3 axes become (A + 2 * padding - dilation * (kernel_size - 1) - 1) / stride + 1, each
    argument a parameter of the problem or a literal; None for anything else."""
    for node in ast.walk(function):
        if not isinstance(node, ast.Call):
            continue
        pool = POOLS.search(ast.unparse(node.func))
        if pool is None:
            continue
        given = dict(zip(("kernel_size", "stride", "padding", "dilation"), node.args[1:]))
        given.update({k.arg: k.value for k in node.keywords})

        def term(name, default):
            value = given.get(name)
            if value is None:
                return default
            if isinstance(value, ast.Name) and value.id in kopt_of:
                return kopt_of[value.id]
            if isinstance(value, ast.Constant) and isinstance(value.value, int) and not isinstance(value.value, bool):
                return str(value.value)
            return None

        kernel = term("kernel_size", None)
        stride, padding, dilation = term("stride", kernel), term("padding", "0"), term("dilation", "1")
        tensors = [kopt_of[a.arg] for a in function.args.args[1:] if kopt_of.get(a.arg) in shapes]
        axes = int(pool.group(2))
        if None in (kernel, stride, padding, dilation) or not tensors or len(shapes[tensors[0]]) < axes:
            return None
        shape = list(shapes[tensors[0]])
        window = kernel if dilation == "1" else "%s * (%s - 1) + 1" % (dilation, kernel)
        for i in range(len(shape) - axes, len(shape)):
            shape[i] = "(%s + 2 * %s - (%s)) / %s + 1" % (shape[i], padding, window, stride)
        return shape
    return None


def matmul_shape(left, right):
    """torch.matmul's result shape: a 1-D operand is a vector (its axis is contracted and gone),
    else rows of the left by columns of the right."""
    if len(right) == 1:
        return left[:-1] or ["1"]
    if len(left) == 1:
        return right[:-2] + right[-1:]
    return left[:-1] + right[-1:]


def indexed_shape(function, kopt_of, shapes):
    """(input, shape) where reference_solution indexes an input by a number on some axes and
    whole slices on the others (rgb[:, :, 0]): the input's shape less the numbered axes; None
    where it does not, or indexes one input in more than one layout."""
    found = {}
    for node in ast.walk(function):
        if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
                and kopt_of.get(node.value.id) in shapes):
            continue
        index = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        shape = shapes[kopt_of[node.value.id]]
        if len(index) != len(shape):
            return None
        kept = []
        for axis, element in zip(shape, index):
            if isinstance(element, ast.Slice) and element.lower is None and element.upper is None and element.step is None:
                kept.append(axis)
            elif not (isinstance(element, ast.Constant) and isinstance(element.value, int)):
                return None
        if len(kept) == len(shape):
            continue
        name = kopt_of[node.value.id]
        if found.setdefault(name, kept) != kept:
            return None
    if len(found) != 1:
        return None
    (name, kept), = found.items()
    return name, kept or ["1"]


def output_shape(cls, path, input_names, shapes, notes, output):
    """The output's shape from reference_solution: one element for a whole-tensor reduction, a
    matmul's rows by columns (a vector's axis contracted), a bincount's minlength, an einsum's or
    a pool's, an input's less a reduced or numbered axis, else the shape of the first input
    tensor it uses (noted: check it)."""
    function = method(cls, "reference_solution", path)
    kopt_of = dict(zip([a.arg for a in function.args.args[1:]], input_names))
    # A whole-tensor reduction last wins over what came before it (sum(sigmoid(A @ B)) is one value).
    if reduces_to_one_value(function):
        notes.append("%s is one element (reference_solution reduces to a scalar)" % output)
        return ["1"]
    for node in ast.walk(function):
        operands = None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            operands = [node.left, node.right]
        elif isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] in MATMULS:
            operands = node.args[:2]
        shapes_of = [operand_shape(o, kopt_of, shapes) for o in operands or []]
        if len(shapes_of) == 2 and all(shapes_of):
            return matmul_shape(*shapes_of)
    for node in ast.walk(function):
        if isinstance(node, ast.keyword) and node.arg == "minlength" and isinstance(node.value, ast.Name) \
                and node.value.id in kopt_of and kopt_of[node.value.id] not in shapes:
            return [kopt_of[node.value.id]]
    summed = einsum_shape(function, kopt_of, shapes)
    if summed is not None:
        return summed
    pooled = pooled_shape(function, kopt_of, shapes)
    if pooled is not None:
        return pooled
    reduced = reduced_along_a_dim(function, kopt_of, shapes)
    if reduced is not None:
        notes.append("%s is %s's shape %s" % (output, reduced[0], reduced[2]))
        return reduced[1]
    indexed = indexed_shape(function, kopt_of, shapes)
    if indexed is not None:
        notes.append("%s is %s's shape less the axes reference_solution indexes by a number" % (output, indexed[0]))
        return indexed[1]
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and kopt_of.get(node.id) in shapes:
            notes.append("%s's shape taken to be %s's (reference_solution is no matmul or bincount): check it"
                         % (output, kopt_of[node.id]))
            return shapes[kopt_of[node.id]]
    raise CannotRead("%s:%d: cannot tell the output's shape from reference_solution" % (path, function.lineno))


def flops(cls, path, extra_names, extra_params):
    """get_flops as an expression of the dims, or None."""
    try:
        function = method(cls, "get_flops", path)
    except CannotRead:
        return None
    scratch = {}
    returned = symbolic_body(extra_params, scratch, path)
    if not isinstance(returned, (ast.List, ast.Tuple)):
        return None
    env = {}
    for name, element in zip(extra_names, returned.elts):
        symbol = symbolic(element, scratch, path)
        if symbol is not None and symbol.key is not None:
            env[("case",) + symbol.key] = Symbol(name)
    expression = symbolic_body(function, env, path)
    value = symbolic(expression, env, path) if expression is not None else None
    return None if value is None or "?" in value.text else value.text


def quantized_sources(tensors_per_case, dims_per_case, shapes, path):
    """The halves of to_mx (kopt_block_scaled_facts): each one's shape from its source's named axes,
    and the axes kept on the tensor of every case (its fill names them). Returns input -> axes."""
    sources = {}
    for name, tensor in tensors_per_case[0].items():
        if tensor.block_scaled is None:
            continue
        extents = lambda axis: [t[name].block_scaled.source.shape[axis] for t in tensors_per_case]
        sources[name] = [axis_name(name, axis, extents(axis), dims_per_case, path) for axis in range(2)]
        shapes[name] = block_scaled.shape_expressions(tensor, sources[name])
        for tensors in tensors_per_case:
            tensors[name].source_axes = sources[name]
    return sources


def output_shapes(cls, path, input_names, tensors, shapes, sources, notes, output_names):
    """Each output's shape into `shapes`; the block-scaled facts of the problem (what its reference
    does, in which format) where it has any, else None."""
    function = method(cls, "reference_solution", path)
    try:
        quantized = block_scaled.quantized_outputs(function, input_names, shapes, path)
    except block_scaled.BlockScaledError as e:
        raise CannotRead(str(e))
    if quantized is not None and len(quantized[0]) == len(output_names):
        shapes.update(zip(output_names, quantized[0]))
        notes.append("%s are compared byte for byte with the reference's (Tensara compares their dequantized values "
                     "within its tolerance): stricter, as a -0 written for torchao's +0 fails here"
                     % " and ".join(output_names))
        return quantized[1]
    if len(output_names) != 1:
        raise CannotRead("%s:%d: %d outputs; kopt import reads problems with one output, or the two halves of "
                         "to_mx" % (path, class_attribute(cls, "parameters").lineno, len(output_names)))
    dequantized = block_scaled.dequantized_output(function, input_names, tensors, sources)
    if dequantized is not None:
        shapes[output_names[0]] = dequantized[0]
        return dequantized[1]
    shapes[output_names[0]] = output_shape(cls, path, input_names, shapes, notes, output_names[0])
    return None


def read(path):
    tree = parse(path)
    cls = problem_class(tree, path)
    flashinfer = block_scaled.flashinfer_line(tree)
    if flashinfer is not None:
        raise CannotRead("%s:%d: %s" % (path, flashinfer, block_scaled.NVFP4_REFUSAL))
    params = parameters(cls, path)
    outputs = [i for i, p in enumerate(params) if p.get("pointer") and not p.get("const")]
    if not outputs or outputs != list(range(outputs[0], outputs[0] + len(outputs))):
        raise CannotRead("%s:%d: %d non-const pointer parameters, not side by side; kopt import reads problems "
                         "whose outputs follow the inputs" % (path, class_attribute(cls, "parameters").lineno,
                                                                len(outputs)))
    before, after = params[:outputs[0]], params[outputs[-1] + 1:]
    evaluator = Evaluator(path, problem_name(cls), instance_numbers(cls), tree, cls)
    cases = []
    generate = method(cls, "generate_test_cases", path)
    returned = evaluator.run(generate.body, evaluator.scope({"self": OPAQUE}), cases)
    if isinstance(returned, list) and not cases:
        cases = returned
    if not cases:
        raise CannotRead("%s:%d: generate_test_cases gives no test case this reader can follow"
                         % (path, generate.lineno))
    extra_params = method(cls, "get_extra_params", path)
    dims_per_case, tensors_per_case = [], []
    for case in cases:
        inputs, extras = case_arguments(evaluator, case, extra_params, path)
        where = "%s:%d" % (path, line_of(case["create_inputs"].node))  # the case's create_inputs
        if len(inputs) != len(before) or len(extras) != len(after):
            raise CannotRead("%s: a test case gives %d inputs and %d extra parameters; `parameters` has %d before "
                             "the output and %d after" % (where, len(inputs), len(extras), len(before), len(after)))
        dims, tensors = {}, {}
        for param, value in zip(before + after, inputs + extras):
            if param.get("pointer"):
                if not isinstance(value, Tensor):
                    raise CannotRead("%s: input %s is not built by a torch constructor this reader knows"
                                     % (where, param["name"]))
                if value.kind == "eye":  # torch.eye is read only as what plus_eye adds to random data
                    raise CannotRead("%s: input %s is an identity, which kopt fills only as what it adds to a random "
                                     "matrix (plus_eye)" % (where, param["name"]))
                tensors[param["name"]] = value
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                dims[param["name"]] = value
            else:
                raise CannotRead("%s: scalar parameter %s is not a number in every test case" % (where, param["name"]))
        dims_per_case.append(dims)
        tensors_per_case.append(tensors)
    notes = []
    shapes = shape_arrays(tensors_per_case, dims_per_case)
    sources = quantized_sources(tensors_per_case, dims_per_case, shapes, path)
    for name in tensors_per_case[0]:
        if name in shapes:
            continue
        rank = len(tensors_per_case[0][name].shape)
        flat = flat_extent(name, tensors_per_case, dims_per_case, cls, path)
        if flat is not None:
            notes.append("%s is flat (%s elements): its rank differs between test cases and reference_solution "
                         "reads no axis of it" % (name, flat))
            shapes[name] = [flat]
            continue
        if any(len(t[name].shape) != rank for t in tensors_per_case):
            raise CannotRead("%s:%d: input %s has another rank in some test case, and no shape array names its "
                             "axes" % (path, generate.lineno, name))
        shapes[name] = [axis_name(name, axis, [t[name].shape[axis] for t in tensors_per_case], dims_per_case, path)
                        for axis in range(rank)]
    for tensors in tensors_per_case:  # an arrangement's row length by its axis's name
        for name, tensor in tensors.items():
            tensor.width = shapes[name][-1] if tensor.arranged else tensor.width
    output_names = [params[i]["name"] for i in outputs]
    mx_facts = output_shapes(cls, path, [p["name"] for p in before], tensors_per_case[0], shapes, sources, notes,
                             output_names)
    output = output_names[0]
    buffers = {}
    for param in params:
        if not param.get("pointer"):
            continue
        name = param["name"]
        buffer = {"shape": shapes[name], "role": "output" if name in output_names else "input",
                  "element_bytes": TYPE_BYTES[param["type"]]}
        buffer["dtype"] = TYPE_DTYPES[param["type"]]
        if name not in output_names:
            buffer["init"] = tensors_per_case[0][name].init()
        elif buffer["dtype"].startswith(("int", "uint")) or class_flag(cls, "is_exact"):
            buffer["exact"] = True  # counts, indices, or a problem Tensara itself compares exactly
        buffers[name] = buffer
    names = [c.get("name") if isinstance(c.get("name"), str) else "case %d" % (i + 1) for i, c in enumerate(cases)]
    facts = {"format": "tensara", "name": evaluator.problem_name, "dims": dims_per_case[0], "buffers": buffers,
             "cases": [case_entry(n, d, t, buffers) for n, d, t in zip(names[1:], dims_per_case[1:], tensors_per_case[1:])],
             "params": [{"name": p["name"], "kind": "buffer" if p.get("pointer") else "scalar"} for p in params],
             "class": cls.name, "inputs": [p["name"] for p in before], "output": output, "notes": notes}
    if mx_facts is not None:
        facts["block_scaled"] = mx_facts
    found = tolerance(cls, path)
    if found:
        facts["tolerance"] = found
    else:
        notes.append("no torch.allclose(..., atol=, rtol=) in verify_result: kopt's defaults for the dtype decide")
    formula = flops(cls, path, [p["name"] for p in after], extra_params)
    if formula:
        facts["flops"] = formula
    else:
        notes.append("no FLOP count: get_flops is not an expression of the dims this reader can follow")
    return facts


def main(argv):
    if len(argv) != 3 or argv[1] != "tensara":
        print("PYTHON_FACTS: usage: kopt_tensara_facts.py tensara DEF.py", file=sys.stderr)
        return EXIT_FAILED
    try:
        facts = read(argv[2])
    except CannotRead as e:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from kopt_python_facts import by_hand  # one list of what to write by hand, for both suites
        print("PYTHON_FACTS: %s" % by_hand(str(e)), file=sys.stderr)
        return EXIT_FAILED
    print(json.dumps(facts))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main(sys.argv))
