"""An operator kopt exported for PyTorch (kopt export --torch, docs/export.md).

This file is kopt's fixed runtime, copied as the package's __init__.py beside manifest.json and
the kernel (lib<name>.so, the library kopt compiled and checked, or a Triton kernel.py). On
import it registers two torch.library custom ops from the manifest:

    kopt::<name>(inputs..., *, keyword dims) -> outputs       allocates the outputs
    kopt::<name>_out(buffers..., *, keyword dims)             writes the outputs it is given

and the package offers <name>(*inputs, out=None, **dims), which calls one or the other. Each
call is checked first (kopt_torch_rules.py: dtype, device, contiguity, the spec's shapes), with
one exception each: TypeError, DeviceError (a ValueError), ValueError. A fake implementation
gives the outputs' shapes from the same rules, so torch.compile traces through the op.

A CUDA kernel's solve launches on the legacy default stream: when torch's current stream is
another, the default stream first waits for it and, after the launch, it waits for the default
stream, so the op is ordered like any op on the current stream. A failed launch (the library's
own CUDA runtime's last error, runtime/kopt_shim.cu) raises RuntimeError with its message. A
Triton kernel launches on torch's current stream itself.
"""

import ctypes
import importlib
import os

try:
    from . import kopt_torch_rules as rules
except ImportError:  # imported as a top-level module (python/ on sys.path: the tests)
    import kopt_torch_rules as rules

DeviceError = rules.DeviceError
# ctypes types of solve's scalars by kopt dtype; a pointer is a c_void_p.
CTYPES = {"int8": ctypes.c_int8, "uint8": ctypes.c_uint8, "int16": ctypes.c_int16, "uint16": ctypes.c_uint16,
          "int32": ctypes.c_int32, "uint32": ctypes.c_uint32, "int64": ctypes.c_int64, "uint64": ctypes.c_uint64,
          "float32": ctypes.c_float, "float64": ctypes.c_double}


def argument_types(op_rules):
    """solve's ctypes argtypes; ManifestError for a scalar type ctypes cannot pass (a __half)."""
    types = []
    for p in op_rules.parameters:
        if p["role"] != "scalar":
            types.append(ctypes.c_void_p)
        elif p["dtype"] in CTYPES:
            types.append(CTYPES[p["dtype"]])
        else:
            raise rules.ManifestError(f"{op_rules.qualified_name}: scalar {p['name']} is {p['dtype']}, which this "
                                      "runtime cannot pass to solve")
    return types


class CudaLibrary:
    """solve in lib<name>.so, called through ctypes on the legacy default stream."""

    def __init__(self, folder, op_rules):
        self.rules = op_rules
        self.library = ctypes.CDLL(os.path.join(folder, op_rules.manifest["library"]), mode=ctypes.RTLD_LOCAL)
        self.solve = getattr(self.library, op_rules.manifest["entry"])
        self.solve.argtypes = argument_types(op_rules)
        self.solve.restype = None
        self.last_error = self.library.kopt_shim_last_error
        self.last_error.restype = ctypes.c_int
        self.error_string = self.library.kopt_shim_error_string
        self.error_string.argtypes = [ctypes.c_int]
        self.error_string.restype = ctypes.c_char_p

    def __call__(self, torch, values, dims, device):
        arguments = [a.data_ptr() if hasattr(a, "data_ptr") else a for a in self.rules.call_arguments(values, dims)]
        with torch.cuda.device(device):
            current = torch.cuda.current_stream()
            legacy = torch.cuda.default_stream()
            elsewhere = current.cuda_stream != legacy.cuda_stream
            if elsewhere:
                legacy.wait_stream(current)
            self.last_error()  # an earlier call's error is not this one's
            self.solve(*arguments)
            code = self.last_error()
            if elsewhere:
                current.wait_stream(legacy)
        if code != 0:
            message = self.error_string(code).decode("utf-8", "replace")
            raise RuntimeError(f"{self.rules.qualified_name}: the kernel's launch failed: {message} (CUDA error {code})")


class TritonKernel:
    """kernel.py's solve, imported as kopt's worker imports it (its -D as module variables)."""

    def __init__(self, folder, op_rules):
        self.rules, self.folder, self.solve = op_rules, folder, None

    def __call__(self, torch, values, dims, device):
        if self.solve is None:  # importing Triton costs seconds: at the first call, not at import
            host = importlib.import_module(__name__ + ".kopt_triton_host")
            manifest = self.rules.manifest
            defines = [tuple(d) for d in manifest.get("defines", [])]
            self.solve = host.load_kernel(os.path.join(self.folder, manifest["kernel_py"]), manifest["entry"], defines)
        with torch.cuda.device(device):
            self.solve(*self.rules.call_arguments(values, dims))


def _allocate(torch, op_rules, dims, device, fake=False):
    outputs = {}
    for p in op_rules.outputs:
        shape = op_rules.expected_shape(p["name"], dims)
        make = torch.zeros if p.get("zero_init") and not fake else torch.empty
        outputs[p["name"]] = make(shape, dtype=getattr(torch, p["torch_dtype"]), device=device)
    return outputs


def register(folder, manifest=None):
    """Registers kopt::<name> and kopt::<name>_out; returns (op, op_out, call)."""
    import torch  # noqa: F401 (the error below names the fix)
    op_rules = rules.OpRules(manifest or rules.read_manifest(folder))
    kernel = (CudaLibrary if op_rules.manifest["kind"] == "cuda" else TritonKernel)(folder, op_rules)

    def functional(*args, **kwargs):
        values = op_rules.bind(args, kwargs)
        dims, device = op_rules.check_call(values)
        outputs = _allocate(torch, op_rules, dims, device)
        kernel(torch, {**values, **outputs}, dims, device)
        return op_rules.result(outputs)

    def functional_fake(*args, **kwargs):
        values = op_rules.bind(args, kwargs)
        dims, device = op_rules.check_call(values)
        return op_rules.result(_allocate(torch, op_rules, dims, device, fake=True))

    def with_out(*args, **kwargs):
        values = op_rules.bind(args, kwargs, out=True)
        dims, device = op_rules.check_call(values, out=True)
        kernel(torch, values, dims, device)

    def with_out_fake(*args, **kwargs):
        op_rules.check_call(op_rules.bind(args, kwargs, out=True), out=True)

    op = torch.library.custom_op(op_rules.qualified_name, functional, mutates_args=op_rules.mutated(),
                                 schema=op_rules.schema())
    op.register_fake(functional_fake)
    op_out = torch.library.custom_op(op_rules.qualified_name + "_out", with_out,
                                     mutates_args=op_rules.mutated(out=True), schema=op_rules.schema(out=True))
    op_out.register_fake(with_out_fake)

    def call(*tensors, out=None, **dims):
        if out is None:
            return op(*tensors, **dims)
        op_out(*op_rules.out_arguments(tensors, out), **dims)
        return out

    call.__name__ = call.__qualname__ = op_rules.name
    call.__doc__ = f"{op_rules.qualified_name}{op_rules.schema()} (kopt export; out= writes given outputs)"
    return op, op_out, call


def _load_package():
    """As a package's __init__.py: register the op of the manifest beside it."""
    folder = os.path.dirname(os.path.abspath(__file__))
    manifest = rules.read_manifest(folder)
    try:
        import torch  # noqa: F401
    except ImportError as error:
        raise ImportError(f"kopt::{manifest['op']} needs torch ({error}); install PyTorch with CUDA") from None
    return manifest, register(folder, manifest)


if __package__ and os.path.isfile(os.path.join(os.path.dirname(os.path.abspath(__file__)), rules.MANIFEST)):
    manifest, (op, op_out, _call) = _load_package()
    globals()[manifest["op"]] = _call
    __all__ = [manifest["op"], "op", "op_out", "manifest", "DeviceError"]
