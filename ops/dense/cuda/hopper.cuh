// Hopper GEMM (sm_90a only): persistent and warp-specialized. Warpgroup 0 produces: one thread
// issues TMA tile loads (128-byte swizzle) into a ring of shared-memory stages, each completing
// on its `full` mbarrier. Warpgroups 1 and 2 (or 1 alone for 64-row tiles) consume: each waits
// for a stage, runs four wgmma.m64nNk16 over its 64 rows of the tile straight from shared memory,
// then releases the stage on its `empty` mbarrier. setmaxnreg moves registers from the producer to
// the consumers, whose accumulators hold 64 x N floats per warpgroup. Edges (M, N, K) load as zeros
// from TMA and are masked in the epilogue, so any M and N work, except that where M is below
// the tile's rows A's box holds M rows only (ABoxRows) and the stage rows past M stay stale
// (their accumulator rows are never stored), and that a last m-block reaching past M loads and
// computes the tile rows ending at M instead (TileFirstRow), storing only its own; B's row stride
// comes from its tensor map. The epilogue
// stages C through shared memory for 16-byte row stores, or writes straight from registers when N %
// 8 != 0 (C rows not 16-byte aligned). The split-K kernel spreads each tile's K over several units
// of work and writes FP32 partials instead; the tail-split kernel does so only for the tiles of
// the last, part-filled wave (TailOf in dense_tiles.h). The ping-pong kernels (Consumers::kPingPong)
// give each consumer warpgroup whole tiles instead, the CTA's tiles in turn, so that one
// warpgroup's epilogue runs while the other's wgmma keep the tensor cores busy.
#pragma once

#include <cuda.h>

#include "dense_device.cuh"
#include "device/tma_kit.cuh"
#include "dense_tiles.h"

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

#include "device/wgmma_kit.cuh"
#include "wgmma_ops.cuh"

namespace dense_device {

using device_kit::MbarArrive;
using device_kit::MbarExpectTx;
using device_kit::MbarInit;
using device_kit::MbarInitFence;
using device_kit::MbarWait;
using device_kit::SmemDescriptor;
using device_kit::TmaLoad2D;
using device_kit::WgmmaCommit;
using device_kit::WgmmaFence;
using device_kit::WgmmaWait;

__device__ __forceinline__ void StorePair(bf16* p, float v0, float v1) {
  *reinterpret_cast<__nv_bfloat162*>(p) = __floats2bfloat162_rn(v0, v1);
}
__device__ __forceinline__ void StorePair(float* p, float v0, float v1) {
  *reinterpret_cast<float2*>(p) = make_float2(v0, v1);
}
__device__ __forceinline__ void StoreOne(bf16* p, float v) { *p = ToBf16(v); }
__device__ __forceinline__ void StoreOne(float* p, float v) { *p = v; }

// Writes a consumer's accumulator fragment (rows row_base (+8), columns col_base + 8j (+1)) into
// the row-major [M, N] `out` (BF16 C or an FP32 split-K partial) straight from registers: column
// pairs where N is even (pairs aligned), single elements otherwise; rows past M and columns past N
// are skipped.
template <uint32_t kTileN, typename Out>
__device__ __forceinline__ void StoreFragment(const float (&acc)[kTileN / 2], Out* __restrict__ out,
                                              uint32_t row_base, uint32_t col_base, uint32_t m,
                                              uint32_t n, uint32_t row_from) {
#pragma unroll
  for (uint32_t h = 0; h < 2; ++h) {
    const uint32_t row = row_base + 8 * h;
    if (row >= m || row < row_from) continue;
    Out* out_row = out + static_cast<size_t>(row) * n;
#pragma unroll
    for (uint32_t j = 0; j < kTileN / 8; ++j) {
      const uint32_t col = col_base + 8 * j;
      const float v0 = acc[4 * j + 2 * h];
      const float v1 = acc[4 * j + 2 * h + 1];
      if (n % 2 == 0 && col + 1 < n) {
        StorePair(out_row + col, v0, v1);
      } else {
        if (col < n) StoreOne(out_row + col, v0);
        if (col + 1 < n) StoreOne(out_row + col + 1, v1);
      }
    }
  }
}

template <uint32_t kTileN>
__device__ __forceinline__ void WgmmaK16(float (&acc)[kTileN / 2], uint64_t desc_a, uint64_t desc_b,
                                         int accumulate) {
  if constexpr (kTileN == 256) {
    WgmmaM64N256K16(acc, desc_a, desc_b, accumulate);
  } else if constexpr (kTileN == 192) {
    WgmmaM64N192K16(acc, desc_a, desc_b, accumulate);
  } else if constexpr (kTileN == 176) {
    WgmmaM64N176K16(acc, desc_a, desc_b, accumulate);
  } else if constexpr (kTileN == 160) {
    WgmmaM64N160K16(acc, desc_a, desc_b, accumulate);
  } else if constexpr (kTileN == 144) {
    WgmmaM64N144K16(acc, desc_a, desc_b, accumulate);
  } else if constexpr (kTileN == 128) {
    WgmmaM64N128K16(acc, desc_a, desc_b, accumulate);
  } else if constexpr (kTileN == 112) {
    WgmmaM64N112K16(acc, desc_a, desc_b, accumulate);
  } else if constexpr (kTileN == 96) {
    WgmmaM64N96K16(acc, desc_a, desc_b, accumulate);
  } else {
    static_assert(kTileN == 64, "wgmma tiles of 64, 96, 112, 128, 144, 160, 176, 192 or 256 columns");
    WgmmaM64N64K16(acc, desc_a, desc_b, accumulate);
  }
}

// How a wgmma kernel's consumer warpgroups share the work.
enum class Consumers {
  // Every tile split by rows: consumer c computes rows [64 c, 64 c + 64) of each tile.
  kCooperative,
  // Two consumers, each computing whole 128-row tiles (two m64 accumulators): consumer c takes
  // the CTA's tiles c, c + 2, ... Their mainloops take turns (an order barrier: one waits for
  // the other's last k-block before its first), so one's epilogue overlaps the other's wgmma.
  // Tiles only (Schedule::kTiles).
  kPingPong,
};

// Named barriers of the wgmma kernels (0 is __syncthreads): a consumer's epilogue barrier is
// kEpilogueBarrier + consumer (128 threads); ping-pong consumer c waits on kOrderBarrier + c
// (256 threads: its own 128 and the other's 128 arriving).
inline constexpr uint32_t kEpilogueBarrier = 2;
inline constexpr uint32_t kOrderBarrier = 6;
// The _classes kernels' consumers (all of them) after zeroing the head of a tile's first B stage.
inline constexpr uint32_t kRowHeadBarrier = 8;

// Writes 64 rows of a consumer's accumulators, C rows [row0, row0 + 64) and columns
// [col0, col0 + kTileN), as BF16 through the consumer's 64-row shared staging buffer, so that C is
// written in coalesced 16-byte row segments (needs N % 8 == 0). Rows past M and columns past N
// are skipped.
template <typename T, uint32_t kTileN>
__device__ __forceinline__ void StoreStaged(const float (&acc)[kTileN / 2], uint8_t* stage_c,
                                            bf16* __restrict__ c, uint32_t row0, uint32_t col0,
                                            uint32_t m, uint32_t n, uint32_t row_from,
                                            uint32_t barrier) {
  const uint32_t thread = threadIdx.x % 128;
  const uint32_t warp = thread / 32;
  const uint32_t lane = thread % 32;
  constexpr uint32_t kBlocksPerPiece = T::kEpilogueCols / 8;
  constexpr uint32_t kChunksPerRow = T::kEpilogueCols / 8;  // 16-byte chunks
#pragma unroll
  for (uint32_t piece = 0; piece < kTileN / T::kEpilogueCols; ++piece) {
#pragma unroll
    for (uint32_t jj = 0; jj < kBlocksPerPiece; ++jj) {
      const uint32_t j = piece * kBlocksPerPiece + jj;
      const uint32_t col = 8 * jj + 2 * (lane % 4);
#pragma unroll
      for (uint32_t h = 0; h < 2; ++h) {
        const uint32_t row = warp * 16 + lane / 4 + 8 * h;
        *reinterpret_cast<__nv_bfloat162*>(stage_c + row * T::kEpilogueRowBytes + col * 2) =
            __floats2bfloat162_rn(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
      }
    }
    asm volatile("bar.sync %0, 128;\n" ::"r"(barrier) : "memory");
    const uint32_t piece_col0 = col0 + piece * T::kEpilogueCols;
#pragma unroll
    for (uint32_t i = thread; i < 64 * kChunksPerRow; i += 128) {
      const uint32_t row = i / kChunksPerRow;
      const uint32_t col = piece_col0 + 8 * (i % kChunksPerRow);
      if (row0 + row >= m || row0 + row < row_from || col >= n) continue;
      const uint8_t* src = stage_c + row * T::kEpilogueRowBytes + (col - piece_col0) * 2;
      bf16* dst = c + static_cast<size_t>(row0 + row) * n + col;
      *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
    }
    asm volatile("bar.sync %0, 128;\n" ::"r"(barrier) : "memory");
  }
}

// Zeroes the first `head` (1..7) BF16 columns of each of the B stage's kN rows, as the consumers
// of a _classes tile's first k-block (all 128 kConsumers threads), then makes the writes visible
// to wgmma (the async proxy) and waits for every consumer. Rows are 128 bytes with the 128-byte
// swizzle: a row's first 16-byte chunk lies at chunk (row % 8) of it.
template <typename T>
__device__ __forceinline__ void ZeroRowHeads(uint8_t* b_stage, uint32_t head) {
  for (uint32_t row = threadIdx.x - 128; row < T::kN; row += 128 * T::kConsumers) {
    uint4* chunk = reinterpret_cast<uint4*>(b_stage + row * 128 + (row % 8) * 16);
    uint4 v = *chunk;
    uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (uint32_t i = 0; i < 4; ++i) {
      // Word i holds columns 2i (low half) and 2i + 1.
      if (2 * i + 1 < head) {
        w[i] = 0;
      } else if (2 * i < head) {
        w[i] &= 0xffff0000u;
      }
    }
    *chunk = make_uint4(w[0], w[1], w[2], w[3]);
  }
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  asm volatile("bar.sync %0, %1;\n" ::"r"(kRowHeadBarrier), "r"(128 * T::kConsumers) : "memory");
}

// StoreFragment for a _classes tile (ClassTiles): tile column j is C column
// ClassTiles::Column(block, kTileN, j), eight apart, so each value is stored alone.
template <uint32_t kTileN>
__device__ __forceinline__ void StoreFragmentByClass(const float (&acc)[kTileN / 2],
                                                     bf16* __restrict__ c, uint32_t row_base,
                                                     uint32_t tile_col,
                                                     gpuops::ops::dense::ClassTiles::Block block,
                                                     uint32_t m, uint32_t n, uint32_t row_from) {
  using gpuops::ops::dense::ClassTiles;
#pragma unroll
  for (uint32_t h = 0; h < 2; ++h) {
    const uint32_t row = row_base + 8 * h;
    if (row >= m || row < row_from) continue;
    bf16* out_row = c + static_cast<size_t>(row) * n;
#pragma unroll
    for (uint32_t j = 0; j < kTileN / 8; ++j) {
#pragma unroll
      for (uint32_t e = 0; e < 2; ++e) {
        const uint64_t col = ClassTiles::Column(block, kTileN, tile_col + 8 * j + e);
        if (col < n) StoreOne(out_row + col, acc[4 * j + 2 * h + e]);
      }
    }
  }
}

// The _classes kernels' B (ClassTiles): one tensor map a row class and the classes' shifts.
struct ClassMaps {
  const CUtensorMap* b[gpuops::ops::dense::ClassTiles::kClasses];
  uint32_t shifts;
};

// The ring of shared-memory stages a consumer walks: each stage's `full` barrier (the producer's
// TMA loads landed) and `empty` barrier (its readers are done), and the consumer's position.
struct StageRing {
  uint64_t* full;
  uint64_t* empty;
  uint32_t stage;
  uint32_t phase;
};

// A consumer's k-blocks [begin, end) of one unit: per k-block it waits for the stage, issues
// kRows batches of four wgmma k16 (acc[r]: A rows [64 (a_row_block + r), + 64) of the stage),
// and releases the stage the batch before read once that batch has completed, so one batch stays
// in flight while the next is issued. Returns the stage of the last k-block, still held (its
// batch may be in flight): the caller waits for it and releases it.
//
// kZeroHeads (the _classes kernels): in the first k-block, the first `head` columns of every B
// row (the bytes before the row in its 16-byte block) are zeroed first (ZeroRowHeads).
template <typename T, uint32_t kTileN, uint32_t kRows, bool kZeroHeads = false>
__device__ __forceinline__ uint32_t ConsumeKBlocks(float (&acc)[kRows][kTileN / 2],
                                                   const uint8_t* a_tiles, uint8_t* b_tiles,
                                                   uint32_t a_row_block, uint32_t begin,
                                                   uint32_t end, StageRing& ring,
                                                   uint32_t head = 0) {
  const bool releaser = threadIdx.x % 128 == 0;
  uint32_t previous = T::kStages;
  for (uint32_t kb = begin; kb < end; ++kb) {
    MbarWait(&ring.full[ring.stage], ring.phase);
    if constexpr (kZeroHeads) {
      if (kb == begin && head != 0) ZeroRowHeads<T>(b_tiles + ring.stage * T::kBBytes, head);
    }
    const uint8_t* a_stage = a_tiles + ring.stage * T::kABytes + a_row_block * 64 * 128;
    const uint8_t* b_stage = b_tiles + ring.stage * T::kBBytes;
    WgmmaFence();
#pragma unroll
    for (uint32_t kk = 0; kk < T::kK / 16; ++kk) {
#pragma unroll
      for (uint32_t r = 0; r < kRows; ++r) {
        WgmmaK16<kTileN>(acc[r], SmemDescriptor(a_stage + r * 64 * 128 + kk * 32),
                         SmemDescriptor(b_stage + kk * 32), kb > begin || kk > 0);
      }
    }
    WgmmaCommit();
    WgmmaWait<1>();
    if (previous != T::kStages && releaser) MbarArrive(&ring.empty[previous]);
    previous = ring.stage;
    if (++ring.stage == T::kStages) {
      ring.stage = 0;
      ring.phase ^= 1;
    }
  }
  return previous;
}

// How a wgmma kernel deals out its work.
enum class Schedule {
  // One unit a tile over all of K, BF16 C (splits == 1).
  kTiles,
  // tiles x splits units: unit u computes tile u % tiles over the k-blocks of split u / tiles
  // and writes its FP32 partial to workspace[split][M][N] (c is unused);
  // dense_gemm_bf16_splitk_reduce then sums the splits in order.
  kSplitK,
  // Whole tiles for the full waves (BF16 C), `splits` units a tile for the tiles of the last
  // wave, each writing a tile-local FP32 partial (TailOf); dense_gemm_bf16_tail_reduce sums them.
  kTail,
};

// The unit a block runs: its tile, k-blocks, and where an FP32 partial goes (slot; none for a
// whole tile).
struct WorkUnit {
  uint32_t tile;
  gpuops::ops::dense::KBlockRange range;
  uint32_t slot;
  bool partial;
};

template <Schedule kSchedule>
__device__ __forceinline__ WorkUnit UnitOf(uint32_t u, uint32_t tiles, uint32_t splits,
                                           uint32_t k_blocks,
                                           gpuops::ops::dense::TailTiles tail) {
  using gpuops::ops::dense::SplitKBlocks;
  if constexpr (kSchedule == Schedule::kSplitK) {
    return {u % tiles, SplitKBlocks(u / tiles, splits, k_blocks), u / tiles, true};
  } else if constexpr (kSchedule == Schedule::kTail) {
    if (u >= tail.dp_tiles) {
      const uint32_t v = u - tail.dp_tiles;
      return {tail.dp_tiles + v % tail.tail_tiles,
              SplitKBlocks(v / tail.tail_tiles, splits, k_blocks), v, true};
    }
  }
  return {u, {0, k_blocks}, 0, false};
}

//
// With `classes` (the _classes kernels, cooperative whole tiles only), n-blocks are ClassTiles:
// B's box comes from the class's map, A's from copy `shift` of A (rows shift M + row of a_map),
// a tile runs KBlocks(K, shift) k-blocks, its first B stage's row heads are zeroed, and C is
// stored by class (StoreFragmentByClass).
template <uint32_t kTileN, uint32_t kConsumers, Schedule kSchedule,
          Consumers kRoles = Consumers::kCooperative, bool kClasses = false>
__device__ __forceinline__ void HopperGemm(const CUtensorMap* a_map, const CUtensorMap* b_map,
                                           bf16* __restrict__ c, float* __restrict__ workspace,
                                           uint32_t m, uint32_t n, uint32_t k, uint32_t splits,
                                           const ClassMaps* classes = nullptr) {
  using T = gpuops::ops::dense::WgmmaTile<kTileN, kConsumers>;
  using gpuops::ops::dense::ClassTiles;
  constexpr bool kPingPong = kRoles == Consumers::kPingPong;
  static_assert(!kPingPong || (kConsumers == 2 && kSchedule == Schedule::kTiles),
                "ping-pong: two consumers over whole tiles");
  static_assert(!kClasses || (!kPingPong && kSchedule == Schedule::kTiles),
                "row classes: cooperative whole tiles");
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem =
      reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
  uint8_t* a_tiles = smem;
  uint8_t* b_tiles = smem + T::kStages * T::kABytes;
  uint8_t* epilogue = smem + T::kStages * T::kStageBytes;
  uint64_t* full = reinterpret_cast<uint64_t*>(epilogue + T::kEpilogueBytes);
  uint64_t* empty = full + T::kStages;

  const uint32_t warpgroup = threadIdx.x / 128;
  const uint32_t thread = threadIdx.x % 128;
  const uint32_t num_m = (m + T::kM - 1) / T::kM;
  const uint32_t num_n = kClasses ? ClassTiles::NBlocks(n, T::kN) : (n + T::kN - 1) / T::kN;
  const uint32_t tiles = num_m * num_n;
  const uint32_t k_blocks = (k + T::kK - 1) / T::kK;
  const gpuops::ops::dense::TailTiles tail =
      kSchedule == Schedule::kTail ? gpuops::ops::dense::TailOf(tiles, gridDim.x, splits)
                                   : gpuops::ops::dense::TailTiles{tiles, 0};
  const uint32_t units = kSchedule == Schedule::kSplitK ? tiles * splits
                         : kSchedule == Schedule::kTail ? tail.dp_tiles + tail.tail_tiles * splits
                                                        : tiles;

  // The reduce that follows waits for this grid in its kernel, so it may launch now
  // (programmatic dependent launch): its launch overlaps this grid instead of following it.
  if constexpr (kSchedule != Schedule::kTiles) {
    device_kit::LetDependentsLaunch();
  }
  if (threadIdx.x == 0) {
    for (uint32_t s = 0; s < T::kStages; ++s) {
      MbarInit(&full[s], 1);
      MbarInit(&empty[s], kPingPong ? 1 : T::kConsumers);  // the stage's readers
    }
    MbarInitFence();
  }
  __syncthreads();

  if (warpgroup == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(T::kProducerRegisters));
    if (thread == 0) {
      uint32_t stage = 0;
      uint32_t phase = 0;
      const uint32_t a_box_bytes = gpuops::ops::dense::ABoxRows(T::kM, m) * T::kK * 2;
      for (uint32_t u = blockIdx.x; u < units; u += gridDim.x) {
        const WorkUnit unit = UnitOf<kSchedule>(u, tiles, splits, k_blocks, tail);
        const auto coord =
            gpuops::ops::dense::PersistentTileCoords(unit.tile, num_m, num_n, T::kGroupM);
        uint32_t a_row = gpuops::ops::dense::TileFirstRow(coord.m_block, T::kM, m);
        uint32_t b_row = coord.n_block * T::kN;
        const CUtensorMap* b_tile_map = b_map;
        uint32_t end = unit.range.end;
        if constexpr (kClasses) {
          const ClassTiles::Block block = ClassTiles::BlockOf(coord.n_block, n, T::kN);
          const uint32_t shift = ClassTiles::ShiftOf(classes->shifts, block.cls);
          a_row += shift * m;
          b_row = block.tile * T::kN;
          b_tile_map = classes->b[block.cls];
          end = ClassTiles::KBlocks(k, shift, T::kK);
        }
        for (uint32_t kb = unit.range.begin; kb < end; ++kb) {
          MbarWait(&empty[stage], phase ^ 1);
          MbarExpectTx(&full[stage], a_box_bytes + T::kBBytes);
          TmaLoad2D(a_tiles + stage * T::kABytes, a_map, &full[stage], kb * T::kK, a_row);
          TmaLoad2D(b_tiles + stage * T::kBBytes, b_tile_map, &full[stage], kb * T::kK, b_row);
          if (++stage == T::kStages) {
            stage = 0;
            phase ^= 1;
          }
        }
      }
    }
    return;
  }

  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(T::kConsumerRegisters));
  const uint32_t consumer = warpgroup - 1;
  const uint32_t warp = thread / 32;
  const uint32_t lane = thread % 32;
  uint8_t* stage_c = epilogue + consumer * 64 * T::kEpilogueRowBytes;
  if constexpr (kPingPong) {
    // acc[h]: rows [64 h, 64 h + 64) of the tile. The producer loads the units in order, each
    // k_blocks stages long, so the consumer's turn-th unit starts at ring position
    // turn * k_blocks.
    float acc[2][kTileN / 2];
    uint32_t turn = consumer;
    for (uint32_t u = blockIdx.x + consumer * gridDim.x; u < units; u += 2 * gridDim.x, turn += 2) {
      const auto coord = gpuops::ops::dense::PersistentTileCoords(u, num_m, num_n, T::kGroupM);
      const uint64_t position = uint64_t{turn} * k_blocks;
      StageRing ring{full, empty, static_cast<uint32_t>(position % T::kStages),
                     static_cast<uint32_t>(position / T::kStages) & 1};
      // Wait until the other consumer has taken its last stage of the unit before: every earlier
      // ring position has then been filled, so the parity waited for below is this round's.
      if (turn > 0) asm volatile("bar.sync %0, 256;\n" ::"r"(kOrderBarrier + consumer) : "memory");
      const uint32_t last = ConsumeKBlocks<T, kTileN, 2>(acc, a_tiles, b_tiles, 0, 0, k_blocks, ring);
      // The other consumer's next unit, if there is one, may start its mainloop.
      if (u + gridDim.x < units) {
        asm volatile("bar.arrive %0, 256;\n" ::"r"(kOrderBarrier + (1 - consumer)) : "memory");
      }
      WgmmaWait<0>();
      if (thread == 0) MbarArrive(&empty[last]);
#pragma unroll
      for (uint32_t h = 0; h < 2; ++h) {
        const uint32_t row0 = gpuops::ops::dense::TileFirstRow(coord.m_block, T::kM, m) + h * 64;
        const uint32_t row_from = coord.m_block * T::kM;
        const uint32_t col0 = coord.n_block * T::kN;
        if (n % 8 != 0) {
          StoreFragment<kTileN>(acc[h], c, row0 + warp * 16 + lane / 4, col0 + 2 * (lane % 4), m,
                                n, row_from);
        } else {
          StoreStaged<T, kTileN>(acc[h], stage_c, c, row0, col0, m, n, row_from,
                                 kEpilogueBarrier + consumer);
        }
      }
    }
    return;
  }
  // Cooperative: rows [64 consumer, 64 consumer + 64) of every tile.
  float rows[1][kTileN / 2];
  float (&acc)[kTileN / 2] = rows[0];
  StageRing ring{full, empty, 0, 0};
  for (uint32_t u = blockIdx.x; u < units; u += gridDim.x) {
    const WorkUnit unit = UnitOf<kSchedule>(u, tiles, splits, k_blocks, tail);
    const auto coord =
        gpuops::ops::dense::PersistentTileCoords(unit.tile, num_m, num_n, T::kGroupM);
    uint32_t end = unit.range.end;
    uint32_t head = 0;
    ClassTiles::Block block{};
    if constexpr (kClasses) {
      block = ClassTiles::BlockOf(coord.n_block, n, T::kN);
      head = ClassTiles::ShiftOf(classes->shifts, block.cls);
      end = ClassTiles::KBlocks(k, head, T::kK);
    }
    const uint32_t last = ConsumeKBlocks<T, kTileN, 1, kClasses>(
        rows, a_tiles, b_tiles, consumer, unit.range.begin, end, ring, head);
    WgmmaWait<0>();
    if (thread == 0) MbarArrive(&empty[last]);
    // Accumulator fragment: warp w holds rows 16w + lane/4 (+8); n8 block j holds columns
    // 8j + 2(lane%4) (+1) in registers 4j .. 4j+3.
    const uint32_t first_row = gpuops::ops::dense::TileFirstRow(coord.m_block, T::kM, m);
    const uint32_t row_from = coord.m_block * T::kM;  // the rows below are the m-block before's
    if constexpr (kClasses) {
      StoreFragmentByClass<kTileN>(acc, c, first_row + consumer * 64 + warp * 16 + lane / 4,
                                   2 * (lane % 4), block, m, n, row_from);
      continue;
    }
    if (unit.partial || n % 8 != 0) {
      const uint32_t tile_row = consumer * 64 + warp * 16 + lane / 4;
      const uint32_t tile_col = 2 * (lane % 4);
      const uint32_t row_base = first_row + tile_row;
      const uint32_t col_base = coord.n_block * T::kN + tile_col;
      if (kSchedule == Schedule::kSplitK) {
        StoreFragment<kTileN>(acc, workspace + static_cast<size_t>(unit.slot) * m * n, row_base,
                              col_base, m, n, row_from);
      } else if (kSchedule == Schedule::kTail && unit.partial) {
        // The whole tile-local block (rows from first_row), rows and columns past M and N
        // included (never read).
        StoreFragment<kTileN>(acc, workspace + static_cast<size_t>(unit.slot) * T::kM * T::kN,
                              tile_row, tile_col, T::kM, T::kN, 0);
      } else {
        StoreFragment<kTileN>(acc, c, row_base, col_base, m, n, row_from);
      }
      continue;
    }
    // Staged: 16-byte row segments of C (N % 8 == 0).
    StoreStaged<T, kTileN>(acc, stage_c, c, first_row + consumer * 64, coord.n_block * T::kN, m,
                           n, row_from, kEpilogueBarrier + consumer);
  }
}

}  // namespace dense_device

using dense_device::Consumers;
using dense_device::Schedule;
using gpuops::ops::dense::WgmmaTile;

// Persistent: grid (min(tiles, SMs)), block 384, dynamic shared memory
// WgmmaTile<256>::kSharedBytes.
extern "C" __global__ void __launch_bounds__(WgmmaTile<256>::kThreads, 1)
    dense_gemm_bf16_wgmma_128x256(const __grid_constant__ CUtensorMap a_map,
                                  const __grid_constant__ CUtensorMap b_map, bf16* __restrict__ c,
                                  uint32_t m, uint32_t n, uint32_t k) {
  dense_device::HopperGemm<256, 2, Schedule::kTiles>(&a_map, &b_map, c, nullptr, m, n, k, 1);
}

// 128 x 192 tiles (grid, block as wgmma_128x256; dynamic shared memory
// WgmmaTile<192>::kSharedBytes): three quarters of a 128 x 256 tile, for tile counts that fill
// the SMs' waves better.
extern "C" __global__ void __launch_bounds__(WgmmaTile<192>::kThreads, 1)
    dense_gemm_bf16_wgmma_128x192(const __grid_constant__ CUtensorMap a_map,
                                  const __grid_constant__ CUtensorMap b_map, bf16* __restrict__ c,
                                  uint32_t m, uint32_t n, uint32_t k) {
  dense_device::HopperGemm<192, 2, Schedule::kTiles>(&a_map, &b_map, c, nullptr, m, n, k, 1);
}

// 192 x 192 tiles: three consumer warpgroups (grid as wgmma_128x256, block 512, dynamic shared
// memory WgmmaTile<192, 3>::kSharedBytes): M a multiple of 192 without the rows 128-row tiles
// compute in vain.
extern "C" __global__ void __launch_bounds__(WgmmaTile<192, 3>::kThreads, 1)
    dense_gemm_bf16_wgmma_192x192(const __grid_constant__ CUtensorMap a_map,
                                  const __grid_constant__ CUtensorMap b_map, bf16* __restrict__ c,
                                  uint32_t m, uint32_t n, uint32_t k) {
  dense_device::HopperGemm<192, 3, Schedule::kTiles>(&a_map, &b_map, c, nullptr, m, n, k, 1);
}

// 192 x 128 and 192 x 64 tiles (three consumer warpgroups, block 512, dynamic shared memory
// WgmmaTile<128, 3> / WgmmaTile<64, 3>::kSharedBytes): M = 129..192 (and its multiples) in one
// row of tiles, where narrower tiles fill the SMs.
extern "C" __global__ void __launch_bounds__(WgmmaTile<128, 3>::kThreads, 1)
    dense_gemm_bf16_wgmma_192x128(const __grid_constant__ CUtensorMap a_map,
                                  const __grid_constant__ CUtensorMap b_map, bf16* __restrict__ c,
                                  uint32_t m, uint32_t n, uint32_t k) {
  dense_device::HopperGemm<128, 3, Schedule::kTiles>(&a_map, &b_map, c, nullptr, m, n, k, 1);
}
extern "C" __global__ void __launch_bounds__(WgmmaTile<64, 3>::kThreads, 1)
    dense_gemm_bf16_wgmma_192x64(const __grid_constant__ CUtensorMap a_map,
                                 const __grid_constant__ CUtensorMap b_map, bf16* __restrict__ c,
                                 uint32_t m, uint32_t n, uint32_t k) {
  dense_device::HopperGemm<64, 3, Schedule::kTiles>(&a_map, &b_map, c, nullptr, m, n, k, 1);
}

// Persistent: grid (min(tiles, SMs)), block 384, dynamic shared memory
// WgmmaTile<128>::kSharedBytes.
extern "C" __global__ void __launch_bounds__(WgmmaTile<128>::kThreads, 1)
    dense_gemm_bf16_wgmma_128x128(const __grid_constant__ CUtensorMap a_map,
                                  const __grid_constant__ CUtensorMap b_map, bf16* __restrict__ c,
                                  uint32_t m, uint32_t n, uint32_t k) {
  dense_device::HopperGemm<128, 2, Schedule::kTiles>(&a_map, &b_map, c, nullptr, m, n, k, 1);
}

// Ping-pong 128 x 128 and 128 x 192 tiles (grid, block and dynamic shared memory as
// wgmma_128x128 / wgmma_128x192; the same results bit for bit): each consumer warpgroup computes
// whole tiles, so one's epilogue hides behind the other's mainloop (short K, many waves).
extern "C" __global__ void __launch_bounds__(WgmmaTile<128>::kThreads, 1)
    dense_gemm_bf16_wgmma_128x128_pingpong(const __grid_constant__ CUtensorMap a_map,
                                           const __grid_constant__ CUtensorMap b_map,
                                           bf16* __restrict__ c, uint32_t m, uint32_t n,
                                           uint32_t k) {
  dense_device::HopperGemm<128, 2, Schedule::kTiles, Consumers::kPingPong>(&a_map, &b_map, c,
                                                                          nullptr, m, n, k, 1);
}
extern "C" __global__ void __launch_bounds__(WgmmaTile<192>::kThreads, 1)
    dense_gemm_bf16_wgmma_128x192_pingpong(const __grid_constant__ CUtensorMap a_map,
                                           const __grid_constant__ CUtensorMap b_map,
                                           bf16* __restrict__ c, uint32_t m, uint32_t n,
                                           uint32_t k) {
  dense_device::HopperGemm<192, 2, Schedule::kTiles, Consumers::kPingPong>(&a_map, &b_map, c,
                                                                          nullptr, m, n, k, 1);
}

// 128-row tiles of 96, 112, 144, 160 and 176 columns, cooperative and ping-pong (grid and block
// as wgmma_128x128; dynamic shared memory WgmmaTile<kTileN>::kSharedBytes): widths between the
// powers of two, so that a weight's rows make whole waves of tiles (9216 rows: 64 tiles of 144
// a row of M, where 128 makes 72 and 192 makes 48; 5120 rows at M = 1024: 256 tiles of 160, 1.94
// waves of 132, where 192 makes 1.64; 3584 rows at M = 768: 126 tiles of 176, where 192 makes
// 114 and 144 makes 150; at M = 512: 128 tiles of 112, where 128 makes 112).
extern "C" __global__ void __launch_bounds__(WgmmaTile<96>::kThreads, 1)
    dense_gemm_bf16_wgmma_128x96(const __grid_constant__ CUtensorMap a_map,
                                  const __grid_constant__ CUtensorMap b_map, bf16* __restrict__ c,
                                  uint32_t m, uint32_t n, uint32_t k) {
  dense_device::HopperGemm<96, 2, Schedule::kTiles>(&a_map, &b_map, c, nullptr, m, n, k, 1);
}
extern "C" __global__ void __launch_bounds__(WgmmaTile<96>::kThreads, 1)
    dense_gemm_bf16_wgmma_128x96_pingpong(const __grid_constant__ CUtensorMap a_map,
                                           const __grid_constant__ CUtensorMap b_map,
                                           bf16* __restrict__ c, uint32_t m, uint32_t n,
                                           uint32_t k) {
  dense_device::HopperGemm<96, 2, Schedule::kTiles, Consumers::kPingPong>(&a_map, &b_map, c,
                                                                          nullptr, m, n, k, 1);
}
extern "C" __global__ void __launch_bounds__(WgmmaTile<112>::kThreads, 1)
    dense_gemm_bf16_wgmma_128x112(const __grid_constant__ CUtensorMap a_map,
                                  const __grid_constant__ CUtensorMap b_map, bf16* __restrict__ c,
                                  uint32_t m, uint32_t n, uint32_t k) {
  dense_device::HopperGemm<112, 2, Schedule::kTiles>(&a_map, &b_map, c, nullptr, m, n, k, 1);
}
extern "C" __global__ void __launch_bounds__(WgmmaTile<112>::kThreads, 1)
    dense_gemm_bf16_wgmma_128x112_pingpong(const __grid_constant__ CUtensorMap a_map,
                                           const __grid_constant__ CUtensorMap b_map,
                                           bf16* __restrict__ c, uint32_t m, uint32_t n,
                                           uint32_t k) {
  dense_device::HopperGemm<112, 2, Schedule::kTiles, Consumers::kPingPong>(&a_map, &b_map, c,
                                                                          nullptr, m, n, k, 1);
}
extern "C" __global__ void __launch_bounds__(WgmmaTile<144>::kThreads, 1)
    dense_gemm_bf16_wgmma_128x144(const __grid_constant__ CUtensorMap a_map,
                                  const __grid_constant__ CUtensorMap b_map, bf16* __restrict__ c,
                                  uint32_t m, uint32_t n, uint32_t k) {
  dense_device::HopperGemm<144, 2, Schedule::kTiles>(&a_map, &b_map, c, nullptr, m, n, k, 1);
}
extern "C" __global__ void __launch_bounds__(WgmmaTile<144>::kThreads, 1)
    dense_gemm_bf16_wgmma_128x144_pingpong(const __grid_constant__ CUtensorMap a_map,
                                           const __grid_constant__ CUtensorMap b_map,
                                           bf16* __restrict__ c, uint32_t m, uint32_t n,
                                           uint32_t k) {
  dense_device::HopperGemm<144, 2, Schedule::kTiles, Consumers::kPingPong>(&a_map, &b_map, c,
                                                                          nullptr, m, n, k, 1);
}
extern "C" __global__ void __launch_bounds__(WgmmaTile<160>::kThreads, 1)
    dense_gemm_bf16_wgmma_128x160(const __grid_constant__ CUtensorMap a_map,
                                  const __grid_constant__ CUtensorMap b_map, bf16* __restrict__ c,
                                  uint32_t m, uint32_t n, uint32_t k) {
  dense_device::HopperGemm<160, 2, Schedule::kTiles>(&a_map, &b_map, c, nullptr, m, n, k, 1);
}
extern "C" __global__ void __launch_bounds__(WgmmaTile<160>::kThreads, 1)
    dense_gemm_bf16_wgmma_128x160_pingpong(const __grid_constant__ CUtensorMap a_map,
                                           const __grid_constant__ CUtensorMap b_map,
                                           bf16* __restrict__ c, uint32_t m, uint32_t n,
                                           uint32_t k) {
  dense_device::HopperGemm<160, 2, Schedule::kTiles, Consumers::kPingPong>(&a_map, &b_map, c,
                                                                          nullptr, m, n, k, 1);
}
extern "C" __global__ void __launch_bounds__(WgmmaTile<176>::kThreads, 1)
    dense_gemm_bf16_wgmma_128x176(const __grid_constant__ CUtensorMap a_map,
                                  const __grid_constant__ CUtensorMap b_map, bf16* __restrict__ c,
                                  uint32_t m, uint32_t n, uint32_t k) {
  dense_device::HopperGemm<176, 2, Schedule::kTiles>(&a_map, &b_map, c, nullptr, m, n, k, 1);
}
extern "C" __global__ void __launch_bounds__(WgmmaTile<176>::kThreads, 1)
    dense_gemm_bf16_wgmma_128x176_pingpong(const __grid_constant__ CUtensorMap a_map,
                                           const __grid_constant__ CUtensorMap b_map,
                                           bf16* __restrict__ c, uint32_t m, uint32_t n,
                                           uint32_t k) {
  dense_device::HopperGemm<176, 2, Schedule::kTiles, Consumers::kPingPong>(&a_map, &b_map, c,
                                                                          nullptr, m, n, k, 1);
}

// Split-K partials: grid (min(tiles x splits, SMs)), block 384, dynamic shared memory
// WgmmaTile<128>::kSharedBytes; 1 <= splits <= ceil(K / 64). Writes workspace[splits][M][N]
// (FP32); dense_gemm_bf16_splitk_reduce sums it into C.
extern "C" __global__ void __launch_bounds__(WgmmaTile<128>::kThreads, 1)
    dense_gemm_bf16_wgmma_128x128_splitk(const __grid_constant__ CUtensorMap a_map,
                                         const __grid_constant__ CUtensorMap b_map,
                                         float* __restrict__ workspace, uint32_t m, uint32_t n,
                                         uint32_t k, uint32_t splits) {
  dense_device::HopperGemm<128, 2, Schedule::kSplitK>(&a_map, &b_map, nullptr, workspace, m, n, k, splits);
}

// Split-K partials over 128 x 256 tiles (as wgmma_128x128_splitk; dynamic shared memory
// WgmmaTile<256>::kSharedBytes): long K on few wide tiles.
extern "C" __global__ void __launch_bounds__(WgmmaTile<256>::kThreads, 1)
    dense_gemm_bf16_wgmma_128x256_splitk(const __grid_constant__ CUtensorMap a_map,
                                         const __grid_constant__ CUtensorMap b_map,
                                         float* __restrict__ workspace, uint32_t m, uint32_t n,
                                         uint32_t k, uint32_t splits) {
  dense_device::HopperGemm<256, 2, Schedule::kSplitK>(&a_map, &b_map, nullptr, workspace, m, n, k, splits);
}

// Split-K partials over 192 x 128 tiles (as wgmma_128x128_splitk; block 512, dynamic shared
// memory WgmmaTile<128, 3>::kSharedBytes): M = 129..192 on long K, where whole 192 x 128 tiles
// fill under half the SMs and 192 x 64 tiles run the narrow wgmma.
extern "C" __global__ void __launch_bounds__(WgmmaTile<128, 3>::kThreads, 1)
    dense_gemm_bf16_wgmma_192x128_splitk(const __grid_constant__ CUtensorMap a_map,
                                         const __grid_constant__ CUtensorMap b_map,
                                         float* __restrict__ workspace, uint32_t m, uint32_t n,
                                         uint32_t k, uint32_t splits) {
  dense_device::HopperGemm<128, 3, Schedule::kSplitK>(&a_map, &b_map, nullptr, workspace, m, n, k,
                                                      splits);
}

// 64-row tiles (one consumer warpgroup) for small M: grid (min(tiles, SMs)), block 256, dynamic
// shared memory WgmmaTile<128, 1>::kSharedBytes.
extern "C" __global__ void __launch_bounds__(WgmmaTile<128, 1>::kThreads, 1)
    dense_gemm_bf16_wgmma_64x128(const __grid_constant__ CUtensorMap a_map,
                                 const __grid_constant__ CUtensorMap b_map, bf16* __restrict__ c,
                                 uint32_t m, uint32_t n, uint32_t k) {
  dense_device::HopperGemm<128, 1, Schedule::kTiles>(&a_map, &b_map, c, nullptr, m, n, k, 1);
}

// 64 x 64 tiles: twice the tiles of 64 x 128 for small problems (grid, block as wgmma_64x128;
// dynamic shared memory WgmmaTile<64, 1>::kSharedBytes).
extern "C" __global__ void __launch_bounds__(WgmmaTile<64, 1>::kThreads, 1)
    dense_gemm_bf16_wgmma_64x64(const __grid_constant__ CUtensorMap a_map,
                                const __grid_constant__ CUtensorMap b_map, bf16* __restrict__ c,
                                uint32_t m, uint32_t n, uint32_t k) {
  dense_device::HopperGemm<64, 1, Schedule::kTiles>(&a_map, &b_map, c, nullptr, m, n, k, 1);
}

// The same over K splits into FP32 partials (as wgmma_128x128_splitk).
extern "C" __global__ void __launch_bounds__(WgmmaTile<128, 1>::kThreads, 1)
    dense_gemm_bf16_wgmma_64x128_splitk(const __grid_constant__ CUtensorMap a_map,
                                        const __grid_constant__ CUtensorMap b_map,
                                        float* __restrict__ workspace, uint32_t m, uint32_t n,
                                        uint32_t k, uint32_t splits) {
  dense_device::HopperGemm<128, 1, Schedule::kSplitK>(&a_map, &b_map, nullptr, workspace, m, n, k, splits);
}

// Tail-split: grid (TailGrid(tiles, splits, SMs)), block 384, dynamic shared memory
// WgmmaTile<N>::kSharedBytes; 1 <= splits <= ceil(K / 64). The tiles of whole waves write C,
// those of the last wave (TailOf) write `splits` FP32 partials each into workspace[slot][kM][kN];
// dense_gemm_bf16_tail_reduce sums them into C. For tile counts a little past a whole wave.
extern "C" __global__ void __launch_bounds__(WgmmaTile<256>::kThreads, 1)
    dense_gemm_bf16_wgmma_128x256_tail(const __grid_constant__ CUtensorMap a_map,
                                       const __grid_constant__ CUtensorMap b_map,
                                       bf16* __restrict__ c, float* __restrict__ workspace,
                                       uint32_t m, uint32_t n, uint32_t k, uint32_t splits) {
  dense_device::HopperGemm<256, 2, Schedule::kTail>(&a_map, &b_map, c, workspace, m, n, k,
                                                    splits);
}
extern "C" __global__ void __launch_bounds__(WgmmaTile<192>::kThreads, 1)
    dense_gemm_bf16_wgmma_128x192_tail(const __grid_constant__ CUtensorMap a_map,
                                       const __grid_constant__ CUtensorMap b_map,
                                       bf16* __restrict__ c, float* __restrict__ workspace,
                                       uint32_t m, uint32_t n, uint32_t k, uint32_t splits) {
  dense_device::HopperGemm<192, 2, Schedule::kTail>(&a_map, &b_map, c, workspace, m, n, k,
                                                    splits);
}
extern "C" __global__ void __launch_bounds__(WgmmaTile<128>::kThreads, 1)
    dense_gemm_bf16_wgmma_128x128_tail(const __grid_constant__ CUtensorMap a_map,
                                       const __grid_constant__ CUtensorMap b_map,
                                       bf16* __restrict__ c, float* __restrict__ workspace,
                                       uint32_t m, uint32_t n, uint32_t k, uint32_t splits) {
  dense_device::HopperGemm<128, 2, Schedule::kTail>(&a_map, &b_map, c, workspace, m, n, k,
                                                    splits);
}

extern "C" __global__ void __launch_bounds__(WgmmaTile<128, 3>::kThreads, 1)
    dense_gemm_bf16_wgmma_192x128_tail(const __grid_constant__ CUtensorMap a_map,
                                       const __grid_constant__ CUtensorMap b_map,
                                       bf16* __restrict__ c, float* __restrict__ workspace,
                                       uint32_t m, uint32_t n, uint32_t k, uint32_t splits) {
  dense_device::HopperGemm<128, 3, Schedule::kTail>(&a_map, &b_map, c, workspace, m, n, k,
                                                    splits);
}

// Row-class tiles for a B at any alignment (ClassTiles): grid (min(tiles, SMs)) over
// ceil(M / tile_m) x ClassTiles::NBlocks(N, tile_n) tiles, block and dynamic shared memory as
// the aligned kernel of the same tile. a_map covers dense_shift_rows_bf16's eight copies of A
// (ShiftedRowElems(K) x 8 M), b_map<r> class r of B (dense_row_class_maps.h), b_shifts the
// classes' shifts (ClassTiles::ShiftOf). C may be 2-byte aligned: it is stored a value at a time.
template <uint32_t kTileN, uint32_t kConsumers>
__device__ __forceinline__ void ClassGemm(
    const CUtensorMap& a_map, const CUtensorMap& b_map0, const CUtensorMap& b_map1,
    const CUtensorMap& b_map2, const CUtensorMap& b_map3, const CUtensorMap& b_map4,
    const CUtensorMap& b_map5, const CUtensorMap& b_map6, const CUtensorMap& b_map7, bf16* c,
    uint32_t m, uint32_t n, uint32_t k, uint32_t b_shifts) {
  const dense_device::ClassMaps classes{
      {&b_map0, &b_map1, &b_map2, &b_map3, &b_map4, &b_map5, &b_map6, &b_map7}, b_shifts};
  dense_device::HopperGemm<kTileN, kConsumers, Schedule::kTiles, Consumers::kCooperative, true>(
      &a_map, &b_map0, c, nullptr, m, n, k, 1, &classes);
}

extern "C" __global__ void __launch_bounds__(WgmmaTile<64, 1>::kThreads, 1)
    dense_gemm_bf16_wgmma_64x64_classes(
        const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map0,
        const __grid_constant__ CUtensorMap b_map1, const __grid_constant__ CUtensorMap b_map2,
        const __grid_constant__ CUtensorMap b_map3, const __grid_constant__ CUtensorMap b_map4,
        const __grid_constant__ CUtensorMap b_map5, const __grid_constant__ CUtensorMap b_map6,
        const __grid_constant__ CUtensorMap b_map7, bf16* __restrict__ c, uint32_t m, uint32_t n,
        uint32_t k, uint32_t b_shifts) {
  ClassGemm<64, 1>(a_map, b_map0, b_map1, b_map2, b_map3, b_map4, b_map5, b_map6, b_map7, c, m, n,
                   k, b_shifts);
}
extern "C" __global__ void __launch_bounds__(WgmmaTile<128, 1>::kThreads, 1)
    dense_gemm_bf16_wgmma_64x128_classes(
        const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map0,
        const __grid_constant__ CUtensorMap b_map1, const __grid_constant__ CUtensorMap b_map2,
        const __grid_constant__ CUtensorMap b_map3, const __grid_constant__ CUtensorMap b_map4,
        const __grid_constant__ CUtensorMap b_map5, const __grid_constant__ CUtensorMap b_map6,
        const __grid_constant__ CUtensorMap b_map7, bf16* __restrict__ c, uint32_t m, uint32_t n,
        uint32_t k, uint32_t b_shifts) {
  ClassGemm<128, 1>(a_map, b_map0, b_map1, b_map2, b_map3, b_map4, b_map5, b_map6, b_map7, c, m,
                    n, k, b_shifts);
}
extern "C" __global__ void __launch_bounds__(WgmmaTile<128>::kThreads, 1)
    dense_gemm_bf16_wgmma_128x128_classes(
        const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map0,
        const __grid_constant__ CUtensorMap b_map1, const __grid_constant__ CUtensorMap b_map2,
        const __grid_constant__ CUtensorMap b_map3, const __grid_constant__ CUtensorMap b_map4,
        const __grid_constant__ CUtensorMap b_map5, const __grid_constant__ CUtensorMap b_map6,
        const __grid_constant__ CUtensorMap b_map7, bf16* __restrict__ c, uint32_t m, uint32_t n,
        uint32_t k, uint32_t b_shifts) {
  ClassGemm<128, 2>(a_map, b_map0, b_map1, b_map2, b_map3, b_map4, b_map5, b_map6, b_map7, c, m,
                    n, k, b_shifts);
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL
