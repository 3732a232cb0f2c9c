"""Row-wise softmax in Triton: a memory-bound kernel through kopt (docs/triton.md).

One program per row. A row of at most BLOCK columns is read once into registers: its maximum,
its sum of exponentials and its output come from that one read (one read and one write of DRAM
per element, the least a softmax can move). A longer row is walked in blocks of BLOCK columns
twice: an online pass keeps a running maximum and sum per lane, the second writes
exp(x - max) / sum (the second read of a row mostly hits L2 while it is short).
"""
import triton
import triton.language as tl

BLOCK = 1024  # columns per step of a row
NUM_WARPS = 4


@triton.jit
def softmax_kernel(x_ptr, y_ptr, cols, BLOCK: tl.constexpr, ROW_FITS: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * cols
    y_row = y_ptr + row * cols
    offsets = tl.arange(0, BLOCK)
    if ROW_FITS:
        mask = offsets < cols
        x = tl.load(x_row + offsets, mask=mask, other=float("-inf"))
        # cols >= 1, so the maximum is finite and a masked lane's exp(-inf - max) is 0.
        numerators = tl.exp(x - tl.max(x, 0))
        tl.store(y_row + offsets, numerators / tl.sum(numerators, 0), mask=mask)
        return
    running_max = tl.full([BLOCK], float("-inf"), tl.float32)
    running_sum = tl.zeros([BLOCK], tl.float32)
    for start in range(0, cols, BLOCK):
        x = tl.load(x_row + start + offsets, mask=start + offsets < cols, other=float("-inf"))
        new_max = tl.maximum(running_max, x)
        # A lane that has seen only masked columns keeps max -inf: exp(-inf - -inf) would be NaN.
        seen = new_max != float("-inf")
        rescaled = running_sum * tl.exp(running_max - new_max) + tl.exp(x - new_max)
        running_sum = tl.where(seen, rescaled, 0.0)
        running_max = new_max
    row_max = tl.max(running_max, 0)
    total = tl.sum(tl.where(running_max != float("-inf"), running_sum * tl.exp(running_max - row_max), 0.0), 0)
    for start in range(0, cols, BLOCK):
        mask = start + offsets < cols
        x = tl.load(x_row + start + offsets, mask=mask, other=float("-inf"))
        tl.store(y_row + start + offsets, tl.exp(x - row_max) / total, mask=mask)


def solve(input: "const float*", output: "float*", rows: int, cols: int):
    # ROW_FITS is a constexpr: Triton compiles each path once, and no program branches on it.
    softmax_kernel[(rows,)](input, output, cols, BLOCK=BLOCK, ROW_FITS=cols <= BLOCK, num_warps=NUM_WARPS)
