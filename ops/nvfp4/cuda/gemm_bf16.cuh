// The lossless NVFP4 GEMM: each K step of the weight is dequantized (e2m1 · e4m3 scale, exact in
// BF16) into shared memory and multiplied with BF16 mma.sync m16n8k16 into FP32 accumulators; the
// global scale is applied once in the epilogue. Every output is accumulated over k in steps of 16
// from k = 0 in one accumulator whatever the tile, so all kernels built from this body are
// bit-identical to each other.
#pragma once

#include "nvfp4_device.cuh"
#include "nvfp4_tiles.h"

namespace nvfp4_device {

// Needs K % 16 == 0, ldb % 32 == 0 and 16-byte-aligned A, packed values and scales (the host
// checks them). Rows past M and columns past N are computed from zeros and not stored.
template <typename Tile>
__device__ __forceinline__ void GemmBf16(const bf16* __restrict__ a,
                                         const uint8_t* __restrict__ b_packed,
                                         const uint8_t* __restrict__ b_scale, float scale2,
                                         bf16* __restrict__ c, uint32_t m, uint32_t n, uint32_t k,
                                         uint32_t ldb) {
  constexpr uint32_t kM = Tile::kM, kN = Tile::kN, kK = Tile::kK;
  constexpr uint32_t kPitch = kK + 8;  // BF16 rows of kK + 8: conflict-free fragment loads
  constexpr uint32_t kMi = Tile::kWarpM / 16, kNi = Tile::kWarpN / 8;
  __shared__ __align__(16) bf16 a_tile[kM][kPitch];
  __shared__ __align__(16) bf16 w_tile[kN][kPitch];  // dequantized, n-major
  __shared__ __align__(16) uint8_t packed[kK][kN / 2];
  __shared__ __align__(16) uint8_t scales[kK / 16][kN];

  const TilePlace<Tile> at;
  const uint32_t g = at.g, q = at.q;
  float acc[kMi][kNi][4] = {};

  for (uint32_t k0 = 0; k0 < k; k0 += kK) {
    StageStep<Tile, kPitch>(a_tile, packed, scales, a, b_packed, b_scale, m, k, ldb, at.row0,
                            at.col0, k0);
    CpAsyncWait<0>();
    __syncthreads();
    ForEachStagedValue<Tile>(packed, scales, [&](uint32_t r, uint32_t col, uint32_t nibble,
                                                 uint32_t scale) {
      w_tile[col][r] = ToBf16(E2m1ToFloat(nibble) * E4m3ToFloat(scale));
    });
    __syncthreads();
#pragma unroll
    for (uint32_t kk = 0; kk < kK; kk += 16) {
      uint32_t af[kMi][4];
#pragma unroll
      for (uint32_t mi = 0; mi < kMi; ++mi) {
        const uint32_t r = at.warp_row + mi * 16 + g;
        af[mi][0] = LoadPair(&a_tile[r][kk + 2 * q]);
        af[mi][1] = LoadPair(&a_tile[r + 8][kk + 2 * q]);
        af[mi][2] = LoadPair(&a_tile[r][kk + 2 * q + 8]);
        af[mi][3] = LoadPair(&a_tile[r + 8][kk + 2 * q + 8]);
      }
#pragma unroll
      for (uint32_t ni = 0; ni < kNi; ++ni) {
        const uint32_t col = at.warp_col + ni * 8 + g;
        const uint32_t bf[2] = {LoadPair(&w_tile[col][kk + 2 * q]),
                                LoadPair(&w_tile[col][kk + 2 * q + 8])};
#pragma unroll
        for (uint32_t mi = 0; mi < kMi; ++mi) MmaBf16(acc[mi][ni], af[mi], bf);
      }
    }
    __syncthreads();
  }
  at.ForEachAccumulator([&](uint32_t mi, uint32_t ni, uint32_t e, uint32_t row, uint32_t col) {
    if (row < m && col < n) c[static_cast<size_t>(row) * n + col] = ToBf16(acc[mi][ni][e] * scale2);
  });
}

}  // namespace nvfp4_device
