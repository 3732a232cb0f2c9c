"""Reference: 512 steps of v = a v + b per element, (a, b) by the parity of the thread's lane (closed form, float64)."""
import numpy as np


def reference(x, y, N):
    on_torch = hasattr(x, "double")
    v = x.double().cpu().numpy() if on_torch else x.astype(np.float64)
    even = (np.arange(N) % 256) % 2 == 0
    a = np.where(even, 0.999, 0.998)
    b = np.where(even, 0.001, -0.002)
    steps = 512
    out = a**steps * v + b * (1 - a**steps) / (1 - a)
    if on_torch:
        import torch

        y.copy_(torch.from_numpy(out).to(y.device, y.dtype))
    else:
        y[...] = out
