// Tile geometry of the dense kernels: the one place the kernels and the host (variants table,
// launchers, host emulations) take it from. Plain C++ so both nvcc and the host compiler read it.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define GPUOPS_HOST_DEVICE __host__ __device__
#else
#define GPUOPS_HOST_DEVICE
#endif

namespace gpuops::ops::dense {

// C[M,N] = A[M,K] · B[N,K]ᵀ, all row-major. Grids are N-fast: blockIdx.x walks N tiles,
// blockIdx.y walks M tiles (blockIdx.z: K splits where a kernel has them).

// dense_gemm_bf16: one output per thread, strict k order.
struct ScalarTile {
  static constexpr uint32_t kM = 16, kN = 16;
  static constexpr uint32_t kThreadsX = 16, kThreadsY = 16;
};

// dense_gemm_bf16_router: 16 x 64 tile, 16 x 16 threads, 4 outputs per thread (columns tx + 16 j),
// each summed in strict k order exactly as the scalar kernel; K staged through shared memory in
// steps of kK.
struct RouterTile {
  static constexpr uint32_t kM = 16, kN = 64, kK = 32;
  static constexpr uint32_t kThreadsX = 16, kThreadsY = 16;
  static constexpr uint32_t kColsPerThread = kN / kThreadsX;
};

// dense_gemm_bf16_tc (and _scaled_acc, _ldb): mma.sync.m16n8k16, 16 x 64 tile, 4 warps, each warp
// 16 columns (two n8 tiles); K staged in steps of kK.
struct TensorCoreTile {
  static constexpr uint32_t kM = 16, kN = 64, kK = 32;
  static constexpr uint32_t kThreads = 128;
  static constexpr uint32_t kPad = 8;  // shared rows of kK + kPad elements: conflict-free fragments
};

// dense_gemm_bf16_pipelined (and _ldb): 128 x 128 tile, 8 warps as 2 (M) x 4 (N), each warp
// 64 x 32; cp.async double buffering over K steps of kK; ldmatrix fragments.
struct PipelinedTile {
  static constexpr uint32_t kM = 128, kN = 128, kK = 32;
  static constexpr uint32_t kThreads = 256;
  static constexpr uint32_t kWarpsM = 2, kWarpsN = 4;
  static constexpr uint32_t kWarpM = kM / kWarpsM, kWarpN = kN / kWarpsN;
  static constexpr uint32_t kStages = 2;
  static constexpr uint32_t kPad = 8;
  static constexpr uint32_t kRowElems = kK + kPad;
  static constexpr uint32_t kStageElems = (kM + kN) * kRowElems;
  static constexpr uint32_t kSharedBytes = kStages * kStageElems * 2;
};

// dense_gemm_bf16_splitk_partial: one FP32 partial per thread and split, 16 x 16 tiles,
// grid.z = splits; split s sums k in [s * chunk, min(K, (s + 1) * chunk)), chunk = ceil(K / S)
// rounded up to a multiple of 8. dense_gemm_bf16_splitk_reduce: one row per blockIdx.y,
// kThreads columns per block, partials summed in split order 0..S-1.
struct SplitKTile {
  static constexpr uint32_t kM = 16, kN = 16;
  static constexpr uint32_t kThreadsX = 16, kThreadsY = 16;
  static constexpr uint32_t kReduceThreads = 256;
  static constexpr uint32_t kMaxSplits = 64;
  static constexpr uint32_t kChunkAlign = 8;
};

GPUOPS_HOST_DEVICE constexpr uint32_t SplitKChunk(uint32_t k, uint32_t splits) {
  const uint32_t chunk = (k + splits - 1) / splits;
  return (chunk + SplitKTile::kChunkAlign - 1) / SplitKTile::kChunkAlign * SplitKTile::kChunkAlign;
}

static_assert(PipelinedTile::kSharedBytes <= 48 * 1024, "pipelined tiles fit static shared memory");
static_assert(TensorCoreTile::kThreads / 32 * 16 == TensorCoreTile::kN, "one warp per 16 columns");

}  // namespace gpuops::ops::dense
