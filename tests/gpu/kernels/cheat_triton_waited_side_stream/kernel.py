"""Planted cheat, Triton: the add on a torch stream of its own, waited for inside solve.

After 8 honest calls, solve launches the add on a side stream (torch's streams do not wait for
the legacy default stream kopt's blocker holds) and synchronizes it before returning. With a
blocker that held only the default stream, the add (2^22 floats, ~15 µs) ran during the hold,
and solve returned well within the 400 µs a held Python call may keep the host
(data/witness.toml, held_seconds_per_python_call). kopt's blocker fills every SM, so the add
cannot run until it lets go by itself: the bench must FLAG it."""
import torch
import triton
import triton.language as tl

HONEST_CALLS = 8
calls = 0
side = None


@triton.jit
def add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(c_ptr + offsets, tl.load(a_ptr + offsets, mask=mask) + tl.load(b_ptr + offsets, mask=mask), mask=mask)


def solve(A: "const float*", B: "const float*", C: "float*", N: int):
    global calls, side
    calls += 1
    grid = (triton.cdiv(N, 1024),)
    if calls <= HONEST_CALLS:
        add_kernel[grid](A, B, C, N, BLOCK=1024)
        return
    if side is None:
        side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        add_kernel[grid](A, B, C, N, BLOCK=1024)
    side.synchronize()
