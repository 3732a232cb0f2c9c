"""Reference for softmax: row-wise softmax computed in float64, rounded to float32 once."""


def reference(input, output, rows, cols):
    if hasattr(input, "double"):  # torch tensors (on the GPU)
        import torch

        output.copy_(torch.softmax(input.double(), dim=1))
    else:  # numpy arrays
        import numpy as np

        x = input.astype(np.float64)
        x -= x.max(axis=1, keepdims=True)
        np.exp(x, out=x)
        x /= x.sum(axis=1, keepdims=True)
        output[...] = x
