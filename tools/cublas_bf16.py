"""cuBLAS BF16 at N^3 (torch.mm: BF16 in, FP32 accumulate, BF16 out), timed as kopt's cold mode
times a kernel: the L2 overwritten before each call, CUDA events around the call alone; the
median of 200 calls after 20 of warm-up, as JSON on stdout. The yardstick of issue 20's GEMMs
(tools/cutlass_gpu.sh, tools/triton_gpu.sh).

    python3 tools/cublas_bf16.py [N]      (default 4096)
"""
import json
import statistics
import sys

import torch

n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
a = torch.randn(n, n, device="cuda").bfloat16()
b = torch.randn(n, n, device="cuda").bfloat16()
flush = torch.empty(int(torch.cuda.get_device_properties(0).L2_cache_size * 2) // 4, device="cuda")
times = []
for i in range(220):
    flush.fill_(i)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    torch.mm(a, b)
    end.record()
    torch.cuda.synchronize()
    if i >= 20:
        times.append(start.elapsed_time(end) / 1e3)
median = statistics.median(times)
print(json.dumps({"what": f"torch.mm bf16 {n}^3 (cuBLAS), cold L2", "samples": len(times), "median_s": median,
                  "tflop_per_s": 2 * n**3 / median / 1e12, "torch": torch.__version__}, indent=1))
