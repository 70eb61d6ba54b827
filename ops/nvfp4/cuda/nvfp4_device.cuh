// Device helpers of the NVFP4 kernels: decoding E2M1 values and E4M3 scales, and staging a K step
// of the prepared weight (K rows of ldb columns, two values a byte) and of A into shared memory.
#pragma once

#include <cstdint>

#include "device/mma_kit.cuh"

namespace nvfp4_device {

using namespace device_kit;  // NOLINT(google-build-using-namespace): the shared helpers

// An E4M3 byte as a float (NaN for 0x7F / 0xFF), exactly.
__device__ __forceinline__ float E4m3ToFloat(uint32_t byte) {
  const uint32_t exponent = (byte >> 3) & 15;
  const uint32_t mantissa = byte & 7;
  float v = exponent == 0 ? static_cast<float>(mantissa) * 0x1p-9f
                          : __uint_as_float(((exponent + 120) << 23) | (mantissa << 20));
  if ((byte & 0x7f) == 0x7f) v = __uint_as_float(0x7fc00000u);
  return (byte & 0x80) != 0 ? -v : v;
}

// An E2M1 nibble as a float: ±{0, 0.5, 1, 1.5, 2, 3, 4, 6}.
__device__ __forceinline__ float E2m1ToFloat(uint32_t nibble) {
  const uint32_t code = nibble & 7;
  const float v = code < 2 ? static_cast<float>(code) * 0.5f
                           : __uint_as_float((((code >> 1) + 126) << 23) | ((code & 1) << 22));
  return (nibble & 8) != 0 ? -v : v;
}

// An E2M1 nibble as the E4M3 byte of the same value (every E2M1 value is one).
__device__ __forceinline__ uint32_t E2m1ToE4m3(uint32_t nibble) {
  constexpr uint64_t kMagnitudes = 0x4c4844403c383000ull;  // codes 0..7 -> 0, 0.5, ..., 6
  return static_cast<uint32_t>((kMagnitudes >> (8 * (nibble & 7))) & 0xff) | ((nibble & 8) << 4);
}

// Starts the copy of one K step into shared memory (cp.async; rows past M or K and columns past
// the weight's ldb arrive as zeros):
//   a_tile  [kM][kK + pad] BF16 of A (a_tile == nullptr: A is staged elsewhere),
//   packed  [kK][kN / 2] bytes of the weight's k-rows,
//   scales  [kK / 16][kN] E4M3 scales.
template <typename Tile, uint32_t kAPitch>
__device__ __forceinline__ void StageStep(bf16 (*a_tile)[kAPitch], uint8_t (*packed)[Tile::kN / 2],
                                          uint8_t (*scales)[Tile::kN], const bf16* a,
                                          const uint8_t* b_packed, const uint8_t* b_scale,
                                          uint32_t m, uint32_t k, uint32_t ldb, uint32_t row0,
                                          uint32_t col0, uint32_t k0) {
  constexpr uint32_t kK = Tile::kK, kN = Tile::kN, kThreads = Tile::kThreads;
  if (a_tile != nullptr) {
    for (uint32_t i = threadIdx.x; i < Tile::kM * (kK / 8); i += kThreads) {
      const uint32_t r = i / (kK / 8);
      const uint32_t kc = (i % (kK / 8)) * 8;
      const bool valid = row0 + r < m && k0 + kc < k;
      CpAsync16(&a_tile[r][kc], valid ? a + static_cast<size_t>(row0 + r) * k + k0 + kc : a,
                valid);
    }
  }
  // 16 bytes hold 32 columns of one k-row.
  for (uint32_t i = threadIdx.x; i < kK * (kN / 32); i += kThreads) {
    const uint32_t r = i / (kN / 32);
    const uint32_t cc = (i % (kN / 32)) * 32;
    const bool valid = k0 + r < k && col0 + cc < ldb;
    CpAsync16(&packed[r][cc / 2],
              valid ? b_packed + static_cast<size_t>(k0 + r) * (ldb / 2) + (col0 + cc) / 2
                    : b_packed,
              valid);
  }
  for (uint32_t i = threadIdx.x; i < (kK / 16) * (kN / 16); i += kThreads) {
    const uint32_t g = i / (kN / 16);
    const uint32_t cc = (i % (kN / 16)) * 16;
    const bool valid = k0 + 16 * g < k && col0 + cc < ldb;
    CpAsync16(&scales[g][cc],
              valid ? b_scale + static_cast<size_t>(k0 / 16 + g) * ldb + col0 + cc : b_scale,
              valid);
  }
  CpAsyncCommit();
}

}  // namespace nvfp4_device

using nvfp4_device::bf16;
