// Device helpers for kernels fed by the Tensor Memory Accelerator (sm_90 and up): mbarriers and
// 2-D tensor-map tile loads completing on them. Kernels include it as "device/tma_kit.cuh".
#pragma once

#include <cuda.h>

#include <cstdint>

#include "device/mma_kit.cuh"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

namespace device_kit {

__device__ __forceinline__ void MbarInit(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(SharedAddress(bar)), "r"(count));
}
// Makes initialized mbarriers visible to the async proxy (TMA) before their first use.
__device__ __forceinline__ void MbarInitFence() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
__device__ __forceinline__ void MbarExpectTx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(SharedAddress(bar)),
               "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void MbarArrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(SharedAddress(bar)) : "memory");
}
// Waits until the phase with parity `phase` of the barrier has completed, with acquire at CTA
// scope (arrivals of this block's threads and its TMA) or at cluster scope (arrivals that other
// blocks of the cluster released onto it: cluster_kit.cuh's ArriveRemote).
enum class MbarScope { kCta, kCluster };
#define GPUOPS_MBAR_TRY_WAIT(SEMANTICS)                                    \
  asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity" SEMANTICS      \
               ".shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n" \
               : "=r"(done)                                                \
               : "r"(addr), "r"(phase)                                     \
               : "memory")
template <MbarScope Scope = MbarScope::kCta>
__device__ __forceinline__ void MbarWait(uint64_t* bar, uint32_t phase) {
  const uint32_t addr = SharedAddress(bar);
  uint32_t done = 0;
  do {
    if constexpr (Scope == MbarScope::kCta) {
      GPUOPS_MBAR_TRY_WAIT("");
    } else {
      GPUOPS_MBAR_TRY_WAIT(".acquire.cluster");
    }
  } while (done == 0);
}
#undef GPUOPS_MBAR_TRY_WAIT

// A 2-D TMA tile load of the map's box at (inner, outer) into shared memory, completing on `bar`.
__device__ __forceinline__ void TmaLoad2D(void* dst, const CUtensorMap* map, uint64_t* bar,
                                          int32_t inner, int32_t outer) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
      "[%0], [%1, {%3, %4}], [%2];\n" ::"r"(SharedAddress(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(SharedAddress(bar)), "r"(inner), "r"(outer)
      : "memory");
}

// Starts fetching a kernel-parameter tensor map's descriptor, so the first TMA through it waits
// less.
__device__ __forceinline__ void PrefetchTensorMap(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// The byte offset of 16-byte chunk `chunk` of row `row` in a tile TMA wrote with 128-byte
// swizzle (rows of 128 bytes; the chunk index XORed with the row within its 8-row group). The
// tile must start 1024-byte aligned.
__device__ __forceinline__ uint32_t Swizzle128(uint32_t row, uint32_t chunk) {
  return row * 128 + ((chunk ^ (row & 7)) * 16);
}

}  // namespace device_kit

#endif
