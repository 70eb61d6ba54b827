// Tile geometry of the dense kernels: the one place the kernels and the host (variants table,
// launchers, host emulations) take it from. Plain C++ so nvcc, hipcc and the host compiler read
// it.
#pragma once

#include <cstdint>

#if defined(__CUDACC__) || defined(__HIPCC__)
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
  static constexpr uint32_t kReduceBatch = 8;  // partials loaded at once per thread
  static constexpr uint32_t kMaxSplits = 64;
  static constexpr uint32_t kChunkAlign = 8;
};

GPUOPS_HOST_DEVICE constexpr uint32_t SplitKChunk(uint32_t k, uint32_t splits) {
  const uint32_t chunk = (k + splits - 1) / splits;
  return (chunk + SplitKTile::kChunkAlign - 1) / SplitKTile::kChunkAlign * SplitKTile::kChunkAlign;
}

// dense_gemv_bf16_m8 / _m16 (decode, M <= 8 / 16): one block per 16 weight rows, its W warps
// splitting K; each warp issues the 16-byte loads of kUnroll steps of 32 k (weights and
// activations) before the mma.sync m16n8k16 that consume them, with the weights as the A operand
// (16 rows) and the activations as B (8 or 16 columns), K permuted identically in both. Partials
// are summed across warps in shared memory in warp order. Grid (ceil(N/16)), block (32 W): W is
// 8 when every block is then resident at once, 4 otherwise (GemvWarps). The kernels use at most
// 128 registers (launch bounds of kMaxWarps warps, kThreadsPerSm / (32 kMaxWarps) blocks per SM).
// Measured on the H200 (bench/NOTES.md, v6): a second wave of blocks costs more than the smaller
// blocks' extra partials; beyond one wave 4 warps per block are as fast or faster.
struct GemvTile {
  static constexpr uint32_t kRows = 16;
  static constexpr uint32_t kStepK = 32;
  static constexpr uint32_t kUnroll = 8;
  // The _unaligned kernels hold the activations' blocks of one step more than they multiply:
  // fewer steps (6 for M <= 8, 4 for M <= 16, 2 for M <= 32) keep them within 128 registers.
  static constexpr uint32_t kUnalignedUnrollM8 = 6, kUnalignedUnrollM16 = 3;
  static constexpr uint32_t kUnalignedUnrollM32 = 1;
  // The _shifted kernels read the activations as plain 16-byte loads from the shifted copies:
  // 3 steps for M <= 32, 1 for M <= 64 keep them within 128 registers.
  static constexpr uint32_t kShiftedUnrollM32 = 3, kShiftedUnrollM64 = 1;
  // The _unaligned kernels' row classes: rows kRowClasses apart start at the same offset in a
  // 16-byte block (kRowClasses BF16 rows of any ldb are 16 ldb bytes).
  static constexpr uint32_t kRowClasses = 8;
  static constexpr uint32_t kMaxWarps = 8;
  static constexpr uint32_t kMinWarps = 4;
  static constexpr uint32_t kThreadsPerSm = 512;  // resident at <= 128 registers per thread
};

// Warps per block for `row_groups` blocks on `sms` SMs: kMaxWarps when every block is then
// resident at once, kMinWarps otherwise.
GPUOPS_HOST_DEVICE constexpr uint32_t GemvWarps(uint32_t row_groups, uint32_t sms) {
  const uint64_t resident = uint64_t{sms} * (GemvTile::kThreadsPerSm / (32 * GemvTile::kMaxWarps));
  return row_groups <= resident ? GemvTile::kMaxWarps : GemvTile::kMinWarps;
}

// The _unaligned gemv's blocks: groups of kRowClasses x kRows rows, one block per class of each
// group; block b owns rows RowClassFirstRow(b) + kRowClasses i for i < kRows (those below N).
GPUOPS_HOST_DEVICE constexpr uint32_t RowClassBlocks(uint32_t n) {
  constexpr uint64_t kGroup = GemvTile::kRowClasses * GemvTile::kRows;
  return static_cast<uint32_t>((uint64_t{n} + kGroup - 1) / kGroup * GemvTile::kRowClasses);
}
GPUOPS_HOST_DEVICE constexpr uint64_t RowClassFirstRow(uint32_t block) {
  return uint64_t{block} / GemvTile::kRowClasses * (GemvTile::kRowClasses * GemvTile::kRows) +
         block % GemvTile::kRowClasses;
}

// dense_shift_rows_bf16 (the _shifted gemv's activation copies): dst holds kCopies copies of the
// rows x cols source, copy L (0..7) the rows shifted L elements right, zero before element L and
// past the row's end, each row ShiftedRowElems(cols) elements (32-k steps, 16-byte rows), copy L
// row r at (L rows + r) ShiftedRowElems(cols). Block (r, L, j) writes kChunk elements of copy L's
// row r from element j kChunk, kPerThread a thread.
struct ShiftTile {
  static constexpr uint32_t kCopies = GemvTile::kRowClasses;
  static constexpr uint32_t kThreads = 256, kPerThread = 8, kChunk = kThreads * kPerThread;
};
GPUOPS_HOST_DEVICE constexpr uint32_t ShiftedRowElems(uint32_t cols) {
  return static_cast<uint32_t>((uint64_t{cols} + ShiftTile::kCopies - 1 + GemvTile::kStepK - 1) /
                               GemvTile::kStepK * GemvTile::kStepK);
}

// Dynamic shared memory of a gemv block: one 16 x (8 n_tiles) FP32 partial per warp.
GPUOPS_HOST_DEVICE constexpr uint32_t GemvSharedBytes(uint32_t warps, uint32_t n_tiles) {
  return warps * GemvTile::kRows * 8 * n_tiles * 4;
}

// dense_pack_rows_bf16 (the packed variant's copies): one block per row and chunk of kChunk
// elements; a thread's kPieces pieces of 8 elements kThreads pieces apart, all loaded before the
// first is stored (measured on the H200: one piece a thread copied B at 62 % of the DRAM roof).
struct PackTile {
  static constexpr uint32_t kThreads = 256, kPieces = 4, kChunk = kThreads * kPieces * 8;
  // Rows of the packed operands: a multiple of 8 elements (16-byte rows), each operand's copy
  // starting at a multiple of kAlign bytes of the workspace.
  static constexpr uint32_t kRowMultiple = 8, kAlign = 256;
};

// dense_gemm_bf16_wgmma_128x{256,192,128}, _192x{192,128,64} and _64x{128,64} (sm_90a): persistent,
// warp-specialized. One producer warpgroup issues TMA loads (128-byte swizzle) into kStages
// shared-memory stages completing on mbarriers; kConsumers consumer warpgroups (2: 128-row tiles,
// 3: 192-row tiles, 1: 64-row tiles for small M) each compute 64 x kN of the tile with
// wgmma.m64n{kN}k16. Tiles are visited in
// PersistentTileCoords order: block b takes tiles b, b + gridDim.x, ...; grid.x = min(tiles,
// SMs). The split-K kernels walk tiles x splits units the same way, unit u being tile u % tiles
// over split u / tiles's k-blocks.
template <uint32_t kTileN, uint32_t kConsumerGroups = 2>
struct WgmmaTile {
  static constexpr uint32_t kConsumers = kConsumerGroups;
  static constexpr uint32_t kM = 64 * kConsumers, kN = kTileN, kK = 64;
  static constexpr uint32_t kThreads = 128 * (kConsumers + 1);
  // As many stages as fit beside the epilogue for two and three consumers (192 x 64: 6,
  // 192 x 128: 4); 64-row tiles stop at 8 / 10.
  static constexpr uint32_t kStages =
      kConsumers == 1   ? (kTileN == 64 ? 10 : 8)
      : kConsumers == 3 ? (kTileN == 64 ? 6 : 4)
                        : (kTileN == 256 ? 4 : kTileN >= 160 ? 5 : 6);
  // setmaxnreg: the producer drops to kProducerRegisters, the consumers take what the 64 K
  // registers then leave them (a multiple of 8, at most 232).
  static constexpr uint32_t kProducerRegisters = 40;
  static constexpr uint32_t kConsumerShare =
      (65536 / 128 - kProducerRegisters) / kConsumers / 8 * 8;
  static constexpr uint32_t kConsumerRegisters = kConsumerShare < 232 ? kConsumerShare : 232;
  static_assert(128 * (kProducerRegisters + kConsumers * kConsumerRegisters) <= 65536,
                "the warpgroups' setmaxnreg targets fit the register file (else setmaxnreg.inc "
                "waits forever)");
  static constexpr uint32_t kABytes = kM * kK * 2;
  static constexpr uint32_t kBBytes = kN * kK * 2;
  static constexpr uint32_t kStageBytes = kABytes + kBBytes;
  // The epilogue stages each consumer's 64 x kN accumulators through shared memory in
  // 64 x kEpilogueCols pieces, then writes C in 16-byte row segments. Rows are padded so that a
  // row's words start 4 (mod 8) banks after the row before's: the fragment writes (8 rows x 4
  // lanes) are then conflict-free.
  static constexpr uint32_t kEpilogueCols = kTileN % 64 == 0   ? 64
                                            : kTileN % 48 == 0 ? 48   // 96, 144
                                            : kTileN % 80 == 0 ? 80   // 160
                                            : kTileN % 56 == 0 ? 56   // 112
                                                               : 88;  // 176
  static_assert(kTileN % kEpilogueCols == 0, "the epilogue's pieces cover the tile's columns");
  static constexpr uint32_t kEpilogueRowBytes =
      kEpilogueCols * 2 + ((kEpilogueCols / 2 + 4) % 8 == 4 ? 16 : 32);
  static_assert(kEpilogueRowBytes / 4 % 8 == 4, "conflict-free fragment writes");
  static constexpr uint32_t kEpilogueBytes = kConsumers * 64 * kEpilogueRowBytes;
  // Stages, epilogue, 2 mbarriers per stage, and 1024 bytes to align the base for the swizzle.
  static constexpr uint32_t kSharedBytes =
      kStages * kStageBytes + kEpilogueBytes + kStages * 16 + 1024;
  static constexpr uint32_t kGroupM = 8;  // m-blocks per group of the tile order
};

// The wgmma _classes kernels (sm_90a): B read in place at any alignment, by row class. The rows
// n = r (mod 8) of any B lie 16 ldb bytes apart, a stride TMA takes, so class r is a tensor of its
// own, its base rounded down to 16 bytes and each row starting `shift` (0..7) elements into the
// tensor's row (dense_row_class_maps.h). A tile takes kN rows of ONE class, so its B box is an
// ordinary 128-byte-swizzled k-block at an aligned coordinate, and its A box comes from copy
// `shift` of A (dense_shift_rows_bf16: A shifted `shift` elements right, zero around it), so
// each product still pairs equal k. The columns before `shift` of a tile's first k-block hold
// the 16-byte block's bytes before the row; the consumers zero them in shared memory before the
// first wgmma. The n-blocks go class by class (class-major): n-block b is tile b % P of class
// b / P, P = BlocksPerClass, and covers C columns r + 8 (kN t + j). Tiles that run at the same time
// then share one or two classes, so one or two of A's eight copies (8 M K 2 bytes in all) stay in
// L2; with the classes interleaved (b % 8) every wave read all eight, and at M = 512, K = 4095 the
// 128x128 tiles read 2.4x B's bytes from DRAM (ncu, bench/NOTES.md session 31).
struct ClassTiles {
  static constexpr uint32_t kClasses = GemvTile::kRowClasses;
  // A tile's k-blocks: its class's rows span K + shift columns of the class tensor.
  GPUOPS_HOST_DEVICE static constexpr uint32_t KBlocks(uint32_t k, uint32_t shift, uint32_t kk) {
    return static_cast<uint32_t>((uint64_t{k} + shift + kk - 1) / kk);
  }
  // Tiles of one class: ceil(ceil(N / 8) / tile_n).
  GPUOPS_HOST_DEVICE static constexpr uint32_t BlocksPerClass(uint32_t n, uint32_t tile_n) {
    const uint64_t class_rows = (uint64_t{n} + kClasses - 1) / kClasses;
    return static_cast<uint32_t>((class_rows + tile_n - 1) / tile_n);
  }
  // n-blocks: BlocksPerClass tiles for each of the 8 classes.
  GPUOPS_HOST_DEVICE static constexpr uint32_t NBlocks(uint32_t n, uint32_t tile_n) {
    return BlocksPerClass(n, tile_n) * kClasses;
  }
  // The class's shift from the kernel's packed argument (3 bits a class).
  GPUOPS_HOST_DEVICE static constexpr uint32_t ShiftOf(uint32_t shifts, uint32_t cls) {
    return (shifts >> (3 * cls)) & 7u;
  }
  // An n-block's class and its tile within the class (its B box starts at class row kN tile).
  struct Block {
    uint32_t cls;
    uint32_t tile;
  };
  GPUOPS_HOST_DEVICE static constexpr Block BlockOf(uint32_t n_block, uint32_t n, uint32_t tile_n) {
    const uint32_t per_class = BlocksPerClass(n, tile_n);
    return {n_block / per_class, n_block % per_class};
  }
  // C's column of tile column j of `block`.
  GPUOPS_HOST_DEVICE static constexpr uint64_t Column(Block block, uint32_t tile_n, uint32_t j) {
    return block.cls + uint64_t{kClasses} * (uint64_t{block.tile} * tile_n + j);
  }
};

// Rows of the A box a wgmma kernel's tensor map holds and its producer waits for: the tile's rows,
// or all of M when M is smaller. A box reaching past M would be zero-filled by the TMA unit, which
// costs time (H200, bench/NOTES.md session 14: M = 24 on 64-row tiles ran ~2 us slower than
// M = 64 on the same shapes); the tile's stage rows past M then keep stale values, and the
// accumulator rows they feed are never stored.
GPUOPS_HOST_DEVICE constexpr uint32_t ABoxRows(uint32_t tile_m, uint32_t m) {
  return m < tile_m ? m : tile_m;
}

// The first row of A an m-block's tile loads, and of the accumulator rows it computes:
// m_block x tile_m, except that the last m-block of an M that is not a multiple of tile_m (M >=
// tile_m) starts at M - tile_m, so that its A box lies wholly inside A. A box reaching rows past
// M is zero-filled by the TMA unit, slowly: 128x128 at M = 160 ran 1.3-1.5x its time at M = 224,
// the same tile count (bench/NOTES.md session 23). That tile's rows below m_block x tile_m are
// the m-block before's: only it stores them, so every row of C has one writer.
GPUOPS_HOST_DEVICE constexpr uint32_t TileFirstRow(uint32_t m_block, uint32_t tile_m, uint32_t m) {
  const uint32_t row0 = m_block * tile_m;
  return m >= tile_m && m - row0 < tile_m ? m - tile_m : row0;
}

// The (m-block, n-block) of persistent tile `t`: groups of kGroupM m-blocks, within a group
// m-fastest, groups walking all n-blocks, so tiles running together share A rows and B columns
// in L2.
struct TileCoord {
  uint32_t m_block;
  uint32_t n_block;
};
GPUOPS_HOST_DEVICE constexpr TileCoord PersistentTileCoords(uint32_t t, uint32_t num_m,
                                                            uint32_t num_n, uint32_t group_m) {
  const uint32_t per_group = group_m * num_n;
  const uint32_t group = t / per_group;
  const uint32_t first_m = group * group_m;
  const uint32_t rows = (num_m - first_m) < group_m ? (num_m - first_m) : group_m;
  const uint32_t in_group = t % per_group;
  return {first_m + in_group % rows, in_group / rows};
}

// The k-blocks [begin, end) of split `split` of `splits` over `k_blocks` (the split-K wgmma
// kernel's units): balanced, and non-empty whenever splits <= k_blocks.
struct KBlockRange {
  uint32_t begin;
  uint32_t end;
};
GPUOPS_HOST_DEVICE constexpr KBlockRange SplitKBlocks(uint32_t split, uint32_t splits,
                                                      uint32_t k_blocks) {
  return {static_cast<uint32_t>(uint64_t{split} * k_blocks / splits),
          static_cast<uint32_t>(uint64_t{split + 1} * k_blocks / splits)};
}
// The most splits the split-K wgmma launcher chooses (the kernel takes up to ceil(K / 64)).
inline constexpr uint32_t kWgmmaMaxSplits = 16;

// The tail-split wgmma kernels (_tail): a persistent grid of `grid` blocks runs the tiles that
// fill whole waves over all of K (data-parallel, BF16 C), and splits only the tiles of the last,
// part-filled wave: tail = tiles % grid (all tiles when there are fewer than the grid; none when
// splits is 1) tiles of `splits` K-splits each. Unit u < dp_tiles is tile u; unit dp_tiles + v is tile dp_tiles + v %
// tail over split v / tail's k-blocks (SplitKBlocks), writing its FP32 partial to workspace slot
// v (a tile-local kM x kN row-major block); dense_gemm_bf16_tail_reduce sums each tail tile's
// slots in split order into C. So the SMs that a part-filled wave would leave idle share its K.
struct TailTiles {
  uint32_t dp_tiles;    // tiles [0, dp_tiles): whole K, written to C
  uint32_t tail_tiles;  // tiles [dp_tiles, dp_tiles + tail_tiles): split
};
GPUOPS_HOST_DEVICE constexpr TailTiles TailOf(uint32_t tiles, uint32_t grid, uint32_t splits) {
  const uint32_t tail = splits <= 1 ? 0 : tiles < grid ? tiles : tiles % grid;
  return {tiles - tail, tail};
}
// The grid a tail-split launch runs on `sms` SMs: one block an SM, fewer only where the tiles'
// splits do not reach the SMs.
GPUOPS_HOST_DEVICE constexpr uint32_t TailGrid(uint32_t tiles, uint32_t splits, uint32_t sms) {
  if (tiles >= sms) return sms;
  const uint64_t units = uint64_t{tiles} * splits;
  return units < sms ? static_cast<uint32_t>(units) : sms;
}
// The most splits of a tail tile, each of kTailMinKBlocks k-blocks or more (the launcher picks
// the count by the time model: DenseGemm::SplitsFor).
inline constexpr uint32_t kTailMaxSplits = 8;
inline constexpr uint32_t kTailMinKBlocks = 4;
// dense_gemm_bf16_tail_reduce: grid (tail tiles, tile_m / kTailReduceRows), kTailReduceThreads
// threads a block, each summing float4s of kTailReduceRows rows of its tile.
inline constexpr uint32_t kTailReduceRows = 16;
inline constexpr uint32_t kTailReduceThreads = 256;

static_assert(WgmmaTile<256>::kSharedBytes <= 227 * 1024, "fits the opt-in shared memory");
static_assert(WgmmaTile<192>::kSharedBytes <= 227 * 1024, "fits the opt-in shared memory");
static_assert(WgmmaTile<192, 3>::kSharedBytes <= 227 * 1024 &&
                  WgmmaTile<128, 3>::kSharedBytes <= 227 * 1024 &&
                  WgmmaTile<64, 3>::kSharedBytes <= 227 * 1024,
              "fits the opt-in shared memory");
static_assert(WgmmaTile<128>::kSharedBytes <= 227 * 1024, "fits the opt-in shared memory");
static_assert(WgmmaTile<176>::kSharedBytes <= 227 * 1024 &&
                  WgmmaTile<160>::kSharedBytes <= 227 * 1024 &&
                  WgmmaTile<144>::kSharedBytes <= 227 * 1024 &&
                  WgmmaTile<96>::kSharedBytes <= 227 * 1024,
              "fits the opt-in shared memory");
static_assert(WgmmaTile<128, 1>::kSharedBytes <= 227 * 1024, "fits the opt-in shared memory");
static_assert(WgmmaTile<64, 1>::kSharedBytes <= 227 * 1024, "fits the opt-in shared memory");
static_assert(PipelinedTile::kSharedBytes <= 48 * 1024, "pipelined tiles fit static shared memory");
static_assert(TensorCoreTile::kThreads / 32 * 16 == TensorCoreTile::kN, "one warp per 16 columns");

}  // namespace gpuops::ops::dense
