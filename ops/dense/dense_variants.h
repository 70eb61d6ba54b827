// The dense family's variants table: every kernel of ops/dense/cuda with its launch geometry,
// argument shape, requirements and accuracy contract. Launchers, CanImplement, the dispatcher,
// the host emulations and the tests all read it; the tile numbers come from cuda/dense_tiles.h,
// which the kernels compile against.
//
// Every variant computes C[M,N] = A[M,K] · B[N,K]ᵀ (row-major, BF16 in and out, FP32
// accumulation). Grids are N-fast: grid.x walks N tiles, grid.y walks M tiles.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "gpuops/runtime/types.h"
#include "ops/dense/cuda/dense_tiles.h"

namespace gpuops::ops::dense {

enum class Variant : uint8_t {
  kScalar,
  kRouter,
  kTensorCore,
  kTensorCoreScaledAcc,
  kTensorCoreLdb,
  kPipelined,
  kPipelinedLdb,
  kSplitK,
  kGemvM8,
  kGemvM16,
  kWgmma128x256,
  kWgmma128x128,
  kWgmma128x128SplitK,
};

// The argument list a variant's kernel takes; one launcher per shape.
enum class ArgShape : uint8_t {
  kGemm,           // (a, b, c, m, n, k)
  kGemmLdb,        // (a, b, c, m, n, k, ldb)
  kGemmScaledAcc,  // (a, b, c, m, n, k, scale): c = bf16(fmaf(scale, bf16(A·Bᵀ), c))
  kSplitK,   // partial (a, b, workspace, m, n, k, splits), then reduce (workspace, c, m, n, splits)
  kGemmTma,  // (a_map, b_map, c, m, n, k): A and B through TMA tensor maps (B's map holds ldb)
  kSplitKTma,  // partial (a_map, b_map, workspace, m, n, k, splits), then split-K's reduce
};

// Whether the variant's kernel takes A and B as TMA tensor maps (B's row stride in B's map).
constexpr bool TakesTensorMaps(ArgShape s) {
  return s == ArgShape::kGemmTma || s == ArgShape::kSplitKTma;
}

// How a variant's grid covers the output.
enum class GridOrder : uint8_t {
  kNFast,       // grid (ceil(N / tile_n), ceil(M / tile_m)): blockIdx.x walks N
  kPersistent,  // grid (min(units, SMs)), units = tiles (x splits for split-K): block b takes
                // units b, b + grid.x, ... in PersistentTileCoords order
};

// Accuracy contracts (../shared/docs/numerics.md).
enum class Accuracy : uint8_t {
  kStrictOrder,     // bf16 of the FP32 sum in k order, one rounding per multiply and add
  kTensorCore,      // |out - ref| <= ulp(ref) + 2^-14 Σ|a·b|, relative Frobenius < 8e-3
  kFusedScaledAdd,  // bit-identical to kTensorCore GEMM then common_bf16_scaled_add
};

struct VariantSpec {
  Variant variant;
  std::string_view name;           // short name: "tc", "pipelined_ldb"
  std::string_view kernel;         // kernel symbol
  std::string_view reduce_kernel;  // split-K's second kernel; empty otherwise
  ArgShape shape;
  Accuracy accuracy;
  uint32_t tile_m;
  uint32_t tile_n;
  Dim3 block;
  uint32_t k_multiple;  // K % k_multiple == 0: 8 for 16-byte row loads
  uint32_t n_multiple;  // N % n_multiple == 0: 8 where C rows are stored in aligned pairs
  std::string_view summary;
  uint32_t max_m = 0;             // the most rows of A the kernel covers (0: any)
  uint32_t shared_mem_bytes = 0;  // dynamic shared memory per block
  GridOrder order = GridOrder::kNFast;
  // block.x = 32 GemvWarps(N tiles, SMs) and shared memory GemvSharedBytes instead of `block`
  // (the largest) and shared_mem_bytes.
  bool warps_per_shape = false;
};

inline constexpr auto kVariants = std::to_array<VariantSpec>({
    {Variant::kScalar,
     "scalar",
     "dense_gemm_bf16",
     "",
     ArgShape::kGemm,
     Accuracy::kStrictOrder,
     ScalarTile::kM,
     ScalarTile::kN,
     {ScalarTile::kThreadsX, ScalarTile::kThreadsY, 1},
     1,
     1,
     "one output per thread, strict k order; the reference-grade fallback"},
    {Variant::kRouter,
     "router",
     "dense_gemm_bf16_router",
     "",
     ArgShape::kGemm,
     Accuracy::kStrictOrder,
     RouterTile::kM,
     RouterTile::kN,
     {RouterTile::kThreadsX, RouterTile::kThreadsY, 1},
     8,
     1,
     "register-blocked, scalar's exact k order (bit-identical), no tensor cores"},
    {Variant::kTensorCore,
     "tc",
     "dense_gemm_bf16_tc",
     "",
     ArgShape::kGemm,
     Accuracy::kTensorCore,
     TensorCoreTile::kM,
     TensorCoreTile::kN,
     {TensorCoreTile::kThreads, 1, 1},
     8,
     8,
     "mma.sync m16n8k16, 16 x 64 tile, 128 threads"},
    {Variant::kTensorCoreScaledAcc,
     "tc_scaled_acc",
     "dense_gemm_bf16_tc_scaled_acc",
     "",
     ArgShape::kGemmScaledAcc,
     Accuracy::kFusedScaledAdd,
     TensorCoreTile::kM,
     TensorCoreTile::kN,
     {TensorCoreTile::kThreads, 1, 1},
     8,
     8,
     "c += scale * bf16(A·Bᵀ) fused into the tc kernel"},
    {Variant::kTensorCoreLdb,
     "tc_ldb",
     "dense_gemm_bf16_tc_ldb",
     "",
     ArgShape::kGemmLdb,
     Accuracy::kTensorCore,
     TensorCoreTile::kM,
     TensorCoreTile::kN,
     {TensorCoreTile::kThreads, 1, 1},
     8,
     1,
     "tc with B rows ldb apart; any N (odd vocab)"},
    {Variant::kPipelined,
     "pipelined",
     "dense_gemm_bf16_pipelined",
     "",
     ArgShape::kGemm,
     Accuracy::kTensorCore,
     PipelinedTile::kM,
     PipelinedTile::kN,
     {PipelinedTile::kThreads, 1, 1},
     8,
     8,
     "cp.async 2-stage, 128 x 128 tile, 256 threads, mma.sync"},
    {Variant::kPipelinedLdb,
     "pipelined_ldb",
     "dense_gemm_bf16_pipelined_ldb",
     "",
     ArgShape::kGemmLdb,
     Accuracy::kTensorCore,
     PipelinedTile::kM,
     PipelinedTile::kN,
     {PipelinedTile::kThreads, 1, 1},
     8,
     1,
     "pipelined with B rows ldb apart; any N"},
    {Variant::kSplitK,
     "splitk",
     "dense_gemm_bf16_splitk_partial",
     "dense_gemm_bf16_splitk_reduce",
     ArgShape::kSplitK,
     Accuracy::kTensorCore,
     SplitKTile::kM,
     SplitKTile::kN,
     {SplitKTile::kThreadsX, SplitKTile::kThreadsY, 1},
     1,
     1,
     "FP32 partials per K split into a workspace, reduced in split order"},
    {Variant::kGemvM8,
     "gemv_m8",
     "dense_gemv_bf16_m8",
     "",
     ArgShape::kGemmLdb,
     Accuracy::kTensorCore,
     8,
     GemvTile::kRows,
     {GemvTile::kMaxWarps * 32, 1, 1},
     8,
     1,
     "decode, M <= 8: weights streamed with 16-byte loads, mma.sync, K split across warps",
     8,
     0,
     GridOrder::kNFast,
     true},
    {Variant::kGemvM16,
     "gemv_m16",
     "dense_gemv_bf16_m16",
     "",
     ArgShape::kGemmLdb,
     Accuracy::kTensorCore,
     16,
     GemvTile::kRows,
     {GemvTile::kMaxWarps * 32, 1, 1},
     8,
     1,
     "decode, M <= 16: as gemv_m8 with two n8 tiles of activations",
     16,
     0,
     GridOrder::kNFast,
     true},
    {Variant::kWgmma128x256,
     "wgmma_128x256",
     "dense_gemm_bf16_wgmma_128x256",
     "",
     ArgShape::kGemmTma,
     Accuracy::kTensorCore,
     WgmmaTile<256>::kM,
     WgmmaTile<256>::kN,
     {WgmmaTile<256>::kThreads, 1, 1},
     8,
     1,
     "sm_90a: persistent, TMA + mbarriers, producer + 2 consumer warpgroups, wgmma m64n256k16",
     0,
     WgmmaTile<256>::kSharedBytes,
     GridOrder::kPersistent},
    {Variant::kWgmma128x128,
     "wgmma_128x128",
     "dense_gemm_bf16_wgmma_128x128",
     "",
     ArgShape::kGemmTma,
     Accuracy::kTensorCore,
     WgmmaTile<128>::kM,
     WgmmaTile<128>::kN,
     {WgmmaTile<128>::kThreads, 1, 1},
     8,
     1,
     "sm_90a: as wgmma_128x256 with 128-wide tiles (more tiles for small problems)",
     0,
     WgmmaTile<128>::kSharedBytes,
     GridOrder::kPersistent},
    {Variant::kWgmma128x128SplitK,
     "wgmma_128x128_splitk",
     "dense_gemm_bf16_wgmma_128x128_splitk",
     "dense_gemm_bf16_splitk_reduce",
     ArgShape::kSplitKTma,
     Accuracy::kTensorCore,
     WgmmaTile<128>::kM,
     WgmmaTile<128>::kN,
     {WgmmaTile<128>::kThreads, 1, 1},
     8,
     1,
     "sm_90a: wgmma_128x128 over tiles x K splits (FP32 partials, reduced in split order); "
     "fills the SMs when M x N has few tiles",
     0,
     WgmmaTile<128>::kSharedBytes,
     GridOrder::kPersistent},
});

// The table is indexed by Variant.
consteval bool VariantsInOrder() {
  for (size_t i = 0; i < kVariants.size(); ++i) {
    if (static_cast<size_t>(kVariants[i].variant) != i) return false;
  }
  return true;
}
static_assert(VariantsInOrder(), "kVariants[i].variant == i");

const VariantSpec& Spec(Variant v);
// "tc" -> Variant::kTensorCore; kNotFound listing the names otherwise.
absl::StatusOr<Variant> ParseVariant(std::string_view name);
std::string_view ToString(Accuracy a);

// The tiles of a problem: ceil(M / tile_m) x ceil(N / tile_n).
inline uint64_t TileCount(const VariantSpec& spec, uint32_t m, uint32_t n) {
  return uint64_t{CeilDiv(m, spec.tile_m)} * CeilDiv(n, spec.tile_n);
}

// The N-fast tile grid of a variant: (ceil(N / tile_n), ceil(M / tile_m), z).
inline Dim3 TileGrid(const VariantSpec& spec, uint32_t m, uint32_t n, uint32_t z = 1) {
  return {CeilDiv(n, spec.tile_n), CeilDiv(m, spec.tile_m), z};
}

}  // namespace gpuops::ops::dense
