// The dense family's kernels that need no vendor matrix instructions, for AMD GPUs (hipcc): the
// strict-order scalar and router GEMMs and the split-K pair, under the CUDA kernels' names, with
// their parameter lists, grids and results (cuda/scalar.cuh, cuda/splitk.cuh; tile geometry from
// cuda/dense_tiles.h). Built with -ffp-contract=off: every multiply and add rounds separately, so
// the strict-order kernels equal the CPU reference bit for bit, as on CUDA. BF16 travels as its
// 16 bits (device/hip_kit.h).
#include <cstdint>

#include "dense/cuda/dense_tiles.h"
#include "device/hip_kit.h"

using gpuops::ops::dense::RouterTile;
using gpuops::ops::dense::ScalarTile;
using gpuops::ops::dense::SplitKTile;
using hip_kit::Bf16ToFloat;
using hip_kit::FloatToBf16;

// Grid (ceil(N/16), ceil(M/16)), block (16, 16): thread (x, y) owns C[by*16+y, bx*16+x].
extern "C" __global__ void __launch_bounds__(ScalarTile::kThreadsX* ScalarTile::kThreadsY)
    dense_gemm_bf16(const uint16_t* __restrict__ a, const uint16_t* __restrict__ b,
                    uint16_t* __restrict__ c, uint32_t m, uint32_t n, uint32_t k) {
  const uint32_t col = blockIdx.x * ScalarTile::kN + threadIdx.x;
  const uint32_t row = blockIdx.y * ScalarTile::kM + threadIdx.y;
  if (row >= m || col >= n) return;
  const uint16_t* a_row = a + static_cast<size_t>(row) * k;
  const uint16_t* b_row = b + static_cast<size_t>(col) * k;
  float acc = 0.0f;
  for (uint32_t i = 0; i < k; ++i) {
    const float product = Bf16ToFloat(a_row[i]) * Bf16ToFloat(b_row[i]);
    acc = acc + product;
  }
  c[static_cast<size_t>(row) * n + col] = FloatToBf16(acc);
}

// Grid (ceil(N/64), ceil(M/16)), block (16, 16): thread (x, y) owns row by*16+y, columns
// bx*64 + x + 16 j for j < 4; K staged through shared memory (as FP32) 32 at a time; needs
// K % 8 == 0 (16-byte row loads).
extern "C" __global__ void __launch_bounds__(RouterTile::kThreadsX* RouterTile::kThreadsY)
    dense_gemm_bf16_router(const uint16_t* __restrict__ a, const uint16_t* __restrict__ b,
                           uint16_t* __restrict__ c, uint32_t m, uint32_t n, uint32_t k) {
  using T = RouterTile;
  __shared__ float as[T::kM][T::kK + 1];
  __shared__ float bs[T::kK][T::kN + 1];  // transposed: [k][column]
  const uint32_t tx = threadIdx.x;
  const uint32_t ty = threadIdx.y;
  const uint32_t tid = ty * T::kThreadsX + tx;
  const uint32_t row0 = blockIdx.y * T::kM;
  const uint32_t col0 = blockIdx.x * T::kN;
  float acc[T::kColsPerThread] = {};
  // 8 BF16 of row `r` from k0 + kc, zero past M (or N) and K.
  auto load8 = [&](const uint16_t* base, uint32_t r, uint32_t rows, uint32_t k0, uint32_t kc,
                   uint16_t (&out)[8]) {
    uint4 v = make_uint4(0, 0, 0, 0);
    if (r < rows && k0 + kc < k) {
      v = *reinterpret_cast<const uint4*>(base + static_cast<size_t>(r) * k + k0 + kc);
    }
    __builtin_memcpy(out, &v, sizeof(v));
  };
  for (uint32_t k0 = 0; k0 < k; k0 += T::kK) {
    const uint32_t r = tid / 4;
    const uint32_t kc = (tid % 4) * 8;
    uint16_t e[8];
    if (tid < T::kM * 4) {  // A: 16 rows x 32 k as 64 chunks of 8
      load8(a, row0 + r, m, k0, kc, e);
#pragma unroll
      for (int j = 0; j < 8; ++j) as[r][kc + j] = Bf16ToFloat(e[j]);
    }
    load8(b, col0 + r, n, k0, kc, e);  // B: 64 rows x 32 k, one chunk a thread, transposed
#pragma unroll
    for (int j = 0; j < 8; ++j) bs[kc + j][r] = Bf16ToFloat(e[j]);
    __syncthreads();
    const uint32_t k_here = min(T::kK, k - k0);
    for (uint32_t kk = 0; kk < k_here; ++kk) {
      const float av = as[ty][kk];
#pragma unroll
      for (uint32_t j = 0; j < T::kColsPerThread; ++j) {
        const float product = av * bs[kk][tx + T::kThreadsX * j];
        acc[j] = acc[j] + product;
      }
    }
    __syncthreads();
  }
  const uint32_t row = row0 + ty;
  if (row >= m) return;
#pragma unroll
  for (uint32_t j = 0; j < T::kColsPerThread; ++j) {
    const uint32_t col = col0 + tx + T::kThreadsX * j;
    if (col < n) c[static_cast<size_t>(row) * n + col] = FloatToBf16(acc[j]);
  }
}

// Grid (ceil(N/16), ceil(M/16), splits), block (16, 16). workspace[s][row][col].
extern "C" __global__ void __launch_bounds__(SplitKTile::kThreadsX* SplitKTile::kThreadsY)
    dense_gemm_bf16_splitk_partial(const uint16_t* __restrict__ a, const uint16_t* __restrict__ b,
                                   float* __restrict__ workspace, uint32_t m, uint32_t n,
                                   uint32_t k, uint32_t splits) {
  const uint32_t col = blockIdx.x * SplitKTile::kN + threadIdx.x;
  const uint32_t row = blockIdx.y * SplitKTile::kM + threadIdx.y;
  const uint32_t split = blockIdx.z;
  if (row >= m || col >= n || split >= splits) return;
  const uint32_t chunk = gpuops::ops::dense::SplitKChunk(k, splits);
  const uint32_t begin = min(k, split * chunk);
  const uint32_t end = min(k, begin + chunk);
  const uint16_t* a_row = a + static_cast<size_t>(row) * k;
  const uint16_t* b_row = b + static_cast<size_t>(col) * k;
  float acc = 0.0f;
  for (uint32_t i = begin; i < end; ++i) acc = fmaf(Bf16ToFloat(a_row[i]), Bf16ToFloat(b_row[i]), acc);
  workspace[(static_cast<size_t>(split) * m + row) * n + col] = acc;
}

// Grid (ceil(N/256), M), block 256: the partials summed in split order.
extern "C" __global__ void __launch_bounds__(SplitKTile::kReduceThreads)
    dense_gemm_bf16_splitk_reduce(const float* __restrict__ workspace, uint16_t* __restrict__ c,
                                  uint32_t m, uint32_t n, uint32_t splits) {
  const uint32_t col = blockIdx.x * SplitKTile::kReduceThreads + threadIdx.x;
  const uint32_t row = blockIdx.y;
  if (row >= m || col >= n) return;
  float sum = 0.0f;
  for (uint32_t s = 0; s < splits; ++s) sum = sum + workspace[(static_cast<size_t>(s) * m + row) * n + col];
  c[static_cast<size_t>(row) * n + col] = FloatToBf16(sum);
}
