"""The rules of an exported op, without torch (kopt export --torch, docs/export.md).

manifest.json read and checked; the op's schema; a call's arguments bound to solve's
parameters; each tensor checked (dtype, device, contiguity, shape by the spec's expressions)
with one exception each; the dims inferred from the inputs' shapes or taken as keywords.
Tensors are only asked for .dtype, .device, .shape and .is_contiguous(), so the tests hand
in stand-ins: torch is needed only by kopt_torch_export.py, which registers the op.
"""

import json
import os

try:
    from . import kopt_expression as expression
except ImportError:  # imported as a top-level module (python/ on sys.path: the tests)
    import kopt_expression as expression

MANIFEST = "manifest.json"
SCHEMA = "kopt.torch_export/1"
ROLES = ("input", "output", "in-out", "scalar")
# The C integer types a scalar may be, by kopt's dtype name: (bits, signed).
INTEGERS = {"int8": (8, True), "uint8": (8, False), "int16": (16, True), "uint16": (16, False),
            "int32": (32, True), "uint32": (32, False), "int64": (64, True), "uint64": (64, False)}


class ManifestError(Exception):
    """manifest.json is missing, of another version, or not what kopt writes."""


class DeviceError(ValueError):
    """A tensor that is not on a CUDA device, or not on the same one as the others."""


def read_manifest(folder):
    path = os.path.join(folder, MANIFEST)
    try:
        with open(path, encoding="utf-8") as file:
            manifest = json.load(file)
    except (OSError, ValueError) as error:
        raise ManifestError(f"{path}: cannot be read: {error}") from None
    if not isinstance(manifest, dict) or manifest.get("schema") != SCHEMA:
        found = manifest.get("schema") if isinstance(manifest, dict) else None
        raise ManifestError(f"{path}: schema is {found!r}, this runtime reads {SCHEMA!r}: export again with this kopt")
    for key in ("op", "kind", "entry", "parameters", "dims"):
        if key not in manifest:
            raise ManifestError(f"{path}: no {key!r}")
    return manifest


def _number_text(value):
    return repr(value) if isinstance(value, float) else str(value)


class OpRules:
    """One manifest's op: what a call must look like, and what it gets."""

    def __init__(self, manifest):
        self.manifest = manifest
        self.name = manifest["op"]
        self.qualified_name = manifest.get("qualified_name", "kopt::" + self.name)
        self.parameters = manifest["parameters"]
        self.dims = {d["name"]: d for d in manifest["dims"]}
        for p in self.parameters:
            if p["role"] not in ROLES:
                raise ManifestError(f"parameter {p['name']}: unknown role {p['role']!r}")
        self.shapes = {p["name"]: [expression.Expression(t) for t in p["shape"]]
                       for p in self.parameters if p["role"] != "scalar"}
        self.given = [p for p in self.parameters if p["role"] in ("input", "in-out")]
        self.outputs = [p for p in self.parameters if p["role"] == "output"]
        self.keywords = [d for d in manifest["dims"] if d["from"] is None and d["fixed"] is None]

    # ---- the op's signature ------------------------------------------------------------
    def tensor_names(self, out=False):
        """The op's tensors by position: the inputs and in-out buffers in solve's order; with
        out=True every buffer in solve's order (torch's custom ops take no keyword-only tensor)."""
        return [p["name"] for p in self.parameters if p["role"] in (("input", "in-out", "output") if out
                                                                   else ("input", "in-out"))]

    def schema(self, out=False):
        """The torch.library schema: the tensors by position (tensor_names), the keyword dims
        after *; in-out buffers and out= tensors marked as written."""
        letters = iter("abcdefghijklmnopqrstuvwxyz")
        alias = {p["name"]: f"({next(letters)}!)" for p in self.parameters
                 if p["role"] == "in-out" or (out and p["role"] == "output")}
        positional = [f"Tensor{alias.get(name, '')} {name}" for name in self.tensor_names(out)]
        keyword = [f"{d['type']} {d['name']}" for d in self.keywords]
        arguments = positional + (["*"] + keyword if keyword else [])
        if out or not self.outputs:
            result = "()"
        else:
            result = "Tensor" if len(self.outputs) == 1 else "(" + ", ".join("Tensor" for _ in self.outputs) + ")"
        return "(" + ", ".join(arguments) + ") -> " + result

    def mutated(self, out=False):
        return [p["name"] for p in self.parameters if p["role"] == "in-out" or (out and p["role"] == "output")]

    def bind(self, args, kwargs, out=False):
        """The call's values by name, whether the dispatcher passed them by position or keyword."""
        names = self.tensor_names(out) + [d["name"] for d in self.keywords]
        if len(args) > len(names):
            raise TypeError(f"{self.qualified_name}() takes {len(names)} arguments, {len(args)} were given")
        values = dict(zip(names, args))
        for key, value in kwargs.items():
            if key not in names or key in values:
                raise TypeError(f"{self.qualified_name}() got an unexpected or repeated argument {key!r}")
            values[key] = value
        missing = [n for n in names if n not in values]
        if missing:
            raise TypeError(f"{self.qualified_name}() is missing {', '.join(missing)}")
        return values

    # ---- checks: one exception each -------------------------------------------------------
    def check_tensor(self, param, tensor):
        name, want = param["name"], "torch." + param["torch_dtype"]
        for attribute in ("dtype", "device", "shape", "is_contiguous"):
            if not hasattr(tensor, attribute):
                raise TypeError(f"{self.qualified_name}: {name} must be a torch.Tensor, not {type(tensor).__name__}")
        if str(tensor.dtype) != want:
            raise TypeError(f"{self.qualified_name}: {name} is {tensor.dtype}, expected {want} "
                            f"({param['c_type']} in {self.manifest['entry']})")
        if getattr(tensor.device, "type", str(tensor.device)) != "cuda":
            raise DeviceError(f"{self.qualified_name}: {name} is on {tensor.device}, expected a CUDA device "
                              f"(move it with {name}.cuda())")
        if not tensor.is_contiguous():
            raise ValueError(f"{self.qualified_name}: {name} is not contiguous (solve reads it as one row-major "
                             f"block; pass {name}.contiguous())")

    def check_same_device(self, tensors):
        first = None
        for name, tensor in tensors:
            if first is None:
                first = (name, tensor.device)
            elif str(tensor.device) != str(first[1]):
                raise DeviceError(f"{self.qualified_name}: {name} is on {tensor.device} but {first[0]} is on "
                                  f"{first[1]}: all tensors must be on one device")
        return None if first is None else first[1]

    def resolve_dims(self, values):
        """Every dim's value: from an input's axis, a keyword, or the value the kernel was built for."""
        dims, origin = {}, {}
        for dim in self.dims.values():
            name = dim["name"]
            if dim["from"] is not None:
                source = dim["from"]["buffer"]
                self.check_rank(source, values[source])
                dims[name] = values[source].shape[dim["from"]["axis"]]
                origin[name] = f"from {source}'s axis {dim['from']['axis']}"
            elif dim["fixed"] is None:
                dims[name] = self.keyword_value(dim, values[name])
                origin[name] = "given"
            else:
                dims[name] = dim["fixed"]
                origin[name] = "fixed"
            if dim["fixed"] is not None and dims[name] != dim["fixed"]:
                raise ValueError(f"{self.qualified_name}: {name} is {dims[name]} ({origin[name]}), but the kernel was "
                                 f"built for {name}={_number_text(dim['fixed'])} only (solve does not take {name})")
        self.check_scalars(dims)
        return dims, origin

    def keyword_value(self, dim, value):
        if dim["type"] == "int" and (isinstance(value, bool) or isinstance(value, float)):
            raise TypeError(f"{self.qualified_name}: {dim['name']} must be an int, not {value!r}")
        if dim["type"] == "float" and not isinstance(value, (int, float)):
            raise TypeError(f"{self.qualified_name}: {dim['name']} must be a number, not {value!r}")
        return value

    def check_scalars(self, dims):
        for p in self.parameters:
            value = dims.get(p["name"])
            if p["role"] != "scalar" or p["dtype"] not in INTEGERS or not isinstance(value, int):
                continue
            bits, signed = INTEGERS[p["dtype"]]
            low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
            if not low <= value <= high:
                raise ValueError(f"{self.qualified_name}: {p['name']}={value} does not fit solve's {p['c_type']} "
                                 f"({low} to {high})")

    def check_rank(self, name, tensor):
        expected = len(self.shapes[name])
        if len(tensor.shape) != expected:
            texts = ", ".join(e.text for e in self.shapes[name])
            raise ValueError(f"{self.qualified_name}: {name} has {len(tensor.shape)} dimension(s) {tuple(tensor.shape)}, "
                             f"expected {expected}: [{texts}]")

    def expected_shape(self, name, dims):
        shape = []
        for extent in self.shapes[name]:
            try:
                value = extent.evaluate_integer(dims)
            except expression.ExpressionError as error:
                raise ValueError(f"{self.qualified_name}: {name}'s shape: {error}") from None
            if isinstance(value, int) and value <= 0:
                raise ValueError(f"{self.qualified_name}: {name}'s extent {extent.text} is {value} with "
                                 f"{self.dims_text(dims)}; a size must be > 0 (kopt checked the kernel on such only)")
            shape.append(value)
        return tuple(shape)

    def dims_text(self, dims, origin=None):
        return ", ".join(f"{n}={_number_text(v) if isinstance(v, (int, float)) else v}"
                         + (f" ({origin[n]})" if origin and n in origin else "") for n, v in dims.items())

    def check_shape(self, name, tensor, dims, origin):
        self.check_rank(name, tensor)
        expected = self.expected_shape(name, dims)
        if tuple(tensor.shape) != expected:
            texts = ", ".join(e.text for e in self.shapes[name])
            raise ValueError(f"{self.qualified_name}: {name} has shape {tuple(tensor.shape)}, expected {expected} = "
                             f"[{texts}] with {self.dims_text(dims, origin)}")

    def check_call(self, values, out=False):
        """Every check of a call, in the order a reader fixes them: each tensor's type, device
        and layout, the dims, then each shape. Returns (dims, device)."""
        params = {p["name"]: p for p in self.parameters}
        tensors = [(name, values[name]) for name in self.tensor_names(out)]
        for name, tensor in tensors:
            self.check_tensor(params[name], tensor)
        device = self.check_same_device(tensors)
        dims, origin = self.resolve_dims(values)
        for name, tensor in tensors:
            self.check_shape(name, tensor, dims, origin)
        for p in self.outputs:
            self.expected_shape(p["name"], dims)  # an output's extent must be a size too
        return dims, device

    def call_arguments(self, values, dims):
        """solve's arguments in its order: the tensors (or what stands for them) and the scalars."""
        return [dims[p["dim"]] if p["role"] == "scalar" else values[p["name"]] for p in self.parameters]

    def result(self, outputs):
        if not self.outputs:
            return None
        tensors = tuple(outputs[p["name"]] for p in self.outputs)
        return tensors[0] if len(tensors) == 1 else tensors

    def out_arguments(self, tensors, out):
        """kopt::<name>_out's tensors for a call <name>(*tensors, out=out): every buffer in solve's order."""
        if len(tensors) != len(self.given):
            names = [p["name"] for p in self.given]
            raise TypeError(f"{self.qualified_name}() takes {len(names)} tensors ({', '.join(names)}), "
                            f"{len(tensors)} were given")
        by_name = dict(zip([p["name"] for p in self.given], tensors))
        by_name.update(self.out_tensors(out))
        return [by_name[name] for name in self.tensor_names(out=True)]

    def out_tensors(self, out):
        """out= as a user writes it: one tensor (one output), a tuple in solve's order, or a dict."""
        names = [p["name"] for p in self.outputs]
        if isinstance(out, dict):
            unknown = sorted(set(out) - set(names))
            if unknown or len(out) != len(names):
                raise TypeError(f"{self.qualified_name}: out= names {sorted(out)}, its outputs are {names}")
            return dict(out)
        given = tuple(out) if isinstance(out, (tuple, list)) else (out,)
        if len(given) != len(names):
            raise TypeError(f"{self.qualified_name}: out= gives {len(given)} tensor(s), its outputs are {names}")
        return dict(zip(names, given))
