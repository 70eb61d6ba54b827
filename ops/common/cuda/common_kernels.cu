// Small element-wise kernels the ops need: BF16 scaled add, fill, BF16 copy.
#include <cuda_bf16.h>

#include <cstdint>

#include "common_layout.h"

using gpuops::ops::common::kElementsPerThread;
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
