"""kopt's shape expressions in Python, for an exported op (kopt export --torch, docs/export.md).

The grammar and arithmetic of src/kopt/spec/expression.hpp, so that a tensor's shape is checked
by the rule kopt checked the kernel with: integer and decimal literals, names, + - * / %
(integer division truncates, as in C; a decimal operand makes the operation floating), unary -
and +, parentheses, == != < <= > >=, && || !, min(a,b), max(a,b), cdiv(a,b), floor(x), ceil(x).
Integers are exact, an int64 overflow is an error, as in kopt.

Values that are neither int nor float (torch's SymInt while torch.compile traces) go through
Python's operators: sizes are never negative, where // and % agree with C's.

Standard library only: the tests run without torch.
"""

import math
import re

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
FUNCTIONS = {"cdiv": 2, "ceil": 1, "floor": 1, "max": 2, "min": 2}
# Loosest to tightest; longer spellings first so that "<=" is not read as "<".
PRECEDENCE = (("||",), ("&&",), ("==", "!="), ("<=", ">=", "<", ">"), ("+", "-"), ("*", "/", "%"))
NUMBER = re.compile(r"(?:[0-9][0-9.]*|\.[0-9][0-9.]*)(?:[eE][+-]?[0-9]*)?")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class ExpressionError(ValueError):
    """An expression that cannot be parsed or evaluated: one line quoting it."""


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


class _Parser:
    def __init__(self, text):
        self.text, self.pos = text, 0

    def fail(self, what, pos=None):
        column = (self.pos if pos is None else pos) + 1
        return ExpressionError(f'cannot parse expression "{self.text}": {what} at column {column}')

    def skip(self):
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self, ahead=0):
        i = self.pos + ahead
        return self.text[i] if i < len(self.text) else ""

    def parse_all(self):
        root = self.binary(0)
        self.skip()
        if self.pos < len(self.text):
            raise self.fail(f'unexpected "{self.text[self.pos]}"')
        return root

    def binary(self, level):
        if level == len(PRECEDENCE):
            return self.unary()
        left = self.binary(level + 1)
        while True:
            self.skip()
            op = next((o for o in PRECEDENCE[level] if self.text.startswith(o, self.pos)), None)
            if op is None:
                return left
            self.pos += len(op)
            left = ("binary", op, left, self.binary(level + 1))

    def unary(self):
        self.skip()
        if self.peek() == "+":
            self.pos += 1
            return self.unary()
        if self.peek() == "-" or (self.peek() == "!" and self.peek(1) != "="):
            op = self.text[self.pos]
            self.pos += 1
            return ("unary", op, self.unary())
        return self.primary()

    def primary(self):
        self.skip()
        if self.peek() == "(":
            self.pos += 1
            inner = self.binary(0)
            self.expect(")")
            return inner
        if self.peek().isdigit() or (self.peek() == "." and self.peek(1).isdigit()):
            return self.number()
        if NAME.match(self.text, self.pos):
            return self.name_or_call()
        if self.pos == len(self.text):
            raise self.fail('expected a number, a name or "(" but the text ends')
        raise self.fail(f'expected a number, a name or "(" but found "{self.text[self.pos]}"')

    def number(self):
        start = self.pos
        literal = NUMBER.match(self.text, self.pos).group(0)
        self.pos += len(literal)
        try:
            if any(c in literal for c in ".eE"):
                return ("literal", float(literal))
            value = int(literal)
        except ValueError:
            raise self.fail(f'bad number "{literal}"', start) from None
        if value > INT64_MAX:
            raise self.fail(f"integer {literal} does not fit in 64 bits", start)
        return ("literal", value)

    def name_or_call(self):
        start = self.pos
        name = NAME.match(self.text, self.pos).group(0)
        self.pos += len(name)
        self.skip()
        if self.peek() != "(":
            return ("name", name)
        if name not in FUNCTIONS:
            raise self.fail(f'unknown function "{name}" (known: {", ".join(sorted(FUNCTIONS))})', start)
        self.pos += 1
        arguments = [self.binary(0)]
        self.skip()
        while self.peek() == ",":
            self.pos += 1
            arguments.append(self.binary(0))
            self.skip()
        self.expect(")")
        if len(arguments) != FUNCTIONS[name]:
            plural = "" if FUNCTIONS[name] == 1 else "s"
            raise self.fail(f"{name}() takes {FUNCTIONS[name]} argument{plural}, not {len(arguments)}", start)
        return ("call", name, arguments)

    def expect(self, c):
        self.skip()
        if self.peek() != c:
            found = "the text ends" if self.pos == len(self.text) else f'found "{self.text[self.pos]}"'
            raise self.fail(f'expected "{c}" but {found}')
        self.pos += 1


class Expression:
    """One parsed expression: names() it reads, evaluate(dims) its value."""

    def __init__(self, text):
        self.text = text
        self._root = _Parser(text).parse_all()

    def names(self):
        found = set()

        def walk(node):
            if node[0] == "name":
                found.add(node[1])
            for child in node[2:]:
                for item in child if isinstance(child, list) else [child]:
                    if isinstance(item, tuple):
                        walk(item)
        walk(self._root)
        return sorted(found)

    def evaluate(self, dims):
        return _Evaluator(self.text, dims).value(self._root)

    def evaluate_integer(self, dims):
        """As evaluate, but a size: an integer, or a whole float a double holds exactly."""
        value = self.evaluate(dims)
        if not isinstance(value, float):
            return value
        if value == math.trunc(value) and abs(value) <= 2.0 ** 53:
            return int(value)
        raise ExpressionError(f'expression "{self.text}" gives {value!r}, not an integer')


def _apply(op, a, b, divide, remainder):
    """Only the operation asked: another could fail (fmod of inf) or grow a traced graph."""
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    return divide(a, b) if op == "/" else remainder(a, b)


class _Evaluator:
    def __init__(self, text, dims):
        self.text, self.dims = text, dims

    def fail(self, what):
        return ExpressionError(f'expression "{self.text}": {what}')

    def value(self, node):
        kind = node[0]
        if kind == "literal":
            return node[1]
        if kind == "name":
            if node[1] not in self.dims:
                known = ", ".join(sorted(self.dims))
                raise self.fail(f'unknown dim "{node[1]}" ({"known: " + known if known else "no dims are defined"})')
            return self.dims[node[1]]
        if kind == "unary":
            operand = self.value(node[2])
            if node[1] == "!":
                return int(not operand)
            if is_int(operand) and operand == INT64_MIN:
                raise self.fail(f"integer overflow in -({operand})")
            return -operand
        if kind == "binary":
            return self.binary(node[1], node[2], node[3])
        arguments = [self.value(a) for a in node[2]]
        return self.call(node[1], *arguments)

    def binary(self, op, left_node, right_node):
        left = self.value(left_node)
        if op == "&&" and not left:
            return 0
        if op == "||" and left:
            return 1
        right = self.value(right_node)
        if op in ("&&", "||"):
            return int(bool(right))
        if op in ("==", "!=", "<", "<=", ">", ">="):
            return int({"==": left == right, "!=": left != right, "<": left < right, "<=": left <= right,
                        ">": left > right, ">=": left >= right}[op])
        if isinstance(left, float) or isinstance(right, float):
            return self.floating(op, left, right)
        if is_int(left) and is_int(right):
            return self.integer(op, left, right)
        return _apply(op, left, right, lambda x, y: x // y, lambda x, y: x % y)

    def integer(self, op, a, b):
        if op in ("/", "%"):
            if b == 0:
                raise self.fail(f"division by zero in {a} {op} {b}")
            quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # C truncates toward zero
            result = quotient if op == "/" else a - b * quotient
        else:
            result = _apply(op, a, b, None, None)
        if not INT64_MIN <= result <= INT64_MAX:
            raise self.fail(f"integer overflow in {a} {op} {b}")
        return result

    def floating(self, op, a, b):
        a, b = float(a), float(b)
        if op in ("/", "%") and b == 0:
            raise self.fail(f"division by zero in {a!r} {op} {b!r}")
        result = _apply(op, a, b, lambda x, y: x / y, math.fmod)
        if not math.isfinite(result):
            raise self.fail(f"{a!r} {op} {b!r} is not finite")
        return result

    def call(self, function, *args):
        if function == "min":
            return args[1] if args[1] < args[0] else args[0]
        if function == "max":
            return args[1] if args[1] > args[0] else args[0]
        if function in ("floor", "ceil"):
            value = args[0]
            if not isinstance(value, float):
                return value
            rounded = math.floor(value) if function == "floor" else math.ceil(value)
            if not INT64_MIN <= rounded <= INT64_MAX:
                raise self.fail(f"{function}({value!r}) does not fit in 64 bits")
            return rounded
        a, b = args  # cdiv: ceiling division
        if isinstance(a, float) or isinstance(b, float):
            return float(math.ceil(self.floating("/", a, b)))
        if not (is_int(a) and is_int(b)):
            return (a + b - 1) // b
        quotient = self.integer("/", a, b)
        inexact = a % b != 0
        return quotient + (1 if inexact and (a < 0) == (b < 0) else 0)
