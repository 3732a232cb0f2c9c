"""Block-scaled (MX) inputs and outputs of a Tensara def.py, for kopt_tensara_facts.py.

A def.py of the mxfp4/mxfp8 problems builds its inputs with torchao's
`scale, data = to_mx(a, torch.float4_e2m1fn_x2, BLOCK_SIZE[, is_swizzled_scales=True])` from random
`a`, and passes `data` and `scale` (viewed as uint8) to the solution: kopt's fills
mx_data(FILL, element, block, a) and mx_scale(FILL, element, block, a) (or
mx_scale_blocked(..., rows, columns) for the swizzled scales of a scaled GEMM) write the same two
halves of one quantization of the same source (docs/check.md). The element formats come from
data/block_scaled_formats.toml, beside this file where kopt writes its helpers, else in the
source tree. nvfp4 (flashinfer's nvfp4_quantize: e4m3 scales under a global scale computed from
the data's amax) is refused, naming the line.
"""

import ast
import os

TABLE = "block_scaled_formats.toml"


class BlockScaledError(Exception):
    """What the caller turns into its CannotRead."""


def element_formats():
    """torch dtype name -> the [[element]] row of data/block_scaled_formats.toml."""
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (os.path.join(here, TABLE), os.path.join(here, "..", "data", TABLE)):
        if os.path.exists(path):
            break
    else:
        raise BlockScaledError("data/%s is missing beside the reader" % TABLE)
    try:
        import tomllib
    except ImportError:
        raise BlockScaledError("reading data/%s needs Python 3.11's tomllib" % TABLE)
    with open(path, "rb") as f:
        return {row["torch"]: row for row in tomllib.load(f)["element"]}


def flashinfer_line(tree):
    """The line of a flashinfer fp4 import (nvfp4's quantizer), or None."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("flashinfer"):
            return node.lineno
    return None


NVFP4_REFUSAL = ("an nvfp4 pair built by flashinfer's nvfp4_quantize (e4m3 scales of 16-element blocks under a "
                 "global scale sf_g = 6 * 448 / amax(a) computed from the data, in flashinfer's swizzled layout), "
                 "which no fill of kopt's draws")


class Quantized:
    """One half of to_mx's result, as create_inputs builds it: part is 'data' or 'scale'."""

    def __init__(self, part, source, source_name, element, block, blocked):
        self.part, self.source, self.source_name = part, source, source_name
        self.element, self.block, self.blocked = element, block, blocked


def to_mx_pair(evaluator, node, env):
    """(scale, data) of `to_mx(x, torch.DTYPE, block[, is_swizzled_scales=True])`, each a Tensor of
    the reader's whose block_scaled says which half it is."""
    if len(node.args) < 3 or not isinstance(node.args[0], ast.Name):
        evaluator.fail(node, "to_mx(%s): expected to_mx(a, torch.DTYPE, BLOCK_SIZE)" % ast.unparse(node.args))
    source = evaluator.value(node.args[0], env)
    block = evaluator.value(node.args[2], env)
    dtype = ast.unparse(node.args[1]).split(".")[-1]
    try:
        formats = element_formats()
    except BlockScaledError as e:
        evaluator.fail(node, str(e))
    if dtype not in formats:
        evaluator.fail(node, "to_mx to %s, no element format of data/%s (%s)"
                       % (dtype, TABLE, ", ".join(sorted(formats))))
    if not hasattr(source, "kind") or source.kind not in ("uniform", "normal") or source.arranged \
            or len(source.shape) != 2:
        evaluator.fail(node, "to_mx of %s, not of a random (uniform or normal) matrix" % ast.unparse(node.args[0]))
    if not isinstance(block, int) or isinstance(block, bool) or source.shape[-1] % block:
        evaluator.fail(node, "to_mx with block %s, not a number that divides the last axis" % ast.unparse(node.args[2]))
    swizzled = [k for k in node.keywords if k.arg == "is_swizzled_scales"]
    blocked = bool(swizzled) and evaluator.value(swizzled[0].value, env) is True
    element = formats[dtype]["name"]
    per_byte = formats[dtype]["per_byte"]

    def half(part, shape):
        tensor = type(source)(shape, source.kind, source.a, source.b)  # the reader's Tensor
        tensor.block_scaled = Quantized(part, source, node.args[0].id, element, int(block), blocked)
        return tensor
    rows, columns = source.shape
    scale_shape = (-(-rows // 128) * 32, -(-columns // 128) * 16) if blocked else (rows, columns // block)
    return half("scale", scale_shape), half("data", (rows, columns // per_byte))


def init_text(tensor, drawn, axes):
    """The fill of one half: drawn is the source's fill, axes its named rows and columns."""
    q = tensor.block_scaled
    if q.part == "data":
        return "mx_data(%s, %s, %d, %s)" % (drawn, q.element, q.block, q.source_name)
    if q.blocked:
        return "mx_scale_blocked(%s, %s, %d, %s, %s, %s)" % (drawn, q.element, q.block, q.source_name, axes[0], axes[1])
    return "mx_scale(%s, %s, %d, %s)" % (drawn, q.element, q.block, q.source_name)


def shape_expressions(tensor, axes):
    """One half's shape as expressions of its source's named axes (rows, columns)."""
    q = tensor.block_scaled
    rows, columns = axes
    if q.part == "data":
        per_byte = element_formats_by_name()[q.element]["per_byte"]
        return [rows, columns if per_byte == 1 else "%s/%d" % (columns, per_byte)]
    if q.blocked:  # torchao's hp_data_dims_to_swizzled_scale_dims_mx
        return ["cdiv(%s,128)*32" % rows, "cdiv(%s,128)*16" % columns]
    return [rows, "%s/%d" % (columns, q.block)]


def element_formats_by_name():
    return {row["name"]: row for row in element_formats().values()}


def traces_to(function, name, targets):
    """Which one of `targets` the local `name` is computed from in `function`
    (q_bytes = data_lp.contiguous().view(torch.uint8) traces to data_lp), or None."""
    seen = {name}
    for node in reversed([n for n in ast.walk(function) if isinstance(n, ast.Assign)]):
        if any(isinstance(t, ast.Name) and t.id in seen for t in node.targets):
            seen |= {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
    found = [t for t in targets if t in seen]
    return found[0] if len(found) == 1 else None


def quantized_outputs(function, input_names, shapes, path):
    """Output shapes and facts of a reference_solution that returns the two halves of to_mx of one
    input (the quantize problems): ([shape per returned value], facts); None where it is not one."""
    call = next((n for n in ast.walk(function) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
                 and ast.unparse(n.value.func) == "to_mx" and isinstance(n.targets[0], ast.Tuple)), None)
    returned = next((n.value for n in ast.walk(function) if isinstance(n, ast.Return)), None)
    if call is None or not isinstance(returned, ast.Tuple) or len(call.value.args) < 3 \
            or any(k.arg == "is_swizzled_scales" for k in call.value.keywords):
        return None
    args = call.value.args
    kopt_of = dict(zip([a.arg for a in function.args.args[1:]], input_names))
    source = kopt_of.get(args[0].id) if isinstance(args[0], ast.Name) else None
    element = element_formats().get(ast.unparse(args[1]).split(".")[-1])
    if source not in shapes or len(shapes[source]) != 2 or element is None:
        return None
    block = block_size(args[2], path)
    scale_name, data_name = [t.id for t in call.targets[0].elts]
    rows, columns = shapes[source]
    found, parts = [], []
    for value in returned.elts:
        part = traces_to(function, value.id, [scale_name, data_name]) if isinstance(value, ast.Name) else None
        if part is None:
            return None
        parts.append("data" if part == data_name else "scale")
        if part == data_name:
            found.append([rows, columns if element["per_byte"] == 1 else "%s/%d" % (columns, element["per_byte"])])
        else:
            found.append([rows, "%s/%d" % (columns, block)])
    return found, {"operation": "quantize", "element": element["name"], "block": block, "blocked_scales": False,
                   "parts": parts}


def block_size(node, path):
    """A block size written as a number or a module constant (BLOCK_SIZE = 32)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    module = ast.parse(open(path, encoding="utf-8").read())
    for statement in module.body:
        if isinstance(statement, ast.Assign) and isinstance(node, ast.Name) \
                and any(isinstance(t, ast.Name) and t.id == node.id for t in statement.targets) \
                and isinstance(statement.value, ast.Constant):
            return statement.value.value
    raise BlockScaledError("%s:%d: the block size %s is not a number" % (path, node.lineno, ast.unparse(node)))


def dequantized_output(function, input_names, tensors, source_axes):
    """(output shape, facts) of a reference_solution that dequantizes (to_dtype) one block-scaled
    input, or multiplies two (scaled_mm: rows of a by rows of b); None otherwise."""
    data = [n for n in input_names if getattr(tensors.get(n), "block_scaled", None) is not None
            and tensors[n].block_scaled.part == "data"]
    called = {ast.unparse(n.func).split(".")[-1] for n in ast.walk(function) if isinstance(n, ast.Call)}
    if not data:
        return None
    first = tensors[data[0]].block_scaled
    facts = {"element": first.element, "block": first.block, "blocked_scales": first.blocked}
    if "to_dtype" in called and len(data) == 1:
        return list(source_axes[data[0]]), dict(facts, operation="dequantize")
    if "scaled_mm" in called and len(data) == 2:
        return [source_axes[data[0]][0], source_axes[data[1]][0]], dict(facts, operation="gemm")
    return None
