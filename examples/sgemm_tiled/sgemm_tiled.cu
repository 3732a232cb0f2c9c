// Tiled SGEMM, row-major: C[M x N] = A[M x K] * B[K x N], fp32 in, fp32 FFMA math, fp32 out.
//
// One block computes a BM x BN tile of C. It walks K in steps of BK: the A panel (BM x BK)
// is stored TRANSPOSED in shared memory (As[k][m], so that a thread reads its TM values of a
// column of A as float4), the B panel (BK x BN) as it is (Bs[k][n]). Each of the
// (BM/TM)*(BN/TN) threads accumulates a TM x TN micro-tile in registers. A thread's rows and
// columns are interleaved in groups of 4 (column group g of thread tx starts at
// g*(4*BN/TN) + 4*tx), so that a quarter-warp's float4 shared reads cover 128 contiguous
// bytes: no bank conflicts on the B reads, and float4 stores of C.
//
// Every parameter and method switch below is a macro; kopt rebuilds with -DNAME=VALUE. The
// kernel is correct for any M, N, K >= 0 and any combination of the switches: loads outside
// the matrix put zeros in shared memory, stores outside it are skipped, and vector loads are
// used only when the host checks that K (for A) and N (for B and C) and the pointers allow them
// (otherwise the same kernel is launched with scalar loads).
//
// The defaults are deliberately weak (32 x 32 tile, one output per thread, scalar loads, one
// shared buffer): correct and slow, so that the tuner has room. See README.md for the
// configuration expected to be fast on an H200.
#include <cuda_runtime.h>

#include <cstdint>

// ---- tunable parameters -------------------------------------------------------------------

#ifndef BM
#define BM 32  // kopt:param BM in {32,64,128,256}
#endif
#ifndef BN
#define BN 32  // kopt:param BN in {32,64,128,256}
#endif
#ifndef BK
#define BK 8  // kopt:param BK in {8,16,32}
#endif
#ifndef TM
#define TM 1  // kopt:param TM in {1,2,4,8}
#endif
#ifndef TN
#define TN 1  // kopt:param TN in {1,2,4,8}
#endif
#ifndef VEC
#define VEC 1  // kopt:param VEC in {1,2,4}
#endif
#ifndef STAGES
#define STAGES 1  // kopt:param STAGES in {1,2}
#endif
#ifndef MINB
#define MINB 1  // kopt:param MINB in {1,2}
#endif

// ---- method switches (each can be turned off with -DKOPT_USE_...=0) ------------------------

#ifndef KOPT_USE_SMEM_TILING
#define KOPT_USE_SMEM_TILING 1  // kopt:method memory.tiling_smem
#endif
#ifndef KOPT_USE_REGISTER_TILING
#define KOPT_USE_REGISTER_TILING 1  // kopt:method compute.register_tiling
#endif
#ifndef KOPT_USE_VECTORIZED_ACCESS
#define KOPT_USE_VECTORIZED_ACCESS 1  // kopt:method memory.vectorized_access
#endif
#ifndef KOPT_USE_SMEM_PADDING
#define KOPT_USE_SMEM_PADDING 1  // kopt:method memory.smem_padding
#endif
#ifndef KOPT_USE_CP_ASYNC_PIPELINE
#define KOPT_USE_CP_ASYNC_PIPELINE 1  // kopt:method latency.cp_async_pipeline
#endif
#ifndef KOPT_USE_REGISTER_DOUBLE_BUFFER
#define KOPT_USE_REGISTER_DOUBLE_BUFFER 0  // kopt:method latency.register_double_buffer
#endif

// ---- derived constants ----------------------------------------------------------------------

namespace sgemm_tiled {

// Without register tiling every thread computes one output; the thread count stays
// (BM/TM)*(BN/TN), so the block tile shrinks to (BM/TM) x (BN/TN).
constexpr int kTM = KOPT_USE_REGISTER_TILING ? TM : 1;      // outputs per thread along M
constexpr int kTN = KOPT_USE_REGISTER_TILING ? TN : 1;      // outputs per thread along N
constexpr int kBM = KOPT_USE_REGISTER_TILING ? BM : BM / TM;  // block tile along M
constexpr int kBN = KOPT_USE_REGISTER_TILING ? BN : BN / TN;  // block tile along N
constexpr int kTX = kBN / kTN;                              // threads along N
constexpr int kTY = kBM / kTM;                              // threads along M
constexpr int kThreads = kTX * kTY;

// Rows/columns of a micro-tile come in groups of kTMV/kTNV consecutive elements (4 where
// possible: one float4 shared read per group).
constexpr int kTMV = kTM % 4 == 0 ? 4 : (kTM % 2 == 0 ? 2 : 1);
constexpr int kTNV = kTN % 4 == 0 ? 4 : (kTN % 2 == 0 ? 2 : 1);
constexpr int kGM = kTM / kTMV;
constexpr int kGN = kTN / kTNV;

// Widest global vector the parameters allow (the host may still fall back to 1).
constexpr int pick_vec(int extent) {
  return !KOPT_USE_VECTORIZED_ACCESS ? 1 : (extent % VEC == 0 ? VEC : (extent % 2 == 0 ? 2 : 1));
}
constexpr int kVecA = pick_vec(BK);   // A is read along K
constexpr int kVecB = pick_vec(kBN);  // B and C are read/written along N

// Shared memory: As[STAGES][BK][kAPitch] (transposed A), Bs[STAGES][BK][kBPitch].
// Padding the transposed A rows by 4 floats (keeps float4 alignment) spreads the transposing
// stores over the banks; B is read and written along its rows and needs no padding.
constexpr int kPad = KOPT_USE_SMEM_PADDING ? 4 : 0;
constexpr int kAPitch = kBM + kPad;
constexpr int kBPitch = kBN;
constexpr int kAStage = BK * kAPitch;
constexpr int kBStage = BK * kBPitch;
constexpr int kAFloats = (STAGES * kAStage + 3) / 4 * 4;  // Bs starts 16-byte aligned
constexpr int kSmemBytes = (kAFloats + STAGES * kBStage) * 4;

// ---- parameter checks (also declared as [tune] restrict in kopt.toml) ----------------------

static_assert(BM > 0 && BN > 0 && BK > 0 && TM > 0 && TN > 0, "BM, BN, BK, TM, TN must be positive");
static_assert(BM % TM == 0, "BM must be a multiple of TM");
static_assert(BN % TN == 0, "BN must be a multiple of TN");
static_assert(VEC == 1 || VEC == 2 || VEC == 4, "VEC must be 1, 2 or 4");
static_assert(STAGES == 1 || STAGES == 2, "STAGES must be 1 (single buffer) or 2 (double buffer)");
static_assert(MINB >= 1, "MINB must be >= 1");
static_assert(kThreads >= 1 && kThreads <= 1024,
              "(BM/TM)*(BN/TN) threads per block must be between 1 and 1024");
static_assert(BK % kVecA == 0 && kBN % kVecB == 0, "global vectors must divide the tile");
static_assert(kAPitch % kTMV == 0 && kBPitch % kTNV == 0 && kBPitch % kVecB == 0,
              "shared tile pitches must keep vector alignment");
static_assert(kSmemBytes <= 227 * 1024, "shared memory tile exceeds 227 KiB (the sm_90 limit per block)");

constexpr int cdiv_c(int a, int b) { return (a + b - 1) / b; }

// ---- cp.async (sm_80+) ----------------------------------------------------------------------

#if KOPT_USE_CP_ASYNC_PIPELINE && defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800)
#define SGEMM_TILED_CP_ASYNC 1
#else
#define SGEMM_TILED_CP_ASYNC 0
#endif

// Copies BYTES (4, 8 or 16) from global to shared; src_bytes = 0 writes zeros instead (the
// source is not read, but must still be a valid address).
template <int BYTES>
__device__ __forceinline__ void cp_async(float* dst, const float* src, int src_bytes) {
#if SGEMM_TILED_CP_ASYNC
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if constexpr (BYTES == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(src_bytes)
                 : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(d), "l"(src), "n"(BYTES),
                 "r"(src_bytes)
                 : "memory");
  }
#else
  (void)dst;
  (void)src;
  (void)src_bytes;
#endif
}

__device__ __forceinline__ void cp_async_commit() {
#if SGEMM_TILED_CP_ASYNC
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

__device__ __forceinline__ void cp_async_wait_all() {
#if SGEMM_TILED_CP_ASYNC
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

// ---- vector helpers -------------------------------------------------------------------------

template <int V>
__device__ __forceinline__ void load_global(float (&r)[V], const float* p) {
  if constexpr (V == 4) {
    const float4 v = __ldg(reinterpret_cast<const float4*>(p));
    r[0] = v.x, r[1] = v.y, r[2] = v.z, r[3] = v.w;
  } else if constexpr (V == 2) {
    const float2 v = __ldg(reinterpret_cast<const float2*>(p));
    r[0] = v.x, r[1] = v.y;
  } else {
#pragma unroll
    for (int i = 0; i < V; ++i) r[i] = __ldg(p + i);
  }
}

template <int V>
__device__ __forceinline__ void load_shared(float* r, const float* p) {
  if constexpr (V == 4) {
    const float4 v = *reinterpret_cast<const float4*>(p);
    r[0] = v.x, r[1] = v.y, r[2] = v.z, r[3] = v.w;
  } else if constexpr (V == 2) {
    const float2 v = *reinterpret_cast<const float2*>(p);
    r[0] = v.x, r[1] = v.y;
  } else {
#pragma unroll
    for (int i = 0; i < V; ++i) r[i] = p[i];
  }
}

template <int V>
__device__ __forceinline__ void store_vec(float* p, const float* r) {
  if constexpr (V == 4) {
    *reinterpret_cast<float4*>(p) = make_float4(r[0], r[1], r[2], r[3]);
  } else if constexpr (V == 2) {
    *reinterpret_cast<float2*>(p) = make_float2(r[0], r[1]);
  } else {
#pragma unroll
    for (int i = 0; i < V; ++i) p[i] = r[i];
  }
}

// ---- tile loaders ---------------------------------------------------------------------------
// A tile: rows bm0 .. bm0+kBM-1, columns k0 .. k0+BK-1 of A, read along K in vectors of VA.
// With VA > 1 the host guarantees K % VA == 0, so a vector is wholly inside or outside.

template <int VA>
struct ATile {
  static constexpr int kVectors = kBM * BK / VA;
  static constexpr int kRounds = cdiv_c(kVectors, kThreads);
  float r[kRounds][VA];

  __device__ __forceinline__ void load(const float* A, int M, int K, int bm0, int k0, int tid) {
#pragma unroll
    for (int l = 0; l < kRounds; ++l) {
      const int idx = l * kThreads + tid;
      const int row = idx / (BK / VA);
      const int kc = (idx % (BK / VA)) * VA;
      const int gr = bm0 + row, gk = k0 + kc;
      if ((kVectors % kThreads == 0 || idx < kVectors) && gr < M && gk < K) {
        load_global<VA>(r[l], A + static_cast<size_t>(gr) * K + gk);
      } else {
#pragma unroll
        for (int v = 0; v < VA; ++v) r[l][v] = 0.0f;
      }
    }
  }

  // Transposed store: As[k][m].
  __device__ __forceinline__ void store(float* As, int tid) const {
#pragma unroll
    for (int l = 0; l < kRounds; ++l) {
      const int idx = l * kThreads + tid;
      if (kVectors % kThreads == 0 || idx < kVectors) {
        const int row = idx / (BK / VA);
        const int kc = (idx % (BK / VA)) * VA;
#pragma unroll
        for (int v = 0; v < VA; ++v) As[(kc + v) * kAPitch + row] = r[l][v];
      }
    }
  }
};

// B tile: rows k0 .. k0+BK-1, columns bn0 .. bn0+kBN-1 of B, read along N in vectors of VB.
// With VB > 1 the host guarantees N % VB == 0.
template <int VB>
struct BTile {
  static constexpr int kVectors = BK * kBN / VB;
  static constexpr int kRounds = cdiv_c(kVectors, kThreads);
  float r[kRounds][VB];

  __device__ __forceinline__ void load(const float* B, int N, int K, int bn0, int k0, int tid) {
#pragma unroll
    for (int l = 0; l < kRounds; ++l) {
      const int idx = l * kThreads + tid;
      const int kr = idx / (kBN / VB);
      const int col = (idx % (kBN / VB)) * VB;
      const int gk = k0 + kr, gc = bn0 + col;
      if ((kVectors % kThreads == 0 || idx < kVectors) && gk < K && gc < N) {
        load_global<VB>(r[l], B + static_cast<size_t>(gk) * N + gc);
      } else {
#pragma unroll
        for (int v = 0; v < VB; ++v) r[l][v] = 0.0f;
      }
    }
  }

  __device__ __forceinline__ void store(float* Bs, int tid) const {
#pragma unroll
    for (int l = 0; l < kRounds; ++l) {
      const int idx = l * kThreads + tid;
      if (kVectors % kThreads == 0 || idx < kVectors) {
        const int kr = idx / (kBN / VB);
        const int col = (idx % (kBN / VB)) * VB;
        store_vec<VB>(Bs + kr * kBPitch + col, r[l]);
      }
    }
  }

  // The same tile straight into shared memory with cp.async (zeros outside the matrix).
  static __device__ __forceinline__ void copy_async(float* Bs, const float* B, int N, int K, int bn0,
                                                    int k0, int tid) {
#pragma unroll
    for (int l = 0; l < kRounds; ++l) {
      const int idx = l * kThreads + tid;
      if (kVectors % kThreads == 0 || idx < kVectors) {
        const int kr = idx / (kBN / VB);
        const int col = (idx % (kBN / VB)) * VB;
        const int gk = k0 + kr, gc = bn0 + col;
        const bool inside = gk < K && gc < N;
        cp_async<VB * 4>(Bs + kr * kBPitch + col, inside ? B + static_cast<size_t>(gk) * N + gc : B,
                         inside ? VB * 4 : 0);
      }
    }
  }
};

// ---- the micro-tile -------------------------------------------------------------------------

// Row i of a thread's micro-tile (0 <= i < kTM), relative to the block tile.
__device__ __forceinline__ int tile_row(int ty, int i) {
  return (i / kTMV) * (kTY * kTMV) + ty * kTMV + i % kTMV;
}
__device__ __forceinline__ int tile_col(int tx, int j) {
  return (j / kTNV) * (kTX * kTNV) + tx * kTNV + j % kTNV;
}

// acc += As[0:BK][rows] x Bs[0:BK][cols] for one shared tile.
__device__ __forceinline__ void compute_tile(float (&acc)[kTM][kTN], const float* As, const float* Bs,
                                             int tx, int ty) {
#pragma unroll
  for (int k = 0; k < BK; ++k) {
    float a[kTM], b[kTN];
#pragma unroll
    for (int g = 0; g < kGM; ++g) load_shared<kTMV>(a + g * kTMV, As + k * kAPitch + tile_row(ty, g * kTMV));
#pragma unroll
    for (int g = 0; g < kGN; ++g) load_shared<kTNV>(b + g * kTNV, Bs + k * kBPitch + tile_col(tx, g * kTNV));
#pragma unroll
    for (int i = 0; i < kTM; ++i) {
#pragma unroll
      for (int j = 0; j < kTN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
  }
}

// C store, in vectors of SV columns (SV divides kTNV; with SV > 1, N % SV == 0).
template <int SV>
__device__ __forceinline__ void store_c(float* C, const float (&acc)[kTM][kTN], int M, int N, int bm0,
                                        int bn0, int tx, int ty) {
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    const int gr = bm0 + tile_row(ty, i);
    if (gr >= M) continue;
    float* c_row = C + static_cast<size_t>(gr) * N;
#pragma unroll
    for (int j = 0; j < kTN; j += SV) {
      const int gc = bn0 + tile_col(tx, j);
      if (gc < N) store_vec<SV>(c_row + gc, &acc[i][j]);
    }
  }
}

// ---- the kernels ----------------------------------------------------------------------------
// Only the kernel that solve launches is compiled, so that the SASS shows one kernel.
#if KOPT_USE_SMEM_TILING

// How the next tile is fetched while the current one is multiplied.
//  kAsyncB:   B goes global -> shared by cp.async (double buffer, sm_80+ only); A, which must be
//             transposed on the way, is prefetched through registers.
//  kPrefetch: the next tile's global loads are issued before the math on the current tile
//             (cp.async pipeline or register double buffer); otherwise they are issued after.
constexpr bool kAsyncB = SGEMM_TILED_CP_ASYNC && STAGES == 2;
constexpr bool kPrefetch = kAsyncB || KOPT_USE_REGISTER_DOUBLE_BUFFER;

template <int VA, int VB>
__global__ void __launch_bounds__(kThreads, MINB)
    sgemm_tiled_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                       int N, int K) {
  extern __shared__ __align__(16) float smem[];
  float* const As = smem;
  float* const Bs = smem + kAFloats;

  const int tid = static_cast<int>(threadIdx.x);
  const int tx = tid % kTX, ty = tid / kTX;
  const int bm0 = static_cast<int>(blockIdx.y) * kBM;
  const int bn0 = static_cast<int>(blockIdx.x) * kBN;
  const int tiles = (K + BK - 1) / BK;

  float acc[kTM][kTN];
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
#pragma unroll
    for (int j = 0; j < kTN; ++j) acc[i][j] = 0.0f;
  }

  ATile<VA> a_tile;
  BTile<VB> b_tile;

  if (tiles > 0) {  // prologue: tile 0 into stage 0
    a_tile.load(A, M, K, bm0, 0, tid);
    b_tile.load(B, N, K, bn0, 0, tid);
    a_tile.store(As, tid);
    b_tile.store(Bs, tid);
    __syncthreads();
  }

  for (int t = 0; t < tiles; ++t) {
    const int cur = STAGES == 2 ? (t & 1) : 0;
    const int nxt = STAGES == 2 ? (cur ^ 1) : 0;
    const bool has_next = t + 1 < tiles;
    const int k_next = (t + 1) * BK;
    float* const As_next = As + nxt * kAStage;
    float* const Bs_next = Bs + nxt * kBStage;

    if (has_next) {
      if constexpr (kPrefetch) {
        a_tile.load(A, M, K, bm0, k_next, tid);
        if constexpr (kAsyncB) {
          BTile<VB>::copy_async(Bs_next, B, N, K, bn0, k_next, tid);
          cp_async_commit();
        } else {
          b_tile.load(B, N, K, bn0, k_next, tid);
        }
      } else if constexpr (STAGES == 2) {
        // Double buffer without prefetch: fill the other stage now, before the math.
        a_tile.load(A, M, K, bm0, k_next, tid);
        b_tile.load(B, N, K, bn0, k_next, tid);
        a_tile.store(As_next, tid);
        b_tile.store(Bs_next, tid);
      }
    }

    compute_tile(acc, As + cur * kAStage, Bs + cur * kBStage, tx, ty);

    if constexpr (STAGES == 2) {
      // Stage nxt was last read before the previous iteration's barrier, so it may be written
      // while other threads still read stage cur; this barrier publishes it.
      if (has_next && kPrefetch) {
        a_tile.store(As_next, tid);
        if constexpr (kAsyncB) {
          cp_async_wait_all();
        } else {
          b_tile.store(Bs_next, tid);
        }
      }
      __syncthreads();
    } else {
      // Single buffer: everyone must be done reading before it is overwritten.
      __syncthreads();
      if (has_next) {
        if constexpr (!kPrefetch) {
          a_tile.load(A, M, K, bm0, k_next, tid);
          b_tile.load(B, N, K, bn0, k_next, tid);
        }
        a_tile.store(As, tid);
        b_tile.store(Bs, tid);
        __syncthreads();
      }
    }
  }

  constexpr int kSV = VB < kTNV ? VB : kTNV;
  store_c<kSV>(C, acc, M, N, bm0, bn0, tx, ty);
}

#else  // !KOPT_USE_SMEM_TILING

// No shared memory: each thread reads its rows of A and columns of B from global memory
// (through L1) for every k. Correct and slow: the ablation of memory.tiling_smem.
__global__ void __launch_bounds__(kThreads, MINB)
    sgemm_global_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                        int N, int K) {
  const int tid = static_cast<int>(threadIdx.x);
  const int tx = tid % kTX, ty = tid / kTX;
  const int bm0 = static_cast<int>(blockIdx.y) * kBM;
  const int bn0 = static_cast<int>(blockIdx.x) * kBN;

  float acc[kTM][kTN];
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
#pragma unroll
    for (int j = 0; j < kTN; ++j) acc[i][j] = 0.0f;
  }
  for (int k = 0; k < K; ++k) {
    float a[kTM], b[kTN];
#pragma unroll
    for (int i = 0; i < kTM; ++i) {
      const int gr = bm0 + tile_row(ty, i);
      a[i] = gr < M ? __ldg(A + static_cast<size_t>(gr) * K + k) : 0.0f;
    }
#pragma unroll
    for (int j = 0; j < kTN; ++j) {
      const int gc = bn0 + tile_col(tx, j);
      b[j] = gc < N ? __ldg(B + static_cast<size_t>(k) * N + gc) : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < kTM; ++i) {
#pragma unroll
      for (int j = 0; j < kTN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
  }
  store_c<1>(C, acc, M, N, bm0, bn0, tx, ty);
}

#endif  // KOPT_USE_SMEM_TILING

#if KOPT_USE_SMEM_TILING
template <int VA, int VB>
void launch_tiled(dim3 grid, const float* A, const float* B, float* C, int M, int N, int K) {
  if constexpr (kSmemBytes > 48 * 1024) {
    // Above 48 KiB a kernel must opt in; once per process and instantiation.
    static const cudaError_t opted_in = cudaFuncSetAttribute(
        sgemm_tiled_kernel<VA, VB>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes);
    (void)opted_in;
  }
  sgemm_tiled_kernel<VA, VB><<<grid, kThreads, kSmemBytes>>>(A, B, C, M, N, K);
}
#endif

inline bool aligned(const void* p, int floats) {
  return reinterpret_cast<std::uintptr_t>(p) % (static_cast<std::uintptr_t>(floats) * sizeof(float)) == 0;
}

}  // namespace sgemm_tiled

extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K) {
  using namespace sgemm_tiled;
  if (M <= 0 || N <= 0) return;
  const dim3 grid((N + kBN - 1) / kBN, (M + kBM - 1) / kBM);
#if KOPT_USE_SMEM_TILING
  // Vector loads need every vector wholly inside or outside the matrix and aligned pointers:
  // K % VA == 0 for A; N % VB == 0 for B and C (C is stored with the same width).
  const bool vec_a = kVecA > 1 && K % kVecA == 0 && aligned(A, kVecA);
  const bool vec_b = kVecB > 1 && N % kVecB == 0 && aligned(B, kVecB) && aligned(C, kVecB);
  if (vec_a && vec_b) {
    launch_tiled<kVecA, kVecB>(grid, A, B, C, M, N, K);
  } else if (vec_a) {
    launch_tiled<kVecA, 1>(grid, A, B, C, M, N, K);
  } else if (vec_b) {
    launch_tiled<1, kVecB>(grid, A, B, C, M, N, K);
  } else {
    launch_tiled<1, 1>(grid, A, B, C, M, N, K);
  }
#else
  sgemm_global_kernel<<<grid, kThreads>>>(A, B, C, M, N, K);
#endif
}
