"""The workload kopt measures: an MLP's forward pass on a batch of tokens, as a serving step.

Prints one JSON line: step_ms (the median step of this run, CUDA events), latencies_ms (every
timed step, for the tail) and tokens_per_s; writes the logits of a fixed batch, raw float32,
to $KOPT_WORKLOAD_OUTPUT (kopt's accuracy gate). $KOPT_BIAS_GELU names the exported
operator's folder: set, the model runs kopt's kernel; unset, PyTorch's add and GELU.
$WORKLOAD_TRACE=FILE also writes a PyTorch-profiler trace of a few steps (for kopt evidence
and the prediction). $WORKLOAD_PLANT plants a fault for kopt's own tests: `wrong` (the
logits are changed), `tail` (one step in forty sleeps 3 ms: a worse p99, the same median).
"""
import json
import os

import torch

from model import Mlp, load_bias_gelu

TOKENS, WIDTH, HIDDEN = 8192, 1024, 4096
WARMUP, STEPS = 10, 60


def timed_steps(model, x, plant):
    latencies = []
    for step in range(STEPS):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        model(x)
        if plant == "tail" and step % 40 == 39:
            torch.cuda._sleep(3_000_000)  # about 2 ms of GPU cycles inside the step
        end.record()
        end.synchronize()
        latencies.append(start.elapsed_time(end))
    return latencies


def write_trace(model, x, path):
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                            torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(5):
            model(x)
        torch.cuda.synchronize()
    prof.export_chrome_trace(path)


def main():
    torch.backends.cuda.matmul.allow_tf32 = True  # as a serving stack would run fp32 GEMMs
    plant = os.environ.get("WORKLOAD_PLANT", "")
    model = Mlp(WIDTH, HIDDEN, load_bias_gelu(os.environ.get("KOPT_BIAS_GELU"))).cuda()
    x = torch.randn(TOKENS, WIDTH, generator=torch.Generator().manual_seed(1)).cuda()
    with torch.inference_mode():
        for _ in range(WARMUP):
            model(x)
        torch.cuda.synchronize()
        latencies = timed_steps(model, x, plant)
        logits = model(x)
        if plant == "wrong":
            logits = logits * 1.01
        if os.environ.get("WORKLOAD_TRACE"):
            write_trace(model, x, os.environ["WORKLOAD_TRACE"])
    if os.environ.get("KOPT_WORKLOAD_OUTPUT"):
        logits.float().cpu().numpy().tofile(os.environ["KOPT_WORKLOAD_OUTPUT"])
    step_ms = sorted(latencies)[len(latencies) // 2]
    print(json.dumps({"step_ms": step_ms, "latencies_ms": latencies, "tokens_per_s": TOKENS / step_ms * 1e3}))


if __name__ == "__main__":
    main()
