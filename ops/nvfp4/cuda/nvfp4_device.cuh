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

// Where this thread sits in its block's tile: its mma fragment coordinates (g = lane / 4,
// q = lane % 4), its warp's first row and column in the tile, and the tile's first row and
// column in C (blockIdx.x walks N tiles, blockIdx.y M tiles).
template <typename Tile>
struct TilePlace {
  uint32_t g, q, warp_row, warp_col, row0, col0;
  __device__ __forceinline__ TilePlace()
      : g(threadIdx.x % 32 / 4),
        q(threadIdx.x % 4),
        warp_row(threadIdx.x / 32 / Tile::kWarpsN * Tile::kWarpM),
        warp_col(threadIdx.x / 32 % Tile::kWarpsN * Tile::kWarpN),
        row0(blockIdx.y * Tile::kM),
        col0(blockIdx.x * Tile::kN) {}

  // Calls fn(mi, ni, e, row, col) for each of the thread's accumulators acc[mi][ni][e], with the
  // row and column of C it holds.
  template <typename Fn>
  __device__ __forceinline__ void ForEachAccumulator(Fn fn) const {
#pragma unroll
    for (uint32_t mi = 0; mi < Tile::kWarpM / 16; ++mi) {
#pragma unroll
      for (uint32_t ni = 0; ni < Tile::kWarpN / 8; ++ni) {
#pragma unroll
        for (uint32_t e = 0; e < 4; ++e) {
          fn(mi, ni, e, row0 + warp_row + mi * 16 + g + 8 * (e / 2),
             col0 + warp_col + ni * 8 + 2 * q + e % 2);
        }
      }
    }
  }
};

// Calls fn(k_row, col, nibble, scale_byte) for each value of the staged K step, the block's
// threads sharing the work: the transposition every kernel makes from the K-major weight into
// its n-major tile.
template <typename Tile, typename Fn>
__device__ __forceinline__ void ForEachStagedValue(const uint8_t (*packed)[Tile::kN / 2],
                                                   const uint8_t (*scales)[Tile::kN], Fn fn) {
  for (uint32_t i = threadIdx.x; i < Tile::kK * (Tile::kN / 2); i += Tile::kThreads) {
    const uint32_t r = i / (Tile::kN / 2);
    const uint32_t j = i % (Tile::kN / 2);
    const uint32_t byte = packed[r][j];
    fn(r, 2 * j, byte & 15, scales[r / 16][2 * j]);
    fn(r, 2 * j + 1, byte >> 4, scales[r / 16][2 * j + 1]);
  }
}

}  // namespace nvfp4_device

using nvfp4_device::bf16;
