// Tile geometry of the NVFP4 kernels: the one place the kernels and the host (variants table,
// launchers, host emulations) take it from. Plain C++17 so both nvcc and the host compiler read it.
//
// Every kernel computes C[M,N] = A[M,K] · dequant(W)ᵀ with W in the prepared layout (K rows of
// ldb columns, nvfp4_format.h). Grids are N-fast: blockIdx.x walks N tiles, blockIdx.y M tiles.
#pragma once

#include <cstdint>

namespace gpuops::ops::nvfp4 {

// A block's output tile (kM x kN), the K it stages through shared memory per step (kK), and its
// warps as a kWarpsM x kWarpsN grid, each warp owning (kM / kWarpsM) x (kN / kWarpsN) outputs.
template <uint32_t M, uint32_t N, uint32_t K, uint32_t WarpsM, uint32_t WarpsN>
struct Nvfp4Tile {
  static constexpr uint32_t kM = M, kN = N, kK = K;
  static constexpr uint32_t kWarpsM = WarpsM, kWarpsN = WarpsN;
  static constexpr uint32_t kThreads = 32 * WarpsM * WarpsN;
  static constexpr uint32_t kWarpM = M / WarpsM, kWarpN = N / WarpsN;
  static_assert(kWarpM % 16 == 0 && kWarpN % 8 == 0 && K % 16 == 0, "whole mma tiles");
};

// w4a16_gemm: 64 x 64, 4 warps of 32 x 32.
using BaseTile = Nvfp4Tile<64, 64, 32, 2, 2>;
// w4a16_gemm_t_k64_n64_p3: the deep-K twin, K steps of 64.
using DeepKTile = Nvfp4Tile<64, 64, 64, 2, 2>;
// w4a16_gemm_n128 (and _ldb): 64 x 128, 4 warps of 32 x 64.
using N128Tile = Nvfp4Tile<64, 128, 32, 2, 2>;
// w4a16_gemm_t_m128 (FP8) and w4a16_gemm_t_m128_bf16 (and _ldb): 128 x 128, 4 warps of 64 x 64.
using M128Tile = Nvfp4Tile<128, 128, 32, 2, 2>;
// w4a16_gemm_t_m128_v2: 8 warps, the two 64-row halves on warps 0-3 and 4-7.
using M128V2Tile = Nvfp4Tile<128, 128, 32, 4, 2>;
// w4a16_gemm_t_m128_v3: as v2 with K steps of 64.
using M128V3Tile = Nvfp4Tile<128, 128, 64, 4, 2>;

// The FP8 kernels' activation range: E4M3's largest finite value. A row of A holding a larger
// magnitude (or Inf) comes out NaN rather than silently saturated.
inline constexpr float kFp8ActivationLimit = 448.0f;

}  // namespace gpuops::ops::nvfp4
