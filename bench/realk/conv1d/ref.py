import numpy as np


def reference(input, kernel, output, N, K):
    host = lambda t: t.double().cpu().numpy() if hasattr(t, "double") else t.astype("float64")
    x, w = host(input), host(kernel)
    # np.convolve flips its second argument: correlate by flipping it back; "same" keeps N.
    full = np.convolve(x, w[::-1], mode="full")
    result = full[K // 2:K // 2 + N].astype(np.float32)
    if hasattr(output, "copy_"):
        import torch

        output.copy_(torch.from_numpy(result))
    else:
        output[...] = result
