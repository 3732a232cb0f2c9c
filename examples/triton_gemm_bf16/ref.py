"""Reference for the BF16 GEMM: the product of the same BF16 inputs in float64, rounded to BF16 once."""


def reference(A, B, C, M, N, K):
    if hasattr(A, "double"):  # torch tensors (on the GPU), torch.bfloat16
        import torch

        C.copy_((A.double() @ B.double()).to(torch.bfloat16))
    else:  # numpy arrays: bfloat16 travels as its raw 16 bits (uint16)
        import numpy as np

        def widen(bits):  # bfloat16 bits are the top half of a float32's
            return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)

        product = (widen(A) @ widen(B)).astype(np.float32)
        bits = product.view(np.uint32)
        rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16  # round to nearest even
        C[...] = rounded.astype(np.uint16)
