// Decode GEMM (M <= 16): reading the weights is the whole cost, so each block streams 16 weight
// rows with 16-byte non-allocating loads, eight steps in flight per thread, and the tensor
// cores do the multiply: the weights are mma's A operand (16 rows), the activations its B operand
// (one n8 tile for M <= 8, two for M <= 16). Thread (g, q) loads 8 consecutive k of rows g and
// g+8; the mma's k positions are permuted so those registers are its fragments, and the
// activation fragments use the same permutation, so each product still pairs equal k.
#pragma once

#include "dense_device.cuh"
#include "dense_tiles.h"

namespace dense_device {

using device_kit::LoadCached16;
using device_kit::LoadStreaming16;
using device_kit::StorePartial;

// kUnaligned = false needs K % 8 == 0, ldb % 8 == 0 and 16-byte-aligned A and B (16-byte loads);
// kUnaligned = true takes any K and ldb >= K and 2-byte-aligned A and B (LoadBf16x8Unaligned:
// aligned 16-byte reads funnelled into place). Any N; 1 <= M <= 8 * kNTiles. Each block
// owns 16 weight rows; its warps split K into equal ranges of 32-k steps. A warp issues all loads
// of kUnroll steps (weights and activations) before its first mma on them, so every load of the
// chunk is in flight at once; the loads are branch-free: rows past N or M read row N-1 or M-1,
// whose products land in outputs that are never stored. Only a step that reaches past K (K not a
// multiple of 32) takes the checked path, with its missing k read as zero (in both operands, so a
// non-finite value past K never meets a zero).
template <uint32_t kNTiles, uint32_t kUnroll, bool kUnaligned>
__device__ __forceinline__ void Gemv(const bf16* __restrict__ a, const bf16* __restrict__ b,
                                     bf16* __restrict__ c, uint32_t m, uint32_t n, uint32_t k,
                                     uint32_t ldb) {
  using T = gpuops::ops::dense::GemvTile;
  extern __shared__ float partial[];  // [warps][16][8 kNTiles]
  constexpr uint32_t kCols = 8 * kNTiles;
  constexpr uint32_t kBlockRows = T::kRows;
  const uint32_t warps = blockDim.x / 32;
  const uint32_t warp = threadIdx.x / 32;
  const uint32_t lane = threadIdx.x % 32;
  const uint32_t g = lane / 4;
  const uint32_t q = lane % 4;
  const uint32_t row0 = blockIdx.x * kBlockRows;
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
  // The first element past each operand's data: the unaligned loads never read it.
  const bf16* b_end = b + static_cast<size_t>(n - 1) * ldb + k;
  const bf16* a_end = a + static_cast<size_t>(m) * k;
  const uint4 zero = make_uint4(0, 0, 0, 0);
  // One step's piece of a row for the tail loop (weights streamed, activations cached when
  // aligned): all lanes call (the unaligned load shuffles).
  auto load_piece = [&](const bf16* p, uint32_t valid, const bf16* end, bool weight) {
    if constexpr (kUnaligned) {
      bool has, next_has;
      const uint4 cur = LoadBlockHolding(p, end, has);
      const uint4 next = LoadBlockHolding(p + T::kStepK, end, next_has);
      return QuadFunnelBf16x8(p, cur, has, next, next_has, valid);
    } else {
      if (valid == 0) return zero;
      return weight ? LoadStreaming16(p) : LoadCached16(p);
    }
  };
  float acc[kNTiles][4] = {};
  // One step: two 8 x 16 A fragments (k 8q..8q+3, then 8q+4..8q+7 of rows g, g + 8) per n8 tile.
  auto mma_step = [&](const uint4& lo, const uint4& hi, const uint4 (&xv)[kNTiles]) {
#pragma unroll
    for (uint32_t t = 0; t < kNTiles; ++t) {
      const uint32_t a_first[4] = {lo.x, hi.x, lo.y, hi.y};
      const uint32_t b_first[2] = {xv[t].x, xv[t].y};
      MmaBf16(acc[t], a_first, b_first);
      const uint32_t a_second[4] = {lo.z, hi.z, lo.w, hi.w};
      const uint32_t b_second[2] = {xv[t].z, xv[t].w};
      MmaBf16(acc[t], a_second, b_second);
    }
  };
  uint32_t s = s_begin;
  if constexpr (kUnaligned) {
    // Every aligned block of kUnroll + 1 steps in flight first (the last step's only for the
    // blocks that follow the batch's), then the funnels and the mma.
    for (; s + kUnroll <= full_end; s += kUnroll) {
      uint4 wb[kUnroll + 1][2], xb[kUnroll + 1][kNTiles];
      bool wh[kUnroll + 1][2], xh[kUnroll + 1][kNTiles];
#pragma unroll
      for (uint32_t u = 0; u <= kUnroll; ++u) {
        const uint32_t off = (s + u) * T::kStepK;
        wb[u][0] = LoadBlockHolding(w[0] + off, b_end, wh[u][0]);
        wb[u][1] = LoadBlockHolding(w[1] + off, b_end, wh[u][1]);
#pragma unroll
        for (uint32_t t = 0; t < kNTiles; ++t) xb[u][t] = LoadBlockHolding(x[t] + off, a_end, xh[u][t]);
      }
#pragma unroll
      for (uint32_t u = 0; u < kUnroll; ++u) {
        const uint32_t off = (s + u) * T::kStepK;
        uint4 lh[2];
#pragma unroll
        for (uint32_t h = 0; h < 2; ++h) {
          lh[h] = QuadFunnelBf16x8(w[h] + off, wb[u][h], wh[u][h], wb[u + 1][h], wh[u + 1][h], 8);
        }
        uint4 xv[kNTiles];
#pragma unroll
        for (uint32_t t = 0; t < kNTiles; ++t) {
          xv[t] = QuadFunnelBf16x8(x[t] + off, xb[u][t], xh[u][t], xb[u + 1][t], xh[u + 1][t], 8);
        }
        mma_step(lh[0], lh[1], xv);
      }
    }
  }
  for (; !kUnaligned && s + kUnroll <= full_end; s += kUnroll) {
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
    for (uint32_t u = 0; u < kUnroll; ++u) mma_step(wv[u][0], wv[u][1], xv[u]);
  }
  for (; s < s_end; ++s) {  // fewer than kUnroll steps left, or the step that ends past K
    const uint32_t off = s * T::kStepK;
    // This lane's k in the step: 8 (or 0) when K % 8 == 0, any of 0..8 otherwise.
    const uint32_t valid = off + 8 * q < k ? min(8u, k - off - 8 * q) : 0u;
    const uint4 lo = load_piece(w[0] + off, valid, b_end, true);
    const uint4 hi = load_piece(w[1] + off, valid, b_end, true);
    uint4 xv[kNTiles];
#pragma unroll
    for (uint32_t t = 0; t < kNTiles; ++t) xv[t] = load_piece(x[t] + off, valid, a_end, false);
    mma_step(lo, hi, xv);
  }
  StorePartial<kNTiles>(partial + warp * kBlockRows * kCols, acc, g, q);
  __syncthreads();
  for (uint32_t i = threadIdx.x; i < kBlockRows * kCols; i += blockDim.x) {
    const uint32_t row = i % kBlockRows;  // weight row: consecutive threads write consecutive n
    const uint32_t col = i / kBlockRows;  // activation row
    if (col >= m || row0 + row >= n) continue;
    float sum = 0.0f;
    for (uint32_t v = 0; v < warps; ++v) {
      sum = __fadd_rn(sum, partial[(v * kBlockRows + row) * kCols + col]);
    }
    c[static_cast<size_t>(col) * n + row0 + row] = ToBf16(sum);
  }
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
  dense_device::Gemv<1, GemvTile::kUnroll, false>(a, b, c, m, n, k, ldb);
}

// M <= 16. Grid (ceil(N/16)), block 32 W (W <= 8), GemvSharedBytes(W, 2) bytes of dynamic shared
// memory.
extern "C" __global__ void GPUOPS_GEMV_BOUNDS
dense_gemv_bf16_m16(const bf16* __restrict__ a, const bf16* __restrict__ b, bf16* __restrict__ c,
                    uint32_t m, uint32_t n, uint32_t k, uint32_t ldb) {
  dense_device::Gemv<2, GemvTile::kUnroll, false>(a, b, c, m, n, k, ldb);
}

// gemv_m8 for operands the 16-byte kernels refuse: any K, ldb >= K, A and B 2-byte aligned
// (K or ldb not a multiple of 8, or an offset pointer). Same grid, block and shared memory.
extern "C" __global__ void GPUOPS_GEMV_BOUNDS
dense_gemv_bf16_m8_unaligned(const bf16* __restrict__ a, const bf16* __restrict__ b,
                             bf16* __restrict__ c, uint32_t m, uint32_t n, uint32_t k,
                             uint32_t ldb) {
  dense_device::Gemv<1, GemvTile::kUnalignedUnrollM8, true>(a, b, c, m, n, k, ldb);
}

// gemv_m16 for the same operands.
extern "C" __global__ void GPUOPS_GEMV_BOUNDS
dense_gemv_bf16_m16_unaligned(const bf16* __restrict__ a, const bf16* __restrict__ b,
                              bf16* __restrict__ c, uint32_t m, uint32_t n, uint32_t k,
                              uint32_t ldb) {
  dense_device::Gemv<2, GemvTile::kUnalignedUnrollM16, true>(a, b, c, m, n, k, ldb);
}

// The same for M <= 32 (four n8 tiles of activations; GemvSharedBytes(W, 4) bytes of dynamic
// shared memory).
extern "C" __global__ void GPUOPS_GEMV_BOUNDS
dense_gemv_bf16_m32_unaligned(const bf16* __restrict__ a, const bf16* __restrict__ b,
                              bf16* __restrict__ c, uint32_t m, uint32_t n, uint32_t k,
                              uint32_t ldb) {
  dense_device::Gemv<4, GemvTile::kUnalignedUnrollM32, true>(a, b, c, m, n, k, ldb);
}

#undef GPUOPS_GEMV_BOUNDS
