// Launch geometry shared by the common kernels and their host launchers and emulations.
#pragma once

#include <cstdint>

namespace gpuops::ops::common {

// Element-wise kernels: each thread handles kElementsPerThread consecutive elements (16 bytes of
// BF16), kThreads threads per block, grid.x = ceil(n / kElementsPerBlock).
inline constexpr uint32_t kThreads = 256;
inline constexpr uint32_t kElementsPerThread = 8;
inline constexpr uint32_t kElementsPerBlock = kThreads * kElementsPerThread;

}  // namespace gpuops::ops::common
