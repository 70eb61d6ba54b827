// Strict-order kernels: each output is bf16(acc) with acc summed in FP32 over k = 0..K-1, one
// rounding per multiply and per add. __fmul_rn / __fadd_rn are never contracted into FMA, so
// this holds whatever nvcc's --fmad setting. The router kernel computes the same sums in the same
// order, register-blocked, and so equals the scalar kernel bit for bit.
#pragma once

#include "dense_device.cuh"
#include "dense_tiles.h"

using gpuops::ops::dense::RouterTile;
using gpuops::ops::dense::ScalarTile;

// Grid (ceil(N/16), ceil(M/16)), block (16, 16): thread (x, y) owns C[by*16+y, bx*16+x].
extern "C" __global__ void __launch_bounds__(ScalarTile::kThreadsX* ScalarTile::kThreadsY)
    dense_gemm_bf16(const bf16* __restrict__ a, const bf16* __restrict__ b, bf16* __restrict__ c,
                    uint32_t m, uint32_t n, uint32_t k) {
  const uint32_t col = blockIdx.x * ScalarTile::kN + threadIdx.x;
  const uint32_t row = blockIdx.y * ScalarTile::kM + threadIdx.y;
  if (row >= m || col >= n) return;
  const bf16* a_row = a + static_cast<size_t>(row) * k;
  const bf16* b_row = b + static_cast<size_t>(col) * k;
  float acc = 0.0f;
  for (uint32_t i = 0; i < k; ++i) {
    acc =
        __fadd_rn(acc, __fmul_rn(dense_device::ToFloat(a_row[i]), dense_device::ToFloat(b_row[i])));
  }
  c[static_cast<size_t>(row) * n + col] = dense_device::ToBf16(acc);
}

// Grid (ceil(N/64), ceil(M/16)), block (16, 16): thread (x, y) owns row by*16+y, columns
// bx*64 + x + 16 j for j < 4. K is staged through shared memory (as FP32) 32 at a time; needs
// K % 8 == 0 (16-byte row loads).
extern "C" __global__ void __launch_bounds__(RouterTile::kThreadsX* RouterTile::kThreadsY)
    dense_gemm_bf16_router(const bf16* __restrict__ a, const bf16* __restrict__ b,
                           bf16* __restrict__ c, uint32_t m, uint32_t n, uint32_t k) {
  using T = RouterTile;
  __shared__ float as[T::kM][T::kK + 1];
  __shared__ float bs[T::kK][T::kN + 1];  // transposed: [k][column]
  const uint32_t tx = threadIdx.x;
  const uint32_t ty = threadIdx.y;
  const uint32_t tid = ty * T::kThreadsX + tx;
  const uint32_t row0 = blockIdx.y * T::kM;
  const uint32_t col0 = blockIdx.x * T::kN;
  float acc[T::kColsPerThread] = {};
  for (uint32_t k0 = 0; k0 < k; k0 += T::kK) {
    {  // A: 16 rows x 32 k as 64 chunks of 8.
      const uint32_t r = tid / 4;
      const uint32_t kc = (tid % 4) * 8;
      if (tid < T::kM * 4) {
        uint4 v = make_uint4(0, 0, 0, 0);
        if (row0 + r < m && k0 + kc < k) {
          v = *reinterpret_cast<const uint4*>(a + static_cast<size_t>(row0 + r) * k + k0 + kc);
        }
        const bf16* e = reinterpret_cast<const bf16*>(&v);
#pragma unroll
        for (int j = 0; j < 8; ++j) as[r][kc + j] = dense_device::ToFloat(e[j]);
      }
    }
    {  // B: 64 rows x 32 k as 256 chunks of 8, one per thread, stored transposed.
      const uint32_t r = tid / 4;
      const uint32_t kc = (tid % 4) * 8;
      uint4 v = make_uint4(0, 0, 0, 0);
      if (col0 + r < n && k0 + kc < k) {
        v = *reinterpret_cast<const uint4*>(b + static_cast<size_t>(col0 + r) * k + k0 + kc);
      }
      const bf16* e = reinterpret_cast<const bf16*>(&v);
#pragma unroll
      for (int j = 0; j < 8; ++j) bs[kc + j][r] = dense_device::ToFloat(e[j]);
    }
    __syncthreads();
    const uint32_t k_here = min(T::kK, k - k0);
    for (uint32_t kk = 0; kk < k_here; ++kk) {
      const float av = as[ty][kk];
#pragma unroll
      for (uint32_t j = 0; j < T::kColsPerThread; ++j) {
        acc[j] = __fadd_rn(acc[j], __fmul_rn(av, bs[kk][tx + T::kThreadsX * j]));
      }
    }
    __syncthreads();
  }
  const uint32_t row = row0 + ty;
  if (row >= m) return;
#pragma unroll
  for (uint32_t j = 0; j < T::kColsPerThread; ++j) {
    const uint32_t col = col0 + tx + T::kThreadsX * j;
    if (col < n) c[static_cast<size_t>(row) * n + col] = dense_device::ToBf16(acc[j]);
  }
}
