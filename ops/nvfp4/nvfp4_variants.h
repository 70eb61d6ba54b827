// The NVFP4 family's variants table: every kernel of ops/nvfp4/cuda with its launch geometry,
// argument list, requirements and accuracy contract, after the spark seed's W4A16 launchers (seed
// names in each summary). The launcher, CanImplement, the dispatcher, the host emulations and the
// tests all read it; the tile numbers come from cuda/nvfp4_tiles.h, which the kernels compile
// against.
//
// Every variant computes C[M,N] = A[M,K] · dequant(W)ᵀ: A and C row-major BF16, W NVFP4 in the
// prepared layout (nvfp4_format.h), FP32 accumulation, the global scale applied once in the
// epilogue. Grids are N-fast: grid.x walks N tiles, grid.y walks M tiles.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "ops/family_kit.h"
#include "ops/nvfp4/cuda/nvfp4_tiles.h"

namespace gpuops::ops::nvfp4 {

enum class Variant : uint8_t {
  kBase,
  kDeepK,
  kN128,
  kN128Ldb,
  kM128Fp8,
  kM128Fp8V2,
  kM128Fp8V3,
  kM128Bf16,
  kM128Bf16Ldb,
};

// The argument list a variant's kernel takes (nvfp4_args.h); one launcher per shape.
enum class ArgShape : uint8_t {
  kArgs,  // Nvfp4Args: W's k-rows N apart
  kLdb,   // Nvfp4LdbArgs: W's k-rows ldb apart
};

struct Nvfp4Extra {
  // Whether the variant reads a padded weight (ldb > N, any N). The others need ldb == N and
  // N % 32 == 0, so that every k-row starts 16-byte aligned.
  bool takes_padded = false;
  friend constexpr bool operator==(Nvfp4Extra, Nvfp4Extra) = default;
};

using VariantSpec = ops::VariantSpec<Variant, ArgShape, Nvfp4Extra>;

// The lossless variants (FP4 -> BF16 dequantization, BF16 mma) all accumulate each output over k
// in steps of 16 from k = 0 in one FP32 accumulator: they are bit-identical to each other.
inline constexpr VariantTable kVariants(
    "nvfp4",
    std::to_array<VariantSpec>({
        {.variant = Variant::kBase,
         .name = "base",
         .kernel = "w4a16_gemm",
         .shape = ArgShape::kArgs,
         .tile_m = BaseTile::kM,
         .tile_n = BaseTile::kN,
         .block = {BaseTile::kThreads, 1, 1},
         .k_multiple = 16,
         .n_multiple = 32,
         .summary = "[w4a16_gemm] 64 x 64 tile, 128 threads; FP4 -> BF16, mma.sync m16n8k16"},
        {.variant = Variant::kDeepK,
         .name = "k64",
         .kernel = "w4a16_gemm_t_k64_n64_p3",
         .shape = ArgShape::kArgs,
         .tile_m = DeepKTile::kM,
         .tile_n = DeepKTile::kN,
         .block = {DeepKTile::kThreads, 1, 1},
         .k_multiple = 16,
         .n_multiple = 32,
         .summary = "[w4a16_gemm_t_k64_n64_p3] base's arguments and grid, K steps of 64"},
        {.variant = Variant::kN128,
         .name = "n128",
         .kernel = "w4a16_gemm_n128",
         .shape = ArgShape::kLdb,
         .tile_m = N128Tile::kM,
         .tile_n = N128Tile::kN,
         .block = {N128Tile::kThreads, 1, 1},
         .k_multiple = 16,
         .n_multiple = 32,
         .summary = "[w4a16_gemm_n128] 64 x 128 tile, 128 threads; the _ldb kernel with ldb = N"},
        {.variant = Variant::kN128Ldb,
         .name = "n128_ldb",
         .kernel = "w4a16_gemm_n128",
         .shape = ArgShape::kLdb,
         .tile_m = N128Tile::kM,
         .tile_n = N128Tile::kN,
         .block = {N128Tile::kThreads, 1, 1},
         .k_multiple = 16,
         .summary = "[w4a16_gemm_n128_ldb] n128 over a padded weight (ldb % 32 == 0): any N, "
                    "the odd vocab",
         .extra = {.takes_padded = true}},
        {.variant = Variant::kM128Fp8,
         .name = "m128_fp8",
         .kernel = "w4a16_gemm_t_m128",
         .shape = ArgShape::kArgs,
         .accuracy = Accuracy::kFp8Activations,
         .tile_m = M128Tile::kM,
         .tile_n = M128Tile::kN,
         .block = {M128Tile::kThreads, 1, 1},
         .k_multiple = 16,
         .n_multiple = 32,
         .summary = "[w4a16_gemm_n128_m128] 128 x 128 tile, 128 threads; A rounded to E4M3, "
                    "FP8 mma, each 16-k scale folded in FP32 (sm_89+)"},
        {.variant = Variant::kM128Fp8V2,
         .name = "m128_fp8_v2",
         .kernel = "w4a16_gemm_t_m128_v2",
         .shape = ArgShape::kArgs,
         .accuracy = Accuracy::kFp8Activations,
         .tile_m = M128V2Tile::kM,
         .tile_n = M128V2Tile::kN,
         .block = {M128V2Tile::kThreads, 1, 1},
         .k_multiple = 16,
         .n_multiple = 32,
         .summary = "[w4a16_gemm_n128_m128_v2] m128_fp8 on 256 threads, the two 64-row halves "
                    "on separate warps"},
        {.variant = Variant::kM128Fp8V3,
         .name = "m128_fp8_v3",
         .kernel = "w4a16_gemm_t_m128_v3",
         .shape = ArgShape::kArgs,
         .accuracy = Accuracy::kFp8Activations,
         .tile_m = M128V3Tile::kM,
         .tile_n = M128V3Tile::kN,
         .block = {M128V3Tile::kThreads, 1, 1},
         .k_multiple = 16,
         .n_multiple = 32,
         .summary = "[w4a16_gemm_n128_m128_v3] m128_fp8_v2 with K steps of 64"},
        {.variant = Variant::kM128Bf16,
         .name = "m128_bf16",
         .kernel = "w4a16_gemm_t_m128_bf16",
         .shape = ArgShape::kArgs,
         .tile_m = M128Tile::kM,
         .tile_n = M128Tile::kN,
         .block = {M128Tile::kThreads, 1, 1},
         .k_multiple = 16,
         .n_multiple = 32,
         .summary = "[w4a16_gemm_n128_m128_bf16] lossless: base's math at the 128 x 128 tiling"},
        {.variant = Variant::kM128Bf16Ldb,
         .name = "m128_bf16_ldb",
         .kernel = "w4a16_gemm_t_m128_bf16_ldb",
         .shape = ArgShape::kLdb,
         .tile_m = M128Tile::kM,
         .tile_n = M128Tile::kN,
         .block = {M128Tile::kThreads, 1, 1},
         .k_multiple = 16,
         .summary = "[w4a16_gemm_n128_m128_bf16_ldb] m128_bf16 over a padded weight: any N",
         .extra = {.takes_padded = true}},
    }));
static_assert(kVariants.InOrder(), "row i of kVariants describes variant i");

// Whether the variant is one of the lossless ones (bit-identical to each other).
constexpr bool IsLossless(const VariantSpec& spec) {
  return spec.accuracy == Accuracy::kTensorCore;
}

}  // namespace gpuops::ops::nvfp4
