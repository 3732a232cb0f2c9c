"""Planted fault, Triton: vector add that adds 1 to every 1000th element (docs/triton.md)."""
import triton
import triton.language as tl


@triton.jit
def add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    c = tl.load(a_ptr + offsets, mask=mask) + tl.load(b_ptr + offsets, mask=mask)
    tl.store(c_ptr + offsets, tl.where(offsets % 1000 == 0, c + 1.0, c), mask=mask)


def solve(A: "const float*", B: "const float*", C: "float*", N: int):
    add_kernel[(triton.cdiv(N, 1024),)](A, B, C, N, BLOCK=1024)
