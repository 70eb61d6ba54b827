// The FP8 W8A16 family's variants table: every kernel of ops/fp8/cuda with its launch geometry,
// argument list, requirements and accuracy contract, after the metrale seed's launchers (seed
// names in each summary). The launcher, CanImplement, the dispatcher, the host emulations and the
// tests all read it; the tile numbers come from cuda/fp8_tiles.h, which the kernels compile
// against.
//
// Every variant computes C[M,N] = A[M,K] · dequant(W)ᵀ: A and C BF16 rows (contiguous, or at the
// strided variants' row pitches), W E4M3 [N, K] with FP32 128 x 128 block scales (fp8_format.h),
// FP32 accumulation. Grids are (ceil(N / tile_n), 1, 1), one block per column tile and every row,
// except the kernels on TMA (tc_m8, tc_m16, tc_m8_f16, tc_m32, tc_m64 on 16-column tiles; wg_m32,
// wg_m64 on 128-column tiles; wg_m128 on 128 x 128 tiles, any M: max_m 0): persistent
// (GridOrder::kPersistent), blocks_per_sm blocks a multiprocessor walking the tiles; and the
// split wgmma kernels (wg_m32_n64_split2, wg_m64_n64_split2): a cluster of Fp8Extra::cluster
// blocks a 64-column tile; and the stream-K
// kernels (wg_m32_streamk, wg_m64_streamk): min(SMs, tiles x K / 128) blocks sharing the tiles'
// 128-k blocks, with a workspace (Fp8Gemm::WorkspaceBytes).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "ops/family_kit.h"
#include "ops/fp8/cuda/fp8_tiles.h"

namespace gpuops::ops::fp8 {

enum class Variant : uint8_t {
  kM16,
  kM16N64,
  kM16Strided,
  kM16W8,
  kM64,
  kTcM8,
  kTcM16,
  kTcM8Ldg,
  kGemv,
  kGemvStrided,
  kTcM8F16,
  kTcM32,
  kTcM64,
  kWgM32,
  kWgM64,
  kWgM32N64Split2,
  kWgM64N64Split2,
  kWgM32StreamK,
  kWgM64StreamK,
  kWgM128,
  kWgM128StreamK,
  kTcM8LdgW4,
  kTcM16Ldg,
  kTcM16LdgW4,
};

// The argument list a variant's kernel takes (fp8_args.h); one launcher per shape.
enum class ArgShape : uint8_t {
  kContiguous,  // Fp8Args: rows k and n elements apart
  kStrided,     // Fp8StridedArgs: a_row_stride and c_row_stride
  kTma,         // Fp8TmaArgs: the weight as a TMA tensor map, then the strided list
  kWgmma,       // Fp8WgmmaArgs: kTma's list with the activations' tensor map too
  kStreamK,     // Fp8StreamKArgs: kWgmma's list and the stream-K workspace
};

struct Fp8Extra {
  // The kernel stages A in 16-byte pieces (cp.async, or the wgmma kernels' TMA boxes): A 16-byte
  // aligned, a_row_stride % 8 == 0.
  bool stages_a = true;
  // The op runs the kernel once per max_m-row slab of A and C, so any M is served.
  bool row_slabs = false;
  // The most blocks a multiprocessor holds (the kernel's launch bounds): persistent variants' grid
  // is min(tiles, blocks_per_sm x SMs); for the others the dispatcher counts their waves with it.
  uint32_t blocks_per_sm = 1;
  // tc_m8_f16: each warp stages its k range of the activation rows in shared memory, so m rows
  // of k must fit it (TcM8F16Tile::StagesFit).
  bool stages_f16_rows = false;
  // Blocks a cluster (compile-time in the kernel): each tile's K is split over that many blocks,
  // and the grid is ceil(N / tile_n) x cluster.
  uint32_t cluster = 1;
  // The kernel reads nothing but the weight before the previous launch on its stream has
  // finished (griddepcontrol.wait before A, the scales and C, sm_90): given
  // GemmArgs::weight_settled, the op launches it overlapping that launch (programmatic dependent
  // launch).
  bool overlaps_previous = false;
  friend constexpr bool operator==(Fp8Extra, Fp8Extra) = default;
};

using VariantSpec = ops::VariantSpec<Variant, ArgShape, Fp8Extra>;

inline constexpr VariantTable kVariants(
    "fp8",
    std::to_array<VariantSpec>({
        {.variant = Variant::kM16,
         .name = "m16",
         .kernel = "w8a16_gemm_m16",
         .shape = ArgShape::kContiguous,
         .tile_m = M16Tile::kMaxM,
         .tile_n = M16Tile::kN,
         .block = {M16Tile::kThreads, 1, 1},
         .shared_mem_bytes = M16Tile::kSharedBytes,
         .k_multiple = 128,
         .max_m = M16Tile::kMaxM,
         .summary = "[w8a16_gemm_m16] M <= 16, 32 columns a block, 128 threads splitting K; "
                    "mma.sync m16n8k16, the block scale folded per 128-k block in FP32"},
        {.variant = Variant::kM16N64,
         .name = "m16_n64",
         .kernel = "w8a16_gemm_m16_n64",
         .shape = ArgShape::kContiguous,
         .tile_m = M16N64Tile::kMaxM,
         .tile_n = M16N64Tile::kN,
         .block = {M16N64Tile::kThreads, 1, 1},
         .shared_mem_bytes = M16N64Tile::kSharedBytes,
         .k_multiple = 128,
         .max_m = M16N64Tile::kMaxM,
         .summary = "[w8a16_gemm_m16_n64] m16 with 64 columns a block (half the blocks)"},
        {.variant = Variant::kM16Strided,
         .name = "m16_strided",
         .kernel = "w8a16_gemm_m16_strided",
         .shape = ArgShape::kStrided,
         .tile_m = M16Tile::kMaxM,
         .tile_n = M16Tile::kN,
         .block = {M16Tile::kThreads, 1, 1},
         .shared_mem_bytes = M16Tile::kSharedBytes,
         .k_multiple = 128,
         .max_m = M16Tile::kMaxM,
         .summary = "[w8a16_gemm_m16_strided] m16 with A and C row pitches: one launch per "
                    "projection fills its slot of a packed [m, q|k|v] buffer"},
        {.variant = Variant::kM16W8,
         .name = "m16_w8",
         .kernel = "w8a16_gemm_m16_w8",
         .shape = ArgShape::kStrided,
         .tile_m = M16W8Tile::kMaxM,
         .tile_n = M16W8Tile::kN,
         .block = {M16W8Tile::kThreads, 1, 1},
         .shared_mem_bytes = M16W8Tile::kSharedBytes,
         .k_multiple = 128,
         .max_m = M16W8Tile::kMaxM,
         .summary = "m16_strided on 256 threads: twice the loads in flight a block, for N "
                    "that gives each SM one block"},
        {.variant = Variant::kM64,
         .name = "m64",
         .kernel = "w8a16_gemm_m64",
         .shape = ArgShape::kStrided,
         .tile_m = M64Tile::kMaxM,
         .tile_n = M64Tile::kN,
         .block = {M64Tile::kThreads, 1, 1},
         .shared_mem_bytes = M64Tile::kSharedBytes,
         .k_multiple = 128,
         .max_m = M64Tile::kMaxM,
         .summary = "M <= 64 in one launch (64 columns a block, warps split the columns and "
                    "share A); larger M runs once per 64-row slab",
         .extra = {.row_slabs = true}},
        {.variant = Variant::kTcM8,
         .name = "tc_m8",
         .kernel = "w8a16_gemv_tc_m8",
         .shape = ArgShape::kTma,
         .tile_m = TcM8Tile::kMaxM,
         .tile_n = TcM8Tile::kN,
         .block = {TcM8Tile::kThreads, 1, 1},
         .shared_mem_bytes = TcM8Tile::kSharedBytes,
         .order = GridOrder::kPersistent,
         .k_multiple = 128,
         .max_m = TcM8Tile::kMaxM,
         .summary = "M <= 8 (sm_90): weights as the mma's A operand, streamed by TMA through "
                    "a ring per warp; persistent blocks walk 16-row weight tiles, 8 warps "
                    "splitting K",
         .extra = {.blocks_per_sm = TcM8Tile::kBlocksPerSm, .overlaps_previous = true}},
        {.variant = Variant::kTcM16,
         .name = "tc_m16",
         .kernel = "w8a16_gemv_tc_m16",
         .shape = ArgShape::kTma,
         .tile_m = TcM16Tile::kMaxM,
         .tile_n = TcM16Tile::kN,
         .block = {TcM16Tile::kThreads, 1, 1},
         .shared_mem_bytes = TcM16Tile::kSharedBytes,
         .order = GridOrder::kPersistent,
         .k_multiple = 128,
         .max_m = TcM16Tile::kMaxM,
         .summary = "tc_m8 for M <= 16 (two activation tiles)",
         .extra = {.blocks_per_sm = TcM16Tile::kBlocksPerSm, .overlaps_previous = true}},
        {.variant = Variant::kTcM8Ldg,
         .name = "tc_m8_ldg",
         .kernel = "w8a16_gemv_tc_m8_ldg",
         .shape = ArgShape::kStrided,
         .tile_m = TcM8LdgTile::kMaxM,
         .tile_n = TcM8LdgTile::kN,
         .block = {TcM8LdgTile::kThreads, 1, 1},
         .shared_mem_bytes = TcM8LdgTile::kSharedBytes,
         .k_multiple = 128,
         .max_m = TcM8LdgTile::kMaxM,
         .summary = "M <= 8 (any target): tc_m8's math with the weights loaded straight into "
                    "registers, double-buffered, one block a 16-row tile (no TMA)",
         .extra = {.blocks_per_sm = TcM8LdgTile::kBlocksPerSm, .overlaps_previous = true}},
        {.variant = Variant::kGemv,
         .name = "gemv",
         .kernel = "w8a16_gemv_batch16",
         .shape = ArgShape::kContiguous,
         .accuracy = Accuracy::kStrictOrder,
         .tile_m = GemvTile::kMaxM,
         .tile_n = GemvTile::kN,
         .block = {GemvTile::kThreads, 1, 1},
         .k_multiple = 128,
         .max_m = GemvTile::kMaxM,
         .summary = "[w8a16_gemv_batch16] scalar FFMA in k order, one thread a column: "
                    "bit-exact to the CPU reference",
         .extra = {.stages_a = false}},
        {.variant = Variant::kGemvStrided,
         .name = "gemv_strided",
         .kernel = "w8a16_gemv_batch16_strided",
         .shape = ArgShape::kStrided,
         .accuracy = Accuracy::kStrictOrder,
         .tile_m = GemvTile::kMaxM,
         .tile_n = GemvTile::kN,
         .block = {GemvTile::kThreads, 1, 1},
         .k_multiple = 128,
         .max_m = GemvTile::kMaxM,
         .summary = "[w8a16_gemv_batch16_strided] gemv with A and C row pitches",
         .extra = {.stages_a = false}},
        {.variant = Variant::kTcM8F16,
         .name = "tc_m8_f16",
         .kernel = "w8a16_gemv_tc_m8_f16",
         .shape = ArgShape::kTma,
         .tile_m = TcM8F16Tile::kMaxM,
         .tile_n = TcM8F16Tile::kN,
         .block = {TcM8F16Tile::kThreads, 1, 1},
         .shared_mem_bytes = TcM8F16Tile::kTotalSharedBytes,
         .order = GridOrder::kPersistent,
         .k_multiple = 128,
         .max_m = TcM8F16Tile::kMaxM,
         .summary = "tc_m8 with F16 operands: each warp stages its k range of the activation "
                    "rows (M x range <= 2560 elements) scaled by a power of two into F16 "
                    "(exact: the same products and sums), the weights converted with one cvt a "
                    "pair; the BF16 path for a warp whose rows F16 cannot hold",
         .extra = {.blocks_per_sm = TcM8F16Tile::kBlocksPerSm,
                   .stages_f16_rows = true,
                   .overlaps_previous = true}},
        {.variant = Variant::kTcM32,
         .name = "tc_m32",
         .kernel = "w8a16_gemm_tc_m32",
         .shape = ArgShape::kTma,
         .tile_m = TcM32Tile::kMaxM,
         .tile_n = TcM32Tile::kN,
         .block = {TcM32Tile::kThreads, 1, 1},
         .shared_mem_bytes = TcM32Tile::kSharedBytes,
         .order = GridOrder::kPersistent,
         .k_multiple = 128,
         .max_m = TcM32Tile::kMaxM,
         .summary = "tc_m8 for M <= 32 in one launch (four activation tiles share each weight "
                    "fragment's conversion)",
         .extra = {.blocks_per_sm = TcM32Tile::kBlocksPerSm}},
        {.variant = Variant::kTcM64,
         .name = "tc_m64",
         .kernel = "w8a16_gemm_tc_m64",
         .shape = ArgShape::kTma,
         .tile_m = TcM64Tile::kMaxM,
         .tile_n = TcM64Tile::kN,
         .block = {TcM64Tile::kThreads, 1, 1},
         .shared_mem_bytes = TcM64Tile::kSharedBytes,
         .order = GridOrder::kPersistent,
         .k_multiple = 128,
         .max_m = TcM64Tile::kMaxM,
         .summary = "tc_m8 for M <= 64 in one launch (eight activation tiles, one block a "
                    "multiprocessor)",
         .extra = {.blocks_per_sm = TcM64Tile::kBlocksPerSm}},
        {.variant = Variant::kWgM32,
         .name = "wg_m32",
         .kernel = "w8a16_gemm_wg_m32",
         .shape = ArgShape::kWgmma,
         .tile_m = WgM32Tile::kMaxM,
         .tile_n = WgM32Tile::kN,
         .block = {WgM32Tile::kThreads, 1, 1},
         .shared_mem_bytes = WgM32Tile::kSharedBytes,
         .order = GridOrder::kPersistent,
         .k_multiple = 128,
         .max_m = WgM32Tile::kMaxM,
         .summary = "M <= 32 in one launch (sm_90a): C^T = W A^T on wgmma m64n32k16, the "
                    "weights converted into its register A operand, the activations staged in "
                    "shared memory; persistent blocks walk 128-row weight tiles",
         .extra = {.blocks_per_sm = WgM32Tile::kBlocksPerSm}},
        {.variant = Variant::kWgM64,
         .name = "wg_m64",
         .kernel = "w8a16_gemm_wg_m64",
         .shape = ArgShape::kWgmma,
         .tile_m = WgM64Tile::kMaxM,
         .tile_n = WgM64Tile::kN,
         .block = {WgM64Tile::kThreads, 1, 1},
         .shared_mem_bytes = WgM64Tile::kSharedBytes,
         .order = GridOrder::kPersistent,
         .k_multiple = 128,
         .max_m = WgM64Tile::kMaxM,
         .summary = "wg_m32 for M <= 64 (wgmma m64n64k16)",
         .extra = {.blocks_per_sm = WgM64Tile::kBlocksPerSm}},
        {.variant = Variant::kWgM32N64Split2,
         .name = "wg_m32_n64_split2",
         .kernel = "w8a16_gemm_wg_m32_n64_split2",
         .shape = ArgShape::kWgmma,
         .tile_m = WgM32N64Split2Tile::kMaxM,
         .tile_n = WgM32N64Split2Tile::kN,
         .block = {WgM32N64Split2Tile::kThreads, 1, 1},
         .shared_mem_bytes = WgM32N64Split2Tile::kSharedBytes,
         .k_multiple = 128,
         .max_m = WgM32N64Split2Tile::kMaxM,
         .summary = "wg_m32 on 64-row weight tiles (one consumer warpgroup, two blocks an SM) "
                    "with each tile's K split over a cluster of 2 blocks (grid 2 x tiles): rank "
                    "1 writes its FP32 accumulators into rank 0's shared memory, rank 0 adds "
                    "them; for N whose 128-row tiles fill the SMs poorly",
         .extra = {.blocks_per_sm = WgM32N64Split2Tile::kBlocksPerSm,
                   .cluster = WgM32N64Split2Tile::kSplits}},
        {.variant = Variant::kWgM64N64Split2,
         .name = "wg_m64_n64_split2",
         .kernel = "w8a16_gemm_wg_m64_n64_split2",
         .shape = ArgShape::kWgmma,
         .tile_m = WgM64N64Split2Tile::kMaxM,
         .tile_n = WgM64N64Split2Tile::kN,
         .block = {WgM64N64Split2Tile::kThreads, 1, 1},
         .shared_mem_bytes = WgM64N64Split2Tile::kSharedBytes,
         .k_multiple = 128,
         .max_m = WgM64N64Split2Tile::kMaxM,
         .summary = "wg_m32_n64_split2 for M <= 64",
         .extra = {.blocks_per_sm = WgM64N64Split2Tile::kBlocksPerSm,
                   .cluster = WgM64N64Split2Tile::kSplits}},
        {.variant = Variant::kWgM32StreamK,
         .name = "wg_m32_streamk",
         .kernel = "w8a16_gemm_wg_m32_streamk",
         .shape = ArgShape::kStreamK,
         .tile_m = WgM32StreamKTile::kMaxM,
         .tile_n = WgM32StreamKTile::kN,
         .block = {WgM32StreamKTile::kThreads, 1, 1},
         .shared_mem_bytes = WgM32StreamKTile::kSharedBytes,
         .order = GridOrder::kPersistent,
         .k_multiple = 128,
         .max_m = WgM32StreamKTile::kMaxM,
         .summary = "wg_m32's 128-row tiles stream-K: one block an SM, each an equal share of "
                    "all tiles' 128-k blocks (no idle SMs, no part-filled last wave); a tile "
                    "spread over several blocks is finished by the one holding its first k "
                    "block, adding the others' FP32 partials from the workspace in k order",
         .extra = {.blocks_per_sm = WgM32StreamKTile::kBlocksPerSm}},
        {.variant = Variant::kWgM64StreamK,
         .name = "wg_m64_streamk",
         .kernel = "w8a16_gemm_wg_m64_streamk",
         .shape = ArgShape::kStreamK,
         .tile_m = WgM64StreamKTile::kMaxM,
         .tile_n = WgM64StreamKTile::kN,
         .block = {WgM64StreamKTile::kThreads, 1, 1},
         .shared_mem_bytes = WgM64StreamKTile::kSharedBytes,
         .order = GridOrder::kPersistent,
         .k_multiple = 128,
         .max_m = WgM64StreamKTile::kMaxM,
         .summary = "wg_m32_streamk for M <= 64",
         .extra = {.blocks_per_sm = WgM64StreamKTile::kBlocksPerSm}},
        {.variant = Variant::kWgM128,
         .name = "wg_m128",
         .kernel = "w8a16_gemm_wg_m128",
         .shape = ArgShape::kWgmma,
         .tile_m = WgM128Tile::kMaxM,
         .tile_n = WgM128Tile::kN,
         .block = {WgM128Tile::kThreads, 1, 1},
         .shared_mem_bytes = WgM128Tile::kSharedBytes,
         .order = GridOrder::kPersistent,
         .k_multiple = 128,
         .max_m = 0,
         .summary = "any M in one launch (sm_90a): wg_m64's warpgroups on 128 x 128 output "
                    "tiles (wgmma m64n128k16), persistent blocks walking groups of 16 weight "
                    "tiles x every 128-row M tile; for prefill",
         .extra = {.blocks_per_sm = WgM128Tile::kBlocksPerSm}},
        {.variant = Variant::kWgM128StreamK,
         .name = "wg_m128_streamk",
         .kernel = "w8a16_gemm_wg_m128_streamk",
         .shape = ArgShape::kStreamK,
         .tile_m = WgM128StreamKTile::kMaxM,
         .tile_n = WgM128StreamKTile::kN,
         .block = {WgM128StreamKTile::kThreads, 1, 1},
         .shared_mem_bytes = WgM128StreamKTile::kSharedBytes,
         .order = GridOrder::kPersistent,
         .k_multiple = 128,
         .max_m = 0,
         .summary = "wg_m128's tiles stream-K: one block an SM, each an equal share of all "
                    "tiles' 128-k blocks, for problems whose tiles fill the SMs' waves poorly",
         .extra = {.blocks_per_sm = WgM128StreamKTile::kBlocksPerSm}},
        {.variant = Variant::kTcM8LdgW4,
         .name = "tc_m8_ldg_w4",
         .kernel = "w8a16_gemv_tc_m8_ldg_w4",
         .shape = ArgShape::kStrided,
         .tile_m = TcM8LdgW4Tile::kMaxM,
         .tile_n = TcM8LdgW4Tile::kN,
         .block = {TcM8LdgW4Tile::kThreads, 1, 1},
         .shared_mem_bytes = TcM8LdgW4Tile::kSharedBytes,
         .k_multiple = 128,
         .max_m = TcM8LdgW4Tile::kMaxM,
         .summary = "tc_m8_ldg with 4 warps a tile and four blocks an SM: twice its tiles at "
                    "once, for tile counts past one round of tc_m8_ldg's blocks",
         .extra = {.blocks_per_sm = TcM8LdgW4Tile::kBlocksPerSm, .overlaps_previous = true}},
        {.variant = Variant::kTcM16Ldg,
         .name = "tc_m16_ldg",
         .kernel = "w8a16_gemv_tc_m16_ldg",
         .shape = ArgShape::kStrided,
         .tile_m = TcM16LdgTile::kMaxM,
         .tile_n = TcM16LdgTile::kN,
         .block = {TcM16LdgTile::kThreads, 1, 1},
         .shared_mem_bytes = TcM16LdgTile::kSharedBytes,
         .k_multiple = 128,
         .max_m = TcM16LdgTile::kMaxM,
         .summary = "M <= 16 (any target): tc_m8_ldg's body with two activation tiles, "
                    "weights loaded into registers one 128-k block ahead, one block a 16-row tile",
         .extra = {.blocks_per_sm = TcM16LdgTile::kBlocksPerSm, .overlaps_previous = true}},
        {.variant = Variant::kTcM16LdgW4,
         .name = "tc_m16_ldg_w4",
         .kernel = "w8a16_gemv_tc_m16_ldg_w4",
         .shape = ArgShape::kStrided,
         .tile_m = TcM16LdgW4Tile::kMaxM,
         .tile_n = TcM16LdgW4Tile::kN,
         .block = {TcM16LdgW4Tile::kThreads, 1, 1},
         .shared_mem_bytes = TcM16LdgW4Tile::kSharedBytes,
         .k_multiple = 128,
         .max_m = TcM16LdgW4Tile::kMaxM,
         .summary = "tc_m16_ldg with 4 warps a tile and four blocks an SM, for tile counts past "
                    "one round of tc_m16_ldg's blocks",
         .extra = {.blocks_per_sm = TcM16LdgW4Tile::kBlocksPerSm, .overlaps_previous = true}},
    }));
static_assert(kVariants.InOrder(), "row i of kVariants describes variant i");

// The rows of A one launch of `spec` covers for an m-row problem: all of them where the kernel
// walks M tiles (max_m 0), else up to its max_m (the slab variants run once per max_m rows).
constexpr uint32_t LaunchRows(const VariantSpec& spec, uint32_t m) {
  return spec.max_m == 0 || m < spec.max_m ? m : spec.max_m;
}

// The workspace of a stream-K variant's launch over `grid` blocks: its consumer warpgroups (64
// weight rows each) and their FP32 accumulators (half the rows). The launcher and the emulation
// both size it here.
constexpr StreamKWorkspace StreamKLayoutOf(const VariantSpec& spec, uint32_t grid) {
  return {.grid = grid, .consumers = spec.tile_n / 64, .accumulators = spec.tile_m / 2};
}

}  // namespace gpuops::ops::fp8
