"""kopt's host for a Triton kernel's worker (docs/triton.md).

    python3 kopt_triton_host.py PLAN.json LIBKOPT_WORKER.so worker JOB.json RESULT.json

The worker of a Triton kernel is this interpreter, so that torch, triton and the kernel share
one CUDA context with kopt's worker code. This script only connects them: it registers, in each
bridge library named in the plan (a solve generated from kernel.py's signature, linked with
kopt's shim), a callback that wraps the device pointers it receives as torch tensors (no
copies) and calls kernel.py's solve; then it hands the process to kopt_worker_main, which is
kopt's C++ worker unchanged: it reads and deletes the job, confines writes, loads the bridge
like any kernel library and runs the check or the timing. kernel.py is imported at the first
call, after the job file is gone.

Nothing here depends on torch until main(): the tests drive the argument logic with a fake
tensor factory.
"""

import ast
import ctypes
import importlib.util
import json
import os
import struct
import sys
import traceback

PLAN_SCHEMA = "kopt.triton_plan/1"

# kopt dtype -> (__cuda_array_interface__ typestr, torch dtype name to view it as, or None).
# The interface has no bfloat16: such buffers are wrapped as int16 and viewed as bfloat16.
TYPESTRS = {
    "float64": ("<f8", None), "float32": ("<f4", None), "float16": ("<f2", None),
    "bfloat16": ("<i2", "bfloat16"), "int64": ("<i8", None), "int32": ("<i4", None),
    "int16": ("<i2", None), "int8": ("|i1", None), "uint8": ("|u1", None),
    "uint32": ("<u4", None), "uint64": ("<u8", None), "uint16": ("<u2", None),
}

MISSING_TORCH = "kopt: a Triton kernel's worker needs torch and triton importable by python3 ({}): {}"


class HostError(Exception):
    """Bad plan or a call kopt's spec does not describe: one line, then the worker ends."""


def read_plan(text):
    plan = json.loads(text)
    if plan.get("schema") != PLAN_SCHEMA:
        raise HostError(f"plan schema is {plan.get('schema')!r}, expected {PLAN_SCHEMA!r}")
    return plan


def decode_words(params, words):
    """The arguments solve received, from the bridge's 64-bit words: an address, a signed
    integer, or a double's bits, per the parameter's kind."""
    if len(words) != len(params):
        raise HostError(f"the bridge passed {len(words)} arguments, the signature has {len(params)}")
    values = []
    for param, word in zip(params, words):
        word &= (1 << 64) - 1
        if param["kind"] == "pointer":
            values.append(word)
        elif param["kind"] == "integer":
            values.append(word - (1 << 64) if word >= 1 << 63 else word)
        elif param["kind"] == "real":
            values.append(struct.unpack("<d", struct.pack("<Q", word))[0])
        else:
            raise HostError(f"parameter {param['name']} has unknown kind {param['kind']!r}")
    return values


def as_passed(param, value):
    """A scalar as solve receives it: a float32 parameter's value rounded to float32."""
    if param["kind"] == "real" and param["dtype"] == "float32":
        return struct.unpack("<f", struct.pack("<f", value))[0]
    return value


def shapes_of_call(bridge, values):
    """Each buffer's shape for this call: the spec's case whose scalars equal the call's."""
    scalar_params = [p for p in bridge["params"] if p["kind"] != "pointer"]
    scalars = [v for p, v in zip(bridge["params"], values) if p["kind"] != "pointer"]
    for case in bridge["cases"]:
        if [as_passed(p, v) for p, v in zip(scalar_params, case["scalars"])] == scalars:
            return case["shapes"]
    raise HostError(f"solve was called with scalars {scalars}, which no case of the spec has")


def call_arguments(bridge, words, make_tensor):
    """solve's Python arguments: tensors from make_tensor(address, shape, dtype) for pointers,
    ints and floats for scalars."""
    values = decode_words(bridge["params"], words)
    shapes = shapes_of_call(bridge, values)
    arguments = []
    for param, value in zip(bridge["params"], values):
        if param["kind"] == "pointer":
            arguments.append(make_tensor(value, shapes[param["name"]], param["dtype"]))
        else:
            arguments.append(value)
    return arguments


class CudaArray:
    """Device memory kopt owns, described by __cuda_array_interface__ (no stream: no sync)."""

    def __init__(self, address, shape, dtype):
        if dtype not in TYPESTRS:
            raise HostError(f"a Triton kernel's buffer cannot be {dtype}")
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": TYPESTRS[dtype][0],
                                         "data": (address, False), "version": 3}


def torch_tensor_factory(torch):
    def make_tensor(address, shape, dtype):
        tensor = torch.as_tensor(CudaArray(address, shape, dtype), device="cuda")
        view = TYPESTRS[dtype][1]
        return tensor.view(getattr(torch, view)) if view else tensor
    return make_tensor


def remembered(make_tensor, still_describes, capacity=256):
    """make_tensor that hands back the tensor it made before for the same memory, shape and
    dtype. Wrapping an address (torch.as_tensor of __cuda_array_interface__) costs tens of µs of
    host time per buffer, and the timing holds a call to ~100 µs of host time (data/witness.toml
    [sample] held_seconds_per_call) before it times the host too: a kernel's tensors must cost
    what a PyTorch caller's cost, nothing, not what kopt's wrapping costs. A tensor only
    describes kopt's memory (it owns nothing), so the same key gives an equal tensor, unless
    solve changed it in place (a resize_, a t_()): still_describes(tensor, address, shape)
    says it did not. kopt's buffers are few; the memory is cleared when full, never grown."""
    made = {}

    def make(address, shape, dtype):
        key = (address, tuple(shape), dtype)
        tensor = made.get(key)
        if tensor is None or not still_describes(tensor, address, key[1]):
            if len(made) >= capacity:
                made.clear()
            tensor = made[key] = make_tensor(address, shape, dtype)
        return tensor
    return make


def torch_tensor_unchanged(tensor, address, shape):
    return tensor.data_ptr() == address and tuple(tensor.shape) == shape and tensor.is_contiguous()


def define_value(text):
    """A -D value as kernel.py's variable takes it: a Python literal (128, 0.5, True, "a")
    where it is one, else the text itself."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


# -D KOPT_TRITON_CONFIG_<kernel>=I runs only the I-th config of that kernel's @triton.autotune list
# ("all": the list as written). kopt reads the lists without running kernel.py
# (python/kopt_python_facts.py autotune) and searches them as one parameter per kernel.
CONFIG_PREFIX = "KOPT_TRITON_CONFIG_"


def split_defines(defines):
    """kernel.py's variables, and the autotuned kernels' chosen config index by kernel name."""
    variables, chosen = [], {}
    for name, value in defines:
        if not name.startswith(CONFIG_PREFIX):
            variables.append((name, value))
        elif value != "all":
            try:
                chosen[name[len(CONFIG_PREFIX):]] = int(value)
            except ValueError:
                raise HostError(f"-D {name}={value}: a config is chosen by its index in the @triton.autotune list, "
                                "or all") from None
    return variables, chosen


def kernel_name(function):
    """A JITFunction's (or a heuristics wrapper's) Python name."""
    while function is not None:
        if getattr(function, "__name__", None):
            return function.__name__
        function = getattr(function, "fn", None)
    return None


def restricted_autotune(real_autotune, chosen, seen):
    """triton.autotune as kernel.py's decorators call it, with each chosen kernel's list cut to
    its one config (Triton then runs it without benchmarking the others)."""
    def autotune(*args, **kwargs):
        configs = kwargs.pop("configs") if "configs" in kwargs else args[0]
        rest = args if "configs" in kwargs or not args else args[1:]

        def decorate(function):
            name = kernel_name(function)
            kept = configs
            if name in chosen:
                index = chosen[name]
                if not 0 <= index < len(configs):
                    raise HostError(f"-D {CONFIG_PREFIX}{name}={index}: {name}'s @triton.autotune has "
                                    f"{len(configs)} configs (0 to {len(configs) - 1})")
                kept = [configs[index]]
                seen.add(name)
            return real_autotune(kept, *rest, **kwargs)(function)
        return decorate
    return autotune


def apply_defines(module, defines, kernel):
    """kopt's -D NAME=VALUE for a Triton kernel: kernel.py's module-level variable NAME set to
    VALUE after the import, before the first call. solve reads its globals when it runs, so a
    launch parameter written as a module constant (BLOCK=BLOCK, num_warps=NUM_WARPS) takes it.
    A name kernel.py does not define is refused: it would change nothing."""
    for name, value in defines:
        if not hasattr(module, name):
            raise HostError(f"{os.path.basename(kernel)} has no module-level variable {name} "
                            f"for -D {name}={value} (docs/triton.md, \"Parameters\")")
        setattr(module, name, define_value(value))


def load_kernel(path, entry, defines=(), triton_module=None):
    # A module of its own per bridge: two variants of one kernel.py keep their own variables.
    variables, chosen = split_defines(defines)
    spec = importlib.util.spec_from_file_location("kopt_triton_kernel", path)
    module = importlib.util.module_from_spec(spec)
    if not chosen:
        spec.loader.exec_module(module)
    else:
        # The decorators run while kernel.py is imported: triton.autotune is replaced for that
        # import only, so another bridge's module gets its own choice.
        if triton_module is None:
            import triton as triton_module
        real, seen = triton_module.autotune, set()
        triton_module.autotune = restricted_autotune(real, chosen, seen)
        try:
            spec.loader.exec_module(module)
        finally:
            triton_module.autotune = real
        missing = sorted(set(chosen) - seen)
        if missing:
            raise HostError(f"{os.path.basename(path)} has no @triton.autotune kernel {missing[0]} for "
                            f"-D {CONFIG_PREFIX}{missing[0]}={chosen[missing[0]]}")
    apply_defines(module, variables, path)
    return getattr(module, entry)


CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.POINTER(ctypes.c_uint64))


def bridge_callback(bridge, make_tensor, first_call):
    """The function solve's words reach. An exception cannot cross back into C: it is printed
    and the worker ends, which kopt reports as the kernel's failure."""
    solve = []

    def forward(count, words):
        try:
            if not solve:
                first_call()
                solve.append(load_kernel(bridge["kernel"], bridge["entry"], bridge.get("defines", [])))
            solve[0](*call_arguments(bridge, [words[i] for i in range(count)], make_tensor))
        except HostError as error:
            sys.stderr.write(f"kopt: {error}\n")
            sys.stderr.flush()
            os._exit(1)
        except BaseException:  # noqa: B902 - whatever it is, the worker must end here
            sys.stderr.write(f"kopt: {os.path.basename(bridge['kernel'])}'s {bridge['entry']} raised:\n")
            traceback.print_exc()
            sys.stderr.flush()
            os._exit(1)
    return CALLBACK(forward)


def confine_caches(result_file):
    """Triton writes its cache and temporary files while it compiles; the sandboxed worker may
    write only beside its result, so both go there (and the cubins stay for kopt to read)."""
    folder = os.path.dirname(os.path.abspath(result_file))
    for variable, name in (("TRITON_CACHE_DIR", "triton_cache"), ("TMPDIR", "tmp")):
        os.environ[variable] = os.path.join(folder, name)
        os.makedirs(os.environ[variable], exist_ok=True)


def main(argv):
    # worker JOB RESULT, or worker --await-device N JOB RESULT: a worker started before its job
    # (kopt's run::PrestartedWorker), which imports torch and triton while it waits.
    prestarted = len(argv) == 8 and argv[3] == "worker" and argv[4] == "--await-device"
    if not prestarted and (len(argv) != 6 or argv[3] != "worker"):
        sys.stderr.write("usage: kopt_triton_host.py PLAN.json LIBKOPT_WORKER.so worker [--await-device N] "
                         "JOB.json RESULT.json\n")
        return 2
    plan_file, worker_library = argv[1:3]
    result_file = argv[-1]
    worker_arguments = [b"kopt", *(a.encode() for a in argv[3:])]
    try:
        plan = read_plan(open(plan_file, encoding="utf-8").read())
    except (OSError, ValueError, HostError) as error:
        sys.stderr.write(f"kopt: cannot read the Triton plan {plan_file}: {error}\n")
        return 2
    confine_caches(result_file)
    try:
        import torch
        import triton  # noqa: F401 - kernel.py needs it; say so now, not in the first call
    except ImportError as error:
        sys.stderr.write(MISSING_TORCH.format(sys.executable, error) + "\n")
        return 3
    make_tensor = remembered(torch_tensor_factory(torch), torch_tensor_unchanged)

    def first_call():
        # torch meets CUDA only once kopt's worker has set the device up and read its job.
        torch.cuda.set_device(plan.get("device", 0))
    callbacks = []  # kept alive: the bridges hold only their addresses
    for bridge in plan["bridges"]:
        callbacks.append(bridge_callback(bridge, make_tensor, first_call))
        ctypes.CDLL(bridge["library"]).kopt_bridge_register(callbacks[-1])
    worker = ctypes.CDLL(worker_library)
    arguments = (ctypes.c_char_p * len(worker_arguments))(*worker_arguments)
    return worker.kopt_worker_main(len(worker_arguments), arguments)  # the worker ends the process itself


if __name__ == "__main__":
    sys.exit(main(sys.argv))
