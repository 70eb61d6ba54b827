// Decode GEMM (M <= 32): reading the weights is the whole cost, so each block streams 16 weight
// rows with 16-byte non-allocating loads, several steps in flight per thread, and the tensor
// cores do the multiply: the weights are mma's A operand (16 rows), the activations its B operand
// (one n8 tile for M <= 8, two for M <= 16, four for M <= 32). Thread (g, q) loads 8 consecutive
// k of rows g and g+8; the mma's k positions are permuted so those registers are its fragments,
// and the activation fragments use the same permutation, so each product still pairs equal k.
#pragma once

#include "dense_device.cuh"
#include "dense_tiles.h"

namespace dense_device {

using device_kit::LoadCached16;
using device_kit::LoadStreaming16;
using device_kit::StorePartial;

// A compile-time step count for the generic lambdas below.
template <uint32_t N>
struct StepCount {
  static constexpr uint32_t kValue = N;
};

// The mma of one 32-k step: two 8 x 16 A fragments (k 8q..8q+3, then 8q+4..8q+7 of rows g,
// g + 8) against each n8 tile's activations at the same k.
template <uint32_t kNTiles>
__device__ __forceinline__ void GemvMmaStep(float (&acc)[kNTiles][4], const uint4& lo,
                                            const uint4& hi, const uint4 (&xv)[kNTiles]) {
#pragma unroll
  for (uint32_t t = 0; t < kNTiles; ++t) {
    const uint32_t a_first[4] = {lo.x, hi.x, lo.y, hi.y};
    const uint32_t b_first[2] = {xv[t].x, xv[t].y};
    MmaBf16(acc[t], a_first, b_first);
    const uint32_t a_second[4] = {lo.z, hi.z, lo.w, hi.w};
    const uint32_t b_second[2] = {xv[t].z, xv[t].w};
    MmaBf16(acc[t], a_second, b_second);
  }
}

// Sums the warps' partials in warp order and writes the block's outputs: partial row i (of 16)
// is weight row row_of(i), stored when below N; activation rows below M.
template <uint32_t kNTiles, typename RowOf>
__device__ __forceinline__ void GemvStore(float* partial, const float (&acc)[kNTiles][4],
                                          bf16* __restrict__ c, uint32_t m, uint32_t n,
                                          RowOf row_of) {
  constexpr uint32_t kCols = 8 * kNTiles;
  constexpr uint32_t kBlockRows = gpuops::ops::dense::GemvTile::kRows;
  const uint32_t warps = blockDim.x / 32, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  StorePartial<kNTiles>(partial + warp * kBlockRows * kCols, acc, lane / 4, lane % 4);
  __syncthreads();
  for (uint32_t i = threadIdx.x; i < kBlockRows * kCols; i += blockDim.x) {
    const uint32_t row = i % kBlockRows;  // weight row: consecutive threads on consecutive rows
    const uint32_t col = i / kBlockRows;  // activation row
    const uint64_t out = row_of(row);
    if (col >= m || out >= n) continue;
    float sum = 0.0f;
    for (uint32_t v = 0; v < warps; ++v) {
      sum = __fadd_rn(sum, partial[(v * kBlockRows + row) * kCols + col]);
    }
    c[static_cast<size_t>(col) * n + out] = ToBf16(sum);
  }
}

// gemv_m8 / _m16 (aligned): K % 8 == 0, ldb % 8 == 0 and 16-byte-aligned A and B. Any N;
// 1 <= M <= 8 * kNTiles. Each block owns 16 weight rows; its warps split K into equal ranges of
// 32-k steps. A warp issues all loads of kUnroll steps (weights and activations) before its
// first mma on them, so every load of the chunk is in flight at once; the loads are
// branch-free: rows past N or M read row N-1 or M-1, whose products land in outputs that are
// never stored. Only a step that reaches past K (K not a multiple of 32) takes the checked
// path, with its missing k read as zero in both operands.
template <uint32_t kNTiles, uint32_t kUnroll>
__device__ __forceinline__ void Gemv(const bf16* __restrict__ a, const bf16* __restrict__ b,
                                     bf16* __restrict__ c, uint32_t m, uint32_t n, uint32_t k,
                                     uint32_t ldb) {
  using T = gpuops::ops::dense::GemvTile;
  extern __shared__ float partial[];  // [warps][16][8 kNTiles]
  const uint32_t warps = blockDim.x / 32;
  const uint32_t warp = threadIdx.x / 32;
  const uint32_t lane = threadIdx.x % 32;
  const uint32_t g = lane / 4;
  const uint32_t q = lane % 4;
  const uint32_t row0 = blockIdx.x * T::kRows;
  const bf16* w[2];  // rows g and g + 8 of the block
#pragma unroll
  for (uint32_t h = 0; h < 2; ++h) {
    w[h] = b + static_cast<size_t>(min(row0 + g + 8 * h, n - 1)) * ldb + 8 * q;
  }
  const bf16* x[kNTiles];  // activation row of this thread's B fragment in each n8 tile
#pragma unroll
  for (uint32_t t = 0; t < kNTiles; ++t) {
    x[t] = a + static_cast<size_t>(min(8 * t + g, m - 1)) * k + 8 * q;
  }
  const uint32_t steps = (k + T::kStepK - 1) / T::kStepK;
  const uint32_t per_warp = (steps + warps - 1) / warps;
  const uint32_t s_begin = min(steps, warp * per_warp);
  const uint32_t s_end = min(steps, s_begin + per_warp);
  const uint32_t full_end = max(s_begin, min(s_end, k / T::kStepK));  // steps with all 32 k
  const uint4 zero = make_uint4(0, 0, 0, 0);
  float acc[kNTiles][4] = {};
  uint32_t s = s_begin;
  for (; s + kUnroll <= full_end; s += kUnroll) {
    uint4 wv[kUnroll][2];
    uint4 xv[kUnroll][kNTiles];
#pragma unroll
    for (uint32_t u = 0; u < kUnroll; ++u) {
      const uint32_t off = (s + u) * T::kStepK;
      wv[u][0] = LoadStreaming16(w[0] + off);
      wv[u][1] = LoadStreaming16(w[1] + off);
#pragma unroll
      for (uint32_t t = 0; t < kNTiles; ++t) xv[u][t] = LoadCached16(x[t] + off);
    }
#pragma unroll
    for (uint32_t u = 0; u < kUnroll; ++u) GemvMmaStep<kNTiles>(acc, wv[u][0], wv[u][1], xv[u]);
  }
  // One step's piece of a row for the tail loop: 8 k (or none) as K % 8 == 0.
  auto load_piece = [&](const bf16* p, uint32_t valid, bool weight) {
    if (valid == 0) return zero;
    return weight ? LoadStreaming16(p) : LoadCached16(p);
  };
  // Fewer than kUnroll steps left, or the step that ends past K. M <= 8: one more batch, its
  // loads all in flight before the first mma as above (on short K these are every step a warp
  // takes: qwen-0.5b's lm_head, K = 896, 87 -> 74 us on the H200). M <= 16 keeps one step at a
  // time: the batch spills there and ran 3-8 % slower on 3072-4096-wide weights.
  if constexpr (kNTiles == 1) {
    if (s < s_end) {
      uint4 wv[kUnroll][2];
      uint4 xv[kUnroll][kNTiles];
#pragma unroll
      for (uint32_t u = 0; u < kUnroll; ++u) {
        const uint32_t off = (s + u) * T::kStepK;
        const uint32_t valid = s + u < s_end && off + 8 * q < k ? min(8u, k - off - 8 * q) : 0u;
        wv[u][0] = load_piece(w[0] + off, valid, true);
        wv[u][1] = load_piece(w[1] + off, valid, true);
#pragma unroll
        for (uint32_t t = 0; t < kNTiles; ++t) xv[u][t] = load_piece(x[t] + off, valid, false);
      }
#pragma unroll
      for (uint32_t u = 0; u < kUnroll; ++u) {
        if (s + u < s_end) GemvMmaStep<kNTiles>(acc, wv[u][0], wv[u][1], xv[u]);
      }
    }
  } else {
    for (; s < s_end; ++s) {
      const uint32_t off = s * T::kStepK;
      const uint32_t valid = off + 8 * q < k ? min(8u, k - off - 8 * q) : 0u;
      const uint4 lo = load_piece(w[0] + off, valid, true);
      const uint4 hi = load_piece(w[1] + off, valid, true);
      uint4 xv[kNTiles];
#pragma unroll
      for (uint32_t t = 0; t < kNTiles; ++t) xv[t] = load_piece(x[t] + off, valid, false);
      GemvMmaStep<kNTiles>(acc, lo, hi, xv);
    }
  }
  GemvStore<kNTiles>(partial, acc, c, m, n, [&](uint32_t i) { return uint64_t{row0} + i; });
}

// Eight BF16 of a row at elements e0 .. e0 + 7 (e0 may be negative), loaded one by one: those
// outside [0, k) are zero and never read.
__device__ __forceinline__ uint4 LoadBf16x8Clipped(const bf16* row, int32_t e0, uint32_t k) {
  const uint16_t* r = reinterpret_cast<const uint16_t*>(row);
  uint32_t v[4] = {0, 0, 0, 0};
#pragma unroll
  for (int32_t j = 0; j < 8; ++j) {
    const int32_t e = e0 + j;
    if (e >= 0 && e < static_cast<int32_t>(k)) v[j / 2] |= uint32_t{r[e]} << (16 * (j % 2));
  }
  return make_uint4(v[0], v[1], v[2], v[3]);
}

// The _unaligned gemv (any K, ldb >= K, A and B 2-byte aligned; M <= 8 kNTiles). Rows of B
// eight apart start at the same offset within a 16-byte block (eight rows are 16 ldb bytes), so
// block b takes the 16 rows 128 (b / 8) + b % 8 + 8 i and reads every one of them from the
// aligned block holding its first element: the weights arrive by plain 16-byte streaming loads,
// each row led by the same `lead` (0..7) elements of the row before it. The activations are read
// `lead` elements early to match (aligned blocks funnelled into place, LoadBlockHolding and
// QuadFunnelBf16x8), so each product still pairs equal k. Only the first step (when lead > 0)
// and the steps that reach past K take the checked path: element by element, zero outside the
// row in both operands, so nothing outside A's and B's rows is read or multiplied.
// Grid (8 ceil(N / 128)), block 32 W, GemvSharedBytes(W, kNTiles).
// kShiftedA: `a` is instead dense_shift_rows_bf16's copies of A (ShiftTile), copy `lead` already
// shifted to match this block's rows and zero outside them: the activations are plain 16-byte
// loads, and only the weights take the checked path.
template <uint32_t kNTiles, uint32_t kUnroll, bool kShiftedA>
__device__ __forceinline__ void GemvRowClasses(const bf16* __restrict__ a,
                                               const bf16* __restrict__ b, bf16* __restrict__ c,
                                               uint32_t m, uint32_t n, uint32_t k, uint32_t ldb) {
  using T = gpuops::ops::dense::GemvTile;
  extern __shared__ float partial[];  // [warps][16][8 kNTiles]
  const uint64_t first_row = gpuops::ops::dense::RowClassFirstRow(blockIdx.x);
  if (first_row >= n) return;  // the whole block: before any barrier
  const auto row_of = [first_row](uint32_t i) { return first_row + T::kRowClasses * i; };
  const uint32_t warps = blockDim.x / 32;
  const uint32_t warp = threadIdx.x / 32;
  const uint32_t lane = threadIdx.x % 32;
  const uint32_t g = lane / 4;
  const uint32_t q = lane % 4;
  const uint32_t lead =
      static_cast<uint32_t>(reinterpret_cast<uintptr_t>(b + first_row * ldb) & 15) / 2;
  const bf16* w_row[2];  // rows g and g + 8 of the block (rows past N read the first row)
  const bf16* w[2];      // their aligned blocks, lead elements early, + 8q
#pragma unroll
  for (uint32_t h = 0; h < 2; ++h) {
    const uint64_t r = row_of(g + 8 * h);
    w_row[h] = b + (r < n ? r : first_row) * ldb;
    w[h] = reinterpret_cast<const bf16*>(reinterpret_cast<uintptr_t>(w_row[h]) & ~uintptr_t{15}) +
           8 * q;
  }
  // Activation row of this thread's B fragment in each n8 tile: in A, or (kShiftedA) at this
  // lane's piece of copy `lead`.
  const uint32_t a_ld = kShiftedA ? gpuops::ops::dense::ShiftedRowElems(k) : k;
  const bf16* x_row[kNTiles];
#pragma unroll
  for (uint32_t t = 0; t < kNTiles; ++t) {
    const size_t row = min(8 * t + g, m - 1) + (kShiftedA ? size_t{lead} * m : 0);
    x_row[t] = a + row * a_ld + (kShiftedA ? 8 * q : 0);
  }
  // Step s covers row elements 32 s - lead .. 32 s - lead + 31; it is full when all lie in [0, K).
  const uint32_t steps = (k + lead + T::kStepK - 1) / T::kStepK;
  const uint32_t per_warp = (steps + warps - 1) / warps;
  const uint32_t s_begin = min(steps, warp * per_warp);
  const uint32_t s_end = min(steps, s_begin + per_warp);
  const uint32_t full_begin = min(s_end, max(s_begin, lead > 0 ? 1u : 0u));
  const uint32_t full_end = max(full_begin, min(s_end, (k + lead) / T::kStepK));
  float acc[kNTiles][4] = {};
  auto checked_step = [&](uint32_t s) {
    const int32_t e0 = static_cast<int32_t>(s * T::kStepK + 8 * q) - static_cast<int32_t>(lead);
    const uint4 lo = LoadBf16x8Clipped(w_row[0], e0, k);
    const uint4 hi = LoadBf16x8Clipped(w_row[1], e0, k);
    uint4 xv[kNTiles];
#pragma unroll
    for (uint32_t t = 0; t < kNTiles; ++t) {
      xv[t] = kShiftedA ? LoadCached16(x_row[t] + s * T::kStepK)
                        : LoadBf16x8Clipped(x_row[t], e0, k);
    }
    GemvMmaStep<kNTiles>(acc, lo, hi, xv);
  };
  // kCount full steps from s: every load first, then the mma (kShiftedA), or the funnels and the
  // mma, the activations' blocks loaded one step further (the last step's fourth lane needs its
  // first lane's block).
  auto full_steps = [&](uint32_t s, auto count) {
    constexpr uint32_t kCount = decltype(count)::kValue;
    if constexpr (kShiftedA) {
      uint4 wv[kCount][2], xv[kCount][kNTiles];
#pragma unroll
      for (uint32_t u = 0; u < kCount; ++u) {
        const uint32_t off = (s + u) * T::kStepK;
        wv[u][0] = LoadStreaming16(w[0] + off);
        wv[u][1] = LoadStreaming16(w[1] + off);
#pragma unroll
        for (uint32_t t = 0; t < kNTiles; ++t) xv[u][t] = LoadCached16(x_row[t] + off);
      }
#pragma unroll
      for (uint32_t u = 0; u < kCount; ++u) GemvMmaStep<kNTiles>(acc, wv[u][0], wv[u][1], xv[u]);
    } else {
      const bf16* a_end = a + static_cast<size_t>(m) * k;  // no block reaching past A's end is read
      uint4 wv[kCount][2], xb[kCount + 1][kNTiles];
      bool xh[kCount + 1][kNTiles];
#pragma unroll
      for (uint32_t u = 0; u <= kCount; ++u) {
        const uint32_t off = (s + u) * T::kStepK;
        if (u < kCount) {
          wv[u][0] = LoadStreaming16(w[0] + off);
          wv[u][1] = LoadStreaming16(w[1] + off);
        }
#pragma unroll
        for (uint32_t t = 0; t < kNTiles; ++t) {
          xb[u][t] = LoadBlockHolding(x_row[t] + off + 8 * q - lead, a_end, xh[u][t]);
        }
      }
#pragma unroll
      for (uint32_t u = 0; u < kCount; ++u) {
        const uint32_t off = (s + u) * T::kStepK;
        uint4 xv[kNTiles];
#pragma unroll
        for (uint32_t t = 0; t < kNTiles; ++t) {
          xv[t] = QuadFunnelBf16x8(x_row[t] + off + 8 * q - lead, xb[u][t], xh[u][t], xb[u + 1][t],
                                   xh[u + 1][t], 8);
        }
        GemvMmaStep<kNTiles>(acc, wv[u][0], wv[u][1], xv);
      }
    }
  };
  uint32_t s = s_begin;
  for (; s < full_begin; ++s) checked_step(s);
  for (; s + kUnroll <= full_end; s += kUnroll) full_steps(s, StepCount<kUnroll>{});
  for (; s < full_end; ++s) full_steps(s, StepCount<1>{});
  for (; s < s_end; ++s) checked_step(s);
  GemvStore<kNTiles>(partial, acc, c, m, n, row_of);
}

}  // namespace dense_device


using gpuops::ops::dense::GemvTile;

// The launch bounds keep each kernel at <= 128 registers (GemvTile::kThreadsPerSm resident).
#define GPUOPS_GEMV_BOUNDS \
  __launch_bounds__(GemvTile::kMaxWarps * 32, GemvTile::kThreadsPerSm / (GemvTile::kMaxWarps * 32))

// M <= 8. Grid (ceil(N/16)), block 32 W (W <= 8), GemvSharedBytes(W, 1) bytes of dynamic shared
// memory. B rows ldb apart (ldb = K when packed).
extern "C" __global__ void GPUOPS_GEMV_BOUNDS
dense_gemv_bf16_m8(const bf16* __restrict__ a, const bf16* __restrict__ b, bf16* __restrict__ c,
                   uint32_t m, uint32_t n, uint32_t k, uint32_t ldb) {
  dense_device::Gemv<1, GemvTile::kUnroll>(a, b, c, m, n, k, ldb);
}

// M <= 16. Grid (ceil(N/16)), block 32 W (W <= 8), GemvSharedBytes(W, 2) bytes of dynamic shared
// memory.
extern "C" __global__ void GPUOPS_GEMV_BOUNDS
dense_gemv_bf16_m16(const bf16* __restrict__ a, const bf16* __restrict__ b, bf16* __restrict__ c,
                    uint32_t m, uint32_t n, uint32_t k, uint32_t ldb) {
  dense_device::Gemv<2, GemvTile::kUnroll>(a, b, c, m, n, k, ldb);
}

// gemv_m8 for operands the 16-byte kernels refuse: any K, ldb >= K, A and B 2-byte aligned
// (K or ldb not a multiple of 8, or an offset pointer). Grid (8 ceil(N/128)): block b owns the
// rows RowClassFirstRow(b) + 8 i (GemvRowClasses); the same block and shared memory.
extern "C" __global__ void GPUOPS_GEMV_BOUNDS
dense_gemv_bf16_m8_unaligned(const bf16* __restrict__ a, const bf16* __restrict__ b,
                             bf16* __restrict__ c, uint32_t m, uint32_t n, uint32_t k,
                             uint32_t ldb) {
  dense_device::GemvRowClasses<1, GemvTile::kUnalignedUnrollM8, false>(a, b, c, m, n, k, ldb);
}

// gemv_m16 for the same operands.
extern "C" __global__ void GPUOPS_GEMV_BOUNDS
dense_gemv_bf16_m16_unaligned(const bf16* __restrict__ a, const bf16* __restrict__ b,
                              bf16* __restrict__ c, uint32_t m, uint32_t n, uint32_t k,
                              uint32_t ldb) {
  dense_device::GemvRowClasses<2, GemvTile::kUnalignedUnrollM16, false>(a, b, c, m, n, k, ldb);
}

// The same for M <= 32 (four n8 tiles of activations; GemvSharedBytes(W, 4) bytes of dynamic
// shared memory).
extern "C" __global__ void GPUOPS_GEMV_BOUNDS
dense_gemv_bf16_m32_unaligned(const bf16* __restrict__ a, const bf16* __restrict__ b,
                              bf16* __restrict__ c, uint32_t m, uint32_t n, uint32_t k,
                              uint32_t ldb) {
  dense_device::GemvRowClasses<4, GemvTile::kUnalignedUnrollM32, false>(a, b, c, m, n, k, ldb);
}

// gemv_m32_unaligned reading dense_shift_rows_bf16's copies of A (a): the activations as plain
// 16-byte loads. M <= 32; grid (8 ceil(N/128)), GemvSharedBytes(W, 4) bytes of dynamic shared
// memory.
extern "C" __global__ void GPUOPS_GEMV_BOUNDS
dense_gemv_bf16_m32_shifted(const bf16* __restrict__ a, const bf16* __restrict__ b,
                            bf16* __restrict__ c, uint32_t m, uint32_t n, uint32_t k,
                            uint32_t ldb) {
  dense_device::GemvRowClasses<4, GemvTile::kShiftedUnrollM32, true>(a, b, c, m, n, k, ldb);
}

// The same for M <= 64 (eight n8 tiles; GemvSharedBytes(W, 8) bytes).
extern "C" __global__ void GPUOPS_GEMV_BOUNDS
dense_gemv_bf16_m64_shifted(const bf16* __restrict__ a, const bf16* __restrict__ b,
                            bf16* __restrict__ c, uint32_t m, uint32_t n, uint32_t k,
                            uint32_t ldb) {
  dense_device::GemvRowClasses<8, GemvTile::kShiftedUnrollM64, true>(a, b, c, m, n, k, ldb);
}

#undef GPUOPS_GEMV_BOUNDS
