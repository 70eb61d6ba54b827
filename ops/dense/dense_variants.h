// The dense family's variants table: every kernel of ops/dense/cuda with its launch geometry,
// argument list, requirements and accuracy contract. The launcher, CanImplement, the dispatcher,
// the host emulations and the tests all read it; the tile numbers come from cuda/dense_tiles.h,
// which the kernels compile against.
//
// Every variant computes C[M,N] = A[M,K] · B[N,K]ᵀ (row-major, BF16 in and out, FP32
// accumulation). Grids are N-fast: grid.x walks N tiles, grid.y walks M tiles.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "ops/dense/cuda/dense_tiles.h"
#include "ops/family_kit.h"

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
  kGemvM8Unaligned,
  kGemvM16Unaligned,
  kPacked,
  kWgmma64x128,
  kWgmma64x128SplitK,
  kWgmma64x64,
  kGemvM32Unaligned,
  kWgmma128x256SplitK,
  kWgmma128x192,
  kWgmma192x192,
  kWgmma192x128,
  kWgmma192x64,
  kGemvM32Shifted,
  kGemvM64Shifted,
  kWgmma128x256Tail,
  kWgmma128x192Tail,
  kWgmma128x128Tail,
};

// The argument list a variant's kernel takes (dense_args.h); one launcher per shape.
enum class ArgShape : uint8_t {
  kMnk,        // MnkArgs
  kLdb,        // LdbArgs
  kScaledAcc,  // ScaledAccArgs: c = bf16(fmaf(scale, bf16(A·Bᵀ), c))
  kSplitK,     // SplitKPartialArgs, then the reduce's SplitKReduceArgs
  kTma,        // TmaArgs: A and B through TMA tensor maps (B's map holds ldb)
  kTmaSplitK,  // TmaSplitKArgs, then split-K's reduce
  kPack,       // PackArgs copies into the workspace, then the launches of an aligned variant
  kShiftedA,   // kShiftRowsKernel's PackArgs copies A into the workspace, then LdbArgs with a =
               // those copies
  kTmaTail,    // TmaTailArgs, then kTailReduceKernel's TailReduceArgs
};

// The tail-split variants' second launch: the last wave's FP32 partials summed into C.
inline constexpr std::string_view kTailReduceKernel = "dense_gemm_bf16_tail_reduce";

// The _shifted gemv's first launch: A's rows copied once per row class, each shifted to match
// (ShiftTile), into the workspace.
inline constexpr std::string_view kShiftRowsKernel = "dense_shift_rows_bf16";

// Whether the variant's kernel takes A and B as TMA tensor maps (B's row stride in B's map).
constexpr bool TakesTensorMaps(ArgShape s) {
  return s == ArgShape::kTma || s == ArgShape::kTmaSplitK || s == ArgShape::kTmaTail;
}
// Whether the variant takes B's row stride (ldb) at all: the _ldb, gemv and TMA kernels.
constexpr bool TakesLdb(ArgShape s) {
  return s == ArgShape::kLdb || s == ArgShape::kShiftedA || TakesTensorMaps(s);
}

struct DenseExtra {
  // The gemv kernels: block.x = 32 GemvWarps(N tiles, SMs) and shared memory GemvSharedBytes
  // instead of the row's block (the largest) and shared_mem_bytes.
  bool warps_per_wave = false;
  // Reads A and B at any 2-byte alignment, K and ldb >= K of any value (the 16-byte kernels need
  // 16-byte-aligned operands and K, ldb multiples of 8).
  bool any_alignment = false;
  // The _unaligned gemv: grid (RowClassBlocks(N)), block b owning the rows RowClassFirstRow(b) +
  // 8 i, i < 16 (rows of equal alignment), instead of 16 consecutive rows.
  bool row_classes = false;
  friend constexpr bool operator==(DenseExtra, DenseExtra) = default;
};

using VariantSpec = ops::VariantSpec<Variant, ArgShape, DenseExtra>;

inline constexpr VariantTable kVariants(
    "dense",
    std::to_array<VariantSpec>({
        {.variant = Variant::kScalar,
         .name = "scalar",
         .kernel = "dense_gemm_bf16",
         .shape = ArgShape::kMnk,
         .accuracy = Accuracy::kStrictOrder,
         .tile_m = ScalarTile::kM,
         .tile_n = ScalarTile::kN,
         .block = {ScalarTile::kThreadsX, ScalarTile::kThreadsY, 1},
         .summary = "one output per thread, strict k order; the reference-grade fallback"},
        {.variant = Variant::kRouter,
         .name = "router",
         .kernel = "dense_gemm_bf16_router",
         .shape = ArgShape::kMnk,
         .accuracy = Accuracy::kStrictOrder,
         .tile_m = RouterTile::kM,
         .tile_n = RouterTile::kN,
         .block = {RouterTile::kThreadsX, RouterTile::kThreadsY, 1},
         .k_multiple = 8,
         .summary = "register-blocked, scalar's exact k order (bit-identical), no tensor cores"},
        {.variant = Variant::kTensorCore,
         .name = "tc",
         .kernel = "dense_gemm_bf16_tc",
         .shape = ArgShape::kMnk,
         .tile_m = TensorCoreTile::kM,
         .tile_n = TensorCoreTile::kN,
         .block = {TensorCoreTile::kThreads, 1, 1},
         .k_multiple = 8,
         .n_multiple = 8,
         .summary = "mma.sync m16n8k16, 16 x 64 tile, 128 threads"},
        {.variant = Variant::kTensorCoreScaledAcc,
         .name = "tc_scaled_acc",
         .kernel = "dense_gemm_bf16_tc_scaled_acc",
         .shape = ArgShape::kScaledAcc,
         .accuracy = Accuracy::kBitIdentical,
         .tile_m = TensorCoreTile::kM,
         .tile_n = TensorCoreTile::kN,
         .block = {TensorCoreTile::kThreads, 1, 1},
         .k_multiple = 8,
         .n_multiple = 8,
         .summary = "c += scale * bf16(A·Bᵀ) fused into the tc kernel; bit-identical to tc, then "
                    "common_bf16_scaled_add"},
        {.variant = Variant::kTensorCoreLdb,
         .name = "tc_ldb",
         .kernel = "dense_gemm_bf16_tc_ldb",
         .shape = ArgShape::kLdb,
         .tile_m = TensorCoreTile::kM,
         .tile_n = TensorCoreTile::kN,
         .block = {TensorCoreTile::kThreads, 1, 1},
         .k_multiple = 8,
         .summary = "tc with B rows ldb apart; any N (odd vocab)"},
        {.variant = Variant::kPipelined,
         .name = "pipelined",
         .kernel = "dense_gemm_bf16_pipelined",
         .shape = ArgShape::kMnk,
         .tile_m = PipelinedTile::kM,
         .tile_n = PipelinedTile::kN,
         .block = {PipelinedTile::kThreads, 1, 1},
         .k_multiple = 8,
         .n_multiple = 8,
         .summary = "cp.async 2-stage, 128 x 128 tile, 256 threads, mma.sync"},
        {.variant = Variant::kPipelinedLdb,
         .name = "pipelined_ldb",
         .kernel = "dense_gemm_bf16_pipelined_ldb",
         .shape = ArgShape::kLdb,
         .tile_m = PipelinedTile::kM,
         .tile_n = PipelinedTile::kN,
         .block = {PipelinedTile::kThreads, 1, 1},
         .k_multiple = 8,
         .summary = "pipelined with B rows ldb apart; any N"},
        {.variant = Variant::kSplitK,
         .name = "splitk",
         .kernel = "dense_gemm_bf16_splitk_partial",
         .second_kernel = "dense_gemm_bf16_splitk_reduce",
         .shape = ArgShape::kSplitK,
         .tile_m = SplitKTile::kM,
         .tile_n = SplitKTile::kN,
         .block = {SplitKTile::kThreadsX, SplitKTile::kThreadsY, 1},
         .summary = "FP32 partials per K split into a workspace, reduced in split order"},
        {.variant = Variant::kGemvM8,
         .name = "gemv_m8",
         .kernel = "dense_gemv_bf16_m8",
         .shape = ArgShape::kLdb,
         .tile_m = 8,
         .tile_n = GemvTile::kRows,
         .block = {GemvTile::kMaxWarps * 32, 1, 1},
         .k_multiple = 8,
         .max_m = 8,
         .summary = "decode, M <= 8: weights streamed with 16-byte loads, mma.sync, K split across "
                    "warps",
         .extra = {.warps_per_wave = true}},
        {.variant = Variant::kGemvM16,
         .name = "gemv_m16",
         .kernel = "dense_gemv_bf16_m16",
         .shape = ArgShape::kLdb,
         .tile_m = 16,
         .tile_n = GemvTile::kRows,
         .block = {GemvTile::kMaxWarps * 32, 1, 1},
         .k_multiple = 8,
         .max_m = 16,
         .summary = "decode, M <= 16: as gemv_m8 with two n8 tiles of activations",
         .extra = {.warps_per_wave = true}},
        {.variant = Variant::kWgmma128x256,
         .name = "wgmma_128x256",
         .kernel = "dense_gemm_bf16_wgmma_128x256",
         .shape = ArgShape::kTma,
         .tile_m = WgmmaTile<256>::kM,
         .tile_n = WgmmaTile<256>::kN,
         .block = {WgmmaTile<256>::kThreads, 1, 1},
         .shared_mem_bytes = WgmmaTile<256>::kSharedBytes,
         .order = GridOrder::kPersistent,
         .k_multiple = 8,
         .summary = "sm_90a: persistent, TMA + mbarriers, producer + 2 consumer warpgroups, wgmma "
                    "m64n256k16"},
        {.variant = Variant::kWgmma128x128,
         .name = "wgmma_128x128",
         .kernel = "dense_gemm_bf16_wgmma_128x128",
         .shape = ArgShape::kTma,
         .tile_m = WgmmaTile<128>::kM,
         .tile_n = WgmmaTile<128>::kN,
         .block = {WgmmaTile<128>::kThreads, 1, 1},
         .shared_mem_bytes = WgmmaTile<128>::kSharedBytes,
         .order = GridOrder::kPersistent,
         .k_multiple = 8,
         .summary = "sm_90a: as wgmma_128x256 with 128-wide tiles (more tiles for small problems)"},
        {.variant = Variant::kWgmma128x128SplitK,
         .name = "wgmma_128x128_splitk",
         .kernel = "dense_gemm_bf16_wgmma_128x128_splitk",
         .second_kernel = "dense_gemm_bf16_splitk_reduce",
         .shape = ArgShape::kTmaSplitK,
         .tile_m = WgmmaTile<128>::kM,
         .tile_n = WgmmaTile<128>::kN,
         .block = {WgmmaTile<128>::kThreads, 1, 1},
         .shared_mem_bytes = WgmmaTile<128>::kSharedBytes,
         .order = GridOrder::kPersistent,
         .k_multiple = 8,
         .summary = "sm_90a: wgmma_128x128 over tiles x K splits (FP32 partials, reduced in split "
                    "order); fills the SMs when M x N has few tiles"},
        {.variant = Variant::kGemvM8Unaligned,
         .name = "gemv_m8_unaligned",
         .kernel = "dense_gemv_bf16_m8_unaligned",
         .shape = ArgShape::kLdb,
         .tile_m = 8,
         .tile_n = GemvTile::kRows,
         .block = {GemvTile::kMaxWarps * 32, 1, 1},
         .max_m = 8,
         .summary = "gemv_m8 for any K and ldb and 2-byte-aligned A and B: each block takes 16 "
                    "rows of equal alignment (8 apart) and streams them as aligned 16-byte "
                    "blocks; the activations funnelled to match",
         .extra = {.warps_per_wave = true, .any_alignment = true, .row_classes = true}},
        {.variant = Variant::kGemvM16Unaligned,
         .name = "gemv_m16_unaligned",
         .kernel = "dense_gemv_bf16_m16_unaligned",
         .shape = ArgShape::kLdb,
         .tile_m = 16,
         .tile_n = GemvTile::kRows,
         .block = {GemvTile::kMaxWarps * 32, 1, 1},
         .max_m = 16,
         .summary = "gemv_m16 for any K and ldb and 2-byte-aligned A and B",
         .extra = {.warps_per_wave = true, .any_alignment = true, .row_classes = true}},
        {.variant = Variant::kPacked,
         .name = "packed",
         .kernel = "dense_pack_rows_bf16",
         .shape = ArgShape::kPack,
         .tile_m = 1,
         .tile_n = PackTile::kChunk,
         .block = {PackTile::kThreads, 1, 1},
         .summary = "any K, ldb and 2-byte alignment: A and B copied into 16-byte rows of the "
                    "workspace (K padded to a multiple of 8 with zeros), the dispatcher's aligned "
                    "kernel on the copies, C through the workspace when not 16-byte aligned",
         .extra = {.any_alignment = true}},
        {.variant = Variant::kWgmma64x128,
         .name = "wgmma_64x128",
         .kernel = "dense_gemm_bf16_wgmma_64x128",
         .shape = ArgShape::kTma,
         .tile_m = WgmmaTile<128, 1>::kM,
         .tile_n = WgmmaTile<128, 1>::kN,
         .block = {WgmmaTile<128, 1>::kThreads, 1, 1},
         .shared_mem_bytes = WgmmaTile<128, 1>::kSharedBytes,
         .order = GridOrder::kPersistent,
         .k_multiple = 8,
         .summary = "sm_90a: as wgmma_128x128 with 64-row tiles (one consumer warpgroup): no "
                    "rows computed in vain for M <= 64, more tiles for small problems"},
        {.variant = Variant::kWgmma64x128SplitK,
         .name = "wgmma_64x128_splitk",
         .kernel = "dense_gemm_bf16_wgmma_64x128_splitk",
         .second_kernel = "dense_gemm_bf16_splitk_reduce",
         .shape = ArgShape::kTmaSplitK,
         .tile_m = WgmmaTile<128, 1>::kM,
         .tile_n = WgmmaTile<128, 1>::kN,
         .block = {WgmmaTile<128, 1>::kThreads, 1, 1},
         .shared_mem_bytes = WgmmaTile<128, 1>::kSharedBytes,
         .order = GridOrder::kPersistent,
         .k_multiple = 8,
         .summary = "sm_90a: wgmma_64x128 over tiles x K splits (FP32 partials, reduced in split "
                    "order): M <= 64 on few tiles"},
        {.variant = Variant::kWgmma64x64,
         .name = "wgmma_64x64",
         .kernel = "dense_gemm_bf16_wgmma_64x64",
         .shape = ArgShape::kTma,
         .tile_m = WgmmaTile<64, 1>::kM,
         .tile_n = WgmmaTile<64, 1>::kN,
         .block = {WgmmaTile<64, 1>::kThreads, 1, 1},
         .shared_mem_bytes = WgmmaTile<64, 1>::kSharedBytes,
         .order = GridOrder::kPersistent,
         .k_multiple = 8,
         .summary = "sm_90a: 64 x 64 tiles: twice the tiles of wgmma_64x128 where those leave "
                    "SMs idle"},
        {.variant = Variant::kGemvM32Unaligned,
         .name = "gemv_m32_unaligned",
         .kernel = "dense_gemv_bf16_m32_unaligned",
         .shape = ArgShape::kLdb,
         .tile_m = 32,
         .tile_n = GemvTile::kRows,
         .block = {GemvTile::kMaxWarps * 32, 1, 1},
         .max_m = 32,
         .summary = "gemv_m16_unaligned with four n8 tiles of activations (M <= 32): no copy of "
                    "the weight where packed would make one",
         .extra = {.warps_per_wave = true, .any_alignment = true, .row_classes = true}},
        {.variant = Variant::kWgmma128x256SplitK,
         .name = "wgmma_128x256_splitk",
         .kernel = "dense_gemm_bf16_wgmma_128x256_splitk",
         .second_kernel = "dense_gemm_bf16_splitk_reduce",
         .shape = ArgShape::kTmaSplitK,
         .tile_m = WgmmaTile<256>::kM,
         .tile_n = WgmmaTile<256>::kN,
         .block = {WgmmaTile<256>::kThreads, 1, 1},
         .shared_mem_bytes = WgmmaTile<256>::kSharedBytes,
         .order = GridOrder::kPersistent,
         .k_multiple = 8,
         .summary = "sm_90a: wgmma_128x256 over tiles x K splits (FP32 partials, reduced in split "
                    "order): M > 128 with long K on few tiles"},
        {.variant = Variant::kWgmma128x192,
         .name = "wgmma_128x192",
         .kernel = "dense_gemm_bf16_wgmma_128x192",
         .shape = ArgShape::kTma,
         .tile_m = WgmmaTile<192>::kM,
         .tile_n = WgmmaTile<192>::kN,
         .block = {WgmmaTile<192>::kThreads, 1, 1},
         .shared_mem_bytes = WgmmaTile<192>::kSharedBytes,
         .order = GridOrder::kPersistent,
         .k_multiple = 8,
         .summary = "sm_90a: as wgmma_128x256 with 192-wide tiles (wgmma m64n192k16): three "
                    "quarters of the work a tile, where that fits the SMs' waves better"},
        {.variant = Variant::kWgmma192x192,
         .name = "wgmma_192x192",
         .kernel = "dense_gemm_bf16_wgmma_192x192",
         .shape = ArgShape::kTma,
         .tile_m = WgmmaTile<192, 3>::kM,
         .tile_n = WgmmaTile<192, 3>::kN,
         .block = {WgmmaTile<192, 3>::kThreads, 1, 1},
         .shared_mem_bytes = WgmmaTile<192, 3>::kSharedBytes,
         .order = GridOrder::kPersistent,
         .k_multiple = 8,
         .summary = "sm_90a: 192 x 192 tiles, three consumer warpgroups: M in multiples of 192 "
                    "without 128-row tiles' idle rows"},
        {.variant = Variant::kWgmma192x128,
         .name = "wgmma_192x128",
         .kernel = "dense_gemm_bf16_wgmma_192x128",
         .shape = ArgShape::kTma,
         .tile_m = WgmmaTile<128, 3>::kM,
         .tile_n = WgmmaTile<128, 3>::kN,
         .block = {WgmmaTile<128, 3>::kThreads, 1, 1},
         .shared_mem_bytes = WgmmaTile<128, 3>::kSharedBytes,
         .order = GridOrder::kPersistent,
         .k_multiple = 8,
         .summary = "sm_90a: 192 x 128 tiles, three consumer warpgroups: M = 129..192 in one row of "
                    "tiles where 192-wide tiles leave SMs idle"},
        {.variant = Variant::kWgmma192x64,
         .name = "wgmma_192x64",
         .kernel = "dense_gemm_bf16_wgmma_192x64",
         .shape = ArgShape::kTma,
         .tile_m = WgmmaTile<64, 3>::kM,
         .tile_n = WgmmaTile<64, 3>::kN,
         .block = {WgmmaTile<64, 3>::kThreads, 1, 1},
         .shared_mem_bytes = WgmmaTile<64, 3>::kSharedBytes,
         .order = GridOrder::kPersistent,
         .k_multiple = 8,
         .summary = "sm_90a: 192 x 64 tiles (wgmma m64n64k16), three consumer warpgroups: twice the "
                    "tiles of 192 x 128 for narrow N"},
        {.variant = Variant::kGemvM32Shifted,
         .name = "gemv_m32_shifted",
         .kernel = "dense_gemv_bf16_m32_shifted",
         .shape = ArgShape::kShiftedA,
         .tile_m = 32,
         .tile_n = GemvTile::kRows,
         .block = {GemvTile::kMaxWarps * 32, 1, 1},
         .max_m = 32,
         .summary = "gemv_m32_unaligned with A copied first, once per row class and shifted to "
                    "match (workspace): plain 16-byte activation loads instead of funnels",
         .extra = {.warps_per_wave = true, .any_alignment = true, .row_classes = true}},
        {.variant = Variant::kGemvM64Shifted,
         .name = "gemv_m64_shifted",
         .kernel = "dense_gemv_bf16_m64_shifted",
         .shape = ArgShape::kShiftedA,
         .tile_m = 64,
         .tile_n = GemvTile::kRows,
         .block = {GemvTile::kMaxWarps * 32, 1, 1},
         .max_m = 64,
         .summary = "gemv_m32_shifted with eight n8 tiles of activations (M <= 64): the weights "
                    "read once where packed would copy them",
         .extra = {.warps_per_wave = true, .any_alignment = true, .row_classes = true}},
        {.variant = Variant::kWgmma128x256Tail,
         .name = "wgmma_128x256_tail",
         .kernel = "dense_gemm_bf16_wgmma_128x256_tail",
         .second_kernel = kTailReduceKernel,
         .shape = ArgShape::kTmaTail,
         .tile_m = WgmmaTile<256>::kM,
         .tile_n = WgmmaTile<256>::kN,
         .block = {WgmmaTile<256>::kThreads, 1, 1},
         .shared_mem_bytes = WgmmaTile<256>::kSharedBytes,
         .order = GridOrder::kPersistent,
         .k_multiple = 8,
         .summary = "sm_90a: wgmma_128x256 whose last, part-filled wave is split: the tiles of "
                    "whole waves write C, the rest (tiles % SMs) run as K splits on every SM "
                    "into FP32 partials, summed in split order by a second launch"},
        {.variant = Variant::kWgmma128x192Tail,
         .name = "wgmma_128x192_tail",
         .kernel = "dense_gemm_bf16_wgmma_128x192_tail",
         .second_kernel = kTailReduceKernel,
         .shape = ArgShape::kTmaTail,
         .tile_m = WgmmaTile<192>::kM,
         .tile_n = WgmmaTile<192>::kN,
         .block = {WgmmaTile<192>::kThreads, 1, 1},
         .shared_mem_bytes = WgmmaTile<192>::kSharedBytes,
         .order = GridOrder::kPersistent,
         .k_multiple = 8,
         .summary = "sm_90a: wgmma_128x192 with its last wave split (as wgmma_128x256_tail)"},
        {.variant = Variant::kWgmma128x128Tail,
         .name = "wgmma_128x128_tail",
         .kernel = "dense_gemm_bf16_wgmma_128x128_tail",
         .second_kernel = kTailReduceKernel,
         .shape = ArgShape::kTmaTail,
         .tile_m = WgmmaTile<128>::kM,
         .tile_n = WgmmaTile<128>::kN,
         .block = {WgmmaTile<128>::kThreads, 1, 1},
         .shared_mem_bytes = WgmmaTile<128>::kSharedBytes,
         .order = GridOrder::kPersistent,
         .k_multiple = 8,
         .summary = "sm_90a: wgmma_128x128 with its last wave split (as wgmma_128x256_tail)"},
    }));
static_assert(kVariants.InOrder(), "row i of kVariants describes variant i");

}  // namespace gpuops::ops::dense
