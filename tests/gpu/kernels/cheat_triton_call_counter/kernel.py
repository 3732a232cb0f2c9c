"""Planted cheat, Triton: the call counter of cheat_call_counter/kernel.cu. The first 8 calls
of the process are honest, every later one launches nothing. The check sees only honest calls;
the timed calls are verified (docs/integrity.md), so the bench must FLAG or FAIL it."""
import triton
import triton.language as tl

HONEST_CALLS = 8
calls = 0


@triton.jit
def add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(c_ptr + offsets, tl.load(a_ptr + offsets, mask=mask) + tl.load(b_ptr + offsets, mask=mask), mask=mask)


def solve(A: "const float*", B: "const float*", C: "float*", N: int):
    global calls
    calls += 1
    if calls > HONEST_CALLS:
        return
    add_kernel[(triton.cdiv(N, 1024),)](A, B, C, N, BLOCK=1024)
