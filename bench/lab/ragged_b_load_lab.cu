// Ragged-B load laboratory (not part of the build; bench/NOTES.md session 28). The row-class
// wgmma kernel (bench/lab/dense-row-class-b-s27.patch) ran ~0.85 us a k-block a block whatever
// its ring depth or shift code. This lab times only the producer side of a 64-row x 64-column
// B stage ring (a consumer warpgroup just waits, checksums the stage and releases it), one
// method at a time, on a B whose rows are 2-byte aligned (K odd), to find which way of loading
// such a B can feed a wgmma kernel:
//   tma64      one 64 x 64 box, 128-byte swizzle, from a 16-byte-aligned copy of B (the aligned
//              kernel's load; the reference rate)
//   rows8      eight 8 x 64 boxes from that copy (box count alone)
//   class8     eight 8 x 72 unswizzled boxes through eight row-class maps (the s27 kernel's load)
//   class1     the same eight boxes through one map (map count alone; other rows, same bytes)
//   bulk       64 cp.async.bulk copies of 144 bytes, one a row, from the aligned-down row start
//   cpasync    cp.async of 16-byte aligned pieces (9 a row), 128 threads, noinc arrivals
//   ldg        128 threads load aligned 16-byte pieces into registers (kDepth k-blocks ahead),
//              funnel-shift them into place and store them swizzled (the stage tma64 writes)
// Checksums: tma64, ldg, shift and shift_warp must agree (the same swizzled stages); the raw
// methods hold other bytes.
//   shift      class8 into a 15-deep raw ring, warps 1-3 shift each row into a 5-deep swizzled
//              ring (the s27 kernel's producer without A and wgmma), 96 arrivals a stage
//   shift_warp the same with one arrival a warp
//   shift_nofence  shift_warp without fence.proxy.async (timing only)
//   shift_rotate   warps 1-3 take k-blocks in turn, each shifting a whole stage alone
//   shift_vec, shift_vec_rotate  the same two, each piece read as two aligned 16-byte blocks
// Build: nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -Iops
//        bench/lab/ragged_b_load_lab.cu -lcuda -o .gpu/lab/ragged_b_load_lab
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "device/tma_kit.cuh"
#include "lab_check.h"

namespace lab {
using namespace device_kit;

constexpr uint32_t kRows = 64, kCols = 64;       // a stage: one k-block of a 64-row n-tile
constexpr uint32_t kRawRowBytes = 144;            // 64 columns + the 8 a shift reaches
constexpr uint32_t kStageBytes = kRows * kRawRowBytes;  // 9216 = 9 x 1024: swizzle-aligned
constexpr uint32_t kStages = 12;
constexpr uint32_t kDepth = 4;  // ldg: k-blocks of loads in flight a thread

enum Method : int {
  kTma64,
  kRows8,
  kClass8,
  kClass1,
  kBulk,
  kCpAsync,
  kLdg,
  kShift,      // class8 into a raw ring + warps 1-3 shift into the swizzled ring, per-thread arrivals
  kShiftWarp,  // the same, one arrival a warp
  kShiftNoFence,  // shift_warp without the proxy fence (timing only: wgmma could read stale bytes)
  kShiftRotate,   // one warp a k-block, warps taking k-blocks in turn
  kShiftVec,        // shift_warp reading aligned 16-byte blocks (conflict-free)
  kShiftVecRotate,  // shift_rotate reading aligned 16-byte blocks
  kMethods
};
const char* const kNames[kMethods] = {"tma64", "rows8", "class8", "class1",   "bulk",
                                      "cpasync", "ldg", "shift", "shift_warp", "shift_nofence", "shift_rotate", "shift_vec", "shift_vec_rotate"};
constexpr uint32_t kRawStages = 15, kSwizzledStages = 5, kSwizzledBytes = kRows * kCols * 2;

struct Params {
  CUtensorMap classes[8];  // box 72 x 8, no swizzle
  CUtensorMap padded;      // box 64 x 64, 128-byte swizzle, over the aligned copy
  CUtensorMap padded_rows; // box 64 x 8, 128-byte swizzle
  const uint8_t* b;        // ragged B (row pitch ld elements)
  uint32_t ld, tiles, k_blocks, class_rows;
  unsigned long long* checksum;
};

#if defined(__CUDA_ARCH__)  // tma_kit.cuh's helpers exist in the device pass only
__device__ __forceinline__ void BulkLoad(void* dst, const void* src, uint32_t bytes, uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::
          "r"(SharedAddress(dst)),
      "l"(src), "r"(bytes), "r"(SharedAddress(bar))
      : "memory");
}
__device__ __forceinline__ void CpAsyncArriveNoinc(uint64_t* bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(SharedAddress(bar))
               : "memory");
}

// ldg: warp w handles row classes 2w and 2w + 1 (one shift each: uniform in the warp); lane
// l of a class pass takes row class + 8 (l / 4) and chunks 2 (l % 4), +1: three aligned
// 16-byte loads, 12 words, of which the shift's 8 are stored.
struct LdgRegs {
  uint32_t w[2][12];
};
__device__ __forceinline__ const uint8_t* LdgRowStart(const Params& p, uint32_t tile, uint32_t row,
                                                      uint32_t kb) {
  return p.b + (size_t(tile) * kRows + row) * p.ld * 2 + size_t(kb) * kCols * 2;
}
__device__ __forceinline__ void LdgLoad(const Params& p, uint32_t tile, uint32_t kb, LdgRegs& r) {
  const uint32_t warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
#pragma unroll
  for (uint32_t pass = 0; pass < 2; ++pass) {
    const uint32_t row = 2 * warp + pass + 8 * (lane / 4);
    const uint8_t* start = LdgRowStart(p, tile, row, kb);
    const uint8_t* aligned =
        reinterpret_cast<const uint8_t*>(reinterpret_cast<uintptr_t>(start) & ~uintptr_t{15}) +
        (lane % 4) * 32;
#pragma unroll
    for (uint32_t x = 0; x < 3; ++x) {
      const uint4 v = LoadCached16(aligned + 16 * x);
      r.w[pass][4 * x] = v.x;
      r.w[pass][4 * x + 1] = v.y;
      r.w[pass][4 * x + 2] = v.z;
      r.w[pass][4 * x + 3] = v.w;
    }
  }
}
template <uint32_t kWord>
__device__ __forceinline__ void LdgStorePass(const uint32_t (&w)[12], uint32_t bits, uint8_t* stage,
                                             uint32_t row, uint32_t chunk0) {
#pragma unroll
  for (uint32_t j = 0; j < 2; ++j) {
    uint32_t o[4];
#pragma unroll
    for (uint32_t q = 0; q < 4; ++q) {
      o[q] = __funnelshift_r(w[kWord + 4 * j + q], w[kWord + 4 * j + q + 1], bits);
    }
    *reinterpret_cast<uint4*>(stage + Swizzle128(row, chunk0 + j)) = make_uint4(o[0], o[1], o[2], o[3]);
  }
}
__device__ __forceinline__ void LdgStore(const Params& p, uint32_t tile, const LdgRegs& r,
                                         uint8_t* stage) {
  const uint32_t warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
#pragma unroll
  for (uint32_t pass = 0; pass < 2; ++pass) {
    const uint32_t row = 2 * warp + pass + 8 * (lane / 4);
    const uint32_t offset = reinterpret_cast<uintptr_t>(LdgRowStart(p, tile, row, 0)) & 15;
    const uint32_t bits = (offset % 4) * 8, chunk0 = 2 * (lane % 4);
    switch (offset / 4) {  // uniform in the warp: one row class a pass
      case 0: LdgStorePass<0>(r.w[pass], bits, stage, row, chunk0); break;
      case 1: LdgStorePass<1>(r.w[pass], bits, stage, row, chunk0); break;
      case 2: LdgStorePass<2>(r.w[pass], bits, stage, row, chunk0); break;
      default: LdgStorePass<3>(r.w[pass], bits, stage, row, chunk0); break;
    }
  }
}

// The consumer's work on a stage: a position-weighted checksum of its first `bytes` (thread t of
// 128 reads 16-byte pieces t, t + 128, ...), then one release a warp.
__device__ __forceinline__ void ConsumeStage(const uint8_t* s, uint32_t bytes, uint64_t* empty,
                                             unsigned long long& sum) {
  const uint32_t thread = threadIdx.x % 128;
  for (uint32_t off = thread * 16; off < bytes; off += 128 * 16) {
    const uint4 v = *reinterpret_cast<const uint4*>(s + off);
    const uint32_t idx = off / 4 + 1;
    sum += (unsigned long long)v.x * idx + (unsigned long long)v.y * (idx + 1) +
           (unsigned long long)v.z * (idx + 2) + (unsigned long long)v.w * (idx + 3);
  }
  __syncwarp();
  if (thread % 32 == 0) MbarArrive(empty);
}
// The dynamic shared memory, its base rounded up to the 1024 bytes the 128-byte swizzle needs.
__device__ __forceinline__ uint8_t* SwizzleAlignedSmem() {
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  return reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
}
#endif

template <int kMethod>
__global__ void __launch_bounds__(256, 1) LoadKernel(const __grid_constant__ Params p) {
#if defined(__CUDA_ARCH__)
  uint8_t* smem = SwizzleAlignedSmem();
  uint8_t* stages = smem;
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + kStages * kStageBytes);
  uint64_t* empty = full + kStages;
  const uint32_t thread = threadIdx.x % 128;
  const bool producer = threadIdx.x < 128;
  constexpr uint32_t kFullCount = (kMethod == kCpAsync || kMethod == kLdg) ? 128 : 1;
  if (threadIdx.x == 0) {
    for (uint32_t s = 0; s < kStages; ++s) {
      MbarInit(&full[s], kFullCount);
      MbarInit(&empty[s], 4);
    }
    MbarInitFence();
  }
  __syncthreads();
  uint32_t stage = 0, phase = 0;
  auto advance = [&] {
    if (++stage == kStages) {
      stage = 0;
      phase ^= 1;
    }
  };
  if (producer) {
    if constexpr (kMethod == kLdg) {
      LdgRegs regs[kDepth];
      for (uint32_t tile = blockIdx.x; tile < p.tiles; tile += gridDim.x) {
#pragma unroll
        for (uint32_t d = 0; d < kDepth; ++d) {
          if (d < p.k_blocks) LdgLoad(p, tile, d, regs[d]);
        }
        for (uint32_t kb0 = 0; kb0 < p.k_blocks; kb0 += kDepth) {
#pragma unroll
          for (uint32_t d = 0; d < kDepth; ++d) {
            const uint32_t kb = kb0 + d;
            if (kb < p.k_blocks) {
              MbarWait(&empty[stage], phase ^ 1);
              LdgStore(p, tile, regs[d], stages + stage * kStageBytes);
              asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
              MbarArrive(&full[stage]);
              advance();
              if (kb + kDepth < p.k_blocks) LdgLoad(p, tile, kb + kDepth, regs[d]);
            }
          }
        }
      }
    } else if constexpr (kMethod == kCpAsync) {
      for (uint32_t tile = blockIdx.x; tile < p.tiles; tile += gridDim.x) {
        for (uint32_t kb = 0; kb < p.k_blocks; ++kb) {
          MbarWait(&empty[stage], phase ^ 1);
          uint8_t* s = stages + stage * kStageBytes;
          for (uint32_t i = thread; i < kRows * 9; i += 128) {
            const uint32_t row = i / 9, piece = i % 9;
            const uintptr_t start = reinterpret_cast<uintptr_t>(LdgRowStart(p, tile, row, kb));
            CpAsync16(s + row * kRawRowBytes + piece * 16,
                      reinterpret_cast<const void*>((start & ~uintptr_t{15}) + piece * 16), true);
          }
          CpAsyncArriveNoinc(&full[stage]);
          advance();
        }
      }
    } else if constexpr (kMethod == kBulk) {
      if (thread >= 32) return;
      for (uint32_t tile = blockIdx.x; tile < p.tiles; tile += gridDim.x) {
        for (uint32_t kb = 0; kb < p.k_blocks; ++kb) {
          MbarWait(&empty[stage], phase ^ 1);
          if (thread == 0) MbarExpectTx(&full[stage], kStageBytes);
          __syncwarp();
          uint8_t* s = stages + stage * kStageBytes;
#pragma unroll
          for (uint32_t h = 0; h < 2; ++h) {
            const uint32_t row = thread + 32 * h;
            const uintptr_t start = reinterpret_cast<uintptr_t>(LdgRowStart(p, tile, row, kb));
            BulkLoad(s + row * kRawRowBytes, reinterpret_cast<const void*>(start & ~uintptr_t{15}),
                     kRawRowBytes, &full[stage]);
          }
          advance();
        }
      }
    } else {
      if (thread != 0) return;
      for (uint32_t tile = blockIdx.x; tile < p.tiles; tile += gridDim.x) {
        for (uint32_t kb = 0; kb < p.k_blocks; ++kb) {
          MbarWait(&empty[stage], phase ^ 1);
          uint8_t* s = stages + stage * kStageBytes;
          if constexpr (kMethod == kTma64) {
            MbarExpectTx(&full[stage], kRows * kCols * 2);
            TmaLoad2D(s, &p.padded, &full[stage], kb * kCols, tile * kRows);
          } else if constexpr (kMethod == kRows8) {
            MbarExpectTx(&full[stage], kRows * kCols * 2);
#pragma unroll
            for (uint32_t r = 0; r < 8; ++r) {
              TmaLoad2D(s + r * 1024, &p.padded_rows, &full[stage], kb * kCols, tile * kRows + 8 * r);
            }
          } else {
            MbarExpectTx(&full[stage], kStageBytes);
#pragma unroll
            for (uint32_t r = 0; r < 8; ++r) {
              if constexpr (kMethod == kClass8) {
                TmaLoad2D(s + r * 8 * kRawRowBytes, &p.classes[r], &full[stage], kb * kCols, tile * 8);
              } else {  // kClass1: other rows of class 0, as far apart as the classes' rows
                TmaLoad2D(s + r * 8 * kRawRowBytes, &p.classes[0], &full[stage], kb * kCols,
                          (tile * 8 + r * (p.class_rows / 8)) % (p.class_rows - 8));
              }
            }
          }
          advance();
        }
      }
    }
  } else {
    // Consumer: wait, checksum the first kRows x kCols x 2 bytes position-weighted, release.
    constexpr uint32_t kCheckBytes = (kMethod == kTma64 || kMethod == kRows8 || kMethod == kLdg)
                                         ? kRows * kCols * 2
                                         : kStageBytes;
    unsigned long long sum = 0;
    for (uint32_t tile = blockIdx.x; tile < p.tiles; tile += gridDim.x) {
      for (uint32_t kb = 0; kb < p.k_blocks; ++kb) {
        MbarWait(&full[stage], phase);
        ConsumeStage(stages + stage * kStageBytes, kCheckBytes, &empty[stage], sum);
        advance();
      }
    }
    atomicAdd(p.checksum, sum);
  }
#endif
}

// The s27 kernel's producer without A and wgmma: thread 0 loads each k-block's eight class boxes
// into a raw ring (kRawStages deep), warps 1-3 wait for a swizzled stage's release and the raw
// stage, shift each row by its class's shift (five aligned words, a funnel), store it swizzled,
// fence for the async proxy and arrive; the consumer checksums the swizzled stage.
#if defined(__CUDA_ARCH__)
// A shifted 16-byte piece from the two aligned 16-byte blocks that hold it (8 words), starting
// kWord words and `bits` bits in.
template <uint32_t kWord>
__device__ __forceinline__ uint4 ShiftedPiece(const uint32_t (&w)[8], uint32_t bits) {
  return make_uint4(__funnelshift_r(w[kWord], w[kWord + 1], bits),
                    __funnelshift_r(w[kWord + 1], w[kWord + 2], bits),
                    __funnelshift_r(w[kWord + 2], w[kWord + 3], bits),
                    __funnelshift_r(w[kWord + 3], w[kWord + 4], bits));
}
#endif

// kVec: each piece read as the two aligned 16-byte blocks that hold it (a row's 8 lanes read
// 16-byte groups 9 r + c, distinct mod 8: no bank conflicts), where the 5-word reads conflict
// 4 ways (ncu, session 28); the word offset is one per row class, uniform in a warp's pass.
template <bool kWarpArrive, bool kFence = true, bool kRotate = false, bool kVec = false>
__global__ void __launch_bounds__(256, 1) ShiftKernel(const __grid_constant__ Params p) {
#if defined(__CUDA_ARCH__)
  uint8_t* swizzled = SwizzleAlignedSmem();
  uint8_t* raw = swizzled + kSwizzledStages * kSwizzledBytes;
  uint64_t* full = reinterpret_cast<uint64_t*>(raw + kRawStages * kStageBytes);
  uint64_t* empty = full + kSwizzledStages;
  uint64_t* raw_full = empty + kSwizzledStages;
  uint64_t* raw_empty = raw_full + kRawStages;
  const uint32_t thread = threadIdx.x % 128;
  // kRotate: warp 1 + (g % 3) alone shifts the block's g-th k-block (32 lanes, one arrival), so
  // three k-blocks are shifted at once instead of one by three warps.
  constexpr uint32_t kArrivals = kRotate ? 1 : kWarpArrive ? 3 : 96;
  constexpr uint32_t kWorkers = kRotate ? 32 : 96;
  uint32_t g = 0;
  if (threadIdx.x == 0) {
    for (uint32_t s = 0; s < kSwizzledStages; ++s) {
      MbarInit(&full[s], kArrivals);
      MbarInit(&empty[s], 4);
    }
    for (uint32_t s = 0; s < kRawStages; ++s) {
      MbarInit(&raw_full[s], 1);
      MbarInit(&raw_empty[s], kArrivals);
    }
    MbarInitFence();
  }
  __syncthreads();
  uint32_t stage = 0, phase = 0, raw_stage = 0, raw_phase = 0;
  if (threadIdx.x < 128) {
    if (thread > 0 && thread < 32) return;
    uint32_t shifts = 0;
    for (uint32_t r = 0; r < 8; ++r) shifts |= ((r * p.ld) % 8) << (3 * r);
    for (uint32_t tile = blockIdx.x; tile < p.tiles; tile += gridDim.x) {
      for (uint32_t kb = 0; kb < p.k_blocks; ++kb) {
        uint8_t* raw_s = raw + raw_stage * kStageBytes;
        if (thread == 0) {
          MbarWait(&raw_empty[raw_stage], raw_phase ^ 1);
          MbarExpectTx(&raw_full[raw_stage], kStageBytes);
#pragma unroll
          for (uint32_t r = 0; r < 8; ++r) {
            TmaLoad2D(raw_s + r * 8 * kRawRowBytes, &p.classes[r], &raw_full[raw_stage], kb * kCols,
                      tile * 8);
          }
        } else if (!kRotate || g % 3 == thread / 32 - 1) {
          MbarWait(&empty[stage], phase ^ 1);
          MbarWait(&raw_full[raw_stage], raw_phase);
          const uint32_t worker = kRotate ? thread % 32 : thread - 32;
          uint8_t* b_s = swizzled + stage * kSwizzledBytes;
          constexpr uint32_t kPieces = kRows * 8, kBatch = 3;
          for (uint32_t base = worker; base < kPieces; base += kBatch * kWorkers) {
            // kVec: the two aligned blocks holding the piece (8 words); else the 5 words from
            // the shift's word on.
            uint32_t w[kBatch][8];
#pragma unroll
            for (uint32_t b = 0; b < kBatch; ++b) {
              const uint32_t i = base + b * kWorkers;
              if (i >= kPieces) break;
              const uint32_t row = i / 8, chunk = i % 8;
              if constexpr (kVec) {
                const uint4* src =
                    reinterpret_cast<const uint4*>(raw_s + row * kRawRowBytes) + chunk;
                const uint4 lo = src[0], hi = src[1];
                w[b][0] = lo.x, w[b][1] = lo.y, w[b][2] = lo.z, w[b][3] = lo.w;
                w[b][4] = hi.x, w[b][5] = hi.y, w[b][6] = hi.z, w[b][7] = hi.w;
              } else {
                const uint32_t shift = (shifts >> (3 * (row / 8))) & 7;
                const uint32_t* src = reinterpret_cast<const uint32_t*>(
                    raw_s + row * kRawRowBytes + chunk * 16 + (shift / 2) * 4);
#pragma unroll
                for (uint32_t x = 0; x < 5; ++x) w[b][x] = src[x];
              }
            }
#pragma unroll
            for (uint32_t b = 0; b < kBatch; ++b) {
              const uint32_t i = base + b * kWorkers;
              if (i >= kPieces) break;
              const uint32_t row = i / 8, chunk = i % 8;
              const uint32_t shift = (shifts >> (3 * (row / 8))) & 7;
              const uint32_t bits = (shift % 2) * 16;
              uint4 out = ShiftedPiece<0>(w[b], bits);
              if constexpr (kVec) {
                switch (shift / 2) {  // one row class a warp's pass: uniform
                  case 1: out = ShiftedPiece<1>(w[b], bits); break;
                  case 2: out = ShiftedPiece<2>(w[b], bits); break;
                  case 3: out = ShiftedPiece<3>(w[b], bits); break;
                  default: break;
                }
              }
              // Stage rows in tile order (raw row r 8 + i is tile row 8 i + r), so the checksum
              // must equal tma64's.
              *reinterpret_cast<uint4*>(b_s + Swizzle128(8 * (row % 8) + row / 8, chunk)) = out;
            }
          }
          if constexpr (kFence) asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
          if constexpr (kWarpArrive || kRotate) {
            __syncwarp();
            if (thread % 32 == 0) {
              MbarArrive(&full[stage]);
              MbarArrive(&raw_empty[raw_stage]);
            }
          } else {
            MbarArrive(&full[stage]);
            MbarArrive(&raw_empty[raw_stage]);
          }
        }
        ++g;
        if (++raw_stage == kRawStages) {
          raw_stage = 0;
          raw_phase ^= 1;
        }
        if (++stage == kSwizzledStages) {
          stage = 0;
          phase ^= 1;
        }
      }
    }
  } else {
    unsigned long long sum = 0;
    for (uint32_t tile = blockIdx.x; tile < p.tiles; tile += gridDim.x) {
      for (uint32_t kb = 0; kb < p.k_blocks; ++kb) {
        MbarWait(&full[stage], phase);
        ConsumeStage(swizzled + stage * kSwizzledBytes, kSwizzledBytes, &empty[stage], sum);
        if (++stage == kSwizzledStages) {
          stage = 0;
          phase ^= 1;
        }
      }
    }
    atomicAdd(p.checksum, sum);
  }
#endif
}

using KernelFn = void (*)(Params);
constexpr KernelFn kKernels[kMethods] = {LoadKernel<kTma64>,  LoadKernel<kRows8>,
                                         LoadKernel<kClass8>, LoadKernel<kClass1>,
                                         LoadKernel<kBulk>,   LoadKernel<kCpAsync>,
                                         LoadKernel<kLdg>,    ShiftKernel<false>,
                                         ShiftKernel<true>,   ShiftKernel<true, false>,
                                         ShiftKernel<false, true, true>,
                                         ShiftKernel<true, true, false, true>,
                                         ShiftKernel<false, true, true, true>};
constexpr uint32_t kSmem = kSwizzledStages * kSwizzledBytes + kRawStages * kStageBytes +
                           2 * (kSwizzledStages + kRawStages) * 8 + 1024;
static_assert(kSmem >= kStages * kStageBytes + 2 * kStages * 8 + 1024, "every method fits");

CUtensorMap Encode(const void* base, uint64_t cols, uint64_t rows, uint64_t stride_bytes,
                   uint32_t box_cols, uint32_t box_rows, CUtensorMapSwizzle swizzle) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {cols, rows};
  const cuuint64_t strides[1] = {stride_bytes};
  const cuuint32_t box[2] = {box_cols, box_rows};
  const cuuint32_t elem[2] = {1, 1};
  const CUresult r = cuTensorMapEncodeTiled(
      &map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void*>(base), dims, strides, box, elem,
      CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed (%d): %llu x %llu stride %llu box %u x %u\n",
                 int(r), (unsigned long long)cols, (unsigned long long)rows,
                 (unsigned long long)stride_bytes, box_cols, box_rows);
    std::exit(1);
  }
  return map;
}

}  // namespace lab

int main() {
  using namespace lab;
  CK(cudaFree(nullptr));
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  for (int m = 0; m < kMethods; ++m) {
    CK(cudaFuncSetAttribute(kKernels[m], cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  }
  struct Shape {
    uint32_t n, k;
  };
  const Shape shapes[] = {{4096, 4099}, {1024, 2053}, {14336, 4103}, {4096, 4101}, {8192, 8191}};
  constexpr int kCopies = 4;  // cold: rotate through copies that together exceed the L2
  unsigned long long* checksum;
  CK(cudaMalloc(&checksum, 8));
  std::printf("n,k,blocks,k_blocks,cache,method,median_us,min_us,us_per_kblock_wave,GBps,checksum\n");
  for (const Shape& sh : shapes) {
    const uint32_t ld = sh.k, ld_padded = (sh.k + 7) / 8 * 8;
    const uint32_t k_blocks = sh.k / kCols;  // whole k-blocks only: every method reads in bounds
    const size_t elems = size_t(sh.n) * ld + 64, padded_elems = size_t(sh.n) * ld_padded;
    std::vector<uint16_t> host(elems);
    uint32_t st = sh.n * 31 + sh.k;
    for (auto& v : host) {
      st = st * 1664525u + 1013904223u;
      v = uint16_t(st >> 16) & 0xBFFF;  // finite BF16 bit patterns
    }
    std::vector<uint16_t> host_padded(padded_elems, 0);
    for (uint32_t r = 0; r < sh.n; ++r) {
      std::memcpy(&host_padded[size_t(r) * ld_padded], &host[size_t(r) * ld], size_t(sh.k) * 2);
    }
    Params params[kCopies];
    std::vector<void*> buffers;
    for (int c = 0; c < kCopies; ++c) {
      uint8_t *b, *bp;
      CK(cudaMalloc(&b, elems * 2));
      CK(cudaMalloc(&bp, padded_elems * 2));
      buffers.push_back(b);
      buffers.push_back(bp);
      CK(cudaMemcpy(b, host.data(), elems * 2, cudaMemcpyHostToDevice));
      CK(cudaMemcpy(bp, host_padded.data(), padded_elems * 2, cudaMemcpyHostToDevice));
      Params& p = params[c];
      std::memset(&p, 0, sizeof(p));
      for (uint32_t r = 0; r < 8; ++r) {  // dense_row_class_maps.h's RowClassOf
        const uint64_t first = uint64_t{r} * ld;
        const uint32_t shift = first % 8;
        const uint32_t rows = (sh.n - r + 7) / 8;
        p.classes[r] = Encode(b + 2 * (first - shift), sh.k + shift, rows, uint64_t{16} * ld, 72, 8,
                              CU_TENSOR_MAP_SWIZZLE_NONE);
      }
      p.padded = Encode(bp, sh.k, sh.n, uint64_t{2} * ld_padded, 64, 64, CU_TENSOR_MAP_SWIZZLE_128B);
      p.padded_rows =
          Encode(bp, sh.k, sh.n, uint64_t{2} * ld_padded, 64, 8, CU_TENSOR_MAP_SWIZZLE_128B);
      p.b = b;
      p.ld = ld;
      p.tiles = sh.n / kRows;
      p.k_blocks = k_blocks;
      p.class_rows = sh.n / 8;
      p.checksum = checksum;
    }
    const uint32_t blocks = std::min<uint32_t>(sh.n / kRows, sms);  // one block an SM, as the kernel
    const double waves = double(sh.n / kRows) / double(std::min<uint32_t>(sh.n / kRows, sms));
    const double bytes = double(sh.n) * k_blocks * kCols * 2;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int cold = 0; cold < 2; ++cold) {
      constexpr int kRounds = 15;
      std::vector<float> t[kMethods];
      unsigned long long sums[kMethods] = {};
      for (int round = 0; round < kRounds + 1; ++round) {
        for (int m = 0; m < kMethods; ++m) {  // interleaved: method after method, round after round
          const Params& p = params[cold ? (round * kMethods + m) % kCopies : 0];
          CK(cudaMemset(checksum, 0, 8));
          CK(cudaEventRecord(e0));
          kKernels[m]<<<blocks, 256, kSmem>>>(p);
          CK(cudaEventRecord(e1));
          CK(cudaGetLastError());
          CK(cudaEventSynchronize(e1));
          float ms = 0;
          CK(cudaEventElapsedTime(&ms, e0, e1));
          unsigned long long s = 0;
          CK(cudaMemcpy(&s, checksum, 8, cudaMemcpyDeviceToHost));
          if (round == 0) {
            sums[m] = s;  // warm-up round: untimed
          } else {
            t[m].push_back(ms * 1000.0f);
          }
        }
      }
      for (int m = 0; m < kMethods; ++m) {
        std::sort(t[m].begin(), t[m].end());
        const double med = t[m][t[m].size() / 2];
        std::printf("%u,%u,%u,%u,%s,%s,%.2f,%.2f,%.4f,%.0f,%llx\n", sh.n, sh.k, blocks, k_blocks,
                    cold ? "cold" : "hot", kNames[m], med, double(t[m][0]),
                    med / (k_blocks * waves), bytes / (med * 1e3), sums[m]);
      }
      std::fflush(stdout);
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    for (void* b : buffers) CK(cudaFree(b));
  }
  return 0;
}
