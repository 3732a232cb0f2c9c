#!/usr/bin/env python3
"""kopt's bundled reference runner.

    python3 kopt_reference_runner.py MANIFEST.json [MANIFEST.json ...]

For each manifest, in order: loads the inputs it names (1-D .npy files), calls the
reference's `reference(**kwargs)` (or a LeetGPU-style `Challenge().reference_impl(**kwargs)`),
and saves every output as a 1-D .npy file. Several manifests share one process, so torch and
each reference module are imported once. See docs/design.md, sections 2 and 4.

A manifest with a "time" object (see TIME_DEFAULTS) also times the reference the way kopt's
worker times a kernel (cold L2, CUDA events, the same stopping rule) and adds a "timing"
object to its JSON line: every sample in seconds and the stop reason, or, on the numpy
backend, "timed": false and the reason (CPU time is not comparable with a kernel's).

Exit codes: 0 ok (one JSON line per manifest on stdout, in order); 2 the reference failed or
a manifest/file is bad; 3 the environment is missing something (numpy; for bf16/fp8 without
torch, ml_dtypes). The first failure stops the run: stdout stays empty and the last line of
stderr is `REFERENCE_ERROR: ...`.
"""

import bisect
import contextlib
import importlib.util
import json
import math
import os
import statistics
import sys
import time
import traceback
import types

EXIT_OK = 0
EXIT_FAILED = 2
EXIT_ENVIRONMENT = 3

# name -> (travel .npy descr, kind, torch dtype attribute, NaN bit pattern for raw-bit types)
DTYPES = {
    "float64": ("<f8", "float", "float64", None),
    "float32": ("<f4", "float", "float32", None),
    "float16": ("<f2", "float", "float16", None),
    "bfloat16": ("<u2", "float", "bfloat16", 0x7FC0),
    "float8_e4m3": ("|u1", "float", "float8_e4m3fn", 0x7F),
    "float8_e5m2": ("|u1", "float", "float8_e5m2", 0x7F),
    "int8": ("|i1", "int", "int8", None),
    "uint8": ("|u1", "int", "uint8", None),
    "int16": ("<i2", "int", "int16", None),
    "uint16": ("<u2", "int", "uint16", None),
    "int32": ("<i4", "int", "int32", None),
    "uint32": ("<u4", "int", "uint32", None),
    "int64": ("<i8", "int", "int64", None),
    "uint64": ("<u8", "int", "uint64", None),
}
RAW_BIT_TYPES = {"bfloat16": "bfloat16", "float8_e4m3": "float8_e4m3fn",
                 "float8_e5m2": "float8_e5m2"}  # kopt name -> ml_dtypes name


class RunnerError(Exception):
    """A failure reported as `REFERENCE_ERROR: message` with an exit code."""

    def __init__(self, message, code=EXIT_FAILED):
        super().__init__(message)
        self.code = code


def one_line(text, limit=2000):
    line = " ".join(part.strip() for part in str(text).splitlines() if part.strip())
    return line if len(line) <= limit else line[:limit] + "..."


# ---------------------------------------------------------------- manifest

def load_manifest(path):
    try:
        with open(path, "r", encoding="utf-8") as f:
            manifest = json.load(f)
    except OSError as e:
        raise RunnerError("cannot read manifest %s: %s" % (path, e.strerror))
    except ValueError as e:
        raise RunnerError("manifest %s is not valid JSON: %s" % (path, e))
    if not isinstance(manifest, dict):
        raise RunnerError("manifest %s: expected a JSON object" % path)
    reference = manifest.get("reference")
    if not isinstance(reference, str) or not reference:
        raise RunnerError("manifest: missing \"reference\"")
    if not os.path.isfile(reference):
        raise RunnerError("reference file not found: %s" % reference)
    if manifest.get("device", "auto") not in ("auto", "cpu", "cuda"):
        raise RunnerError("manifest: device must be \"auto\", \"cpu\" or \"cuda\", got %r"
                          % (manifest.get("device"),))
    cuda_device = manifest.get("cuda_device")
    if cuda_device is not None and (isinstance(cuda_device, bool)
                                    or not isinstance(cuda_device, int) or cuda_device < 0):
        raise RunnerError("manifest: cuda_device must be a GPU ordinal, got %r" % (cuda_device,))
    time_settings(manifest)
    params = manifest.get("params")
    if not isinstance(params, list):
        raise RunnerError("manifest: missing \"params\" list")
    names = set()
    for param in params:
        check_param(param)
        if param["name"] in names:
            raise RunnerError("manifest: parameter %s appears twice" % param["name"])
        names.add(param["name"])
    return manifest


def check_param(param):
    if not isinstance(param, dict) or not isinstance(param.get("name"), str):
        raise RunnerError("manifest: every param needs a \"name\": %r" % (param,))
    name = param["name"]
    if param.get("dtype") not in DTYPES:
        raise RunnerError("manifest: param %s has unknown dtype %r" % (name, param.get("dtype")))
    kind = param.get("kind")
    if kind == "scalar":
        if not isinstance(param.get("value"), (int, float)) or isinstance(param["value"], bool):
            raise RunnerError("manifest: scalar %s needs a numeric \"value\"" % name)
        return
    if kind != "buffer":
        raise RunnerError("manifest: param %s has kind %r (buffer or scalar)" % (name, kind))
    shape = param.get("shape")
    if not isinstance(shape, list) or not all(
            isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
        raise RunnerError("manifest: buffer %s needs a \"shape\" of non-negative integers" % name)
    role = param.get("role")
    if role not in ("input", "output", "inout"):
        raise RunnerError("manifest: buffer %s has role %r (input, output or inout)" % (name, role))
    if role in ("input", "inout") and not isinstance(param.get("path"), str):
        raise RunnerError("manifest: %s buffer %s needs a \"path\"" % (role, name))
    if role in ("output", "inout") and not isinstance(param.get("output_path"), str):
        raise RunnerError("manifest: %s buffer %s needs an \"output_path\"" % (role, name))
    if param.get("init", "zeros") != "zeros" or ("init" in param and role != "output"):
        raise RunnerError("manifest: buffer %s: \"init\" is only \"zeros\", on an output" % name)


def element_count(shape):
    count = 1
    for d in shape:
        count *= d
    return count


def is_output(param):
    return param["kind"] == "buffer" and param["role"] in ("output", "inout")


def starts_at_zero(param):
    """An output the spec fills with zeros before every call (init = "zeros")."""
    return param["kind"] == "buffer" and param["role"] == "output" and param.get("init") == "zeros"


# ---------------------------------------------------------------- backends

class NumpyBackend:
    """Arrays on the CPU; bf16/fp8 through ml_dtypes."""

    name = "numpy"
    device = "cpu"

    def __init__(self, np, params):
        self.np = np
        self.ml_dtypes = None
        raw = sorted({p["dtype"] for p in params if p["dtype"] in RAW_BIT_TYPES})
        if raw:
            try:
                import ml_dtypes
            except ImportError:
                raise RunnerError(
                    "%s buffers need torch (with a GPU) or the ml_dtypes package for the numpy "
                    "reference path; neither is available (pip install ml_dtypes)"
                    % "/".join(raw), EXIT_ENVIRONMENT)
            self.ml_dtypes = ml_dtypes

    def value_dtype(self, dtype):
        if dtype in RAW_BIT_TYPES:
            return self.np.dtype(getattr(self.ml_dtypes, RAW_BIT_TYPES[dtype]))
        return self.np.dtype(DTYPES[dtype][0])

    def from_travel(self, bits, dtype, shape):
        return bits.view(self.value_dtype(dtype)).reshape(shape)

    def to_travel(self, array, dtype):
        array = self.np.ascontiguousarray(array).reshape(-1)
        return array.view(DTYPES[dtype][0]) if dtype in RAW_BIT_TYPES else array

    def poisoned(self, dtype, shape):
        np = self.np
        travel, kind, _, nan_bits = DTYPES[dtype]
        if kind == "int":
            return np.zeros(shape, dtype=travel)
        if nan_bits is not None:
            return np.full(shape, nan_bits, dtype=travel).view(self.value_dtype(dtype))
        return np.full(shape, np.nan, dtype=travel)

    def all_nan(self, array):
        np = self.np
        if array.dtype not in (np.float16, np.float32, np.float64):
            array = array.astype(np.float32)
        return bool(np.isnan(array).all())

    def coerce(self, value):
        if hasattr(value, "detach"):  # a torch tensor returned on the numpy path
            value = value.detach().cpu().numpy()
        return self.np.asarray(value)

    def assign(self, out, value):
        out[...] = value.reshape(out.shape)

    def synchronize(self):
        pass

    def copy(self, array):
        return array.copy()

    def to_numpy(self, array):
        return array


class TorchBackend:
    """Tensors on the GPU; TF32 off so that an fp32 reference is an fp32 reference."""

    name = "torch"
    device = "cuda"

    def __init__(self, np, torch, cuda_device=None):
        self.np = np
        self.torch = torch
        if cuda_device is not None:  # the GPU kopt's worker uses: "cuda" means this one
            torch.cuda.set_device(cuda_device)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        if hasattr(torch, "set_float32_matmul_precision"):
            torch.set_float32_matmul_precision("highest")

    def torch_dtype(self, dtype):
        name = DTYPES[dtype][2]
        if not hasattr(self.torch, name):
            raise RunnerError("this torch (%s) has no %s type"
                              % (self.torch.__version__, name), EXIT_ENVIRONMENT)
        return getattr(self.torch, name)

    def from_travel(self, bits, dtype, shape):
        torch = self.torch
        if dtype in RAW_BIT_TYPES:  # through signed types: torch's uint16 support is recent
            signed = bits.view("<i2" if dtype == "bfloat16" else "|i1")
            tensor = torch.from_numpy(self.np.ascontiguousarray(signed)).to("cuda")
            return tensor.view(self.torch_dtype(dtype)).reshape(shape)
        self.torch_dtype(dtype)
        return torch.from_numpy(self.np.ascontiguousarray(bits)).to("cuda").reshape(shape)

    def to_travel(self, tensor, dtype):
        torch = self.torch
        tensor = tensor.detach().contiguous().reshape(-1)
        if dtype == "bfloat16":
            return tensor.view(torch.int16).cpu().numpy().view("<u2")
        if dtype in RAW_BIT_TYPES:
            return tensor.view(torch.uint8).cpu().numpy()
        return tensor.cpu().numpy()

    def poisoned(self, dtype, shape):
        torch = self.torch
        kind, nan_bits = DTYPES[dtype][1], DTYPES[dtype][3]
        if kind == "int":
            return torch.zeros(shape, dtype=self.torch_dtype(dtype), device="cuda")
        if nan_bits is not None:
            bits_type = torch.int16 if dtype == "bfloat16" else torch.uint8
            bits = torch.full(shape, nan_bits, dtype=bits_type, device="cuda")
            return bits.view(self.torch_dtype(dtype))
        return torch.full(shape, float("nan"), dtype=self.torch_dtype(dtype), device="cuda")

    def all_nan(self, tensor):
        torch = self.torch
        if tensor.dtype not in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
            tensor = tensor.float()
        return bool(torch.isnan(tensor).all())

    def coerce(self, value):
        torch = self.torch
        if isinstance(value, torch.Tensor):
            return value.detach()
        return torch.as_tensor(self.np.asarray(value))

    def assign(self, out, value):
        out.copy_(value.to(out.device).reshape(out.shape))

    def synchronize(self):
        self.torch.cuda.synchronize()

    def copy(self, tensor):
        return tensor.clone()


def choose_backend(np, device, params, cuda_device=None):
    if device in ("auto", "cuda"):
        torch = None
        try:
            import torch
            cuda = torch.cuda.is_available()
        except Exception:  # a broken torch install is the same as none
            cuda = False
        if cuda:
            return TorchBackend(np, torch, cuda_device)
        if device == "cuda":
            raise RunnerError("device \"cuda\" needs torch with a CUDA GPU; none is available",
                              EXIT_ENVIRONMENT)
    return NumpyBackend(np, params)


# ---------------------------------------------------------------- data

def load_input(np, backend, param):
    name, path, dtype, shape = param["name"], param["path"], param["dtype"], param["shape"]
    try:
        bits = np.load(path, allow_pickle=False)
    except OSError as e:
        raise RunnerError("cannot read %s for buffer %s: %s" % (path, name, e))
    except ValueError as e:
        raise RunnerError("%s (buffer %s) is not a valid .npy file: %s" % (path, name, e))
    expected = np.dtype(DTYPES[dtype][0])
    if bits.dtype != expected:
        raise RunnerError("%s (buffer %s): dtype %s, expected %s for %s"
                          % (path, name, bits.dtype.str, expected.str, dtype))
    if bits.ndim != 1 or bits.size != element_count(shape):
        raise RunnerError("%s (buffer %s): shape %s, expected 1-D of %d elements"
                          % (path, name, list(bits.shape), element_count(shape)))
    return backend.from_travel(bits, dtype, tuple(shape))


def zeros(np, backend, param):
    """All-zero bits, as kopt's generator fills an init = "zeros" buffer (0 and +0.0 in
    every type): built here rather than read from a .npy that would hold only zeros."""
    bits = np.zeros(element_count(param["shape"]), dtype=DTYPES[param["dtype"]][0])
    return backend.from_travel(bits, param["dtype"], tuple(param["shape"]))


def build_arguments(np, backend, params):
    kwargs = {}
    for param in params:
        dtype = param["dtype"]
        if param["kind"] == "scalar":
            convert = int if DTYPES[dtype][1] == "int" else float
            kwargs[param["name"]] = convert(param["value"])
        elif starts_at_zero(param):
            kwargs[param["name"]] = zeros(np, backend, param)
        elif param["role"] == "output":
            kwargs[param["name"]] = backend.poisoned(dtype, tuple(param["shape"]))
        else:
            kwargs[param["name"]] = load_input(np, backend, param)
    return kwargs


def save_npy(np, path, array):
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    temporary = "%s.tmp.%d" % (path, os.getpid())
    try:
        with open(temporary, "wb") as f:
            np.save(f, array, allow_pickle=False)
        os.replace(temporary, path)
    except OSError as e:
        with contextlib.suppress(OSError):
            os.remove(temporary)
        raise RunnerError("cannot write %s: %s" % (path, e))


# ---------------------------------------------------------------- the reference

def install_leetgpu_stand_in():
    """LeetGPU challenge files import core.challenge_base; stand in for it when absent."""
    try:
        importlib.import_module("core.challenge_base")
        return
    except Exception:
        pass

    class ChallengeBase:
        def __init__(self, device=None, **kwargs):
            if device is not None:  # else find_callable sets the backend's, as LeetGPU's base would
                self.device = device
            for key, value in kwargs.items():
                setattr(self, key, value)

    class HelperClass:
        def __init__(self, *args, **kwargs):
            self.args, self.kwargs = args, kwargs

    base = types.ModuleType("core.challenge_base")
    base.ChallengeBase = ChallengeBase
    def any_helper_class(name):  # OutTensor, RandTensor, ... but no module dunders
        if name.startswith("__"):
            raise AttributeError(name)
        return HelperClass

    base.__getattr__ = any_helper_class
    core = types.ModuleType("core")
    core.__path__ = []
    core.challenge_base = base
    sys.modules["core"] = core
    sys.modules["core.challenge_base"] = base


_MODULES = {}  # realpath -> module: each reference file is imported once per process


def load_reference(path):
    key = os.path.realpath(path)
    if key not in _MODULES:
        _MODULES[key] = import_reference(path, "kopt_reference_module_%d" % len(_MODULES))
    return _MODULES[key]


def import_reference(path, module_name):
    directory = os.path.dirname(os.path.abspath(path))
    if directory not in sys.path:
        sys.path.insert(0, directory)
    with open(path, "r", encoding="utf-8", errors="replace") as f:
        if "challenge_base" in f.read():
            install_leetgpu_stand_in()
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise RunnerError("cannot load %s as a Python module" % path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def find_callable(module, path, device):
    if callable(getattr(module, "reference", None)):
        return module.reference
    challenge = getattr(module, "Challenge", None)
    if challenge is not None and hasattr(challenge, "reference_impl"):
        instance = challenge()
        # LeetGPU's ChallengeBase gives every challenge self.device ("cuda"), where its
        # reference_impl makes its own tensors; the stand-in cannot know the device when the
        # class is made, so it is the device the backend put the inputs on.
        if not hasattr(instance, "device"):
            instance.device = device
        return instance.reference_impl
    raise RunnerError("%s defines no reference(**kwargs) function and no Challenge class with "
                      "reference_impl" % os.path.basename(path))


def reference_error_line(error, path):
    """`ref.py:LINE: ExceptionType: message`, LINE from the deepest frame in the reference."""
    base = os.path.basename(path)
    target = os.path.realpath(path)
    line = None
    if isinstance(error, SyntaxError) and error.filename and \
            os.path.realpath(error.filename) == target:
        line = error.lineno
    for frame in traceback.extract_tb(error.__traceback__):
        if os.path.realpath(frame.filename) == target:
            line = frame.lineno
    where = "%s:%s" % (base, line) if line is not None else base
    message = one_line(error)
    kind = type(error).__name__
    return "%s: %s: %s" % (where, kind, message) if message else "%s: %s" % (where, kind)


# ---------------------------------------------------------------- results

def returned_outputs(result, outputs):
    """Maps what the reference returned onto output names (an empty dict for None)."""
    if result is None:
        return {}
    names = [p["name"] for p in outputs]
    if isinstance(result, dict):
        unknown = [k for k in result if k not in names]
        if unknown:
            raise RunnerError("reference returned %s, which is not an output (outputs: %s)"
                              % (", ".join(map(str, unknown)), ", ".join(names) or "none"))
        return dict(result)
    if isinstance(result, (tuple, list)):
        if len(result) != len(names):
            raise RunnerError("reference returned %d values for %d outputs (%s)"
                              % (len(result), len(names), ", ".join(names)))
        return dict(zip(names, result))
    if len(names) != 1:
        raise RunnerError("reference returned one value but there are %d outputs (%s); return "
                          "a tuple or a dict, or write them in place"
                          % (len(names), ", ".join(names)))
    return {names[0]: result}


def same_shape(got, expected):
    """Equal, or equal but for size-1 axes: () fits (1,), (1, N) fits (N,)."""
    def squeeze(shape):
        return tuple(d for d in shape if d != 1)
    return tuple(got) == tuple(expected) or (
        element_count(got) == element_count(expected) and squeeze(got) == squeeze(expected))


def copy_returned(backend, kwargs, returned):
    for name, value in returned.items():
        out = kwargs[name]
        if value is out:
            continue
        value = backend.coerce(value)
        if not same_shape(value.shape, out.shape):
            raise RunnerError("reference returned output %s with shape %s, expected %s"
                              % (name, list(value.shape), list(out.shape)))
        backend.assign(out, value)


def check_written(backend, kwargs, outputs):
    for param in outputs:
        if param["role"] != "output" or starts_at_zero(param) or DTYPES[param["dtype"]][1] != "float":
            continue
        if element_count(param["shape"]) and backend.all_nan(kwargs[param["name"]]):
            raise RunnerError("reference did not write output %s (write into the given tensor "
                              "in place, e.g. %s.copy_(...) or %s[...] = ...)"
                              % ((param["name"],) * 3))


def save_outputs(np, backend, kwargs, outputs):
    travel = [(p, backend.to_travel(kwargs[p["name"]], p["dtype"])) for p in outputs]
    for param, array in travel:
        save_npy(np, param["output_path"], array)


# ---------------------------------------------------------------- timing

NOT_TIMED_ON_CPU = "not timed: numpy reference runs on the CPU"
TIME_MODES = ("cold", "warm")
L2_FLUSHES = ("read", "write")
# The manifest's "time" object: what it may hold, and the defaults (kopt's StoppingSettings).
TIME_DEFAULTS = {"mode": "cold", "target_half_width": 0.0025, "resolution_seconds": 0.0,
                 "budget_seconds": 0.0, "min_samples": 10, "min_gpu_seconds": 0.01,
                 "timeout_seconds": 15.0, "max_samples": 100000, "l2_bytes": 0, "l2_flush": "read",
                 "warmup_calls": 1}


def time_settings(manifest):
    """The manifest's "time" object with defaults filled in, or None when it asks no timing."""
    given = manifest.get("time")
    if given is None:
        return None
    if not isinstance(given, dict):
        raise RunnerError("manifest: \"time\" must be an object")
    unknown = sorted(set(given) - set(TIME_DEFAULTS))
    if unknown:
        raise RunnerError("manifest: unknown \"time\" field(s) %s" % ", ".join(unknown))
    settings = dict(TIME_DEFAULTS, **given)
    if settings["mode"] not in TIME_MODES:
        raise RunnerError("manifest: time mode must be \"cold\" or \"warm\", got %r"
                          % (settings["mode"],))
    if settings["l2_flush"] not in L2_FLUSHES:
        raise RunnerError("manifest: time l2_flush must be \"read\" or \"write\", got %r"
                          % (settings["l2_flush"],))
    for key in TIME_DEFAULTS:
        value = settings[key]
        if key not in ("mode", "l2_flush") and (isinstance(value, bool) or not isinstance(value, (int, float))
                              or value < 0):
            raise RunnerError("manifest: time %s must be a non-negative number, got %r"
                              % (key, value))
    return settings


class StoppingCriterion:
    """kopt's stopping rule (src/kopt/measure/stopping_criterion.hpp), the same decisions in
    the same order, so a Python reference stops where a .cu one would: when the 95 % interval
    of the median (order statistics, widened by one timer tick each side) is narrow enough,
    or when only the tick keeps it wide; and, as a budgeted variant, once it has taken as much
    GPU time as the first kernel did (budget_seconds, after 5 samples)."""

    LEVEL = 0.95
    MIN_BUDGETED_SAMPLES = 5

    def __init__(self, settings):
        self.settings = settings
        self.sorted = []
        self.total_seconds = 0.0
        self.z = statistics.NormalDist().inv_cdf((1 + self.LEVEL) / 2)

    @property
    def count(self):
        return len(self.sorted)

    def add_sample(self, seconds):
        bisect.insort(self.sorted, seconds)
        self.total_seconds += seconds

    def median(self):
        n = self.count
        return (self.sorted[(n - 1) // 2] + self.sorted[n // 2]) / 2

    def statistical_half_width(self):
        """max(median - x_(l), x_(u) - median) / median, with the ranks of statistics.hpp."""
        n = self.count
        median = self.median() if n else 0.0
        if median <= 0:
            return math.inf
        centre, reach = (n + 1) / 2, self.z * math.sqrt(n) / 2
        low = self.sorted[max(1, math.floor(centre - reach)) - 1]
        high = self.sorted[min(n, math.ceil(centre + reach)) - 1]
        return max(median - low, high - median) / median

    def minimums_met(self):
        return (self.count >= max(self.settings["min_samples"], 2)
                and self.total_seconds >= self.settings["min_gpu_seconds"])

    def check(self, elapsed_wall_seconds):
        """The stop reason, or None to go on."""
        if self.count >= self.settings["max_samples"]:
            return "max_samples"
        if self.minimums_met() and self.median() > 0:
            statistical = self.statistical_half_width()
            tick_share = self.settings["resolution_seconds"] / self.median()
            if statistical + tick_share <= self.settings["target_half_width"]:
                return "median_precise"
            if statistical <= tick_share:
                return "resolution_limited"
        if elapsed_wall_seconds >= self.settings["timeout_seconds"]:
            return "timeout"
        budget = self.settings["budget_seconds"]
        if budget > 0 and self.count >= self.MIN_BUDGETED_SAMPLES and self.total_seconds >= budget:
            return "budget_spent"
        return None


def sample_until_stopped(take_sample, settings, clock=time.perf_counter):
    """Calls take_sample() -> (event seconds, host seconds) until the stopping rule says stop.
    `clock` gives the wall time for the timeout; tests pass fakes for both."""
    criterion = StoppingCriterion(settings)
    gpu, host = [], []
    began = clock()
    while True:
        event_seconds, host_seconds = take_sample()
        gpu.append(event_seconds)
        host.append(host_seconds)
        criterion.add_sample(event_seconds)
        reason = criterion.check(clock() - began)
        if reason is not None:
            return {"samples_seconds": gpu, "host_seconds": host, "stop_reason": reason}


class TorchSampler:
    """One sample as kopt's worker takes one: (cold) read a reused buffer of l2_bytes (kopt
    sends twice the L2's size), or with l2_flush "write" write it, a different byte each
    time, and wait; CUDA events on the current stream bracket one call; a device-wide
    synchronize waits for work on any stream; the host clock runs around it."""

    def __init__(self, torch, call, mode, l2_bytes, clock=time.perf_counter, prepare=None,
                 l2_flush="read"):
        self.torch, self.call, self.clock, self.prepare = torch, call, clock, prepare
        self.l2_flush = l2_flush
        self.flush = None
        if mode == "cold" and l2_bytes > 0:
            self.flush = torch.empty(int(l2_bytes), dtype=torch.uint8, device="cuda")
        self.start = torch.cuda.Event(enable_timing=True)
        self.stop = torch.cuda.Event(enable_timing=True)
        self.round = 0

    def __call__(self):
        torch = self.torch
        self.round += 1
        if self.prepare is not None:  # untimed: before the flush and the events
            self.prepare()
        if self.flush is not None and self.l2_flush == "read":
            self.flush.sum()  # reads every byte; leaves the L2 holding clean lines
        elif self.flush is not None:
            self.flush.fill_(self.round & 0xFF)
        torch.cuda.synchronize()
        host_start = self.clock()
        self.start.record()
        self.call()
        self.stop.record()
        torch.cuda.synchronize()
        host_seconds = self.clock() - host_start
        return self.start.elapsed_time(self.stop) * 1e-3, host_seconds


def in_out_restorer(backend, kwargs, params):
    """A function that puts in-out buffers (and outputs that start at zero) back as they are
    now, so every call starts alike."""
    saved = [(kwargs[p["name"]], backend.copy(kwargs[p["name"]]))
             for p in params if p["kind"] == "buffer" and (p["role"] == "inout" or starts_at_zero(p))]

    def restore():
        for buffer, original in saved:
            backend.assign(buffer, original)
    return restore


def time_reference(backend, function, kwargs, params, settings):
    """The "timing" object of the result: every sample, or why there are none."""
    about = {"backend": backend.name, "device": backend.device, "interleaved": False}
    if backend.name != "torch":
        return dict(about, timed=False, reason=NOT_TIMED_ON_CPU)
    sampler = TorchSampler(backend.torch, lambda: function(**kwargs), settings["mode"],
                           settings["l2_bytes"], prepare=in_out_restorer(backend, kwargs, params),
                           l2_flush=settings["l2_flush"])
    first_call_seconds = None
    for _ in range(max(1, int(settings["warmup_calls"]))):
        _, host_seconds = sampler()
        if first_call_seconds is None:
            first_call_seconds = host_seconds
    result = sample_until_stopped(sampler, settings)
    return dict(about, timed=True, mode=settings["mode"],
                l2_flush_bytes=settings["l2_bytes"] if sampler.flush is not None else 0,
                l2_flush=settings["l2_flush"],
                first_call_seconds=first_call_seconds, **result)


# ---------------------------------------------------------------- main

def run(manifest_path):
    try:
        import numpy as np
    except ImportError:
        raise RunnerError("numpy is not installed for %s (pip install numpy)" % sys.executable,
                          EXIT_ENVIRONMENT)
    manifest = load_manifest(manifest_path)
    params = manifest["params"]
    outputs = [p for p in params if is_output(p)]
    backend = choose_backend(np, manifest.get("device", "auto"), params,
                             manifest.get("cuda_device"))
    loading = time.perf_counter()
    kwargs = build_arguments(np, backend, params)
    backend.synchronize()
    load_seconds = time.perf_counter() - loading
    path = manifest["reference"]
    with reference_errors(path):
        function = find_callable(load_reference(path), path, backend.device)
        backend.synchronize()
        start = time.perf_counter()
        result = function(**kwargs)
        backend.synchronize()
        seconds = time.perf_counter() - start
    copy_returned(backend, kwargs, returned_outputs(result, outputs))
    backend.synchronize()
    check_written(backend, kwargs, outputs)
    saving = time.perf_counter()
    save_outputs(np, backend, kwargs, outputs)
    summary = {"backend": backend.name, "device": backend.device, "seconds": seconds,
               "load_seconds": load_seconds, "save_seconds": time.perf_counter() - saving}
    settings = time_settings(manifest)
    if settings is not None:  # after the outputs are saved: timing calls it many more times
        with reference_errors(path):
            summary["timing"] = time_reference(backend, function, kwargs, params, settings)
    return summary


@contextlib.contextmanager
def reference_errors(path):
    """An exception from the reference becomes `ref.py:LINE: Type: message`."""
    try:
        yield
    except RunnerError:
        raise
    except ModuleNotFoundError as error:
        # A package the reference imports is not installed (torch, say): the environment's
        # failure (exit 3), not the reference's.
        traceback.print_exc(file=sys.stderr)
        raise RunnerError(reference_error_line(error, path) + " (install it for this Python)",
                          EXIT_ENVIRONMENT)
    except BaseException as error:  # SystemExit and KeyboardInterrupt from a reference, too
        traceback.print_exc(file=sys.stderr)
        raise RunnerError(reference_error_line(error, path))


def run_request(request):
    """One request of --serve: the same result a one-shot run of its manifests gives, as a
    dict: the JSON lines, or the error line and exit code."""
    try:
        return {"lines": [run(manifest) for manifest in request["manifests"]]}
    except RunnerError as error:
        return {"error": one_line(error), "code": error.code}
    except Exception as error:  # a bug here or an unexpected failure: still one clear line
        traceback.print_exc(file=sys.stderr)
        return {"error": "runner: %s: %s" % (type(error).__name__, one_line(error)), "code": EXIT_FAILED}


def release_cached_gpu_memory():
    """Between requests a server idles beside the kernels kopt checks and times, for as long as
    a loop runs: torch's allocator hands back the blocks it kept from the reference's tensors,
    which a kernel's own buffers may need."""
    torch = sys.modules.get("torch")
    try:
        if torch is not None and torch.cuda.is_initialized():
            torch.cuda.empty_cache()
    except Exception:  # a broken CUDA is the next request's to report, not this one's
        pass


def warm_cuda(cuda_device):
    """--warm-cuda N: torch sets up CUDA on GPU N (the one kopt's workers use; manifests without
    "cuda_device" then compute there too) while the runner waits for its first request, which
    kopt sends only after the kernel's worker has exited: the context and the allocator, about
    a second of the first reference's time otherwise. Nothing of a reference runs here."""
    torch = sys.modules.get("torch")
    if torch is None:
        return
    try:
        if not torch.cuda.is_available() or cuda_device >= torch.cuda.device_count():
            return
        torch.cuda.set_device(cuda_device)
        torch.zeros(1, device="cuda")
        torch.cuda.synchronize()
    except Exception:  # a broken CUDA is the first request's to report, as without the warm-up
        pass


def serve(folder, poll_seconds=0.002, cuda_device=None):
    """--serve FOLDER [--warm-cuda N]: one process for every reference run of a kopt command, so
    that Python, numpy and torch (seconds with CUDA) start once. Request N is
    FOLDER/request-N.json ({"nonce", "manifests"}); its answer goes to FOLDER/response-N.json,
    written whole by a rename, with the request's nonce. FOLDER/stop, or the parent's end, ends
    the process."""
    parent = os.getppid()
    # numpy and torch load now, while kopt compiles and runs the kernel; CUDA too when asked.
    for name in ("numpy", "torch"):
        try:
            importlib.import_module(name)
        except Exception:  # absent or broken: the manifest's run says so, as a one-shot run would
            pass
    if cuda_device is not None:
        warm_cuda(cuda_device)
    number = 0
    while True:
        request_path = os.path.join(folder, "request-%d.json" % number)
        while not os.path.exists(request_path):
            if os.path.exists(os.path.join(folder, "stop")) or os.getppid() != parent:
                return EXIT_OK
            time.sleep(poll_seconds)
        with open(request_path, "r", encoding="utf-8") as f:
            request = json.load(f)
        response = dict(run_request(request), nonce=request["nonce"])
        release_cached_gpu_memory()
        sys.stdout.flush()
        sys.stderr.flush()
        response_path = os.path.join(folder, "response-%d.json" % number)
        with open(response_path + ".tmp", "w", encoding="utf-8") as f:
            json.dump(response, f)
        os.replace(response_path + ".tmp", response_path)
        number += 1


def main(argv):
    # stdout carries only the JSON lines: whatever the reference prints, even from C code,
    # goes to stderr.
    sys.stdout.flush()
    result_fd = os.dup(1)
    os.dup2(2, 1)
    if len(argv) == 3 and argv[1] == "--serve":
        return serve(argv[2])
    if len(argv) == 5 and argv[1] == "--serve" and argv[3] == "--warm-cuda" and argv[4].isdigit():
        return serve(argv[2], cuda_device=int(argv[4]))
    if len(argv) < 2:
        answer = {"error": "usage: %s MANIFEST.json [MANIFEST.json ...]" % os.path.basename(argv[0]),
                  "code": EXIT_FAILED}
    else:
        # Several manifests in one process: torch is imported and the reference loaded once.
        answer = run_request({"manifests": argv[1:]})
    sys.stdout.flush()
    if "error" in answer:
        sys.stderr.write("REFERENCE_ERROR: %s\n" % answer["error"])
        sys.stderr.flush()
        return answer["code"]
    lines = "".join(json.dumps(summary) + "\n" for summary in answer["lines"])
    os.write(result_fd, lines.encode("utf-8"))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main(sys.argv))
