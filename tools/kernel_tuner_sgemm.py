#!/usr/bin/env python3
"""Kernel Tuner on kopt's tiled SGEMM: the same search space, one wall-clock budget (issue 26).

    python3 tools/kernel_tuner_sgemm.py --strategy random_sample --time-limit 150 --out DIR

Kernel Tuner (https://kerneltuner.github.io) tunes examples/sgemm_tiled/sgemm_tiled.cu over
the [tune] table of its kopt.toml, with its restrictions, at the spec's timed size (4096^3).

Why the C backend: Kernel Tuner's GPU backends (cupy, nvcuda, pycuda) launch a __global__
function themselves and never opt a kernel in to more than 48 KiB of dynamic shared memory,
so most of this space's fast configurations (the 85 % champion uses 81 KiB) would fail to
launch there. Its C backend instead compiles the source with nvcc into a library and calls a
host function that returns a time in milliseconds. The host function here calls the kernel's
own solve() (which opts in, as under kopt) once between two CUDA events, on device buffers
made once per configuration; Kernel Tuner calls it `--iterations` times and keeps the mean,
as it does with its own events. Each configuration's output is checked against cuBLAS
(atol 1e-2, the spec's tolerance) by Kernel Tuner's answer check.

Writes DIR/kernel_tuner_STRATEGY.json: the strategy, the budget, how many configurations were
compiled and timed, how many failed and why, the best configuration and its mean time, and
the wall time; and prints one line. Needs kernel_tuner (and python-constraint2, xmltodict,
jsonschema), numpy and, for the answer, torch with a GPU; nvcc on PATH.
"""
import argparse
import json
import os
import re
import sys
import time
import tomllib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "sgemm_tiled")

# The host function Kernel Tuner calls. A fresh library per configuration, so the statics are
# per configuration: inputs copied once, the output copied back after every call for the check.
WRAPPER = r"""
static float* kt_device_a = nullptr;
static float* kt_device_b = nullptr;
static float* kt_device_c = nullptr;

extern "C" float kt_sgemm(const float* a, const float* b, float* c, int m, int n, int k) {
  const size_t bytes_a = sizeof(float) * size_t(m) * k, bytes_b = sizeof(float) * size_t(k) * n,
               bytes_c = sizeof(float) * size_t(m) * n;
  if (kt_device_a == nullptr) {
    if (cudaMalloc(&kt_device_a, bytes_a) != cudaSuccess || cudaMalloc(&kt_device_b, bytes_b) != cudaSuccess ||
        cudaMalloc(&kt_device_c, bytes_c) != cudaSuccess) return -1.0f;
    cudaMemcpy(kt_device_a, a, bytes_a, cudaMemcpyHostToDevice);
    cudaMemcpy(kt_device_b, b, bytes_b, cudaMemcpyHostToDevice);
  }
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  solve(kt_device_a, kt_device_b, kt_device_c, m, n, k);
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float ms = -1.0f;
  if (cudaGetLastError() == cudaSuccess) cudaEventElapsedTime(&ms, start, stop);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaMemcpy(c, kt_device_c, bytes_c, cudaMemcpyDeviceToHost);
  return ms;
}
"""


def space_of(spec):
    """kopt's [tune] table as Kernel Tuner's tune_params and restrictions (C operators to Python)."""
    tune = dict(spec["tune"])
    restrict = tune.pop("restrict", [])
    restrictions = [re.sub(r"\|\|", " or ", re.sub(r"&&", " and ", r)) for r in restrict]
    return {name: list(values) for name, values in tune.items()}, restrictions


def fail_loudly_on_a_failed_launch():
    """kt_sgemm says -1 when solve() did not run; Kernel Tuner would take it for a time. Raised
    with the words Kernel Tuner knows, the configuration is recorded as a runtime failure."""
    from kernel_tuner.backends.compiler import CompilerFunctions

    run_kernel = CompilerFunctions.run_kernel

    def checked(self, func, c_args, threads, grid, stream=None):
        ms = run_kernel(self, func, c_args, threads, grid, stream)
        if ms is None or ms < 0:
            raise RuntimeError("too many resources requested for launch (kt_sgemm: solve did not run)")
        return ms

    CompilerFunctions.run_kernel = checked


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategy", default="random_sample", help="a Kernel Tuner strategy (random_sample, simulated_annealing, ...)")
    parser.add_argument("--time-limit", type=float, default=150, help="the strategy's time_limit in seconds")
    parser.add_argument("--iterations", type=int, default=7, help="timed calls per configuration (Kernel Tuner's default 7)")
    parser.add_argument("--out", required=True, help="folder for kernel_tuner_STRATEGY.json")
    parser.add_argument("--size", type=int, default=None, help="M = N = K (default: the spec's dims)")
    parser.add_argument("--no-answer", action="store_true",
                        help="skip the check against cuBLAS (a dry run of the script where there is no GPU)")
    args = parser.parse_args()

    import kernel_tuner  # here, so that --help works without it

    fail_loudly_on_a_failed_launch()

    with open(os.path.join(EXAMPLE, "kopt.toml"), "rb") as f:
        spec = tomllib.load(f)
    tune_params, restrictions = space_of(spec)
    m = n = k = args.size or spec["dims"]["M"]
    rng = np.random.default_rng(1)
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    c = np.zeros((m, n), dtype=np.float32)
    answer = None
    if not args.no_answer:
        import torch

        torch.backends.cuda.matmul.allow_tf32 = False
        answer = [None, None, (torch.from_numpy(a).cuda() @ torch.from_numpy(b).cuda()).cpu().numpy(), None, None, None]
    with open(os.path.join(EXAMPLE, "sgemm_tiled.cu")) as f:
        source = f.read() + WRAPPER

    start = time.monotonic()
    results, env = kernel_tuner.tune_kernel(
        "kt_sgemm", source, (1,), [a, b, c, np.int32(m), np.int32(n), np.int32(k)], tune_params,
        lang="C", compiler="nvcc", compiler_options=["-O3", "-std=c++17", "-arch=sm_90"],
        restrictions=restrictions, answer=answer, atol=1e-2,
        strategy=args.strategy, strategy_options={"time_limit": args.time_limit}, iterations=args.iterations,
        verbose=False, quiet=True)
    wall = time.monotonic() - start

    timed = [r for r in results if isinstance(r.get("time"), (int, float)) and r["time"] > 0]
    failed = {}
    for r in results:
        if r not in timed:
            error = r.get("__error__", r.get("time"))
            cause = type(error).__name__ if error is not None else "no time"
            failed[cause] = failed.get(cause, 0) + 1
    best = min(timed, key=lambda r: r["time"]) if timed else None
    document = {
        "strategy": args.strategy, "time_limit_s": args.time_limit, "wall_s": round(wall, 1),
        "kernel_tuner": kernel_tuner.__version__ if hasattr(kernel_tuner, "__version__") else "unknown",
        "size": [m, n, k], "configurations": len(results), "timed": len(timed), "failed": failed,
        "best": {name: best[name] for name in tune_params} if best else None,
        "best_mean_ms": best["time"] if best else None,
        "per_minute": round(len(results) * 60 / wall, 1) if wall > 0 else None,
    }
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, f"kernel_tuner_{args.strategy}.json"), "w") as f:
        json.dump(document, f, indent=2)
    flops = 2 * m * n * k
    line = (f"kernel_tuner {args.strategy}: {len(results)} configurations in {wall:.0f} s "
            f"({document['per_minute']} per minute), {len(timed)} timed, failed {failed}; ")
    line += (f"best {best['time'] * 1e3:.1f} us = {flops / (best['time'] * 1e-3) / 1e12:.2f} TFLOP/s "
             f"({document['best']})" if best else "no configuration timed")
    print(line)
    return 0 if best else 1


if __name__ == "__main__":
    sys.exit(main())
