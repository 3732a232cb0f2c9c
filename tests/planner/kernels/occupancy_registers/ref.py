"""Reference: the kernel's mixing rounds on the same thread layout, in float64."""
import numpy as np


def reference(x, y, N):
    live, block = 96, 256
    blocks = (N + block * live - 1) // (block * live)
    threads = blocks * block
    on_torch = hasattr(x, "double")
    data = x.double().cpu().numpy() if on_torch else x.astype(np.float64)
    v = np.zeros((live, threads))
    flat = np.arange(live)[:, None] * threads + np.arange(threads)[None, :]
    inside = flat < N
    v[inside] = data[flat[inside]]
    for _ in range(8):
        for j in range(live):  # in place, in the kernel's order: later j read updated values
            v[j] = v[j] * 0.5 + v[(j + 37) % live] * 0.25
    result = v[inside]
    order = flat[inside]
    out = np.empty(N)
    out[order] = result
    if on_torch:
        import torch

        y.copy_(torch.from_numpy(out).to(y.device, y.dtype))
    else:
        y[...] = out
