"""BF16 GEMM in Triton: C[M x N] = A[M x K] @ B[K x N], row-major, BF16 in, FP32 accumulation
on the tensor cores, BF16 out (docs/triton.md). The CUTLASS example's problem, in Triton.

One program per BLOCK_M x BLOCK_N tile of C. Programs walk the tiles GROUP_M rows of tiles at a
time, so the programs resident together share A's and B's panels in L2. tl.dot on BF16 is
wgmma on sm_90 (HGMMA in the SASS), fed from shared memory by Triton's software pipeline of
NUM_STAGES stages. Rows and columns past the matrix wrap (% M, % N) instead of being masked, so
every load of a panel is whole; the store keeps only C's own elements. Indices are 32-bit:
M*K, K*N and M*N below 2^31.
"""
import triton
import triton.language as tl

BLOCK_M = 128
BLOCK_N = 256
BLOCK_K = 64
GROUP_M = 8
NUM_WARPS = 8
NUM_STAGES = 3


@triton.jit
def gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    program = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * tiles_n
    first_m = (program // per_group) * GROUP_M
    rows_in_group = min(tiles_m - first_m, GROUP_M)
    tile_m = first_m + (program % per_group) % rows_in_group
    tile_n = (program % per_group) // rows_in_group

    rows = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    depth = tl.arange(0, BLOCK_K)
    a = a_ptr + (rows % M)[:, None] * K + depth[None, :]
    b = b_ptr + depth[:, None] * N + (cols % N)[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        left = K - k * BLOCK_K  # the last k-tile may be partial: its missing depth reads as zeros
        a_tile = tl.load(a, mask=depth[None, :] < left, other=0.0)
        b_tile = tl.load(b, mask=depth[:, None] < left, other=0.0)
        acc = tl.dot(a_tile, b_tile, acc)
        a += BLOCK_K
        b += BLOCK_K * N
    c = c_ptr + rows[:, None] * N + cols[None, :]
    tl.store(c, acc.to(tl.bfloat16), mask=(rows[:, None] < M) & (cols[None, :] < N))


def solve(A: "const __nv_bfloat16*", B: "const __nv_bfloat16*", C: "__nv_bfloat16*", M: int, N: int, K: int):
    grid = (triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N),)
    gemm_kernel[grid](A, B, C, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_M=GROUP_M,
                      num_warps=NUM_WARPS, num_stages=NUM_STAGES)
