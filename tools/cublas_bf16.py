"""cuBLAS BF16 at N^3 (torch.mm: BF16 in, FP32 accumulate, BF16 out), timed as kopt's cold mode
times a kernel: the L2 made cold before each call by READING a buffer of twice its size, as
kopt's shim does (runtime/kopt_shim.cu, docs/measurement.md "Cold L2"), CUDA events around the
call alone; the median of 200 calls after 20 of warm-up, as JSON on stdout. The yardstick of
issue 20's GEMMs (tools/cutlass_gpu.sh, tools/triton_gpu.sh).

A write flush (fill_, as this script did before the eighteenth session) leaves the L2 full of
dirty lines that the timed call must write back: its median is printed beside, as
"write_flush_median_s", so that figures taken with it can be read against kopt's.

    python3 tools/cublas_bf16.py [N]      (default 4096)
"""
import json
import statistics
import sys

import torch

n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
a = torch.randn(n, n, device="cuda").bfloat16()
b = torch.randn(n, n, device="cuda").bfloat16()
flush = torch.zeros(int(torch.cuda.get_device_properties(0).L2_cache_size * 2) // 4, device="cuda")
sink = torch.empty((), device="cuda")


def median_seconds(make_cold):
    times = []
    for i in range(220):
        make_cold(i)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        torch.mm(a, b)
        end.record()
        torch.cuda.synchronize()
        if i >= 20:
            times.append(start.elapsed_time(end) / 1e3)
    return statistics.median(times), len(times)


median, samples = median_seconds(lambda i: torch.sum(flush, dim=0, out=sink))
write_median, _ = median_seconds(lambda i: flush.fill_(i))
print(json.dumps({"what": f"torch.mm bf16 {n}^3 (cuBLAS), cold L2 (read flush)", "samples": samples,
                  "median_s": median, "tflop_per_s": 2 * n**3 / median / 1e12,
                  "write_flush_median_s": write_median, "torch": torch.__version__}, indent=1))
