// Device helpers every family's HIP kernels share (hipcc). BF16 travels as its 16 bits; the
// conversions are the host's (gpuops/runtime/bf16.h): round to nearest even, NaN kept quiet.
// Kernels include it as "device/hip_kit.h" (hipcc runs with -I ops/); HIP's own device header
// comes from the build rule (cmake/GpuopsHip.cmake), as CUDA's comes from nvcc.
#pragma once

#include <cstdint>

namespace hip_kit {

__device__ __forceinline__ float Bf16ToFloat(uint16_t bits) {
  return __uint_as_float(static_cast<uint32_t>(bits) << 16);
}

__device__ __forceinline__ uint16_t FloatToBf16(float f) {
  const uint32_t u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

}  // namespace hip_kit
