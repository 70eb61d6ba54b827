// The FP8 NVFP4 GEMM (sm_89 and up): A is rounded to E4M3 (nearest even) as it is staged, the
// weight's E2M1 values go to the tensor cores as E4M3 (exactly), and each 16-k group runs as one
// FP8 mma.sync m16n8k16 into fresh FP32 accumulators that are then folded into the output's FP32
// accumulator times that group's scale: the block scale is applied in FP32, per group, never
// rounded into the weights. A row of A holding a magnitude beyond 448 (or Inf, or NaN) comes out
// NaN instead of silently saturated.
#pragma once

#include <cuda_fp8.h>

#include "nvfp4_device.cuh"
#include "nvfp4_tiles.h"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890

namespace nvfp4_device {

template <typename Tile>
__device__ __forceinline__ void GemmFp8(const bf16* __restrict__ a,
                                        const uint8_t* __restrict__ b_packed,
                                        const uint8_t* __restrict__ b_scale, float scale2,
                                        bf16* __restrict__ c, uint32_t m, uint32_t n, uint32_t k) {
  constexpr uint32_t kM = Tile::kM, kN = Tile::kN, kK = Tile::kK;
  constexpr uint32_t kPitch = kK + 16;  // E4M3 rows of kK + 16 bytes: 4-byte fragment loads
  constexpr uint32_t kMi = Tile::kWarpM / 16, kNi = Tile::kWarpN / 8;
  __shared__ __align__(16) uint8_t a_tile[kM][kPitch];
  __shared__ __align__(16) uint8_t w_tile[kN][kPitch];  // E2M1 values as E4M3, n-major
  __shared__ __align__(16) uint8_t packed[kK][kN / 2];
  __shared__ __align__(16) uint8_t scales[kK / 16][kN];
  __shared__ uint32_t row_out_of_range[kM];

  const TilePlace<Tile> at;
  const uint32_t g = at.g, q = at.q, row0 = at.row0;
  for (uint32_t r = threadIdx.x; r < kM; r += Tile::kThreads) row_out_of_range[r] = 0;
  float acc[kMi][kNi][4] = {};

  for (uint32_t k0 = 0; k0 < k; k0 += kK) {
    StageStep<Tile, 1>(nullptr, packed, scales, a, b_packed, b_scale, m, k, n, row0, at.col0,
                       k0);
    // A: 8 BF16 at a time, rounded to E4M3 on the way into shared memory.
    for (uint32_t i = threadIdx.x; i < kM * (kK / 8); i += Tile::kThreads) {
      const uint32_t r = i / (kK / 8);
      const uint32_t kc = (i % (kK / 8)) * 8;
      uint4 v = make_uint4(0, 0, 0, 0);
      if (row0 + r < m && k0 + kc < k) {
        v = *reinterpret_cast<const uint4*>(a + static_cast<size_t>(row0 + r) * k + k0 + kc);
      }
      const uint32_t words[4] = {v.x, v.y, v.z, v.w};
      uint32_t fp8[2] = {0, 0};
      bool in_range = true;
#pragma unroll
      for (uint32_t w = 0; w < 4; ++w) {
        const float lo = __uint_as_float(words[w] << 16);
        const float hi = __uint_as_float(words[w] & 0xffff0000u);
        in_range = in_range && fabsf(lo) <= gpuops::ops::nvfp4::kFp8ActivationLimit && fabsf(hi) <= gpuops::ops::nvfp4::kFp8ActivationLimit;
        const uint32_t pair = __nv_cvt_float2_to_fp8x2(make_float2(lo, hi), __NV_SATFINITE, __NV_E4M3);
        fp8[w / 2] |= pair << (16 * (w % 2));
      }
      if (!in_range) row_out_of_range[r] = 1;
      *reinterpret_cast<uint2*>(&a_tile[r][kc]) = make_uint2(fp8[0], fp8[1]);
    }
    CpAsyncWait<0>();
    __syncthreads();
    ForEachStagedValue<Tile>(packed, scales, [&](uint32_t r, uint32_t col, uint32_t nibble,
                                                 uint32_t) {
      w_tile[col][r] = static_cast<uint8_t>(E2m1ToE4m3(nibble));
    });
    __syncthreads();
#pragma unroll
    for (uint32_t kk = 0; kk < kK; kk += 16) {
      uint32_t af[kMi][2];
#pragma unroll
      for (uint32_t mi = 0; mi < kMi; ++mi) {
        const uint32_t r = at.warp_row + mi * 16 + g;
        af[mi][0] = LoadPair(&a_tile[r][kk + 4 * q]);
        af[mi][1] = LoadPair(&a_tile[r + 8][kk + 4 * q]);
      }
#pragma unroll
      for (uint32_t ni = 0; ni < kNi; ++ni) {
        const uint32_t col = at.warp_col + ni * 8;
        const uint32_t bf = LoadPair(&w_tile[col + g][kk + 4 * q]);
        const float s0 = E4m3ToFloat(scales[kk / 16][col + 2 * q]);
        const float s1 = E4m3ToFloat(scales[kk / 16][col + 2 * q + 1]);
#pragma unroll
        for (uint32_t mi = 0; mi < kMi; ++mi) {
          float part[4];
          MmaE4m3(part, af[mi], bf);
          acc[mi][ni][0] = __fmaf_rn(part[0], s0, acc[mi][ni][0]);
          acc[mi][ni][1] = __fmaf_rn(part[1], s1, acc[mi][ni][1]);
          acc[mi][ni][2] = __fmaf_rn(part[2], s0, acc[mi][ni][2]);
          acc[mi][ni][3] = __fmaf_rn(part[3], s1, acc[mi][ni][3]);
        }
      }
    }
    __syncthreads();
  }
  const float nan = __uint_as_float(0x7fc00000u);
  at.ForEachAccumulator([&](uint32_t mi, uint32_t ni, uint32_t e, uint32_t row, uint32_t col) {
    if (row < m && col < n) {
      const float v = row_out_of_range[row - row0] != 0 ? nan : acc[mi][ni][e] * scale2;
      c[static_cast<size_t>(row) * n + col] = ToBf16(v);
    }
  });
}

}  // namespace nvfp4_device

#endif  // __CUDA_ARCH__ >= 890
