// Split-K: each split writes an FP32 partial over its K range into a workspace of
// splits * M * N floats; the reduce sums the partials in split order 0..S-1 (deterministic).
#pragma once

#include "dense_device.cuh"
#include "dense_tiles.h"

using gpuops::ops::dense::SplitKTile;

// Grid (ceil(N/16), ceil(M/16), splits), block (16, 16). workspace[s][row][col].
extern "C" __global__ void __launch_bounds__(SplitKTile::kThreadsX* SplitKTile::kThreadsY)
    dense_gemm_bf16_splitk_partial(const bf16* __restrict__ a, const bf16* __restrict__ b,
                                   float* __restrict__ workspace, uint32_t m, uint32_t n,
                                   uint32_t k, uint32_t splits) {
  const uint32_t col = blockIdx.x * SplitKTile::kN + threadIdx.x;
  const uint32_t row = blockIdx.y * SplitKTile::kM + threadIdx.y;
  const uint32_t split = blockIdx.z;
  if (row >= m || col >= n || split >= splits) return;
  const uint32_t chunk = gpuops::ops::dense::SplitKChunk(k, splits);
  const uint32_t begin = min(k, split * chunk);
  const uint32_t end = min(k, begin + chunk);
  const bf16* a_row = a + static_cast<size_t>(row) * k;
  const bf16* b_row = b + static_cast<size_t>(col) * k;
  float acc = 0.0f;
  for (uint32_t i = begin; i < end; ++i) {
    acc = __fmaf_rn(dense_device::ToFloat(a_row[i]), dense_device::ToFloat(b_row[i]), acc);
  }
  workspace[(static_cast<size_t>(split) * m + row) * n + col] = acc;
}

// Grid (ceil(N/256), M), block 256. The partials of kReduceBatch splits are loaded before any is
// added, so their loads are in flight together (one at a time, the reduce waited on each
// in turn); the sum still runs in split order.
extern "C" __global__ void __launch_bounds__(SplitKTile::kReduceThreads)
    dense_gemm_bf16_splitk_reduce(const float* __restrict__ workspace, bf16* __restrict__ c,
                                  uint32_t m, uint32_t n, uint32_t splits) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // Launched to overlap the split kernel (programmatic dependent launch): wait here until it
  // has completed and its partials are visible. Without that launch mode this returns at once.
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
  const uint32_t col = blockIdx.x * SplitKTile::kReduceThreads + threadIdx.x;
  const uint32_t row = blockIdx.y;
  if (row >= m || col >= n) return;
  const float* partial = workspace + static_cast<size_t>(row) * n + col;
  const size_t split_stride = static_cast<size_t>(m) * n;
  constexpr uint32_t kBatch = SplitKTile::kReduceBatch;
  float sum = 0.0f;
  for (uint32_t first = 0; first < splits; first += kBatch) {
    float v[kBatch];
#pragma unroll
    for (uint32_t j = 0; j < kBatch; ++j) {
      v[j] = first + j < splits ? partial[(first + j) * split_stride] : 0.0f;
    }
#pragma unroll
    for (uint32_t j = 0; j < kBatch; ++j) {
      if (first + j < splits) sum = __fadd_rn(sum, v[j]);
    }
  }
  c[static_cast<size_t>(row) * n + col] = dense_device::ToBf16(sum);
}
