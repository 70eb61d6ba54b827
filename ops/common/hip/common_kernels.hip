// The common family's element-wise kernels for AMD GPUs (hipcc): the same names, parameter lists
// and results as cuda/common_kernels.cu; BF16 as its 16 bits (device/hip_kit.h).
#include <cstdint>

#include "common/cuda/common_layout.h"
#include "device/hip_kit.h"

using gpuops::ops::common::kElementsPerThread;
using gpuops::ops::common::kThreads;
using hip_kit::Bf16ToFloat;
using hip_kit::FloatToBf16;

namespace {

__device__ __forceinline__ uint64_t FirstElement() {
  return (uint64_t{blockIdx.x} * kThreads + threadIdx.x) * kElementsPerThread;
}

}  // namespace

// out[i] = bf16(fmaf(scale, float(delta[i]), float(out[i]))) for i < n.
extern "C" __global__ void __launch_bounds__(kThreads)
    common_bf16_scaled_add(uint16_t* out, const uint16_t* delta, float scale,
                           unsigned long long n) {
  const uint64_t first = FirstElement();
#pragma unroll
  for (uint32_t j = 0; j < kElementsPerThread; ++j) {
    const uint64_t i = first + j;
    if (i < n) out[i] = FloatToBf16(fmaf(scale, Bf16ToFloat(delta[i]), Bf16ToFloat(out[i])));
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
    common_copy_bf16(uint16_t* dst, const uint16_t* src, unsigned long long n) {
  const uint64_t first = FirstElement();
#pragma unroll
  for (uint32_t j = 0; j < kElementsPerThread; ++j) {
    if (first + j < n) dst[first + j] = src[first + j];
  }
}
