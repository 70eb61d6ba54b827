// The FP8 warpgroup body (WgmmaRowsTile, sm_90a): C[m, n] = A[m, k] · W[n, k]ᵀ computed as
// Cᵀ = W · Aᵀ on wgmma.m64nRk16, so the weights (any N) fill wgmma's 64-row side and the few
// activation rows its narrow side (wg_m128: 128 of them, any M in M tiles, WgmmaTileAt).
//
// Warpgroup 0 produces: thread 0 TMA-loads the tile's Tile::kN weight rows of each 128-k block;
// the block's m activation rows go into two 64-k halves in the 128-byte swizzle wgmma's
// descriptors read, by the same thread's two TMA boxes of m rows through input_map (`full`
// completes by the bytes; the stage's rows past m keep stale values, whose accumulator columns
// are never stored; the other producer threads leave at once). Warpgroups 1.. (Tile::kConsumers of
// them) consume 64 weight rows each: lane (g, t) of warp w reads rows 16w + g and 16w + g + 8, k
// 2t, 2t + 1, 2t + 8, 2t + 9 of each k16 step (the mma A fragment) from the swizzled stage,
// converts them exactly to BF16, and issues the block's eight wgmmas into an FP32 inner
// accumulator; the block scale is then folded once into the FP32 outer accumulator with fmaf(inner,
// scale, outer), as in every tensor-core kernel of the family. Outputs past m or n are never
// stored. Split tiles (Tile::kSplits > 1) run one tile a cluster, each block its range of k blocks;
// the other ranks' FP32 outer accumulators reach rank 0 through distributed shared memory
// (cluster_kit.cuh) and rank 0 adds them in rank order. Stream-K tiles (Tile::kStreamK) run each
// block's range of (tile, k block) units (StreamKUnits): a tile's later k blocks held by other
// blocks reach the block holding its first one as FP32 partials in the global workspace
// (StreamKWorkspace), added in k order.
#pragma once

#include "fp8_device.cuh"

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

#include "device/cluster_kit.cuh"
#include "device/wgmma_kit.cuh"

namespace fp8_device {

template <uint32_t kRows>
__device__ __forceinline__ void WgmmaRows(float (&d)[kRows / 2], const uint32_t (&a)[4],
                                          uint64_t desc_b, int accumulate) {
  if constexpr (kRows == 128) {
    device_kit::WgmmaM64N128K16Rs(d, a, desc_b, accumulate);
  } else if constexpr (kRows == 64) {
    device_kit::WgmmaM64N64K16Rs(d, a, desc_b, accumulate);
  } else {
    device_kit::WgmmaM64N32K16Rs(d, a, desc_b, accumulate);
  }
}

__device__ __forceinline__ uint32_t LoadU16(const uint8_t* p) {
  return *reinterpret_cast<const uint16_t*>(p);
}

// A stream-K partial's flag: set with release once its writer's stores are visible, read with
// acquire by its owner.
__device__ __forceinline__ void StoreRelease(uint32_t* p, uint32_t v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;\n" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t LoadAcquire(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
  return v;
}

template <typename Tile>
__device__ __forceinline__ void GemmWgmma(const CUtensorMap* __restrict__ weight_map,
                                          const CUtensorMap* __restrict__ input_map,
                                          const float* __restrict__ block_scale,
                                          bf16* __restrict__ output, uint32_t m, uint32_t n,
                                          uint32_t k, uint32_t ldc,
                                          uint8_t* __restrict__ workspace = nullptr) {
  extern __shared__ __align__(1024) uint8_t tma_smem[];  // 1024: the swizzled stages
  constexpr uint32_t kStages = Tile::kStages, kRows = Tile::kMaxM;
  constexpr uint32_t kStageBytes = Tile::kStageBytes, kWeightBytes = Tile::kWeightBytes;
  uint64_t* full = reinterpret_cast<uint64_t*>(tma_smem + kStages * kStageBytes);
  uint64_t* empty = full + kStages;
  uint64_t* partials_in = empty + kStages;  // rank 0: every other rank's consumer threads
  float* partials = reinterpret_cast<float*>(tma_smem + Tile::kPartialOffset);
  constexpr uint32_t kSplits = Tile::kSplits, kConsumerThreads = 128 * Tile::kConsumers;
  const uint32_t rank = kSplits > 1 ? device_kit::ClusterRank() : 0;
  const uint32_t warpgroup = threadIdx.x / 128, thread = threadIdx.x % 128;
  const uint32_t rows = min(m, kRows);  // a tile's activation rows (its TMA box)
  const uint32_t kblocks = k / 128;
  const uint32_t tiles = (n + Tile::kN - 1) / Tile::kN;
  const uint32_t m_tiles = Tile::kWalksM ? (m + kRows - 1) / kRows : 1;
  const uint32_t work_tiles = tiles * m_tiles;  // the walk's items (WgmmaTileAt)
  // Split: cluster blockIdx.x / kSplits owns one tile; rank r the r-th range of k-blocks.
  const uint32_t first_tile = blockIdx.x / kSplits;
  const uint32_t tile_stride = kSplits > 1 ? tiles : gridDim.x;
  const uint32_t rank_kb_begin = rank * kblocks / kSplits;
  const uint32_t rank_kb_end = (rank + 1) * kblocks / kSplits;
  // The block's (weight tile, M tile, first k block, end k block) segments, in order: one k
  // range of every tile it walks, or (stream-K) its share of the units.
  auto for_each_segment = [&](auto&& body) {
    if constexpr (Tile::kStreamK) {
      const uint64_t units = uint64_t{work_tiles} * kblocks;
      const auto range = gpuops::ops::fp8::StreamKUnits(blockIdx.x, gridDim.x, units);
      for (uint64_t u = range.begin; u < range.end;) {
        const auto seg = gpuops::ops::fp8::StreamKSegmentAt(u, range.end, kblocks);
        const auto at = gpuops::ops::fp8::WgmmaTileAt(seg.tile, tiles, m_tiles);
        body(at.n_tile, at.m_tile, seg.kb_begin, seg.kb_end);
        u += seg.kb_end - seg.kb_begin;
      }
    } else if constexpr (Tile::kWalksM) {
      for (uint32_t w = blockIdx.x; w < work_tiles; w += gridDim.x) {
        const auto at = gpuops::ops::fp8::WgmmaTileAt(w, tiles, m_tiles);
        body(at.n_tile, at.m_tile, 0u, kblocks);
      }
    } else {
      for (uint32_t tile = first_tile; tile < tiles; tile += tile_stride) {
        body(tile, 0u, rank_kb_begin, rank_kb_end);
      }
    }
  };
  if (threadIdx.x == 0) {
    for (uint32_t s = 0; s < kStages; ++s) {
      device_kit::MbarInit(&full[s], 1);  // the producer's expect_tx
      device_kit::MbarInit(&empty[s], Tile::kConsumers);
    }
    // (mbarrier counts must be positive: the barrier exists only where ranks send partials.)
    if constexpr (kSplits > 1) device_kit::MbarInit(partials_in, (kSplits - 1) * kConsumerThreads);
    device_kit::MbarInitFence();
  }
  __syncthreads();
  if constexpr (kSplits > 1)
    device_kit::ClusterSync();  // rank 0's barrier initialized before any arrival

  if (warpgroup == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Tile::kProducerRegisters));
    if (thread != 0) return;
    device_kit::PrefetchTensorMap(weight_map);
    device_kit::PrefetchTensorMap(input_map);
    uint32_t stage = 0, phase = 0;
    for_each_segment([&](uint32_t tile, uint32_t m_tile, uint32_t kb_begin, uint32_t kb_end) {
      const int32_t first_row =
          static_cast<int32_t>(gpuops::ops::fp8::WgmmaTileFirstRow(m_tile, kRows, m));
      for (uint32_t kb = kb_begin; kb < kb_end; ++kb) {
        device_kit::MbarWait(&empty[stage], phase ^ 1);
        uint8_t* st = tma_smem + stage * kStageBytes;
        uint8_t* act = st + kWeightBytes;
        device_kit::MbarExpectTx(&full[stage], kWeightBytes + 2 * rows * 128);
        device_kit::TmaLoad2D(st, weight_map, &full[stage], static_cast<int32_t>(kb * 128),
                              static_cast<int32_t>(tile * Tile::kN));
        device_kit::TmaLoad2D(act, input_map, &full[stage], static_cast<int32_t>(kb * 128),
                              first_row);
        device_kit::TmaLoad2D(act + Tile::kActHalfBytes, input_map, &full[stage],
                              static_cast<int32_t>(kb * 128 + 64), first_row);
        if (++stage == kStages) {
          stage = 0;
          phase ^= 1;
        }
      }
    });
    return;
  }

  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Tile::kConsumerRegisters));
  const uint32_t consumer = warpgroup - 1;  // weight rows [64 consumer, 64 consumer + 64)
  const uint32_t warp = thread / 32, lane = thread % 32;
  const uint32_t g = lane / 4, t = lane % 4;
  const uint32_t wrow = consumer * 64 + warp * 16 + g;  // and wrow + 8; wrow % 8 == g
  // Lane (g, t)'s A fragments of k-block stage `st`: rows wrow and wrow + 8, k 2t, 2t + 1 and
  // 2t + 8, 2t + 9 of each k16 step, from the swizzled 128-byte weight rows.
  auto convert = [&](uint32_t (&a)[8][4], const uint8_t* st) {
#pragma unroll
    for (uint32_t s = 0; s < 8; ++s) {
      const uint8_t* lo = st + wrow * 128 + ((s ^ g) << 4) + 2 * t;
      const uint8_t* hi = lo + 8 * 128;
      if constexpr (kRows == 128) {  // the older form: faster here (E4m3HighBytesToBf16x2)
        const uint32_t ql = LoadU16(lo) | (LoadU16(lo + 8) << 16);
        const uint32_t qh = LoadU16(hi) | (LoadU16(hi + 8) << 16);
        a[s][0] = E4m3HighBytesToBf16x2(__byte_perm(ql, 0, 0x1404));
        a[s][1] = E4m3HighBytesToBf16x2(__byte_perm(qh, 0, 0x1404));
        a[s][2] = E4m3HighBytesToBf16x2(__byte_perm(ql, 0, 0x3424));
        a[s][3] = E4m3HighBytesToBf16x2(__byte_perm(qh, 0, 0x3424));
      } else {  // each 16-bit load converted on its own, in four instructions a pair
        a[s][0] = E4m3PairToBf16x2(LoadU16(lo));
        a[s][1] = E4m3PairToBf16x2(LoadU16(hi));
        a[s][2] = E4m3PairToBf16x2(LoadU16(lo + 8));
        a[s][3] = E4m3PairToBf16x2(LoadU16(hi + 8));
      }
    }
  };
  // The block's eight k16 steps into `inner` (zeroed by the first), as one async group.
  auto issue = [&](float(&inner)[kRows / 2], const uint32_t(&a)[8][4], const uint8_t* st) {
    const uint8_t* act = st + kWeightBytes;
    device_kit::WgmmaFence();
#pragma unroll
    for (uint32_t s = 0; s < 8; ++s) {
      WgmmaRows<kRows>(
          inner, a[s],
          device_kit::SmemDescriptor(act + (s / 4) * Tile::kActHalfBytes + (s % 4) * 32), s > 0);
    }
    device_kit::WgmmaCommit();
  };
  // After the group that read stage `slot` completed: release the stage once every warp of
  // this warpgroup is past it, and fold the block's sum.
  auto retire = [&](float (&inner)[kRows / 2], uint32_t (&a)[8][4], uint32_t slot, float scale,
                    float (&outer)[kRows / 2]) {
    device_kit::FenceOperands(inner);
#pragma unroll
    for (uint32_t s = 0; s < 8; ++s) device_kit::FenceOperands(a[s]);
    asm volatile("bar.sync %0, 128;\n" ::"r"(1 + consumer) : "memory");
    if (thread == 0) device_kit::MbarArrive(&empty[slot]);
#pragma unroll
    for (uint32_t i = 0; i < kRows / 2; ++i) outer[i] = fmaf(inner[i], scale, outer[i]);
  };
  uint32_t stage = 0, phase = 0;
  auto advance = [&] {
    if (++stage == kStages) {
      stage = 0;
      phase ^= 1;
    }
  };
  auto wait_and_convert = [&](uint32_t (&a)[8][4]) {
    device_kit::MbarWait(&full[stage], phase);
    convert(a, tma_smem + stage * kStageBytes);
  };
  // Two fragment sets: block kb + 1 converts while block kb's group runs; one accumulator, so
  // nothing reads it while a group is in flight.
  uint32_t a0[8][4], a1[8][4];
  float inner[kRows / 2];
  // Stream-K: the flag of this block's partial, raised by thread 0 once a later k block's
  // warpgroup barrier has ordered every thread's partial stores before it (release is cumulative),
  // so no thread waits for its stores to drain.
  uint32_t* pending_flag = nullptr;
  auto raise_pending_flag = [&] {
    if (thread == 0) StoreRelease(pending_flag, 1);
    pending_flag = nullptr;
  };
  for_each_segment([&](uint32_t tile, uint32_t m_tile, uint32_t kb_begin, uint32_t kb_end) {
    const float* scales = block_scale + uint64_t{tile * Tile::kN / 128} * kblocks;
    float outer[kRows / 2];
#pragma unroll
    for (uint32_t i = 0; i < kRows / 2; ++i) outer[i] = 0.0f;
    // step: issue block kb from `a` (converted), convert block kb + 1 into `a_next`, retire kb.
    auto step = [&](uint32_t kb, uint32_t (&a)[8][4], uint32_t (&a_next)[8][4]) {
      const float scale = scales[kb];
      const uint32_t slot = stage;
      issue(inner, a, tma_smem + slot * kStageBytes);
      advance();
      if (kb + 1 < kb_end) wait_and_convert(a_next);
      device_kit::WgmmaWait<0>();
      retire(inner, a, slot, scale, outer);
      if constexpr (Tile::kStreamK) {
        if (pending_flag != nullptr) raise_pending_flag();
      }
    };
    if (kb_begin < kb_end) wait_and_convert(a0);
    uint32_t kb = kb_begin;
    for (; kb + 1 < kb_end; kb += 2) {
      step(kb, a0, a1);
      step(kb + 1, a1, a0);
    }
    if (kb < kb_end) step(kb, a0, a1);
    if constexpr (kSplits > 1) {
      // Partials as [rank - 1][register][consumer thread]: consecutive threads, consecutive words.
      const uint32_t me = consumer * 128 + thread;
      if (rank != 0) {
#pragma unroll
        for (uint32_t i = 0; i < kRows / 2; ++i) {
          device_kit::StoreRemote(
              device_kit::RemoteAddress(
                  &partials[((rank - 1) * (kRows / 2) + i) * kConsumerThreads + me], 0),
              outer[i]);
        }
        device_kit::ArriveRemote(device_kit::RemoteAddress(partials_in, 0));
        return;  // one tile a cluster
      }
      device_kit::MbarWait<device_kit::MbarScope::kCluster>(partials_in, 0);
#pragma unroll
      for (uint32_t i = 0; i < kRows / 2; ++i) {
        for (uint32_t r = 1; r < kSplits; ++r) {
          outer[i] += partials[((r - 1) * (kRows / 2) + i) * kConsumerThreads + me];
        }
      }
    }
    if constexpr (Tile::kStreamK) {
      constexpr uint32_t kAcc = kRows / 2;
      const gpuops::ops::fp8::StreamKWorkspace layout{gridDim.x, Tile::kConsumers, kAcc};
      uint32_t* flags = reinterpret_cast<uint32_t*>(workspace);
      float* slots = reinterpret_cast<float*>(workspace + layout.flag_bytes());
      const uint32_t mine = blockIdx.x * Tile::kConsumers + consumer;
      if (kb_begin > 0) {
        // A later part of a tile (the block's first segment): its partial for the owner.
        float* p = slots + mine * layout.slot_floats() + thread;
#pragma unroll
        for (uint32_t i = 0; i < kAcc; ++i) p[i * 128] = outer[i];
        pending_flag = &flags[mine];
        return;
      }
      // The owner: the tile's k blocks past kb_end lie in blocks blockIdx.x - 1, - 2, ... (each
      // starting where the previous one ends); add their partials in k order, kBatch at a time
      // with all their loads in flight (four; two at 128 rows, where four would spill).
      const uint64_t units = uint64_t{work_tiles} * kblocks;
      uint32_t other = blockIdx.x;
      for (uint32_t covered = kb_end; covered < kblocks;) {
        constexpr uint32_t kBatch = kRows == 128 ? 2 : 4;
        uint32_t slot[kBatch] = {}, count = 0;
        for (; count < kBatch && covered < kblocks; ++count) {
          --other;
          covered += gpuops::ops::fp8::StreamKHeld(other, gridDim.x, units, kblocks, covered);
          slot[count] = other * Tile::kConsumers + consumer;
        }
        if (thread == 0) {
          for (uint32_t q = 0; q < count; ++q) {
            while (LoadAcquire(&flags[slot[q]]) == 0) __nanosleep(32);
            flags[slot[q]] = 0;  // for the next launch
          }
        }
        asm volatile("bar.sync %0, 128;\n" ::"r"(1 + consumer) : "memory");
#pragma unroll
        for (uint32_t i = 0; i < kAcc; ++i) {
          float add[kBatch];
#pragma unroll
          for (uint32_t q = 0; q < kBatch; ++q) {
            add[q] = q < count ? __ldcg(slots + slot[q] * layout.slot_floats() + i * 128 + thread)
                               : 0.0f;
          }
#pragma unroll
          for (uint32_t q = 0; q < kBatch; ++q) {
            if (q < count) outer[i] += add[q];
          }
        }
      }
    }
    // Accumulator (g, j): weight row wrow (+8 for registers 4j + 2, 3), activation rows
    // first_row + 8j + 2t (+1 for the odd registers); rows before the M tile's own first row
    // (a shifted last tile's) belong to the tile before.
    const uint32_t col = tile * Tile::kN + wrow;
    const uint32_t first_row = gpuops::ops::fp8::WgmmaTileFirstRow(m_tile, kRows, m);
    const uint32_t skip = m_tile * kRows - first_row;
#pragma unroll
    for (uint32_t j = 0; j < kRows / 8; ++j) {
#pragma unroll
      for (uint32_t e = 0; e < 4; ++e) {
        const uint32_t row = 8 * j + 2 * t + (e & 1);
        const uint32_t c = col + (e >= 2 ? 8 : 0);
        if (row < rows && row >= skip && c < n)
          output[uint64_t{first_row + row} * ldc + c] = device_kit::ToBf16(outer[4 * j + e]);
      }
    }
  });
  if constexpr (Tile::kStreamK) {
    if (pending_flag != nullptr) {  // the partial was the block's last segment
      asm volatile("bar.sync %0, 128;\n" ::"r"(1 + consumer) : "memory");
      raise_pending_flag();
    }
  }
}

}  // namespace fp8_device

#endif  // __CUDA_ARCH_FEAT_SM90_ALL
