// Tensor-core GEMM with mma.sync.m16n8k16: 16 x 64 tile, 4 warps, each warp 16 columns (two n8
// tiles). One body serves three kernels, so their accumulation order is identical: the plain
// GEMM, the fused `out += scale * bf16(A·Bᵀ)` epilogue (bit-identical to the GEMM followed by
// common_bf16_scaled_add), and the explicit-ldb variant.
#pragma once

#include "dense_device.cuh"
#include "dense_tiles.h"

namespace dense_device {

enum class TcEpilogue { kStore, kScaledAccumulate };

// Needs K % 8 == 0 and ldb % 8 == 0 (16-byte row loads); rows past M or N and k past K load as
// zeros, and only in-range outputs are written.
template <TcEpilogue kEpilogue>
__device__ __forceinline__ void TensorCoreGemm(const bf16* __restrict__ a,
                                               const bf16* __restrict__ b, bf16* __restrict__ c,
                                               uint32_t m, uint32_t n, uint32_t k, uint32_t ldb,
                                               float scale) {
  using T = gpuops::ops::dense::TensorCoreTile;
  __shared__ __align__(16) bf16 as[T::kM][T::kK + T::kPad];
  __shared__ __align__(16) bf16 bs[T::kN][T::kK + T::kPad];
  const uint32_t tid = threadIdx.x;
  const uint32_t warp = tid / 32;
  const uint32_t lane = tid % 32;
  const uint32_t g = lane / 4;  // fragment row group
  const uint32_t q = lane % 4;  // fragment column pair
  const uint32_t row0 = blockIdx.y * T::kM;
  const uint32_t col0 = blockIdx.x * T::kN;
  float acc[2][4] = {};
  for (uint32_t k0 = 0; k0 < k; k0 += T::kK) {
    if (tid < T::kM * (T::kK / 8)) {  // A: 16 rows x 4 chunks of 8
      const uint32_t r = tid / 4;
      const uint32_t kc = (tid % 4) * 8;
      uint4 v = make_uint4(0, 0, 0, 0);
      if (row0 + r < m && k0 + kc < k) {
        v = *reinterpret_cast<const uint4*>(a + static_cast<size_t>(row0 + r) * k + k0 + kc);
      }
      *reinterpret_cast<uint4*>(&as[r][kc]) = v;
    }
    for (uint32_t i = tid; i < T::kN * (T::kK / 8); i += T::kThreads) {  // B: 64 rows x 4 chunks
      const uint32_t r = i / 4;
      const uint32_t kc = (i % 4) * 8;
      uint4 v = make_uint4(0, 0, 0, 0);
      if (col0 + r < n && k0 + kc < k) {
        v = *reinterpret_cast<const uint4*>(b + static_cast<size_t>(col0 + r) * ldb + k0 + kc);
      }
      *reinterpret_cast<uint4*>(&bs[r][kc]) = v;
    }
    __syncthreads();
#pragma unroll
    for (uint32_t kk = 0; kk < T::kK; kk += 16) {
      const uint32_t af[4] = {LoadPair(&as[g][kk + 2 * q]), LoadPair(&as[g + 8][kk + 2 * q]),
                              LoadPair(&as[g][kk + 2 * q + 8]),
                              LoadPair(&as[g + 8][kk + 2 * q + 8])};
#pragma unroll
      for (uint32_t t = 0; t < 2; ++t) {
        const uint32_t nb = warp * 16 + t * 8 + g;
        const uint32_t bfrag[2] = {LoadPair(&bs[nb][kk + 2 * q]),
                                   LoadPair(&bs[nb][kk + 2 * q + 8])};
        MmaBf16(acc[t], af, bfrag);
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (uint32_t t = 0; t < 2; ++t) {
#pragma unroll
    for (uint32_t h = 0; h < 2; ++h) {
      const uint32_t row = row0 + g + 8 * h;
      if (row >= m) continue;
#pragma unroll
      for (uint32_t e = 0; e < 2; ++e) {
        const uint32_t col = col0 + warp * 16 + t * 8 + 2 * q + e;
        if (col >= n) continue;
        bf16& out = c[static_cast<size_t>(row) * n + col];
        const bf16 product = ToBf16(acc[t][2 * h + e]);
        if constexpr (kEpilogue == TcEpilogue::kStore) {
          out = product;
        } else {
          out = ToBf16(__fmaf_rn(scale, ToFloat(product), ToFloat(out)));
        }
      }
    }
  }
}

}  // namespace dense_device

using gpuops::ops::dense::TensorCoreTile;

// Grid (ceil(N/64), ceil(M/16)), block 128.
extern "C" __global__ void __launch_bounds__(TensorCoreTile::kThreads)
    dense_gemm_bf16_tc(const bf16* __restrict__ a, const bf16* __restrict__ b, bf16* __restrict__ c,
                       uint32_t m, uint32_t n, uint32_t k) {
  dense_device::TensorCoreGemm<dense_device::TcEpilogue::kStore>(a, b, c, m, n, k, k, 0.0f);
}

// c = bf16(fmaf(scale, float(bf16(A·Bᵀ)), float(c))). Grid (ceil(N/64), ceil(M/16)), block 128.
extern "C" __global__ void __launch_bounds__(TensorCoreTile::kThreads)
    dense_gemm_bf16_tc_scaled_acc(const bf16* __restrict__ a, const bf16* __restrict__ b,
                                  bf16* __restrict__ c, uint32_t m, uint32_t n, uint32_t k,
                                  float scale) {
  dense_device::TensorCoreGemm<dense_device::TcEpilogue::kScaledAccumulate>(a, b, c, m, n, k, k,
                                                                            scale);
}

// B rows `ldb` elements apart (ldb >= K, ldb % 8 == 0); any N. Grid (ceil(N/64), ceil(M/16)).
extern "C" __global__ void __launch_bounds__(TensorCoreTile::kThreads)
    dense_gemm_bf16_tc_ldb(const bf16* __restrict__ a, const bf16* __restrict__ b,
                           bf16* __restrict__ c, uint32_t m, uint32_t n, uint32_t k, uint32_t ldb) {
  dense_device::TensorCoreGemm<dense_device::TcEpilogue::kStore>(a, b, c, m, n, k, ldb, 0.0f);
}
