"""Reference: four damped chains per element, in closed form (float64)."""
import numpy as np


def reference(x, y, N):
    on_torch = hasattr(x, "double")
    v = x.double().cpu().numpy() if on_torch else x.astype(np.float64)
    steps = 4096

    def chain(start, a, b):
        return a**steps * start + b * (1 - a**steps) / (1 - a)

    out = chain(v, 0.999, 0.001) + chain(v + 1, 0.998, 0.002) + chain(v - 1, 0.997, 0.003) + chain(0.5 * v, 0.996, 0.004)
    if on_torch:
        import torch

        y.copy_(torch.from_numpy(out).to(y.device, y.dtype))
    else:
        y[...] = out
