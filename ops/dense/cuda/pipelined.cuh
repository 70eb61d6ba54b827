// Pipelined tensor-core GEMM: 128 x 128 tile, 8 warps as 2 (M) x 4 (N) of 64 x 32 each,
// cp.async double buffering over K steps of 32, fragments through ldmatrix, mma.sync.m16n8k16.
#pragma once

#include "dense_device.cuh"
#include "dense_tiles.h"

namespace dense_device {

// Needs K % 8 == 0 and ldb % 8 == 0. With kVectorStore the epilogue writes column pairs as one
// 4-byte store, which needs N % 2 == 0; otherwise it writes element by element (any N).
template <bool kVectorStore>
__device__ __forceinline__ void PipelinedGemm(const bf16* __restrict__ a,
                                              const bf16* __restrict__ b, bf16* __restrict__ c,
                                              uint32_t m, uint32_t n, uint32_t k, uint32_t ldb) {
  using T = gpuops::ops::dense::PipelinedTile;
  __shared__ __align__(128) bf16 smem[T::kStages][T::kStageElems];
  const uint32_t tid = threadIdx.x;
  const uint32_t warp = tid / 32;
  const uint32_t lane = tid % 32;
  const uint32_t warp_m = warp / T::kWarpsN;
  const uint32_t warp_n = warp % T::kWarpsN;
  const uint32_t row0 = blockIdx.y * T::kM;
  const uint32_t col0 = blockIdx.x * T::kN;
  constexpr uint32_t kChunks = T::kK / 8;  // 16-byte chunks per row and K step

  // Copies rows [first, first + kM) of a row-major operand (`limit` rows, `ld` apart) for K step
  // k0 into `dst`; rows past `limit` and k past K are zero-filled.
  auto load_tile = [&](bf16* dst, const bf16* src, uint32_t ld, uint32_t first, uint32_t limit,
                       uint32_t k0) {
#pragma unroll
    for (uint32_t i = tid; i < T::kM * kChunks; i += T::kThreads) {
      const uint32_t r = i / kChunks;
      const uint32_t kc = (i % kChunks) * 8;
      const bool valid = first + r < limit && k0 + kc < k;
      CpAsync16(dst + r * T::kRowElems + kc,
                valid ? src + static_cast<size_t>(first + r) * ld + k0 + kc : src, valid);
    }
  };
  static_assert(T::kM == T::kN, "A and B tiles share load_tile");
  auto load_stage = [&](uint32_t stage, uint32_t k0) {
    load_tile(smem[stage], a, k, row0, m, k0);
    load_tile(smem[stage] + T::kM * T::kRowElems, b, ldb, col0, n, k0);
  };

  float acc[4][4][4] = {};  // [m16 tile][n8 tile][fragment]
  const uint32_t k_tiles = (k + T::kK - 1) / T::kK;
  load_stage(0, 0);
  CpAsyncCommit();
  for (uint32_t kt = 0; kt < k_tiles; ++kt) {
    if (kt + 1 < k_tiles) {
      load_stage((kt + 1) % T::kStages, (kt + 1) * T::kK);
      CpAsyncCommit();
      CpAsyncWait<1>();
    } else {
      CpAsyncWait<0>();
    }
    __syncthreads();
    const bf16* as = smem[kt % T::kStages];
    const bf16* bs = as + T::kM * T::kRowElems;
#pragma unroll
    for (uint32_t kk = 0; kk < T::kK; kk += 16) {
      uint32_t af[4][4];
#pragma unroll
      for (uint32_t mt = 0; mt < 4; ++mt) {
        const uint32_t r = warp_m * T::kWarpM + mt * 16 + lane % 16;
        LdMatrixX4(af[mt], as + r * T::kRowElems + kk + (lane / 16) * 8);
      }
      uint32_t bfrag[4][2];
#pragma unroll
      for (uint32_t np = 0; np < 2; ++np) {
        const uint32_t r = warp_n * T::kWarpN + np * 16 + lane % 8 + (lane / 16) * 8;
        uint32_t regs[4];
        LdMatrixX4(regs, bs + r * T::kRowElems + kk + ((lane / 8) % 2) * 8);
        bfrag[2 * np][0] = regs[0];
        bfrag[2 * np][1] = regs[1];
        bfrag[2 * np + 1][0] = regs[2];
        bfrag[2 * np + 1][1] = regs[3];
      }
#pragma unroll
      for (uint32_t mt = 0; mt < 4; ++mt) {
#pragma unroll
        for (uint32_t nt = 0; nt < 4; ++nt) MmaBf16(acc[mt][nt], af[mt], bfrag[nt]);
      }
    }
    __syncthreads();
  }

  const uint32_t g = lane / 4;
  const uint32_t q = lane % 4;
#pragma unroll
  for (uint32_t mt = 0; mt < 4; ++mt) {
#pragma unroll
    for (uint32_t h = 0; h < 2; ++h) {
      const uint32_t row = row0 + warp_m * T::kWarpM + mt * 16 + g + 8 * h;
      if (row >= m) continue;
      bf16* c_row = c + static_cast<size_t>(row) * n;
#pragma unroll
      for (uint32_t nt = 0; nt < 4; ++nt) {
        const uint32_t col = col0 + warp_n * T::kWarpN + nt * 8 + 2 * q;
        const float v0 = acc[mt][nt][2 * h];
        const float v1 = acc[mt][nt][2 * h + 1];
        if constexpr (kVectorStore) {
          if (col < n)
            *reinterpret_cast<__nv_bfloat162*>(c_row + col) = __floats2bfloat162_rn(v0, v1);
        } else {
          if (col < n) c_row[col] = ToBf16(v0);
          if (col + 1 < n) c_row[col + 1] = ToBf16(v1);
        }
      }
    }
  }
}

}  // namespace dense_device

using gpuops::ops::dense::PipelinedTile;

// Grid (ceil(N/128), ceil(M/128)), block 256. Needs N % 8 == 0.
extern "C" __global__ void __launch_bounds__(PipelinedTile::kThreads)
    dense_gemm_bf16_pipelined(const bf16* __restrict__ a, const bf16* __restrict__ b,
                              bf16* __restrict__ c, uint32_t m, uint32_t n, uint32_t k) {
  dense_device::PipelinedGemm<true>(a, b, c, m, n, k, k);
}

// B rows `ldb` elements apart (ldb >= K, ldb % 8 == 0); any N. Grid (ceil(N/128), ceil(M/128)).
extern "C" __global__ void __launch_bounds__(PipelinedTile::kThreads)
    dense_gemm_bf16_pipelined_ldb(const bf16* __restrict__ a, const bf16* __restrict__ b,
                                  bf16* __restrict__ c, uint32_t m, uint32_t n, uint32_t k,
                                  uint32_t ldb) {
  dense_device::PipelinedGemm<false>(a, b, c, m, n, k, ldb);
}
