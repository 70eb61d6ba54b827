// Tile geometry of the FP8 W8A16 kernels: the one place the kernels and the host (variants
// table, launchers, host emulations) take it from. Plain C++17 so both nvcc and the host compiler
// read it. Grids are (ceil(N / kN), 1, 1), a block owning kN output columns and every row up to
// kMaxM, except the persistent weight-rows kernels'; a block's columns share one scale row
// (128 % kN == 0).
#pragma once

#include <cstdint>

namespace gpuops::ops::fp8 {

// The decode kernels (M <= 16, one m16 mma tile): the block's kWarps warps split K, warp w taking
// the 128-k blocks w, w + kWarps, ...; each lane stages exactly the bytes it multiplies (16
// weight bytes per n8 tile, 32 bytes of A per row pair) through its warp's own ring of kStages
// 64-k chunks, so no warp waits for another until the FP32 partial sums meet in shared memory
// at the end, added in warp order.
template <uint32_t N, uint32_t Warps, uint32_t Stages>
struct DecodeTile {
  static constexpr uint32_t kMaxM = 16, kN = N, kWarps = Warps, kStages = Stages;
  static constexpr uint32_t kThreads = 32 * Warps;
  static constexpr uint32_t kNTiles = N / 8;  // n8 mma tiles per warp
  static constexpr uint32_t kStageWeightBytes = kNTiles * 32 * 16;
  static constexpr uint32_t kStageABytes = 2 * 32 * 32;  // rows g and g + 8, 32 bytes a lane
  static constexpr uint32_t kStageBytes = kStageWeightBytes + kStageABytes;
  static constexpr uint32_t kRingBytes = Warps * Stages * kStageBytes;
  static constexpr uint32_t kReduceBytes = Warps * kMaxM * N * 4;
  static constexpr uint32_t kSharedBytes = kRingBytes > kReduceBytes ? kRingBytes : kReduceBytes;
  static_assert(N % 8 == 0 && 128 % N == 0, "whole n8 tiles, one scale row per block");
};

// The row-tile kernels (M up to kMaxM in one launch): the warps split the block's columns, 16
// each, and share A, staged once per 64-k chunk for the whole block (rows padded to 144 bytes so
// the lanes' 16-byte reads meet no bank conflict).
template <uint32_t MaxM, uint32_t Warps, uint32_t Stages>
struct RowsTile {
  static constexpr uint32_t kMaxM = MaxM, kWarps = Warps, kStages = Stages;
  static constexpr uint32_t kN = 16 * Warps;
  static constexpr uint32_t kThreads = 32 * Warps;
  static constexpr uint32_t kMTiles = MaxM / 16;
  static constexpr uint32_t kARowBytes = 64 * 2 + 16;
  static constexpr uint32_t kStageABytes = MaxM * kARowBytes;
  static constexpr uint32_t kStageWeightBytes = Warps * 2 * 32 * 16;
  static constexpr uint32_t kStageBytes = kStageABytes + kStageWeightBytes;
  static constexpr uint32_t kSharedBytes = Stages * kStageBytes;
  static_assert(MaxM % 16 == 0 && 128 % kN == 0, "whole m16 tiles, one scale row per block");
};

// w8a16_gemm_m16 and _m16_strided: 32 columns, 4 warps.
using M16Tile = DecodeTile<32, 4, 4>;
// w8a16_gemm_m16_n64: 64 columns, 4 warps.
using M16N64Tile = DecodeTile<64, 4, 3>;
// w8a16_gemm_m16_w8: 32 columns on 8 warps: twice the loads in flight per block, for N too small
// to give every SM several blocks.
using M16W8Tile = DecodeTile<32, 8, 4>;
// w8a16_gemm_m64: up to 64 rows x 64 columns, 4 warps.
using M64Tile = RowsTile<64, 4, 4>;

// The weight-rows kernels (decode, M <= 8 · ActTiles; sm_90): the weights are the mma's A
// operand (16 weight rows a tile, rows g and g + 8 of lane (g, q)), the activations its B operand
// (one n8 tile per 8 rows of A). Persistent blocks, BlocksPerSm a multiprocessor, walk the
// 16-row tiles; each of the kWarps warps takes a range of whole 128-k blocks of every tile and
// streams it through its own ring of kStages TMA stages (16 rows x 128 k, 128-byte swizzle).
// Shared memory: the rings, two buffers of FP32 partials ([warp][16][kMaxM]), the mbarriers.
template <uint32_t ActTiles, uint32_t Warps, uint32_t Stages, uint32_t BlocksPerSm>
struct WeightRowsTile {
  static constexpr uint32_t kActTiles = ActTiles, kWarps = Warps, kStages = Stages;
  static constexpr uint32_t kMaxM = 8 * ActTiles, kN = 16, kThreads = 32 * Warps;
  static constexpr uint32_t kBoxK = 128;  // one 128-k block: one scale, 128-byte rows
  static constexpr uint32_t kStageBytes = kN * kBoxK;
  static constexpr uint32_t kRingBytes = Warps * Stages * kStageBytes;
  static constexpr uint32_t kPartialBytes = 2 * Warps * kN * kMaxM * 4;
  static constexpr uint32_t kSharedBytes = kRingBytes + kPartialBytes + Warps * Stages * 8;
  static constexpr uint32_t kBlocksPerSm = BlocksPerSm;
  static_assert(BlocksPerSm * (kSharedBytes + 1024) <= 228 * 1024, "blocks fit an SM");
};
// w8a16_gemv_tc_m8 / _m16: M <= 8 and M <= 16, 8 warps, 3 blocks a multiprocessor.
using TcM8Tile = WeightRowsTile<1, 8, 4, 3>;
using TcM16Tile = WeightRowsTile<2, 8, 3, 3>;
// w8a16_gemm_tc_m32 / _m64: M = 17..32 and 33..64 in one launch, each weight fragment's
// conversion shared by 4 or 8 activation tiles (ptxas, sm_90a: 123 and 221 registers: 2 blocks
// and 1 block a multiprocessor). Their time grows with M: every 16-row tile reads all M rows
// of A again; 32-row tiles (A read half as often, but one block an SM) measured slower
// (bench/NOTES.md, session 8).
using TcM32Tile = WeightRowsTile<4, 8, 4, 2>;
using TcM64Tile = WeightRowsTile<8, 8, 4, 1>;

// The warpgroup kernels (M up to Rows in one launch; sm_90a): C^T = W · A^T on wgmma, the
// weights its A operand from registers (each consumer warpgroup converts its 64 weight rows of
// the TMA stage, 128 x 128 k, 128-byte swizzle) and the activations its B operand, Rows rows
// staged per 128-k block in the same swizzle (two 64-k halves) by TMA too, in boxes of m rows
// (the stage's rows past m keep stale values, whose accumulator columns are never stored).
// H200, same-run A/B (bench/NOTES.md session 14): TMA boxes of m rows took 0.90-1.03x the time
// of 128 producer threads' cp.asyncs at M = 17..36 (the path these kernels had there before,
// geomean 0.95 over 16 rows); a box of the whole M tile, its rows past m zero-filled by the TMA
// unit, had run up to 12 % slower than the cp.asyncs at M = 33 (session 13).
// A tile's stage ring runs on mbarriers: `full` (the TMA bytes) and `empty` (one arrival a
// consumer warpgroup).
// Splits == 1: persistent blocks walk kN-row weight tiles (one scale row each).
// Splits > 1: a cluster of Splits blocks a tile (grid = tiles x Splits, no persistence), block
// rank r taking the r-th of Splits ranges of whole 128-k blocks; ranks 1.. write their FP32
// accumulators into rank 0's shared memory (kPartialBytes) and rank 0 adds them in rank order.
// Rows == 128 (wg_m128, wg_m128_streamk): any M in one launch; the tiles are (128 weight rows) x
// (128 activation rows), walked in groups of kGroupTiles weight tiles (WgmmaTileAt; stream-K's
// tile u / kblocks is the walk's item).
// StreamK: the grid's blocks share the tiles' 128-k blocks evenly (StreamKUnits below); a tile
// whose k blocks span several blocks is finished by the block holding its first k block, which
// adds the others' FP32 partials from the global workspace (StreamKWorkspace).
// Shared memory: kStages stages, the barriers (full, empty, the partials' one), the partials.
template <uint32_t Rows, uint32_t Stages, uint32_t Splits = 1, uint32_t Consumers = 2,
          bool StreamK = false>
struct WgmmaRowsTile {
  static constexpr uint32_t kMaxM = Rows, kStages = Stages, kSplits = Splits;
  static constexpr bool kStreamK = StreamK;
  static constexpr uint32_t kConsumers = Consumers;  // warpgroups of 64 weight rows
  static constexpr uint32_t kN = 64 * kConsumers, kThreads = 128 * (kConsumers + 1);
  static constexpr uint32_t kBoxK = 128;
  static constexpr uint32_t kWeightBytes = kN * kBoxK;
  static constexpr uint32_t kActHalfBytes = Rows * 128;  // 64 k of every row: one swizzle span
  static constexpr uint32_t kStageBytes = kWeightBytes + 2 * kActHalfBytes;
  static constexpr uint32_t kBarrierBytes = (2 * Stages + 1) * 8;
  static constexpr uint32_t kPartialOffset = (Stages * kStageBytes + kBarrierBytes + 15) / 16 * 16;
  static constexpr uint32_t kAccumulators = Rows / 2;  // FP32 registers a consumer thread
  static constexpr uint32_t kPartialBytes = (Splits - 1) * 128 * kConsumers * kAccumulators * 4;
  static constexpr uint32_t kSharedBytes = kPartialOffset + kPartialBytes;
  // One consumer: two blocks an SM (shared memory and registers allow it).
  static constexpr uint32_t kBlocksPerSm = Consumers == 1 ? 2 : 1;
  // setmaxnreg: a block starts with the registers its launch bounds give every thread (ptxas
  // compiles the entry to that count), and the consumers' increase is served only from what the
  // producer's decrease returns to the block's own pool: 128 x (40 + consumers x registers) <=
  // threads x launch registers. A larger request never returns (the kernel hangs; session 10).
  static constexpr uint32_t kLaunchRegisters = 65536 / (kThreads * kBlocksPerSm) / 8 * 8;
  static constexpr uint32_t kProducerRegisters = 40;
  static constexpr uint32_t kConsumerShare =
      (kThreads * kLaunchRegisters / 128 - kProducerRegisters) / kConsumers / 8 * 8;
  static constexpr uint32_t kConsumerRegisters = kConsumerShare < 232 ? kConsumerShare : 232;
  // Rows == 128 walks M tiles too; the others take m <= Rows (one M tile).
  static constexpr bool kWalksM = Rows == 128;
  static_assert(Rows == 32 || Rows == 64 || Rows == 128, "wgmma n32, n64 or n128");
  static_assert(!kWalksM || Splits == 1, "M tiles on the persistent or stream-K walk");
  static_assert(Splits >= 1 && Splits <= 8, "a portable cluster");
  static_assert(!StreamK || Splits == 1, "stream-K shares k without clusters");
  static_assert(kActHalfBytes % 1024 == 0 && kStageBytes % 1024 == 0, "swizzle atoms aligned");
  static_assert(Consumers == 1 || Consumers == 2, "64 or 128 weight rows a tile");
  static_assert(kBlocksPerSm * (kSharedBytes + 1024) <= 228 * 1024, "the blocks fit an SM");
  static_assert(kLaunchRegisters <= 255 &&
                    128 * (kProducerRegisters + Consumers * kConsumerRegisters) <=
                        kThreads * kLaunchRegisters,
                "setmaxnreg within the block's register pool");
};
// w8a16_gemm_wg_m32 / _m64: M <= 32 and M <= 64, persistent.
using WgM32Tile = WgmmaRowsTile<32, 6>;
using WgM64Tile = WgmmaRowsTile<64, 4>;
// w8a16_gemm_wg_m128: any M, 128 x 128 output tiles (64 + 64 accumulators a consumer thread);
// four 48 KB stages.
using WgM128Tile = WgmmaRowsTile<128, 4>;
// w8a16_gemm_wg_m128_streamk: wg_m128's tiles stream-K (64 KB of FP32 partials a block).
using WgM128StreamKTile = WgmmaRowsTile<128, 4, 1, 2, true>;
// w8a16_gemm_wg_m32_n64_split2 / _m64_n64_split2: 64-row weight tiles (one consumer warpgroup,
// two blocks an SM), each tile's K split over a cluster of 2 blocks: four times the blocks of
// wg_m32 / wg_m64, for N whose 128-row tiles leave SMs idle or fill their last wave poorly.
// (On the H200 the same split on 128-row tiles was as fast or slower at every N measured, and
// clusters of 4 slower still: bench/NOTES.md, session 9.)
using WgM32N64Split2Tile = WgmmaRowsTile<32, 4, 2, 1>;
using WgM64N64Split2Tile = WgmmaRowsTile<64, 4, 2, 1>;
// w8a16_gemm_wg_m32_streamk / _m64_streamk: wg_m32 / wg_m64's 128-row tiles with every SM's block
// taking an equal share of all tiles' k blocks, whatever the number of tiles.
using WgM32StreamKTile = WgmmaRowsTile<32, 6, 1, 2, true>;
using WgM64StreamKTile = WgmmaRowsTile<64, 4, 1, 2, true>;

#if defined(__CUDACC__)
#define GPUOPS_FP8_HD __host__ __device__
#else
#define GPUOPS_FP8_HD
#endif

// Stream-K: `units` = tiles x k blocks, unit u being k block u % kblocks of tile u / kblocks.
// Block b of `grid` (grid <= units, so no range is empty) takes the (grid - 1 - b)-th of grid
// near-equal ranges: a tile that continues past a block's range continues in blocks b - 1,
// b - 2, ..., which start with it. So the block owning a tile's first k block waits only for
// lower-numbered blocks (launched no later than itself), which write their partial of a tile
// they did not start as their first act: no wait can deadlock, whatever runs at once.
struct StreamKRange {
  uint64_t begin = 0, end = 0;  // units [begin, end)
};
GPUOPS_FP8_HD constexpr StreamKRange StreamKUnits(uint32_t block, uint32_t grid, uint64_t units) {
  const uint64_t r = grid - 1 - block;
  return {r * units / grid, (r + 1) * units / grid};
}
// The segment of a range that starts at unit u (< end): k blocks [kb_begin, kb_end) of one tile.
// A block runs its range as consecutive segments; only its first may start past k block 0 (its
// FP32 partial then goes to the workspace for the tile's owner) and only its last may end before
// the tile's last k block (the block then owns the tile: it adds the others' partials).
struct StreamKSegment {
  uint32_t tile = 0, kb_begin = 0, kb_end = 0;
};
GPUOPS_FP8_HD constexpr StreamKSegment StreamKSegmentAt(uint64_t u, uint64_t end,
                                                        uint32_t kblocks) {
  const uint32_t kb = static_cast<uint32_t>(u % kblocks);
  const uint64_t left = end - u, room = kblocks - kb;
  return {static_cast<uint32_t>(u / kblocks), kb,
          kb + static_cast<uint32_t>(left < room ? left : room)};
}
// How many of a tile's k blocks from `kb` on the range of `block` holds (it starts at kb): the
// owner walks blocks b - 1, b - 2, ... adding this until the tile's k blocks are all covered.
GPUOPS_FP8_HD constexpr uint32_t StreamKHeld(uint32_t block, uint32_t grid, uint64_t units,
                                             uint32_t kblocks, uint32_t kb) {
  const StreamKRange r = StreamKUnits(block, grid, units);
  const uint64_t held = r.end - r.begin, room = kblocks - kb;
  return static_cast<uint32_t>(held < room ? held : room);
}

// wg_m128's walk: work item w (0 .. n_tiles x m_tiles - 1) is the output tile (n_tile, m_tile).
// Items come in groups of kGroupTiles weight tiles (fewer in the last group) x every M tile, the
// weight tile fastest within a group: the ~one wave of blocks at work at once then shares a few
// weight tiles and the activation rows of ~132 / 16 M tiles, where N-fast order would read the
// whole weight once per M tile and M-fast order all of A once per weight tile. With one M tile
// the walk is the plain N order (n_tile = w).
struct WgmmaTile {
  uint32_t n_tile = 0, m_tile = 0;
};
inline constexpr uint32_t kGroupTiles = 16;
GPUOPS_FP8_HD constexpr WgmmaTile WgmmaTileAt(uint32_t w, uint32_t n_tiles, uint32_t m_tiles) {
  const uint32_t group = w / (kGroupTiles * m_tiles), within = w % (kGroupTiles * m_tiles);
  const uint32_t first = group * kGroupTiles;
  const uint32_t width = n_tiles - first < kGroupTiles ? n_tiles - first : kGroupTiles;
  return {first + within % width, within / width};
}
// The first activation row the tile's TMA box reads: its M tile's first row, except that a last
// M tile reaching past m starts at m - rows (inside A: a box past m would be zero-filled by the
// TMA unit, which costs it time); the tile then stores only its own M tile's rows, from
// m_tile x rows on (the rows before are the previous tile's: one writer a row).
GPUOPS_FP8_HD constexpr uint32_t WgmmaTileFirstRow(uint32_t m_tile, uint32_t rows, uint32_t m) {
  const uint32_t own = m_tile * rows;
  return m > rows && own + rows > m ? m - rows : own;
}

// The stream-K workspace: a uint32 flag per (block, consumer warpgroup) at the front (zero
// between launches: the writer of a partial sets its flag, the owner that adds it clears it),
// then each (block, consumer)'s FP32 partial, [register][thread] so a warp writes consecutive
// words. The caller zero-fills it once; every launch leaves the flags zero again.
struct StreamKWorkspace {
  uint32_t grid = 0, consumers = 0, accumulators = 0;  // accumulators: FP32 a consumer thread
  GPUOPS_FP8_HD constexpr uint64_t flag_bytes() const {
    return (uint64_t{grid} * consumers * 4 + 255) / 256 * 256;
  }
  GPUOPS_FP8_HD constexpr uint64_t slot_floats() const { return uint64_t{accumulators} * 128; }
  GPUOPS_FP8_HD constexpr uint64_t bytes() const {
    return flag_bytes() + uint64_t{grid} * consumers * slot_floats() * 4;
  }
};

// w8a16_gemv_tc_m8_f16: tc_m8's kernel with F16 operands. Each warp stages its own range of
// k (whole 128-k blocks, as the warps split every tile's K) of every activation row as F16, after
// the rings, partials and barriers: rows x range at most kStagedPerWarp elements (StagesFit);
// two blocks a multiprocessor.
struct TcM8F16Tile : WeightRowsTile<1, 8, 4, 2> {
  static constexpr uint32_t kStagedPerWarp = 2560;  // F16 elements
  static constexpr uint32_t kStagedOffset = (kSharedBytes + 15) / 16 * 16;
  static constexpr uint32_t kTotalSharedBytes = kStagedOffset + kWarps * kStagedPerWarp * 2;
  static_assert(kBlocksPerSm * (kTotalSharedBytes + 1024) <= 228 * 1024, "blocks fit an SM");
  // The F16 elements each warp stages for m rows of k (rows past kMaxM are not the kernel's).
  static GPUOPS_FP8_HD constexpr uint64_t StagedPerWarp(uint32_t m, uint32_t k) {
    return uint64_t{m < kMaxM ? m : kMaxM} * ((k / kBoxK + kWarps - 1) / kWarps) * kBoxK;
  }
  static GPUOPS_FP8_HD constexpr bool StagesFit(uint32_t m, uint32_t k) {
    return StagedPerWarp(m, k) <= kStagedPerWarp;
  }
};

// The weight-rows kernel without TMA (any target; tc_m8_ldg): one block a 16-row tile, lanes load
// 16 consecutive k of their weight rows straight into registers in batches of UnrollBlocks
// 128-k blocks, one batch in flight while the warp multiplies the previous one; the kWarps warps
// split K into ranges of whole 128-k blocks and their FP32 partials meet in shared memory at the
// end, added in warp order.
// BlocksPerSm: the kernel's launch bounds (so at most 65536 / (32 Warps BlocksPerSm) registers a
// thread), which the dispatcher reads as the blocks a multiprocessor holds at once.
template <uint32_t ActTiles, uint32_t Warps, uint32_t UnrollBlocks, uint32_t BlocksPerSm>
struct LdgRowsTile {
  static constexpr uint32_t kActTiles = ActTiles, kWarps = Warps, kUnrollBlocks = UnrollBlocks;
  static constexpr uint32_t kBlocksPerSm = BlocksPerSm;
  static constexpr uint32_t kMaxM = 8 * ActTiles, kN = 16, kThreads = 32 * Warps;
  static constexpr uint32_t kSharedBytes = Warps * 16 * kMaxM * 4;
};
// w8a16_gemv_tc_m8_ldg: M <= 8, 8 warps, batches of two 128-k blocks, two blocks an SM (128
// registers).
using TcM8LdgTile = LdgRowsTile<1, 8, 2, 2>;
// w8a16_gemv_tc_m8_ldg_w4: the same body with 4 warps a tile and four blocks an SM, for tile
// counts past one round of tc_m8_ldg's blocks, where its 8-warp blocks would leave a second,
// part-full round (qkv: 384 tiles, 264 at a time on 132 SMs); here twice as many start at once
// and later rounds come in smaller blocks (bench/NOTES.md session 39).
using TcM8LdgW4Tile = LdgRowsTile<1, 4, 2, 4>;
// w8a16_gemv_tc_m16_ldg / _w4: M <= 16, the same body with two activation tiles, batches of one
// 128-k block (two would spill at 128 registers), at 2 and 4 blocks an SM (114 registers). On an
// H100 (bench/NOTES.md session 41) tc_m16_ldg ties tc_m16 per launch up to 264 tiles and runs
// 1.10-1.27x faster back to back with settled weights; _w4 past 264 tiles mostly loses to tc_m16.
using TcM16LdgTile = LdgRowsTile<2, 8, 1, 2>;
using TcM16LdgW4Tile = LdgRowsTile<2, 4, 1, 4>;

// w8a16_gemv_batch16 (and _strided): one thread per output column, every row up to 16.
struct GemvTile {
  static constexpr uint32_t kMaxM = 16, kN = 128, kThreads = 128;
};

}  // namespace gpuops::ops::fp8
