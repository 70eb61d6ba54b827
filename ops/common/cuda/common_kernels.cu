// Small kernels the ops and tests need: BF16 scaled add, fill (poison), BF16 copy, a u64 store
// (used to provoke a fault), an empty kernel, and a read-only streaming kernel (the read roof).
#include <cuda_bf16.h>

#include <cstdint>

#include "common_layout.h"

using gpuops::ops::common::kElementsPerThread;
using gpuops::ops::common::kStreamUnroll;
using gpuops::ops::common::kThreads;

namespace {

__device__ __forceinline__ uint64_t FirstElement() {
  return (uint64_t{blockIdx.x} * kThreads + threadIdx.x) * kElementsPerThread;
}

}  // namespace

// out[i] = bf16(fmaf(scale, float(delta[i]), float(out[i]))) for i < n.
extern "C" __global__ void __launch_bounds__(kThreads)
    common_bf16_scaled_add(__nv_bfloat16* out, const __nv_bfloat16* delta, float scale,
                           unsigned long long n) {
  const uint64_t first = FirstElement();
#pragma unroll
  for (uint32_t j = 0; j < kElementsPerThread; ++j) {
    const uint64_t i = first + j;
    if (i < n) {
      out[i] = __float2bfloat16_rn(
          __fmaf_rn(scale, __bfloat162float(delta[i]), __bfloat162float(out[i])));
    }
  }
}

// out[i] = value (16 bits) for i < n: poisons BF16 buffers with a NaN pattern before a test.
extern "C" __global__ void __launch_bounds__(kThreads)
    common_fill_u16(uint16_t* out, unsigned int value, unsigned long long n) {
  const uint64_t first = FirstElement();
#pragma unroll
  for (uint32_t j = 0; j < kElementsPerThread; ++j) {
    if (first + j < n) out[first + j] = static_cast<uint16_t>(value);
  }
}

// dst[i] = src[i] for i < n BF16 elements.
extern "C" __global__ void __launch_bounds__(kThreads)
    common_copy_bf16(__nv_bfloat16* dst, const __nv_bfloat16* src, unsigned long long n) {
  const uint64_t first = FirstElement();
#pragma unroll
  for (uint32_t j = 0; j < kElementsPerThread; ++j) {
    if (first + j < n) dst[first + j] = src[first + j];
  }
}

// *dst = value from one thread. Given an invalid address it faults (the backend tests use that).
extern "C" __global__ void common_store_u64(unsigned long long* dst, unsigned long long value) {
  if (threadIdx.x == 0 && blockIdx.x == 0) *dst = value;
}

// Does nothing: host launch overhead is measured with it.
extern "C" __global__ void common_noop() {}

// Reads n16 16-byte words with 16-byte loads in a grid-stride loop and folds them into one word
// per block, written to sink[blockIdx.x] only when it equals `never` (so the loads are not dead).
extern "C" __global__ void __launch_bounds__(512)
    common_stream_read(const uint4* src, unsigned long long n16, unsigned int never,
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
