// Kernels for tests and benchmarks only: a u64 store (provokes a fault given a bad address), an
// empty kernel (launch overhead) and a read-only streaming kernel (the read roof).
#include <cuda_runtime.h>

#include <cstdint>

#include "testkit_layout.h"

using gpuops::ops::testkit::kStreamThreads;
using gpuops::ops::testkit::kStreamUnroll;

// *dst = value from one thread. Given an invalid address it faults (the backend tests use that).
extern "C" __global__ void testkit_store_u64(unsigned long long* dst, unsigned long long value) {
  if (threadIdx.x == 0 && blockIdx.x == 0) *dst = value;
}

// Does nothing: host launch overhead is measured with it.
extern "C" __global__ void testkit_noop() {}

// Reads n16 16-byte words with 16-byte loads in a grid-stride loop and folds them into one word
// per block, written to sink[blockIdx.x] only when it equals `never` (so the loads are not dead).
extern "C" __global__ void __launch_bounds__(kStreamThreads)
    testkit_stream_read(const uint4* src, unsigned long long n16, unsigned int never,
                        unsigned int* sink) {
  uint32_t acc = 0;
  const uint64_t stride = uint64_t{gridDim.x} * blockDim.x * kStreamUnroll;
  for (uint64_t base = uint64_t{blockIdx.x} * blockDim.x * kStreamUnroll + threadIdx.x; base < n16;
       base += stride) {
    uint4 v[kStreamUnroll];
#pragma unroll
    for (uint32_t u = 0; u < kStreamUnroll; ++u) {
      const uint64_t i = base + uint64_t{u} * blockDim.x;
      v[u] = i < n16 ? __ldcs(src + i) : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (uint32_t u = 0; u < kStreamUnroll; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  if (acc == never) sink[blockIdx.x] = acc;
}
