// Device helpers for thread-block clusters (sm_90 and up): a block's rank, a cluster-wide
// barrier, and distributed shared memory (a store into, and an mbarrier arrival on, another
// block's shared memory). Kernels include it as "device/cluster_kit.cuh"; the waiting side uses
// tma_kit.cuh's MbarWait<MbarScope::kCluster>.
#pragma once

#include <cstdint>

#include "device/tma_kit.cuh"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

namespace device_kit {

// This block's rank in its cluster.
__device__ __forceinline__ uint32_t ClusterRank() {
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  return rank;
}

// Every thread of every block of the cluster arrives and waits (release / acquire): e.g. a
// block's mbarriers initialized before another block arrives on them.
__device__ __forceinline__ void ClusterSync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::
                   : "memory");
}

// The shared::cluster address of this block's shared-memory object `p` in block `rank`.
__device__ __forceinline__ uint32_t RemoteAddress(const void* p, uint32_t rank) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n"
               : "=r"(remote)
               : "r"(SharedAddress(p)), "r"(rank));
  return remote;
}

__device__ __forceinline__ void StoreRemote(uint32_t remote, float v) {
  asm volatile("st.shared::cluster.f32 [%0], %1;\n" ::"r"(remote), "f"(v) : "memory");
}

// Arrives on another block's mbarrier (a RemoteAddress), releasing this thread's earlier stores
// at cluster scope to the block that waits on it.
__device__ __forceinline__ void ArriveRemote(uint32_t remote_bar) {
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];\n" ::"r"(remote_bar)
               : "memory");
}

}  // namespace device_kit

#endif
