// Decode GEMM (M <= 16) on sm_90a with the weights staged through shared memory by bulk copies:
// a producer warp keeps kStages K chunks of the block's 16 weight rows in flight (16 copies of
// up to 1 KB per chunk, completing on the stage's `full` mbarrier), four consumer warps run the
// same mma.sync scheme as gemv.cuh on the staged rows and release each stage on its `empty`
// mbarrier. Shared memory, not registers, bounds the bytes in flight.
#pragma once

#include "dense_device.cuh"
#include "dense_tiles.h"
#include "hopper.cuh"

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

namespace dense_device {

// A contiguous global -> shared copy of `bytes` (a multiple of 16) completing on `bar`.
__device__ __forceinline__ void BulkCopy(void* dst, const void* src, uint32_t bytes,
                                         uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::
          "r"(SharedAddress(dst)),
      "l"(src), "r"(bytes), "r"(SharedAddress(bar))
      : "memory");
}

template <uint32_t kNTiles>
__device__ __forceinline__ void GemvTma(const bf16* __restrict__ a, const bf16* __restrict__ b,
                                        bf16* __restrict__ c, uint32_t m, uint32_t n, uint32_t k,
                                        uint32_t ldb) {
  using T = gpuops::ops::dense::GemvTmaTile;
  constexpr uint32_t kCols = 8 * kNTiles;
  constexpr uint32_t kStepsPerWarp = T::kStageK / 32 / T::kConsumers;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = reinterpret_cast<uint8_t*>(
      (reinterpret_cast<uintptr_t>(smem_raw) + 127) & ~uintptr_t{127});
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + T::kStages * T::kStageBytes);
  uint64_t* empty = full + T::kStages;
  __shared__ float partial[T::kConsumers][T::kRows][kCols];

  const uint32_t warp = threadIdx.x / 32;
  const uint32_t lane = threadIdx.x % 32;
  const uint32_t row0 = blockIdx.x * T::kRows;
  const uint32_t rows = min(T::kRows, n - row0);
  const uint32_t chunks = (k + T::kStageK - 1) / T::kStageK;
  if (threadIdx.x == 0) {
    for (uint32_t s = 0; s < T::kStages; ++s) {
      MbarInit(&full[s], 1);
      MbarInit(&empty[s], T::kConsumers);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();

  if (warp == T::kConsumers) {  // producer
    if (lane == 0) {
      uint32_t stage = 0;
      uint32_t phase = 0;
      for (uint32_t chunk = 0; chunk < chunks; ++chunk) {
        const uint32_t k0 = chunk * T::kStageK;
        const uint32_t bytes = min(T::kStageK, k - k0) * 2;
        MbarWait(&empty[stage], phase ^ 1);
        MbarExpectTx(&full[stage], rows * bytes);
        uint8_t* dst = smem + stage * T::kStageBytes;
        for (uint32_t r = 0; r < rows; ++r) {
          BulkCopy(dst + r * T::kRowBytes, b + static_cast<size_t>(row0 + r) * ldb + k0, bytes,
                   &full[stage]);
        }
        if (++stage == T::kStages) {
          stage = 0;
          phase ^= 1;
        }
      }
    }
    return;
  }

  const uint32_t g = lane / 4;
  const uint32_t q = lane % 4;
  float acc[kNTiles][4] = {};
  uint32_t stage = 0;
  uint32_t phase = 0;
  for (uint32_t chunk = 0; chunk < chunks; ++chunk) {
    MbarWait(&full[stage], phase);
    const uint8_t* base = smem + stage * T::kStageBytes;
#pragma unroll
    for (uint32_t u = 0; u < kStepsPerWarp; ++u) {
      const uint32_t local = (warp * kStepsPerWarp + u) * 32 + 8 * q;  // k within the chunk
      const uint32_t kk = chunk * T::kStageK + local;
      const bool in_k = kk < k;
      const uint4 zero = make_uint4(0, 0, 0, 0);
      const uint4 wl = in_k && g < rows
                           ? *reinterpret_cast<const uint4*>(base + g * T::kRowBytes + local * 2)
                           : zero;
      const uint4 wh = in_k && g + 8 < rows ? *reinterpret_cast<const uint4*>(
                                                  base + (g + 8) * T::kRowBytes + local * 2)
                                            : zero;
#pragma unroll
      for (uint32_t t = 0; t < kNTiles; ++t) {
        const uint32_t row = 8 * t + g;
        uint4 av = zero;
        if (in_k && row < m) av = __ldg(reinterpret_cast<const uint4*>(a + static_cast<size_t>(row) * k + kk));
        const uint32_t a_first[4] = {wl.x, wh.x, wl.y, wh.y};
        const uint32_t b_first[2] = {av.x, av.y};
        MmaBf16(acc[t], a_first, b_first);
        const uint32_t a_second[4] = {wl.z, wh.z, wl.w, wh.w};
        const uint32_t b_second[2] = {av.z, av.w};
        MmaBf16(acc[t], a_second, b_second);
      }
    }
    __syncwarp();
    if (lane == 0) MbarArrive(&empty[stage]);
    if (++stage == T::kStages) {
      stage = 0;
      phase ^= 1;
    }
  }
#pragma unroll
  for (uint32_t t = 0; t < kNTiles; ++t) {
    partial[warp][g][8 * t + 2 * q] = acc[t][0];
    partial[warp][g][8 * t + 2 * q + 1] = acc[t][1];
    partial[warp][g + 8][8 * t + 2 * q] = acc[t][2];
    partial[warp][g + 8][8 * t + 2 * q + 1] = acc[t][3];
  }
  // The consumers only: the producer warp has left.
  asm volatile("bar.sync 1, %0;\n" ::"n"(T::kConsumers * 32) : "memory");
  for (uint32_t i = threadIdx.x; i < T::kRows * kCols; i += T::kConsumers * 32) {
    const uint32_t row = i % T::kRows;
    const uint32_t col = i / T::kRows;
    if (col >= m || row >= rows) continue;
    float sum = 0.0f;
#pragma unroll
    for (uint32_t w = 0; w < T::kConsumers; ++w) sum = __fadd_rn(sum, partial[w][row][col]);
    c[static_cast<size_t>(col) * n + row0 + row] = ToBf16(sum);
  }
}

}  // namespace dense_device

using gpuops::ops::dense::GemvTmaTile;

// M <= 8. Grid (ceil(N/16)), block 160, GemvTmaTile::kSharedBytes of dynamic shared memory.
extern "C" __global__ void __launch_bounds__(GemvTmaTile::kThreads)
    dense_gemv_bf16_tma_m8(const bf16* __restrict__ a, const bf16* __restrict__ b,
                           bf16* __restrict__ c, uint32_t m, uint32_t n, uint32_t k,
                           uint32_t ldb) {
  dense_device::GemvTma<1>(a, b, c, m, n, k, ldb);
}

// M <= 16. Grid (ceil(N/16)), block 160, GemvTmaTile::kSharedBytes of dynamic shared memory.
extern "C" __global__ void __launch_bounds__(GemvTmaTile::kThreads)
    dense_gemv_bf16_tma_m16(const bf16* __restrict__ a, const bf16* __restrict__ b,
                            bf16* __restrict__ c, uint32_t m, uint32_t n, uint32_t k,
                            uint32_t ldb) {
  dense_device::GemvTma<2>(a, b, c, m, n, k, ldb);
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL
